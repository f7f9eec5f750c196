"""The offline heuristic judge: plain correct answers pass in every register, each blatant
signal fails an answer and is named, and the same answer without the signal passes. Texts
here are this file's own; the assertions are about directions and classes, not sentences."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import pytest

from pytest_llmjudge.basics.rubrics import RELEVANCE, TONE
from pytest_llmjudge.judges.heuristic import (
    ABOUT,
    PREFIX,
    HeuristicJudge,
    find_refusal,
    score_relevance,
    score_tone,
)
from pytest_llmjudge.judges.heuristic.correctness import score_correctness

THRESHOLD = 3.5  # the default for both dimensions

# (ticket, a plain correct answer): areas far apart, so no list of one area carries them
TICKETS = [
    (
        "My card was declined when paying abroad",
        "Turn on travel use in the app under Card settings, then try the payment again.",
    ),
    (
        "How do I change the email address on my account?",
        "Go to Profile, choose Edit next to the address and confirm the link we send to it.",
    ),
    (
        "The thermostat shows offline since this morning",
        "Restart the hub by unplugging it for ten seconds; the thermostat reconnects on its own.",
    ),
    (
        "Can I move my dentist appointment to next week?",
        "Yes: pick a new slot in the booking page, and the old one is released at once.",
    ),
    (
        "Why is my payslip lower this month?",
        "The pension contribution went up to 5% in April, which is taken before tax.",
    ),
    (
        "Kubernetes pod stuck in CrashLoopBackOff after the latest deploy",
        "Run kubectl logs <pod> --previous to see why it exits, then roll back the deploy.",
    ),
]
# Ways of wrapping the same answer that a person may use: none of them is a fault.
REGISTERS = {
    "plain": "{answer}",
    "polite": "Thanks for getting in touch, and sorry for the trouble. {answer} Hope this helps!",
    "greeting": "Hi Sam, {answer} Kind regards, Ana",
    "please": "Please note: {answer}",
    "apology": "Sorry about that. {answer}",
}


def passes(ticket: str, answer: str) -> bool:
    return score_relevance(ticket, answer)[0] >= THRESHOLD and score_tone(answer)[0] >= THRESHOLD


@pytest.mark.parametrize("register", REGISTERS)
@pytest.mark.parametrize(("ticket", "answer"), TICKETS, ids=[t[:20] for t, _ in TICKETS])
def test_a_plain_correct_answer_passes_in_every_register(
    ticket: str, answer: str, register: str
) -> None:
    assert passes(ticket, REGISTERS[register].format(answer=answer))


@pytest.mark.parametrize(
    ("ticket", "terse"),
    [
        ("How many vacation days do I have left?", "Twelve. See Time off in the HR portal."),
        ("Do you ship to Norway?", "We do. Delivery takes 4-6 working days."),
        ("Is the pool open on Sundays?", "Yes, 8am to 4pm."),
        ("Horizontal pod autoscaler never scales up", "The HPA cannot read metrics: install "
         "metrics-server and set CPU requests on the containers."),
    ],
)  # fmt: skip
def test_a_terse_answer_in_other_words_gets_the_benefit_of_the_doubt(
    ticket: str, terse: str
) -> None:
    assert passes(ticket, terse)


def test_please_and_apologies_never_lower_the_tone() -> None:
    plain = "You can return the item within 30 days; keep the receipt."
    polite = (
        "Sorry for the trouble. You can return the item within 30 days; please keep the receipt."
    )
    assert score_tone(polite)[0] >= score_tone(plain)[0] >= THRESHOLD


TICKET, ANSWER = TICKETS[0]

# Each signal, as a family of texts that carry it (each with the correct answer inside, so only
# the signal can fail it), and the dimension and reasoning word it must show.
TONE_FAMILIES = {
    "profanity": [f"{ANSWER} This shit happens.", f"Damn, {ANSWER.lower()}"],
    "contempt": [
        f"What a silly question. {ANSWER}",
        f"{ANSWER} Not our problem if you forget, genius.",
        f"{ANSWER} Everyone else manages fine.",
        f"It's your own fault. {ANSWER}",
        f"{ANSWER} You'll just have to deal with it.",
        # a verdict on the reader, its word judged by the sentiment lexicon
        f"You are so lazy. {ANSWER}",
        f"{ANSWER} You're being pathetic about this.",
        # disowning the problem, and orders about the reader's conduct or wits
        f"{ANSWER} Anything else is not my department.",
        f"Calm down. {ANSWER}",
        f"{ANSWER} Use your brain next time.",
        f"{ANSWER} Stop complaining.",
        # a rule restated as its own reason, sarcasm by form, the reader's own work judged
        f"Rules are rules. {ANSWER}",
        f"{ANSWER} Fees are fees.",
        f"{ANSWER} It's a shop, not a charity.",
        f"{ANSWER} We're a bank, not your personal assistant.",
        f"{ANSWER} It's a corner shop, not a department store.",
        # responsibility disowned or put on the reader
        f"{ANSWER} That is not our responsibility.",
        f"{ANSWER} Delays are not our responsibility.",
        f"Your spelling is just terrible. {ANSWER}",
        # the reader set against others or compared to a child, a name called, a tautology as
        # the measure, and orders about the reader's wits
        f"{ANSWER} Some of us have real work to do.",
        f"{ANSWER} It works for everyone else.",
        f"{ANSWER} Do it like an adult.",
        f"{ANSWER} Do it like a grown adult.",
        f"{ANSWER} Next time, you big baby.",
        f"{ANSWER} Thanks, you idiot.",
        f"{ANSWER} It comes when it comes.",
        f"We sell what we sell. {ANSWER}",
        f"{ANSWER} Try using your brain.",
    ],
    "mockery": [
        f"lol. {ANSWER}",
        f"{ANSWER} Seriously?",
        f"{ANSWER} haha",
        f"So? {ANSWER}",
        f"Really? {ANSWER}",
        f"{ANSWER} Whatever.",
        f"Wow. {ANSWER}",
        f"Oh wow, a late parcel. {ANSWER}",
        f"{ANSWER} Obviously.",
        # a suggestion in sarcasm, in an answer without a figure, step or action of ours
        f"Maybe read the manual next time. {ANSWER}",
        f"Maybe if you had looked, you would know. {ANSWER}",
        # a refusal of ours is no action of ours, so it does not excuse the sarcasm
        "We will not do that. Maybe read the manual.",
        "I will not be refunding it. Obviously you broke it.",
        # a figure elsewhere in the answer is no step for the suggestion
        "Our 200 other customers manage fine. Maybe read the label.",
        "It has worked since 2019. Obviously the fault is on your side.",
    ],
    "shouting": [f"{ANSWER} DO NOT CALL US ABOUT THIS AGAIN.", ANSWER.upper()],
}


@pytest.mark.parametrize(
    ("signal", "text"),
    [(signal, text) for signal, texts in TONE_FAMILIES.items() for text in texts],
)
def test_each_tone_signal_fails_an_answer_and_names_itself(signal: str, text: str) -> None:
    assert score_tone(ANSWER)[0] >= THRESHOLD  # the same answer without it passes
    score, reason = score_tone(text)
    assert score < THRESHOLD and signal in reason


@pytest.mark.parametrize(
    "text",
    [
        "Run SELECT id FROM orders WHERE status = 'open' to list them.",  # code, not shouting
        "Ask IT to add the VPN and SSO apps to your PC.",  # acronyms, not shouting
        "Kill the app and reopen it, then strip the old profile.",  # ordinary verbs
        "Everyone else on the plan keeps their seat; only yours moves.",
        # the reader's feelings are empathy, not a verdict on them
        "I understand you're frustrated: the refund left today.",
        "I can see you are worried, so I have booked the first slot.",
        # "just have to", "nothing we can do" and "should" that go on to an answer
        "You just have to restart the app once and it syncs.",
        "There's nothing we can do to speed it up, but Fast Track takes five days.",
        "It should have arrived yesterday, so I have sent a new one.",
        "Oh no, I am so sorry it arrived broken.",
        # a rule with its reason, a contrast that goes on to a step, a state that is news
        "Fees are charged monthly, on the 1st.",
        "It is a setting, not a bug: turn it off under Settings > Display.",
        "Your card is just expired; the new one is in the post.",
        "Too bad weather delayed it; it arrives Friday instead.",
        # an instruction's contrast, learning and what others say are no contempt
        "Enter a number, not a word.",
        "Upload a PDF, not a Word document.",
        "You can learn to use the API with our quickstart guide.",
        "Learn how the rewards work in the app's Rewards tab.",
        # a comparison or "you" before a word that is no name called
        "If you disagree, you can ask us to review it within eight weeks.",
        "It is treated like a storm, so the claim is covered.",
        "If a text looks like a scam, delete it and call the number on your card.",
        "Child seats are free; book one like an adult seat, at the desk.",
        "Yes, under Manage booking. Everyone says it is easy.",
        # "Maybe", "Wow", "obviously" beside a figure, a step after a colon or an action of ours
        "Maybe try restarting the router: hold the power button for 10 seconds.",
        "Wow, sorry about that! We have sent a new one today.",
        "Obviously we will refund the 2 missing items.",
        # ... in its own sentence or the next
        "Maybe try restarting the router. Hold the power button for 10 seconds.",
        "Sorry for the wait. Maybe check the porch. We will also send a new code.",
    ],
)
def test_words_that_only_look_like_a_signal_do_not_fail(text: str) -> None:
    assert score_tone(text)[0] >= THRESHOLD


# Replies with nothing else in them; each family is one class, phrased several ways.
EMPTY_FAMILIES = {
    "a refusal": ["I can't help with that.", "Sorry, we are unable to assist with this."],
    "a deflection": [
        "Please contact support.",
        "Please refer to our help centre.",
        "We'll get back to you within 24 hours.",
        "Thank you for your patience. A member of our team may be in touch.",
        "Please speak to a member of staff.",
        "Please consult the user manual.",
        "The details are available online.",
        "I'll pass this on to the relevant team.",
        "Our engineers are working on it.",
        "We will share more in due course.",
        # a profession or role elsewhere, whoever decides
        "Please ask the pharmacist.",
        "You would need to speak to a technician.",
        "Eligibility is determined by the event organiser.",
    ],
    "a shrug": [
        "It depends on many factors.",
        "Hard to say, there are various reasons.",
        "That's just how it is.",
        "It happens.",
        # resignation: it is normal, final, it varies, someone else decides
        "Delays happen sometimes.",
        "That's normal.",
        "The decision is final.",
        "Prices vary by clinic.",
        # vague quantities of factors, variables and considerations
        "It depends on a range of considerations.",
        "Numerous variables are involved.",
        "There are many circumstances to weigh.",
    ],
    "courtesy": [
        "Thanks for reaching out! We value your feedback.",
        "Thank you for choosing us. We are proud of our friendly staff and great service.",
    ],
    # filler: every sentence thanks, kindness or the ticket said back
    "nothing new": [
        "Hello! We understand your card was declined when paying abroad. We value you as a "
        "customer.",
        "Hi there! You are asking why your card was declined when paying abroad. That is a "
        "great question.",
        "Good morning! A declined card abroad is never fun. We are here for you.",
    ],
    # praise of the customer or of the company, measured by the sentiment lexicon
    "pleasantries": [
        "We are proud of our friendly staff and our commitment to great service.",
        "It is always a pleasure to welcome you, and we truly value loyal customers.",
        "We love hearing from our wonderful members and wish you every success!",
        # a generality about the ticket's own subject is no answer either
        "Passwords are a great way to keep your account safe and happy.",
    ],
}


@pytest.mark.parametrize(
    ("kind", "text"),
    [(kind, text) for kind, texts in EMPTY_FAMILIES.items() for text in texts],
)
def test_a_reply_with_nothing_else_in_it_fails_relevance_and_says_what_it_is(
    kind: str, text: str
) -> None:
    score, reason = score_relevance(TICKET, text)
    # pleasantries and praise are the learned signal's: it names what moved it, not a kind
    assert score < THRESHOLD and (kind in reason or "reads like a poor answer" in reason)
    # the same words beside an answer: the answer counts
    assert score_relevance(TICKET, f"{text} {ANSWER}")[0] >= THRESHOLD


@pytest.mark.parametrize(
    "text",
    [
        "Please contact support.",
        "I can't help with that.",
        "We will get back to you shortly.",
        "Sorry, I'm not able to help with card payments. Please reach out to our support team.",
    ],
)
def test_find_refusal_names_a_refusal_or_deflection(text: str) -> None:
    found = find_refusal(text)
    assert found is not None and found.startswith(("a refusal (", "a deflection ("))


@pytest.mark.parametrize(
    "text",
    [
        ANSWER,
        "Contact support at help@example.com with the order number and they refund the fee.",
        "We can't refund it, but you can exchange it for store credit under Orders > Returns.",
        "Thanks for your patience.",  # courtesy alone is no refusal
    ],
)
def test_find_refusal_leaves_answers_alone(text: str) -> None:
    assert find_refusal(text) is None


@pytest.mark.parametrize(
    ("ticket", "answer"),
    [  # a rule, a fact or a page of the product is an answer, though it says no or "check"
        (
            "Can I get a refund for shoes I bought 45 days ago?",
            "We cannot offer refunds after 30 days.",
        ),
        (
            "Can you restore the files I deleted last year?",
            "Deleted information cannot be recovered.",
        ),
        ("Where is my invoice?", "Check the billing page of your account."),
        ("Why was my refund refused?", "I must decline the refund because the item was used."),
    ],
)
def test_a_plain_no_or_a_place_to_look_is_no_refusal(ticket: str, answer: str) -> None:
    assert find_refusal(answer, ticket=ticket) is None
    assert score_relevance(ticket, answer)[0] >= 4


def test_ticket_words_repeated_in_a_deflection_are_not_an_answer() -> None:
    echo = "For card payments abroad, please contact support."
    assert find_refusal(echo, ticket=TICKET) is not None


@pytest.mark.parametrize(
    "text", ["", "   ", "TODO", "N/A", "-- no reply --", "(no response)", "[insert answer here]",
             "{{response}}", "asdfgh", "Lorem ipsum dolor sit amet.", "TODO: write reply",
             "Answer goes here", "<answer>", "%s", "NaN", "null", "-", "...",
             "Error 500: internal server error", "TypeError: undefined is not a function",
             # a status where the answer should be, and a pointer to nothing
             "Answer pending.", "Draft", "N/A - see above", "[INSERT ANSWER]", "TBC", "tbc."],
)  # fmt: skip
def test_empty_and_placeholder_text_scores_one(text: str) -> None:
    score, reason = score_relevance(TICKET, text)
    assert score == 1 and ("empty" in reason or "placeholder" in reason)


@pytest.mark.parametrize(
    "text",
    [  # a template's slot left unfilled among words, or a draft's marker first
        "Hello {customer_name}, thanks for writing in. Best wishes, the team",
        "Your refund of {refund_amount} is on its way.",
        "Thanks for your message!\n\n{{ reply_body }}\n\nKind regards",
        "TBD, waiting on the warehouse",
        "FIXME: add the opening hours",
        "PLACEHOLDER - agent to complete",
        "TBC: confirm the price with the workshop",
        # a slot's name in capitals in square brackets
        "Hi [CUSTOMER_NAME], thanks for your message. Best, [AGENT]",
        "Your table is booked for [TIME] on [DATE].",
    ],
)
def test_an_unfilled_template_slot_anywhere_is_placeholder_text(text: str) -> None:
    score, reason = score_relevance(TICKET, text)
    assert score == 1 and "placeholder" in reason


@pytest.mark.parametrize(
    "answer",
    [  # braces that are the answer's own: an expression, a variable, a JSON body
        "Set the key to node-${{ hashFiles('package-lock.json') }} in the cache step.",
        "Write the path as ${HOME}/.config/app and restart the app.",
        'Send {"card": "blocked"} to the cards endpoint to unblock it.',
        # a template engine's or a format string's own braces (a review's probes)
        "Write {{ user.name }} in the template.",
        "Set image: {{ .Values.image.tag }} in the chart's deployment.",
        'Set name: "{{ app_name }}" in the play and run it again.',
        "Use double braces: {{first_name}} is replaced by the contact's name.",
        "Build it with '{first_name} {last_name}'.format(**row) in the script.",
        "Call GET /users/{user_id} with the account's token.",
        # brackets of code and commands: lower case, or a name in angle brackets
        "Put [skip ci] in the commit message and the card app's cache is left alone.",
        "Run terraform force-unlock <LOCK_ID> to free the cache of the card app.",
    ],
)
def test_braces_that_belong_to_an_answer_are_no_slot(answer: str) -> None:
    assert score_relevance("How do I set up the cache for my card app?", answer)[0] >= 4


@pytest.mark.parametrize(
    ("ticket", "terse"),
    [
        ("Are there any fees?", "None."),
        ("How many bags can I check in?", "2"),
        ("Can I pay by cheque?", "No."),
        ("When can I collect my cake?", "Yes, Tuesday."),
        ("How long is the warranty?", "12 days."),
        ("What is the cut-off for same-day delivery?", "Order by 1pm."),
        ("Is the error code on the screen a problem?", "Error E5 means the filter needs a clean."),
        # an error named in a customer's words, then what to do, is an answer
        ("My photos will not upload", "Permission error: allow access under Settings > Privacy."),
        ("My download stops halfway", "Disk full error: free up space and try again."),
    ],
)
def test_a_terse_answer_is_not_a_placeholder(ticket: str, terse: str) -> None:
    assert passes(ticket, terse)


@pytest.mark.parametrize(
    ("ticket", "answer"),
    [  # the same kind words, once with the ticket's subject answered in them
        ("Has my refund gone through?", "Good news, your refund has been approved!"),
        ("Can I bring my kids to the pool?", "Of course! Children are very welcome."),
        ("Can I bring a friend?", "Yes, you are welcome to bring a friend or relative."),
        ("Thanks, the router works now!", "Great to hear, thanks for letting us know!"),
        # what we will do or did, among kind words, is an answer
        (
            "My photo prints came out too dark.",
            "Sorry they came out dark! We will reprint "
            "them brighter at no cost, thank you for your patience.",
        ),
    ],
)
def test_kind_words_around_an_answer_or_to_thanks_are_no_pleasantry(
    ticket: str, answer: str
) -> None:
    assert passes(ticket, answer)
    # the same reply to a question it does not touch says nothing
    assert not passes("My parcel never arrived", "We love our wonderful customers! Thank you!")


@pytest.mark.parametrize(
    ("ticket", "answer"),
    [
        ("How much is a call to Spain on my plan?", "£1.20 a minute; the Add-on makes it 5p."),
        ("can I choose my seat for free?", "Only at check-in, a day before departure."),
        ("When does the pharmacy close?", "6pm on weekdays, noon on Saturdays."),
        # words of a shrug, said as a direct answer
        ("Is it normal for the battery to get warm while charging?",
         "Yes, that is normal while charging."),
        ("Is the price final?", "Yes, the price is final."),
        # a closed question typed without its question mark, answered in other words
        ("can I pay by cheque", "No, card or bank transfer only; transfers cost £2 extra."),
        ("do you open on sundays", "Yes, 10am to 4pm, and late until 8 in December."),
        # ... or with more than one mark
        ("Is it normal for the battery to get warm while charging?!",
         "Yes, that is normal while charging."),
        ("Is the price final??", "Yes, the price is final."),
    ],
)  # fmt: skip
def test_a_direct_answer_to_a_closed_question_is_related(ticket: str, answer: str) -> None:
    assert passes(ticket, answer)
    # not knowing is no answer, however it begins
    assert not passes(ticket, "No idea.")


def test_an_answer_about_something_else_fails_where_it_belongs_it_passes() -> None:
    elsewhere = (
        "Exam resits take place in the second week of August, and the timetable is on the "
        "student portal in July."
    )
    score, reason = score_relevance(TICKET, elsewhere)
    assert score < THRESHOLD and "nothing related to the ticket's subject" in reason
    assert score_relevance("When are the exam resits?", elsewhere)[0] >= THRESHOLD
    # what was done for the reader may answer a request in none of its words
    done = "I have added special assistance, so a member of staff meets her at the terminal desk."
    assert score_relevance("My elderly mum struggles to walk long distances.", done)[0] >= 4


@pytest.mark.parametrize(
    ("ticket", "answer"),
    [
        ("How do I log in with two-factor authentication?", "Open the login page and enter "
         "the six-digit code from your authenticator app."),  # log in ~ login
        ("My Wi-Fi keeps dropping", "Move the router away from the microwave; wifi on 2.4 GHz "
         "suffers from it."),  # Wi-Fi ~ wifi
        ("Horizontal pod autoscaler never scales up", "Check that the HPA sees metrics from "
         "the metrics server and that the containers request CPU."),  # initials
        ("My account got banned and I don't know why.", "The ban was for chat abuse reported "
         "on 3 March; it ends in 7 days."),  # banned ~ ban
    ],
)  # fmt: skip
def test_a_word_written_another_way_is_the_same_subject(ticket: str, answer: str) -> None:
    assert "nothing related" not in score_relevance(ticket, answer)[1]


def test_correctness_rises_with_what_the_reference_says() -> None:
    reference = "Raise the pod memory limit to 3Gi and set MAVEN_OPTS=-Xmx2g."
    right = score_correctness("Set the pod memory limit to 3Gi and MAVEN_OPTS=-Xmx2g.", reference)
    wrong = score_correctness("Reinstall Jenkins and update all plugins.", reference)
    assert right[0] > wrong[0] and "missing" in wrong[1]


def test_the_judge_labels_its_reasoning_and_is_deterministic() -> None:
    judge = HeuristicJudge()
    first = asyncio.run(judge.judge_once(TONE, TICKET, "This is shit."))
    assert first == asyncio.run(judge.judge_once(TONE, TICKET, "This is shit."))
    assert first.reasoning.startswith(f"{PREFIX} tone 1/5: profanity")
    fine = asyncio.run(judge.judge_once(RELEVANCE, TICKET, ANSWER))
    assert fine.score >= THRESHOLD and "no clear sign of a problem" in fine.reasoning
    assert "offline heuristic judge" in ABOUT and "OPENAI_API_KEY" in ABOUT


def test_the_reasoning_is_the_same_in_every_process() -> None:
    """Sets iterate in a per-process order (PYTHONHASHSEED): the reasoning must not follow it."""
    code = (
        "from pytest_llmjudge.judges.heuristic import score_relevance, score_tone;"
        "print(score_relevance('Exam resits in August?', 'Turn on travel use in the app under "
        "Card settings and pay again.'), score_tone('YOU ARE CLUELESS, DO NOT ASK AGAIN lol'))"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in range(3)
    }
    assert len(outputs) == 1, outputs

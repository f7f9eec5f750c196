"""The offline heuristic judge: plain correct answers pass in every register, each blatant
signal fails an answer and is named, and the same answer without the signal passes. Texts
here are this file's own; the assertions are about directions and classes, not sentences."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import pytest

from pytest_llmjudge.basics.rubrics import CORRECTNESS, RELEVANCE, TONE, Context, Dimension
from pytest_llmjudge.judges.base import JudgeCallError
from pytest_llmjudge.judges.heuristic import (
    ABOUT,
    PREFIX,
    HeuristicJudge,
    score_relevance,
    score_tone,
)

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
        # an expert's answer in none of the ticket's words (issue 60's measure)
        ("I can't log in to the VPN portal since this morning", "Your password expired "
         "overnight. Reset it at the self-service page, then reconnect with the new one."),
        ("Our webhook stopped firing yesterday", "Deliveries are paused after five consecutive "
         "failures. Fix the endpoint, then press Redeliver on the most recent event."),
        ("How long is the ferry crossing to the island?", "About forty-five minutes, door to "
         "door."),
        ("Exam resits in August?", "Turn on travel use in the app under Card settings."),
    ],
)  # fmt: skip
def test_an_answer_in_other_words_passes_whatever_its_words(ticket: str, terse: str) -> None:
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
    "profanity": [
        f"{ANSWER} This shit happens.",
        f"Damn, {ANSWER.lower()}",
        # of a thing, in any position; the list's compounds, masked, British, unlisted compounds
        f"That app is a shithole. {ANSWER}",
        f"{ANSWER} The card system is slow as f**k.",
        f"Sh*t happens. {ANSWER}",
        f"{ANSWER} What a pain in the arse.",
        f"{ANSWER} The bank's side is a total shitshow.",
        f"{ANSWER} ffs.",
        f"Screw you. {ANSWER}",
        f"{ANSWER} This sucks.",
    ],
    "an insult": [
        f"What a stupid question. {ANSWER}",
        f"{ANSWER} Thanks, you idiot.",
        f"You are so lazy. {ANSWER}",
        f"{ANSWER} You are an idiot.",
        f"{ANSWER} You're pathetic.",
        f"Are you blind? {ANSWER}",
        f"Your spelling is just terrible. {ANSWER}",
        f"{ANSWER} Try harder, moron.",
        f"{ANSWER} Pathetic.",
        f"{ANSWER} You dummy.",  # the profanity list's word, said of the reader
        # contempt said to the reader in words no lexicon holds as insults
        f"Did you even read the error? {ANSWER}",
        f"Anyone with half a brain would know. {ANSWER}",
        f"Can't you read? {ANSWER}",
        f"{ANSWER} Maybe learn to read the docs.",
        f"{ANSWER} Try it like a grown-up.",
        f"{ANSWER[:-1]}, genius.",
        f"{ANSWER} Do you need a picture?",
        f"Stop whining. {ANSWER}",
        f"{ANSWER} Clueless, as usual.",
        f"{ANSWER} Be sensible for once.",
        f"Not rocket science. {ANSWER}",
        f"{ANSWER} Common sense, honestly.",
        f"{ANSWER} How hard is it to look?",
        # plain words: a trait said of the reader, a rhetorical question, a name for the reader,
        # a word of scorn alone
        f"You're being impatient. {ANSWER}",
        f"Are you really this slow? {ANSWER}",
        f"You are a bit dense. {ANSWER}",
        f"{ANSWER} You clearly can't read.",
        f"Have you even opened the app? {ANSWER}",
        f"Maybe read the app before writing in? {ANSWER}",
        f"Did you think it would work abroad by magic? {ANSWER}",
        f"Have you tried not ignoring our emails? {ANSWER}",
        f"{ANSWER} It's on the card, sweetheart.",
        f"{ANSWER} Genius. Typical.",
        f"{ANSWER} Learn to use the app like everyone else.",
        f"{ANSWER} It literally says so in the app.",
        f"Obviously it's blocked. {ANSWER}",
        f"{ANSWER} What did you expect?",
        f"{ANSWER} Figure it out yourself.",
        f"You people never read anything. {ANSWER}",
        f"What kind of person pays abroad without checking? {ANSWER}",
        f"{ANSWER} We're not mind readers.",
        f"{ANSWER} You numpty.",  # a name for a fool that neither lexicon holds
    ],
    "shouting": [
        f"{ANSWER} DO NOT CALL US ABOUT THIS AGAIN.",
        ANSWER.upper(),
        # one line of short shouted sentences, read as written ("THAT'S" is one word)
        "TURN ON TRAVEL USE!!!! THAT'S ALL!!",
    ],
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
        # the reader's feelings are empathy, not an insult
        "I understand you're frustrated: the refund left today.",
        "I can see why you're upset; I have booked the first slot for you.",
        "Sorry that you are unhappy with it. We have sent a new one today.",
        # blunt or sarcastic, with no insult and no phrase of contempt: passes (docs/judges.md)
        "It is a setting, not a bug: turn it off under Settings > Display.",
        "Your card is just expired; the new one is in the post.",
        "If you disagree, you can ask us to review it within eight weeks.",
        "We can't refund it, sadly.",
        "You are in the wrong queue: use the one for returns.",
        # a word the lexicon rates low, not said of the reader
        "The error means the disk is full: free some space and retry.",
        # a verdict first is no insult; a word alone insults only after what was said
        "Scam. Delete the text and block the number.",
        # the words of a phrase of contempt, not said to the reader; terse or warm answers
        "Did you get the code? If not, we will send another.",
        "Can't you see the button? It is under Settings, at the bottom.",
        "The course helps children learn to read at their own pace.",
        "Grown-up tickets cost 12 euros; children go free.",
        "Book a slot at the Genius Bar; the check is free.",
        "The pump should stop whining once it is primed.",
        "The setup is not hard: open Settings and choose Update.",
        "Yes, tomorrow.",
        "Sure, genuinely happy to help",
        # near the plain-word rules: agreement, a state, a hedge, a suggestion, a real question
        "You're quite right: the fee was taken twice, and we have refunded one.",
        "If you are still stuck, send us the error code.",
        "Maybe it is the cable? Try the one that came in the box.",
        "Do you think we could call you tomorrow at 10?",
        "What kind of account do you have? Business accounts have their own limit.",
        "Not a silly question at all! Yes, it works abroad.",
        "It is not your fault: the courier left it at the wrong number.",
        "Learn to Skate takes children from age 4.",
        "A child ticket works like an adult ticket but costs half.",
        "Next time, turn on Undo Send with a delay.",
        "You can figure the total in the app under Card settings.",
        "Simple: open the app and turn on travel use.",
        # near the profanity rules: words that hold a swear word's letters, code, emphasis
        "The shiitake risotto is vegetarian; the Scunthorpe branch has it too.",
        "Write it in C# or F#, then run the **Build** task.",
        "Run the assessment, then pass the results to your class teacher.",
        "It sucks water through the inlet; screw it in clockwise.",
        # near the rules of contempt: troubleshooting, a polite request, reassurance, warmth, a
        # feeling said with the reader, a terse first word
        "Have you tried looking in your spam folder? The code goes there sometimes.",
        "Maybe you could send us a photo of the label?",
        "Are you at that address now? Then the courier can try again today.",
        "If the walk is too much for you, take the shuttle from the gate.",
        "Yes, any child can do it from age 5.",
        "You apparently missed the delivery, so we have rebooked it for Friday.",
        "Nobody wants that to happen, so we check every seat before boarding.",
        "Are you slow cooking it? Use the low setting for eight hours.",
        "You will just learn to steer as you go; the first lesson is on the flat.",
        "You are so upset, and rightly so: we have refunded the full amount.",
        "You're a bit nervous about the exam? That is normal: the first minutes are a chat.",
        "Simple. Plug it in and press Start.",
        "It works really well, honestly!",
        "The cabin is literally on the beach!",
        "We cover the basic stuff like oil and tyres in the Basic service.",
        "Don't worry, it's not that complicated: open Settings and choose Update.",
        # near shouting: acronyms and one capitalised label among words
        "Use the AWS VPN, not the old SSL VPN; IT can add you.",
        "Yes: look for the BREAKFAST INCLUDED line on your booking.",
    ],
)
def test_words_that_only_look_like_a_signal_do_not_fail(text: str) -> None:
    assert score_tone(text)[0] >= THRESHOLD


# Replies with nothing else in them; each family is one class, phrased several ways.
EMPTY_FAMILIES = {
    "a refusal": [
        "I can't help with that.",
        "Sorry, we are unable to assist with this.",
        "I'm afraid I must decline.",
    ],
    "a pointer to support": [
        "Please contact support.",
        "Please contact our customer service team.",
        "Check the FAQ on our website.",
        "Thank you for your patience. Please reach out to the relevant team.",
    ],
    "pleasantries": [
        "Thanks for reaching out! We appreciate your patience.",
        "Hi there! Thanks for getting in touch. We're sorry for any inconvenience.",
        # well-wishing is a pleasantry too
        "Good afternoon! Thanks for your note. Have a lovely weekend!",
        "Hey! We hope you're well. Take care!",
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
    assert score < THRESHOLD and kind in reason
    # the same words beside an answer: the answer counts
    assert score_relevance(TICKET, f"{text} {ANSWER}")[0] >= THRESHOLD


@pytest.mark.parametrize(
    ("ticket", "answer"),
    [  # a firm refusal with its reason is a correct answer
        ("Can you tell me which room my colleague is in?",
         "I'm sorry, I can't share that for privacy reasons."),
        ("Can you disable two-factor authentication on my account?",
         "I can't do that, because 2FA is mandatory for every account."),
        ("Can I bring my own wine?", "I'm afraid we can't allow that under our licence."),
        ("Please refund my ticket, the concert was last week",
         "We can't refund tickets after the event has taken place."),
        # a rule, a fact, a named place to go: answers, though they say no or "see"
        ("Can I get a refund for shoes I bought 45 days ago?",
         "We cannot offer refunds after 30 days."),
        ("Who do I ask about my parking permit?", "Contact the council's parking office."),
        ("How do I cancel my membership?", "Call us to cancel; it can't be done online."),
        ("Where is my invoice?", "Check the billing page of your account."),
        ("Can I pay by cheque?", "Sorry, no."),
        ("Thanks, the router works now!", "Great to hear, thanks for letting us know!"),
        ("When do you open?", "Hi! We open at 9 tomorrow. Have a great day!"),
    ],
)  # fmt: skip
def test_a_refusal_with_its_reason_or_a_place_to_go_passes(ticket: str, answer: str) -> None:
    assert passes(ticket, answer)


def test_ticket_words_repeated_in_a_pointer_to_support_are_not_an_answer() -> None:
    echo = "For card payments abroad, please contact support."
    assert score_relevance(TICKET, echo)[0] < THRESHOLD


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
        # a template's own slot in any case, and a program's notice where the reply should be
        "Hi [Name],\n\n[Reply]\n\nThanks,\n[Agent]",
        "Response unavailable. Please try again later.",
        "(no response yet)",
        # blanks where a value should be
        "Answer: ___",
        "Cost = ???",
        "Your refund of £XX.XX will arrive by [DATE].",
        "Refund date: XX/XX/XXXX",
        # a note to the writer in brackets, whatever its words
        "Dear customer, [lost property answer]",
        "[Insert cancellation policy paragraph]",
        "Hi, thanks - [answer re: bluetooth]",
        "<insert pregnancy policy>",
        "Hello! (answer to be added)",
        # a slot after a greeting or on a line of its own, a marker for a value, a note alone
        "Dear %s, your parcel %s has been located.",
        "Hi ${first_name}, the limit is twelve.",
        "Dear <customer>, <answer>",
        "Hi,\n{resolution}\nRegards",
        "Reply: TBD",
        "Price list TBC",
        "Insert gardening advice here.",
        "INSERT RESPONSE",
        "Answer: [to be written]",
        "Call us on [phone number].",
        "Go to [link] and reset it.",
        "Reset it at <reset link>.",
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
        # near the slot shapes: sizes, JVM flags, date formats, ini sections, links, buttons,
        # a marker among words, an instruction to the reader
        "An XL cache takes 6 hours to warm, an XXL one about 8.",
        "Set -XX:MaxRAMPercentage=75 so the card app's heap leaves room for the cache.",
        "Set the cache log's date format to %d/%m/%Y and send us the log.",
        "Point the [cache] section of the card app's ini at the new host.",
        "See [the cache answer](https://example.com/cache) in our docs.",
        "Click [Reply all] to send the card app's cache report to the team.",
        "The cache date is TBC until the vendor confirms; we will email you by Friday.",
        "Paste the token here: Settings > Cache > Token.",
        "The cache log line reads [date] [level] message.",
        "Add a <link> tag for the card app's cache manifest.",
        "The cache venue (to be confirmed) is in Leeds.",
        "Run cache-login --user <your email address> and paste the token.",
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
        ("When do you open?", "Hi! We open at 9 tomorrow. Have a great day!"),
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
    assert not passes("My parcel never arrived", "Thank you for your message! We appreciate it.")


@pytest.mark.parametrize(
    "dimension", [CORRECTNESS, Dimension("empathy", "5: warm")], ids=["correctness", "custom"]
)
def test_a_dimension_it_does_not_judge_is_said_not_scored(dimension: Dimension) -> None:
    # a session never asks (it leaves the dimension unjudged); a test's own call is told why
    judge, context = HeuristicJudge(), Context(reference="The crossing takes 45 minutes.")
    with pytest.raises(JudgeCallError, match="does not judge"):
        asyncio.run(judge.judge_once(dimension, TICKET, ANSWER, context=context))


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
        "print(score_relevance('Where is my refund?', 'Thanks for reaching out! We appreciate "
        "it.'), score_tone('YOU ARE CLUELESS, DO NOT ASK AGAIN, you moron. Damn.'))"
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

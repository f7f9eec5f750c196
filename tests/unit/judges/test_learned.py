"""The offline judge's learned signal: directions and classes, not sentences. Non-answers of
one class, however they are put, read as poorer than plain answers to the same ticket; one
signal added or taken away moves the probability the way it should; a failure names what
moved it; the shipped weights are the script's, byte for byte. Texts are this file's own."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_llmjudge.basics.rubrics import RELEVANCE
from pytest_llmjudge.judges.heuristic import PREFIX, HeuristicJudge, score_relevance
from pytest_llmjudge.judges.heuristic.learned import features, model, probability

ROOT = Path(__file__).resolve().parents[3]
TICKET = "My parcel has not arrived and it has been two weeks."
# Plain answers, in different words: what happened and what was done or is to be done.
ANSWERS = [
    "It is held at the depot because the flat number was missing. I have added it; it will "
    "arrive tomorrow.",
    "The courier marked it undeliverable on 3 May. I have sent a new one today, tracking 1Z999.",
    "Sorry about that. It was lost in transit, so I have refunded the £24.99 to your card.",
    "Tracking shows it was left with your neighbour at number 12 on Tuesday.",
]
# Answers that say nothing of the parcel, by class: filler, a shrug, talking down.
NON_ANSWERS = {
    "filler": [
        "We value every customer and always strive for excellence!",
        "Our team works hard to make every delivery a great experience!",
        "We appreciate your patience and thank you for choosing us!",
    ],
    "shrug": [
        "These things happen. Parcels arrive when they arrive.",
        "Delivery times are what they are. Please be patient.",
    ],
    "talking down": [
        "Have you checked your letterbox? Most people find it there.",
        "Maybe try waiting a bit longer like everyone else.",
    ],
}


def p(ticket: str, response: str) -> float:
    return probability(model()[0], features(ticket, response))


@pytest.mark.parametrize("kind", NON_ANSWERS)
def test_every_non_answer_of_a_class_reads_poorer_than_every_plain_answer(kind: str) -> None:
    answered = max(p(TICKET, answer) for answer in ANSWERS)
    assert all(p(TICKET, text) > answered for text in NON_ANSWERS[kind])


@pytest.mark.parametrize(
    ("without", "with_"),
    [
        # a figure, a date: something only an answer holds
        ("Please be patient.", "Please be patient: it arrives on 12 May."),
        # what is refused, named: a rule, not a brush-off
        ("We are unable to accept them.", "We are unable to accept them once worn."),
    ],
)
def test_something_specific_added_lowers_the_probability(without: str, with_: str) -> None:
    ticket = "Can I return shoes I have worn?"
    assert p(ticket, with_) < p(ticket, without)


POOL = "What time does the pool open on Sundays?"
POOL_ANSWERS = ["It opens at 8 am on Sundays.", "Sundays from 9 until 6, lanes from 10."]
# Answers that give nothing new: the ticket said back with thanks, or general words of process
# with nothing concrete in them (no time, figure, name or label), however they are put.
NOTHING_NEW = {
    "the ticket said back": [
        "Thanks for asking what time the pool opens on Sundays. We understand you would like "
        "to know when the pool opens on a Sunday. Thank you for getting in touch.",
        "You would like to know what time our pool opens on Sundays, and we are glad you asked "
        "us about the pool on Sundays.",
    ],
    "general words of process": [
        "Opening arrangements are reviewed on a regular basis in line with a range of "
        "operational considerations, and any changes are communicated through the appropriate "
        "channels in due course.",
        "Our schedules reflect various factors and requirements across the facility, and they "
        "are kept under review so that they remain suitable for members and staff alike.",
    ],
}


@pytest.mark.parametrize("kind", NOTHING_NEW)
def test_an_answer_that_gives_nothing_new_reads_poorer_than_every_plain_answer(kind: str) -> None:
    answered = max(p(POOL, answer) for answer in POOL_ANSWERS)
    assert all(p(POOL, text) > answered for text in NOTHING_NEW[kind])


@pytest.mark.parametrize("text", [t for texts in NOTHING_NEW.values() for t in texts])
def test_one_concrete_fact_added_to_nothing_new_lowers_the_probability(text: str) -> None:
    assert p(POOL, text + " It opens at 7 am on Sundays.") < p(POOL, text)


# Filler, however it is put: thanks, warm words and the ticket said back, sentence after sentence
# (a rule's now: it fails relevance and says so)
POOL_FILLER = [
    "Great question about the pool on Sundays! We love hearing from our members.",
    "Hello, and thank you for your message about Sunday opening. We truly value your loyalty.",
    "You would like to know when the pool opens on Sundays. Thanks so much for asking us!",
    "What a lovely question. Sunday swims are a wonderful way to relax, and we are glad you asked.",
]
# ... one sentence of which says something: a time, a name, what we did
SAYS_SOMETHING = [
    "It opens at 8 am.",
    "Lanes open after the Junior Club finishes.",
    "I have added Sunday hours to the website.",
]


@pytest.mark.parametrize("text", POOL_FILLER)
def test_filler_of_every_phrasing_is_named_and_one_real_sentence_undoes_it(text: str) -> None:
    score, reason = score_relevance(POOL, text)
    assert score < 3.5 and reason.startswith("nothing new: courtesy, kindness and the ticket")
    for sentence in SAYS_SOMETHING:
        with_one = text.split(". ")[0] + ". " + sentence
        assert "nothing new" not in score_relevance(POOL, with_one)[1]


def test_the_same_answer_reads_poorer_to_a_ticket_it_does_not_take_up() -> None:
    answer = "Returns are accepted within 30 days if the shoes are unworn."
    assert p("Why does the app crash on my phone?", answer) > p("Can I return my shoes?", answer)


def test_a_failure_by_the_learned_signal_names_what_moved_it() -> None:
    failed = [
        score_relevance(TICKET, text)
        for texts in NON_ANSWERS.values()
        for text in texts
        if "learned signal" in score_relevance(TICKET, text)[1]
    ]
    assert failed, "the learned signal failed none of the non-answers"
    for score, reason in failed:
        assert score < 3.5 and "moved by " in reason
        assert reason.split("moved by ", 1)[1].strip(")")  # at least one feature named
    result = asyncio.run(HeuristicJudge().judge_once(RELEVANCE, TICKET, NON_ANSWERS["filler"][1]))
    assert result.reasoning.startswith(f"{PREFIX} relevance 3/5: reads like a poor answer")


@pytest.mark.parametrize(
    ("ticket", "answer"),
    [
        ("Can I bring my kids to the pool?", "Of course! Children are very welcome."),
        ("Thanks, the router works now!", "Great to hear, thanks for letting us know!"),
        ("Is the gym open on Sundays?", "No, only on weekdays."),
    ],
)
def test_what_the_rules_know_to_be_an_answer_is_spared(ticket: str, answer: str) -> None:
    assert score_relevance(ticket, answer)[0] >= 3.5


def test_the_shipped_weights_are_the_scripts_byte_for_byte() -> None:
    """The training script rerun on the repository's data (about 20 s) writes the same file."""
    script = ROOT / "benchmarks" / "train_learned_signal.py"
    done = subprocess.run(
        [sys.executable, str(script), "--check"], capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "reproduced byte for byte" in done.stdout

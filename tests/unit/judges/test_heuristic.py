"""The offline heuristic judge: each signal moves the score the way it should, the reasoning
names what moved it, and the plugin shows that reasoning."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import pytest

from pytest_llmjudge.basics.rubrics import TONE
from pytest_llmjudge.judges.heuristic import PREFIX, HeuristicJudge, score_relevance, score_tone
from pytest_llmjudge.judges.heuristic.model import fitted
from pytest_llmjudge.judges.heuristic.relevance import relevance_signals
from pytest_llmjudge.judges.heuristic.steps import technical_tokens
from pytest_llmjudge.judges.heuristic.text import rarity
from pytest_llmjudge.judges.heuristic.tone import tone_signals

PLAIN_REQUEST = "Can you check the references in the history section of the article?"

# (signal, text without it, text with it, +1 if it should raise the tone score, -1 lower it)
TONE_CASES = [
    ("gratitude", PLAIN_REQUEST, PLAIN_REQUEST + " Thanks!", +1),
    ("deference", PLAIN_REQUEST, "Great work on the article. " + PLAIN_REQUEST, +1),
    ("greeting", PLAIN_REQUEST, "Hi, " + PLAIN_REQUEST, +1),
    ("apology", PLAIN_REQUEST, "Sorry to bother you. " + PLAIN_REQUEST, +1),
    (
        "please",
        PLAIN_REQUEST,
        "Can you please check the references in the history section of the article?",
        +1,
    ),
    (
        "please at the start",
        "Check the references in the history section.",
        "Please check the references in the history section.",
        -1,
    ),
    (
        "counterfactual request",
        PLAIN_REQUEST,
        "Could you check the references in the history section of the article?",
        +1,
    ),
    ("indirect (by the way)", PLAIN_REQUEST, PLAIN_REQUEST + " By the way, nice map.", +1),
    (
        "why",
        "Did you check the references in the history section?",
        "Why did you not check the references in the history section?",
        -1,
    ),
    ("questions", "I checked the references.", "I checked the references. Did you?", -1),
    ("direct start", "The references are wrong.", "So the references are wrong.", -1),
    ("starts with you", "The edit removed the references.", "You removed the references.", -1),
    (
        "confronting imperative",
        "The references need a source.",
        "Stop removing the references.",
        -1,
    ),
    (
        "emphatic factuality",
        "The references need a source.",
        "Obviously the references need a source.",
        -1,
    ),
    ("negative words", "The references need a source.", "The awful references need a source.", -1),
    ("positive words", "The references need a source.", "The lovely references need a source.", +1),
    ("profanity", "The references need a source.", "The damn references need a source.", -1),
    ("insult", "The references need a source.", "The references need a source, duh.", -1),
    ("repeated ?!", "Are the references sourced?", "Are the references sourced?!?", -1),
    ("slang", PLAIN_REQUEST, "lol can you check the references in the history section, dude?", -1),
    (
        "slang in an answer",
        "The references need a source.",
        "lol the references need a source, dude.",
        -1,
    ),
    (
        "filler",
        "The references need a source.",
        "Basically the references literally need a source, you know.",
        -1,
    ),
    (
        "hedges in an answer",
        "The cache key changes on every run.",
        "Maybe the cache key changes, perhaps on every run, possibly.",
        -1,
    ),
]


def continuous(dimension: str, values: dict[str, float]) -> float:
    return fitted(dimension).continuous(values)


@pytest.mark.parametrize(
    ("signal", "without", "with_", "direction"), TONE_CASES, ids=[c[0] for c in TONE_CASES]
)
def test_each_tone_signal_moves_the_score_its_way(
    signal: str, without: str, with_: str, direction: int
) -> None:
    before, after = tone_signals(without), tone_signals(with_)
    assert before[signal] == 0 and after[signal] > 0
    moved = continuous("tone", after.values()) - continuous("tone", before.values())
    assert moved * direction > 0


TICKET = "Kubernetes pod stuck in CrashLoopBackOff after the latest deploy."
ANSWER = "Check why the pod exits: kubectl logs shows the crash of the latest deploy."

# (signal, response without it, response with it, direction), all for TICKET
RELEVANCE_CASES = [
    (
        "ticket terms taken up",
        "Check the application logs for the reason and fix the configuration error.",
        "Check the pod logs for the CrashLoopBackOff reason and fix the deploy.",
        +1,
    ),
    (
        "substance",
        "Check it and fix it.",
        "Check the container exit code, memory limit and liveness probe settings.",
        +1,
    ),
    ("evasive", ANSWER, "I don't know, please contact support.", -1),
    ("stock phrases", ANSWER, "That's interesting. " + ANSWER, -1),
    (
        "repetition",
        "The pod crashes after the deploy.",
        "The pod crashes after the deploy. The pod crashes after the deploy.",
        -1,
    ),
    (
        "concrete commands/settings",
        "Look at the logs of the previous container to see the crash.",
        "Run kubectl logs <pod> --previous to see the crash.",
        +1,
    ),
]


@pytest.mark.parametrize(
    ("signal", "without", "with_", "direction"),
    RELEVANCE_CASES,
    ids=[c[0] for c in RELEVANCE_CASES],
)
def test_each_relevance_signal_moves_the_score_its_way(
    signal: str, without: str, with_: str, direction: int
) -> None:
    before, after = relevance_signals(TICKET, without), relevance_signals(TICKET, with_)
    assert after[signal] > before[signal]
    moved = continuous("relevance", after.values()) - continuous("relevance", before.values())
    assert moved * direction > 0


def test_function_words_lower_relevance() -> None:
    dense = "Roll back the deploy, then read the crash logs."
    padded = "Well, it is what it is, and it was what it was, so it is up to you to see it."
    assert (
        relevance_signals(TICKET, padded)["function-word share"]
        > relevance_signals(TICKET, dense)["function-word share"]
    )
    assert fitted("relevance").weights["function-word share"] < 0


def test_rare_shared_words_count_more_than_common_ones() -> None:
    table = rarity()
    assert table.idf("crashloopbackoff") > table.idf("time")
    ticket = "The build time doubled after the webpack upgrade."
    rare = relevance_signals(ticket, "Pin webpack to the old version.")
    common = relevance_signals(ticket, "Measure the time again.")
    assert rare["ticket terms taken up"] > common["ticket terms taken up"] > 0


def test_hedges_are_polite_in_requests_and_weak_in_answers() -> None:
    request = tone_signals("Could you perhaps look at the lead, maybe?")
    assert request["hedge in a request"] > 0 and request["hedges in an answer"] == 0
    answer = tone_signals("Maybe it is the network. Perhaps the cloud. Possibly DNS.")
    assert answer["hedges in an answer"] == 2 and answer["hedge in a request"] == 0
    # one hedge in an answer is caution, not vagueness
    assert tone_signals("The cache key probably changes.")["hedges in an answer"] == 0


def test_problem_words_do_not_colour_the_tone() -> None:
    signals = tone_signals("The job fails with an error and the pod is killed.")
    assert signals["negative words"] == 0


def test_technical_tokens_skip_plain_numbers() -> None:
    found = technical_tokens('Set MAVEN_OPTS="-Xmx2g" in 1995, 10,000 of /etc/hosts and 3Gi')
    assert found == ['MAVEN_OPTS="-Xmx2g"', "/etc/hosts", "3Gi"]


def test_an_answer_sharing_no_ticket_term_scores_at_most_three() -> None:
    offtopic = (
        "Our office will be closed on Friday for the company offsite. Please submit vacation "
        "requests through the HR portal before the end of the month."
    )
    score, reason = score_relevance(TICKET, offtopic)
    assert score == 3
    assert "at most 3: it takes up none of the ticket's terms" in reason


def test_the_caricatures_fail_and_a_good_answer_passes() -> None:
    good = (
        "Run kubectl logs <pod> --previous to see why the container exits, and roll the "
        "deploy back with kubectl rollout undo if the new release crashes."
    )
    assert score_relevance(TICKET, good)[0] >= 4 and score_tone(good)[0] >= 4
    score, reason = score_tone("Obviously you broke it, RTFM!! lol")
    assert score <= 2
    assert 'insult ("obviously you, rtfm")' in reason and "dismissal or blame" in reason
    score, reason = score_tone("Maybe it is the network? Perhaps try later, I think, not sure.")
    assert score <= 3 and "hedges in an answer" in reason
    rambling = "Basically, honestly, at the end of the day it is really important. " * 4
    score, reason = score_tone(rambling)
    assert score <= 3 and "filler" in reason


def test_reasoning_names_the_signals_that_moved_the_score() -> None:
    score, reason = score_tone("Hi! Thanks so much for the fix, could you add a source?")
    assert score == 5
    assert reason.startswith("up: ") and "gratitude" in reason and "greeting" in reason
    plain = "The nightly job runs at noon on the build agents and writes a report to a folder."
    assert score_tone(plain) == (4, "no signal moves it far from the reference text")


def test_the_shipped_weights_cover_every_signal() -> None:
    assert set(fitted("tone").weights) == set(tone_signals("x").values())
    assert set(fitted("relevance").weights) == set(relevance_signals("a b c", "x").values())


def test_the_judge_is_deterministic_and_says_no_llm() -> None:
    judge = HeuristicJudge()
    first = asyncio.run(judge.judge_once(TONE, "t", "Restart the agent."))
    second = asyncio.run(judge.judge_once(TONE, "t", "Restart the agent."))
    assert first == second
    assert first.reasoning.startswith(f"{PREFIX} tone {first.score}/5: ")


def test_the_reasoning_is_the_same_in_every_process() -> None:
    """Sets iterate in a per-process order (PYTHONHASHSEED): the words the reasoning names
    must not follow it."""
    code = (
        "from pytest_llmjudge.judges.heuristic import score_relevance;"
        "print(score_relevance(\"npm ci fails in CI with 'lockfile does not match package.json'\","
        '"Run npm install locally and commit the updated package-lock.json.")[1])'
    )
    reasons = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in range(6)
    }
    assert len(reasons) == 1, reasons

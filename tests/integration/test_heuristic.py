"""The offline heuristic judge: each signal moves the score the way it should, the reasoning
names what moved it, and the plugin shows that reasoning."""

from __future__ import annotations

import json

import pytest

from helpers import read_results, run, write_evals

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
    ("slang", "The references need a source.", "lol the references need a source, dude.", -1),
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


def test_the_plugin_shows_the_signals_in_the_failure_and_the_results(
    pytester: pytest.Pytester,
) -> None:
    write_evals(
        pytester,
        [
            {"id": "rude", "ticket": TICKET, "response": "Obviously you broke it. RTFM, duh!!"},
            {
                "id": "good",
                "ticket": TICKET,
                "response": "Run kubectl logs <pod> --previous to see why the pod crashes "
                "after the deploy, then fix the probe or roll back.",
            },
        ],
    )
    result = run(pytester, "evals/", "--judge-provider=heuristic")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        ["*tone reasoning*", '*[[]heuristic judge, no LLM[]] tone 1/5: *down: insult ("*']
    )
    items = {item["id"]: item for item in read_results(pytester)["results"]}
    assert "ticket terms taken up" not in json.dumps(items["rude"])  # named by its reading
    assert "takes up 0% of the ticket's terms" in items["rude"]["relevance"]["reasoning"]
    assert "at most 3" in items["rude"]["relevance"]["reasoning"]
    assert "concrete commands/settings" in items["good"]["relevance"]["reasoning"]
    assert read_results(pytester)["meta"]["llm"] is False

"""The offline heuristic judge through the plugin: it fails what needs no understanding of
meaning, passes the rest, names the signal, and labels its scores wherever they show."""

from __future__ import annotations

import pytest

from pytest_llmjudge.judges.heuristic import ABOUT

from helpers import read_results, run, write_evals

TICKET = "My card was declined when paying abroad"
ANSWER = "Turn on travel use in the app under Card settings, then try the payment again."


def test_the_blatant_fail_with_their_signal_and_plain_answers_pass(
    pytester: pytest.Pytester,
) -> None:
    answers = {
        "plain": ANSWER,
        "polite": f"Sorry for the trouble! {ANSWER} Please let us know if it still fails.",
        "terse": "Card settings > Travel use: on.",
        # an answer in none of the ticket's words: word overlap is no evidence, it passes
        "other-words": "Your bank blocks foreign payments by default; call the number on the "
        "back of the card and ask them to allow it.",
        "insult": f"{ANSWER} Thanks, you idiot.",
        "pointer": "Please contact support.",
        "shouting": ANSWER.upper(),
    }
    write_evals(
        pytester, [{"id": key, "ticket": TICKET, "response": text} for key, text in answers.items()]
    )
    result = run(pytester, "evals/", "--judge-report=report.md")
    result.assert_outcomes(passed=4, failed=3)
    shown = " ".join(line.strip() for line in result.stdout.lines)  # reasoning wraps
    assert '[offline heuristic judge, no LLM] tone 2/5: an insult ("thanks, you idiot")' in shown
    assert 'relevance 2/5: nothing but a pointer to support ("contact support")' in shown
    assert "tone 2/5: shouting (" in shown
    items = {item["id"]: item for item in read_results(pytester)["results"]}
    assert {k for k, item in items.items() if item["outcome"] == "passed"} == {
        "plain",
        "polite",
        "terse",
        "other-words",
    }


def test_its_scores_are_labelled_wherever_they_show(pytester: pytest.Pytester) -> None:
    write_evals(pytester, [{"id": "a", "ticket": TICKET, "response": ANSWER}])
    result = run(pytester, "evals/", "--judge-report=report.md", "--judge-report=report.html")
    result.stdout.fnmatch_lines(
        [
            f"llmjudge: {ABOUT}",  # the header, before anything runs
            "*judge: offline heuristic judge (no LLM), runs=1",
            f"note: {ABOUT}",
        ]
    )
    meta = read_results(pytester)["meta"]
    assert meta["llm"] is False and meta["note"] == ABOUT
    markdown = (pytester.path / "report.md").read_text(encoding="utf-8")
    assert "Judge: offline heuristic judge (no LLM)" in markdown and ABOUT in markdown
    html = (pytester.path / "report.html").read_text(encoding="utf-8")
    assert "offline heuristic judge (no LLM)" in html and "OPENAI_API_KEY" in html

"""The offline heuristic judge: each signal moves the score the way it should, the reasoning
names what moved it, and the plugin shows that reasoning."""

from __future__ import annotations

import json

import pytest

from helpers import read_results, run, write_evals

TICKET = "Kubernetes pod stuck in CrashLoopBackOff after the latest deploy."


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
    assert items["rude"]["relevance"]["score"] <= 3  # nothing of the ticket is taken up
    assert "concrete commands/settings" in items["good"]["relevance"]["reasoning"]
    assert read_results(pytester)["meta"]["llm"] is False

"""The -v line of an item: its scores, with the dimensions judged on partial runs named."""

from __future__ import annotations

from pytest_llmjudge.analysis.judgment import Judgment, RunOutcome, build_judgment
from pytest_llmjudge.judges.base import RunResult
from pytest_llmjudge.reports.item_text import scores_line


def _judged(dimension: str, scores: list[int], failed: int = 0) -> Judgment:
    outcomes = [RunOutcome(RunResult(s, "ok"), None, 1) for s in scores]
    outcomes += [RunOutcome(None, "500 after retries", 5)] * failed
    return build_judgment(dimension, outcomes, 3.5)


def test_partial_runs_are_named_as_data_whatever_else_the_line_says() -> None:
    judgments = [_judged("relevance", [2], failed=1), _judged("tone", [4, 4])]
    # a label note after the runs once made the failed item's line read "FAILED ()"
    line = scores_line(judgments, far_from_label={"relevance": 5})
    assert line == "relevance 2.00 (1 of 2 runs) (label 5), tone 4.00"

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
    from pytest_llmjudge.schema.results import JudgedItem

    row = JudgedItem(id="t", file="f.json", nodeid="f.json::t", expected={"relevance": 5})
    row.relevance = _judged("relevance", [2], failed=1).result
    row.tone = _judged("tone", [4, 4]).result
    # a label note after the runs once made the failed item's line read "FAILED ()"
    line = scores_line(row, label_margin=1.0)
    assert line == "relevance 2.00 (1 of 2 runs) (label 5), tone 4.00"
    assert scores_line(row, label_margin=3.0) == "relevance 2.00 (1 of 2 runs), tone 4.00"


def test_runs_shown_are_runs_judged_not_a_list_read_as_a_count() -> None:
    from pytest_llmjudge.reports.item_text import dimension_sentence

    def said(scores: list[int], failed: int = 0) -> str:
        return dimension_sentence("tone", _judged("tone", scores, failed).result)

    # one of three runs judged (score 3): once "tone 3.00 < 3.5 (runs 3)"
    assert said([3], failed=2) == "tone 3.00 < 3.5 (1 of 3 runs: 3)"
    assert said([3]) == "tone 3.00 < 3.5 (1 run: 3)"
    assert said([3, 3, 2]) == "tone 2.67 < 3.5 (runs 3, 3, 2)"


def test_an_undecided_dimension_is_said_alike_in_the_failure_and_the_results_outputs() -> None:
    """One sentence for a dimension that did not pass: the failure report, the summaries
    (HTML, annotations) and the xfail reason say an undecided verdict with its runs."""
    from pytest_llmjudge.reports.item_text import (
        failure_report,
        item_sentence,
        undecided_reason,
    )
    from pytest_llmjudge.reports.markdown import github_annotations
    from pytest_llmjudge.schema.results import ItemResult, ResultsFile

    outcomes = [RunOutcome(RunResult(s, "ok"), None, 1) for s in (5, 2, 5)]
    undecided = build_judgment("relevance", outcomes, 3.5, mode="confident")
    assert undecided.decision == "undecided"
    sentence = "relevance 4.00 undecided: 95% CI -0.30-8.30 contains 3.5 (runs 5, 2, 5)"
    data = {"id": "t", "file": "f.json", "nodeid": "f.json::t", "line": 3, "outcome": "failed"}
    row = ItemResult.model_validate({**data, "relevance": undecided.result.model_dump()})
    assert failure_report(row, confident=True).splitlines()[0] == sentence
    assert item_sentence(row) == sentence
    assert undecided_reason(row).endswith(f": {sentence}")
    results = ResultsFile.model_construct(invalid=[], results=[row])  # what annotations read
    escaped = sentence.replace("%", "%25")  # as a workflow command carries it
    assert github_annotations(results)[0].endswith(f"::{escaped}")


def test_the_pairwise_header_says_the_runs_judged() -> None:
    from pytest_llmjudge.analysis.pairwise import PairVotes, pairwise_result, pairwise_runs_text

    judged = PairVotes("k", "e1", "v2", "v1", "tone", ["A"] * 3, ["B"] * 3)
    refused = PairVotes("k2", "e2", "v2", "v1", "tone", [], [], error="400 n too large")
    assert pairwise_runs_text(pairwise_result([judged], 3)) == "3 runs each"
    assert pairwise_runs_text(pairwise_result([judged, refused], 3)) == "6 of 12 runs judged"
    assert pairwise_runs_text(pairwise_result([refused], 3)) == "0 of 6 runs judged"


def test_a_summary_line_names_ten_items_and_counts_the_rest() -> None:
    from pytest_llmjudge.reports.terminal import NAMED_AT_MOST, _some

    ids = [f"evals/big.json::e{i}" for i in range(12_345)]
    line = _some(ids)
    assert line.startswith("evals/big.json::e0, evals/big.json::e1, ")
    assert line.count("::") == NAMED_AT_MOST
    assert line.endswith(" and 12,335 more (the results JSON names them all)")
    assert _some(ids[:NAMED_AT_MOST]) == ", ".join(ids[:NAMED_AT_MOST])  # all shown: no count

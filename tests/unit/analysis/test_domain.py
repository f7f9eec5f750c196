"""Unit tests of the pure rooms (no pytest session): statistics, item settings, gates,
baseline, comparison, report texts, targets, pricing, the session's results, and the engine
driven by an in-process judge class defined here (the plugin itself never fakes a judgment).
"""

from __future__ import annotations

import copy
import json
import math
import pickle
from pathlib import Path
from typing import Any

import pytest

from pytest_llmjudge.analysis.baseline import compare_with_baseline, load_baseline
from pytest_llmjudge.analysis.comparison import compare_targets, comparison_lines
from pytest_llmjudge.analysis.gates import evaluate_gates, suite_means
from pytest_llmjudge.analysis.judgment import RunOutcome, build_judgment
from pytest_llmjudge.analysis.stats import confidence_interval, decide, paired_difference
from pytest_llmjudge.config.item_settings import Overrides, marker_overrides, resolve_item_settings
from pytest_llmjudge.config.pricing import parse_price_lines, price_for
from pytest_llmjudge.config.targets import TargetError, expand_headers, extract, parse_targets
from pytest_llmjudge.judges.base import RunResult
from pytest_llmjudge.outputs.session_results import SessionResults
from pytest_llmjudge.reports.item_text import failure_report
from pytest_llmjudge.reports.terminal import terminal_summary
from pytest_llmjudge.schema.results import (
    ItemResult,
    JudgedItem,
    SkippedEntry,
    json_schema,
)

from helpers import default_settings, session_facts


def dim(score: float, runs: list[int] | None = None, threshold: float = 3.5) -> dict[str, Any]:
    runs = runs or [round(score)]
    return (
        build_judgment("x", [RunOutcome(RunResult(r, f"r{r}"), None, 1) for r in runs], threshold)
        .result.model_copy(update={"score": score})
        .model_dump()
    )


def item(nodeid: str, outcome: str = "passed", **dims: dict[str, Any]) -> ItemResult:
    file, _, name = nodeid.partition("::")
    return ItemResult.model_validate(
        {"id": name, "file": file, "nodeid": nodeid, "outcome": outcome, **dims}
    )


# -- statistics ---------------------------------------------------------------------------


def test_confidence_interval_and_decisions() -> None:
    low, high = confidence_interval(4.0, 1.0, 4)
    assert (low, high) == pytest.approx((4 - 3.18245 / 2, 4 + 3.18245 / 2))  # t(0.975, 3)
    assert confidence_interval(4.0, 0.0, 1) == (-math.inf, math.inf)
    assert decide(3.4, 0.0, 1, 3.5, "mean") == "fail"
    assert decide(3.5, 2.0, 3, 3.5, "mean") == "pass"
    assert decide(4.0, 0.0, 3, 3.5, "confident") == "pass"
    assert decide(3.67, 0.58, 3, 3.5, "confident") == "undecided"
    assert decide(2.0, 0.0, 3, 3.5, "confident") == "fail"
    mean, low, high = paired_difference([1.0, 1.0, 1.0])
    assert (mean, low, high) == (1.0, 1.0, 1.0)


# -- item settings --------------------------------------------------------------------------


def test_item_settings_layers_and_marker_validation() -> None:
    dims = ("relevance", "tone", "empathy")
    marker = marker_overrides((), {"runs": 3, "empathy": 4}, dims)
    entry = Overrides(runs=None, thresholds={"relevance": 4.5})
    resolved = resolve_item_settings(1, {"relevance": 3.5, "tone": 3.5}, marker, entry)
    assert resolved.runs == 3
    assert resolved.thresholds == {"relevance": 4.5, "tone": 3.5, "empathy": 4.0}
    with pytest.raises(ValueError, match=r"unknown keyword 'relevnce' \(known: runs, relevance"):
        marker_overrides((), {"relevnce": 4}, dims)
    with pytest.raises(ValueError, match="keyword arguments only"):
        marker_overrides((4,), {}, dims)
    with pytest.raises(ValueError, match="runs must be an integer, got True"):
        marker_overrides((), {"runs": True}, dims)


# -- gates and baseline ---------------------------------------------------------------------


def test_gates_fail_closed_and_measure_pass_rate_and_means() -> None:
    items = [
        item("e.json::a", relevance=dim(5)),
        item("e.json::b", "failed", relevance=dim(2)),
        item("e.json::c", "xfailed", relevance=dim(1)),
    ]
    gates = {g.name: g for g in evaluate_gates(items, 0.6, {"relevance": 3.6})}
    # the xfail is no judged item: one count (2) in every gate
    assert gates["judged"].passed and gates["judged"].actual == 2
    assert not gates["pass_rate"].passed and gates["pass_rate"].actual == 0.5
    assert gates["pass_rate"].decision == "undecided"  # 1 of 2: Wilson's interval holds 0.6
    assert suite_means(items) == {"relevance": 3.5}  # the xfail is left out
    assert not gates["mean.relevance"].passed
    nothing = evaluate_gates([item("e.json::s", "skipped")], None, None)
    assert [g.passed for g in nothing] == [False]


def test_a_gate_is_named_by_the_key_that_set_it() -> None:
    """The results, the terminal and merge name a gate as llmjudge_gates spelt it; a key that
    holds for every labelled dimension adds the dimension after a dot."""
    from pytest_llmjudge.analysis.gates import agreement_gates
    from pytest_llmjudge.config.options import gates
    from pytest_llmjudge.schema.sections import LabelAgreement

    setting = gates("pass_rate=0.5 mean.relevance=4 spearman=0.6 kappa=0.4")
    items = [item("e.json::a", relevance=dim(5)), item("e.json::b", relevance=dim(4))]
    labels = {
        "relevance": LabelAgreement(
            n=5, spearman=0.7, kappa=0.5, exact=0.6, within_one=1.0, bias=-0.2
        )
    }
    produced = evaluate_gates(items, setting.pass_rate, setting.mean)
    produced += agreement_gates(labels, setting.agreement)
    names = [g.name for g in produced]
    assert names == [
        "judged",
        "pass_rate",
        "mean.relevance",
        "spearman.relevance",
        "kappa.relevance",
    ]


def test_the_summarys_means_say_over_how_many_items_and_what_is_left_out() -> None:
    from pytest_llmjudge.reports.terminal import means_lines

    items = [
        item("e.json::a", relevance=dim(5), correctness=dim(4)),
        item("e.json::b", "failed", relevance=dim(2)),
        item("e.json::c", "xfailed", relevance=dim(1)),
        item("e.json::d", "skipped"),
    ]
    # once "mean scores: relevance 3.50, correctness 4.00": over what, and the xfail unsaid
    assert means_lines(items) == [
        "mean scores over 2 items (1 xfailed aside): relevance 3.50, correctness 4.00 (1 item)"
    ]
    assert means_lines(items[:2]) == [
        "mean scores over 2 items: relevance 3.50, correctness 4.00 (1 item)"
    ]
    assert means_lines([items[3]]) == []


def test_baseline_regressions_only_beyond_the_noise(tmp_path: Path) -> None:
    old = {
        "results": [
            {"nodeid": "e.json::a", "relevance": {"score": 5.0, "std": 0.0, "runs": [5, 5]}},
            {"nodeid": "e.json::b", "relevance": {"score": 4.0, "std": 1.0, "runs": [3, 5]}},
            {"nodeid": "e.json::gone", "relevance": {"score": 4.0}, "metadata": {"x": 1}},
        ]
    }
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old))
    baseline = load_baseline(path).items
    assert set(baseline["e.json::gone"]) == {"relevance"}  # metadata is not a dimension
    now = [
        item("e.json::a", relevance=dim(1.0, [1, 1])),
        item("e.json::b", relevance=dim(3.5, [3, 4])),
    ]
    result = compare_with_baseline(now, baseline, "old.json", collected=["e.json::a", "e.json::b"])
    assert (result.compared, result.regressed, result.removed) == (2, 1, ["e.json::gone"])
    # what was collected is not known (a merge): missing items are not called removed
    unknown = compare_with_baseline(now, baseline, "old.json")
    assert (unknown.removed, unknown.not_in_run) == ([], ["e.json::gone"])
    assert [c.nodeid for c in result.changes] == ["e.json::a"]  # b's drop is within noise
    assert result.changes[0].verdict == "regressed" and result.changes[0].p_value is not None
    (tmp_path / "bad.json").write_text('{"results": [{"relevance": {"score": "high"}}]}')
    with pytest.raises(ValueError, match=r"results\[0\] has an unreadable score"):
        load_baseline(tmp_path / "bad.json")


# -- A/B comparison -------------------------------------------------------------------------


def live(target: str, key: str, score: int, order: int) -> ItemResult:
    row = item(f"e.json::{key}[{target}]", relevance=dim(score, [score, score]))
    return row.model_copy(update={"target": target, "compare_key": key, "target_order": order})


def test_comparison_winners_ties_and_significance() -> None:
    items = [live("a", f"k{i}", 5, 0) for i in range(3)] + [
        live("b", "k0", 3, 1),
        live("b", "k1", 3, 1),
        live("b", "k2", 5, 1),
    ]
    comparison = compare_targets(items, tolerance=0.01)
    assert comparison is not None
    assert [e.winner for e in comparison.entries] == ["a", "a", "tie"]
    assert comparison.overall["a"].wins == 2 and comparison.overall["b"].ties == 1
    assert comparison.entries[0].targets["b"].dimensions["relevance"].runs == [3, 3]
    lines = comparison_lines(comparison)
    assert lines[0] == "A/B comparison of a, b on 3 entries (tie tolerance 0.01):"
    assert any("a vs b on relevance: no significant difference" in line for line in lines)
    assert compare_targets(items[:3], 0.01) is None  # one target: nothing to compare


# -- texts for people -----------------------------------------------------------------------


def test_failure_report_has_verdict_table_and_reasoning() -> None:
    outcomes = [RunOutcome(RunResult(s, f"scored {s}"), None, 1) for s in (3, 3, 2)]
    judgment = build_judgment("relevance", outcomes, 3.5)
    row = JudgedItem(id="a", file="e.json", nodeid="e.json::a", relevance=judgment.result)
    text = failure_report(row)
    first, _, rest = text.partition("\n\n")
    assert first == "relevance 2.67 < 3.5 (runs 3, 3, 2)"
    assert "relevance  2.67  0.58  3, 3, 2  3.5        FAIL" in rest
    assert "relevance reasoning (run nearest the mean):\n  scored 3" in rest


def test_the_verdict_is_read_from_the_row_and_its_failure_carries_the_row() -> None:
    from pytest_llmjudge.judging.verdict import EvalFailed, VerdictPolicy, assert_verdict

    outcomes = [RunOutcome(RunResult(s, f"scored {s}"), None, 1) for s in (3, 3, 2)]
    failing = build_judgment("relevance", outcomes, 3.5).result
    passing = build_judgment("relevance", outcomes, 2.5).result
    row = JudgedItem(id="a", file="e.json", nodeid="e.json::a", relevance=passing)
    assert_verdict(row, VerdictPolicy())  # passes: nothing raised
    row.relevance = failing
    with pytest.raises(EvalFailed) as raised:
        assert_verdict(row, VerdictPolicy())
    assert raised.value.row is row
    assert raised.value.verdict == "relevance 2.67 < 3.5 (runs 3, 3, 2)"
    assert str(raised.value) == failure_report(row)
    # copied or pickled (as tools that keep a test's exception do), it keeps its row
    for kept in (copy.copy(raised.value), pickle.loads(pickle.dumps(raised.value))):
        assert kept.row == row and str(kept) == str(raised.value)


def test_session_results_decide_the_exit_status_and_the_summary_is_said_from_them() -> None:
    results = SessionResults()
    judged = JudgedItem.model_validate(
        {"nodeid": "e.json::a", "file": "e.json", "id": "a", "relevance": dim(2.0)}
    )
    data = judged.model_dump(mode="json")
    results.add(ItemResult.arrived(data, "passed", None, 0.1))
    results.add(ItemResult.arrived(data, "failed", None, 0.2))  # a rerun replaces the attempt
    invalid = SkippedEntry(file="e.json", index=1, id="#1", reason="Missing 'ticket'")
    results.add_invalid("e.json::#1", invalid, "skipped")
    facts = session_facts(0)
    end = results.finish(default_settings(min_pass_rate=0.9), {}, facts)
    assert end.exit_status == 1 and end.results.meta.exit_status == 1  # the gate failed
    assert end.results.summary.failed == 1 and end.results.summary.skipped == 1
    assert end.results.skipped[0].reason == "Missing 'ticket'"
    summary = "2 eval items: 1 failed, 1 skipped; judge: offline heuristic judge (no LLM), runs=1"
    assert summary in terminal_summary(end.results, None)  # the writer says the path
    row = end.results.results[0]
    assert row.outcome == "failed" and row.relevance is not None and row.relevance.score == 2.0
    assert row.dimensions == {"relevance": row.relevance}


def test_schema_types_baseline_and_comparison() -> None:
    definitions = json_schema()["$defs"]
    assert {"compared", "regressed", "suite", "changes"} <= set(
        definitions["BaselineResult"]["properties"]
    )
    assert {"winner", "majority_winner", "targets"} <= set(
        definitions["ComparedEntry"]["properties"]
    )
    assert definitions["ItemResult"]["additionalProperties"] == {"$ref": "#/$defs/DimensionResult"}


# -- targets and pricing --------------------------------------------------------------------


def test_target_parsing_headers_and_answer_paths() -> None:
    targets = parse_targets("python=http://localhost:8000/chat dotnet")
    assert [(t.name, t.url) for t in targets] == [
        ("python", "http://localhost:8000/chat"),
        ("dotnet", None),
    ]
    with pytest.raises(ValueError, match="given twice"):
        parse_targets("a=http://x a=http://y")
    headers = (("Authorization", "Bearer ${TOKEN}"), ("X-Price", "$5 and $$"))
    assert expand_headers(headers, {"TOKEN": "t0k"}) == {
        "Authorization": "Bearer t0k",
        "X-Price": "$5 and $$",
    }
    with pytest.raises(TargetError, match="needs environment variable TOKEN"):
        expand_headers(headers, {"TOKEN": ""})
    assert extract({"choices": [{"message": {"content": "hi"}}]}, "choices.0.message.content") == (
        "hi"
    )
    with pytest.raises(TargetError, match="missing 'answer'"):
        extract({}, "answer")


def test_prices_from_table_families_and_ini() -> None:
    family = price_for("gpt-4o-mini-2024-07-18", {})
    assert family is not None and family.cost(1_000_000, 0) == pytest.approx(0.15)
    custom = parse_price_lines(["# team prices", "local=0,0", "big=1.5,3"])
    big = price_for("big", custom)
    assert big is not None and big.source == "ini llmjudge_prices"
    assert price_for("unknown-model", custom) is None
    # a typo or another model of the family is not priced as the family (gpt-4o's $2.50)
    assert price_for("gpt-4o-mni", {}) is None and price_for("gpt-4o-audio-preview", {}) is None
    dated_custom = price_for("big-2026-01-31", custom)
    assert dated_custom is not None and dated_custom.source == "ini llmjudge_prices"
    with pytest.raises(ValueError, match="expected 'model=input,output'"):
        parse_price_lines(["broken"])
    with pytest.raises(ValueError, match="expected 'model=input,output'"):
        parse_price_lines(["three=1,2,3"])


def test_the_built_in_table_prices_only_the_providers_own_host() -> None:
    from pytest_llmjudge.config.pricing import configured_price

    assert configured_price("gpt-4o-mini", [], True, None) is not None  # the SDK's default
    assert configured_price("gpt-4o-mini", [], True, "https://api.openai.com/v1") is not None
    for local in ("http://127.0.0.1:8080/v1", "http://localhost:11434/v1", "http://10.0.0.7/v1"):
        assert configured_price("gpt-4o-mini", [], True, local) is None  # tokens only
        given = configured_price("gpt-4o-mini", ["gpt-4o-mini=1,2"], True, local)
        assert given is not None and given.source == "ini llmjudge_prices"


def test_batch_prices_are_half_unless_a_line_gives_them() -> None:
    mini = price_for("gpt-4o-mini", {})
    assert mini is not None
    assert mini.batch_cost(1_000_000, 1_000_000) == pytest.approx((0.15 + 0.60) / 2)
    own = price_for("big", parse_price_lines(["big=1.5,3,1,2"]))
    assert own is not None and own.cost(1_000_000, 0) == pytest.approx(1.5)
    assert own.batch_cost(1_000_000, 1_000_000) == pytest.approx(1 + 2)


def test_a_target_whose_checks_all_passed_is_not_said_to_have_failed_them() -> None:
    from pytest_llmjudge.analysis.comparison import _cause
    from pytest_llmjudge.schema.sections import TargetScores

    passed = TargetScores(outcome="passed", checks=2, checks_passed=2)
    assert "checks failed" not in _cause([passed, passed])
    assert _cause([passed, passed]) == "passed without a score"
    failed = TargetScores(outcome="failed", checks=2, checks_passed=1)
    assert _cause([failed, passed]) == "its checks failed (1 of 2) (1 of 2)"


def test_undecided_is_one_word_in_the_gates_and_decides_how_a_straddling_gate_counts() -> None:
    from pytest_llmjudge.config.options import gates

    assert gates("pass_rate=0.9").undecided is None  # not said: point, and -o keeps the ini's
    assert gates("pass_rate=0.9 undecided=fail").undecided == "fail"
    with pytest.raises(ValueError, match="point"):
        gates("undecided=maybe")
    # 30 of 30 passed: Wilson's lower bound 0.886 is below 0.9: undecided
    items = [item(f"e.json::i{i}", relevance=dim(4)) for i in range(30)]
    counted = {
        mode: evaluate_gates(items, 0.9, None, mode)[1] for mode in ("point", "fail", "pass")
    }
    assert {g.decision for g in counted.values()} == {"undecided"}
    assert [counted[m].passed for m in ("point", "fail", "pass")] == [True, False, True]
    assert counted["point"].ci_low == pytest.approx(0.8865, abs=1e-4)
    decided = evaluate_gates(items, 0.8, {"relevance": 4.5}, "fail")
    assert [(g.decision, g.passed) for g in decided[1:]] == [("pass", True), ("fail", False)]

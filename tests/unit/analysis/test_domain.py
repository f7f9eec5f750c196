"""Unit tests of the pure rooms (no pytest session): statistics, item settings, gates,
baseline, comparison, report texts, targets, pricing, the session's results, and the engine
driven by an in-process judge class defined here (the plugin itself never fakes a judgment).
"""

from __future__ import annotations

import asyncio
import json
import math
import threading
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from pytest_llmjudge.analysis.baseline import (
    compare_with_baseline,
    load_baseline,
    regression_messages,
)
from pytest_llmjudge.analysis.comparison import compare_targets, comparison_lines
from pytest_llmjudge.analysis.gates import evaluate_gates, suite_means
from pytest_llmjudge.analysis.judgment import JudgeError, RunOutcome, build_judgment
from pytest_llmjudge.analysis.stats import confidence_interval, decide, paired_difference
from pytest_llmjudge.basics.rubrics import NO_CONTEXT, Context, Dimension
from pytest_llmjudge.config.item_settings import Overrides, marker_overrides, resolve_item_settings
from pytest_llmjudge.config.pricing import parse_price_lines, price_for
from pytest_llmjudge.config.settings import Settings, resolve_settings
from pytest_llmjudge.config.targets import TargetError, expand_headers, extract, parse_targets
from pytest_llmjudge.judges.base import RetryableJudgeError, RunResult, TooManyChoices, Usage
from pytest_llmjudge.judging.engine import JudgeEngine
from pytest_llmjudge.outputs.session_results import SessionFacts, SessionResults
from pytest_llmjudge.reports.terminal import failure_report, terminal_summary, verdict_line
from pytest_llmjudge.schema.results import ItemResult, ScoreSummary, json_schema


def settings(**changes: Any) -> Settings:
    base = resolve_settings({}, {}, {}, base_dir=Path("."), ini_dir=Path("."))
    return replace(base, retry_wait=0.0, **changes)


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
    assert (low, high) == pytest.approx((4 - 3.182 / 2, 4 + 3.182 / 2))
    assert confidence_interval(4.0, 0.0, 1) == (-math.inf, math.inf)
    assert decide(3.4, 0.0, 1, 3.5, "mean") == "fail"
    assert decide(3.5, 2.0, 3, 3.5, "mean") == "pass"
    assert decide(4.0, 0.0, 3, 3.5, "confident") == "pass"
    assert decide(3.67, 0.58, 3, 3.5, "confident") == "unstable"
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
    with pytest.raises(ValueError, match="runs must be an integer >= 1, got True"):
        marker_overrides((), {"runs": True}, dims)


# -- gates and baseline ---------------------------------------------------------------------


def test_gates_fail_closed_and_measure_pass_rate_and_means() -> None:
    items = [
        item("e.json::a", relevance=dim(5)),
        item("e.json::b", "failed", relevance=dim(2)),
        item("e.json::c", "xfailed", relevance=dim(1)),
    ]
    gates = {g.name: g for g in evaluate_gates(items, 0.6, {"relevance": 3.6})}
    assert gates["judged"].passed and gates["judged"].actual == 3
    assert not gates["pass_rate"].passed and gates["pass_rate"].actual == 0.5
    assert "short by 0.10" in gates["pass_rate"].message
    assert suite_means(items) == {"relevance": 3.5}  # the xfail is left out
    assert not gates["mean_relevance"].passed
    nothing = evaluate_gates([item("e.json::s", "skipped")], None, None)
    assert [g.passed for g in nothing] == [False]


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
    now = [item("e.json::a", relevance=dim(4.0)), item("e.json::b", relevance=dim(3.5))]
    result = compare_with_baseline(now, baseline, "old.json")
    assert (result.compared, result.regressed, result.removed) == (2, 1, ["e.json::gone"])
    assert [c.nodeid for c in result.changes] == ["e.json::a"]  # b's drop is within noise
    lines = regression_messages("e.json::a", {"relevance": ScoreSummary(score=4.0)}, baseline)
    assert lines == ["relevance regressed 5.00 -> 4.00 (-1.00, noise level 0.50)"]
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
    assert verdict_line([judgment]) == "relevance 2.67 < 3.5 (runs 3, 3, 2)"
    text = failure_report([judgment], ["relevance regressed 4.00 -> 2.67"])
    first, _, rest = text.partition("\n\n")
    assert first.endswith("; relevance regressed 4.00 -> 2.67")
    assert "relevance  2.67  0.58  3, 3, 2  3.5  FAIL" in rest
    assert "relevance reasoning (run nearest the mean):\n  scored 3" in rest


def test_session_results_decide_exit_status_and_summary() -> None:
    results = SessionResults()
    record = {"nodeid": "e.json::a", "file": "e.json", "id": "a", "relevance": dim(2.0)}
    results.add("e.json::a", record, "passed", None, 0.1)
    results.add("e.json::a", record, "failed", None, 0.2)  # a rerun replaces the attempt
    invalid = {"invalid": {"file": "e.json", "index": 1, "id": "#1", "reason": "Missing 'ticket'"}}
    results.add("e.json::#1", invalid, "skipped", None, 0.0)
    facts = SessionFacts(
        exit_status=0,
        stopped_early=False,
        started=datetime(2026, 1, 1, tzinfo=timezone.utc),
        duration=1.0,
        output_shown="results/output.json",
    )
    end = results.finish(settings(min_pass_rate=0.9), {}, facts)
    assert end.exit_status == 1 and end.results.meta.exit_status == 1  # the gate failed
    assert end.results.summary.failed == 1 and end.results.summary.skipped == 1
    assert end.results.skipped[0].reason == "Missing 'ticket'"
    assert "2 eval items: 1 failed, 1 skipped; judge: heuristic (no LLM), runs=1" in end.summary
    assert end.summary == terminal_summary(end.results, "results/output.json")


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
    with pytest.raises(ValueError, match="expected 'model=input,output'"):
        parse_price_lines(["broken"])


# -- the engine, with a judge class written for this test -------------------------------------


class ScriptedJudge:
    """Answers from a list per dimension; ``fail`` first raises that many retryable errors."""

    uses_llm = True

    def __init__(self, scores: dict[str, list[int]], fail: int = 0) -> None:
        self.scores = scores
        self.fail = fail
        self.calls: list[str] = []
        self.lock = threading.Lock()

    async def judge_once(
        self,
        dimension: Dimension,
        ticket: str,
        response: str,
        *,
        usage: Usage | None = None,
        context: Context = NO_CONTEXT,
    ) -> RunResult:
        await asyncio.sleep(0)
        with self.lock:
            self.calls.append(dimension.name)
            if usage is not None:
                usage.requests += 1
                usage.prompt_tokens += 10
                usage.completion_tokens += 2
            if self.fail:
                self.fail -= 1
                raise RetryableJudgeError("busy", retry_after=0)
            score = self.scores[dimension.name][(len(self.calls) - 1) % 3]
        return RunResult(score, "ok", 10, 2)

    async def aclose(self) -> None:
        pass


class ChoicesScriptedJudge(ScriptedJudge):
    """The default path: a judgment's runs as the ``n`` choices of one request, with a cap on
    the choices a request may hold (as llama.cpp's slots set it)."""

    def __init__(self, scores: dict[str, list[int]], server_cap: int | None = None) -> None:
        super().__init__(scores)
        self.server_cap = server_cap
        self.max_choices: int | None = None  # learned from a refusal, as the real judge does
        self.choices_asked: list[int] = []

    async def judge_choices(
        self,
        dimension: Dimension,
        ticket: str,
        response: str,
        n: int,
        *,
        usage: Usage | None = None,
        context: Context = NO_CONTEXT,
        firm: bool = False,
    ) -> list[RunResult | RetryableJudgeError]:
        await asyncio.sleep(0)
        with self.lock:
            self.choices_asked.append(n)
            if usage is not None:
                usage.requests += 1
            if self.server_cap is not None and n > self.server_cap:
                self.max_choices = self.server_cap
                raise TooManyChoices(self.server_cap, f"at most {self.server_cap} choices")
            first = sum(self.choices_asked[:-1])
        scores = self.scores[dimension.name]
        return [RunResult(scores[(first + i) % len(scores)], "ok", 10, 2) for i in range(n)]


def test_engine_asks_the_runs_of_a_judgment_as_the_choices_of_one_request() -> None:
    judge = ChoicesScriptedJudge({"relevance": [5, 4, 3]})
    engine = JudgeEngine(settings(), lambda s: judge)
    try:
        judgment = engine.judge("relevance", "ticket", "response", 3, 3.5)
    finally:
        engine.close()
    assert judge.choices_asked == [3] and judge.calls == []  # one request, no single runs
    assert judgment.runs == (5, 4, 3) and judgment.score == 4.0
    assert engine.totals().requests == 1


def test_engine_splits_the_choices_to_what_the_server_takes() -> None:
    judge = ChoicesScriptedJudge({"relevance": [4, 4, 4, 4, 4]}, server_cap=2)
    engine = JudgeEngine(settings(), lambda s: judge)
    try:
        judgment = engine.judge("relevance", "ticket", "response", 5, 3.5)
    finally:
        engine.close()
    assert judge.choices_asked == [5, 2, 2, 1]  # refused once, then parts of at most 2
    assert judgment.runs == (4, 4, 4, 4, 4) and judgment.failed_runs == ()


def test_engine_aggregates_retries_and_counts_each_request() -> None:
    judge = ScriptedJudge({"relevance": [4, 4, 4], "tone": [2, 2, 2]}, fail=2)
    engine = JudgeEngine(settings(max_retries=3), lambda s: judge)
    try:
        relevance = engine.judge("relevance", "ticket", "response", 3, 3.5)
        again = engine.judge("relevance", "ticket", "response", 3, 3.5)
    finally:
        engine.close()
    assert relevance.runs == (4, 4, 4) and relevance.passed
    assert relevance.calls == 5 == len(judge.calls)  # 3 runs + 2 retried attempts
    assert (again.calls, again.cached_runs) == (0, 3)  # judged once per session
    totals = engine.totals()
    assert (totals.requests, totals.prompt_tokens) == (5, 50)  # failed attempts were billed too


def test_engine_charges_the_first_claimer_and_a_new_generation_judges_afresh() -> None:
    judge = ScriptedJudge({"relevance": [4, 4, 4]})
    engine = JudgeEngine(settings(), lambda s: judge)
    first: list[Usage] = []
    second: list[Usage] = []
    rerun: list[Usage] = []
    try:
        engine.judge("relevance", "t", "r", 2, 3.5, paid=first)
        engine.judge("relevance", "t", "r", 2, 3.5, paid=second)  # identical: reused
        engine.judge("relevance", "t", "r", 2, 3.5, generation=1, paid=rerun)
    finally:
        engine.close()
    assert [u.requests for u in first] == [1, 1] and second == []
    assert [u.requests for u in rerun] == [1, 1]
    assert len(judge.calls) == 4 == engine.totals().requests


def test_engine_budget_stops_new_calls() -> None:
    judge = ScriptedJudge({"relevance": [5, 5, 5]})
    engine = JudgeEngine(settings(max_calls=2), lambda s: judge)
    try:
        judgment = engine.judge("relevance", "t", "r", 3, 3.5)
        with pytest.raises(JudgeError, match="budget exhausted"):
            engine.judge("relevance", "t2", "r", 1, 3.5)
    finally:
        engine.close()
    assert len(judge.calls) == 2 and len(judgment.runs) == 2
    assert "--judge-max-calls=2" in judgment.failed_runs[0]

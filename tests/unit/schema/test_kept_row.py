"""A spilled row's kept record carries every value the session's end reads of a row: the
summary, gates, label agreement, baseline and terminal lines computed from kept records are
those computed from the whole rows."""

from __future__ import annotations

from typing import Any

from pytest_llmjudge.analysis.agreement import label_agreement
from pytest_llmjudge.analysis.baseline import compare_with_baseline
from pytest_llmjudge.analysis.gates import evaluate_gates, summarize
from pytest_llmjudge.analysis.judgment import RunOutcome, build_judgment
from pytest_llmjudge.judges.base import RunResult
from pytest_llmjudge.outputs.kept_row import kept
from pytest_llmjudge.reports.terminal import means_lines
from pytest_llmjudge.schema.items import CheckResult, ItemResult, JudgedItem, Outcome
from pytest_llmjudge.schema.sections import ScoreSummary

OUTCOMES: tuple[Outcome, ...] = (
    "passed", "failed", "error", "skipped", "xfailed", "xpassed", "flaky_failed",
)  # fmt: skip


def _row(i: int) -> ItemResult:
    scores = (4, 2, 5)[: 1 + i % 3]
    runs = [RunOutcome(RunResult(s, f"why {s}"), None, 1) for s in scores]
    if i % 4 == 0:
        runs.append(RunOutcome(None, "timed out", 1))
    judged = JudgedItem(nodeid=f"e{i % 2}.json::c{i}", file=f"e{i % 2}.json", id=f"c{i}", line=i)
    judged.relevance = build_judgment("relevance", runs, 3.5).result
    if i % 3:
        judged.tone = build_judgment("tone", runs[:1], 4.0).result
    judged.ticket, judged.response = f"ticket {i}", f"answer {i}"
    judged.expected = {"relevance": (i % 5) + 1}
    judged.flaky, judged.cluster = i % 5 == 0, f"k{i % 3}"
    judged.not_applicable = ["tone"] if i % 7 == 0 else []
    judged.injection_suspected, judged.label_disagreement = i % 6 == 0, i % 4 == 1
    judged.usage.calls = len(runs)
    judged.checks = [CheckResult(name="has", kind="contains", expected="x", passed=i % 2 == 0)]
    data: dict[str, Any] = {**judged.model_dump(mode="json"), "attempt": 1 + i % 2}
    return ItemResult.arrived(data, OUTCOMES[i % len(OUTCOMES)], None, 0.1)


def test_the_session_end_reads_the_same_of_kept_records_as_of_whole_rows() -> None:
    rows = [_row(i) for i in range(24)]
    records = [kept(row) for row in rows]
    baseline = {row.nodeid: {"relevance": ScoreSummary(score=3.0, runs=[3])} for row in rows}
    means = {"relevance": 3.0, "tone": 3.5}

    def read(items: Any) -> tuple[object, ...]:
        return (
            summarize(items, 1, 2, 1),
            evaluate_gates(items, 0.5, means, "point"),
            evaluate_gates(items, 0.5, means, "lower"),
            label_agreement(items, 1.0),
            compare_with_baseline(items, baseline, "base.json", [r.nodeid for r in rows[:20]]),
            means_lines(items),
            [(i.unstable, i.partial_runs, i.failed_checks, i.usage.calls) for i in items],
        )

    assert read(records) == read(rows)
    assert read(rows)[3]  # labels compared (enough labelled items)

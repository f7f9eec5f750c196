"""Text a person reads: failure reports and the end-of-session summary."""

from __future__ import annotations

import math
import textwrap
from collections.abc import Mapping, Sequence

from ..analysis.agreement import agreement_line
from ..analysis.checks import checks_sentence
from ..analysis.comparison import comparison_lines
from ..analysis.gates import suite_means
from ..analysis.judgment import Judgment
from ..basics.wording import counted
from ..schema.results import (
    BaselineResult,
    CheckResult,
    DimensionResult,
    ItemResult,
    Meta,
    ResultsFile,
    Summary,
)


def _runs(judgment: Judgment) -> str:
    return ", ".join(score_text(s) for s in judgment.runs)


def score_text(score: float) -> str:
    """A run's score as written: ``4``, or ``3.87`` when weighted by logprobs."""
    return str(score) if isinstance(score, int) else f"{score:.2f}"


def _ci(j: Judgment) -> str:
    if j.ci_low is None or j.ci_high is None or math.isinf(j.ci_low):
        return "no interval from one run"
    return f"95% CI {j.ci_low:.2f}-{j.ci_high:.2f}"


def _dimension_verdict(j: Judgment) -> str:
    if j.decision == "undecided":
        return (
            f"{j.dimension} {j.score:.2f} undecided: {_ci(j)} contains {j.threshold:g} "
            f"(runs {_runs(j)})"
        )
    if j.ci_low is not None and j.decision == "fail" and j.mode == "confident":
        return f"{j.dimension} {j.score:.2f} < {j.threshold:g} ({_ci(j)}; runs {_runs(j)})"
    return f"{j.dimension} {j.score:.2f} < {j.threshold:g} (runs {_runs(j)})"


def verdict_line(judgments: Sequence[Judgment], regressions: Sequence[str] = ()) -> str:
    """``relevance 2.67 < 3.5 (runs 3, 3, 2)`` for every dimension that did not pass."""
    lines = [_dimension_verdict(j) for j in judgments if not j.passed]
    return "; ".join([*lines, *regressions])


def dimension_sentence(name: str, dim: DimensionResult) -> str:
    """``relevance 3.67 < 4.5 (runs 3, 4, 4)``: why a dimension of a results row did not pass
    (the threshold it was held to: its own where the entry set one)."""
    runs = ", ".join(score_text(s) for s in dim.runs)
    if dim.decision == "undecided" and dim.ci_low is not None and dim.ci_high is not None:
        interval = f"95% CI {dim.ci_low:.2f}-{dim.ci_high:.2f}"
        return f"{name} {dim.score:.2f} undecided: {interval} contains {dim.threshold:g}"
    return f"{name} {dim.score:.2f} < {dim.threshold:g} (runs {runs})"


def item_sentence(item: ItemResult) -> str:
    """Why an item of the results did not pass, in one line; empty for one that did."""
    if item.outcome == "error":
        return item.error or item.reason or "error"
    if item.outcome not in ("failed", "flaky_failed", "xfailed"):
        return ""
    failing = [checks_sentence(item.checks)]
    failing += [dimension_sentence(n, d) for n, d in item.dimensions.items() if not d.passed]
    said = "; ".join(part for part in failing if part)
    return said or item.reason or "failed (every dimension met its threshold)"


def judgment_table(judgments: Sequence[Judgment]) -> str:
    """A compact table: one row per dimension."""
    confident = any(j.mode == "confident" for j in judgments)
    header: tuple[str, ...] = ("dimension", "mean", "std", "runs", "threshold", "verdict")
    if confident:
        header = (*header[:5], "95% CI", header[5])
    rows = [header]
    for j in judgments:
        verdict = {"pass": "ok", "fail": "FAIL", "undecided": "UNDECIDED"}[j.decision]
        if j.unstable and j.decision != "undecided":
            verdict += " (unstable)"
        if j.extra_runs:
            verdict += f" (+{j.extra_runs} adaptive runs)"
        row: tuple[str, ...] = (
            j.dimension,
            f"{j.score:.2f}",
            f"{j.std:.2f}",
            _runs(j),
            f"{j.threshold:g}",
            verdict,
        )
        if confident:
            interval = _ci(j).removeprefix("95% CI ")
            row = (*row[:5], interval, row[5])
        rows.append(row)
    widths = [max(len(row[c]) for row in rows) for c in range(len(header))]
    return "\n".join(
        "  ".join(cell.ljust(widths[c]) for c, cell in enumerate(row)).rstrip() for row in rows
    )


def _reasoning(judgments: Sequence[Judgment]) -> str:
    lines = []
    for j in judgments:
        wrapped = textwrap.fill(
            j.reasoning, width=96, initial_indent="  ", subsequent_indent="    "
        )
        lines.append(f"{j.dimension} reasoning (run nearest the mean):\n{wrapped}")
        for failure in sorted(set(j.failed_runs)):
            count = j.failed_runs.count(failure)
            lines.append(f"  note: {count} run(s) failed and were left out: {failure}")
    return "\n".join(lines)


def checks_table(checks: Sequence[CheckResult]) -> str:
    """One row per deterministic check: its name, result and what was found."""
    rows = [("check", "result", "detail")]
    for check in checks:
        result = "n/a" if check.passed is None else "ok" if check.passed else "FAIL"
        rows.append((check.name, "ERROR" if check.error else result, check.detail))
    widths = [max(len(row[c]) for row in rows) for c in range(3)]
    return "\n".join(
        "  ".join(cell.ljust(widths[c]) for c, cell in enumerate(row)).rstrip() for row in rows
    )


def _tables(judgments: Sequence[Judgment], checks: Sequence[CheckResult]) -> str:
    """The dimensions' table and the checks' table, one block (``--tb=short`` shows it)."""
    parts = ([judgment_table(judgments)] if judgments else []) + (
        [checks_table(checks)] if checks else []
    )
    return "\n".join(parts) or "nothing was judged or checked"


def failure_report(
    judgments: Sequence[Judgment],
    regressions: Sequence[str] = (),
    checks: Sequence[CheckResult] = (),
) -> str:
    """Verdict line, tables, reasoning: what an eval failure shows instead of a traceback."""
    verdict = "; ".join(
        filter(None, [checks_sentence(checks), verdict_line(judgments, regressions)])
    )
    reasoning = f"\n\n{_reasoning(judgments)}" if judgments else ""
    return f"{verdict}\n\n{_tables(judgments, checks)}{reasoning}"


def passing_report(judgments: Sequence[Judgment], checks: Sequence[CheckResult] = ()) -> str:
    """The tables and reasoning of a passing item (a report section for -rP and reports)."""
    reasoning = f"\n\n{_reasoning(judgments)}" if judgments else ""
    return f"{_tables(judgments, checks)}{reasoning}"


def scores_line(
    judgments: Sequence[Judgment],
    injection: bool = False,
    far_from_label: Mapping[str, float] | None = None,
    checks: Sequence[CheckResult] = (),
) -> str:
    """``relevance 4.33, tone 5.00 (2 of 3 runs), checks 2/3``: the scores on an item's -v
    line, with the human label of a dimension judged far from it (``relevance 2.00 (label
    5)``) and how many of its deterministic checks passed."""
    far = far_from_label or {}
    parts = ["injection suspected"] if injection else []
    for j in judgments:
        part = _score_with_runs(j)
        if j.dimension in far:
            part += f" (label {far[j.dimension]:g})"
        parts.append(part)
    decided = [check for check in checks if check.passed is not None]
    if decided:
        parts.append(f"checks {sum(1 for c in decided if c.passed)}/{len(decided)}")
    return ", ".join(parts)


def _score_with_runs(j: Judgment) -> str:
    part = f"{j.dimension} {j.score:.2f}"
    if j.failed_runs:
        part += f" ({len(j.runs)} of {len(j.runs) + len(j.failed_runs)} runs)"
    return part


def judge_error_report(errors: Sequence[str], judgments: Sequence[Judgment]) -> str:
    """A judge error (never a verdict): what failed, and what was judged anyway."""
    text = "judge error: " + "; ".join(errors)
    if judgments:
        text += f"\n\njudged before the error:\n{judgment_table(judgments)}"
    return text


def outcome_counts(s: Summary) -> str:
    """``27 passed, 6 xfailed``: the outcomes that happened, in pytest's order."""
    counts = [
        f"{getattr(s, name)} {label}"
        for name, label in (
            ("passed", "passed"),
            ("failed", "failed"),
            ("errors", "error" if s.errors == 1 else "errors"),
            ("skipped", "skipped"),
            ("xfailed", "xfailed"),
            ("xpassed", "xpassed"),
            ("flaky_failed", "flaky failed (not gating)"),
        )
        if getattr(s, name)
    ]
    return ", ".join(counts) or "none run"


INVALID_SHOWN = 5  # invalid entries named in the summary; the results file has them all


def invalid_lines(results: ResultsFile, strict: bool) -> list[str]:
    """``2 invalid entries (skipped; ...):`` and the first few, each with file, entry and why."""
    invalid = results.invalid
    if not invalid:
        return []
    became = "errors: --judge-strict" if strict else "skipped; --judge-strict makes them errors"
    lines = [f"{counted(len(invalid), 'invalid entry', 'invalid entries')} ({became}):"]
    for entry in invalid[:INVALID_SHOWN]:
        name = f" ({entry.id})" if entry.id and entry.id != f"#{entry.index}" else ""
        line = f", line {entry.line}" if entry.line else ""
        lines.append(f"  {entry.file} entry {entry.index}{name}{line}: {entry.reason}")
    if len(invalid) > INVALID_SHOWN:
        lines.append(f"  and {len(invalid) - INVALID_SHOWN} more (all in the results file)")
    return lines


def terminal_summary(results: ResultsFile, output: str | None, strict: bool = False) -> list[str]:
    """The lines shown under the ``llmjudge`` heading at the end of a session."""
    s, meta = results.summary, results.meta
    judge = meta.provider if not meta.model else f"{meta.provider} {meta.model}"
    if not meta.llm:
        judge += " (no LLM)"
    lines = [
        f"{counted(s.total, 'eval item')}: {outcome_counts(s)}; judge: {judge}, runs={meta.runs}"
    ]
    lines += invalid_lines(results, strict)
    means = suite_means(results.results)
    if means:
        lines.append("mean scores: " + ", ".join(f"{k} {v:.2f}" for k, v in means.items()))
    usage = f"judge calls: {meta.calls_text()}"
    if meta.tokens.total:
        usage += (
            f", {meta.tokens.total} tokens ({meta.tokens.prompt} prompt, "
            f"{meta.tokens.completion} completion)"
        )
    if meta.calls == 0 and meta.cached_runs:
        usage += ", $0: every run from the cache"
    elif meta.cost_usd is not None:
        usage += f", ${meta.cost_usd:.4f} ({meta.price_source} price)"
    elif meta.llm and meta.calls:
        usage += f", price unknown: add {meta.model or 'the model'} to llmjudge_prices"
    lines.append(usage)
    lines += batch_lines(meta)
    lines += [f"note: {notice}" for notice in meta.notices]
    if s.not_applicable:
        lines.append(
            f"not applicable: {s.not_applicable} items have no reference answer (not judged "
            "on correctness; neither pass nor fail on it)"
        )
    if results.unstable:
        lines.append(
            "unstable (runs straddle the threshold; add runs or mark them flaky): "
            + ", ".join(results.unstable)
        )
    if results.labels:
        lines.append("agreement with human labels:")
        lines += [f"  {agreement_line(name, a)}" for name, a in results.labels.items()]
    disagreeing = [i.nodeid for i in results.results if i.label_disagreement]
    if disagreeing:
        lines.append("judged far from their human label (not a verdict): " + ", ".join(disagreeing))
    suspected = [i.nodeid for i in results.results if i.injection_suspected]
    if suspected:
        lines.append(
            "injection suspected (text aimed at the judge; scores unchanged): "
            + ", ".join(suspected)
        )
    partial = [i.nodeid for i in results.results if i.partial_runs]
    if partial:
        lines.append(
            "judged on fewer runs than requested (runs failed after retries): " + ", ".join(partial)
        )
    flaky = [i.nodeid for i in results.results if i.outcome == "flaky_failed"]
    if flaky:
        lines.append(f"flaky evals below threshold (not gating): {', '.join(flaky)}")
    for gate in results.gates:
        if gate.name == "judged" and gate.passed:
            continue
        lines.append(f"gate {'passed' if gate.passed else 'FAILED'}: {gate.message}")
    if results.baseline:
        lines += _baseline_summary(results.baseline)
    if results.comparison:
        lines += comparison_lines(results.comparison)
    if not meta.complete:
        lines.append("session did not complete: the results cover only what ran")
    if output:
        lines.append(f"results: {output}")
    return lines


def _baseline_summary(baseline: BaselineResult) -> list[str]:
    if not baseline.comparable:
        return [
            f"baseline {baseline.source} not compared: another judge made it "
            f"({baseline.mismatch}); no regression gate"
        ]
    lines = [f"baseline {baseline.source}: {baseline.counts_text()}"]
    lines += [f"  {entry.statement}" for entry in baseline.suite.values()]
    lines += [
        f"  regressed: {c.nodeid} {c.dimension} {c.before:.2f} -> {c.after:.2f} "
        f"({c.delta:+.2f}, noise level {c.noise:.2f})"
        for c in baseline.changes
        if c.verdict == "regressed"
    ]
    return lines


def batch_lines(meta: Meta) -> list[str]:
    """``judged via batch batch_1 (completed, 100 requests): ...``, with ``--judge-batch``."""
    batch = meta.batch
    if batch is None:
        return []
    states = ", ".join(
        f"{batch_id} ({state.status}, {state.completed:,} of {state.requests:,} requests done)"
        for batch_id, state in batch.batches.items()
    )
    cost = "" if batch.cost_usd is None else f", ${batch.cost_usd:.4f} (batch price)"
    return [
        f"judged via batch {states or '(collected earlier)'}: {batch.calls:,} requests "
        f"answered there, {batch.runs:,} runs, {batch.tokens.total:,} tokens{cost}"
    ]

"""Text a person reads: failure reports and the end-of-session summary."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .engine import Judgment
    from .results import ResultsFile


def _runs(judgment: Judgment) -> str:
    return ", ".join(str(s) for s in judgment.runs)


def verdict_line(judgments: Sequence[Judgment]) -> str:
    """``relevance 2.67 < 3.5 (runs 3, 3, 2)`` for every dimension below its threshold."""
    failing = [j for j in judgments if not j.passed]
    return "; ".join(
        f"{j.dimension} {j.score:.2f} < {j.threshold:g} (runs {_runs(j)})" for j in failing
    )


def judgment_table(judgments: Sequence[Judgment]) -> str:
    """A compact table: one row per dimension."""
    header = ("dimension", "mean", "std", "runs", "min", "verdict")
    rows = [header]
    for j in judgments:
        verdict = "ok" if j.passed else "FAIL"
        if j.unstable:
            verdict += " (unstable)"
        rows.append(
            (j.dimension, f"{j.score:.2f}", f"{j.std:.2f}", _runs(j), f"{j.threshold:g}", verdict)
        )
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


def failure_report(judgments: Sequence[Judgment]) -> str:
    """Verdict line, table, reasoning: what an eval failure shows instead of a traceback."""
    return f"{verdict_line(judgments)}\n\n{judgment_table(judgments)}\n\n{_reasoning(judgments)}"


def judge_error_report(errors: Sequence[str], judgments: Sequence[Judgment]) -> str:
    """A judge error (never a verdict): what failed, and what was judged anyway."""
    text = "judge error: " + "; ".join(errors)
    if judgments:
        text += f"\n\njudged before the error:\n{judgment_table(judgments)}"
    return text


def terminal_summary(results: ResultsFile, output: str | None) -> list[str]:
    """The lines shown under the ``llmjudge`` heading at the end of a session."""
    s, meta = results.summary, results.meta
    counts = [
        f"{getattr(s, name)} {label}"
        for name, label in (
            ("passed", "passed"),
            ("failed", "failed"),
            ("errors", "error" if s.errors == 1 else "errors"),
            ("skipped", "skipped"),
            ("xfailed", "xfailed"),
            ("xpassed", "xpassed"),
        )
        if getattr(s, name)
    ]
    judge = meta.provider if not meta.model else f"{meta.provider} {meta.model}"
    if not meta.llm:
        judge += " (no LLM)"
    lines = [
        f"{s.total} eval items: {', '.join(counts) or 'none run'}; judge: {judge}, runs={meta.runs}"
    ]
    means = _means(results)
    if means:
        lines.append("mean scores: " + ", ".join(f"{k} {v:.2f}" for k, v in means.items()))
    usage = f"judge calls: {meta.calls} made, {meta.cached_calls} cached"
    if meta.tokens.total:
        usage += (
            f", {meta.tokens.total} tokens ({meta.tokens.prompt} prompt, "
            f"{meta.tokens.completion} completion)"
        )
    if meta.cost_usd is not None:
        usage += f", ${meta.cost_usd:.4f} ({meta.price_source} price)"
    lines.append(usage)
    unstable = [i.nodeid for i in results.results if _unstable(i.model_dump())]
    if unstable:
        lines.append(
            f"unstable (runs straddle the threshold; add runs or mark them): {', '.join(unstable)}"
        )
    if not meta.complete:
        lines.append("session did not complete: the results cover only what ran")
    if output:
        lines.append(f"results: {output}")
    return lines


def _unstable(item: Mapping[str, object]) -> bool:
    return any(isinstance(v, dict) and v.get("unstable") for v in item.values())


def _means(results: ResultsFile) -> dict[str, float]:
    scores: dict[str, list[float]] = {}
    for item in results.results:
        for name, value in item.model_dump().items():
            if isinstance(value, dict) and "score" in value and "runs" in value:
                scores.setdefault(name, []).append(float(value["score"]))
    return {name: sum(v) / len(v) for name, v in scores.items()}

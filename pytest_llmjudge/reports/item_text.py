"""Text a person reads about one item: its scores line, failure report and verdict."""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..analysis.judgment import Judgment
from ..checks.report import checks_sentence, checks_table

if TYPE_CHECKING:  # the results models load at the session's end, not before judging
    from ..schema.results import CheckResult, DimensionResult, ItemResult, JudgedItem


def _runs(judgment: Judgment) -> str:
    return runs_text(judgment.runs, len(judgment.failed_runs))


def runs_text(runs: Sequence[float], failed: int) -> str:
    """The runs judged, read as a count only where it is one: ``runs 3, 3, 2``, ``1 run: 3``,
    ``1 of 3 runs: 3`` (two failed)."""
    scores = ", ".join(score_text(s) for s in runs)
    if failed:
        return f"{len(runs)} of {len(runs) + failed} runs: {scores}"
    return f"runs {scores}" if len(runs) > 1 else f"1 run: {scores}"


def score_text(score: float) -> str:
    """A run's score as written: ``4``, or ``3.87`` when weighted by logprobs."""
    return str(score) if isinstance(score, int) else f"{score:.2f}"


def _interval(j: Judgment) -> str | None:
    """``3.10-4.20``; None when one run gives no interval."""
    if j.ci_low is None or j.ci_high is None or math.isinf(j.ci_low):
        return None
    return f"{j.ci_low:.2f}-{j.ci_high:.2f}"


def _ci(j: Judgment) -> str:
    interval = _interval(j)
    return "no interval from one run" if interval is None else f"95% CI {interval}"


def runs_passed_text(passed: int, runs: int, needed: int) -> str:
    """``1/3 runs passed, 2 needed``: a k-of-N verdict."""
    return f"{passed}/{runs} runs passed" + f", {needed} needed" * (passed < needed)


def _dimension_verdict(j: Judgment) -> str:
    if j.mode == "k_of_n" and j.k is not None:
        said = runs_passed_text(j.runs_passed, len(j.runs), j.k)
        return f"{j.dimension} {j.score:.2f}: {said} at {j.threshold:g} ({_runs(j)})"
    if j.decision == "undecided":
        return (
            f"{j.dimension} {j.score:.2f} undecided: {_ci(j)} contains {j.threshold:g} ({_runs(j)})"
        )
    if j.ci_low is not None and j.decision == "fail" and j.mode == "confident":
        return f"{j.dimension} {j.score:.2f} < {j.threshold:g} ({_ci(j)}; {_runs(j)})"
    return f"{j.dimension} {j.score:.2f} < {j.threshold:g} ({_runs(j)})"


def verdict_line(judgments: Sequence[Judgment]) -> str:
    """``relevance 2.67 < 3.5 (runs 3, 3, 2)`` for every dimension that did not pass."""
    lines = [_dimension_verdict(j) for j in judgments if not j.passed]
    return "; ".join(lines)


def dimension_sentence(name: str, dim: DimensionResult) -> str:
    """``relevance 3.67 < 4.5 (runs 3, 4, 4)``: why a dimension of a results row did not pass
    (the threshold it was held to: its own where the entry set one)."""
    runs = runs_text(dim.runs, len(dim.failed_runs))
    if dim.runs_needed is not None and dim.runs_passed is not None:
        said = runs_passed_text(dim.runs_passed, len(dim.runs), dim.runs_needed)
        return f"{name} {dim.score:.2f}: {said} at {dim.threshold:g} ({runs})"
    if dim.decision == "undecided" and dim.ci_low is not None and dim.ci_high is not None:
        interval = f"95% CI {dim.ci_low:.2f}-{dim.ci_high:.2f}"
        return f"{name} {dim.score:.2f} undecided: {interval} contains {dim.threshold:g}"
    return f"{name} {dim.score:.2f} < {dim.threshold:g} ({runs})"


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
        if j.mode == "k_of_n" and j.k is not None:
            verdict += f" ({runs_passed_text(j.runs_passed, len(j.runs), j.k)})"
        if j.extra_runs:
            verdict += f" (+{j.extra_runs} adaptive runs)"
        row: tuple[str, ...] = (
            j.dimension,
            f"{j.score:.2f}",
            f"{j.std:.2f}",
            ", ".join(score_text(r) for r in j.runs)
            + (f" ({len(j.runs)} of {len(j.runs) + len(j.failed_runs)})" * bool(j.failed_runs)),
            f"{j.threshold:g}",
            verdict,
        )
        if confident:
            row = (*row[:5], _interval(j) or "no interval from one run", row[5])
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


def tables(judgments: Sequence[Judgment], checks: Sequence[CheckResult]) -> str:
    """The dimensions' table and the checks' table, one block (``--tb=short`` shows it)."""
    parts = ([judgment_table(judgments)] if judgments else []) + (
        [checks_table(checks)] if checks else []
    )
    return "\n".join(parts) or "nothing was judged or checked"


def failure_verdict(
    judgments: Sequence[Judgment],
    checks: Sequence[CheckResult] = (),
) -> str:
    """The failure's first line: the checks that failed, the dimensions below threshold."""
    return "; ".join(filter(None, [checks_sentence(checks), verdict_line(judgments)]))


def failure_report(
    judgments: Sequence[Judgment],
    checks: Sequence[CheckResult] = (),
) -> str:
    """Verdict line, tables, reasoning: what an eval failure shows instead of a traceback."""
    return "\n".join(failure_blocks(judgments, checks))


def failure_blocks(
    judgments: Sequence[Judgment],
    checks: Sequence[CheckResult] = (),
) -> list[str]:
    """That report as blocks of text, a blank one between (each block may hold lines)."""
    verdict = failure_verdict(judgments, checks)
    reasoning = ["", _reasoning(judgments)] if judgments else []
    return [verdict, "", tables(judgments, checks), *reasoning]


def passing_report(judgments: Sequence[Judgment], checks: Sequence[CheckResult] = ()) -> str:
    """The tables and reasoning of a passing item (a report section for -rP and reports)."""
    reasoning = f"\n\n{_reasoning(judgments)}" if judgments else ""
    return f"{tables(judgments, checks)}{reasoning}"


def scores_line(row: JudgedItem, label_margin: float) -> str:
    """``relevance 4.33, tone 5.00 (2 of 3 runs), checks 2/3``: the scores on an item's -v
    line, read from its row, with the human label of a dimension judged further than the
    margin from it (``relevance 2.00 (label 5)``) and how many of its deterministic checks
    passed."""
    parts = ["injection suspected"] if row.injection_suspected else []
    for name, dim in row.dimensions.items():
        part = f"{name} {dim.score:.2f}"
        if dim.failed_runs:
            part += f" ({len(dim.runs)} of {len(dim.runs) + len(dim.failed_runs)} runs)"
        if dim.runs_needed is not None and dim.runs_passed is not None:
            part += f" ({runs_passed_text(dim.runs_passed, len(dim.runs), dim.runs_needed)})"
        label = row.expected.get(name)
        if label is not None and abs(dim.score - label) > label_margin:
            part += f" (label {label:g})"
        parts.append(part)
    decided = [check for check in row.checks if check.passed is not None]
    if decided:
        parts.append(f"checks {sum(1 for c in decided if c.passed)}/{len(decided)}")
    return ", ".join(parts)


def judge_error_report(errors: Sequence[str], judgments: Sequence[Judgment]) -> str:
    """A judge error (never a verdict): what failed, and what was judged anyway."""
    text = "judge error: " + "; ".join(errors)
    if judgments:
        text += f"\n\njudged before the error:\n{judgment_table(judgments)}"
    return text


def item_description(
    ticket: str,
    answer: str | None,
    judgments: Sequence[Judgment],
    checks: Sequence[CheckResult] = (),
    errors: Sequence[str] = (),
) -> str:
    """What a test report outside the terminal (allure-pytest) shows as an eval item's
    description: its ticket, the answer judged, and its scores, checks or errors."""
    scores = [
        f"{j.dimension} {j.score:.2f} ({'passed' if j.passed else 'FAILED'}; threshold "
        f"{j.threshold:g}; {_runs(j)})"
        for j in judgments
    ]
    said = [checks_sentence(checks) or f"checks: {len(checks)} passed"] if checks else []
    said += scores or ["not judged"]
    said += [f"error: {error}" for error in errors]
    shown = "no answer" if answer is None else answer
    return "\n\n".join([f"Ticket: {ticket}", f"Answer: {shown}", "Scores:\n" + "\n".join(said)])

"""Text a person reads about one item, made from its results row: the failing-dimension
sentence, the failure report, the ``-v`` scores, the JUnit properties, the description other
plugins show."""

from __future__ import annotations

import html
import re
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from ..checks.apply import distinct_names
from .checks_text import checks_sentence, checks_table

if TYPE_CHECKING:
    from ..schema.items import DimensionResult, ItemResult, JudgedItem, Row, RowDimension


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


def runs_passed_text(passed: int, runs: int, needed: int) -> str:
    """``1/3 runs passed, 2 needed``: a k-of-N verdict."""
    return f"{passed}/{runs} runs passed" + f", {needed} needed" * (passed < needed)


def _bounds(dim: RowDimension) -> str | None:
    """``3.10-4.20``; None when one run gives no interval."""
    if dim.ci_low is None or dim.ci_high is None:
        return None
    return f"{dim.ci_low:.2f}-{dim.ci_high:.2f}"


def _interval(dim: RowDimension) -> str:
    """``95% CI 3.10-4.20``, or why there is none."""
    bounds = _bounds(dim)
    return "no interval from one run" if bounds is None else f"95% CI {bounds}"


def dimension_sentence(name: str, dim: RowDimension) -> str:
    """Why a dimension did not pass, with the threshold it was held to and its runs:
    ``relevance 2.67 < 3.5 (runs 3, 3, 2)``. The one sentence every output uses."""
    runs = runs_text(dim.runs, len(dim.failed_runs))
    if dim.runs_needed is not None and dim.runs_passed is not None:
        said = runs_passed_text(dim.runs_passed, len(dim.runs), dim.runs_needed)
        return f"{name} {dim.score:.2f}: {said} at {dim.threshold:g} ({runs})"
    if dim.decision == "undecided":
        held = f"{_interval(dim)} contains {dim.threshold:g}"
        return f"{name} {dim.score:.2f} undecided: {held} ({runs})"
    return f"{name} {dim.score:.2f} < {dim.threshold:g} ({runs})"


def failing_dimensions(row: JudgedItem | Row) -> str:
    """The sentence of every dimension of the row that did not pass, joined."""
    return "; ".join(dimension_sentence(n, d) for n, d in row.dimensions.items() if not d.passed)


def failure_verdict(row: JudgedItem) -> str:
    """A failure's first line: the checks that failed, the dimensions that did not pass."""
    return "; ".join(filter(None, [checks_sentence(row.checks), failing_dimensions(row)]))


def item_sentence(item: ItemResult) -> str:
    """Why an item of the results did not pass, in one line; empty for one that did."""
    if item.outcome == "error":
        return item.error or item.reason or "error"
    if item.outcome not in ("failed", "flaky_failed", "xfailed"):
        return ""
    return failure_verdict(item) or item.reason or "failed (every dimension met its threshold)"


def dimension_table(dims: Mapping[str, DimensionResult], confident: bool = False) -> str:
    """A compact table: one line per dimension (with its interval under a confident verdict)."""
    header: tuple[str, ...] = ("dimension", "mean", "std", "runs", "threshold", "verdict")
    if confident:
        header = (*header[:5], "95% CI", header[5])
    rows = [header]
    for name, d in dims.items():
        verdict = {"pass": "ok", "fail": "FAIL", "undecided": "UNDECIDED"}[d.decision]
        if d.unstable and d.decision != "undecided":
            verdict += " (unstable)"
        if d.runs_needed is not None and d.runs_passed is not None:
            verdict += f" ({runs_passed_text(d.runs_passed, len(d.runs), d.runs_needed)})"
        if d.extra_runs:
            verdict += f" (+{d.extra_runs} adaptive runs)"
        failed = len(d.failed_runs)
        row: tuple[str, ...] = (
            name,
            f"{d.score:.2f}",
            f"{d.std:.2f}",
            ", ".join(score_text(r) for r in d.runs)
            + (f" ({len(d.runs)} of {len(d.runs) + failed})" * bool(failed)),
            f"{d.threshold:g}",
            verdict,
        )
        if confident:
            row = (*row[:5], _bounds(d) or "no interval from one run", row[5])
        rows.append(row)
    widths = [max(len(row[c]) for row in rows) for c in range(len(header))]
    return "\n".join(
        "  ".join(cell.ljust(widths[c]) for c, cell in enumerate(row)).rstrip() for row in rows
    )


def _reasoning(dims: Mapping[str, DimensionResult]) -> str:
    lines = []
    for name, d in dims.items():
        wrapped = textwrap.fill(
            d.reasoning, width=96, initial_indent="  ", subsequent_indent="    "
        )
        lines.append(f"{name} reasoning (run nearest the mean):\n{wrapped}")
        for failure in sorted(set(d.failed_runs)):
            count = d.failed_runs.count(failure)
            lines.append(f"  note: {count} run(s) failed and were left out: {failure}")
    return "\n".join(lines)


def tables(row: JudgedItem, confident: bool = False) -> str:
    """The dimensions' table and the checks' table, one block (``--tb=short`` shows it)."""
    dims = row.dimensions
    parts = ([dimension_table(dims, confident)] if dims else []) + (
        [checks_table(row.checks)] if row.checks else []
    )
    return "\n".join(parts) or "nothing was judged or checked"


def failure_report(row: JudgedItem, confident: bool = False) -> str:
    """Verdict line, tables, reasoning: what an eval failure shows instead of a traceback."""
    return "\n".join(failure_blocks(row, confident))


def failure_blocks(row: JudgedItem, confident: bool = False) -> list[str]:
    """That report as blocks of text, a blank one between (each block may hold lines)."""
    dims = row.dimensions
    reasoning = ["", _reasoning(dims)] if dims else []
    return [failure_verdict(row), "", tables(row, confident), *reasoning]


def failure_lines(
    row: JudgedItem, confident: bool, style: str, where: str, line: int, name: str
) -> list[str]:
    """The failure report in pytest's ``--tb`` style, located at the entry in its file."""
    if style == "line":
        return []  # pytest prints the crash line: file, line and verdict
    if style == "short":
        return [f"{where}:{line}: {name}", failure_verdict(row), "", tables(row, confident)]
    if style == "native":
        return [
            "Traceback (most recent call last):",
            f'  File "{where}", line {line}, in {name}',
            f"EvalFailed: {failure_report(row, confident)}",
        ]
    return failure_blocks(row, confident)


def passing_report(row: JudgedItem, confident: bool = False) -> str:
    """The tables and reasoning of a passing item (a report section for -rP and reports)."""
    dims = row.dimensions
    reasoning = f"\n\n{_reasoning(dims)}" if dims else ""
    return f"{tables(row, confident)}{reasoning}"


def judge_error_report(
    errors: Sequence[str], judged: Mapping[str, DimensionResult], confident: bool = False
) -> str:
    """A judge error (never a verdict): what failed, and what was judged anyway."""
    text = "judge error: " + "; ".join(errors)
    if judged:
        text += f"\n\njudged before the error:\n{dimension_table(judged, confident)}"
    return text


def flaky_reason(verdict: str) -> str:
    """The xfail reason of a flaky eval below its threshold."""
    return f"flaky eval below threshold (not gating): {verdict}"


def undecided_reason(row: JudgedItem) -> str:
    """The xfail reason of an undecided verdict under ``undecided=xfail``."""
    said = failing_dimensions(row)
    return f"undecided verdict (llmjudge_verdict confident undecided=xfail): {said}"


def scores_line(row: JudgedItem, label_margin: float) -> str:
    """``relevance 4.33, tone 5.00 (2 of 3 runs), checks 2/3``: the scores on an item's -v
    line, with the human label of a dimension judged further than the margin from it
    (``relevance 2.00 (label 5)``) and how many of its deterministic checks passed."""
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


def item_description(row: JudgedItem, errors: Iterable[str] = ()) -> str:
    """What a test report outside the terminal (allure-pytest) shows as an eval item's
    description: its ticket, the answer judged, and its scores, checks or errors."""
    scores = [
        f"{name} {d.score:.2f} ({'passed' if d.passed else 'FAILED'}; threshold "
        f"{d.threshold:g}; {runs_text(d.runs, len(d.failed_runs))})"
        for name, d in row.dimensions.items()
    ]
    checks = row.checks
    said = [checks_sentence(checks) or f"checks: {len(checks)} passed"] if checks else []
    said += scores or ["not judged"]
    said += [f"error: {error}" for error in errors]
    shown = "no answer" if row.response is None else row.response
    return "\n\n".join([f"Ticket: {row.ticket}", f"Answer: {shown}", "Scores:\n" + "\n".join(said)])


def score_cells(row: JudgedItem, names: Iterable[str]) -> dict[str, str]:
    """Each named dimension's score as a table cell shows it (pytest-html's columns)."""
    dims = row.dimensions
    return {name: f"{dims[name].score:.2f}" for name in names if name in dims}


def html_columns(dimensions: Iterable[str]) -> dict[str, str]:
    """pytest-html's column of each dimension: its name, and the type its cells are sorted by."""
    return {name: re.sub(r"\W", "_", f"llmjudge_{name}") for name in dimensions}


def html_header(columns: Mapping[str, str]) -> list[str]:
    """The header cells of those columns, sortable as pytest-html's own are."""
    return [
        f'<th class="sortable" data-column-type="{column}">{html.escape(name)}</th>'
        for name, column in columns.items()
    ]


def html_cells(scores: Mapping[str, str], columns: Mapping[str, str]) -> list[str]:
    """A test's cells in those columns (empty where it has no score)."""
    return [
        f'<td class="col-{column}">{scores.get(name, "")}</td>' for name, column in columns.items()
    ]


def junit_properties(row: JudgedItem) -> list[tuple[str, object]]:
    """Score, std, runs and threshold per dimension, and each check's result, as JUnit XML
    properties."""
    properties: list[tuple[str, object]] = []
    for name, dim in row.dimensions.items():
        properties += [
            (f"llmjudge.{name}.score", dim.score),
            (f"llmjudge.{name}.std", dim.std),
            (f"llmjudge.{name}.runs", ",".join(str(r) for r in dim.runs)),
            (f"llmjudge.{name}.threshold", dim.threshold),
            (f"llmjudge.{name}.decision", dim.decision),
        ]
    for check, shown in zip(row.checks, distinct_names(row.checks), strict=True):
        state = "n/a" if check.passed is None else "passed" if check.passed else "failed"
        name = _xml_safe(shown)  # two checks of one name: a property each
        properties += [
            (f"llmjudge.check.{name}", "error" if check.error else state),
            (f"llmjudge.check.{name}.detail", check.detail),
        ]
    if row.error:
        properties.append(("llmjudge.error", row.error))
    return properties


# Characters XML 1.0 cannot hold (pytest escapes a property's value, not its name).
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_safe(text: str) -> str:
    """A check's name (it may quote the entry's text) as a JUnit property name can hold it."""
    return _NOT_XML.sub(lambda m: f"#x{ord(m.group()):02X}", text)

"""Reports for CI: a markdown report (also the GitHub step summary) and GitHub annotations."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Collection, Sequence

from ..analysis.agreement import interval_lines
from ..analysis.comparison import comparison_lines
from ..analysis.gates import dimension_names, suite_means
from ..basics.wording import counted
from ..judges.heuristic import LABEL
from ..schema.results import BaselineResult, ItemResult, ResultsFile, TargetComparison
from .checks_text import checks_sentence, checks_verdict
from .item_text import failing_dimensions, runs_text
from .terminal import capped, named, named_of_baseline, not_judged_offline_line

ORDER = {
    "failed": 0,
    "error": 1,
    "flaky_failed": 2,
    "xpassed": 3,
    "passed": 4,
    "xfailed": 5,
    "skipped": 6,
}


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _code(text: object, cell: bool = True) -> str:
    """``text`` as a code span that stays whole: fenced by more backticks than the longest
    run it holds (an id may hold backticks); in a table ``cell``, its pipes escaped (GitHub
    splits cells on them even inside code)."""
    text = _cell(text) if cell else str(text).replace("\n", " ")
    fence = "`" * (max(map(len, re.findall("`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def summary_markdown(results: ResultsFile) -> str:
    """Counts, means, gates, baseline and cost: the part that also goes to the step summary."""
    s, meta = results.summary, results.meta
    judge = f"{meta.provider} {meta.model or ''}".strip()
    if not meta.llm:
        judge = f"{LABEL} (no LLM)"
    lines = [
        "## LLM judge evals",
        "",
        f"Judge: {judge}; runs: {meta.runs}; verdict: {meta.verdict}"
        + ("" if meta.complete else "; **session did not complete**"),
        "",
        *([f"Note: {meta.note}.", ""] if meta.note else []),
        "| passed | failed | errors | invalid | flaky failed | unstable | skipped | xfailed "
        "| pass rate |",
        "|---|---|---|---|---|---|---|---|---|",
        f"| {s.passed} | {s.failed} | {s.errors} | {s.invalid} | {s.flaky_failed} | {s.unstable} "
        f"| {s.skipped} | {s.xfailed} | "
        f"{'-' if s.pass_rate is None else f'{s.pass_rate:.0%}'} |",
        "",
    ]
    # (the baseline's removed and new items: in its section)
    lines += [line for head, names in named(results, False) for line in _named_list(head, names)]
    means = suite_means(results.rows())
    if means:
        lines += ["Mean scores: " + ", ".join(f"{k} **{v:.2f}**" for k, v in means.items()), ""]
    if results.gates:
        lines += ["| gate | result |", "|---|---|"]
        lines += [
            f"| {g.name} | {'✅' if g.passed else '❌'} {_cell(g.message)} |" for g in results.gates
        ]
        lines.append("")
    if results.labels:
        lines += _agreement_lines(results)
    if results.baseline:
        lines += _baseline_lines(results.baseline)
    if results.comparison:
        lines += _comparison_lines(results.comparison)
    lines += [_usage(results), ""]
    return "\n".join(lines + _attention_lines(results))


def _attention_lines(results: ResultsFile) -> list[str]:
    """Dimensions the offline judge left unjudged, and unstable items."""
    lines = []
    unjudged = not_judged_offline_line(results)
    if unjudged:
        lines += [unjudged[0].upper() + unjudged[1:] + ".", ""]
    if results.unstable:
        lines += [
            "Unstable (runs straddle the threshold; add runs or mark `flaky`): "
            + ", ".join(_code(n, cell=False) for n in results.unstable),
            "",
        ]
    return lines


def _usage(results: ResultsFile) -> str:
    """``Judge calls: 12 made, 0 runs from the cache, 3400 tokens, $0.0021``."""
    meta = results.meta
    usage = f"Judge calls: {meta.calls_text()}"
    if meta.tokens.total:
        usage += f", {meta.tokens.total} tokens"
    if meta.tokens.unknown_calls:
        usage += f", tokens unknown for {counted(meta.tokens.unknown_calls, 'call')}"
    if meta.cost_usd is not None:
        usage += f", ${meta.cost_usd:.4f}"
    return usage


def _named_list(head: str, names: list[str]) -> list[str]:
    """``**Errors**:`` and a bullet per name (the first ten, and how many more)."""
    first, more = capped(names)
    bullets = [f"- {_code(name, cell=False)}" for name in first] + ([f"- {more}"] if more else [])
    return [f"**{head[0].upper()}{head[1:]}**:", "", *bullets, ""]


def _agreement_lines(results: ResultsFile) -> list[str]:
    def shown(value: float | None) -> str:
        return "-" if value is None else f"{value:.2f}"

    lines = [
        "### Agreement with human labels",
        "",
        "| dimension | n | spearman | kappa | exact | within one | bias |",
        "|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {name} | {a.n} | {shown(a.spearman)} | {shown(a.kappa)} | {a.exact:.2f} | "
        f"{a.within_one:.2f} | {a.bias:+.2f} |"
        for name, a in results.labels.items()
    ]
    said = [f"- {line}" for name, a in results.labels.items() for line in interval_lines(name, a)]
    lines += ["", *said] if said else []
    differences = [(name, d) for name, a in results.labels.items() for d in a.disagreements]
    if differences:
        differences.sort(key=lambda pair: -abs(pair[1].difference))
        lines += ["", "| item | dimension | judge | label | difference |", "|---|---|---|---|---|"]
        lines += [
            f"| {_code(d.nodeid)} | {name} | {d.score:.2f} | {d.label:g} | {d.difference:+.2f} |"
            for name, d in differences[:10]
        ]
    return [*lines, ""]


def _baseline_lines(baseline: BaselineResult) -> list[str]:
    source = _code(baseline.source, cell=False)
    if not baseline.comparable:
        return [f"Baseline {source} not compared: {baseline.mismatch}.", ""]
    lines = [
        f"Baseline {source}: {baseline.counts_text()}.",
        "",
    ]
    lines += [f"- {entry.statement}" for entry in baseline.suite.values()]
    lines += [f"- note: {baseline.note}"] if baseline.note else []
    for head, names in named_of_baseline(baseline):
        lines += ["", *_named_list(head, names)]
    changes = baseline.changes
    if changes:
        lines += [
            "",
            "| item | dimension | before | after | delta | verdict |",
            "|---|---|---|---|---|---|",
        ]
        lines += [
            f"| {_code(c.nodeid)} | {c.dimension} | {c.before:.2f} | "
            f"{c.after:.2f} | {c.delta:+.2f} | {c.verdict} |"
            for c in changes
        ]
    lines.append("")
    return lines


def _comparison_lines(comparison: TargetComparison) -> list[str]:
    head, *rest = comparison_lines(comparison)
    dims = list(dict.fromkeys(d for o in comparison.overall.values() for d in o.mean))
    table = [
        "| target | judged | wins | losses | ties | "
        + " | ".join(f"mean {d}" for d in dims)
        + " |",
        "|---|---|---|---|---|" + "---|" * len(dims),
    ]
    for name, o in comparison.overall.items():
        # a target judged on no entry says so and why: no None%, nan or empty cell
        means = " | ".join(f"{o.mean[d]:.2f}" if d in o.mean else "not judged" for d in dims)
        judged = f"{o.judged} of {o.entries}" + (f": {o.not_judged}" if o.not_judged else "")
        counts = [
            f"{count} ({pct}%)" if pct is not None else "none compared"
            for count, pct in ((o.wins, o.win_pct), (o.losses, o.loss_pct), (o.ties, o.tie_pct))
        ]
        table.append(f"| {name} | {_cell(judged)} | {' | '.join(counts)} | {means} |")
    significance = [
        f"- {line.strip()}"
        for line in rest
        if not line.strip().startswith(tuple(f"{t}:" for t in comparison.targets))
        and not line.startswith("    ")  # the pairwise statements: their table follows
    ]
    return [head, "", *table, "", *significance, "", *_pairwise_table(comparison)]


def _pairwise_table(comparison: TargetComparison) -> list[str]:
    result = comparison.pairwise
    if result is None:
        return []
    rows = [
        "| pair | dimension | win rate (95% CI) | wins | losses | ties | orders agreed |",
        "|---|---|---|---|---|---|---|",
    ]
    for p in result.pairs:
        if p.win_rate is None:
            continue
        flag = " ⚠️ cannot tell them apart reliably" if p.unreliable else ""
        rows.append(
            f"| {p.a} vs {p.b} | {p.dimension} | {p.win_rate:.0%} "
            f"({p.ci_low or 0:.0%}-{p.ci_high or 0:.0%}) | {p.wins} | {p.losses} | {p.ties} | "
            f"{p.position_consistency or 0:.0%}{flag} |"
        )
    return [*rows, ""]


def _checks_cell(item: ItemResult) -> str:
    """``2/3 ❌ mentions the reset link: not found``, or ``3/3``; ``-`` without checks."""
    decided = [check for check in item.checks if check.passed is not None]
    if not decided:
        return "-"
    passed = sum(1 for check in decided if check.passed)
    word, parts = checks_verdict(item.checks)  # the word only for checks that could not run
    failed = "; ".join(parts) if word == "check failed" else checks_sentence(item.checks)
    return f"{passed}/{len(decided)}" + (f" ❌ {failed}" if failed else "")


def _item_rows(items: Sequence[ItemResult]) -> list[str]:
    dims = dimension_names(items)
    with_checks = any(item.checks for item in items)
    heads = [*dims, *(["checks"] if with_checks else [])]
    rows = [
        "| item | outcome | " + " | ".join(heads) + " | reasoning |",
        "|---|---|" + "---|" * len(heads) + "---|",
    ]
    for item in sorted(items, key=lambda i: (ORDER.get(i.outcome, 9), i.file, i.line or 0)):
        cells, reasons = [], []
        judged = item.dimensions
        for name in dims:
            dim = judged.get(name)
            if dim is None:
                cells.append("-")
                continue
            mark = "" if dim.passed else " ❌"
            # the runs judged, as the terminal and HTML say them: "1 of 3 runs: 3" when some
            # failed or were not sent
            judged_on = runs_text(dim.runs, len(dim.failed_runs))
            cells.append(
                f"{dim.score:.2f} ± {dim.std:.2f} ({judged_on}; threshold {dim.threshold:g}){mark}"
            )
            if not dim.passed:
                reasons.append(f"{name}: {dim.reasoning}")
        if with_checks:
            cells.append(_cell(_checks_cell(item)))
        why = item.error or "; ".join(reasons) or ""
        rows.append(
            f"| {_code(item.nodeid)} | {item.outcome} | " + " | ".join(cells) + f" | {_cell(why)} |"
        )
    return rows


def markdown_report(results: ResultsFile) -> str:
    """The full report: the summary, then a table per item, failures first, with reasoning."""
    return "\n".join([summary_markdown(results), "### Items", "", *_item_rows(results.results), ""])


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_annotations(
    results: ResultsFile, root: str = "", annotated: Collection[str] = ()
) -> list[str]:
    """``::error`` lines for invalid entries and failed and errored items, pointing at the
    entry in its file (``root``: the rootdir within the repository), but for the items
    another plugin annotated (``annotated``, their node ids)."""

    def path(file: str) -> str:
        return _escape_property(posixpath.join(root, file) if root else file)

    lines = []
    for entry in results.invalid:
        where = f"file={path(entry.file)}" + (f",line={entry.line}" if entry.line else "")
        title = _escape_property(f"llmjudge invalid entry: {entry.id or f'#{entry.index}'}")
        lines.append(f"::error {where},title={title}::{_escape_data(entry.reason)}")
    for item in results.rows():
        if item.outcome not in ("failed", "error") or item.nodeid in annotated:
            continue
        message = item.error if item.outcome == "error" else failing_dimensions(item) or "failed"
        where = f"file={path(item.file)}"
        if item.line:
            where += f",line={item.line}"
        title = _escape_property(f"llmjudge {item.outcome}: {item.id}")
        lines.append(f"::error {where},title={title}::{_escape_data(message or '')}")
    return lines

"""The HTML report's parts beside the item table: the baseline and the A/B comparison
sections, and an item's deterministic checks (its cell and its list in the opened row)."""

from __future__ import annotations

import math

from ..analysis.comparison import overall_text
from ..analysis.pairwise import pairwise_runs_text
from ..analysis.stats import confidence_interval, mean_and_std
from ..schema.pairwise import PairwiseResult
from ..schema.results import BaselineResult, ItemResult, TargetComparison
from .html_parts import bar_chart, escape, interval_chart
from .terminal import capped, named_of_baseline


def baseline_section(baseline: BaselineResult) -> str:
    if not baseline.comparable:
        return (
            f'<section id="baseline"><h2>Baseline</h2><p>{escape(baseline.source)}: not compared '
            f"({escape(baseline.mismatch or 'another judge')})</p></section>"
        )
    suite = "".join(
        f"<li>{escape(name)}: {escape(c.statement)}</li>" for name, c in baseline.suite.items()
    ) + (f"<li>note: {escape(baseline.note)}</li>" if baseline.note else "")
    for head, names in named_of_baseline(baseline):
        first, more = capped(names)
        shown = ", ".join(first) + (f" {more}" if more else "")
        suite += f"<li>{escape(head)}: {escape(shown)}</li>"
    rows = "".join(
        f"<tr><td>{escape(c.nodeid)}</td><td>{escape(c.dimension)}</td><td>{c.before:.2f}</td>"
        f'<td>{c.after:.2f}</td><td class="{"bad" if c.verdict == "regressed" else "ok"}">'
        f"{c.delta:+.2f}</td><td>{escape(c.verdict)}</td></tr>"
        for c in baseline.changes
    )
    return (
        f'<section id="baseline"><h2>Against the baseline {escape(baseline.source)}</h2>'
        f"<p>{escape(baseline.counts_text())}</p><ul>{suite}</ul>"
        '<div class="scroll"><table><thead><tr><th>item</th><th>dimension</th><th>before</th>'
        f"<th>after</th><th>delta</th><th>verdict</th></tr></thead><tbody>{rows}</tbody></table></div>"
        "</section>"
    )


def comparison_section(comparison: TargetComparison) -> str:
    intervals: list[tuple[str, float, float, float]] = []
    names = list(
        dict.fromkeys(
            d for e in comparison.entries for t in e.targets.values() for d in t.dimensions
        )
    )
    for name in names:
        for target in comparison.targets:
            scores = [
                e.targets[target].dimensions[name].score
                for e in comparison.entries
                if target in e.targets and name in e.targets[target].dimensions
            ]
            if scores:
                mean, std = mean_and_std(scores)
                low, high = confidence_interval(mean, std, len(scores))
                low, high = (mean, mean) if math.isinf(low) else (low, high)
                intervals.append((f"{target} · {name}", mean, low, high))
    outcomes = [(target, o.wins, o.losses, o.ties) for target, o in comparison.overall.items()]
    rows = "".join(
        f"<tr><td>{escape(e.id or e.key)}</td><td>{escape(e.winner or 'undecided')}</td>"
        f"<td>{'-' if e.agreement is None else f'{e.agreement:.0%}'}</td>"
        f"<td>{escape(', '.join(e.run_winners))}</td></tr>"
        for e in comparison.entries
    )
    statements = "".join(
        [f"<li>{escape(overall_text(t, o))}</li>" for t, o in comparison.overall.items()]
        + [f"<li>{escape(s.statement)}</li>" for s in comparison.significance]
    )
    pairwise = _pairwise(comparison.pairwise) if comparison.pairwise is not None else ""
    return (
        '<section id="comparison"><h2>A/B comparison</h2>'
        f'<div class="charts"><figure>{interval_chart(intervals)}'
        "<figcaption>mean per target and dimension, 95% interval</figcaption></figure>"
        f"<figure>{bar_chart(outcomes)}<figcaption>wins, losses, ties</figcaption></figure>"
        f"</div><ul>{statements}</ul>"
        '<div class="scroll"><table><thead><tr><th>entry</th><th>winner</th>'
        "<th>agreement of runs</th>"
        f"<th>run winners</th></tr></thead><tbody>{rows}</tbody></table></div>{pairwise}</section>"
    )


def _pairwise(result: PairwiseResult) -> str:
    """Win rates with their intervals (a chart and a table); unreliable pairs flagged."""
    chart_rows = [
        (f"{p.a} over {p.b} · {p.dimension}", p.win_rate, p.ci_low or 0.0, p.ci_high or 1.0)
        for p in result.pairs
        if p.win_rate is not None
    ]
    chart = interval_chart(
        chart_rows, (0.0, 1.0), (0, 0.25, 0.5, 0.75, 1), mark=0.5, what="pairwise win rates"
    )
    rows = "".join(
        f"<tr><td>{escape(p.a)} vs {escape(p.b)}</td><td>{escape(p.dimension)}</td>"
        f"<td>{_percent(p.win_rate)}</td><td>{_percent(p.ci_low)}-{_percent(p.ci_high)}</td>"
        f"<td>{p.wins}</td><td>{p.losses}</td><td>{p.ties}</td>"
        f'<td class="{"bad" if p.unreliable else ""}">{_percent(p.position_consistency)}'
        f"{' (cannot tell them apart reliably)' if p.unreliable else ''}</td>"
        f"<td>{_percent(p.first_shown_share)}</td></tr>"
        for p in result.pairs
    )
    return (
        f"<h3>Side by side (pairwise, both orders, {pairwise_runs_text(result)})</h3>"
        f'<div class="charts"><figure>{chart}<figcaption>win rate of the first target over '
        "the second, 95% interval; ties count half</figcaption></figure></div>"
        '<div class="scroll"><table><thead><tr><th>pair</th><th>dimension</th><th>win rate</th>'
        "<th>95% CI</th>"
        "<th>wins</th><th>losses</th><th>ties</th><th>orders agreed</th>"
        f"<th>first-shown won</th></tr></thead><tbody>{rows}</tbody></table></div>"
    )


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def checks_cell(item: ItemResult) -> str:
    """``2/3`` and the names of the checks that failed; ``-`` without checks."""
    decided = [check for check in item.checks if check.passed is not None]
    if not decided:
        return '<td data-label="checks" data-sort="-1">-</td>'
    passed = sum(1 for check in decided if check.passed)
    failed = "".join(
        f'<small class="fail">{escape(check.name)}</small>'
        for check in decided
        if check.passed is False
    )
    mark = "pass" if passed == len(decided) else "fail"
    return (
        f'<td data-label="checks" data-sort="{passed / len(decided):.4f}"><span class="{mark}">'
        f"{passed}/{len(decided)}</span>{failed}</td>"
    )


def checks_detail(item: ItemResult) -> str:
    """Each check of the opened row: its name, result and what was found."""
    rows = "".join(
        f'<li class="{"ok" if c.passed else "bad" if c.passed is False else ""}">'
        f"<b>{escape(c.name)}</b> "
        f"{'error' if c.error else 'n/a' if c.passed is None else 'ok' if c.passed else 'FAIL'}"
        f"{(': ' + escape(c.detail)) if c.detail else ''}</li>"
        for c in item.checks
    )
    judged = "" if item.judged else "<p>not judged: its checks decided it</p>"
    return f"<h4>checks</h4><ul>{rows}</ul>{judged}"

"""The HTML report: one self-contained file (inline CSS, inline SVG, a little inline script),
no request of any kind, readable from ``file://`` and on paper.

Every text that comes from eval files, bots or the judge goes through ``_e`` (escaped);
the results it is built from are redacted already.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..analysis.gates import dimension_names, suite_means
from ..analysis.stats import confidence_interval, mean_and_std
from ..schema.results import BaselineResult, ItemResult, ResultsFile, TargetComparison
from .html_parts import SCRIPT, STYLE, bar_chart, escape, histogram, interval_chart
from .terminal import outcome_counts, score_text


def html_report(results: ResultsFile) -> str:
    """The whole report for one results file."""
    meta = results.meta
    title = f"pytest-llmjudge report: {meta.started}"
    body = [
        f"<h1>{escape(title)}</h1>",
        _settings(results),
        _cards(results),
        _distributions(results),
        _items(results.results),
    ]
    if results.baseline is not None:
        body.append(_baseline(results.baseline))
    if results.comparison is not None:
        body.append(_comparison(results.comparison))
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{STYLE}</style></head>\n<body>\n"
        + "\n".join(body)
        + f"\n<script>{SCRIPT}</script>\n</body></html>\n"
    )


def _settings(results: ResultsFile) -> str:
    meta = results.meta
    judge = meta.judge
    facts = [
        ("judge", f"{meta.provider} {meta.model or '(no LLM)'}"),
        ("server", judge.base_url_host if judge and judge.base_url_host else "-"),
        ("scoring", judge.scoring if judge else "text"),
        ("prompt", judge.prompt_version if judge else "-"),
        ("runs", str(meta.runs)),
        ("verdict", meta.verdict),
        ("thresholds", ", ".join(f"{k} {v:g}" for k, v in meta.thresholds.items())),
        ("started", meta.started),
        ("duration", f"{meta.duration_s:.1f} s" + ("" if meta.complete else " (incomplete)")),
        ("plugin", meta.plugin_version),
    ]
    rows = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in facts)
    notes = [meta.note, *meta.notices] if meta.note else meta.notices
    notices = "".join(f'<p class="notice">{escape(n)}</p>' for n in notes)
    return f'<section id="settings"><dl class="facts">{rows}</dl>{notices}</section>'


def _cards(results: ResultsFile) -> str:
    s, meta = results.summary, results.meta
    cards = [
        ("items", f"{s.total}", outcome_counts(s)),
        (
            "pass rate",
            "-" if s.pass_rate is None else f"{s.pass_rate:.0%}",
            f"of {s.judged} judged items; xfailed left out",
        ),
    ]
    cards += [
        (f"mean {name}", f"{mean:.2f}", f"threshold {meta.thresholds.get(name, 3.5):g}; no xfails")
        for name, mean in suite_means(results.results).items()
    ]
    cost = "-" if meta.cost_usd is None else f"${meta.cost_usd:.4f}"
    cards += [
        (
            "judge calls",
            f"{meta.calls}",
            f"{meta.judgments} runs judged, {meta.cached_runs} from the cache",
        ),
        ("tokens", f"{meta.tokens.total:,}", f"{meta.tokens.prompt:,} prompt"),
        ("cost", cost, meta.price_source or "price unknown"),
    ]
    html_cards = "".join(
        f'<div class="card"><div class="label">{escape(label)}</div>'
        f'<div class="value">{escape(value)}</div><div class="sub">{escape(sub)}</div></div>'
        for label, value, sub in cards
    )
    gates = "".join(
        f'<li class="{"ok" if g.passed else "bad"}">{"pass" if g.passed else "FAIL"}: '
        f"{escape(g.message)}</li>"
        for g in results.gates
    )
    gate_list = f'<ul class="gates">{gates}</ul>' if gates else ""
    return f'<section id="summary"><div class="cards">{html_cards}</div>{gate_list}</section>'


def _distributions(results: ResultsFile) -> str:
    charts = []
    for name in dimension_names(results.results):
        means = [i.dimensions[name].score for i in results.results if name in i.dimensions]
        threshold = results.meta.thresholds.get(name, 3.5)
        charts.append(f"<figure>{histogram(name, means, threshold)}</figure>")
    if not charts:
        return ""
    return (
        '<section id="distribution"><h2>Score distribution (item means)</h2>'
        f'<div class="charts">{"".join(charts)}</div></section>'
    )


def _flags(item: ItemResult) -> list[str]:
    flags = [
        ("unstable", item.unstable),
        ("flaky", item.flaky),
        ("injection suspected", item.injection_suspected),
        ("label disagreement", item.label_disagreement),
        ("partial runs", item.partial_runs),
    ]
    return [name for name, on in flags if on]


def _items(items: Sequence[ItemResult]) -> str:
    names = dimension_names(items)
    outcomes = sorted({i.outcome for i in items})
    options = "".join(f'<option value="{escape(o)}">{escape(o)}</option>' for o in outcomes)
    head = "".join(
        f'<th data-col="{n}" data-key="{escape(h)}" role="button" tabindex="0">{escape(h)}</th>'
        for n, h in enumerate(["item", "outcome", *names, "flags"])
    )
    rows = "\n".join(_item_row(item, names) for item in items)
    return (
        '<section id="items"><h2>Items</h2><div class="filters">'
        '<label>outcome <select id="outcome"><option value="">all</option>'
        f"{options}</select></label> "
        '<label>search <input id="search" type="search" placeholder="id, file, text"></label> '
        f'<span id="shown">{len(items)} of {len(items)} shown</span></div>'
        f'<table id="item-table"><thead><tr>{head}</tr></thead><tbody>\n{rows}\n</tbody>'
        "</table></section>"
    )


def _item_row(item: ItemResult, names: Sequence[str]) -> str:
    where = f"{item.file}:{item.line}" if item.line else item.file
    text = " ".join(x for x in (item.id, where, item.ticket, item.response, item.answer) if x)
    cells = [
        f'<td data-sort="{escape(item.nodeid)}"><details><summary>{escape(item.id)}'
        f'<span class="where">{escape(where)}</span></summary>{_detail(item)}</details></td>',
        f'<td data-sort="{escape(item.outcome)}"><span class="outcome {escape(item.outcome)}">'
        f"{escape(item.outcome)}</span></td>",
    ]
    for name in names:
        dim = item.dimensions.get(name)
        if dim is None:
            cells.append('<td data-sort="-1">-</td>')
            continue
        runs = ", ".join(score_text(r) for r in dim.runs)
        mark = "pass" if dim.passed else "fail"
        cells.append(
            f'<td data-sort="{dim.score:.4f}"><span class="{mark}">{dim.score:.2f}</span>'
            f"<small>runs {escape(runs)} · sd {dim.std:.2f}</small></td>"
        )
    flags = _flags(item)
    cells.append(
        f'<td data-sort="{len(flags)}">'
        + "".join(f'<span class="flag">{escape(f)}</span>' for f in flags)
        + "</td>"
    )
    return (
        f'<tr data-outcome="{escape(item.outcome)}" data-text="{escape(text.lower())}">'
        + "".join(cells)
        + "</tr>"
    )


def _detail(item: ItemResult) -> str:
    parts = []
    if item.error:
        parts.append(f'<p class="error">{escape(item.error)}</p>')
    if item.reason:
        parts.append(f"<p>{escape(item.reason)}</p>")
    for number, turn in enumerate(item.conversation, start=1):
        role = turn.get("role", "?")
        parts.append(
            f"<h4>turn {number}: {escape(role)}</h4><pre>{escape(turn.get('content', ''))}</pre>"
        )
    if item.ticket:
        parts.append(f"<h4>ticket</h4><pre>{escape(item.ticket)}</pre>")
    judged = item.answer if item.answer is not None else item.response
    if judged:
        label = f"answer of {item.target}" if item.target else "response"
        parts.append(f"<h4>{escape(label)}</h4><pre>{escape(judged)}</pre>")
    if item.reference:
        parts.append(f"<h4>reference answer</h4><pre>{escape(item.reference)}</pre>")
    if item.not_applicable:
        parts.append(f"<p>not applicable: {escape(', '.join(item.not_applicable))}</p>")
    for name, dim in item.dimensions.items():
        reasons = dim.run_reasonings or [dim.reasoning]
        runs = "".join(
            f"<li><b>{escape(score_text(score))}</b> {escape(reason)}</li>"
            for score, reason in zip(dim.runs, reasons, strict=False)
        )
        failed = "".join(f'<li class="error">{escape(f)}</li>' for f in dim.failed_runs)
        parts.append(f"<h4>{escape(name)} {dim.score:.2f}</h4><ol>{runs}{failed}</ol>")
    if item.injection_snippets:
        snippets = "".join(f"<li>{escape(s)}</li>" for s in item.injection_snippets)
        parts.append(f"<h4>text that speaks to the judge</h4><ul>{snippets}</ul>")
    return "".join(parts)


def _baseline(baseline: BaselineResult) -> str:
    if not baseline.comparable:
        return (
            f'<section id="baseline"><h2>Baseline</h2><p>{escape(baseline.source)}: not compared '
            f"({escape(baseline.mismatch or 'another judge')})</p></section>"
        )
    suite = "".join(
        f"<li>{escape(name)}: {escape(c.statement)}</li>" for name, c in baseline.suite.items()
    )
    rows = "".join(
        f"<tr><td>{escape(c.nodeid)}</td><td>{escape(c.dimension)}</td><td>{c.before:.2f}</td>"
        f'<td>{c.after:.2f}</td><td class="{"bad" if c.verdict == "regressed" else "ok"}">'
        f"{c.delta:+.2f}</td><td>{escape(c.verdict)}</td></tr>"
        for c in baseline.changes
    )
    return (
        f'<section id="baseline"><h2>Against the baseline {escape(baseline.source)}</h2>'
        f"<p>{escape(baseline.counts_text())}</p><ul>{suite}</ul><table><thead><tr><th>item</th><th>dimension</th><th>before</th>"
        f"<th>after</th><th>delta</th><th>verdict</th></tr></thead><tbody>{rows}</tbody></table>"
        "</section>"
    )


def _comparison(comparison: TargetComparison) -> str:
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
    statements = "".join(f"<li>{escape(s.statement)}</li>" for s in comparison.significance)
    return (
        '<section id="comparison"><h2>A/B comparison</h2>'
        f'<div class="charts"><figure>{interval_chart(intervals)}'
        "<figcaption>mean per target and dimension, 95% interval</figcaption></figure>"
        f"<figure>{bar_chart(outcomes)}<figcaption>wins, losses, ties</figcaption></figure>"
        f"</div><ul>{statements}</ul>"
        "<table><thead><tr><th>entry</th><th>winner</th><th>agreement of runs</th>"
        f"<th>run winners</th></tr></thead><tbody>{rows}</tbody></table></section>"
    )

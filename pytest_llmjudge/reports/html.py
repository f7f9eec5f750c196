"""The HTML report: one self-contained file (inline CSS, inline SVG, a little inline script),
no request of any kind, readable from ``file://`` and on paper.

It opens with the verdict (passed or failed, and why), then the run's facts, the items with
the threshold each was held to and why it failed, and the baseline and A/B sections. Every
text that comes from eval files, bots or the judge goes through ``escape``; the results it is
built from are redacted already.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..analysis.gates import dimension_names, suite_means
from ..basics.wording import counted
from ..config.pricing import provider_host
from ..judges.heuristic import LABEL
from ..schema.results import ItemResult, ResultsFile
from .html_parts import SCRIPT, STYLE, escape, histogram
from .html_sections import baseline_section, checks_cell, checks_detail, comparison_section
from .item_text import item_sentence, runs_text, score_text
from .terminal import capped, invalid_places, items_counted, outcome_counts

REASONS_SHOWN = 5  # failures named in the verdict banner; the table has them all


def html_report(results: ResultsFile) -> str:
    """The whole report for one results file."""
    meta = results.meta
    title = f"pytest-llmjudge report: {meta.started}"
    body = [
        f"<h1>{escape(title)}</h1>",
        _verdict(results),
        _settings(results),
        _cards(results),
        _distributions(results),
        _items(results),
    ]
    if results.baseline is not None:
        body.append(baseline_section(results.baseline))
    if results.comparison is not None:
        body.append(comparison_section(results.comparison))
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{STYLE}</style></head>\n<body>\n"
        + "\n".join(body)
        + f"\n<script>{SCRIPT}</script>\n</body></html>\n"
    )


def _verdict(results: ResultsFile) -> str:
    """The banner: passed, failed or incomplete, the counts that decided it, and why."""
    s = results.summary
    items, unread = items_counted(results)
    gates = [g for g in results.gates if not g.passed]
    if s.failed or s.errors or s.invalid or gates:
        state = "failed"
        counts = [
            f"{s.failed} of {counted(items.total, 'eval item')} failed" if s.failed else "",
            counted(s.errors - s.invalid, "error") if s.errors > s.invalid else "",
            counted(s.invalid, "invalid entry", "invalid entries") if s.invalid else "",
            counted(len(gates), "gate") + " failed" if gates else "",
        ]
        headline = "FAILED: " + ", ".join(c for c in counts if c)
    else:
        state = "passed" if results.meta.complete else "incomplete"
        headline = (
            f"{'PASSED' if results.meta.complete else 'INCOMPLETE'}: "
            f"{counted(items.total, 'eval item')}, {outcome_counts(items)}{unread}"
        )
        if not results.meta.complete:
            headline += "; the session stopped early: only what ran is here"
    failing = [i for i in results.results if i.outcome in ("failed", "error")]
    reasons = [
        f"<li><b>{escape(_name(item))}</b> {escape(item_sentence(item))}</li>"
        for item in failing[:REASONS_SHOWN]
    ]
    if len(failing) > REASONS_SHOWN:
        reasons.append(
            f"<li>and {len(failing) - REASONS_SHOWN} more: filter the items by outcome</li>"
        )
    invalid, more = capped(invalid_places(results), REASONS_SHOWN)
    reasons += [f"<li><b>invalid entry</b> {escape(place)}</li>" for place in invalid]
    reasons += [f"<li>{escape(more)}</li>"] if more else []
    reasons += [f"<li><b>gate</b> {escape(g.message)}</li>" for g in gates]
    why = f"<ul>{''.join(reasons)}</ul>" if reasons else ""
    return (
        f'<section id="verdict" class="verdict {state}" role="status">'
        f'<p class="headline">{escape(headline)}</p>{why}</section>'
    )


def _name(item: ItemResult) -> str:
    """``strict-1 (dotnet)``: an entry's id, with the target that answered in an A/B run."""
    return f"{item.id} ({item.target})" if item.target else item.id


def _settings(results: ResultsFile) -> str:
    meta = results.meta
    judge = meta.judge
    facts = [
        ("judge", f"{meta.provider} {meta.model}" if meta.llm else f"{LABEL} (no LLM)"),
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
    own = sum(1 for i in results.results if _own_thresholds(i, meta.thresholds))
    if own:
        facts.insert(7, ("own thresholds", f"{counted(own, 'item')} (shown in the table)"))
    rows = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in facts)
    notes = [meta.note, *meta.notices] if meta.note else meta.notices
    notices = "".join(f'<p class="notice">{escape(n)}</p>' for n in notes)
    return f'<section id="settings"><dl class="facts">{rows}</dl>{notices}</section>'


def _own_thresholds(item: ItemResult, session: dict[str, float]) -> list[str]:
    """The dimensions this item was held to another threshold than the session's."""
    return [n for n, d in item.dimensions.items() if n in session and d.threshold != session[n]]


def _cards(results: ResultsFile) -> str:
    s, meta = results.summary, results.meta
    items, unread = items_counted(results)
    cards = [
        ("items", f"{items.total}", outcome_counts(items) + unread),
        (
            "pass rate",
            "-" if s.pass_rate is None else f"{s.pass_rate:.0%}",
            f"of {counted(s.judged, 'judged item')}; xfailed left out",
        ),
    ]
    cards += [
        (f"mean {name}", f"{mean:.2f}", f"threshold {meta.thresholds.get(name, 3.5):g}; no xfails")
        for name, mean in suite_means(results.results).items()
    ]
    runs = meta.judgments + meta.cached_runs
    cached = f"{counted(meta.cached_runs, 'run')} from the cache"
    cards.append(("judge runs", f"{runs}", f"{counted(meta.calls, 'request')} made, {cached}"))
    # a cost where the price is known; unknown on the provider's host; a local, LAN or
    # other server shows tokens only
    priced = meta.cost_usd is not None
    if meta.calls == 0 and runs:  # nothing was asked: say where the scores came from
        cards.append(("tokens", "0", "no request made"))
        cards += [("cost", "$0", "every run from the cache")] * priced
    else:
        unknown = meta.tokens.unknown_calls
        said = f"unknown for {counted(unknown, 'call')}" if unknown else ""
        total = "unknown" if unknown and not meta.tokens.total else f"{meta.tokens.total:,}"
        cards.append(("tokens", total, said or f"{meta.tokens.prompt:,} prompt"))
        if priced:
            cards.append(("cost", f"${meta.cost_usd:.4f}", meta.price_source or ""))
        elif unknown and meta.price_source:
            cards.append(("cost", "unknown", "the server did not say every call's tokens"))
        elif meta.llm and provider_host(meta.base_url):
            cards.append(("cost", "unknown", f"add {meta.model} to llmjudge_prices"))
    html_cards = "".join(
        f'<div class="card"><div class="label">{escape(label)}</div>'
        f'<div class="value">{escape(value)}</div><div class="sub">{escape(sub)}</div></div>'
        for label, value, sub in cards
    )
    gates = "".join(
        f'<li class="{"ok" if g.passed else "bad"}">{"pass" if g.passed else "FAIL"}: '
        f"{escape(g.message)}</li>"
        for g in results.gates
        if not (g.name == "judged" and g.passed)  # "something was judged" is no news
    )
    gate_list = f'<ul class="gates">{gates}</ul>' if gates else ""
    return f'<section id="summary"><div class="cards">{html_cards}</div>{gate_list}</section>'


def _distributions(results: ResultsFile) -> str:
    charts = []
    for name in dimension_names(results.results):
        judged = [i.dimensions[name] for i in results.results if name in i.dimensions]
        scores = [(d.score, d.passed) for d in judged]
        threshold = results.meta.thresholds.get(name, 3.5)
        own = sum(1 for d in judged if d.threshold != threshold)
        charts.append(f"<figure>{histogram(name, scores, threshold, own)}</figure>")
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


def _select(name: str, values: Sequence[str]) -> str:
    options = "".join(f'<option value="{escape(v)}">{escape(v)}</option>' for v in values)
    return (
        f'<label>{escape(name)} <select id="{escape(name)}"><option value="">all</option>'
        f"{options}</select></label> "
    )


def _items(results: ResultsFile) -> str:
    items = results.results
    names = dimension_names(items)
    targets = list(dict.fromkeys(i.target for i in items if i.target))
    with_checks = any(i.checks for i in items)
    columns = [
        "item",
        *(["target"] if targets else []),
        "outcome",
        *names,
        *(["checks"] if with_checks else []),
        "flags",
    ]
    head = "".join(
        f'<th data-col="{n}" data-key="{escape(h)}" role="button" tabindex="0">{escape(h)}</th>'
        for n, h in enumerate(columns)
    )
    thresholds = results.meta.thresholds
    rows = "\n".join(
        _item_row(item, names, bool(targets), thresholds, with_checks) for item in items
    )
    return (
        '<section id="items"><h2>Items</h2><div class="filters">'
        + _select("outcome", sorted({i.outcome for i in items}))
        + (_select("target", targets) if targets else "")
        + '<label>search <input id="search" type="search" placeholder="id, target, file, text">'
        f'</label> <span id="shown">{len(items)} of {len(items)} shown</span></div>'
        '<div class="scroll"><table id="item-table">'
        f"<thead><tr>{head}</tr></thead><tbody>\n{rows}\n</tbody>"
        "</table></div></section>"
    )


def _item_row(
    item: ItemResult,
    names: Sequence[str],
    with_targets: bool,
    session: dict[str, float],
    with_checks: bool = False,
) -> str:
    where = f"{item.file}:{item.line}" if item.line else item.file
    texts = (item.id, item.target, where, item.ticket, item.response, item.answer)
    why = item_sentence(item)
    shown_why = f'<span class="why">{escape(why)}</span>' if why else ""
    cells = [
        f'<td data-sort="{escape(item.nodeid)}"><details><summary>{escape(item.id)}'
        f'<span class="where">{escape(where)}</span>{shown_why}</summary>{_detail(item)}'
        "</details></td>",
    ]
    if with_targets:
        cells.append(
            f'<td data-label="target" data-sort="{escape(item.target or "")}">'
            f"{escape(item.target or '-')}</td>"
        )
    cells.append(
        f'<td data-label="outcome" data-sort="{escape(item.outcome)}">'
        f'<span class="outcome {escape(item.outcome)}">'
        f"{escape(item.outcome)}</span></td>"
    )
    cells += [_score_cell(item, name, session) for name in names]
    if with_checks:
        cells.append(checks_cell(item))
    flags = _flags(item)
    cells.append(
        f'<td data-label="flags" data-sort="{len(flags)}">'
        + "".join(f'<span class="flag">{escape(f)}</span>' for f in flags)
        + "</td>"
    )
    text = " ".join(x for x in texts if x).lower()
    return (
        f'<tr data-outcome="{escape(item.outcome)}" data-target="{escape(item.target or "")}" '
        f'data-text="{escape(text)}">' + "".join(cells) + "</tr>"
    )


def _score_cell(item: ItemResult, name: str, session: dict[str, float]) -> str:
    """A dimension's score, threshold (the entry's own marked), runs and spread."""
    dim = item.dimensions.get(name)
    if dim is None:
        return f'<td data-label="{escape(name)}" data-sort="-1">-</td>'
    runs = runs_text(dim.runs, len(dim.failed_runs))
    mark = "pass" if dim.passed else "fail"
    threshold = f"threshold {dim.threshold:g}"
    if dim.threshold != session.get(name, dim.threshold):  # the entry's own
        threshold = f'<span class="own" title="set by the entry">{threshold}</span>'
    return (
        f'<td data-label="{escape(name)}" data-sort="{dim.score:.4f}">'
        f'<span class="{mark}">{dim.score:.2f}</span>'
        f"<small>{threshold} · {escape(runs)} · sd {dim.std:.2f}</small></td>"
    )


def _detail(item: ItemResult) -> str:
    parts = []
    if item.error:
        parts.append(f'<p class="error">{escape(item.error)}</p>')
    elif item_sentence(item):
        parts.append(f'<p class="error">{escape(item_sentence(item))}</p>')
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
    if item.not_judged_offline:
        unjudged = escape(", ".join(item.not_judged_offline))
        parts.append(f"<p>not judged offline: {unjudged}</p>")
    if item.checks:
        parts.append(checks_detail(item))
    for name, dim in item.dimensions.items():
        reasons = dim.run_reasonings or [dim.reasoning]
        runs = "".join(
            f"<li><b>{escape(score_text(score))}</b> {escape(reason)}</li>"
            for score, reason in zip(dim.runs, reasons, strict=False)
        )
        failed = "".join(f'<li class="error">{escape(f)}</li>' for f in dim.failed_runs)
        verdict = "met" if dim.passed else "below"
        parts.append(
            f"<h4>{escape(name)} {dim.score:.2f}: {verdict} its threshold {dim.threshold:g}</h4>"
            f"<ol>{runs}{failed}</ol>"
        )
    if item.injection_snippets:
        snippets = "".join(f"<li>{escape(s)}</li>" for s in item.injection_snippets)
        parts.append(f"<h4>text that speaks to the judge</h4><ul>{snippets}</ul>")
    return "".join(parts)

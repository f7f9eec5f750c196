"""The HTML report's fixed parts: its style, its script, and its charts as inline SVG.

Charts take numbers and labels (labels are escaped here); nothing is fetched from anywhere.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

from ..basics.wording import counted

STYLE = """
[hidden]{display:none!important}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:1.5rem;color:#1b1f24}
.verdict{border-radius:6px;padding:.6rem .9rem;margin:1rem 0;border:2px solid}
.verdict.passed{background:#dafbe1;border-color:#1a7f37}
.verdict.failed{background:#ffebe9;border-color:#cf222e}
.verdict.incomplete{background:#fff8c5;border-color:#bf8700}
.verdict .headline{font-size:1.15rem;font-weight:700;margin:0}
.verdict ul{margin:.4rem 0 0;padding-left:1.2rem}.verdict li{overflow-wrap:break-word}
.why{display:block;color:#cf222e;font-size:.85rem}
h1{font-size:1.3rem}h2{font-size:1.1rem;margin-top:2rem}h4{margin:.8rem 0 .2rem}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:.1rem 1rem;margin:0}
.facts dt{color:#57606a}.facts dd{margin:0}
.notice{background:#fff8c5;padding:.4rem .6rem;border-radius:4px}
.cards{display:flex;flex-wrap:wrap;gap:.6rem;margin:1rem 0}
.card{border:1px solid #d0d7de;border-radius:6px;padding:.5rem .8rem;min-width:8rem}
.card .label{color:#57606a;font-size:.8rem}.card .value{font-size:1.4rem;font-weight:600}
.card .sub{color:#57606a;font-size:.8rem}
.gates{list-style:none;padding:0}.gates li{margin:.2rem 0}
.ok{color:#1a7f37}.bad,.error,.fail{color:#cf222e}.pass{color:#1a7f37}
.charts{display:flex;flex-wrap:wrap;gap:1rem}figure{margin:0}
.scroll{overflow-x:auto}table{border-collapse:collapse;width:100%;margin-top:.5rem}
th,td{border-bottom:1px solid #d0d7de;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{cursor:pointer;background:#f6f8fa;user-select:none}
th[aria-sort=ascending]::after{content:" ▲"}th[aria-sort=descending]::after{content:" ▼"}
td small{display:block;color:#57606a}.where{display:block;color:#57606a;font-size:.8rem}
.outcome{padding:0 .35rem;border-radius:3px;background:#eaeef2}
.outcome.passed,.outcome.xpassed{background:#dafbe1}.outcome.failed,.outcome.error{background:#ffebe9}
.outcome.xfailed,.outcome.skipped,.outcome.flaky_failed{background:#fff8c5}
.flag{display:inline-block;white-space:nowrap;margin:0 .2rem .2rem 0;padding:0 .3rem;
border-radius:3px;background:#ddf4ff;font-size:.8rem}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f8fa;padding:.4rem;border-radius:4px;max-width:60rem}
.filters{display:flex;flex-wrap:wrap;gap:1rem;align-items:center}
td small .own{font-weight:700;color:#1b1f24}
svg{max-width:100%;height:auto}
@media (max-width:640px){
body{margin:.6rem}
#item-table,#item-table thead,#item-table tbody,#item-table tr,#item-table td{display:block}
#item-table thead tr{display:flex;flex-wrap:wrap;gap:.3rem}
#item-table th{border:1px solid #d0d7de;border-radius:4px}
#item-table tbody tr{border-bottom:2px solid #d0d7de;padding:.3rem 0}
#item-table td{border:0;padding:.1rem .3rem;overflow-wrap:anywhere}
#item-table td[data-label]::before{content:attr(data-label) ": ";color:#57606a;font-size:.8rem}
#item-table td[data-label] small{display:inline;margin-left:.4rem}
}
@media print{.filters{display:none}details>*{display:block}}
"""

# Sorting by a column header, filtering by outcome, target and text. The filter can be given in
# the address (#outcome=failed&target=python&q=oom&sort=-relevance): a link shows the same rows.
SCRIPT = """
(function(){
var table=document.getElementById('item-table');if(!table)return;
var body=table.tBodies[0],rows=Array.prototype.slice.call(body.rows);
var outcome=document.getElementById('outcome'),search=document.getElementById('search');
var target=document.getElementById('target')||{value:'',addEventListener:function(){}};
var shown=document.getElementById('shown');
function apply(){var o=outcome.value,t=target.value,q=search.value.toLowerCase(),n=0;
rows.forEach(function(r){var hide=(o&&r.dataset.outcome!==o)||(t&&r.dataset.target!==t)||
(q&&r.dataset.text.indexOf(q)<0);r.hidden=!!hide;if(!hide)n++;});
shown.textContent=n+' of '+rows.length+' shown';}
var params=new URLSearchParams(location.hash.slice(1));
if(params.get('outcome'))outcome.value=params.get('outcome');
if(params.get('target'))target.value=params.get('target');
if(params.get('q'))search.value=params.get('q');
outcome.addEventListener('change',apply);target.addEventListener('change',apply);
search.addEventListener('input',apply);apply();
var sorters={};
Array.prototype.forEach.call(table.tHead.rows[0].cells,function(th,i){
sorters[th.dataset.key]=sort;
function sort(){var down=th.getAttribute('aria-sort')==='ascending';
Array.prototype.forEach.call(table.tHead.rows[0].cells,function(c){c.removeAttribute('aria-sort');});
th.setAttribute('aria-sort',down?'descending':'ascending');
rows.sort(function(a,b){var x=a.cells[i].dataset.sort,y=b.cells[i].dataset.sort;
var nx=parseFloat(x),ny=parseFloat(y),c=(isNaN(nx)||isNaN(ny))?x.localeCompare(y):nx-ny;
return down?-c:c;});rows.forEach(function(r){body.appendChild(r);});}
th.addEventListener('click',sort);
th.addEventListener('keydown',function(e){if(e.key==='Enter')sort();});});
var key=params.get('sort')||'',down=key.charAt(0)==='-',by=sorters[down?key.slice(1):key];
if(by){by();if(down)by();}
})();
"""

WIDTH, HEIGHT, PAD = 320, 180, 28
TOP = 46  # the plot starts below the title and the threshold's label: nothing overlaps them
CHAR_WIDTH = 6.5  # pixels per character of an 11 px label, generously


def escape(text: object) -> str:
    """Text for HTML content and quoted attributes."""
    return html.escape(str(text), quote=True)


def _x(score: float) -> float:
    """Position of a score 1-5 on a chart's horizontal axis."""
    return PAD + (score - 1) / 4 * (WIDTH - 2 * PAD)


def _bars(scores: Sequence[tuple[float, bool]], floor: int) -> str:
    """The histogram's bars: per half-point bin, the items that met their threshold stacked
    under those below it, with the bin's count on top."""
    met, below = [0] * 8, [0] * 8
    for score, passed in scores:
        # a hand-edited results file may hold any number: the ends' bins take what is past
        # them, and what is no number (NaN) has no bin
        if not math.isnan(score):
            (met if passed else below)[int(min(max((score - 1) / 0.5, 0), 7))] += 1
    top = max(m + b for m, b in zip(met, below, strict=True)) or 1
    bar_width = (WIDTH - 2 * PAD) / 8
    room = floor - TOP - 12  # 12: the count above the tallest bar
    bars = []
    for i, (good, bad) in enumerate(zip(met, below, strict=True)):
        x, low, y = PAD + i * bar_width, 1 + i * 0.5, float(floor)
        for count, colour, what in ((good, "#1a7f37", "met"), (bad, "#cf222e", "below")):
            height = count / top * room
            y -= height
            if count:
                bars.append(
                    f'<rect x="{x + 1:.1f}" y="{y:.1f}" width="{bar_width - 2:.1f}" '
                    f'height="{height:.1f}" fill="{colour}"><title>{low:g}-{low + 0.5:g}: '
                    f"{count} items {what} their threshold</title></rect>"
                )
        if good + bad:
            bars.append(
                f'<text x="{x + bar_width / 2:.1f}" y="{y - 3:.1f}" text-anchor="middle" '
                f'font-size="10">{good + bad}</text>'
            )
    return "".join(bars)


def histogram(
    name: str, scores: Sequence[tuple[float, bool]], threshold: float, own: int = 0
) -> str:
    """Item means in half-point bins from 1 to 5, each bin split into the items that met their
    threshold (green) and those below it (red): an item held to its own threshold is counted
    by its own verdict. The session's threshold is a dashed line; ``own`` items have another.
    """
    floor = HEIGHT - PAD
    bars = _bars(scores, floor)
    ticks = "".join(
        f'<text x="{_x(s):.1f}" y="{floor + 14}" text-anchor="middle" font-size="10">{s}</text>'
        for s in range(1, 6)
    )
    line = _x(threshold)
    others = "1 item has its own" if own == 1 else f"{own} items have their own"
    label = f"threshold {threshold:g}" + (f" ({others})" if own else "")
    anchor = "end" if line > WIDTH / 2 else "start"
    label_x = line - 3 if anchor == "end" else line + 3
    # the note on own thresholds goes on a line of its own: beside the number it ran past
    # the chart's edge on the side with the most room
    shown = [f"threshold {threshold:g}", *([f"({others})"] if own else [])]
    label_lines = "".join(
        f'<tspan x="{label_x:.1f}" dy="{0 if n == 0 else 11}">{escape(text)}</tspan>'
        for n, text in enumerate(shown)
    )
    return (
        f'<svg role="img" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'aria-label="{escape(name)} distribution">'
        f'<text x="{PAD}" y="14" font-size="12" font-weight="600">{escape(name)} '
        f"({counted(len(scores), 'item')})</text>{bars}"
        f'<line x1="{PAD}" x2="{WIDTH - PAD}" y1="{floor}" y2="{floor}" stroke="#57606a"/>'
        f'{ticks}<line x1="{line:.1f}" x2="{line:.1f}" y1="{TOP - 12}" y2="{floor}" '
        f'stroke="#1b1f24" stroke-dasharray="4 3"><title>{escape(label)}</title></line>'
        f'<text x="{label_x:.1f}" y="30" font-size="10" text-anchor="{anchor}">'
        f"{label_lines}</text></svg>"
    )


def _label_width(labels: Sequence[str], least: int) -> int:
    """Room for the longest label of a chart (so that no label runs into its bars)."""
    return max(least, int(max((len(label) for label in labels), default=0) * CHAR_WIDTH) + 12)


def interval_chart(
    rows: Sequence[tuple[str, float, float, float]],
    scale: tuple[float, float] = (1.0, 5.0),
    ticks: Sequence[float] = (1, 2, 3, 4, 5),
    mark: float | None = None,
    what: str = "means with intervals",
) -> str:
    """One row per (label, value, low, high): a dot at the value and a bar over the interval,
    on ``scale``; ``mark``: a dashed line (a win rate's 0.5)."""
    row_height, label_width = 22, _label_width([row[0] for row in rows], 150)
    width = label_width + WIDTH
    height = row_height * len(rows) + 30
    start, end = scale

    def x(value: float) -> float:
        share = (max(start, min(end, value)) - start) / (end - start)
        return label_width + share * (WIDTH - 2 * PAD)

    parts = []
    for i, (label, mean, low, high) in enumerate(rows):
        y = 12 + i * row_height
        parts.append(
            f'<text x="0" y="{y + 4}" font-size="11">{escape(label)}</text>'
            f'<line x1="{x(low):.1f}" x2="{x(high):.1f}" y1="{y}" y2="{y}" stroke="#0969da" '
            f'stroke-width="3"/><circle cx="{x(mean):.1f}" cy="{y}" r="4" fill="#0969da">'
            f"<title>{escape(label)}: {mean:.2f} ({low:.2f}-{high:.2f})</title></circle>"
        )
    if mark is not None:
        parts.append(
            f'<line x1="{x(mark):.1f}" x2="{x(mark):.1f}" y1="2" y2="{height - 16}" '
            f'stroke="#57606a" stroke-dasharray="4 3"/>'
        )
    labels = "".join(
        f'<text x="{x(s):.1f}" y="{height - 4}" text-anchor="middle" font-size="10">{s:g}</text>'
        for s in ticks
    )
    return (
        f'<svg role="img" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        f'aria-label="{escape(what)}">'
        f"{''.join(parts)}{labels}</svg>"
    )


def bar_chart(rows: Sequence[tuple[str, int, int, int]]) -> str:
    """One stacked bar per (target, wins, losses, ties)."""
    row_height, bar_width = 22, 240
    label_width = _label_width([row[0] for row in rows], 110)
    height = row_height * len(rows) + 10
    parts = []
    for i, (label, *counts) in enumerate(rows):
        y, x, total = 4 + i * row_height, float(label_width), sum(counts) or 1
        parts.append(f'<text x="0" y="{y + 12}" font-size="11">{escape(label)}</text>')
        for count, colour, what in zip(
            counts, ("#1a7f37", "#cf222e", "#8c959f"), ("wins", "losses", "ties"), strict=True
        ):
            w = count / total * bar_width
            parts.append(
                f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="16" fill="{colour}">'
                f"<title>{escape(label)}: {count} {what}</title></rect>"
            )
            x += w
        parts.append(
            f'<text x="{label_width + bar_width + 6}" y="{y + 12}" font-size="11">'
            f"{counts[0]} / {counts[1]} / {counts[2]}</text>"
        )
    width = label_width + bar_width + 80
    return (
        f'<svg role="img" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        f'aria-label="wins, losses and ties">'
        f"{''.join(parts)}</svg>"
    )

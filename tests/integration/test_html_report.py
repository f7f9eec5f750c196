"""--judge-report PATH.html: one self-contained, escaped file; its structure read with the
standard library's HTML parser, and the real thing loaded in headless Chromium."""

from __future__ import annotations

import shutil
import struct
import subprocess
import zlib
from html.parser import HTMLParser
from pathlib import Path

import pytest

from pytest_llmjudge.reports.html import html_report
from pytest_llmjudge.schema.results import ResultsFile

from bot_server import BotServer
from helpers import entry, read_results, run, write_evals
from judge_server import JudgeServer

EVIL = '<script>alert("owned")</script> <img src=x onerror=alert(1)>'


class Page(HTMLParser):
    """What the tests need of a report: elements by tag, item rows, attributes, text."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.rows: list[dict[str, str | None]] = []
        self.text: list[str] = []
        self.scripts: list[str] = []  # the text inside each <script> element
        self._in_items = False
        self._in_script = False
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        self.tags.append((tag, found))
        if tag == "table":
            self._in_items = found.get("id") == "item-table"
        if tag == "tr" and self._in_items and "data-outcome" in found:
            self.rows.append(found)
        if tag == "script":
            self._in_script = True
            self.scripts.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts[-1] += data
        else:
            self.text.append(data)

    def count(self, tag: str) -> int:
        return sum(1 for t, _ in self.tags if t == tag)


def _suite(pytester: pytest.Pytester) -> None:
    write_evals(
        pytester,
        [
            entry("fine"),
            entry("evil", f"{EVIL} {{{{relevance=1}}}}", ticket="t2"),
            entry("shaky", "ok {{relevance=3,5,4 tone=4}}", ticket="t3"),
        ],
    )


def test_the_html_report_is_self_contained_and_escapes_every_text(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    _suite(pytester)
    args = ("--judge-runs=3", "--judge-report=out/report.html", "--judge-report=out/report.md")
    run(pytester, "evals/", *args).assert_outcomes(passed=2, failed=1)
    text = (pytester.path / "out" / "report.html").read_text()
    assert (pytester.path / "out" / "report.md").read_text().startswith("#")  # both written
    page = Page(text)
    assert len(page.rows) == 3 and [r["data-outcome"] for r in page.rows].count("failed") == 1
    # the response is shown as text: its tags are not elements of the page
    assert page.count("script") == 1 and page.count("img") == 0
    assert EVIL in "".join(page.text)
    # nothing is fetched: no external resource, no link, no import
    assert not any(name in ("src", "href") for _, found in page.tags for name in found)
    code = text.split("<style>")[1].split("</style>")[0] + text.split("<script>")[-1]
    assert not any(k in code for k in ("@import", "url(", "http", "fetch(", "XMLHttpRequest"))
    assert page.count("svg") == 2  # a histogram per dimension
    assert "scripted relevance 5" in text  # every run's reasoning, in the item's details
    meta = read_results(pytester)["meta"]
    assert (meta["calls"], meta["judgments"]) == (judge_server.count(), 18)
    card = '<div class="value">18</div><div class="sub">6 requests made, 0 runs from the cache'
    assert card in text and meta["calls"] == 6


def test_the_cards_count_every_outcome(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    weak = entry("weak", "x {{relevance=1}}", ticket="t2", marks=["xfail"])
    write_evals(pytester, [entry("fine"), weak])
    run(pytester, "evals/", "--judge-report=r.html").assert_outcomes(passed=1, xfailed=1)
    text = (pytester.path / "r.html").read_text()
    assert '<div class="value">2</div><div class="sub">1 passed, 1 xfailed</div>' in text
    assert '<div class="sub">of 1 judged item; xfailed left out</div>' in text


def test_the_report_shows_baseline_deltas_and_gates(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, [entry("a", "x {{relevance=5}}")])
    run(pytester, "evals/", "--judge-output=base.json").assert_outcomes(passed=1)
    write_evals(pytester, [entry("a", "x {{relevance=5}}")])
    judge_server.script = lambda request: __import__("judge_server").Reply(score=2)
    args = (
        "--judge-baseline=base.json",
        "-o",
        "llmjudge_gates=pass_rate=1",
        "--judge-report=r.html",
    )
    run(pytester, "evals/", "--judge-no-cache", *args).assert_outcomes(failed=1)
    text = (pytester.path / "r.html").read_text()
    assert 'id="baseline"' in text and "-3.00" in text and "regressed" in text
    assert "FAIL: pass rate" in text


def test_the_report_of_an_ab_comparison_has_its_charts(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    python = BotServer(lambda ticket: (200, {"answer": f"A to {ticket} {{{{relevance=5}}}}"}))
    dotnet = BotServer(lambda ticket: (200, {"answer": f"B to {ticket} {{{{relevance=3,4}}}}"}))
    try:
        write_evals(pytester, [{"id": f"t{i}", "ticket": f"Ticket {i}"} for i in range(3)])
        bots = "-o", f"llmjudge_targets=python={python.url} dotnet={dotnet.url}"
        run(pytester, "evals/", *bots, "--judge-runs=2", "--judge-report=ab.html")
    finally:
        python.stop()
        dotnet.stop()
    results = ResultsFile.model_validate(read_results(pytester))
    assert results.comparison is not None
    page = Page((pytester.path / "ab.html").read_text())
    text = "".join(page.text)
    assert page.count("svg") == 2 + 2  # histograms; intervals; wins, losses and ties
    assert "A/B comparison" in text and "wins, losses, ties" in text
    assert "python · relevance" in text and "dotnet · tone" in text
    assert page.count("tr") >= 1 + 3 + 1 + 3 + 1  # items, then one row per compared entry
    assert html_report(results) == (pytester.path / "ab.html").read_text()  # from the file too


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _browser(*args: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    flags = ("--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars")
    return subprocess.run(
        [CHROMIUM, *flags, *args], capture_output=True, text=True, timeout=120, check=True
    )


def _distinct_pixels(png: Path) -> int:
    """How many distinct RGB colours the (8-bit, unfiltered rows) PNG has, roughly: the
    decompressed rows of a blank page hold one or two byte values."""
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    chunks, at = b"", 8
    while at < len(data):
        size, kind = struct.unpack(">I4s", data[at : at + 8])
        if kind == b"IDAT":
            chunks += data[at + 8 : at + 8 + size]
        at += 12 + size
    return len(set(zlib.decompress(chunks)))


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium: apt-get install -y chromium")
def test_the_report_in_a_real_browser(pytester: pytest.Pytester, judge_server: JudgeServer) -> None:
    _suite(pytester)
    run(pytester, "evals/", "--judge-runs=3", "--judge-report=report.html").assert_outcomes(
        passed=2, failed=1
    )
    url = (pytester.path / "report.html").as_uri()
    dom = _browser("--virtual-time-budget=3000", "--dump-dom", url).stdout
    page = Page(dom)
    assert len(page.rows) == 3 and not any("hidden" in r for r in page.rows)
    assert "3 of 3 shown" in dom
    # the script filters (here from the address): only the failed item stays visible
    filtered = Page(
        _browser("--virtual-time-budget=3000", "--dump-dom", f"{url}#outcome=failed").stdout
    )
    assert [r["data-outcome"] for r in filtered.rows if "hidden" not in r] == ["failed"]
    searched = _browser("--virtual-time-budget=3000", "--dump-dom", f"{url}#q=shaky").stdout
    assert "1 of 3 shown" in searched
    # sorted from the address: by id descending, and by relevance with the worst first
    for order, first_ids in (("-item", ["shaky", "fine", "evil"]), ("relevance", ["evil"])):
        page = Page(
            _browser("--virtual-time-budget=3000", "--dump-dom", f"{url}#sort={order}").stdout
        )
        ids = [
            str(row["data-text"]).split()[0] for row in page.rows
        ]  # data-text starts with the id
        assert ids[: len(first_ids)] == first_ids and sorted(ids) == ["evil", "fine", "shaky"]
        direction = "descending" if order.startswith("-") else "ascending"
        assert ("th", direction) in [(tag, found.get("aria-sort")) for tag, found in page.tags]
    # the hostile response is shown as text after the page's script ran, never as markup
    rendered = Page(dom)
    assert rendered.scripts and not any("alert(" in script for script in rendered.scripts)
    assert not any("onerror" in attributes for _, attributes in rendered.tags)
    assert any(EVIL.split(" <img")[0] in text for text in rendered.text)
    shot = pytester.path / "report.png"
    _browser("--window-size=1200,1400", f"--screenshot={shot}", url)
    assert shot.stat().st_size > 10_000 and _distinct_pixels(shot) > 50
    assert read_results(pytester)["summary"]["total"] == 3


def test_the_verdict_the_thresholds_held_to_and_why_items_failed(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(
        pytester,
        [
            entry("fine", "x {{relevance=5}}"),
            entry("strict", "x {{relevance=4,4,3}}", ticket="t2", thresholds={"relevance": 4.5}),
            entry("weak", "x {{tone=2}}", ticket="t3"),
        ],
    )
    run(pytester, "evals/", "--judge-runs=3", "--judge-report=r.html").assert_outcomes(
        passed=1, failed=2
    )
    text = (pytester.path / "r.html").read_text()
    page = Page(text)
    shown = "".join(page.text)
    # the verdict first: failed, how many, and each failure's sentence with its threshold
    assert shown.index("FAILED: 2 of 3 eval items failed") < shown.index("openai gpt-4o-mini")
    assert "strict relevance 3.67 < 4.5 (runs 4, 4, 3)" in shown
    assert "weak tone 2.00 < 3.5 (runs 2, 2, 2)" in shown
    assert "pass: 3 eval items judged" not in shown  # no green line on a red run
    # in the table: the threshold each dimension was held to (the entry's own marked), and
    # in the opened row the verdict of each dimension against it
    assert '<span class="own" title="set by the entry">threshold 4.5</span>' in text
    assert "relevance 3.67: below its threshold 4.5" in shown
    assert "relevance 5.00: met its threshold 3.5" in shown
    # the failed item of mean 3.67 sits in the 3.5-4 bin as below its threshold, not green
    assert "3.5-4: 1 items below their threshold" in shown
    assert "threshold 3.5 (1 item has its own)" in shown
    passed = run(pytester, "evals/", "--judge-runs=3", "-k", "fine", "--judge-report=ok.html")
    passed.assert_outcomes(passed=1, deselected=2)
    assert "PASSED: 1 eval item, 1 passed" in "".join(
        Page((pytester.path / "ok.html").read_text()).text
    )


def test_cards_say_where_judgments_came_from(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, [entry("a"), entry("b", ticket="t2")])
    args = ("evals/", "--judge-runs=3", "-o", "llmjudge_cache=cache", "--judge-report=r.html")
    run(pytester, *args).assert_outcomes(passed=2)
    run(pytester, *args).assert_outcomes(passed=2)
    text = (pytester.path / "r.html").read_text()
    assert read_results(pytester)["meta"]["calls"] == 0
    assert (
        '<div class="value">12</div><div class="sub">0 requests made, 12 runs from the cache'
        in text
    )
    assert '<div class="value">0</div><div class="sub">no request made</div>' in text
    assert '<div class="label">cost</div>' not in text  # a local server: tokens only
    pytester.makeini("[pytest]\nllmjudge_prices =\n    gpt-4o-mini=0.15,0.6\n")
    run(pytester, *args).assert_outcomes(passed=2)  # a price the user gave: a cost
    text = (pytester.path / "r.html").read_text()
    assert '<div class="value">$0</div><div class="sub">every run from the cache</div>' in text


def _ab_report(pytester: pytest.Pytester, name: str = "ab.html", entries: int = 4) -> Path:
    """An A/B run of long target names, an entry's own threshold, failures, the answers also
    compared side by side (the widest table: nine columns): a full page."""
    fast = BotServer(lambda t: (200, {"answer": f"A to {t} {{{{relevance=5,4,5 tone=5}}}}"}))
    slow = BotServer(lambda t: (200, {"answer": f"B to {t} {{{{relevance=3,4,3 tone=4}}}}"}))
    try:
        tickets: list[dict[str, object]] = [
            {"id": f"t{i}", "ticket": f"Ticket {i}"} for i in range(entries)
        ]
        tickets[0]["thresholds"] = {"relevance": 4.5}
        write_evals(pytester, tickets)
        targets = f"python-service-v2={fast.url} dotnet-legacy-service={slow.url} pairwise=true"
        bots = ("-o", f"llmjudge_targets={targets}")
        run(pytester, "evals/", *bots, "--judge-runs=3", f"--judge-report={name}")
    finally:
        fast.stop()
        slow.stop()
    return pytester.path / name


def test_an_ab_report_has_the_target_as_a_column_and_a_filter(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    page = Page(_ab_report(pytester).read_text())
    head = [
        found.get("data-key") for tag, found in page.tags if tag == "th" and "data-key" in found
    ]
    assert head[:3] == ["item", "target", "outcome"]
    assert ("select", {"id": "target"}) in page.tags
    targets = [row["data-target"] for row in page.rows]
    # each entry's rows side by side, in the configured order of the targets
    assert targets[:2] == ["python-service-v2", "dotnet-legacy-service"]
    assert all("dotnet-legacy-service" in str(r["data-text"]) for r in page.rows[1::2])
    shown = "".join(page.text)
    assert "t0 (dotnet-legacy-service) relevance 3.33 < 4.5" in shown  # the banner names it


# A page holding the probed report in a frame of a given width; it copies what the probe found
# (the data- attributes of the report's body).
FRAME = """<html><body style="margin:0"><iframe id="f" src="{src}"
style="width:{width}px;height:1400px;border:0"></iframe><script>
document.getElementById('f').addEventListener('load', function(){{
  Array.prototype.forEach.call(this.contentDocument.body.attributes, function(a){{
    if (a.name.indexOf('data-') === 0) document.body.setAttribute(a.name, a.value); }});
}});</script></body></html>"""


def _probed(pytester: pytest.Pytester, report: Path, probe: str, width: int) -> dict[str, str]:
    """The body attributes ``probe`` set in ``report`` shown in a frame ``width`` px wide.

    Headless Chromium keeps a window at least 500 px wide: the report is measured in a frame
    of exactly the width, whose viewport its media queries and the probe see."""
    probed = pytester.path / f"probed-{report.stem}.html"
    probed.write_text(report.read_text().replace("</body>", probe))
    framed = pytester.path / f"frame-{report.stem}-{width}.html"
    framed.write_text(FRAME.format(width=width, src=probed.name))
    dom = _browser(
        "--window-size=1700,1400", "--allow-file-access-from-files",
        "--virtual-time-budget=4000", "--dump-dom", framed.as_uri(),
    ).stdout  # fmt: skip
    body = next(found for tag, found in Page(dom).tags if tag == "body")
    assert body.get("data-width") == str(width), body
    return {name: str(value) for name, value in body.items()}


# Run in the page by the layout test: text of a chart that overlaps other text or a bar, and
# whether the page is wider than the window.
LAYOUT_PROBE = """<script>
window.addEventListener('load', function(){
  function hits(a, b){ return a.left < b.right - 0.5 && b.left < a.right - 0.5 &&
    a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5; }
  var found = [];
  document.querySelectorAll('svg').forEach(function(svg){
    var frame = svg.getBoundingClientRect();
    svg.querySelectorAll('text').forEach(function(t){ var box = t.getBoundingClientRect();
      if (box.left < frame.left - 0.5 || box.right > frame.right + 0.5)
        found.push(t.textContent + ' | past the chart edge'); });
    var texts = Array.prototype.slice.call(svg.querySelectorAll('text'));
    var bars = Array.prototype.slice.call(svg.querySelectorAll('rect'));
    texts.forEach(function(t, i){ var box = t.getBoundingClientRect();
      texts.slice(i + 1).forEach(function(u){ if (hits(box, u.getBoundingClientRect()))
        found.push(t.textContent + ' | ' + u.textContent); });
      bars.forEach(function(r){
        if (hits(box, r.getBoundingClientRect())) found.push(t.textContent + ' | a bar'); }); });
  });
  document.body.setAttribute('data-overlaps', found.join(' ;; ') || 'none');
  document.body.setAttribute('data-too-wide',
    String(document.documentElement.scrollWidth > window.innerWidth));
  // a header past the window's edge is cut unless the box its table scrolls in reaches it
  var cut = [];
  document.querySelectorAll('th').forEach(function(th){ var box = th.getBoundingClientRect();
    var holder = th.closest('.scroll'), left = 0, right = window.innerWidth;
    if (holder) { var frame = holder.getBoundingClientRect();
      left = frame.left - holder.scrollLeft; right = left + holder.scrollWidth; }
    if (box.width < 1 || box.left < left - 0.5 || box.right > right + 0.5 ||
        th.scrollWidth > th.clientWidth + 1) cut.push(th.textContent.trim()); });
  document.body.setAttribute('data-headers-cut', cut.join(' | ') || 'none');
  document.body.setAttribute('data-width', String(window.innerWidth));
});
</script></body>"""


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium: apt-get install -y chromium")
def test_no_label_overlaps_and_every_header_shows_from_a_phone_to_a_desktop(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    report = _ab_report(pytester)  # the widest tables: a target column, the pairwise one
    for width in (400, 800, 1280, 1600):
        body = _probed(pytester, report, LAYOUT_PROBE, width)
        assert body["data-overlaps"] == "none", (width, body["data-overlaps"])
        assert body["data-too-wide"] == "false", width
        assert body["data-headers-cut"] == "none", (width, body["data-headers-cut"])
        shot = pytester.path / f"ab-{width}.png"  # looked at by a person: see the closing note
        _browser(f"--window-size={width},1400", f"--screenshot={shot}", report.as_uri())
        assert _distinct_pixels(shot) > 50


# Run in the page: types a search into the filter, then counts the item rows that take up room
# on the page; ``data-says`` is the page's own count ("2 of 22 shown").
FILTER_PROBE = """<script>
window.addEventListener('load', function(){
  var search = document.getElementById('search');
  search.value = '%s';
  search.dispatchEvent(new Event('input'));
  var seen = 0;
  document.querySelectorAll('#item-table tbody tr').forEach(function(r){
    var box = r.getBoundingClientRect(); if (box.width > 0 && box.height > 0) seen++; });
  document.body.setAttribute('data-seen', String(seen));
  document.body.setAttribute('data-says', document.getElementById('shown').textContent);
  document.body.setAttribute('data-width', String(window.innerWidth));
});
</script></body>"""


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium: apt-get install -y chromium")
def test_the_filter_hides_rows_on_a_phone_and_a_desktop(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    report = _ab_report(pytester, entries=11)  # 22 rows: each entry for both targets
    rows = Page(report.read_text()).rows
    assert len(rows) == 22
    matching = [r for r in rows if "t3" in str(r["data-text"]).split()]  # t3 of each target
    assert len(matching) == 2
    for width in (390, 1280):
        body = _probed(pytester, report, FILTER_PROBE % "t3", width)
        assert (body["data-says"], body["data-seen"]) == ("2 of 22 shown", "2"), width


# Run in the page: each word of every table's text (a word ends at a space or after a hyphen,
# where lines may break) that the browser laid out on more than one line; whether a table is
# wider than the window and its box does not scroll to show the rest.
WORDS_PROBE = """<script>
window.addEventListener('load', function(){
  var broken = [], cut = [];
  document.querySelectorAll('table').forEach(function(table, n){
    var walk = document.createTreeWalker(table, NodeFilter.SHOW_TEXT), node;
    while ((node = walk.nextNode())) {
      var word = /[^\\s-]+-?/g, found;
      while ((found = word.exec(node.data))) {
        var range = document.createRange();
        range.setStart(node, found.index);
        range.setEnd(node, found.index + found[0].length);
        var lines = {};
        Array.prototype.forEach.call(range.getClientRects(), function(r){
          if (r.width > 0) lines[Math.round(r.top)] = true; });
        if (Object.keys(lines).length > 1) broken.push(found[0]);
      }
    }
    var box = table.getBoundingClientRect(), holder = table.parentElement;
    if (box.width > 0 && box.right > window.innerWidth + 0.5 &&
        getComputedStyle(holder).overflowX !== 'auto') cut.push('table ' + n);
  });
  document.body.setAttribute('data-broken', broken.join(' | ') || 'none');
  document.body.setAttribute('data-cut', cut.join(' | ') || 'none');
  document.body.setAttribute('data-too-wide',
    String(document.documentElement.scrollWidth > window.innerWidth));
  document.body.setAttribute('data-width', String(window.innerWidth));
});
</script></body>"""


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium: apt-get install -y chromium")
def test_tables_wrap_at_word_boundaries_on_a_phone_and_a_desktop(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    report = _ab_report(pytester)
    text = report.read_text()
    assert "<th>first-shown won</th>" in text  # the pairwise table, nine columns
    for width in (390, 1280):
        body = _probed(pytester, report, WORDS_PROBE, width)
        assert body["data-broken"] == "none", (width, body["data-broken"])
        assert body["data-cut"] == "none", (width, body["data-cut"])
        assert body["data-too-wide"] == "false", width

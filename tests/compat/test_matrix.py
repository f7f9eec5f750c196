"""The compatibility matrix: eval items under the pytest plugins teams run beside this one,
each alone and in the combinations a CI uses, each session a pytest process of its own with
only the plugins its row names (``PYTEST_DISABLE_PLUGIN_AUTOLOAD=1`` and ``-p``).

For every row: pytest's outcome counts equal the results file's, every item is judged once
per attempt, the judge server answered as many requests as the results count, no traceback or
INTERNALERROR, and the other plugin's own output is right for eval items. A row whose plugin
is not installed is skipped with its reason: the plugins live in their own venv
(tests/compat/constraints.txt, installed by .ci/run), where the matrix is printed
(conftest.py).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from helpers import write_evals
from judge_server import JudgeServer

# The matrix is CI's compatibility step (.ci/run), with every plugin pinned and none loading
# itself; the main suite, where some of them are installed, leaves it to that step.
pytestmark = pytest.mark.skipif(
    not os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"),
    reason="the compatibility matrix runs in .ci/run's compatibility step",
)

# module to find, -p name: the plugin as its entry point names it
PLUGINS = {
    "xdist": ("xdist", "xdist"),
    "randomly": ("pytest_randomly", "randomly"),
    "timeout": ("pytest_timeout", "timeout"),
    "cov": ("pytest_cov", "pytest_cov"),
    "html": ("pytest_html", "html"),
    "sugar": ("pytest_sugar", "sugar"),
    "allure": ("allure_pytest", "allure_pytest"),
    "json-report": ("pytest_jsonreport", "pytest_jsonreport"),
    "annotate": (
        "pytest_github_actions_annotate_failures",
        "pytest_github_actions_annotate_failures",
    ),
    "rerunfailures": ("pytest_rerunfailures", "rerunfailures"),
    "repeat": ("pytest_repeat", "repeat"),
    "split": ("pytest_split", "pytest-split"),
    "instafail": ("pytest_instafail", "instafail"),
    "testmon": ("testmon", "pytest-testmon"),
    "md-report": ("pytest_md_report", "pytest-md-report"),
}
# what each plugin is given to do its work in a session (its report's file, its mode)
FLAGS: dict[str, list[str]] = {
    "xdist": ["-n", "2"],
    "timeout": ["--timeout=120"],
    "cov": ["--cov=.", "--cov-report=term"],
    "html": ["--html=report.html"],
    "sugar": ["--force-sugar", "-v"],  # (else only on a terminal)
    "allure": ["--alluredir=allure-results"],
    "json-report": ["--json-report", "--json-report-file=report.json"],
    "rerunfailures": ["--reruns=1"],
    "repeat": ["--count=2"],
    "split": ["--splits=1", "--group=1"],
    "instafail": ["--instafail"],
    "testmon": ["--testmon"],
    "md-report": ["--md-report", "--md-report-output=report.md"],
}
EXTRA_PLUGINS = {"html": ["metadata"], "sugar": [], "xdist": []}  # what a plugin needs loaded

EVALS = [
    {"id": "good", "ticket": "Maven build fails with OOM", "response": "Raise the heap."},
    {"id": "bad", "ticket": "Maven build fails with OOM", "response": "Reboot. {{relevance=2}}"},
]
HAND_WRITTEN = """
def test_hand(llmjudge):
    judgment = llmjudge.relevance(ticket="Where is my refund?", response="Sent on Monday.")
    assert judgment.score >= 3
"""
# pytest's own counts, as its terminal reporter holds them (whatever a plugin prints)
COUNTS = "pytest-counts.json"
COUNTS_CONFTEST = f"""
import json
def pytest_terminal_summary(terminalreporter):
    stats = terminalreporter.stats
    # each report once (pytest-sugar files a report again), passes and failures of the call
    counts = {{
        key: len({{id(r): r for r in stats.get(key, [])
                  if key not in ("passed", "failed") or r.when == "call"}})
        for key in ("passed", "failed", "error", "skipped", "rerun")
    }}
    with open("{COUNTS}", "w") as handle:
        json.dump(counts, handle)
"""


@dataclass
class Session:
    """One pytest process of a row: what it printed, its results and pytest's counts (read
    as it ends: the row's next session may write them anew)."""

    path: Path
    returncode: int
    output: str
    results: dict[str, Any]
    counts: dict[str, int]


def _read(path: Path) -> Any:
    return json.loads(path.read_text()) if path.exists() else {}


@dataclass
class Row:
    name: str
    plugins: list[str]
    flags: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)

    @property
    def missing(self) -> list[str]:
        return [p for p in self.plugins if importlib.util.find_spec(PLUGINS[p][0]) is None]

    def args(self) -> list[str]:
        # no judge cache: every attempt is a request, which the server counts
        args = ["-p", "llmjudge", "--judge-no-cache"]
        for plugin in self.plugins:
            args += ["-p", PLUGINS[plugin][1]]
            for extra in EXTRA_PLUGINS.get(plugin, []):
                args += ["-p", extra]
        if "randomly" not in self.plugins:
            args += ["-p", "no:randomly"]
        return args + self.flags


def _row(name: str, plugins: Sequence[str], *flags: str, **env: str) -> Row:
    every = [flag for plugin in plugins for flag in FLAGS.get(plugin, [])]
    return Row(name, list(plugins), every + list(flags), env)


CI = ["xdist", "randomly", "timeout", "cov", "html", "rerunfailures"]
ROWS = [
    *(_row(name, [name]) for name in PLUGINS if name not in ("split", "annotate")),
    _row("split", ["split"]),
    _row("annotate", ["annotate"], GITHUB_ACTIONS="true"),
    _row("junitxml", [], "--junitxml=junit.xml"),
    _row("ci", CI, "--junitxml=junit.xml"),
    _row("split+xdist+merge", ["split", "xdist"]),
    _row("all", list(PLUGINS), "--junitxml=junit.xml", GITHUB_ACTIONS="true"),
]


def _session(
    pytester: pytest.Pytester, row: Row, *more: str, results: str = "results/output.json"
) -> Session:
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", **row.env}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # each row's process compiles once
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", *row.args(), *more],
        cwd=pytester.path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    output = proc.stdout + proc.stderr
    where = pytester.path
    return Session(where, proc.returncode, output, _read(where / results), _read(where / COUNTS))


@dataclass
class Checked:
    """A row's findings, for its assertion and the printed matrix."""

    works: list[str] = field(default_factory=list)
    counts: list[str] = field(default_factory=list)
    output: list[str] = field(default_factory=list)
    numbers: str = ""  # outcomes and requests, as the results count them

    def check(self, column: list[str], ok: bool, what: str) -> None:
        if not ok:
            column.append(what)


def _works(checked: Checked, session: Session, exits: tuple[int, ...] = (1,)) -> None:
    """It ran as pytest runs: 1 (the bad answer failed), no traceback, no INTERNALERROR."""
    ok = session.returncode in exits
    checked.check(checked.works, ok, f"exit {session.returncode}, not {exits}")
    for word in ("Traceback", "INTERNALERROR"):
        checked.check(checked.works, word not in session.output, f"{word} in the output")


def _counts(checked: Checked, sessions: list[Session], requests: int) -> None:
    """pytest's counts are the results file's; each item judged once per attempt; every
    request the server answered is in the results."""
    calls = attempts = 0
    for session in sessions:
        results, pytest_counts = session.results, session.counts
        if not results or not pytest_counts:
            checked.check(checked.counts, False, "no results file or no pytest counts")
            continue
        summary = results["summary"]
        ours = {k: summary[k] for k in ("passed", "failed", "errors", "skipped")}
        theirs = {k: pytest_counts[k] for k in ("passed", "failed", "skipped")}
        theirs["errors"] = pytest_counts["error"]
        checked.check(checked.counts, ours == theirs, f"pytest {theirs} != results {ours}")
        rerun = sum(r["attempt"] - 1 for r in results["results"])
        checked.check(
            checked.counts, rerun == pytest_counts["rerun"], f"reruns: {rerun} in the results"
        )
        calls += results["meta"]["calls"]
        # runs=1: one request per dimension and attempt
        attempts += sum(r["attempt"] * len(_dimensions(r)) for r in results["results"])
    outcomes = [s.results.get("summary", {}) for s in sessions]
    passed, failed = (sum(o.get(k, 0) for o in outcomes) for k in ("passed", "failed"))
    checked.numbers = f"{passed} passed {failed} failed, {requests} requests"
    checked.check(checked.counts, calls == requests, f"{calls} calls, server {requests}")
    checked.check(checked.counts, attempts == requests, f"{attempts} judged, server {requests}")


def _dimensions(row: dict[str, Any]) -> list[str]:
    return [k for k in ("relevance", "tone") if isinstance(row.get(k), dict)]


OutputCheck = Callable[[Checked, Session], None]


def _own_output(checked: Checked, session: Session, row: Row) -> None:
    plugins = [*row.plugins, *(["junitxml"] if "--junitxml=junit.xml" in row.flags else [])]
    if "instafail" in plugins:  # its terminal reporter replaces pytest-sugar's (any test's)
        plugins = [plugin for plugin in plugins if plugin != "sugar"]
    for plugin in plugins:
        check = OWN_OUTPUT.get(plugin)
        if check is not None:
            check(checked, session)


def _say(checked: Checked, ok: bool, what: str) -> None:
    checked.check(checked.output, ok, what)


def _xdist(checked: Checked, session: Session) -> None:
    _say(checked, "created: 2/2 workers" in session.output, "xdist: not 2 workers")


def _randomly(checked: Checked, session: Session) -> None:
    _say(checked, "--randomly-seed=" in session.output, "randomly: no seed in the header")


def _timeout(checked: Checked, session: Session) -> None:
    _say(checked, "timeout: 120.0s" in session.output, "timeout: not in the header")


def _cov(checked: Checked, session: Session) -> None:
    _say(checked, "test_hand.py" in session.output, "cov: test_hand.py not in its report")


def _html(checked: Checked, session: Session) -> None:
    report = session.path / "report.html"
    text = report.read_text() if report.exists() else ""
    ok = all(f"evals/e.json::{name}" in text for name in ("good", "bad"))
    _say(checked, ok and "relevance" in text, "html: eval items or their scores missing")


def _sugar(checked: Checked, session: Session) -> None:
    listed = "evals/e.json" in session.output and "✓" in session.output
    _say(checked, listed, "sugar: eval items not listed")


def _allure(checked: Checked, session: Session) -> None:
    folder = session.path / "allure-results"
    found = [json.loads(p.read_text()) for p in folder.glob("*-result.json")]
    # (a rerun attempt is a result of its own: allure shows it among the retries)
    names = sorted({r["name"] for r in found if r.get("fullName", "").startswith("evals.e#")})
    _say(checked, names == ["bad", "good"], f"allure: eval results {names}")


def _json_report(checked: Checked, session: Session) -> None:
    report = json.loads((session.path / "report.json").read_text())
    tests = {t["nodeid"]: t for t in report["tests"]}
    bad = tests.get("evals/e.json::bad", {})
    properties = {k: v for p in bad.get("user_properties", []) for k, v in p.items()}
    _say(checked, bad.get("outcome") == "failed", "json-report: bad is not failed")
    _say(checked, properties.get("llmjudge.relevance.score") == 2.0, "json-report: no scores")


def _annotate(checked: Checked, session: Session) -> None:
    _say(checked, "::error file=" in session.output, "annotate: no annotation")


def _rerunfailures(checked: Checked, session: Session) -> None:
    bad = {r["id"]: r for r in session.results.get("results", [])}["bad"]
    _say(checked, bad["attempt"] == 2, "rerunfailures: bad not rerun once")


def _repeat(checked: Checked, session: Session) -> None:
    hand = [r for r in session.results.get("results", []) if r["id"].startswith("test_hand")]
    _say(checked, len(hand) == 2, f"repeat: test_hand ran {len(hand)} times, not 2")
    said = "--count 2 does not repeat eval items" in session.output
    _say(checked, said, "repeat: not said that eval items are not repeated")


def _split(checked: Checked, session: Session) -> None:
    _say(checked, "[pytest-split]" in session.output, "split: no group line")


def _instafail(checked: Checked, session: Session) -> None:
    before = session.output.split("short test summary")[0]
    _say(checked, "relevance 2.00 < 3.5" in before, "instafail: the failure not shown at once")


def _testmon(checked: Checked, session: Session) -> None:
    _say(checked, "testmon:" in session.output, "testmon: no header line")


def _md_report(checked: Checked, session: Session) -> None:
    report = session.path / "report.md"
    text = report.read_text() if report.exists() else ""
    _say(checked, "e.json" in text and "test_hand.py" in text, "md-report: items missing")


def _junitxml(checked: Checked, session: Session) -> None:
    root = ET.parse(session.path / "junit.xml").getroot()
    names = {p.get("name") for p in root.iter("property")}
    _say(checked, "llmjudge.relevance.score" in names, "junitxml: no judge properties")


OWN_OUTPUT: dict[str, OutputCheck] = {
    "xdist": _xdist,
    "randomly": _randomly,
    "timeout": _timeout,
    "cov": _cov,
    "html": _html,
    "sugar": _sugar,
    "allure": _allure,
    "json-report": _json_report,
    "annotate": _annotate,
    "rerunfailures": _rerunfailures,
    "repeat": _repeat,
    "split": _split,
    "instafail": _instafail,
    "testmon": _testmon,
    "md-report": _md_report,
    "junitxml": _junitxml,
}


def _project(pytester: pytest.Pytester) -> None:
    write_evals(pytester, EVALS, name="e.json")
    pytester.makepyfile(test_hand=HAND_WRITTEN)
    pytester.makeconftest(COUNTS_CONFTEST)


@pytest.mark.parametrize("row", ROWS, ids=[row.name for row in ROWS])
def test_row(
    pytester: pytest.Pytester, judge_server: JudgeServer, row: Row, matrix: Path | None
) -> None:
    if row.missing:
        pytest.skip(f"not installed: {', '.join(row.missing)} (tests/compat/constraints.txt)")
    _project(pytester)
    checked = Checked()
    if row.name == "split+xdist+merge":
        sessions = _split_and_merge(pytester, row, checked)
    else:
        sessions = [_checked_session(pytester, row, checked)]
        if row.name == "testmon":  # again, nothing changed: only the failed item is run
            again = _session(pytester, row, "evals/", "test_hand.py")
            ran = again.counts.get("passed", 0) + again.counts.get("failed", 0)
            _say(checked, ran == 1, f"testmon: a second run ran {ran} items, not the failed one")
            sessions.append(again)
            said = "cannot see the judge's configuration" in again.output
            _say(checked, said, "testmon: the header does not say what it cannot see")
    _counts(checked, sessions, judge_server.count())
    if matrix is not None:
        found = {"plugins": row.plugins, **checked.__dict__}
        (matrix / f"{row.name}.json").write_text(json.dumps(found))
    assert checked.works == checked.counts == checked.output == [], checked


def _checked_session(
    pytester: pytest.Pytester, row: Row, checked: Checked, *more: str, **results: str
) -> Session:
    """A session of the row, checked as it ended: it works, and the other plugins' output."""
    session = _session(pytester, row, *more, "evals/", "test_hand.py", **results)
    _works(checked, session, (0, 1, 5) if "split" in row.plugins else (1,))
    _own_output(checked, session, row)
    return session


def _split_and_merge(pytester: pytest.Pytester, row: Row, checked: Checked) -> list[Session]:
    """Four groups of the three items (so one is empty), each writing its own results file,
    then merged as CI merges them: every file named."""
    flags = [f for f in row.flags if not f.startswith(("--splits", "--group"))]
    shards = []
    for group in (1, 2, 3, 4):
        output = f"results/shard-{group}.json"
        split = ["--splits=4", f"--group={group}", f"--judge-output={output}"]
        shard = Row(row.name, row.plugins, [*flags, *split])
        shards.append(_checked_session(pytester, shard, checked, results=output))
    merged = subprocess.run(
        [sys.executable, "-m", "pytest_llmjudge", "merge", "-o", "results/merged.json",
         *(f"results/shard-{group}.json" for group in (1, 2, 3, 4))],
        cwd=pytester.path, capture_output=True, text=True, check=False,
    )  # fmt: skip
    _say(checked, merged.returncode == 1, f"merge: exit {merged.returncode} {merged.stderr}")
    if (pytester.path / "results" / "merged.json").exists():
        summary = json.loads((pytester.path / "results" / "merged.json").read_text())["summary"]
        found = (summary["passed"], summary["failed"])
        _say(checked, found == (2, 1), f"merge: {found} passed, failed")
    exits = sorted(shard.returncode for shard in shards)
    _say(checked, 5 in exits, f"split: no empty group (exits {exits})")
    return shards


# Each plugin's own output for eval items, in the words.
OUTPUT_ROWS = [
    _row("allure-status", ["allure"]),
    _row("html-sortable", ["html"]),
    _row("sugar-scores", ["sugar"]),
    _row("annotate-once", ["annotate"], GITHUB_ACTIONS="true"),
]


@pytest.mark.parametrize("row", OUTPUT_ROWS, ids=[row.name for row in OUTPUT_ROWS])
def test_own_output(pytester: pytest.Pytester, judge_server: JudgeServer, row: Row) -> None:
    if row.missing:
        pytest.skip(f"not installed: {', '.join(row.missing)} (tests/compat/constraints.txt)")
    _project(pytester)
    session = _session(pytester, row, "evals/", "test_hand.py")
    if row.name == "allure-status":  # a failed eval is failed, not broken
        found = [
            json.loads(p.read_text())
            for p in (pytester.path / "allure-results").glob("*-result.json")
        ]
        status = {r["name"]: r["status"] for r in found}
        assert (status["bad"], status["good"]) == ("failed", "passed")
    elif row.name == "html-sortable":  # the score columns sort as pytest-html's own
        text = (pytester.path / "report.html").read_text()
        header = text.split("llmjudge-relevance")[0].rsplit("<th", 1)[1]
        assert "sortable" in header
    elif row.name == "sugar-scores":  # -v keeps the scores
        lines = session.output.splitlines()
        line = next(s for s in lines if "e.json::bad" in s and not s.startswith("FAILED"))
        assert "relevance 2" in line
    else:  # one annotation per failing eval
        errors = [line for line in session.output.splitlines() if line.startswith("::error")]
        assert len(errors) == 1, errors

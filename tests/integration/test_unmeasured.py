"""Nothing unmeasured is green (issue 56): broken, empty, lost and deleted evals turn the
session red, or are named, in every report; the plugin never collects its own outputs; the
reports say what the terminal says; a secret in a ticket reaches no artifact."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import by_id, entry, read_results, run, run_subprocess, write_evals
from judge_server import JudgeServer

BROKEN = [
    entry("ok-1"),
    entry("typo", checks=[{"contians": "heap"}]),
    entry("dimension", thresholds={"relevence": 4}),
    {"id": "no-ticket", "response": "Raise the heap."},
    entry("wrong-type", runs="three"),
    entry("blank", response="   "),  # a stored empty answer: invalid, so red and named
]
INVALID = ["typo", "dimension", "no-ticket", "wrong-type", "blank"]


def _merge(cwd: Path, *paths: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest_llmjudge", "merge", *paths, "-o", "merged.json"],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_invalid_entries_end_the_session_red_and_are_named_in_every_report(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_evals(pytester, BROKEN)
    summary = pytester.path / "step-summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    reports = ("--judge-report=results/report.md", "--judge-report=results/report.html")
    result = run(pytester, "evals/", *reports)
    assert result.ret == 1  # whatever else passed
    result.assert_outcomes(passed=1, errors=len(INVALID))
    data = read_results(pytester)
    lines = {e["id"]: e["line"] for e in data["skipped"]}
    # the original harness's list: FILE:LINE (id): cause
    assert [e["id"] for e in data["skipped"]] == INVALID
    for e in data["skipped"]:
        assert e["reason"].startswith(f"evals/support.json:{lines[e['id']]} ({e['id']}): ")
    assert "'response' must be a non-empty string" in data["skipped"][-1]["reason"]
    assert [e["id"] for e in data["invalid"]] == INVALID
    assert (data["summary"]["invalid"], data["summary"]["skipped"]) == (5, 0)
    assert data["meta"]["exit_status"] == 1
    stdout = result.stdout.str()
    markdown = (pytester.path / "results/report.md").read_text()
    html = (pytester.path / "results/report.html").read_text()
    step = summary.read_text()
    for name in INVALID:
        place = f"evals/support.json:{lines[name]} ({name})"
        assert place in stdout and place in markdown and place in html and place in step
        assert f"::error file=evals/support.json,line={lines[name]}," in stdout
    assert path.exists()


def test_an_invalid_entry_marked_skip_is_left_out_and_the_session_stays_green(
    pytester: pytest.Pytester,
) -> None:
    write_evals(pytester, [entry("ok-1"), entry("later", response="", marks=["skip"])])
    result = run(pytester, "evals/")
    assert result.ret == 0
    result.assert_outcomes(passed=1, skipped=1)
    data = read_results(pytester)
    assert [e["id"] for e in data["skipped"]] == ["later"] and data["invalid"] == []
    assert (data["summary"]["skipped"], data["summary"]["invalid"]) == (1, 0)


def test_a_live_bots_empty_answer_stays_an_error_of_its_item(pytester: pytest.Pytester) -> None:
    pytester.makeconftest("""
import pytest

@pytest.fixture
def llmjudge_response():
    return "  "  # what a bot answered
""")
    write_evals(pytester, [entry("asked")])
    result = run(pytester, "evals/")
    assert result.ret == 1
    result.assert_outcomes(errors=1)
    data = read_results(pytester)
    assert by_id(data)["asked"]["outcome"] == "error" and data["invalid"] == []
    assert "llmjudge_response must be a non-empty string" in by_id(data)["asked"]["error"]


def test_strict_entries_is_retired_naming_what_replaced_it(pytester: pytest.Pytester) -> None:
    write_evals(pytester, [entry("ok-1")])
    result = run(pytester, "evals/", "-o", "llmjudge_strict=entries")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*llmjudge_strict 'entries' was removed: an invalid entry always ends the session red*"]
    )
    assert run(pytester, "evals/", "-o", "llmjudge_strict=injection").ret == 0


CRASH = """
import os, time

def pytest_runtest_setup(item):
    if item.name == "lost" and os.environ.get("PYTEST_XDIST_WORKER"):
        os._exit(1)  # as a segfault or an OOM kill ends a worker


def pytest_runtest_call(item):
    if item.name == "slow":
        time.sleep(60)
"""


@pytest.mark.parametrize("how", ["worker killed", "thread-method timeout"])
def test_an_item_lost_under_xdist_is_an_error_row_and_the_results_are_incomplete(
    pytester: pytest.Pytester, how: str
) -> None:
    lost = "lost" if how == "worker killed" else "slow"
    write_evals(pytester, [entry("a"), entry(lost), entry("c")])
    pytester.makeconftest(CRASH)
    timeout = ("--timeout=3", "--timeout-method=thread") if lost == "slow" else ()
    html = "--judge-report=results/report.html"
    result = run_subprocess(pytester, "evals/", "-n", "2", html, *timeout)
    assert result.ret == 1
    data = read_results(pytester)
    rows = by_id(data)
    assert set(rows) == {"a", lost, "c"}
    assert rows[lost]["outcome"] == "error" and "crashed while running" in rows[lost]["error"]
    assert data["meta"]["complete"] is False and data["summary"]["errors"] == 1
    assert [e["id"] for e in data["errors"]] == [lost]
    report = (pytester.path / "results/report.html").read_text()
    assert "FAILED: 1 error" in report and f"evals/support.json::{lost}" in report
    result.stdout.fnmatch_lines([f"*1 eval item ended without a results row*::{lost}*"])
    merged = _merge(pytester.path, "results/output.json")
    assert merged.returncode == 1, merged.stdout + merged.stderr


def test_deselected_items_never_make_a_session_incomplete(pytester: pytest.Pytester) -> None:
    write_evals(pytester, [entry("a"), entry("b"), entry("c")])
    for args in ((), ("-n", "2")):
        result = run_subprocess(pytester, "evals/", "-k", "not b", *args)
        assert result.ret == 0
        data = read_results(pytester)
        assert set(by_id(data)) == {"a", "c"} and data["meta"]["complete"] is True
        assert _merge(pytester.path, "results/output.json").returncode == 0


def test_a_deleted_eval_is_named_against_the_baseline_in_every_report(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_evals(pytester, [entry("kept"), entry("deleted-one")])
    assert run(pytester, "evals/", "--judge-output=main.json").ret == 0
    write_evals(pytester, [entry("kept"), entry("added-one")])
    summary = pytester.path / "step-summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    reports = ("--judge-report=results/report.md", "--judge-report=results/report.html")
    result = run(pytester, "evals/", "--judge-baseline=main.json", *reports)
    assert result.ret == 0
    removed, added = "evals/support.json::deleted-one", "evals/support.json::added-one"
    baseline = read_results(pytester)["baseline"]
    assert (baseline["removed"], baseline["new"]) == ([removed], [added])
    result.stdout.fnmatch_lines(
        ["  removed since the baseline (no longer in their eval file):", f"    {removed}"]
    )
    for text in (
        (pytester.path / "results/report.md").read_text(),
        (pytester.path / "results/report.html").read_text(),
        summary.read_text(),
    ):
        assert removed in text and added in text


def test_the_plugin_never_collects_its_own_outputs_nor_names_them(
    pytester: pytest.Pytester,
) -> None:
    write_evals(pytester, [entry("a"), entry("b")])
    trace = ("-o", "llmjudge_trace=results/trace.jsonl")
    assert run(pytester, "evals/", *trace, "--judge-output=results/earlier.json").ret == 0
    assert (pytester.path / "results/trace.jsonl").read_text().count("\n") >= 2
    # the folder of outputs added to the eval folders: only the evals are collected
    pytester.makeini("[pytest]\nllmjudge_paths = evals results\n")
    result = run(pytester)
    assert result.ret == 0
    result.assert_outcomes(passed=2)
    out = result.stdout.str()
    assert "trace.jsonl" not in out and "earlier.json" not in out and "Warning" not in out


def test_a_saved_answer_file_is_never_suggested_by_the_hint(pytester: pytest.Pytester) -> None:
    write_evals(pytester, [entry("a")])
    saved = [{**entry("a"), "metadata": {"target": "python", "source": "evals/support.json::a"}}]
    write_evals(pytester, saved, name="python.json", folder="results/saved")
    write_evals(pytester, [entry("x")], name="stray.json", folder="elsewhere")
    result = run(pytester, ".")
    assert result.ret == 0
    out = result.stdout.str()
    assert "elsewhere/stray.json look like eval files" in out  # the hint, for a user's file
    assert "results/saved" not in out


def test_markdown_says_the_runs_judged_as_the_terminal_does(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, [entry("partial", "Raise the heap. {{relevance=3 tone=3 fail=500x2}}")])
    result = run(
        pytester,
        "evals/",
        "--judge-runs=3",
        "-o",
        "llmjudge_sampling=calls",
        "-o",
        "llmjudge_max_retries=0",
        "--judge-no-cache",
        "--judge-report=results/report.md",
    )
    assert result.ret == 1
    rows = by_id(read_results(pytester))
    assert rows["partial"]["relevance"]["runs"] == [3]  # one run of three was judged
    result.stdout.fnmatch_lines(["*relevance 3.00 < 3.5 (1 of 3 runs: 3)*"])
    markdown = (pytester.path / "results/report.md").read_text()
    assert "3.00 ± 0.00 (1 of 3 runs: 3; threshold 3.5)" in markdown


SECRET = "sk-proj-AbCdEf0123456789AbCdEf0123456789"


def test_a_secret_in_a_ticket_or_an_answer_reaches_no_artifact(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_evals(
        pytester,
        [
            entry("key", ticket=f"My key {SECRET} does not open the booking API"),
            entry("answer", response=f"Use {SECRET} as your key.", checks=[{"max_words": 2}]),
            entry("meta", ticket="other", metadata={"note": f"key {SECRET}", "keys": [SECRET]}),
        ],
    )
    summary = pytester.path / "step-summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = run(
        pytester,
        "evals/",
        "--judge-report=results/report.md",
        "--judge-report=results/report.html",
        "--junitxml=results/junit.xml",
        "-o",
        "llmjudge_trace=results/trace.jsonl",
    )
    assert result.ret == 1  # the answer fails its check: its detail quotes the answer
    data = read_results(pytester)
    assert "***" in by_id(data)["key"]["ticket"] and "***" in by_id(data)["answer"]["response"]
    assert by_id(data)["meta"]["metadata"] == {"note": "key ***", "keys": ["***"]}
    for name in ("output.json", "report.md", "report.html", "junit.xml", "trace.jsonl"):
        assert SECRET not in (pytester.path / "results" / name).read_text(), name
    assert SECRET not in summary.read_text()
    assert json.loads((pytester.path / "results/output.json").read_text())["meta"]["complete"]

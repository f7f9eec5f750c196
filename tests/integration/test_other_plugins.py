"""Eval items beside the plugins a CI runs, for what needs no plugin outside the test extra:
pytest-rerunfailures' mark spelling and --fail-on-flaky, pytest-html's columns, GitHub
annotations' paths, the exit status the results give; pytest-timeout's limit and its methods,
the phases' durations as pytest reports them. (Plugins outside the test extra are tested in
tests/compat/.)"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from helpers import by_id, entry, read_results, run, run_subprocess, write_evals
from judge_server import JudgeServer

FAILING = "answer {{relevance=2}}"
# a hand-written judged test that fails on its first attempt only
PASSES_ON_RERUN = """
from pathlib import Path


def test_passes_on_rerun(llmjudge):
    assert llmjudge.relevance(ticket="Maven OOM", response="answer {{relevance=5}}").score == 5
    seen = Path("attempts.txt")
    attempts = int(seen.read_text()) + 1 if seen.exists() else 1
    seen.write_text(str(attempts))
    assert attempts > 1, "fails on its first attempt only"
"""


@pytest.mark.parametrize(
    ("mark", "flag"),
    [
        ({"name": "flaky", "reruns": 2}, "--reruns 2"),
        ({"name": "flaky", "reruns_delay": 1, "only_rerun": ["AssertionError"]}, "--reruns N"),
        ({"name": "flaky_eval", "reruns": 1}, "--reruns 1"),
    ],
)
def test_rerunfailures_mark_spelling_is_an_error_naming_flaky_eval_and_reruns(
    pytester: pytest.Pytester, judge_server: JudgeServer, mark: dict[str, object], flag: str
) -> None:
    write_evals(pytester, [entry("fine"), entry("weak", FAILING, marks=[mark])])
    result = run(
        pytester, "evals/", "-W", "error", "-W", "ignore::pytest.PytestAssertRewriteWarning"
    )
    result.assert_outcomes(passed=1, errors=1)  # never an xfail
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    results = read_results(pytester)
    assert [r["id"] for r in results["results"]] == ["fine"]
    [invalid] = results["skipped"]
    assert "flaky_eval" in invalid["reason"] and flag in invalid["reason"]
    [line] = [line for line in result.stdout.lines if line.startswith("ERROR")]
    assert "weak" in line
    assert judge_server.count() == 2  # the refused entry was never judged


def test_a_flaky_mark_without_rerun_arguments_stays_a_flaky_eval(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    marks = ["flaky", {"name": "flaky", "reason": "noisy judge"}]
    write_evals(
        pytester, [entry("a", FAILING, marks=marks[:1]), entry("b", FAILING, marks=marks[1:])]
    )
    run(pytester, "evals/").assert_outcomes(xfailed=2)
    assert {r["outcome"] for r in read_results(pytester)["results"]} == {"flaky_failed"}


def test_exit_status_in_the_results_is_pytests_after_fail_on_flaky(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    pytester.makepyfile(test_judged=PASSES_ON_RERUN)
    result = run(pytester, "test_judged.py", "--reruns", "1", "--fail-on-flaky")
    assert result.ret == 7  # pytest-rerunfailures: a test passed only on a rerun
    assert read_results(pytester)["meta"]["exit_status"] == 7
    (pytester.path / "attempts.txt").unlink()
    plain = run(pytester, "test_judged.py", "--reruns", "1")
    assert plain.ret == read_results(pytester)["meta"]["exit_status"] == 0


def test_exit_status_in_the_results_counts_a_report_that_could_not_be_written(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, [entry("fine")])
    pytester.makepyfile(
        test_block="""
        import shutil
        from pathlib import Path

        def test_block():  # the report's folder becomes a file while the session runs
            shutil.rmtree("out")
            Path("out").write_text("")
        """
    )
    (pytester.path / "out").mkdir()
    result = run(pytester, "evals/", "test_block.py", "--judge-report=out/report.md")
    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert read_results(pytester)["meta"]["exit_status"] == 1


def _headers(report: Path) -> list[str]:
    return re.findall(r"<th[^>]*>[^<]*</th>", report.read_text())


def test_pytest_html_columns_only_where_evals_are_judged_and_sortable(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    run(pytester, "test_plain.py", "--html=plain.html").assert_outcomes(passed=1)
    assert not [h for h in _headers(pytester.path / "plain.html") if "llmjudge" in h]
    # the test server's scores: 2 where the answer asks for it, else 4
    write_evals(pytester, [entry("low", "answer {{relevance=2}}"), entry("high", ticket="x")])
    run(pytester, "evals/", "--html=evals.html").assert_outcomes(passed=1, failed=1)
    headers = _headers(pytester.path / "evals.html")
    assert '<th class="sortable" data-column-type="llmjudge_relevance">relevance</th>' in headers
    assert '<th class="sortable" data-column-type="llmjudge_tone">tone</th>' in headers
    # pytest-html sorts on the values it read from each row's cell of a sortable column
    blob = re.search(r'data-jsonblob="(.*?)"></div>', (pytester.path / "evals.html").read_text())
    assert blob is not None
    tests = json.loads(html.unescape(blob.group(1)))["tests"]
    sorted_on = {
        nodeid.split("::")[-1]: rows[0]["llmjudge_relevance"] for nodeid, rows in tests.items()
    }
    assert sorted_on == {"low": "2.00", "high": "4.00"}


def test_github_annotations_resolve_from_the_workspace(
    pytester: pytest.Pytester, judge_server: JudgeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_evals(pytester, [entry("weak", FAILING), {"id": "broken", "ticket": "t"}])
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_WORKSPACE", str(pytester.path.parent))  # rootdir: a subfolder
    result = run(pytester, "evals/", "-p", "no:pytest_github_actions_annotate_failures")
    annotations = [line for line in result.stdout.lines if line.startswith("::error")]
    folder = pytester.path.name
    assert [a.split(",")[0] for a in annotations] == [
        f"::error file={folder}/evals/support.json"
    ] * 2
    monkeypatch.setenv("GITHUB_WORKSPACE", str(pytester.path))  # the rootdir is the repository
    result = run(pytester, "evals/", "-p", "no:pytest_github_actions_annotate_failures")
    annotations = [line for line in result.stdout.lines if line.startswith("::error")]
    assert [a.split(",")[0] for a in annotations] == ["::error file=evals/support.json"] * 2
    assert by_id(read_results(pytester))["weak"]["outcome"] == "failed"


def test_a_timed_out_eval_says_its_cause_in_a_few_lines_without_the_plugins_frames(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, [entry("slow", "answer {{delay=3}}"), entry("fast", ticket="other")])
    result = run(pytester, "evals/", "-p", "timeout", "--timeout=1")
    result.assert_outcomes(passed=1, errors=1)
    output = result.stdout.str()
    section = output.split("ERROR at setup of slow")[1].splitlines()[1:]
    failure = section[: next(i for i, s in enumerate(section) if s.startswith(("---", "===")))]
    assert failure[0].startswith("Timeout (>1.0s) from pytest-timeout while judging")
    assert len(failure) <= 3 and "pytest_llmjudge" not in "\n".join(failure)
    # pytest-timeout's own dump of the threads stays (the judge's loop named in it)
    assert "Stack of llmjudge-loop" in output + result.stderr.str()
    row = by_id(read_results(pytester))["slow"]
    assert row["outcome"] == "error" and row["error"].startswith("Timeout (>1.0s)")


def test_judging_is_within_pytest_timeouts_default_and_out_of_func_only(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, [entry("slow", "answer {{delay=1.5}}")])
    run(pytester, "evals/", "-p", "timeout", "--timeout=1").assert_outcomes(errors=1)
    func_only = ("-p", "timeout", "--timeout=1", "-o", "timeout_func_only=true")
    run(pytester, "evals/", *func_only).assert_outcomes(passed=1)  # judging is in setup


def test_a_session_killed_by_the_thread_method_leaves_results_that_say_not_complete(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, [entry("fast", ticket="other"), entry("slow", "answer {{delay=3}}")])
    run(pytester, "evals/", "-k", "fast").assert_outcomes(passed=1)
    assert read_results(pytester)["meta"]["complete"] is True  # an earlier session's
    args = ("evals/", "-p", "timeout", "--timeout=1", "--timeout-method=thread")
    result = run_subprocess(pytester, *args)
    assert "Timeout" in result.stdout.str() + result.stderr.str()
    results = read_results(pytester)
    assert results["meta"]["complete"] is False  # written at its start, never finished
    assert results["meta"]["exit_status"] is None and results["results"] == []
    assert results["meta"]["notices"][0].startswith("the session had not ended")


def test_a_rows_duration_is_its_setup_call_and_teardown_as_pytest_reports_them(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    pytester.makeconftest("""
import json
TIMES = {}
def pytest_runtest_logreport(report):
    TIMES[report.nodeid] = TIMES.get(report.nodeid, 0.0) + report.duration
def pytest_sessionfinish(session):
    with open("phases.json", "w") as handle:
        json.dump(TIMES, handle)
""")
    write_evals(pytester, [entry("slow", "answer {{delay=0.3}}"), entry("quick", ticket="T")])
    run(pytester, "evals/").assert_outcomes(passed=2)
    phases = json.loads((pytester.path / "phases.json").read_text())
    for row in read_results(pytester)["results"]:
        assert row["duration_s"] == pytest.approx(phases[row["nodeid"]], abs=1e-3)
    assert by_id(read_results(pytester))["slow"]["duration_s"] >= 0.3  # judged in setup

"""Eval items under the plugins of the test extra, as a user of each expects of a plain test:
pytest-timeout's limit and its methods, the phases' durations as pytest reports them.
(Plugins outside the test extra: tests/compat/.)"""

from __future__ import annotations

import json

import pytest

from helpers import by_id, entry, read_results, run, run_subprocess, write_evals
from judge_server import JudgeServer


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

"""A trace of every judgment: llmjudge_trace lines, the session log, retries naming their item."""

from __future__ import annotations

import json

import pytest

from helpers import API_KEY, entry, run, run_subprocess, write_evals
from judge_server import JudgeServer


def test_trace_has_one_line_per_request_and_per_cached_run(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, [entry("a"), entry("b", "flaky answer {{fail=500x1}}", ticket="t2")])
    args = ("evals/", "--judge-runs=2", "-o", "llmjudge_trace=trace.jsonl", "-p", "cacheprovider")
    run(pytester, *args).assert_outcomes(passed=2)
    lines = [json.loads(x) for x in (pytester.path / "trace.jsonl").read_text().splitlines()]
    # a request per dimension asks for both runs; b: a 500 per dimension first
    assert len(lines) == judge_server.count() == 2 + (2 + 2)
    failed = [x for x in lines if x["error"]]
    assert len(failed) == 2 and all("500 server error" in x["error"] for x in failed)
    first = next(x for x in lines if x["nodeid"] == "evals/support.json::a")
    assert first["dimension"] in ("relevance", "tone") and (first["run"], first["choices"]) == (
        1,
        2,
    )
    assert first["messages"][1]["content"].count("Maven build fails with OOM in Jenkins") == 1
    assert json.loads(first["reply"])["score"] == first["score"] == 4 and first["scores"] == [4, 4]
    assert first["prompt_tokens"] == 100 and first["completion_tokens"] == 2 * 20
    assert first["latency_s"] >= 0 and not first["cached"]
    assert {x["attempt"] for x in lines if x["nodeid"].endswith("::b")} == {1, 2}
    assert API_KEY not in (pytester.path / "trace.jsonl").read_text()
    run(pytester, *args).assert_outcomes(passed=2)  # unchanged: every run from the cache
    again = [json.loads(x) for x in (pytester.path / "trace.jsonl").read_text().splitlines()]
    assert len(again) == 8 and all(x["cached"] for x in again)


def test_session_log_and_retry_warnings_name_their_item(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, [entry("fine"), entry("shaky", "x {{fail=500x1}}", ticket="t2")])
    # a subprocess: the judge's loop thread logs to that session's handlers, not to ours.
    # pytest's log file, not the terminal: a record from the loop thread can land in the
    # capture buffer of whichever item is running (capture is per process, not per thread)
    to_file = ("-o", "log_file=pytest.log", "-o", "log_file_level=WARNING")
    result = run_subprocess(pytester, "evals/", "-o", "llmjudge_log_dir=logs", *to_file)
    result.assert_outcomes(passed=2)
    retries = [
        f"judge call for evals/support.json::shaky ({dimension}, run 1) attempt 1 failed"
        for dimension in ("relevance", "tone")
    ]
    pytest_log = (pytester.path / "pytest.log").read_text()
    assert all(retry in pytest_log for retry in retries)
    logs = list((pytester.path / "logs").glob("llmjudge_*.log"))
    assert len(logs) == 1
    text = logs[0].read_text()
    assert all(retry in text for retry in retries) and "500 server error" in text


def test_trace_under_xdist_holds_every_workers_requests(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, [entry(f"e{i}", ticket=f"t{i}") for i in range(6)])
    run(pytester, "evals/", "-n", "2", "-o", "llmjudge_trace=trace.jsonl").assert_outcomes(passed=6)
    lines = (pytester.path / "trace.jsonl").read_text().splitlines()
    assert len(lines) == judge_server.count() == 12
    assert {json.loads(x)["nodeid"] for x in lines} == {
        f"evals/support.json::e{i}" for i in range(6)
    }


def test_a_trace_of_hand_written_tests_starts_afresh_each_session(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    pytester.makepyfile(
        test_bot="""
def test_refund(llmjudge):
    assert llmjudge.relevance("Where is my refund?", "Issued on May 2.").score == 4
"""
    )
    for _ in range(2):
        run(pytester, "test_bot.py", "-o", "llmjudge_trace=trace.jsonl", "--judge-no-cache")
    lines = (pytester.path / "trace.jsonl").read_text().splitlines()
    assert len(lines) == 1 and judge_server.count() == 2  # the second session's one request

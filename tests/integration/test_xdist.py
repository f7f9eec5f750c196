"""Distributed runs: the same outcomes and results as a plain run, no duplicate rows."""

from __future__ import annotations

from typing import Any

import pytest

from helpers import entry, read_results, run, run_subprocess, write_evals
from judge_server import JudgeServer

# Timing, and what timing teaches: the in-flight limit comes down when replies slow down,
# which a loaded machine can cause in either run (its own tests check it).
VOLATILE = ("started", "duration_s", "in_flight_limit", "notices")


def _stable(results: dict[str, Any]) -> dict[str, Any]:
    meta = {k: v for k, v in results["meta"].items() if k not in VOLATILE}
    rows = [{k: v for k, v in r.items() if k != "duration_s"} for r in results["results"]]
    for row in rows:
        # which concurrent run got which scripted score depends on arrival order
        for dimension in ("relevance", "tone"):
            if row.get(dimension):
                judged = row[dimension]
                row[dimension] = {
                    **judged,
                    "runs": sorted(judged["runs"]),
                    "run_reasonings": sorted(judged["run_reasonings"]),
                    "reasoning": None,  # the run nearest the mean: which one is arrival order
                }
    return {**results, "meta": meta, "results": rows}


def _suite(pytester: pytest.Pytester) -> None:
    # distinct texts: identical (ticket, response) pairs would share runs within a process
    write_evals(
        pytester,
        [entry(f"ok-{i}", ticket=f"Build {i} fails with OOM") for i in range(6)]
        + [
            entry("weak", "bad {{relevance=2,4,3}}"),
            entry("xf", "bad {{tone=1}}", marks=[{"name": "xfail", "reason": "rude"}]),
            entry("down", "answer {{fail=500x99}}"),
            {"id": "broken", "response": "no ticket"},
        ],
    )
    write_evals(
        pytester,
        [entry(f"other-{i}", ticket=f"Deploy {i} is stuck") for i in range(4)],
        name="more.json",
    )


def test_n2_gives_the_same_outcomes_and_results_as_a_plain_run(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    _suite(pytester)
    plain = run(
        pytester,
        "evals/",
        "--judge-runs=3",
        "-o",
        "llmjudge_max_retries=1",
        "-p",
        "no:xdist",
        "--judge-no-cache",
    )
    plain.assert_outcomes(passed=10, failed=1, xfailed=1, errors=2)  # (an invalid entry)
    plain_results = _stable(read_results(pytester))
    plain_calls = judge_server.count()

    judge_server.reset()
    dist = run(
        pytester,
        "evals/",
        "--judge-runs=3",
        "-o",
        "llmjudge_max_retries=1",
        "-n",
        "2",
        "--judge-no-cache",
    )
    dist.assert_outcomes(passed=10, failed=1, xfailed=1, errors=2)
    dist.stdout.fnmatch_lines(["*2 workers*", "*llmjudge*", "14 eval items:*"])
    dist_results = _stable(read_results(pytester))
    assert dist_results["meta"] == plain_results["meta"]
    assert dist_results == plain_results
    assert judge_server.count() == plain_calls


def test_reruns_replace_rows_instead_of_adding_them(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    pytest.importorskip("pytest_rerunfailures")
    write_evals(pytester, [entry("weak", "bad {{relevance=1}}"), entry("fine")])
    result = run(pytester, "evals/", "--reruns=2")
    assert result.parseoutcomes() == {"passed": 1, "failed": 1, "rerun": 2}
    results = read_results(pytester)
    assert [r["id"] for r in results["results"]] == ["weak", "fine"]
    assert results["summary"]["failed"] == 1


def test_plugin_works_without_xdist(pytester: pytest.Pytester, judge_server: JudgeServer) -> None:
    write_evals(pytester, [entry("a")])
    run(pytester, "evals/", "-p", "no:xdist").assert_outcomes(passed=1)
    assert read_results(pytester)["summary"]["passed"] == 1


def test_workers_stopped_before_their_end_leave_known_counts_and_say_so(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    # Ctrl-C on the controller once the first item is reported: the workers are torn down
    # before they send what they sent; their finished items' requests are what is known
    pytester.makeconftest("""
def pytest_runtest_logreport(report):
    # on the controller a worker's report carries its node (this test may run in a worker)
    if getattr(report, "node", None) is not None and report.when == "teardown":
        raise KeyboardInterrupt
""")
    write_evals(pytester, [entry(f"e{i}", f"answer {i} {{{{delay=0.3}}}}") for i in range(4)])
    result = run_subprocess(pytester, "evals/", "-n", "2", "--judge-concurrency=1")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    results = read_results(pytester)
    meta = results["meta"]
    rows = sum(row["usage"]["calls"] for row in results["results"])
    assert rows >= 2 and meta["calls"] >= rows and meta["unattributed_calls"] >= 0
    assert meta["calls"] <= judge_server.count()
    said = "2 xdist workers stopped before saying what they sent: judge calls, tokens and cost"
    assert any(notice.startswith(said) for notice in meta["notices"]), meta["notices"]
    result.stdout.fnmatch_lines([f"note: {said}*"])

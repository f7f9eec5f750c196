"""Every count is what happened: calls and tokens against the judge server's own counters,
in reruns, -x, timeouts, failed dimensions, rejected replies, xdist and dead judges."""

from __future__ import annotations

from typing import Any

import pytest

from helpers import by_id, entry, read_results, run, write_evals
from judge_server import JudgeServer

TOKENS_PER_REPLY = 120  # the test server bills 100 prompt + 20 completion tokens per reply


def _meta(pytester: pytest.Pytester) -> dict[str, Any]:
    meta: dict[str, Any] = read_results(pytester)["meta"]
    return meta


def test_a_rerun_judges_afresh_and_every_attempt_is_counted(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    # The first relevance reply fails the item; the rerun's fresh one passes it.
    write_evals(pytester, [entry("wobbly", "answer {{relevance=1,5}}")])
    result = run(pytester, "evals/", "-p", "rerunfailures", "--reruns=1")
    assert result.parseoutcomes() == {"passed": 1, "rerun": 1}
    assert judge_server.count() == 4  # relevance and tone, twice: no memory, no disk cache
    meta = _meta(pytester)
    assert meta["calls"] == judge_server.count()
    assert meta["tokens"]["total"] == 4 * TOKENS_PER_REPLY
    row = by_id(read_results(pytester))["wobbly"]
    assert (row["attempt"], row["outcome"], row["relevance"]["runs"]) == (2, "passed", [5])
    usage = {"calls": 2, "judgments": 2, "prompt_tokens": 200, "completion_tokens": 40}
    usage["tokens_unknown"] = 0
    assert row["usage"] == usage
    assert meta["unattributed_calls"] == 2  # the replaced first attempt's


def test_the_cache_keeps_the_attempt_that_decided_and_a_rerun_reads_nothing_from_it(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    """Session 1 fails twice (the cache keeps the rerun's failure); session 2's first attempt
    replays it from the cache and its rerun asks afresh and passes: both attempts are counted,
    and the cache now keeps the pass, which session 3 replays without a call."""
    write_evals(pytester, [entry("wobbly", "answer {{relevance=1,1,5}}")])
    args = ("evals/", "-p", "rerunfailures", "--reruns=1", "-p", "cacheprovider")
    assert run(pytester, *args).parseoutcomes() == {"failed": 1, "rerun": 1}
    assert judge_server.count() == 4
    result = run(pytester, *args)
    assert result.parseoutcomes() == {"passed": 1, "rerun": 1}
    assert judge_server.count() == 6  # the rerun's, relevance and tone: none from the cache
    meta = _meta(pytester)
    assert (meta["calls"], meta["judgments"], meta["cached_runs"]) == (2, 2, 2)
    assert meta["unattributed_calls"] == 0
    result.stdout.fnmatch_lines(["judge calls: 2 made, 2 runs from the cache*"])
    result = run(pytester, *args)
    assert result.parseoutcomes() == {"passed": 1}  # the deciding attempt, replayed
    assert judge_server.count() == 6
    assert by_id(read_results(pytester))["wobbly"]["relevance"]["runs"] == [5]


def test_items_that_passed_only_on_a_rerun_are_counted(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    entries = [entry("wobbly", "answer {{relevance=1,5}}"), entry("fine", ticket="other")]
    write_evals(pytester, [*entries, entry("bad", "answer {{relevance=1}}", ticket="third")])
    result = run(pytester, "evals/", "-p", "rerunfailures", "--reruns=1")
    assert result.parseoutcomes() == {"passed": 2, "failed": 1, "rerun": 2}
    summary = read_results(pytester)["summary"]
    assert (summary["passed"], summary["passed_on_rerun"], summary["failed"]) == (2, 1, 1)
    result.stdout.fnmatch_lines(["3 eval items: 2 passed (1 only on a rerun), 1 failed;*"])


def test_an_item_lets_go_of_its_entry_once_its_reruns_are_over(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    # pytest keeps its items to the end: the validated entry goes with the item's last run
    pytester.makeconftest("""
def pytest_runtest_logreport(report):
    if report.when == "call" and report.outcome == "rerun":
        print("RERUN OF", report.nodeid.split("::")[-1])

def pytest_sessionfinish(session):
    print("ENTRIES KEPT:", [i.name for i in session.items if hasattr(i, "entry")])
""")
    write_evals(pytester, [entry("wobbly", "answer {{relevance=1,5}}"), entry("fine")])
    result = run(pytester, "evals/", "-s", "-p", "rerunfailures", "--reruns=1")
    assert result.parseoutcomes() == {"passed": 2, "rerun": 1}
    result.stdout.fnmatch_lines(["*RERUN OF wobbly*", "*ENTRIES KEPT: []*"])
    row = by_id(read_results(pytester))["wobbly"]
    assert (row["attempt"], row["relevance"]["runs"]) == (2, [5])
    assert row["ticket"] == entry("wobbly")["ticket"]  # the rows still hold the texts


def test_x_counts_the_requests_sent_ahead_for_items_that_never_ran(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    # the first item's replies are slow too: the later items' requests surely go out first
    entries = [entry("bad", "answer {{relevance=1 delay=0.2}}")]
    entries += [entry(f"later{i}", "answer {{delay=0.2}}", ticket=f"T{i}") for i in range(4)]
    write_evals(pytester, entries)
    run(pytester, "evals/", "-x", "-p", "no:randomly").assert_outcomes(failed=1)
    meta = _meta(pytester)
    assert judge_server.count() > 2  # later items were judged ahead
    assert meta["calls"] == judge_server.count()
    assert meta["unattributed_calls"] == judge_server.count() - 2
    assert meta["complete"] is False


def test_an_item_stopped_by_pytest_timeout_is_an_error_with_its_calls_counted(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, [entry("slow", "answer {{delay=3}}"), entry("fast", ticket="other")])
    result = run(pytester, "evals/", "-p", "timeout", "--timeout=1", "--junitxml=junit.xml")
    result.assert_outcomes(passed=1, errors=1)
    row = by_id(read_results(pytester))["slow"]
    assert row["outcome"] == "error"
    assert row["error"].startswith("Timeout (>1.0s) from pytest-timeout while judging")
    assert _meta(pytester)["calls"] == judge_server.count() == 4
    junit = (pytester.path / "junit.xml").read_text()
    assert 'errors="1"' in junit and 'failures="0"' in junit


@pytest.mark.parametrize(("sampling", "requests_per_attempt"), [("calls", 2), ("auto", 1)])
def test_a_dimension_whose_runs_all_failed_keeps_its_attempts(
    pytester: pytest.Pytester, judge_server: JudgeServer, sampling: str, requests_per_attempt: int
) -> None:
    write_evals(pytester, [entry("down", "answer {{fail=500x99}}")])
    args = ("-o", "llmjudge_max_retries=2", "--judge-runs=2", "-o", f"llmjudge_sampling={sampling}")
    run(pytester, "evals/", *args).assert_outcomes(errors=1)
    row = by_id(read_results(pytester))["down"]
    # dimensions x attempts x (one request per run, or one for both runs)
    assert judge_server.count() == 2 * 3 * requests_per_attempt
    assert row["usage"]["calls"] == judge_server.count() == _meta(pytester)["calls"]
    assert _meta(pytester)["tokens"]["total"] == 0  # error replies bill nothing


def test_rejected_replies_are_billed(pytester: pytest.Pytester, judge_server: JudgeServer) -> None:
    write_evals(pytester, [entry("chatty", "answer {{malformed=1 relevance=4 tone=4}}")])
    run(pytester, "evals/").assert_outcomes(passed=1)
    meta = _meta(pytester)
    assert judge_server.count() == 4  # a malformed first reply per dimension, then a good one
    assert meta["calls"] == 4
    assert meta["tokens"]["total"] == 4 * TOKENS_PER_REPLY


def test_totals_under_xdist_are_the_servers(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, [entry(f"e{i}", f"answer {i} {{{{fail=429x1}}}}") for i in range(6)])
    run(pytester, "evals/", "-n", "2").assert_outcomes(passed=6)
    meta = _meta(pytester)
    assert judge_server.count() == 6 * 2 * 2  # each dimension: a 429, then a reply
    assert meta["calls"] == judge_server.count()
    assert meta["tokens"]["total"] == 6 * 2 * TOKENS_PER_REPLY
    assert sum(r["usage"]["calls"] for r in read_results(pytester)["results"]) == meta["calls"]


def test_a_judge_that_stops_answering_counts_every_connection_attempt(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    judge_server.drop_requests = True  # up at the start, then every request is cut off
    write_evals(pytester, [entry("a"), entry("b", ticket="other")])
    run(pytester, "evals/", "-o", "llmjudge_max_retries=1").assert_outcomes(errors=2)
    calls = _meta(pytester)["calls"]
    assert calls == 2 * 2 * 2 == judge_server.count()  # items x dimensions x attempts
    assert all(r["usage"]["calls"] == 4 for r in read_results(pytester)["results"])


def test_summary_totals_add_up_and_pass_rate_is_over_the_judged_items(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(
        pytester,
        [
            entry("good"),
            entry("bad", "answer {{relevance=1}}", ticket="t2"),
            entry("down", "answer {{fail=500x99}}", ticket="t3"),
            entry("weak", "answer {{relevance=1}}", ticket="t4", marks=["xfail"]),
            entry("partial", "answer {{relevance=4 fail=500x1}}", ticket="t5"),
            {"id": "invalid", "response": "r"},
        ],
    )
    (pytester.path / "evals" / "broken.json").write_text("[{")
    result = run(
        pytester,
        "evals/",
        "--judge-runs=2",
        "-o",
        "llmjudge_max_retries=0",
        "-o",
        "llmjudge_sampling=calls",  # partial: one run's request fails, the other's succeeds
        "--continue-on-collection-errors",
        "-v",
    )
    summary = read_results(pytester)["summary"]
    outcomes = ("passed", "failed", "errors", "skipped", "xfailed", "xpassed", "flaky_failed")
    assert summary["total"] == sum(summary[o] for o in outcomes) == 7
    assert summary["errors"] == 3  # the dead judge, the broken file and the invalid entry
    assert (summary["invalid"], summary["skipped"]) == (1, 0)
    # judged: good, bad, partial (down has no judged dimension; weak is an xfail)
    assert (summary["judged"], summary["pass_rate"]) == (3, round(2 / 3, 4))
    assert summary["partial_runs"] == 1
    result.stdout.fnmatch_lines(
        [
            "*::partial PASSED (relevance 4.00 (1 of 2 runs), tone 4.00 (1 of 2 runs))*",
            "judged on fewer runs than requested (runs failed or not sent; the results say why): "
            "evals/support.json::partial",
        ]
    )


@pytest.mark.parametrize("batch", [False, True], ids=["direct", "batch"])
@pytest.mark.parametrize("left_out", [{"usage"}, {"prompt_tokens", "total_tokens"}])
def test_tokens_a_server_does_not_say_are_unknown_never_zero(
    pytester: pytest.Pytester, judge_server: JudgeServer, left_out: set[str], batch: bool
) -> None:
    # some local servers and proxies leave usage, or a count in it, out of their replies
    judge_server.usage_left_out = left_out
    pytester.makeini("[pytest]\nllmjudge_prices =\n    gpt-4o-mini=0.15,0.6\n")
    write_evals(pytester, [entry("a", ticket="ticket a"), entry("b", ticket="ticket b")])
    args = ("-o", "llmjudge_batch=true") if batch else ("-o", "llmjudge_report=report.html")
    result = run(pytester, "evals/", *args)
    result.assert_outcomes(passed=2)
    assert "Traceback" not in result.stdout.str()
    results = read_results(pytester)
    meta = results["meta"]
    assert meta["calls"] == 4  # two items, two dimensions
    assert meta["tokens"] == {"prompt": 0, "completion": 0, "total": 0, "unknown_calls": 4}
    assert meta["cost_usd"] is None  # the price is known, what it was paid for is not
    assert [row["usage"]["tokens_unknown"] for row in results["results"]] == [2, 2]
    result.stdout.fnmatch_lines(
        [
            "judge calls: 4 made, 0 runs from the cache, tokens unknown for 4 calls "
            "(the server did not say them), cost unknown"
        ]
    )
    if not batch:  # the report's cards say so too
        html = (pytester.path / "report.html").read_text()
        assert '<div class="value">unknown</div><div class="sub">unknown for 4 calls' in html


def test_the_progress_line_shows_no_cost_while_tokens_are_unknown(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    judge_server.usage_left_out = {"usage"}
    pytester.makeini("[pytest]\nllmjudge_prices =\n    gpt-4o-mini=0.15,0.6\n")
    entries = [entry(f"c{i}", f"Answer {i}. {{{{delay=0.15}}}}", ticket=f"T {i}") for i in range(8)]
    write_evals(pytester, entries)
    args = ("--judge-runs=2", "--judge-concurrency=1", "-o", "llmjudge_progress=0.3")
    result = run(pytester, "evals/", *args, "-p", "no:cacheprovider")
    progress = [line for line in result.outlines if "runs judged," in line]
    assert progress and not any("$" in line for line in progress), progress


def test_a_cost_budget_stops_at_the_first_reply_that_does_not_say_its_tokens(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    judge_server.usage_left_out = {"usage"}
    pytester.makeini(
        "[pytest]\nllmjudge_prices =\n    gpt-4o-mini=0.15,0.6\nllmjudge_budget = usd=5\n"
    )
    write_evals(pytester, [entry("a", ticket="ticket a"), entry("b", ticket="ticket b")])
    result = run(pytester, "evals/", "--judge-concurrency=1", "-p", "no:cacheprovider")
    assert result.parseoutcomes().get("passed", 0) == 0  # never a pass on unspent money
    result.stdout.fnmatch_lines(["*judge cost budget cannot be kept: a reply did not say its*"])
    assert judge_server.count() == 1
    assert read_results(pytester)["meta"]["calls"] == 1

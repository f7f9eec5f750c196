"""llmjudge_sampling: the runs of a judgment as the n choices of one request, against the
local server (which honours n, or ignores it as Ollama does), and --judge-dry-run."""

from __future__ import annotations

from typing import Any

import pytest

from helpers import by_id, entry, read_results, run, write_evals
from judge_server import JudgeServer


def _meta(pytester: pytest.Pytester) -> dict[str, Any]:
    meta: dict[str, Any] = read_results(pytester)["meta"]
    return meta


@pytest.mark.parametrize(
    ("sampling", "requests", "n"),
    [("auto", 2 * 2, {3}), ("choices", 2 * 2, {3}), ("calls", 2 * 2 * 3, {1})],
)
def test_request_counts_per_mode(
    pytester: pytest.Pytester, judge_server: JudgeServer, sampling: str, requests: int, n: set[int]
) -> None:
    write_evals(pytester, [entry("a"), entry("b", "x {{relevance=2,3,5}}", ticket="t2")])
    args = ("--judge-runs=3", "-o", f"llmjudge_sampling={sampling}")
    run(pytester, "evals/", *args).assert_outcomes(passed=1, failed=1)
    assert judge_server.count() == requests and {r.n for r in judge_server.requests} == n
    assert judge_server.choices() == 2 * 2 * 3
    meta = _meta(pytester)
    assert (meta["calls"], meta["judgments"]) == (requests, 2 * 2 * 3)
    # prompt tokens once per request, completion tokens per choice
    assert meta["tokens"] == {
        "prompt": 100 * requests,
        "completion": 20 * 12,
        "total": 100 * requests + 240,
        "unknown_calls": 0,
    }
    rows = by_id(read_results(pytester))
    # the same samples either way (one request per run: in the order the requests arrived)
    assert sorted(rows["b"]["relevance"]["runs"]) == [2, 3, 5]
    assert rows["b"]["usage"]["calls"] + rows["a"]["usage"]["calls"] == requests
    assert rows["b"]["usage"]["judgments"] == 2 * 3


def test_the_cache_is_kept_per_run_index_and_missing_runs_share_a_request(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, [entry("a", "x {{relevance=3,4,5,4,5}}")])
    cache = ("-p", "cacheprovider")
    run(pytester, "evals/", "--judge-runs=3", *cache).assert_outcomes(passed=1)
    assert judge_server.choices("relevance") == 3
    judge_server.reset()
    run(pytester, "evals/", "--judge-runs=5", *cache).assert_outcomes(passed=1)
    # runs 1-3 from the cache, runs 4 and 5 as the two choices of one request
    assert [r.n for r in judge_server.requests if r.dimension == "relevance"] == [2]
    relevance = by_id(read_results(pytester))["a"]["relevance"]
    assert relevance["cached_runs"] == 3 and relevance["calls"] == 1
    assert relevance["runs"] == [3, 4, 5, 3, 4]  # the server's first two samples again
    judge_server.reset()
    run(pytester, "evals/", "--judge-runs=5", *cache).assert_outcomes(passed=1)
    assert judge_server.count() == 0
    assert _meta(pytester)["cached_runs"] == 10


def test_a_rejected_choice_is_asked_again_alone(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, [entry("a", "x {{malformed=1}}")])
    run(pytester, "evals/", "--judge-runs=3").assert_outcomes(passed=1)
    # per dimension: three choices, the first not JSON; then one request for that run
    assert [r.n for r in judge_server.requests if r.dimension == "tone"] == [3, 1]
    meta = _meta(pytester)
    assert (meta["calls"], meta["judgments"]) == (4, 6)
    assert by_id(read_results(pytester))["a"]["tone"]["runs"] == [4, 4, 4]


def test_a_choice_still_rejected_after_retries_fails_only_its_run(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, [entry("a", "x {{malformed=1}}")])
    run(pytester, "evals/", "--judge-runs=3", "-o", "llmjudge_max_retries=0").assert_outcomes(
        passed=1
    )
    tone = by_id(read_results(pytester))["a"]["tone"]
    assert tone["runs"] == [4, 4]
    assert len(tone["failed_runs"]) == 1 and "malformed judge reply" in tone["failed_runs"][0]


def test_auto_falls_back_to_calls_for_a_server_that_ignores_n(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    judge_server.ignore_n = True
    write_evals(pytester, [entry(f"e{i}", ticket=f"t{i}") for i in range(3)])
    args = ("--judge-runs=3", "--judge-concurrency=1")  # one at a time: a known order
    result = run(pytester, "evals/", *args)
    result.assert_outcomes(passed=3)
    asked = [r.n for r in judge_server.requests]
    # both dimensions of the first item ask for 3 and get 1; their other runs, and every
    # later judgment's, are asked one request per run
    assert asked[:2] == [3, 3] and asked[2:] == [1] * (2 * 2 + 2 * 2 * 3)
    meta = _meta(pytester)
    assert meta["calls"] == judge_server.count() == 2 + 2 * 2 + 2 * 2 * 3
    assert meta["judgments"] == judge_server.choices() == 3 * 2 * 3
    assert all(
        len(row[d]["runs"]) == 3
        for row in by_id(read_results(pytester)).values()
        for d in ("relevance", "tone")
    )
    notice = "the judge server answered 2 request(s) for several choices with fewer (it ignores n)"
    assert any(notice in n for n in meta["notices"])
    result.stdout.fnmatch_lines([f"note: {notice}*asked one request each*"])


def test_choices_mode_makes_a_server_that_ignores_n_an_error(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    judge_server.ignore_n = True
    write_evals(pytester, [entry("a")])
    result = run(pytester, "evals/", "--judge-runs=3", "-o", "llmjudge_sampling=choices")
    result.assert_outcomes(errors=1)  # not a verdict on the one run the server gave
    row = by_id(read_results(pytester))["a"]
    error = (
        "the judge server answered fewer choices than asked for (it ignores n): use "
        "llmjudge_sampling=auto or calls for this server"
    )
    assert error in row["error"]
    assert [r.n for r in judge_server.requests] == [3, 3]  # never asked singly
    assert (row["usage"]["calls"], row["usage"]["judgments"]) == (2, 2)  # what it was sent
    result.stdout.fnmatch_lines([f"*{error}*"])


def test_the_heuristic_judge_is_unaffected(pytester: pytest.Pytester) -> None:
    write_evals(pytester, [entry("a")])
    args = ("--judge-provider=heuristic", "--judge-runs=3", "-o", "llmjudge_scoring=logprobs")
    result = run(pytester, "evals/", *args)
    result.assert_outcomes(passed=1)
    meta = _meta(pytester)
    assert (meta["calls"], meta["judgments"]) == (0, 6)  # judged in-process: no request
    assert meta["judge"]["scoring"] == "text"
    result.stdout.fnmatch_lines(["note: llmjudge_scoring=logprobs needs an LLM judge*"])


def test_dry_run_sends_nothing_and_prints_the_estimate(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    pytester.makeini("[pytest]\nllmjudge_prices =\n    my-judge=1000,2000\n")
    write_evals(pytester, [entry("a"), entry("b", ticket="t2"), entry("same-as-a")])
    args = ("evals/", "--judge-model=my-judge", "--judge-runs=3", "-p", "cacheprovider")
    result = run(pytester, *args, "--judge-dry-run")
    assert result.ret == pytest.ExitCode.OK and judge_server.count() == 0
    assert not (pytester.path / "results" / "output.json").exists()
    # a and same-as-a are the same runs: judged once. 2 judgments x 2 dimensions x 3 runs
    result.stdout.fnmatch_lines(
        [
            "dry run: nothing was sent",
            "3 eval items: 12 runs to judge, 0 in the judge cache, 12 to ask",
            "judge calls: 4, the runs of a judgment as the choices of one request*",
            "estimated tokens: * prompt + 720 completion (about 4 characters per token; *",
            "estimated cost: $* (ini llmjudge_prices price of my-judge)",
        ]
    )
    prompt = int(
        result.stdout.str().split("estimated tokens: ")[1].split(" prompt")[0].replace(",", "")
    )
    # the real prompts, as the server received them, are within a fifth of the estimate
    run(pytester, *args).assert_outcomes(passed=3)
    sent = sum(len(m["content"]) for r in judge_server.requests for m in r.body["messages"])
    assert abs(prompt - (sent / 4 + 4 * 2 * judge_server.count())) / prompt < 0.2
    judge_server.reset()
    again = run(
        pytester, *args, "--judge-dry-run", "--judge-runs=4", "-o", "llmjudge_sampling=calls"
    )
    again.stdout.fnmatch_lines(
        [
            "3 eval items: 16 runs to judge, 12 in the judge cache, 4 to ask",
            "judge calls: 4, one per run*",
        ]
    )
    assert judge_server.count() == 0


def test_dry_run_under_xdist_runs_nothing_either(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, [entry(f"e{i}", ticket=f"t{i}") for i in range(4)])
    result = run(pytester, "evals/", "-n", "2", "--judge-dry-run")
    assert result.ret == pytest.ExitCode.OK and judge_server.count() == 0
    result.stdout.fnmatch_lines(["4 eval items: 8 runs to judge*", "judge calls: 8*"])
    # a distributed session prints "created: 2/2 workers"; no worker started here
    assert not any("workers" in line for line in result.outlines)


def test_counts_under_xdist_are_the_servers(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, [entry(f"e{i}", f"x{i} {{{{malformed=1}}}}") for i in range(6)])
    run(pytester, "evals/", "-n", "2", "--judge-runs=3").assert_outcomes(passed=6)
    meta = _meta(pytester)
    # per judgment: 3 choices with the first malformed, then that run alone
    assert meta["calls"] == judge_server.count() == 6 * 2 * 2
    assert meta["judgments"] == 6 * 2 * 3 == judge_server.choices() - 6 * 2  # less rejected
    rows = by_id(read_results(pytester)).values()
    assert sum(row["usage"]["calls"] for row in rows) == meta["calls"]
    assert sum(row["usage"]["judgments"] for row in rows) == meta["judgments"]

"""Concurrency across items, the judge cache, budgets, tokens and cost."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from helpers import by_id, entry, read_results, run, write_evals
from judge_server import JudgeServer


def stored_entries(folder: Path) -> list[str]:
    """The cache's entries as stored: rows of its database (a request's runs, written as soon
    as judged) and files (runs written when the database was busy)."""
    with sqlite3.connect(folder / "entries.sqlite3") as db:
        rows = [text for (text,) in db.execute("SELECT entry FROM entries")]
    return rows + [path.read_text() for path in folder.rglob("*.json")]


def _items(count: int, suffix: str = "") -> list[dict[str, Any]]:
    return [
        entry(f"case-{i}", f"Answer {i}.{suffix}", ticket=f"Build {i} fails with OOM")
        for i in range(count)
    ]


def test_connections_kept_alive_are_as_many_as_the_concurrency(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    # more than the 100 the SDK's own client keeps alive: with it, connections beyond 100
    # were closed after their reply and opened again for the next request
    write_evals(pytester, _items(150, " {{delay=0.5}}"))
    result = run(pytester, "evals/", "--judge-concurrency=120")
    result.assert_outcomes(passed=150)
    assert judge_server.peak_in_flight > 100
    assert judge_server.connections <= 120


def test_calls_of_different_items_overlap_within_the_limit(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, _items(10, " {{delay=0.3}}"))
    result = run(pytester, "evals/", "--judge-concurrency=6", "-v")
    result.assert_outcomes(passed=10)
    # one item alone has 2 calls: more than that in flight means items overlap
    assert 2 < judge_server.peak_in_flight <= 6
    # items still report in file order
    result.stdout.fnmatch_lines([f"evals/support.json::case-{i} PASSED*" for i in range(10)])


def test_exitfirst_stops_judging(pytester: pytest.Pytester, judge_server: JudgeServer) -> None:
    # the next items' replies take long enough for pytest to see the failure and stop even
    # on a loaded machine (at 0.1 s, a second window was sometimes sent before it did)
    items = _items(20, " {{delay=1.5}}")
    items[0]["response"] = "bad {{relevance=1 delay=0.1}}"
    write_evals(pytester, items)
    run(pytester, "evals/", "-x", "--judge-concurrency=2").assert_outcomes(failed=1)
    # the failing item's 2 calls, and at most one more window of 2 already in flight
    assert judge_server.count() <= 4


def test_deselected_items_make_no_calls(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, _items(10))
    run(pytester, "evals/", "-k", "case-3").assert_outcomes(passed=1, deselected=9)
    assert judge_server.count() == 2
    assert {r.ticket for r in judge_server.requests} == {"Build 3 fails with OOM"}


def test_skipped_items_make_no_calls(pytester: pytest.Pytester, judge_server: JudgeServer) -> None:
    items = _items(3)
    items[1]["marks"] = [{"name": "skip", "reason": "not yet"}]
    write_evals(pytester, items)
    run(pytester, "evals/").assert_outcomes(passed=2, skipped=1)
    assert judge_server.count() == 4


def test_unchanged_rerun_is_served_from_the_cache(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, _items(3))
    run(pytester, "evals/", "--judge-runs=2").assert_outcomes(passed=3)
    assert judge_server.count() == 6 and judge_server.choices() == 12  # 2 runs per request
    judge_server.reset()
    result = run(pytester, "evals/", "--judge-runs=2")
    result.assert_outcomes(passed=3)
    assert judge_server.count() == 0
    result.stdout.fnmatch_lines(["judge calls: 0 made, 12 runs from the cache*"])
    meta = read_results(pytester)["meta"]
    assert (meta["calls"], meta["cached_runs"], meta["tokens"]["total"]) == (0, 12, 0)
    assert by_id(read_results(pytester))["case-0"]["relevance"]["cached_runs"] == 2
    # --judge-no-cache asks the judge again
    run(pytester, "evals/", "--judge-runs=2", "--judge-no-cache").assert_outcomes(passed=3)
    assert judge_server.choices() == 12


def test_changed_inputs_miss_the_cache(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, _items(3))
    run(pytester, "evals/").assert_outcomes(passed=3)
    judge_server.reset()
    items = _items(3)
    items[1]["response"] = "A changed answer."
    write_evals(pytester, items)
    run(pytester, "evals/").assert_outcomes(passed=3)
    assert {r.response for r in judge_server.requests} == {"A changed answer."}
    judge_server.reset()
    run(pytester, "evals/", "--judge-runs=2").assert_outcomes(passed=3)
    assert judge_server.count() == 6  # run index 1 is new for every item
    judge_server.reset()
    run(pytester, "evals/", "--judge-model=other-model").assert_outcomes(passed=3)
    assert judge_server.count() == 6


def test_failed_calls_are_not_cached(pytester: pytest.Pytester, judge_server: JudgeServer) -> None:
    write_evals(pytester, [entry("down", "answer {{fail=500x1}}")])
    run(pytester, "evals/", "-o", "llmjudge_max_retries=0").assert_outcomes(errors=1)
    run(pytester, "evals/", "-o", "llmjudge_max_retries=0").assert_outcomes(passed=1)
    assert judge_server.count() == 4


def test_cache_clear_and_cache_dir(pytester: pytest.Pytester, judge_server: JudgeServer) -> None:
    write_evals(pytester, _items(2))
    run(pytester, "evals/", "-o", "llmjudge_cache=judge-cache").assert_outcomes(passed=2)
    entries = stored_entries(pytester.path / "judge-cache")
    assert len(entries) == 4
    assert all(json.loads(text)["score"] == 4 for text in entries)
    run(pytester, "evals/", "-o", "llmjudge_cache=judge-cache", "--cache-clear")
    assert judge_server.count() == 8
    run(pytester, "evals/").assert_outcomes(passed=2)  # default location: a cold cache
    assert judge_server.count() == 12
    assert stored_entries(pytester.path / ".pytest_cache/d/llmjudge")
    run(pytester, "evals/", "--cache-clear").assert_outcomes(passed=2)
    assert judge_server.count() == 16


def test_xdist_workers_share_the_cache(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, _items(12))
    run(pytester, "evals/", "-n", "2", "--judge-runs=2").assert_outcomes(passed=12)
    assert judge_server.choices() == 48  # each worker judged only its own items
    keys = [(r.dimension, r.ticket, r.response) for r in judge_server.requests]
    assert judge_server.count() == len(set(keys)) == 24  # one request of 2 runs per key
    judge_server.reset()
    run(pytester, "evals/", "-n", "2", "--judge-runs=2").assert_outcomes(passed=12)
    assert judge_server.count() == 0
    # one whole entry per run (24 keys x 2 runs), written by two processes
    cached = stored_entries(pytester.path / ".pytest_cache/d/llmjudge")
    assert len(cached) == 48
    assert all(json.loads(text)["score"] in range(1, 6) for text in cached)


def test_max_calls_ends_the_remaining_items_as_errors(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, _items(5))
    result = run(pytester, "evals/", "-o", "llmjudge_budget=calls=4", "--judge-concurrency=1")
    result.assert_outcomes(passed=2, errors=3)
    assert judge_server.count() == 4
    result.stdout.fnmatch_lines(["*judge call budget exhausted: llmjudge_budget calls=4 made*"])
    errors = read_results(pytester)["errors"]
    assert [e["id"] for e in errors] == ["case-2", "case-3", "case-4"]


def test_under_xdist_each_worker_keeps_its_share_of_the_call_budget_and_says_so(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, _items(12))
    result = run(pytester, "evals/", "-n", "2", "-o", "llmjudge_budget=calls=5")
    assert judge_server.count() == 5  # the session's budget, split 3 + 2
    errors = read_results(pytester)["errors"]
    assert len(errors) >= 12 - 5 // 2  # two requests an item: at most 2 items per worker pass
    # the user's calls=5 is not restated as a worker's share of it
    assert "llmjudge_budget calls=3 made" not in result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "*judge call budget exhausted: this xdist worker's share of llmjudge_budget "
            "(calls=[23], split over 2) made; no new calls in this worker*"
        ]
    )


def test_tokens_and_cost_are_reported(pytester: pytest.Pytester, judge_server: JudgeServer) -> None:
    write_evals(pytester, _items(1))
    # a local server's gpt-4o-mini is not OpenAI's: tokens only, no price guessed for it
    result = run(pytester, "evals/", "--judge-no-cache")
    result.stdout.fnmatch_lines(
        ["judge calls: 2 made, 0 runs from the cache, 240 tokens (200 prompt, 40 completion)"]
    )
    assert "$" not in result.stdout.str() and "price" not in result.stdout.str()
    meta = read_results(pytester)["meta"]
    assert meta["cost_usd"] is None and meta["price_source"] is None
    dry = run(pytester, "evals/", "--judge-no-cache", "--judge-dry-run")
    dry.stdout.fnmatch_lines(["estimated tokens: *"])
    assert "estimated cost" not in dry.stdout.str()
    pytester.makeini("[pytest]\nllmjudge_prices =\n    my-judge=1000,2000\n")
    run(pytester, "evals/", "--judge-no-cache", "--judge-model=my-judge")
    meta = read_results(pytester)["meta"]
    assert meta["cost_usd"] == pytest.approx(0.28)
    assert meta["price_source"] == "ini llmjudge_prices"
    run(pytester, "evals/", "--judge-no-cache", "--judge-model=unpriced")
    assert read_results(pytester)["meta"]["cost_usd"] is None
    # a typo of a priced model is not priced as its family (gpt-4o would say $0.0009)
    pytester.makeini("[pytest]\nllmjudge_prices =\n    gpt-4o=2.5,10\n")
    typo = run(pytester, "evals/", "--judge-no-cache", "--judge-model=gpt-4o-mni")
    typo.stdout.fnmatch_lines(
        ["judge calls: 2 made, 0 runs from the cache, 240 tokens (200 prompt, 40 completion)"]
    )
    assert read_results(pytester)["meta"]["cost_usd"] is None


def test_max_cost_stops_new_calls(pytester: pytest.Pytester, judge_server: JudgeServer) -> None:
    pytester.makeini("[pytest]\nllmjudge_prices =\n    my-judge=1000,2000\n")
    write_evals(pytester, _items(3))
    # each call costs $0.14: after two calls the $0.2 budget is spent
    result = run(
        pytester,
        "evals/",
        "--judge-model=my-judge",
        "-o",
        "llmjudge_budget=usd=0.2",
        "--judge-concurrency=1",
    )
    result.assert_outcomes(passed=1, errors=2)
    assert judge_server.count() == 2
    result.stdout.fnmatch_lines(["*judge cost budget exhausted*"])


def test_max_cost_needs_a_price(pytester: pytest.Pytester, judge_server: JudgeServer) -> None:
    result = run(pytester, "--judge-model=unpriced", "-o", "llmjudge_budget=usd=1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*llmjudge_budget usd= needs the price of model 'unpriced'*"])


def test_retries_are_logged_so_a_long_wait_is_not_silent(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, [entry("limited", "answer {{fail=429x1}}")])
    result = run(pytester, "evals/", "-o", "log_cli=true", "-o", "log_cli_level=WARNING")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "*WARNING*judge call for evals/support.json::limited (*, run 1) attempt 1 failed "
            "(429 rate limited: scripted 429); retrying in 0.0s*"
        ]
    )


def test_the_offline_judge_summary_says_runs_judged_beside_runs_reused(
    pytester: pytest.Pytester,
) -> None:
    # two entries with the same ticket and response: the second's runs are the first's
    write_evals(pytester, [entry("first"), entry("second")])
    result = run(pytester, "evals/", "--judge-provider=heuristic")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        ["judge calls: none (2 runs judged in-process by the offline judge, 2 runs from the cache)"]
    )
    assert "every run from the cache" not in result.stdout.str()  # two of the four were not


def test_a_call_budget_leaves_the_offline_judge_alone(pytester: pytest.Pytester) -> None:
    # an ini written for an LLM judge, run where there is no key (a fork's pull request): the
    # offline judge sends no request, so calls= has nothing to count
    write_evals(pytester, _items(3))
    result = run(pytester, "evals/", "--judge-provider=heuristic", "-o", "llmjudge_budget=calls=1")
    result.assert_outcomes(passed=3)
    assert "budget exhausted" not in result.stdout.str()
    result.stdout.fnmatch_lines(
        ["judge calls: none (6 runs judged in-process by the offline judge)"]
    )

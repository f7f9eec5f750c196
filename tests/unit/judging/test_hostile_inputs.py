"""Hostile conditions: one bad item stays one bad item, faults cost little time."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from pathlib import Path

import pytest

from pytest_llmjudge.basics.rubrics import RELEVANCE
from pytest_llmjudge.config.pricing import Price
from pytest_llmjudge.judges.base import RunResult, Totals, Usage
from pytest_llmjudge.judges.heuristic import HeuristicJudge
from pytest_llmjudge.judging.budget import BREAKER_FAILURES, Budget, BudgetExhausted
from pytest_llmjudge.judging.cache import JudgeCache
from pytest_llmjudge.judging.cache_db import DATABASE
from pytest_llmjudge.judging.cache_entries import checksum_of as _checksum
from pytest_llmjudge.judging.cache_entries import entry_text
from pytest_llmjudge.judging.capacity import AdaptiveLimit, ServerCapacity, _within


def test_the_breaker_needs_failures_in_a_row_over_time() -> None:
    budget = Budget()
    for _ in range(BREAKER_FAILURES * 3):  # a burst of failures at one instant: a blip
        budget.connection_failed("down")
    assert budget.fatal is None
    budget.connection_ok()  # the judge answered: the count starts again
    budget._first_failure = 0.0  # the clock, far back
    budget.connection_failed("down")
    assert budget.fatal is None
    budget._failures_in_a_row = BREAKER_FAILURES - 1
    budget._first_failure = time.monotonic() - 5
    budget.connection_failed("cannot reach the judge at http://x")
    assert budget.fatal is not None and "cannot reach the judge at http://x" in budget.fatal


def test_a_workers_budget_is_named_as_its_share_of_the_sessions() -> None:
    alone, shared = Budget(max_calls=1), Budget(max_calls=1, workers=3)
    for budget in (alone, shared):
        budget.take_request()
    with pytest.raises(BudgetExhausted, match=r"llmjudge_budget calls=1 made; .* this session"):
        alone.take_request()
    with pytest.raises(BudgetExhausted, match=r"share of llmjudge_budget .* this worker"):
        shared.take_request()


def test_what_the_items_spent_comes_off_the_pairs_budget() -> None:
    price = Price(1000, 2000, "test")  # $0.14 a direct request of 100 + 20 tokens, $0.07 batched
    items = Usage(3, 300, 60, batch_calls=1, batch_prompt_tokens=100, batch_completion_tokens=20)
    budget = Budget(max_calls=4, max_cost=1.0, price=price)
    budget.count_earlier(items)
    assert budget.calls == 3 and round(budget.spent_usd, 6) == 0.35
    budget.take_request()  # the fourth call of the session
    with pytest.raises(BudgetExhausted, match="calls=4 made"):
        budget.take_request()
    unsaid = Budget(max_cost=1.0, price=price)
    unsaid.count_earlier(Usage(1, tokens_unknown=1))  # the items' spending is not known
    with pytest.raises(BudgetExhausted, match="cannot be kept"):
        unsaid.take_request()


def test_the_limit_halves_after_429_and_grows_back() -> None:
    async def scenario() -> list[int]:
        limit = AdaptiveLimit(8)
        seen = [limit.limit]
        limit.throttled()
        limit.throttled()  # within the cooldown: one burst, one decrease
        seen.append(limit.limit)
        for _ in range(3):
            limit.succeeded()
        seen.append(limit.limit)
        order: list[int] = []

        async def one(i: int) -> None:
            async with limit:
                order.append(i)
                await asyncio.sleep(0.01)

        limit.limit = 1
        await asyncio.gather(*(one(i) for i in range(5)))
        seen.append(limit.in_flight)
        return seen + order

    assert asyncio.run(scenario()) == [8, 4, 7, 0, 0, 1, 2, 3, 4]


def test_the_limit_a_server_kept_is_reported_only_while_it_stays_lower() -> None:
    limit = AdaptiveLimit(8)
    capacity = ServerCapacity(judge=HeuristicJudge(), limit=limit, budget=Budget(), timeout=1)
    limit.throttled()
    kept = Totals()
    capacity.facts(kept)
    assert kept.server.kept_in_flight == 4
    for _ in range(4):
        limit.succeeded()  # grown back to --judge-concurrency: nothing was kept lower
    recovered = Totals()
    capacity.facts(recovered)
    assert (limit.limit, recovered.server.kept_in_flight) == (8, 0)


def test_a_request_is_cut_off_at_its_timeout_on_every_python() -> None:
    # asyncio.timeout from 3.11, wait_for on 3.10 (CI runs these tests on both)
    async def quick() -> str:
        return "answered"

    async def hung() -> str:
        await asyncio.Event().wait()  # never set
        return "never"

    assert asyncio.run(_within(quick, 5)) == "answered"
    with pytest.raises(asyncio.TimeoutError):
        asyncio.run(_within(hung, 0.01))


# -- bad eval files: one line naming file, entry and field; the rest still runs ---------------


# -- sizes ------------------------------------------------------------------------------------


# -- bots that misbehave ---------------------------------------------------------------------


# -- outputs that cannot be written ----------------------------------------------------------


# -- the judged text cannot steer the judge -------------------------------------------------


# -- the cache cannot serve a wrong score -----------------------------------------------------


def test_cache_entries_as_written_before_the_entry_model_still_read(tmp_path: Path) -> None:
    cache = JudgeCache(lambda: tmp_path, {"model": "m"})
    text, weighted = (cache.key(RELEVANCE, "ticket", r, 0) for r in ("text", "weighted"))
    earlier = {  # the files the cache wrote before: the same keys, the same checksum
        text: {
            "key": text,
            "score": 4,
            "reasoning": "ok",
            "prompt_tokens": 9,
            "completion_tokens": 2,
        },
        weighted: {
            "key": weighted,
            "score": 3.87,
            "reasoning": "ok",
            "prompt_tokens": 9,
            "completion_tokens": 2,
            "text_score": 4,
        },
    }
    for key, stored in earlier.items():
        path = tmp_path / key[:2] / f"{key}.json"
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps({**stored, "checksum": _checksum(stored)}))
    assert cache.get(text) == RunResult(4, "ok", 9, 2)
    assert cache.get(weighted) == RunResult(3.87, "ok", 9, 2, text_score=4)
    cache.put(weighted, RunResult(3.87, "ok", 9, 2, text_score=4))  # written again: the same
    cache.close()
    with sqlite3.connect(tmp_path / DATABASE) as db:
        (row,) = db.execute("SELECT entry FROM entries WHERE key = ?", (weighted,)).fetchone()
    assert json.loads(row) == {**earlier[weighted], "checksum": _checksum(earlier[weighted])}


def test_tampered_or_invalid_cache_entries_are_misses(tmp_path: Path) -> None:
    cache = JudgeCache(lambda: tmp_path, {"model": "m"})
    key = cache.key(RELEVANCE, "ticket", "response", 0)
    path = tmp_path / key[:2] / f"{key}.json"  # a run's file (the database's rows: elsewhere)
    path.parent.mkdir()
    path.write_text(entry_text(key, RunResult(2, "weak", 10, 2)))
    assert cache.get(key) == RunResult(2, "weak", 10, 2)
    good = json.loads(path.read_text())

    def served(**change: object) -> RunResult | None:
        path.write_text(json.dumps({**good, **change}))
        return cache.get(key)

    assert served(score=5) is None  # edited after it was written: the checksum says so
    for bad in (True, 4.0, 0, 6, "4"):
        stored = {**good, "score": bad}
        del stored["checksum"]
        assert served(score=bad, checksum=_checksum(stored)) is None, bad
    for field, bad in (("prompt_tokens", True), ("prompt_tokens", -1), ("reasoning", 3)):
        stored = {**good, field: bad}
        del stored["checksum"]
        assert served(**{field: bad, "checksum": _checksum(stored)}) is None, (field, bad)
    path.write_text(json.dumps(good))
    assert cache.get(key) is not None
    other = cache.key(RELEVANCE, "ticket", "other response", 0)
    moved = tmp_path / other[:2] / f"{other}.json"  # a whole, valid entry under another key
    moved.parent.mkdir(exist_ok=True)
    path.rename(moved)
    assert JudgeCache(lambda: tmp_path, {"model": "m"}).get(other) is None  # its folder listed

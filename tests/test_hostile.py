"""Hostile conditions: one bad item stays one bad item, faults cost little time."""

from __future__ import annotations

import asyncio
import socket
import time

import pytest

from pytest_llmjudge.budget import BREAKER_FAILURES, Budget
from pytest_llmjudge.limiter import AdaptiveLimit

from conftest import by_id, entry, read_results, run, write_evals
from judge_server import JudgeServer


def test_a_400_for_one_item_is_that_items_error_only(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    judge_server.context_chars = 5_000
    long_log = "ERROR stack trace line\n" * 400  # ~9,000 characters: over the judge's window
    entries = [entry("before"), entry("huge", long_log, ticket="t2")]
    entries += [entry(f"after{i}", ticket=f"t{i + 3}") for i in range(5)]
    write_evals(pytester, entries)
    result = run(pytester, "evals/", "-p", "no:randomly")
    result.assert_outcomes(passed=6, errors=1)
    rows = by_id(read_results(pytester))
    assert "400 rejected: This model's maximum context length" in rows["huge"]["error"]
    assert all(rows[f"after{i}"]["outcome"] == "passed" for i in range(5))
    assert judge_server.count() == 7 * 2  # one request per run: a 400 is not retried


@pytest.mark.parametrize(
    ("status", "meaning"),
    [(401, "the API key was refused"), (404, "the model or the base URL does not exist")],
)
def test_session_wide_refusals_stop_the_session_and_say_which(
    pytester: pytest.Pytester, judge_server: JudgeServer, status: int, meaning: str
) -> None:
    write_evals(pytester, [entry(f"e{i}", f"answer {{{{fail={status}x99}}}}") for i in range(4)])
    result = run(pytester, "evals/", "--judge-concurrency=1", "-p", "no:randomly")
    result.assert_outcomes(errors=4)
    assert judge_server.count() == 1  # nobody asks again after the refusal
    assert meaning in result.stdout.str()


def _dead_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def test_an_unreachable_judge_is_given_up_once_and_named(
    pytester: pytest.Pytester, judge_server: JudgeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"http://user:secret-pass@127.0.0.1:{_dead_port()}/v1"
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    monkeypatch.setenv("JUDGE_RETRY_WAIT", "0.5")  # backoff as a real session has it
    write_evals(pytester, [entry(f"e{i}", ticket=f"t{i}") for i in range(20)])
    started = time.monotonic()
    result = run(pytester, "evals/")
    elapsed = time.monotonic() - started
    result.assert_outcomes(errors=20)
    assert elapsed < 15, elapsed  # without the breaker: 20 items x 2 dims x 5 attempts of backoff
    text = result.stdout.str()
    assert f"cannot reach the judge at http://127.0.0.1:{url.rsplit(':', 1)[1]}" in text
    assert "no more judge calls in this session" in text
    assert "secret-pass" not in text
    calls = read_results(pytester)["meta"]["calls"]
    assert calls < 20 * 2 * 5  # the breaker stopped the calls


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


def test_a_run_waiting_out_retry_after_lets_the_next_items_start(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    # The first item's runs wait 2 s after a 429; with one slot, the others must not wait.
    from judge_server import Reply, directive_script

    def script(request):  # type: ignore[no-untyped-def]
        if "wait" in request.response and request.nth == 0:
            return Reply(status=429, headers={"retry-after": "2"}, error_message="slow down")
        return directive_script(request)

    judge_server.script = script
    write_evals(
        pytester, [entry("waits", "wait"), *[entry(f"e{i}", ticket=f"t{i}") for i in range(6)]]
    )
    started = time.monotonic()
    result = run(pytester, "evals/", "--judge-concurrency=2", "-p", "no:randomly", "-v")
    result.assert_outcomes(passed=7)
    assert time.monotonic() - started < 4.5
    order = [r.response for r in judge_server.requests]
    assert order[-2:] == ["wait", "wait"]  # the others were all judged while it waited

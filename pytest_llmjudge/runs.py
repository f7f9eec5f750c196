"""One judge run carried out: the cache, the judge with retries, the budget, the circuit
breaker and the concurrency limit. Values in, a ``RunOutcome`` out; never raises."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from .budget import Budget, BudgetExhausted
from .cache import JudgeCache
from .judges import (
    FatalJudgeError,
    Judge,
    JudgeCallError,
    RetryableJudgeError,
    RunResult,
    UnreachableJudgeError,
    Usage,
)
from .judgment import RunOutcome
from .limiter import AdaptiveLimit
from .redaction import redact
from .retry import RetryAfterTooLong, retrying
from .rubrics import Dimension
from .settings import Settings
from .trace import TraceWriter

logger = logging.getLogger("pytest_llmjudge")

RunKey = tuple[str, str, str, str, int, int]


@dataclass(frozen=True)
class PlannedRun:
    dimension: Dimension
    ticket: str
    response: str
    run_index: int
    generation: int = 0  # > 0: a rerun of the item judges afresh (no memory, no disk cache)
    owner: str = field(default="", compare=False)  # the item it is judged for, for messages

    @property
    def key(self) -> RunKey:
        d = self.dimension
        return (d.name, d.version, self.ticket, self.response, self.run_index, self.generation)


@dataclass
class RunExecutor:
    """What every run of a session shares: the judge, the cache, the budget, the limit."""

    settings: Settings
    judge: Judge
    cache: JudgeCache | None
    budget: Budget
    limit: AdaptiveLimit
    trace: TraceWriter | None = None

    async def run(
        self, run: PlannedRun, usage: Usage, first_attempt_done: Callable[[], None] | None
    ) -> RunOutcome:
        """Judge one run: from the cache, else by the judge with retries; never raises."""
        judge = self.judge
        cache_key = None
        done = _once(first_attempt_done)
        try:
            if self.cache is not None and run.generation == 0:
                cache_key = self.cache.key(run.dimension, run.ticket, run.response, run.run_index)
                cached = self.cache.get(cache_key)
                if cached is not None:
                    self._trace(run, 0, cached=True, score=cached.score)
                    return RunOutcome(cached, None, 0, cached=True)
            return await self._judge_with_retries(judge, run, usage, cache_key, done)
        finally:
            done()
            self.budget.spend(usage)  # what the replies billed, rejected ones included

    async def _judge_with_retries(
        self,
        judge: Judge,
        run: PlannedRun,
        usage: Usage,
        cache_key: str | None,
        first_attempt_done: Callable[[], None],
    ) -> RunOutcome:
        s = self.settings
        attempts = 0
        try:
            async for attempt in retrying(
                RetryableJudgeError,
                attempts=s.max_retries + 1,
                first_wait=s.retry_wait,
                max_seconds=s.timeout * (s.max_retries + 1),
                what=f"judge call for {run.owner or 'a test'} ({run.dimension.name}, "
                f"run {run.run_index + 1})",
            ):
                with attempt:
                    try:
                        async with self.limit:
                            self.budget.take_request()
                            attempts += 1
                            result = await self._traced(judge, run, usage, attempts)
                    finally:
                        first_attempt_done()
                    # a judge echoing a secret must not carry it into results or the cache
                    result = replace(result, reasoning=redact(result.reasoning))
                    if cache_key is not None:
                        assert self.cache is not None
                        self.cache.put(cache_key, result)
                    return RunOutcome(result, None, usage.requests)
        except BudgetExhausted as exc:
            return RunOutcome(None, redact(str(exc)), usage.requests)
        except FatalJudgeError as exc:
            # Bad key, unknown model, unreachable: every later call would fail the same way.
            self.budget.fatal = self.budget.fatal or redact(str(exc))
            reason = f"judge call failed: {exc} (not retried)"
            return RunOutcome(None, redact(reason), usage.requests)
        except (JudgeCallError, RetryAfterTooLong) as exc:
            reason = f"judge call failed after {attempts} attempts: {exc}"
            logger.warning("%s: %s", run.owner or "a test", redact(reason), exc_info=exc)
            return RunOutcome(None, redact(reason), usage.requests)
        raise AssertionError("unreachable")  # pragma: no cover

    async def _traced(self, judge: Judge, run: PlannedRun, usage: Usage, attempt: int) -> RunResult:
        """One attempt, and with --judge-trace its line: what was sent, what came back."""
        if self.trace is None:
            return await self._call_counted(judge, run, usage)
        before = Usage(usage.requests, usage.prompt_tokens, usage.completion_tokens)
        usage.exchanges = []
        started = time.monotonic()
        try:
            result = await self._call_counted(judge, run, usage)
        except Exception as exc:
            self._trace(run, attempt, usage=usage, before=before, started=started, error=exc)
            raise
        self._trace(run, attempt, usage=usage, before=before, started=started, score=result.score)
        return result

    def _trace(
        self,
        run: PlannedRun,
        attempt: int,
        *,
        cached: bool = False,
        usage: Usage | None = None,
        before: Usage | None = None,
        started: float | None = None,
        score: int | None = None,
        error: BaseException | None = None,
    ) -> None:
        if self.trace is None:
            return
        exchange = (usage.exchanges or [{}])[-1] if usage is not None else {}
        self.trace.write(
            {
                "nodeid": run.owner or None,
                "dimension": run.dimension.name,
                "run": run.run_index + 1,
                "attempt": attempt,
                "cached": cached,
                "messages": exchange.get("messages"),
                "reply": exchange.get("reply"),
                "score": score,
                "latency_s": None if started is None else round(time.monotonic() - started, 4),
                "prompt_tokens": 0
                if usage is None or before is None
                else usage.prompt_tokens - before.prompt_tokens,
                "completion_tokens": 0
                if usage is None or before is None
                else usage.completion_tokens - before.completion_tokens,
                "error": None if error is None else str(error),
            }
        )

    async def _call_counted(self, judge: Judge, run: PlannedRun, usage: Usage) -> RunResult:
        """One attempt, telling the circuit breaker whether the judge could be reached."""
        try:
            result = await self._call(judge, run, usage)
        except UnreachableJudgeError as exc:
            self.budget.connection_failed(str(exc))
            raise
        except JudgeCallError as exc:
            self.budget.connection_ok()  # an HTTP error is an answer
            if exc.throttled:
                self.limit.throttled()
            raise
        self.budget.connection_ok()
        self.limit.succeeded()
        return result

    async def _call(self, judge: Judge, run: PlannedRun, usage: Usage) -> RunResult:
        try:
            return await asyncio.wait_for(
                judge.judge_once(run.dimension, run.ticket, run.response, usage=usage),
                self.settings.timeout,
            )
        except asyncio.TimeoutError:
            raise RetryableJudgeError(f"timed out after {self.settings.timeout:g}s") from None


def _once(callback: Callable[[], None] | None) -> Callable[[], None]:
    """``callback`` to be called at most once (no-op without one)."""
    called = False

    def call() -> None:
        nonlocal called
        if callback is not None and not called:
            called = True
            callback()

    return call

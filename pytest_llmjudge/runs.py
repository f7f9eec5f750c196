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
    ChoicesJudge,
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
    #: the server answered a request for n choices with fewer: ask one request per run
    choices_ignored: bool = False

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

    async def run_group(
        self,
        runs: list[PlannedRun],
        usages: list[Usage],
        first_attempt_done: Callable[[], None] | None,
    ) -> list[RunOutcome]:
        """Judge the runs of one (dimension, ticket, response) together: cached runs from the
        cache, the others as the choices of one request (``--judge-sampling``), or one
        request each where the judge or the server cannot give choices; never raises."""
        done = _once(first_attempt_done)
        outcomes: dict[int, RunOutcome] = {}
        missing: list[int] = []
        for i, run in enumerate(runs):
            cached = self._cached(run)
            if cached is not None:
                outcomes[i] = cached
            else:
                missing.append(i)
        if len(missing) > 1 and self._choices_wanted():
            got = await self._choices(
                [runs[i] for i in missing], usages[missing[0]], done, len(missing)
            )
            for i, outcome in zip(missing, got, strict=False):
                outcomes[i] = outcome
            missing = missing[len(got) :]
        singles = [self.run(runs[i], usages[i], done) for i in missing]
        for i, outcome in zip(missing, await asyncio.gather(*singles), strict=True):
            outcomes[i] = outcome
        done()
        return [outcomes[i] for i in range(len(runs))]

    def _choices_wanted(self) -> bool:
        return (
            self.settings.sampling != "calls"
            and isinstance(self.judge, ChoicesJudge)
            and not self.choices_ignored
        )

    def _cached(self, run: PlannedRun) -> RunOutcome | None:
        if self.cache is None or run.generation != 0:
            return None
        cached = self.cache.get(
            self.cache.key(run.dimension, run.ticket, run.response, run.run_index)
        )
        if cached is None:
            return None
        self._trace(run, 0, cached=True, score=cached.score)
        return RunOutcome(cached, None, 0, cached=True)

    async def _choices(
        self,
        runs: list[PlannedRun],
        usage: Usage,
        first_attempt_done: Callable[[], None],
        n: int,
    ) -> list[RunOutcome]:
        """One request for ``n`` choices, retried as a whole. Returns an outcome per choice
        received; fewer than ``n`` when the server ignored ``n`` (then, with ``auto``, the
        rest are asked one by one and later groups too; with ``choices`` they are errors)."""
        first = runs[0]
        attempts = 0
        s = self.settings
        judge = self.judge
        assert isinstance(judge, ChoicesJudge)
        try:
            async for attempt in retrying(
                RetryableJudgeError,
                attempts=s.max_retries + 1,
                first_wait=s.retry_wait,
                max_seconds=s.timeout * (s.max_retries + 1),
                what=f"judge call for {first.owner or 'a test'} ({first.dimension.name}, "
                f"runs {first.run_index + 1}-{first.run_index + n})",
            ):
                with attempt:
                    try:
                        async with self.limit:
                            self.budget.take_request()
                            attempts += 1
                            results = await self._call_choices(judge, first, usage, n)
                    finally:
                        first_attempt_done()
        except BudgetExhausted as exc:
            return _failed(redact(str(exc)), usage, n)
        except FatalJudgeError as exc:
            self.budget.fatal = self.budget.fatal or redact(str(exc))
            return _failed(redact(f"judge call failed: {exc} (not retried)"), usage, n)
        except (JudgeCallError, RetryAfterTooLong) as exc:
            reason = f"judge call failed after {attempts} attempts: {exc}"
            logger.warning("%s: %s", first.owner or "a test", redact(reason), exc_info=exc)
            return _failed(redact(reason), usage, n)
        finally:
            self.budget.spend(usage)
        outcomes: list[RunOutcome] = []
        for run, result in zip(runs, results, strict=False):
            result = replace(result, reasoning=redact(result.reasoning))
            if self.cache is not None and run.generation == 0:
                key = self.cache.key(run.dimension, run.ticket, run.response, run.run_index)
                self.cache.put(key, result)
            outcomes.append(RunOutcome(result, None, usage.requests if not outcomes else 0))
        if len(results) < n:
            message = (
                f"the judge returned {len(results)} of {n} choices asked for: this server ignores n"
            )
            if s.sampling == "choices":
                error = f"{message}; use --judge-sampling=auto or calls"
                outcomes += [RunOutcome(None, error, 0)] * (n - len(results))
            else:
                self.choices_ignored = True
                logger.warning("%s; runs are asked one request each from now on", message)
        return outcomes

    async def _call_choices(
        self, judge: ChoicesJudge, run: PlannedRun, usage: Usage, n: int
    ) -> list[RunResult]:
        before = Usage(usage.requests, usage.prompt_tokens, usage.completion_tokens)
        if self.trace is not None:
            usage.exchanges = []
        started = time.monotonic()
        try:
            results = await self._choices_counted(judge, run, usage, n)
        except Exception as exc:
            self._trace(run, usage.requests, usage=usage, before=before, started=started, error=exc)
            raise
        self._trace(
            run, usage.requests, usage=usage, before=before, started=started, score=results[0].score
        )
        return results

    async def _choices_counted(
        self, judge: ChoicesJudge, run: PlannedRun, usage: Usage, n: int
    ) -> list[RunResult]:
        try:
            results = await asyncio.wait_for(
                judge.judge_choices(run.dimension, run.ticket, run.response, n, usage=usage),
                self.settings.timeout,
            )
        except asyncio.TimeoutError:
            raise RetryableJudgeError(f"timed out after {self.settings.timeout:g}s") from None
        except UnreachableJudgeError as exc:
            self.budget.connection_failed(str(exc))
            raise
        except JudgeCallError as exc:
            self.budget.connection_ok()
            if exc.throttled:
                self.limit.throttled()
            raise
        self.budget.connection_ok()
        self.limit.succeeded()
        return results

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


def _failed(reason: str, usage: Usage, n: int) -> list[RunOutcome]:
    """The same failure for each of n runs asked in one request; its requests on the first."""
    return [RunOutcome(None, reason, usage.requests if i == 0 else 0) for i in range(n)]


def _once(callback: Callable[[], None] | None) -> Callable[[], None]:
    """``callback`` to be called at most once (no-op without one)."""
    called = False

    def call() -> None:
        nonlocal called
        if callback is not None and not called:
            called = True
            callback()

    return call

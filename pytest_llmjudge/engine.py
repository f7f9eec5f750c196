"""Scheduling of judge calls: one event loop per session, bounded concurrency, retries.

Items run in pytest's thread; judge calls run as tasks on a private event loop in a
background thread. That keeps one loop (and one SDK client) for the whole session,
never calls ``asyncio.run()`` inside a user's running loop (pytest-asyncio), and lets
the runs and dimensions of a judgment go out concurrently.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception_type,
    stop_after_attempt,
    stop_after_delay,
    wait_exponential_jitter,
)

from .judges import FatalJudgeError, Judge, JudgeCallError, RetryableJudgeError, RunResult
from .rubrics import DIMENSIONS, Dimension
from .settings import Settings
from .stats import aggregate

T = TypeVar("T")

# A server that asks for a longer pause than this is treated as "not now": we give up.
MAX_RETRY_AFTER = 60.0
MAX_BACKOFF = 30.0


class JudgeError(Exception):
    """A dimension could not be judged at all: every run failed."""


@dataclass(frozen=True)
class RunOutcome:
    """The fate of one run: a result or the error that ended it, and what it cost."""

    result: RunResult | None
    error: str | None
    attempts: int


@dataclass(frozen=True)
class Judgment:
    """The aggregate of N judge runs on one dimension, against its threshold."""

    dimension: str
    score: float
    runs: tuple[int, ...]
    std: float
    agreement: float
    threshold: float
    reasoning: str
    unstable: bool
    failed_runs: tuple[str, ...] = ()
    calls: int = 0
    reused_runs: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def passed(self) -> bool:
        return self.score >= self.threshold

    def to_record(self) -> dict[str, Any]:
        """Plain data for the results JSON (and the xdist wire)."""
        return {
            "score": round(self.score, 4),
            "runs": list(self.runs),
            "std": round(self.std, 4),
            "agreement": round(self.agreement, 4),
            "threshold": self.threshold,
            "passed": self.passed,
            "unstable": self.unstable,
            "reasoning": self.reasoning,
            "failed_runs": list(self.failed_runs),
            "calls": self.calls,
            "reused_runs": self.reused_runs,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
        }


def build_judgment(
    dimension: str, outcomes: Sequence[RunOutcome], threshold: float, reused: Sequence[bool] = ()
) -> Judgment:
    """Aggregate the successful runs; raise JudgeError when none succeeded.

    ``reused`` flags the runs another judgment already paid for: they count no calls.
    """
    reused = list(reused) or [False] * len(outcomes)
    results = [o.result for o in outcomes if o.result is not None]
    failures = tuple(o.error for o in outcomes if o.error is not None)
    paid = [o for o, was_reused in zip(outcomes, reused, strict=True) if not was_reused]
    calls = sum(o.attempts for o in paid)
    if not results:
        reasons = sorted(set(failures))
        raise JudgeError(f"{dimension}: " + "; ".join(reasons))
    scores = [r.score for r in results]
    agg = aggregate(scores, threshold)
    return Judgment(
        dimension=dimension,
        score=agg.mean,
        runs=tuple(scores),
        std=agg.std,
        agreement=agg.agreement,
        threshold=threshold,
        reasoning=results[agg.nearest_run].reasoning,
        unstable=agg.straddles,
        failed_runs=failures,
        calls=calls,
        reused_runs=sum(reused),
        prompt_tokens=sum(r.prompt_tokens for r in results),
        completion_tokens=sum(r.completion_tokens for r in results),
    )


class _LoopThread:
    """An event loop running in a daemon thread, fed from other threads."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self.loop.run_forever, name="llmjudge-loop", daemon=True
        )
        self._thread.start()

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def stop(self, final: Callable[[], Coroutine[Any, Any, None]]) -> None:
        async def shutdown() -> None:
            current = asyncio.current_task()
            pending = [t for t in asyncio.all_tasks() if t is not current]
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
            await final()

        # A client that will not close in time must not hang the end of the session.
        with contextlib.suppress(concurrent.futures.TimeoutError, RuntimeError):
            self.submit(shutdown()).result(timeout=10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=10)
        self.loop.close()


@dataclass
class JudgeEngine:
    """Runs judge calls for a session. Identical runs within a session are made once."""

    settings: Settings
    judge_factory: Callable[[Settings], Judge]
    _judge: Judge | None = field(default=None, init=False)
    _loop: _LoopThread | None = field(default=None, init=False)
    _semaphore: asyncio.Semaphore | None = field(default=None, init=False)
    _runs: dict[tuple[str, ...], concurrent.futures.Future[RunOutcome]] = field(
        default_factory=dict, init=False
    )
    _claimed: set[tuple[str, ...]] = field(default_factory=set, init=False)
    _fatal: str | None = field(default=None, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)

    def dimension(self, name: str) -> Dimension:
        try:
            return DIMENSIONS[name]
        except KeyError:
            raise JudgeError(
                f"unknown dimension '{name}' (known: {', '.join(DIMENSIONS)})"
            ) from None

    def _start(self) -> _LoopThread:
        if self._loop is None:
            self._judge = self.judge_factory(self.settings)
            self._loop = _LoopThread()
        return self._loop

    def submit_run(
        self, dimension: Dimension, ticket: str, response: str, run_index: int, claim: bool = True
    ) -> tuple[concurrent.futures.Future[RunOutcome], bool]:
        """Start one run unless the same run is already known.

        Returns (future, reused): reused when an earlier judgment already claimed this run,
        so its calls are not counted twice. A prefetch starts a run without claiming it.
        """
        key = (dimension.name, dimension.version, ticket, response, str(run_index))
        with self._lock:
            future = self._runs.get(key)
            if future is None:
                future = self._start().submit(self._run(dimension, ticket, response))
                self._runs[key] = future
            reused = key in self._claimed
            if claim:
                self._claimed.add(key)
            return future, reused

    def judge(
        self, dimension_name: str, ticket: str, response: str, runs: int, threshold: float
    ) -> Judgment:
        """Judge one dimension ``runs`` times and aggregate; blocks until done."""
        dimension = self.dimension(dimension_name)
        submitted = [self.submit_run(dimension, ticket, response, i) for i in range(runs)]
        outcomes = [future.result() for future, _ in submitted]
        reused = [was_reused for _, was_reused in submitted]
        return build_judgment(dimension.name, outcomes, threshold, reused)

    def prefetch(
        self, dimension_names: Sequence[str], ticket: str, response: str, runs: int
    ) -> None:
        """Start the runs of several dimensions now so that they overlap."""
        for name in dimension_names:
            dimension = self.dimension(name)
            for i in range(runs):
                self.submit_run(dimension, ticket, response, i, claim=False)

    async def _run(self, dimension: Dimension, ticket: str, response: str) -> RunOutcome:
        assert self._judge is not None
        judge = self._judge
        if self._semaphore is None:
            self._semaphore = asyncio.Semaphore(self.settings.concurrency)
        semaphore = self._semaphore
        attempts = 0
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.settings.max_retries + 1)
            | stop_after_delay(self.settings.timeout * (self.settings.max_retries + 1)),
            wait=self._wait,
            retry=retry_if_exception_type(RetryableJudgeError),
            reraise=True,
        )
        try:
            async for attempt in retrying:
                with attempt:
                    if self._fatal is not None:
                        raise FatalJudgeError(self._fatal)
                    attempts += 1
                    async with semaphore:
                        result = await self._call(judge, dimension, ticket, response)
                    return RunOutcome(result, None, attempts)
        except FatalJudgeError as exc:
            # Bad key, unknown model...: every later call would fail the same way.
            self._fatal = str(exc)
            return RunOutcome(None, f"judge call failed: {exc} (not retried)", attempts)
        except JudgeCallError as exc:
            return RunOutcome(None, f"judge call failed after {attempts} attempts: {exc}", attempts)
        raise AssertionError("unreachable")  # pragma: no cover

    async def _call(
        self, judge: Judge, dimension: Dimension, ticket: str, response: str
    ) -> RunResult:
        try:
            return await asyncio.wait_for(
                judge.judge_once(dimension, ticket, response), self.settings.timeout
            )
        except asyncio.TimeoutError:
            raise RetryableJudgeError(f"timed out after {self.settings.timeout:g}s") from None

    def _wait(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        retry_after = getattr(exc, "retry_after", None)
        if retry_after is not None:
            if retry_after > MAX_RETRY_AFTER:
                raise JudgeCallError(
                    f"{exc} (server asked to retry after {retry_after:.0f}s; giving up)"
                )
            return float(retry_after)
        base = self.settings.retry_wait
        backoff = wait_exponential_jitter(multiplier=base, max=MAX_BACKOFF, jitter=base)
        return backoff(state)

    def close(self) -> None:
        """Cancel what is still running and close the client and the loop."""
        if self._loop is None:
            return
        judge = self._judge
        assert judge is not None
        self._loop.stop(judge.aclose)
        self._loop = None

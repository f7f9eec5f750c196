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
import logging
import os
import threading
from collections import deque
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

from .cache import JudgeCache
from .judges import FatalJudgeError, Judge, JudgeCallError, RetryableJudgeError, RunResult
from .redaction import redact
from .rubrics import Dimension
from .settings import Settings
from .stats import aggregate, confidence_interval, decide, interval_fields
from .targets import RetryableTargetError, TargetError, ask

T = TypeVar("T")
logger = logging.getLogger("pytest_llmjudge")

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
    attempts: int  # requests sent, retries included (0 when served from the cache)
    cached: bool = False


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
    cached_runs: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    decision: str = ""  # pass, fail or unstable (see stats.decide); derived when empty
    ci_low: float | None = None
    ci_high: float | None = None
    extra_runs: int = 0  # added by --judge-adaptive
    mode: str = "mean"  # the verdict rule that made ``decision``

    def __post_init__(self) -> None:
        if not self.decision:
            verdict = decide(self.score, self.std, len(self.runs), self.threshold, "mean")
            object.__setattr__(self, "decision", verdict)

    @property
    def passed(self) -> bool:
        return self.decision == "pass"

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
            "cached_runs": self.cached_runs,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "decision": self.decision,
            **interval_fields(self.ci_low, self.ci_high),
            "extra_runs": self.extra_runs,
        }


def build_judgment(
    dimension: str,
    outcomes: Sequence[RunOutcome],
    threshold: float,
    reused: Sequence[bool] = (),
    mode: str = "mean",
    extra_runs: int = 0,
) -> Judgment:
    """Aggregate the successful runs; raise JudgeError when none succeeded.

    ``reused`` flags runs another judgment of this session already paid for: they count as
    cached, like runs served from the disk cache, and cost no calls or tokens.
    """
    reused = list(reused) or [False] * len(outcomes)
    paid = [
        o for o, was_reused in zip(outcomes, reused, strict=True) if not was_reused and not o.cached
    ]
    results = [o.result for o in outcomes if o.result is not None]
    failures = tuple(o.error for o in outcomes if o.error is not None)
    if not results:
        reasons = sorted(set(failures))
        raise JudgeError(f"{dimension}: " + "; ".join(reasons))
    scores = [r.score for r in results]
    agg = aggregate(scores, threshold)
    low, high = confidence_interval(agg.mean, agg.std, len(scores))
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
        calls=sum(o.attempts for o in paid),
        cached_runs=len(outcomes) - len(paid),
        prompt_tokens=sum(o.result.prompt_tokens for o in paid if o.result is not None),
        completion_tokens=sum(o.result.completion_tokens for o in paid if o.result is not None),
        decision=decide(agg.mean, agg.std, len(scores), threshold, mode),
        mode=mode,
        ci_low=low,
        ci_high=high,
        extra_runs=extra_runs,
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


RunKey = tuple[str, str, str, str, int]


@dataclass(frozen=True)
class PlannedRun:
    dimension: Dimension
    ticket: str
    response: str
    run_index: int

    @property
    def key(self) -> RunKey:
        d = self.dimension
        return (d.name, d.version, self.ticket, self.response, self.run_index)


class BudgetExhausted(JudgeCallError):
    """No new calls may be made: ``--judge-max-calls`` or ``--judge-max-cost`` was reached."""


@dataclass
class JudgeEngine:
    """Runs judge calls for a session.

    Runs are identified by (dimension, rubric version, ticket, response, run index); each is
    made at most once per session. Runs of upcoming items can be *planned*: they start in
    plan order as capacity frees, so that while pytest reports one item the next items'
    calls are already in flight, and at most ``concurrency`` requests are open at once.
    """

    settings: Settings
    judge_factory: Callable[[Settings], Judge]
    cache: JudgeCache | None = None
    _judge: Judge | None = field(default=None, init=False)
    _loop: _LoopThread | None = field(default=None, init=False)
    _semaphore: asyncio.Semaphore | None = field(default=None, init=False)
    _runs: dict[RunKey, concurrent.futures.Future[RunOutcome]] = field(
        default_factory=dict, init=False
    )
    _planned: deque[PlannedRun] = field(default_factory=deque, init=False)
    _planned_active: int = field(default=0, init=False)
    _claimed: set[RunKey] = field(default_factory=set, init=False)
    _answers: dict[tuple[str, str], concurrent.futures.Future[str]] = field(
        default_factory=dict, init=False
    )
    _fatal: str | None = field(default=None, init=False)
    _requests: int = field(default=0, init=False)
    _spent_usd: float = field(default=0.0, init=False)
    _lock: threading.RLock = field(default_factory=threading.RLock, init=False)

    def dimension(self, name: str) -> Dimension:
        try:
            return self.settings.dimensions[name]
        except KeyError:
            raise JudgeError(
                f"unknown dimension '{name}' (known: {', '.join(self.settings.dimensions)})"
            ) from None

    def _start_loop(self) -> _LoopThread:
        if self._loop is None:
            self._judge = self.judge_factory(self.settings)
            self._loop = _LoopThread()
        return self._loop

    def _start(self, run: PlannedRun) -> concurrent.futures.Future[RunOutcome]:
        """Start a run unless it is already running or done (caller holds the lock)."""
        future = self._runs.get(run.key)
        if future is None:
            future = self._start_loop().submit(self._run(run))
            self._runs[run.key] = future
        return future

    def plan(self, dimension_names: Sequence[str], ticket: str, response: str, runs: int) -> None:
        """Queue the runs of an upcoming item; they start in order as capacity frees."""
        with self._lock:
            for name in dimension_names:
                dimension = self.dimension(name)
                self._planned.extend(
                    PlannedRun(dimension, ticket, response, i) for i in range(runs)
                )
        self._pump()

    def cancel_planned(self) -> None:
        """Forget queued runs (``-x``/``--maxfail`` stopped the session); running ones end."""
        with self._lock:
            self._planned.clear()

    def _pump(self) -> None:
        with self._lock:
            while self._planned and self._planned_active < self.settings.concurrency:
                run = self._planned.popleft()
                if run.key in self._runs:
                    continue
                self._planned_active += 1
                self._start(run).add_done_callback(self._planned_done)

    def _planned_done(self, _: concurrent.futures.Future[RunOutcome]) -> None:
        with self._lock:
            self._planned_active -= 1
        self._pump()

    def judge(
        self, dimension_name: str, ticket: str, response: str, runs: int, threshold: float
    ) -> Judgment:
        """Judge one dimension ``runs`` times and aggregate; blocks until done.

        With ``--judge-adaptive``, a verdict that is still uncertain after those runs (runs on
        both sides of the threshold, a mean within the margin, or an undecided confidence
        interval) gets more runs, in rounds, up to ``--judge-max-runs``.
        """
        dimension = self.dimension(dimension_name)
        mode = self.settings.verdict
        outcomes: list[RunOutcome] = []
        reused: list[bool] = []
        limit = max(runs, self.settings.max_runs) if self.settings.adaptive else runs
        batch = runs
        while True:
            first = len(outcomes)
            planned = [
                PlannedRun(dimension, ticket, response, i) for i in range(first, first + batch)
            ]
            with self._lock:
                futures = [self._start(run) for run in planned]
                reused += [run.key in self._claimed for run in planned]
                self._claimed.update(run.key for run in planned)
            outcomes += [future.result() for future in futures]
            judgment = build_judgment(
                dimension.name, outcomes, threshold, reused, mode, extra_runs=len(outcomes) - runs
            )
            if len(outcomes) >= limit or not self._uncertain(judgment):
                return judgment
            batch = min(max(runs, 2), limit - len(outcomes))

    def _uncertain(self, judgment: Judgment) -> bool:
        if judgment.decision == "unstable" or judgment.unstable:
            return True
        return abs(judgment.score - judgment.threshold) < self.settings.adaptive_margin

    def _answer_future(self, target: str, ticket: str) -> concurrent.futures.Future[str]:
        with self._lock:
            future = self._answers.get((target, ticket))
            if future is None:
                future = self._start_loop().submit(self._ask(target, ticket))
                self._answers[(target, ticket)] = future
            return future

    def answer(self, target: str, ticket: str) -> str:
        """The target's answer to the ticket, asked once per session; JudgeError if none."""
        try:
            return self._answer_future(target, ticket).result()
        except TargetError as exc:
            raise JudgeError(f"target {target}: {redact(str(exc))}") from None

    def plan_answer(
        self, target: str, ticket: str, dimension_names: Sequence[str], runs: int
    ) -> None:
        """Ask the target now, and plan the judge runs of its answer as soon as it arrives."""

        def plan_runs(future: concurrent.futures.Future[str]) -> None:
            if not future.cancelled() and future.exception() is None:
                self.plan(dimension_names, ticket, future.result(), runs)

        self._answer_future(target, ticket).add_done_callback(plan_runs)

    async def _ask(self, target_name: str, ticket: str) -> str:
        config = self.settings.targets
        if config is None:
            raise TargetError("no targets are configured (--judge-targets)")
        target = config.get(target_name)
        if self._semaphore is None:
            self._semaphore = asyncio.Semaphore(self.settings.concurrency)
        semaphore = self._semaphore
        attempts = 0
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.settings.max_retries + 1),
            wait=self._wait,
            retry=retry_if_exception_type(RetryableTargetError),
            reraise=True,
        )
        try:
            async for attempt in retrying:
                with attempt:
                    attempts += 1
                    async with semaphore:
                        return await asyncio.to_thread(ask, target, ticket, config, os.environ)
        except RetryableTargetError as exc:
            raise TargetError(f"{exc} (after {attempts} attempts)") from None
        raise AssertionError("unreachable")  # pragma: no cover

    def prefetch(
        self, dimension_names: Sequence[str], ticket: str, response: str, runs: int
    ) -> None:
        """Start the runs of several dimensions now so that they overlap."""
        with self._lock:
            for name in dimension_names:
                dimension = self.dimension(name)
                for i in range(runs):
                    self._start(PlannedRun(dimension, ticket, response, i))

    async def _run(self, run: PlannedRun) -> RunOutcome:
        assert self._judge is not None
        judge = self._judge
        cache_key = None
        if self.cache is not None:
            cache_key = self.cache.key(run.dimension, run.ticket, run.response, run.run_index)
            cached = self.cache.get(cache_key)
            if cached is not None:
                return RunOutcome(cached, None, 0, cached=True)
        if self._semaphore is None:
            self._semaphore = asyncio.Semaphore(self.settings.concurrency)
        semaphore = self._semaphore
        attempts = 0
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.settings.max_retries + 1)
            | stop_after_delay(self.settings.timeout * (self.settings.max_retries + 1)),
            wait=self._wait,
            retry=retry_if_exception_type(RetryableJudgeError),
            before_sleep=_log_retry,
            reraise=True,
        )
        try:
            async for attempt in retrying:
                with attempt:
                    async with semaphore:
                        self._check_budget()
                        attempts += 1
                        self._requests += 1
                        result = await self._call(judge, run)
                    self._spend(result)
                    if self.cache is not None and cache_key is not None:
                        self.cache.put(cache_key, result)
                    return RunOutcome(result, None, attempts)
        except BudgetExhausted as exc:
            return RunOutcome(None, str(exc), attempts)
        except FatalJudgeError as exc:
            # Bad key, unknown model...: every later call would fail the same way.
            self._fatal = str(exc)
            return RunOutcome(None, f"judge call failed: {exc} (not retried)", attempts)
        except JudgeCallError as exc:
            return RunOutcome(None, f"judge call failed after {attempts} attempts: {exc}", attempts)
        raise AssertionError("unreachable")  # pragma: no cover

    def _check_budget(self) -> None:
        if self._fatal is not None:
            raise FatalJudgeError(self._fatal)
        limit = self.settings.max_calls
        if limit is not None and self._requests >= limit:
            raise BudgetExhausted(
                f"judge call budget exhausted: --judge-max-calls={limit} calls made; "
                "no new calls in this session"
            )
        cap, price = self.settings.max_cost, self.settings.price
        if cap is not None and price is not None and self._spent_usd >= cap:
            raise BudgetExhausted(
                f"judge cost budget exhausted: ${self._spent_usd:.4f} spent of "
                f"--judge-max-cost={cap:g}; no new calls in this session"
            )

    def _spend(self, result: RunResult) -> None:
        if self.settings.price is not None:
            self._spent_usd += self.settings.price.cost(
                result.prompt_tokens, result.completion_tokens
            )

    async def _call(self, judge: Judge, run: PlannedRun) -> RunResult:
        try:
            return await asyncio.wait_for(
                judge.judge_once(run.dimension, run.ticket, run.response),
                self.settings.timeout,
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
        self.cancel_planned()
        if self._loop is None:
            return
        judge = self._judge
        assert judge is not None
        self._loop.stop(judge.aclose)
        self._loop = None


def _log_retry(state: RetryCallState) -> None:
    # Long waits (rate limits) must not look like a hang: say what is happening.
    exc = state.outcome.exception() if state.outcome else None
    wait = state.next_action.sleep if state.next_action else 0.0
    logger.warning(
        "judge call attempt %d failed (%s); retrying in %.1fs",
        state.attempt_number,
        redact(str(exc)),
        wait,
    )

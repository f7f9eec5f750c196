"""Scheduling of judge calls and bot requests: planning ahead, bounded concurrency, budgets.

Runs are identified by (dimension, rubric version, ticket, response, run index); each is
made at most once per session, on the session's event loop (``loop.LoopThread``), retried
by the one retry policy (``retry.retrying``) and counted against the session's ``Budget``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .bots import ask, bot_client
from .budget import Budget, BudgetExhausted
from .cache import JudgeCache
from .judges import (
    FatalJudgeError,
    Judge,
    JudgeCallError,
    RetryableJudgeError,
    RunResult,
    Usage,
)
from .judgment import JudgeError, Judgment, RunOutcome, build_judgment
from .loop import LoopThread
from .redaction import redact
from .retry import RetryAfterTooLong, retrying
from .rubrics import Dimension
from .settings import Settings
from .targets import RetryableTargetError, TargetError

if TYPE_CHECKING:
    import httpx2

RunKey = tuple[str, str, str, str, int, int]


@dataclass(frozen=True)
class PlannedRun:
    dimension: Dimension
    ticket: str
    response: str
    run_index: int
    generation: int = 0  # > 0: a rerun of the item judges afresh (no memory, no disk cache)

    @property
    def key(self) -> RunKey:
        d = self.dimension
        return (d.name, d.version, self.ticket, self.response, self.run_index, self.generation)


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
    _loop: LoopThread | None = field(default=None, init=False)
    _bots: httpx2.AsyncClient | None = field(default=None, init=False)
    _semaphore: asyncio.Semaphore | None = field(default=None, init=False)
    _runs: dict[RunKey, concurrent.futures.Future[RunOutcome]] = field(
        default_factory=dict, init=False
    )
    _usage: dict[RunKey, Usage] = field(default_factory=dict, init=False)
    _planned: deque[PlannedRun] = field(default_factory=deque, init=False)
    _planned_active: int = field(default=0, init=False)
    _claimed: set[RunKey] = field(default_factory=set, init=False)
    _answers: dict[tuple[str, str], concurrent.futures.Future[str]] = field(
        default_factory=dict, init=False
    )
    _budget: Budget = field(init=False)
    _lock: threading.RLock = field(default_factory=threading.RLock, init=False)

    def __post_init__(self) -> None:
        s = self.settings
        self._budget = Budget(s.max_calls, s.max_cost, s.price)

    def dimension(self, name: str) -> Dimension:
        try:
            return self.settings.dimensions[name]
        except KeyError:
            raise JudgeError(
                f"unknown dimension '{name}' (known: {', '.join(self.settings.dimensions)})"
            ) from None

    def _start_loop(self) -> LoopThread:
        if self._loop is None:
            self._judge = self.judge_factory(self.settings)
            self._loop = LoopThread()
        return self._loop

    def _limit(self) -> asyncio.Semaphore:
        """The bound on requests in flight, judge calls and bot requests together."""
        if self._semaphore is None:  # created on the loop, at first use
            self._semaphore = asyncio.Semaphore(self.settings.concurrency)
        return self._semaphore

    def _start(self, run: PlannedRun) -> concurrent.futures.Future[RunOutcome]:
        """Start a run unless it is already running or done (caller holds the lock)."""
        future = self._runs.get(run.key)
        if future is None:
            usage = self._usage[run.key] = Usage()
            future = self._start_loop().submit(self._run(run, usage))
            self._runs[run.key] = future
        return future

    def totals(self) -> Usage:
        """Every request this engine sent and every token billed, whoever asked for them."""
        with self._lock:
            total = Usage()
            for usage in self._usage.values():
                total.add(usage)
            return total

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
        self,
        dimension_name: str,
        ticket: str,
        response: str,
        runs: int,
        threshold: float,
        *,
        generation: int = 0,
        paid: list[Usage] | None = None,
    ) -> Judgment:
        """Judge one dimension ``runs`` times and aggregate; blocks until done.

        With ``--judge-adaptive``, a verdict that is still uncertain after those runs (runs on
        both sides of the threshold, a mean within the margin, or an undecided confidence
        interval) gets more runs, in rounds, up to ``--judge-max-runs``. ``paid`` receives the
        usage of every run this call is the first to claim (also of runs that then fail or are
        abandoned), so that the caller's item is charged what its judging cost.
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
                PlannedRun(dimension, ticket, response, i, generation)
                for i in range(first, first + batch)
            ]
            with self._lock:
                futures = [self._start(run) for run in planned]
                fresh = [run.key not in self._claimed for run in planned]
                reused += [not is_fresh for is_fresh in fresh]
                self._claimed.update(run.key for run in planned)
                if paid is not None:
                    paid += [self._usage[r.key] for r, f in zip(planned, fresh, strict=True) if f]
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
        if self._bots is None:
            self._bots = bot_client(config)
        attempts = 0
        try:
            async for attempt in retrying(
                RetryableTargetError,
                attempts=self.settings.max_retries + 1,
                first_wait=self.settings.retry_wait,
            ):
                with attempt:
                    attempts += 1
                    async with self._limit():
                        return await ask(self._bots, target, ticket, config, os.environ)
        except RetryableTargetError as exc:
            raise TargetError(f"{exc} (after {attempts} attempts)") from None
        raise AssertionError("unreachable")  # pragma: no cover

    def prefetch(
        self,
        dimension_names: Sequence[str],
        ticket: str,
        response: str,
        runs: int,
        generation: int = 0,
    ) -> None:
        """Start the runs of several dimensions now so that they overlap."""
        with self._lock:
            for name in dimension_names:
                dimension = self.dimension(name)
                for i in range(runs):
                    self._start(PlannedRun(dimension, ticket, response, i, generation))

    async def _run(self, run: PlannedRun, usage: Usage) -> RunOutcome:
        assert self._judge is not None
        judge = self._judge
        cache_key = None
        if self.cache is not None and run.generation == 0:
            cache_key = self.cache.key(run.dimension, run.ticket, run.response, run.run_index)
            cached = self.cache.get(cache_key)
            if cached is not None:
                return RunOutcome(cached, None, 0, cached=True)
        try:
            return await self._judge_with_retries(judge, run, usage, cache_key)
        finally:
            self._budget.spend(usage)  # what the replies billed, rejected ones included

    async def _judge_with_retries(
        self, judge: Judge, run: PlannedRun, usage: Usage, cache_key: str | None
    ) -> RunOutcome:
        s = self.settings
        attempts = 0
        try:
            async for attempt in retrying(
                RetryableJudgeError,
                attempts=s.max_retries + 1,
                first_wait=s.retry_wait,
                max_seconds=s.timeout * (s.max_retries + 1),
                what="judge call",
            ):
                with attempt:
                    async with self._limit():
                        self._budget.take_request()
                        attempts += 1
                        result = await self._call(judge, run, usage)
                    if cache_key is not None:
                        assert self.cache is not None
                        self.cache.put(cache_key, result)
                    return RunOutcome(result, None, usage.requests)
        except BudgetExhausted as exc:
            return RunOutcome(None, str(exc), usage.requests)
        except FatalJudgeError as exc:
            # Bad key, unknown model...: every later call would fail the same way.
            self._budget.fatal = str(exc)
            return RunOutcome(None, f"judge call failed: {exc} (not retried)", usage.requests)
        except (JudgeCallError, RetryAfterTooLong) as exc:
            reason = f"judge call failed after {attempts} attempts: {exc}"
            return RunOutcome(None, reason, usage.requests)
        raise AssertionError("unreachable")  # pragma: no cover

    async def _call(self, judge: Judge, run: PlannedRun, usage: Usage) -> RunResult:
        try:
            return await asyncio.wait_for(
                judge.judge_once(run.dimension, run.ticket, run.response, usage=usage),
                self.settings.timeout,
            )
        except asyncio.TimeoutError:
            raise RetryableJudgeError(f"timed out after {self.settings.timeout:g}s") from None

    def close(self) -> None:
        """Cancel what is still running and close the client and the loop."""
        self.cancel_planned()
        if self._loop is None:
            return
        judge, bots = self._judge, self._bots
        assert judge is not None

        async def close_clients() -> None:
            await judge.aclose()
            if bots is not None:
                await bots.aclose()

        self._loop.stop(close_clients)
        self._loop = None

"""Scheduling of judge calls and target requests: planning ahead, bounded concurrency, budgets.

Runs are identified by (dimension, rubric version, ticket, response, run index); each is
made at most once per session, on the session's event loop (``loop.LoopThread``), retried
by the one retry policy (``retry.retrying``) and counted against the session's ``Budget``.
"""

from __future__ import annotations

import concurrent.futures
import threading
import time
from collections import deque
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from itertools import compress
from typing import Any, TypeVar

from ..analysis.judgment import JudgeError, Judgment, RunOutcome, build_judgment
from ..basics.redaction import redact
from ..basics.rubrics import NO_CONTEXT, Context, Dimension
from ..config.settings import Settings
from ..config.targets import TargetError
from ..evalfiles.entry_rules import oversize_reason
from ..judges import Judge, Usage
from ..judges.base import Totals
from ..judges.openai_judge import OpenAIJudge
from .batch import WantedRuns
from .budget import Budget
from .cache import JudgeCache
from .capacity import AdaptiveLimit
from .loop import LoopThread
from .planner import Batch, ItemRuns, PlannedRun, RunKey, RunSlot
from .progress import Progress
from .runs import RunExecutor
from .target_responses import TargetResponses
from .trace import TraceWriter

WAIT_TICK = 0.5  # seconds between on_wait calls while an item waits
T = TypeVar("T")


@dataclass
class JudgeEngine:
    """Runs judge calls for a session. Runs of upcoming items can be *planned*: they start in
    plan order as capacity frees, so that while pytest reports one item the next items' calls
    are already in flight, and at most ``concurrency`` requests are open at once."""

    settings: Settings
    judge_factory: Callable[[Settings], Judge]
    cache: JudgeCache | None = None
    _executor: RunExecutor | None = field(default=None, init=False)
    _loop: LoopThread | None = field(default=None, init=False)
    _runs: dict[RunKey, RunSlot] = field(default_factory=dict, init=False)
    _usage: dict[RunKey, Usage] = field(default_factory=dict, init=False)
    _planned: deque[list[PlannedRun]] = field(default_factory=deque, init=False)
    _planned_active: int = field(default=0, init=False)
    _claimed: set[RunKey] = field(default_factory=set, init=False)
    _lock: threading.RLock = field(default_factory=threading.RLock, init=False)
    _targets: TargetResponses = field(init=False)
    _started: float | None = field(default=None, init=False)  # when the first run started
    #: called about twice a second while an item waits for its judgments (live progress)
    on_wait: Callable[[], None] | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        s = self.settings
        self._targets = TargetResponses(s.targets, s.max_retries, s.retry_wait)

    def dimension(self, name: str) -> Dimension:
        try:
            return self.settings.dimensions[name]
        except KeyError:
            raise JudgeError(
                f"unknown dimension '{name}' (known: {', '.join(self.settings.dimensions)})"
            ) from None

    def _start_loop(self) -> tuple[LoopThread, RunExecutor]:
        """The session's one loop and executor, made by whichever thread asks first (the async
        API asks from several threads at once)."""
        with self._lock:
            if self._loop is None or self._executor is None:
                s, judge = self.settings, self.judge_factory(self.settings)
                # an in-process judge (the offline one) sends no request for calls= to count
                calls = s.max_calls if judge.uses_llm else None
                self._executor = RunExecutor(
                    settings=s,
                    judge=judge,
                    cache=self.cache,
                    budget=Budget(calls, s.max_cost, s.price, s.workers),
                    # the bound on requests in flight, judge calls and target requests together
                    limit=AdaptiveLimit(s.concurrency),
                    trace=TraceWriter(s.trace) if s.trace is not None else None,
                )
                self._loop = LoopThread()
            return self._loop, self._executor

    def _start_group(
        self, runs: Sequence[PlannedRun], first_attempt_done: Callable[[], None] | None = None
    ) -> list[RunSlot] | None:
        """Start those of the runs (one dimension, ticket, response) not running or done, as
        one group (caller holds the lock); the futures (or outcomes) of all of them.

        ``first_attempt_done`` is called once the group's first attempt has ended; when every
        run exists already, nothing is started or called, and None is returned."""
        fresh = [run for run in runs if run.key not in self._runs]
        if fresh:
            self._started = self._started or time.monotonic()
            loop, executor = self._start_loop()
            usages = [self._usage.setdefault(run.key, Usage()) for run in fresh]
            outcomes: list[concurrent.futures.Future[RunOutcome]] = []
            for run in fresh:
                outcomes.append(concurrent.futures.Future())
                self._runs[run.key] = outcomes[-1]
            group = loop.submit(executor.run_group(fresh, usages, first_attempt_done))
            group.add_done_callback(lambda done: hand_out(done, outcomes, fresh, self._runs))
        elif first_attempt_done is not None:
            return None
        return [self._runs[run.key] for run in runs]

    def on_loop(self, work: Callable[[RunExecutor], Coroutine[Any, Any, T]]) -> T:
        """Run ``work`` with the session's judge, cache, budget and limit, on its loop."""
        loop, executor = self._start_loop()
        return loop.run(work(executor))

    def judge_in_batch(self, wanted: Sequence[WantedRuns], say: Callable[[str], None]) -> None:
        """``llmjudge_batch``: judge ``wanted`` through the Batch API now (``batch``)."""
        from .batch import BatchJudging

        loop, executor = self._start_loop()
        plan = executor.plan
        assert self.cache is not None and isinstance(executor.judge, OpenAIJudge)
        assert isinstance(plan, Batch)  # (chosen by llmjudge_batch)
        judging = BatchJudging(executor.judge, self.cache, self.settings, loop.run, say)
        plan.outcome = judging.outcome  # filled as it goes: kept if interrupted
        judging.run(wanted, self.settings.batch_wait)

    def totals(self) -> Totals:
        """Every request this engine sent and every token billed, whoever asked for them,
        and what it learned of the server."""
        with self._lock:
            total = Totals()
            for usage in self._usage.values():
                total.billing.add(usage)
            if self._executor is not None:
                self._executor.plan.totals(total)
                self._executor.server.facts(total)
            return total

    def batch_left_nothing(self) -> bool:
        """With ``llmjudge_batch``: no request of the batch failed or is pending, so that every
        run a stored response's item asks for was judged in it or cached: none to start ahead."""
        plan = self._executor.plan if self._executor is not None else None
        return isinstance(plan, Batch) and plan.left_nothing()

    def plan(
        self, dimension_names: Sequence[str], ticket: str, response: str, runs: int,
        owner: str = "", context: Context = NO_CONTEXT,
    ) -> None:  # fmt: skip
        """Queue the runs of an upcoming item; they start in order as capacity frees."""
        if self._too_large(ticket, response, context):
            return  # judge() says so when the item asks
        every = range(runs)
        groups = self._groups(
            dimension_names, ticket, response, every, 0, owner, context, ahead=True
        )
        with self._lock:
            self._planned.extend(groups)
        self._pump()

    def _groups(
        self, names: Sequence[str], ticket: str, response: str, indexes: range,
        generation: int, owner: str, context: Context, *, ahead: bool = False,
    ) -> list[list[PlannedRun]]:  # fmt: skip
        """The runs ``indexes`` of the dimensions, in the groups the session's strategy asks
        together (``ahead``: runs started before their item asks)."""
        dimensions = [self.dimension(name) for name in names]
        item = ItemRuns(dimensions, ticket, response, generation, owner, context)
        _, executor = self._start_loop()
        return executor.plan.groups(item, indexes, ahead=ahead)

    def cancel_planned(self) -> None:
        """Forget queued runs (``-x``/``--maxfail`` stopped the session); running ones end."""
        with self._lock:
            self._planned.clear()

    def _pump(self) -> None:
        # A planned run holds its place only until its first attempt ends: a run waiting out
        # a Retry-After does not keep the next items' runs from starting.
        with self._lock:
            while self._planned and self._planned_active < self.settings.concurrency:
                group = self._planned.popleft()
                if all(run.key in self._runs for run in group):
                    continue
                self._planned_active += 1
                self._start_group(group, self._planned_done)

    def _planned_done(self) -> None:
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
        owner: str = "",
        context: Context = NO_CONTEXT,
    ) -> Judgment:
        """Judge one dimension ``runs`` times and aggregate; blocks until done.

        With ``--judge-runs N..M``, a verdict still uncertain after N runs (runs on both sides
        of the threshold, a mean within the margin, an undecided interval) gets more runs, in
        rounds, up to M. ``paid`` receives the usage of every run this call is the first to
        claim (also of runs that then fail or are abandoned): the item's cost."""
        dimension = self.dimension(dimension_name)
        too_large = self._too_large(ticket, response, context)
        if too_large:
            raise JudgeError(too_large)
        mode = self.settings.verdict
        outcomes: list[RunOutcome] = []
        reused: list[bool] = []
        limit = max(runs, self.settings.max_runs) if self.settings.adaptive else runs
        round_size = runs  # adaptive runs come in rounds (a "batch" is the Batch API)
        while True:
            indexes = range(len(outcomes), len(outcomes) + round_size)
            groups = self._groups(
                [dimension.name], *(ticket, response, indexes), generation, owner, context
            )
            slots, again = self._claim(groups, paid)
            reused += again
            outcomes += self._results(slots)
            judgment = build_judgment(
                dimension.name, outcomes, threshold, reused, mode, len(outcomes) - runs,
                self.settings.verdict_k,
            )  # fmt: skip
            if len(outcomes) >= limit or not judgment.uncertain(self.settings.adaptive_margin):
                return judgment
            round_size = min(max(runs, 2), limit - len(outcomes))

    def _claim(
        self, groups: list[list[PlannedRun]], paid: list[Usage] | None
    ) -> tuple[list[RunSlot], list[bool]]:
        """The runs' slots, and whether each was claimed before (``paid`` gets the usage of
        the others); runs the strategy serves whole (a batch's) are taken without a future."""
        asked = [run for group in groups for run in group]
        with self._lock:
            assert self._executor is not None  # (started by ``_groups``)
            served = self._executor.plan.served_whole(asked, self._runs, paid)
            if served is not None:
                return served
            slots = [s for group in groups for s in self._start_group(group) or []]
            fresh = [run.key not in self._claimed for run in asked]
            self._claimed.update(run.key for run in asked)
            if paid is not None:
                paid += [self._usage[run.key] for run in compress(asked, fresh)]
            return slots, [not is_fresh for is_fresh in fresh]

    def _results(self, slots: Sequence[RunSlot]) -> list[RunOutcome]:
        return outcomes_of(slots, self.on_wait, WAIT_TICK)

    def progress(self) -> Progress:
        """Runs planned and done, requests, in flight, retrying, tokens and cost so far."""
        with self._lock:
            queued = sum(1 for group in self._planned for run in group if run.key not in self._runs)
            running = (s for s in self._runs.values() if isinstance(s, concurrent.futures.Future))
            done = len(self._runs) - sum(1 for future in running if not future.done())
            total = self.totals().billing
            executor = self._executor
            return Progress(
                planned=len(self._runs) + queued,
                done=done,
                calls=total.calls,
                in_flight=executor.limit.in_flight if executor else 0,
                retrying=executor.retrying if executor else 0,
                tokens=total.prompt_tokens + total.completion_tokens,
                cost_usd=executor.budget.cost_so_far() if executor else None,
                elapsed=0.0 if self._started is None else time.monotonic() - self._started,
            )

    def _too_large(self, ticket: str, response: str, context: Context = NO_CONTEXT) -> str | None:
        return oversize_reason(ticket, response, self.settings.max_input_chars, context)

    def _response_future(
        self, target: str, ticket: str, context: Context
    ) -> concurrent.futures.Future[str]:
        with self._lock:
            loop, executor = self._start_loop()
            turns = context.conversation
            return self._targets.future(loop, executor.limit, target, ticket, turns)

    def response(self, target: str, ticket: str, context: Context = NO_CONTEXT) -> str:
        """The target's response to the ticket (asked once per session); JudgeError if none."""
        try:
            # a target echoing a header's token must not carry it to the judge or any file
            return redact(self._response_future(target, ticket, context).result())
        except TargetError as exc:
            raise JudgeError(f"target {target}: {redact(str(exc))}") from None

    def response_latency(self, target: str, ticket: str, context: Context) -> float | None:
        """How long the target took to give that response, in ms (None before it did)."""
        return self._targets.latency_ms.get((target, ticket, context.conversation))

    def plan_response(
        self,
        target: str,
        ticket: str,
        dimension_names: Sequence[str],
        runs: int,
        owner: str = "",
        context: Context = NO_CONTEXT,
    ) -> None:
        """Ask the target now, and plan the judge runs of its response as soon as it arrives."""

        def plan_runs(future: concurrent.futures.Future[str]) -> None:
            if not future.cancelled() and future.exception() is None:
                # the same (redacted) text response() gives the item: the same runs
                response = redact(future.result())
                self.plan(dimension_names, ticket, response, runs, owner, context)

        self._response_future(target, ticket, context).add_done_callback(plan_runs)

    def prefetch(
        self, dimension_names: Sequence[str], ticket: str, response: str, runs: int,
        generation: int = 0, owner: str = "", context: Context = NO_CONTEXT,
    ) -> None:  # fmt: skip
        """Start the runs of several dimensions now so that they overlap."""
        if self._too_large(ticket, response, context):
            return
        where = (ticket, response, range(runs), generation, owner, context)
        groups = self._groups(dimension_names, *where, ahead=True)
        with self._lock:
            for group in groups:
                self._start_group(group)

    def close(self) -> None:
        """Cancel what is still running and close the client and the loop."""
        self.cancel_planned()
        if self._loop is None:
            return
        assert self._executor is not None
        judge, targets = self._executor.judge, self._targets

        async def close_clients() -> None:
            await judge.aclose()
            await targets.aclose()

        self._loop.stop(close_clients)
        self._loop = None
        self._executor.close()  # the trace, the cache's database, the batch's table


def hand_out(
    group: concurrent.futures.Future[list[RunOutcome]],
    futures: list[concurrent.futures.Future[RunOutcome]],
    runs: Sequence[PlannedRun],
    table: dict[RunKey, RunSlot],
) -> None:
    """Give each run of a group its outcome (or the group's exception, or cancellation); in
    ``table``, a run that has an outcome keeps it in place of its future (a single store of
    a key is atomic: no lock needed)."""
    if group.cancelled():
        for future in futures:
            future.cancel()
        return
    error = group.exception()
    if error is None:  # in the table first: a caller woken by its future finds it there
        for run, outcome in zip(runs, group.result(), strict=True):
            table[run.key] = outcome
    for i, future in enumerate(futures):
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(group.result()[i])


def outcomes_of(
    slots: Sequence[RunSlot], on_wait: Callable[[], None] | None, tick: float
) -> list[RunOutcome]:
    """The runs' outcomes, waiting for those still running (``on_wait`` every ``tick``)."""
    running = [slot for slot in slots if isinstance(slot, concurrent.futures.Future)]
    if on_wait is not None:
        while running and concurrent.futures.wait(running, timeout=tick).not_done:
            on_wait()
    return [s.result() if isinstance(s, concurrent.futures.Future) else s for s in slots]

"""Judge runs carried out: a group of runs in, a ``RunOutcome`` per run out; never raises.

The session's strategy (``planner``) says which runs are known without a request and which
requests ask the others; here those requests are sent: as the ``n`` choices of one request
where the sampling mode, the judge and the server allow (the prompt sent and billed once), in
as many requests as the server's choices cap needs, or one request per run; each attempt
retried, counted against the budget, and held to the in-flight limit.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from ..analysis.judgment import RunOutcome
from ..basics.redaction import SHOWN_IN_REPORT, redact
from ..basics.wording import counted
from ..config.settings import Settings
from ..judges import (
    ChoicesJudge,
    FatalJudgeError,
    Judge,
    JudgeCallError,
    RetryableJudgeError,
    RunResult,
    ServerProfile,
    TooManyChoices,
    Usage,
)
from .budget import Budget, BudgetExhausted, JudgingStopped
from .cache import JudgeCache
from .capacity import AdaptiveLimit, ServerBusy, ServerCapacity
from .planner import PlannedRun, Strategy, split_notice, strategy_for
from .retry import RetryAfterTooLong, retrying
from .trace import TraceWriter, trace_record, traced_score

logger = logging.getLogger("pytest_llmjudge")

T = TypeVar("T")
Reply = RunResult | RetryableJudgeError  # one choice: a score, or why it was rejected


@dataclass
class RunExecutor:
    """What every run of a session shares: the judge, its strategy, the budget, the limit."""

    settings: Settings
    judge: Judge
    cache: JudgeCache | None
    budget: Budget
    limit: AdaptiveLimit
    trace: TraceWriter | None = None
    retrying: int = 0  # runs waiting out a backoff or a Retry-After (progress)
    split_noted: bool = False  # the notice that a judgment's runs are split was logged
    server: ServerCapacity = field(init=False)
    #: how runs become requests, chosen once for the session
    plan: Strategy = field(init=False)
    #: what is known of the server: the judge's (shared by the session's judges) or its own
    profile: ServerProfile = field(init=False)
    #: the judge when it asks for choices (checked once: a protocol's isinstance is slow)
    choosing: ChoicesJudge | None = field(init=False)

    def __post_init__(self) -> None:
        s = self.settings
        self.choosing = self.judge if isinstance(self.judge, ChoicesJudge) else None
        self.profile = getattr(self.judge, "profile", None) or ServerProfile()
        self.plan = strategy_for(s, self.cache, self.trace)
        self.server = ServerCapacity(
            self.judge, self.limit, self.budget, s.timeout, s.workers, trace=self.trace
        )

    def close(self) -> None:
        """The session's judging is over: the trace, the cache's database, the batch's table."""
        if self.trace is not None:
            self.trace.close()
        self.plan.close()

    async def run_group(
        self,
        runs: list[PlannedRun],
        usages: list[Usage],
        first_attempt_done: Callable[[], None] | None,
    ) -> list[RunOutcome]:
        """Judge the runs of one group (``Strategy.groups``): those known without a request
        as the strategy knows them, the others in the requests it makes of them. ``usages[i]``
        receives what run i cost (a shared request is charged to the first run it serves).
        Never raises."""
        done = once(first_attempt_done)
        outcomes = self.plan.known(runs, usages)
        missing = [i for i in range(len(runs)) if i not in outcomes]
        if missing:
            requests = self.plan.requests(runs, missing)
            paying = [usages[serving[0]] for serving in requests.serves]
            asked = await self._ask_runs(requests.asked, paying, done)
            outcomes |= requests.outcomes(runs, asked)
        done()
        return [outcomes[i] for i in range(len(runs))]

    async def _ask_runs(
        self, runs: list[PlannedRun], usages: list[Usage], done: Callable[[], None]
    ) -> list[RunOutcome]:
        """Runs to ask: the choices of one request where that is wanted, else (and
        for those a server that ignores n left out) one request each."""
        outcomes: dict[int, RunOutcome] = {}
        if len(runs) > 1 and self._choices_wanted():
            asked = await self._ask_choices(runs, usages, done)
            outcomes = {i: o for i, o in enumerate(asked) if o is not None}
            if None in asked:  # the server ignored n
                outcomes = self._choices_refused(outcomes, len(runs))
        singles = [i for i in range(len(runs)) if i not in outcomes]
        asked_singly = [self._ask([runs[i]], usages[i], done) for i in singles]
        for i, outcome in zip(singles, await asyncio.gather(*asked_singly), strict=True):
            assert outcome[0] is not None
            outcomes[i] = outcome[0]
        return [outcomes[i] for i in range(len(runs))]

    async def _ask_choices(
        self, runs: list[PlannedRun], usages: list[Usage], done: Callable[[], None]
    ) -> list[RunOutcome | None]:
        """The runs as the choices of requests of at most as many as the server takes (all of
        them in one where it takes them); one outcome per run, None for runs a server that
        ignores n left out. A request refused for asking too many is asked again in parts."""
        await self.server.learned()  # the slots a server announces cap the choices too
        asked: list[RunOutcome | None] = [None] * len(runs)
        pending = list(range(len(runs)))
        while pending:
            cap = getattr(self.judge, "max_choices", None) or len(pending)
            parts = [pending[i : i + cap] for i in range(0, len(pending), cap)]
            if len(parts) > 1:
                self._note_split(cap, len(runs))
            asks = [self._ask([runs[i] for i in part], usages[part[0]], done) for part in parts]
            replies = await _each(asks)
            pending = []
            for part, reply in zip(parts, replies, strict=True):
                if isinstance(reply, TooManyChoices):
                    pending += part  # the judge learned the cap: ask these again in parts
                elif isinstance(reply, BaseException):
                    raise reply
                else:
                    for i, outcome in zip(part, reply, strict=True):
                        asked[i] = outcome
        return asked

    def _note_split(self, cap: int, runs: int) -> None:
        if self.split_noted:
            return
        self.split_noted = True  # once a session (the results' notice says it too)
        logger.warning("%s", split_notice(cap, runs))

    def _choices_wanted(self) -> bool:
        return (
            self.settings.sampling != "calls"
            and self.choosing is not None
            and not self.profile.ignores_n  # then each run is its own request, on every path
        )

    def _choices_refused(self, outcomes: dict[int, RunOutcome], runs: int) -> dict[int, RunOutcome]:
        """The server answered fewer choices than asked (it ignores n). With ``choices`` that
        is the judgment's error (every run's, so that no verdict rests on what is left);
        with ``auto`` the missing runs, and every later run, are asked one request each."""
        message = "the judge server answered fewer choices than asked for (it ignores n)"
        if self.settings.sampling == "choices":
            error = f"{message}: use llmjudge_sampling=auto or calls for this server"
            charged = {i: o.calls for i, o in outcomes.items()}
            return {i: RunOutcome(None, error, charged.get(i, 0)) for i in range(runs)}
        if not self.profile.ignores_n:
            self.profile.ignores_n = True
            logger.warning("%s; each run is its own request from now on", message)
        return outcomes

    async def _ask(
        self, runs: list[PlannedRun], usage: Usage, first_attempt_done: Callable[[], None]
    ) -> list[RunOutcome | None]:
        """Judge ``runs`` with one request (n choices when more than one), retrying only the
        runs whose choice was rejected. One outcome per run; None for runs the server left
        out (it ignored n). The requests are charged to the first outcome."""
        s, asking = self.settings, AskedRuns(runs, [None] * len(runs), list(range(len(runs))))
        error: str | None = None
        await self.server.learned()
        try:
            async for attempt in retrying(
                RetryableJudgeError,
                tries=s.max_retries + 1,
                first_wait=s.retry_wait,
                max_seconds=s.timeout * (s.max_retries + 1),
                what=asking.what,
            ):
                if asking.backing_off:  # the wait is over: this attempt asks again
                    self.retrying -= len(asking.waiting)
                    asking.backing_off = False
                with attempt:
                    await self._attempt(asking, usage, first_attempt_done)
                tried = attempt.retry_state.outcome
                asking.backing_off = tried is not None and tried.failed
                self.retrying += len(asking.waiting) if asking.backing_off else 0
        except TooManyChoices:
            raise  # the caller asks these runs again in requests the server takes
        except (BudgetExhausted, JudgingStopped, FatalJudgeError) as exc:
            error = self._stopped(exc, runs[0])
        except (JudgeCallError, RetryAfterTooLong) as exc:
            error = redact(
                f"judge call failed after {counted(asking.tries, 'try', 'tries')}: {exc}"
            )
            if getattr(exc, "cut_off", False):
                error += f"; raise llmjudge_max_tokens (now {s.max_tokens})"
            # one line with the cause: a traceback of the plugin tells a user nothing more
            # (the item's report says it too: not repeated among its captured logs)
            logger.warning("%s: %s", runs[0].owner or "a test", error, extra=SHOWN_IN_REPORT)
        finally:
            self.retrying -= len(asking.waiting) if asking.backing_off else 0
        return asking.finished(error, usage.calls)

    def _stopped(self, exc: Exception, first: PlannedRun) -> str:
        """Why runs were not judged when judging stopped (budget, Ctrl-C) or cannot go on."""
        if not isinstance(exc, FatalJudgeError):
            return redact(str(exc))
        # Bad key, unknown model, unreachable: every later call would fail the same way.
        # A run the server refused says so in full (runs in flight together fold into one
        # line of their item); the runs refused before being sent say where and why.
        self.budget.stop(exc, first.owner)
        return redact(f"judge call failed: {exc} (not retried; judging stops here)")

    async def _attempt(
        self, asking: AskedRuns, usage: Usage, first_attempt_done: Callable[[], None]
    ) -> None:
        """One attempt for the runs still waiting; raises the first rejected choice's error
        (tenacity asks again for those runs)."""
        before = usage.reading()
        try:
            asking.tries += 1
            asked = [asking.runs[i] for i in asking.waiting]
            replies = await self._sent(asked, usage, asking.tries, asking.firm)
        except RetryableJudgeError as exc:  # no choice was usable
            # cut off at the token limit: the same prompt would run as long again
            asking.firm = asking.firm or exc.cut_off
            raise
        finally:
            # what the reply billed (rejected or not), before the next call starts
            self.budget.spend(usage.tokens_since(before))
            first_attempt_done()
        rejected = self._kept(asking, replies, usage)
        if rejected:
            asking.firm = asking.firm or any(reply.cut_off for reply in rejected)
            raise rejected[0]  # ask again for the runs whose choice was rejected

    def _kept(
        self, asking: AskedRuns, replies: list[Reply], usage: Usage
    ) -> list[RetryableJudgeError]:
        """The usable choices kept as the waiting runs' outcomes; the rejected ones."""
        logprobs = self.settings.scoring == "logprobs" and self.settings.uses_llm
        rejected: list[RetryableJudgeError] = []
        judged: list[tuple[PlannedRun, RunResult]] = []
        for i, reply in zip(asking.waiting, replies, strict=False):
            if isinstance(reply, RetryableJudgeError):
                rejected.append(reply)
                continue
            result = reply.redacted()  # no echoed secret in results or cache
            judged.append((asking.runs[i], result))
            usage.scored(result, logprobs_asked=logprobs)
            asking.outcomes[i] = RunOutcome(result, None, 0)
        self.plan.remember(judged)  # in the cache before anyone is told
        usage.short_replies += len(replies) < len(asking.waiting)
        asking.waiting = [i for i in asking.waiting[: len(replies)] if asking.outcomes[i] is None]
        return rejected

    async def _sent(
        self, runs: list[PlannedRun], usage: Usage, attempt: int, firm: bool
    ) -> list[Reply]:
        """One attempt, in a slot of the in-flight limit. A request that timed out while the
        server answered others was queued there, not lost: once the limit has come down it is
        sent again, and that is not counted against the item's tries."""
        while True:
            async with self.limit:
                self.budget.take_request()
                try:
                    return await self._traced(runs, usage, attempt, firm)
                except ServerBusy:
                    usage.requeued += 1

    async def _traced(
        self, runs: list[PlannedRun], usage: Usage, attempt: int, firm: bool
    ) -> list[Reply]:
        """One attempt, and with llmjudge_trace its line: what was sent, what came back."""
        if self.trace is None:
            return await self._timed(runs, usage, firm)
        before = usage.reading()
        usage.exchanges = []
        started = time.monotonic()
        replies: list[Reply] = []
        error: BaseException | None = None
        try:
            replies = await self._timed(runs, usage, firm)
            return replies
        except Exception as exc:
            error = exc
            raise
        finally:
            first = runs[0]
            where = (first.owner, first.dimension.name, first.run_index + 1)
            scores = [traced_score(r) if isinstance(r, RunResult) else None for r in replies]
            self.trace.write(
                trace_record(
                    *where, attempt, usage=usage, before=before, started=started, error=error,
                    scores=scores, choices=len(runs),
                )
            )  # fmt: skip

    async def _timed(self, runs: list[PlannedRun], usage: Usage, firm: bool) -> list[Reply]:
        return await self.server.timed(lambda: self._call(runs, usage, firm), len(runs), usage)

    async def _call(self, runs: list[PlannedRun], usage: Usage, firm: bool) -> list[Reply]:
        run = runs[0]
        if self.choosing is not None:
            return await self.choosing.judge_choices(
                run.dimension, run.ticket, run.response, len(runs), usage=usage,
                context=run.context, firm=firm,
            )  # fmt: skip
        assert len(runs) == 1
        reply = await self.judge.judge_once(
            run.dimension, run.ticket, run.response, usage=usage, context=run.context
        )
        return [reply]


async def _each(asks: list[Coroutine[Any, Any, T]]) -> list[T | BaseException]:
    """Each ask's result or exception; one ask is awaited as it is (no task in between, so
    that what its reply teaches, such as a server that ignores n, is known before the next
    group asks)."""
    if len(asks) > 1:
        return await asyncio.gather(*asks, return_exceptions=True)
    try:
        return [await asks[0]]
    except TooManyChoices as exc:
        return [exc]


def once(callback: Callable[[], None] | None) -> Callable[[], None]:
    """``callback`` to be called at most once (no-op without one)."""
    called = False

    def call() -> None:
        nonlocal called
        if callback is not None and not called:
            called = True
            callback()

    return call


@dataclass
class AskedRuns:
    """The runs of one request while they are asked, across its attempts."""

    runs: list[PlannedRun]
    outcomes: list[RunOutcome | None]
    waiting: list[int]  # the runs without an outcome yet
    tries: int = 0
    firm: bool = False  # a reply was cut off: the next attempt asks for a shorter one
    backing_off: bool = False  # the last attempt failed: the runs wait for the next one

    @property
    def what(self) -> str:
        """``judge call for <item> (relevance, run 1-3)``: the request, for retry warnings."""
        first, last = self.runs[0], self.runs[-1]
        numbers = f"run {first.run_index + 1}" + (f"-{last.run_index + 1}" * (len(self.runs) > 1))
        return f"judge call for {first.owner or 'a test'} ({first.dimension.name}, {numbers})"

    def finished(self, error: str | None, calls: int) -> list[RunOutcome | None]:
        """One outcome per run (the error for those still waiting); the requests are
        charged to the first."""
        if error is not None:
            for i in self.waiting:
                self.outcomes[i] = RunOutcome(None, error, 0)
        for i, outcome in enumerate(self.outcomes):
            if outcome is not None:
                self.outcomes[i] = replace(outcome, calls=calls)
                break
        return self.outcomes

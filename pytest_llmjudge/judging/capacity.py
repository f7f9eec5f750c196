"""What a session knows of the judge server's capacity, and each request timed against it:
the slots it announces, the choices it takes per request, the in-flight limit (``limiter``)
told how long each reply took, and a timeout in a busy server's queue told apart from a
dead judge."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

from ..judges import Judge, JudgeCallError, RetryableJudgeError, UnreachableJudgeError, Usage
from ..judges.base import Totals
from .budget import Budget
from .limiter import AdaptiveLimit
from .trace import TraceWriter, trace_record

T = TypeVar("T")


class ServerBusy(RetryableJudgeError):
    """A request timed out while the server answered others, and the limit has come down:
    it waited in the server's queue; send it again, not counting it against its item."""


@dataclass
class ServerCapacity:
    """The judge server's capacity as the session learns it."""

    judge: Judge
    limit: AdaptiveLimit
    budget: Budget
    timeout: float
    workers: int = 1  # xdist workers sharing the server
    slots: int = 0  # what the server said it serves at once (0: it did not say)
    _probe: asyncio.Task[None] | None = field(default=None, init=False, repr=False)
    checked: Usage = field(default_factory=Usage)  # what the check before the first item sent
    trace: TraceWriter | None = None

    async def check_judge(self) -> str | None:
        """Whether the judge can serve the session: the problem in one line (no key, a
        refused key, an unknown model or base URL, no connection), or None. A judge without
        such a check (the heuristic) always can. A chat request it sent is traced."""
        check = getattr(self.judge, "preflight", None)
        problem: str | None = await check(self.checked) if check is not None else None
        if self.trace is not None and self.checked.calls:
            record = trace_record("", "(judge check)", 1, 1, usage=self.checked, before=Usage())
            self.trace.write({**record, "error": problem})
        return problem

    async def learned(self) -> None:
        """Before the first request: a server that says how many requests it serves at once
        (llama.cpp's slots) sets the in-flight limit and the most choices one request may
        ask. Asked once per session."""
        if self._probe is None:
            self._probe = asyncio.ensure_future(self._ask())
        await asyncio.shield(self._probe)

    async def _ask(self) -> None:
        profile = getattr(self.judge, "profile", None)
        slots = profile.slots if profile is not None else None
        if slots is None:  # asked once per server: a judge built again knows the answer
            ask = getattr(self.judge, "server_slots", None)
            slots = await ask() if ask is not None else None
            if profile is not None:
                profile.slots = slots or 0
        if not slots:
            return
        self.slots = slots
        # each xdist worker has its part of the slots, as of --judge-concurrency
        self.limit.server_slots(max(1, -(-slots // self.workers)))
        learn = getattr(self.judge, "learn_choices_cap", None)
        if learn is not None:
            learn(slots)  # llama.cpp takes at most as many choices as it has slots

    def facts(self, total: Totals) -> None:
        """What the session learned of the server, on the engine's totals (and what the check
        before the first item sent)."""
        server = total.server
        server.server_slots = self.slots
        server.choices_cap = getattr(self.judge, "max_choices", None) or 0
        profile = getattr(self.judge, "profile", None)
        if profile is not None:
            server.learned = profile.learned()
        server.stopped = self.budget.stopped_fact
        total.billing.add(self.checked)
        if self.limit.limit < self.limit.maximum:  # a limit that came down and grew back
            server.kept_in_flight = self.limit.limit  # to --judge-concurrency was not kept

    async def timed(self, call: Callable[[], Awaitable[T]], choices: int, usage: Usage) -> T:
        """One attempt of ``choices`` runs, telling the circuit breaker whether the judge
        could be reached and the in-flight limit how long the reply took. A timeout while
        other requests completed raises ``ServerBusy``."""
        sent = time.monotonic()
        concurrent = self.limit.in_flight
        completion_before = usage.completion_tokens
        try:
            try:
                reply = await _within(call, self.timeout)
            except asyncio.TimeoutError:
                raise RetryableJudgeError(
                    f"timed out after {self.timeout:g}s", timed_out=True
                ) from None
        except JudgeCallError as exc:
            if exc.timed_out:
                usage.timeouts += 1
                if self.limit.timed_out(sent):
                    raise ServerBusy(str(exc)) from None
            if isinstance(exc, UnreachableJudgeError):
                self.budget.connection_failed(str(exc))
            elif not exc.timed_out:
                self.budget.connection_ok()  # an HTTP error is an answer
            if exc.throttled:
                self.limit.throttled()
            raise
        self.budget.connection_ok()
        steps = (usage.completion_tokens - completion_before) / max(1, choices)
        self.limit.succeeded(time.monotonic() - sent, steps, concurrent)
        return reply


async def _within(call: Callable[[], Awaitable[T]], timeout: float) -> T:
    """``call()`` cut off after ``timeout`` seconds (``asyncio.TimeoutError``); on Python
    3.11+ in the caller's task (``wait_for`` there made a task per request, and its steps)."""
    if sys.version_info >= (3, 11):
        async with asyncio.timeout(timeout):
            return await call()
    return await asyncio.wait_for(call(), timeout)  # Python 3.10 (CI runs its unit tests)

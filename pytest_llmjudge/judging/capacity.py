"""What a session knows of the judge server's capacity, and each request timed against it.

``AdaptiveLimit`` bounds the requests in flight (judge calls and target requests together):
at most the configured concurrency, less when the server says it is overloaded, handed out in
the order asked for. Three signals lower it: a rate limit (429: halve it), a request that
timed out while others to the same server completed (the server is busy, not broken: halve
it), and replies that slow down as more are in flight (a queue forms: one less, as TCP Vegas
does). Every reply that comes back at about the usual speed raises it by one, up to the
maximum. It is used only on the judge's event loop (one thread): no locks.

``ServerCapacity`` holds what the server says of itself: the slots it announces (llama.cpp's),
which set where the limit starts and the floor latency alone cannot push it below, and the
choices it takes per request; it times each request, telling the limit how long the reply
took, and tells a timeout in a busy server's queue apart from a dead judge.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from types import TracebackType
from typing import TypeVar

from ..judges import Judge, JudgeCallError, RetryableJudgeError, UnreachableJudgeError, Usage
from ..judges.base import Totals
from .budget import Budget
from .trace import TraceWriter, trace_record

# After a 429 or a busy timeout the limit halves, at most once per this many seconds (one
# burst of them is one signal, not many).
DECREASE_COOLDOWN = 1.0
# Replies this many times slower (per generated token) than the fastest seen mean a queue:
# one less in flight; up to RELAXED times slower, one more may be; in between, hold.
SLOWDOWN = 2.0
RELAXED = 1.5
# The decode steps a prompt's processing is worth, so that short replies are not read as slow.
PROMPT_STEPS = 20
SMOOTHING = 0.3  # weight of the newest reply in the running slowdown
# A queue shows as waiting time; less than this is noise (a reply of a few milliseconds).
MIN_WAIT = 0.2


class AdaptiveLimit:
    """An async context manager: ``async with limit: <one request>``."""

    def __init__(self, maximum: int) -> None:
        self.maximum = maximum
        self.limit = maximum
        self.in_flight = 0
        self.floor = 1  # the server's own slots, once it says
        self.ceiling = maximum  # no more than the server's slots: the rest would only queue
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._last_decrease = float("-inf")
        self._last_success = float("-inf")
        self._fastest: float | None = None  # seconds per decode step of the fastest reply
        self._slowdown = 1.0

    async def __aenter__(self) -> None:
        if self.in_flight < self.limit and not self._waiters:
            self.in_flight += 1
            return
        granted: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(granted)
        try:
            await granted
        except asyncio.CancelledError:
            if granted.done() and not granted.cancelled():
                self._release()  # granted just before the cancel: pass the slot on
            else:
                self._waiters.remove(granted)
            raise

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._release()

    def server_slots(self, slots: int) -> None:
        """The server serves ``slots`` requests at once: keep to that (never above the
        maximum); latency alone does not push the limit below it."""
        self.floor = self.ceiling = min(slots, self.maximum)
        self._set(self.floor)

    def throttled(self) -> None:
        """The server said "too many requests": halve the limit (once per cooldown)."""
        self._halve()

    def timed_out(self, started: float) -> bool:
        """A request sent at ``started`` got no reply in time. When others to the same server
        completed meanwhile, the server is busy, not broken: halve the limit. True when the
        limit has come down since that request was sent, so sending it again waits less."""
        if self._last_success > started:
            self._halve()
        return self._last_decrease > started

    def succeeded(self, seconds: float = 0.0, steps: float = 0.0, concurrent: int = 1) -> None:
        """A reply came back after ``seconds``, having generated ``steps`` tokens per choice,
        with ``concurrent`` requests in flight when it was sent. Slower than usual with others
        in flight: one less may be in flight; otherwise one more, up to the maximum."""
        now = time.monotonic()
        self._last_success = now
        if steps > 0 and seconds > 0:
            per_step = seconds / (steps + PROMPT_STEPS)
            self._fastest = min(self._fastest or per_step, per_step)
            waited = seconds - self._fastest * (steps + PROMPT_STEPS)
            ratio = per_step / self._fastest if waited >= MIN_WAIT else 1.0
            self._slowdown = SMOOTHING * ratio + (1 - SMOOTHING) * self._slowdown
            queued = concurrent > 1 and self._slowdown > SLOWDOWN
            if queued and self.limit > self.floor and now - self._last_decrease >= seconds:
                self._set(self.limit - 1)  # once per reply time: that is when it shows
                self._last_decrease = now
                return
        if self.limit < self.ceiling and self._slowdown <= RELAXED:
            self._set(self.limit + 1)

    def _halve(self) -> None:
        now = time.monotonic()
        if now - self._last_decrease >= DECREASE_COOLDOWN:
            self._set(max(1, self.limit // 2))
            self._last_decrease = now

    def _set(self, limit: int) -> None:
        self.limit = limit
        self._wake()

    def _release(self) -> None:
        self.in_flight -= 1
        self._wake()

    def _wake(self) -> None:
        while self._waiters and self.in_flight < self.limit:
            granted = self._waiters.popleft()
            if not granted.done():
                self.in_flight += 1
                granted.set_result(None)


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

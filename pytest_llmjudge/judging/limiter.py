"""How many requests may be in flight: at most the configured concurrency, less when the server
says it is overloaded, handed out in the order asked for.

Three signals lower the limit: a rate limit (429: halve it), a request that timed out while
others to the same server completed (the server is busy, not broken: halve it), and replies
that slow down as more are in flight (a queue forms: one less, as TCP Vegas does). Every reply
that comes back at about the usual speed raises it by one, up to the maximum. A server that says how
many requests it serves at once (llama.cpp's slots) sets where the limit starts and the floor
that latency alone cannot push it below.

Used only on the judge's event loop (one thread): no locks.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from types import TracebackType

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

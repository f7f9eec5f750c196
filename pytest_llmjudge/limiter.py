"""How many requests may be in flight: at most the configured concurrency, less after a rate
limit (additive increase, multiplicative decrease), handed out in the order asked for.

Used only on the judge's event loop (one thread): no locks.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from types import TracebackType

# After a 429 the limit halves, at most once per this many seconds (one burst of 429s is one
# signal, not many); every reply that succeeds raises it by one, up to the configured maximum.
DECREASE_COOLDOWN = 1.0


class AdaptiveLimit:
    """An async context manager: ``async with limit: <one request>``."""

    def __init__(self, maximum: int) -> None:
        self.maximum = maximum
        self.limit = maximum
        self.in_flight = 0
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._last_decrease = float("-inf")

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

    def throttled(self) -> None:
        """The server said "too many requests": halve the limit (once per cooldown)."""
        now = time.monotonic()
        if now - self._last_decrease >= DECREASE_COOLDOWN:
            self.limit = max(1, self.limit // 2)
            self._last_decrease = now

    def succeeded(self) -> None:
        """A reply came back: one more request may be in flight, up to the maximum."""
        if self.limit < self.maximum:
            self.limit += 1
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

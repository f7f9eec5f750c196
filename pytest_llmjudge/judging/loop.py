"""One event loop in a daemon thread, fed from pytest's thread.

Items run in pytest's thread; judge calls and target requests run as tasks on this loop. That
keeps one loop (and one SDK client) for the whole session, never calls ``asyncio.run()``
inside a user's running loop (pytest-asyncio), and lets many requests be in flight at once.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class LoopThread:
    """An event loop running in a daemon thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self.loop.run_forever, name="llmjudge-loop", daemon=True
        )
        self._thread.start()

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the loop and wait for its result (from another thread)."""
        return self.submit(coro).result()

    def stop(self, final: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Cancel every task, run ``final`` (close clients) on the loop, end the thread."""

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

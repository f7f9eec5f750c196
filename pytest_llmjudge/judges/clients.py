"""The judge's ``openai`` clients: the concurrency spread over a few small connection pools.

httpx scans every connection of its pool at each request and each reply, so one pool
holding all the connections in flight costs CPU in proportion to them on every request
(quadratic in the concurrency). Clients of at most ``CONNECTIONS_PER_CLIENT`` connections,
each request lent to the one with the fewest in flight, keep that scan short; each client
keeps its share of connections alive, so a session never opens more connections than its
concurrency (the SDK's default keeps 100 alive, fewer than a higher concurrency asks).
Measured in docs/performance.md.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from .base import FatalJudgeError

if TYPE_CHECKING:
    from openai import AsyncOpenAI

_MISSING_KEY = (
    "OPENAI_API_KEY is not set: set it, point OPENAI_BASE_URL at an OpenAI-compatible "
    "server, or run with --judge-provider=heuristic"
)

#: connections kept by each client (measured: docs/performance.md)
CONNECTIONS_PER_CLIENT = 8


class Clients:
    """``AsyncOpenAI`` clients sharing ``concurrency`` connections; built on first use (on
    the judge loop: a client is bound to the loop it first runs on)."""

    def __init__(
        self, base_url: str | None, timeout: float, concurrency: int, key_optional: bool
    ) -> None:
        self.base_url = base_url
        self.key_optional = key_optional
        self.timeout = timeout
        self.concurrency = max(1, concurrency)
        self._clients: list[AsyncOpenAI] = []
        self._busy: list[int] = []  # requests in flight on each client

    def first(self) -> AsyncOpenAI:
        """The client for requests other than judgments (batch files, ``GET /props``)."""
        return self._built()[0]

    @contextmanager
    def lent(self) -> Iterator[AsyncOpenAI]:
        """The client with the fewest requests in flight, for one request: none holds more
        than its share of the concurrency, so none opens a connection beyond those it keeps."""
        clients = self._built()
        i = min(range(len(clients)), key=self._busy.__getitem__)
        self._busy[i] += 1
        try:
            yield clients[i]
        finally:
            self._busy[i] -= 1

    def _built(self) -> list[AsyncOpenAI]:
        if not self._clients:
            import httpx2
            from openai import AsyncOpenAI, DefaultAsyncHttpxClient

            key = os.environ.get("OPENAI_API_KEY", "").strip()  # the SDK reads it once too
            if not key:
                if not self.key_optional:
                    raise FatalJudgeError(_MISSING_KEY, short="OPENAI_API_KEY is not set")
                key = "unused"  # local servers (Ollama, vLLM) accept any key

            count = -(-self.concurrency // CONNECTIONS_PER_CLIENT)
            share = -(-self.concurrency // count)
            # at most the whole concurrency each: a request never waits for a connection
            limits = httpx2.Limits(
                max_connections=self.concurrency, max_keepalive_connections=share
            )
            self._clients = [
                AsyncOpenAI(
                    api_key=key,
                    base_url=self.base_url,
                    timeout=self.timeout,
                    max_retries=0,
                    http_client=DefaultAsyncHttpxClient(timeout=self.timeout, limits=limits),
                )
                for _ in range(count)
            ]
            self._busy = [0] * count
        return self._clients

    async def aclose(self) -> None:
        """Close every client, also when closing one fails (the first failure is raised)."""
        results = await asyncio.gather(
            *(client.close() for client in self._clients), return_exceptions=True
        )
        for result in results:
            if isinstance(result, BaseException):
                raise result

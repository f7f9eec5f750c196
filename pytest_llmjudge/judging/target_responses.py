"""Asking a live bot (a target) for its response to a ticket, on the judge's event loop.

Requests go through the async HTTP client that the ``openai`` SDK is built on (httpx2), so
connections are pooled and ``-x`` or Ctrl-C cancel requests in flight.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from typing import TYPE_CHECKING

from ..basics.redaction import safe_url
from ..basics.rubrics import Turn
from ..basics.wording import counted
from ..config.targets import (
    RetryableTargetError,
    Target,
    TargetConfig,
    TargetError,
    expand_headers,
    extract,
    render_body,
)
from ..judges.http_errors import is_retryable_status
from .capacity import AdaptiveLimit
from .loop import LoopThread
from .retry import retrying

if TYPE_CHECKING:
    import httpx2

# Statuses worth another try: the target is busy or briefly broken.
MAX_REDIRECTS = 5


def target_client(config: TargetConfig) -> httpx2.AsyncClient:
    """The pooled client for every request to a target in a session (create it on the loop)."""
    import httpx2  # here, not at import: most sessions never ask a target

    return httpx2.AsyncClient(timeout=config.timeout, trust_env=False)


async def ask(
    client: httpx2.AsyncClient,
    target: Target,
    ticket: str,
    config: TargetConfig,
    env: Mapping[str, str],
    conversation: Sequence[Turn] = (),
) -> str:
    """One request to a target; the response text. RetryableTargetError when worth retrying."""
    if target.url is None:
        raise TargetError("has no URL: give one (name=URL) or override llmjudge_response")
    headers = {
        "content-type": "application/json",
        "accept": "application/json",
        **expand_headers(config.headers, env),
    }
    reply = await _followed(
        client, target.url, render_body(config.body, ticket, conversation), headers, config.timeout
    )
    if reply.status_code >= 400:
        message = f"HTTP {reply.status_code} {reply.reason_phrase}"
        if is_retryable_status(reply.status_code):
            raise RetryableTargetError(message)
        raise TargetError(message)
    try:
        data = json.loads(reply.content)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise TargetError(f"reply is not JSON: {reply.content[:60]!r}") from None
    return extract(data, config.field)


async def _followed(
    client: httpx2.AsyncClient, url: str, body: bytes, headers: dict[str, str], timeout: float
) -> httpx2.Response:
    """The POST's reply, after the redirects that keep it a POST (307, 308)."""
    import httpx2

    first = url
    for _ in range(MAX_REDIRECTS + 1):
        try:
            reply = await client.post(url, content=body, headers=headers)
        except httpx2.TimeoutException:
            raise RetryableTargetError(
                f"cannot reach {safe_url(url)}: no answer within {timeout:g}s"
            ) from None
        except httpx2.TransportError as exc:
            raise RetryableTargetError(
                f"cannot reach {safe_url(url)}: {_root_cause(exc)}"
            ) from None
        if not reply.is_redirect:
            return reply
        location = str(reply.url.join(reply.headers.get("location", "")))
        if reply.status_code not in (307, 308):
            # 301/302/303 turn the POST into a GET: the ticket would never reach the target.
            raise TargetError(
                f"HTTP {reply.status_code}: the target moved to {safe_url(location)}; give that URL"
            )
        url = location  # 307/308: the same POST, body and all
    raise TargetError(f"more than {MAX_REDIRECTS} redirects from {safe_url(first)}")


def _root_cause(exc: BaseException) -> str:
    """The operating system's reason ("[Errno 111] Connection refused") when there is one."""
    cause: BaseException | None = exc
    reason = str(exc)
    while cause is not None:
        if isinstance(cause, OSError) and cause.errno is not None:
            reason = f"[Errno {cause.errno}] {os.strerror(cause.errno)}"
        cause = cause.__cause__ or cause.__context__
    return reason


class TargetResponses:
    """The live targets' responses: each (target, ticket, earlier turns) asked once per session,
    retried by the one retry policy, within the session's limit on requests in flight."""

    def __init__(self, config: TargetConfig | None, retries: int, wait: float) -> None:
        self.config, self.retries, self.wait = config, retries, wait
        self._client: httpx2.AsyncClient | None = None
        self._responses: dict[tuple[str, str, tuple[Turn, ...]], Future[str]] = {}
        #: how long each response's successful request took, in ms (the target's own time)
        self.latency_ms: dict[tuple[str, str, tuple[Turn, ...]], float] = {}

    def future(
        self,
        loop: LoopThread,
        limit: AdaptiveLimit,
        target: str,
        ticket: str,
        turns: tuple[Turn, ...],
    ) -> Future[str]:
        """The response, asked now unless asked before (the caller holds the engine's lock)."""
        key = (target, ticket, turns)
        if key not in self._responses:
            self._responses[key] = loop.submit(self._ask(limit, target, ticket, turns))
        return self._responses[key]

    async def _ask(
        self, limit: AdaptiveLimit, target_name: str, ticket: str, turns: tuple[Turn, ...]
    ) -> str:
        config = self.config
        if config is None:
            raise TargetError("no targets are configured (llmjudge_targets)")
        if self._client is None:
            self._client = target_client(config)
        target = config.get(target_name)
        tries = 0
        try:
            async for attempt in retrying(
                RetryableTargetError, tries=self.retries + 1, first_wait=self.wait
            ):
                with attempt:
                    tries += 1
                    async with limit:  # timed once our own limit let the request go
                        started = time.monotonic()
                        response = await ask(
                            self._client, target, ticket, config, os.environ, turns
                        )
                        elapsed = (time.monotonic() - started) * 1000
                        self.latency_ms[(target_name, ticket, turns)] = elapsed
                        return response
        except RetryableTargetError as exc:
            raise TargetError(f"{exc} (after {counted(tries, 'try', 'tries')})") from None
        raise AssertionError("unreachable")  # pragma: no cover

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()

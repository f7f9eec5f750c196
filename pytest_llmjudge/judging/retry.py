"""The one retry policy of judge calls and target requests (tenacity is the only retry layer).

Exponential backoff with jitter, bounded tries (and optionally time), and a server's
``Retry-After`` honoured when the exception carries one (``retry_after`` seconds).
"""

from __future__ import annotations

import logging

from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception_type,
    stop_after_attempt,
    stop_after_delay,
    wait_exponential_jitter,
)
from tenacity.stop import stop_base

from ..basics.redaction import redact

logger = logging.getLogger("pytest_llmjudge")

# A server that asks for a longer pause than this is treated as "not now": we give up.
MAX_RETRY_AFTER = 60.0
MAX_BACKOFF = 30.0


class RetryAfterTooLong(Exception):
    """The server asked for a pause longer than MAX_RETRY_AFTER: give up instead."""


def retrying(
    retry_on: type[Exception],
    *,
    tries: int,
    first_wait: float,
    max_seconds: float | None = None,
    what: str | None = None,
) -> AsyncRetrying:
    """A tenacity loop: ``async for attempt in retrying(...): with attempt: ...``.

    ``what`` names the call in a warning logged before each retry, so that long waits
    (rate limits) do not look like a hang.
    """
    stop: stop_base = stop_after_attempt(tries)
    if max_seconds is not None:
        stop = stop | stop_after_delay(max_seconds)
    backoff = wait_exponential_jitter(multiplier=first_wait, max=MAX_BACKOFF, jitter=first_wait)

    def wait(state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        retry_after = getattr(exc, "retry_after", None)
        if retry_after is None:
            return backoff(state)
        if retry_after > MAX_RETRY_AFTER:
            raise RetryAfterTooLong(
                f"{exc} (server asked to retry after {retry_after:.0f}s; giving up)"
            )
        return float(retry_after)

    def log_retry(state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        pause = state.next_action.sleep if state.next_action else 0.0
        logger.warning(
            "%s attempt %d failed (%s); retrying in %.1fs",
            what,
            state.attempt_number,
            redact(str(exc)),
            pause,
        )

    return AsyncRetrying(
        stop=stop,
        wait=wait,
        retry=retry_if_exception_type(retry_on),
        before_sleep=log_retry if what else None,
        reraise=True,
    )

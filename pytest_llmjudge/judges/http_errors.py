"""What an OpenAI-compatible server's HTTP errors mean for a judge call: retry it, give up on
this item, or give up on the session; and how long a server asked us to wait."""

from __future__ import annotations

import json
import re
from email.utils import parsedate_to_datetime
from typing import Any

from ..basics.redaction import redact
from .base import FatalJudgeError, JudgeCallError, RejectedRequestError, RetryableJudgeError


def retry_after_seconds(headers: Any) -> float | None:
    """Seconds a server asked us to wait (``retry-after-ms`` or ``retry-after``)."""
    if headers is None:
        return None
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(float(millis) / 1000, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        from datetime import datetime, timezone

        return max((parsedate_to_datetime(value) - datetime.now(timezone.utc)).total_seconds(), 0)
    except (TypeError, ValueError):
        return None


def status_message(exc: Any) -> str:
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
    return exc.response.reason_phrase or ""


# A validation error (vLLM's, pydantic's) repeats the request after "input": a parameter
# named there was sent, not refused.
_ECHOED_REQUEST = re.compile(r"""(?:input_value=|['"]input['"]\s*:).*""", re.DOTALL)


def refused_in(exc: Any) -> str:
    """What a 400 says it refused: the parameter it names in ``param`` (OpenAI's), else its
    message without the request it may repeat."""
    inner = exc.body.get("error", exc.body) if isinstance(exc.body, dict) else None
    param = inner.get("param") if isinstance(inner, dict) else None
    if isinstance(param, str) and param:
        return param
    if isinstance(inner, dict) and inner.get("message"):
        text = str(inner["message"])
    else:
        text = json.dumps(exc.body) if exc.body is not None else str(exc)
    return _ECHOED_REQUEST.sub("", text)


def schema_unsupported(exc: Any) -> bool:
    text = refused_in(exc)
    return "response_format" in text or "json_schema" in text


# "Field 'n': Value must be between 1 <= value <= 2, but got 3" (llama.cpp); "n must be at
# most 8", "'n' should be less than or equal to 8" (others): the parameter named, then a bound.
_NAMES_N = re.compile(r"""['"`]n['"`]|\bn (?:must|should|cannot|can't)\b""")
_BOUND = re.compile(r"(?:<=|at most|less than or equal to|maximum(?: of)?|up to)\s*(\d+)")


def names_parameter(exc: Any, parameter: str) -> bool:
    """Whether a 400 is about ``parameter`` (a server that does not know it)."""
    return parameter in refused_in(exc)


def choices_cap(exc: Any) -> int | None:
    """The most choices (``n``) one request may ask, when a 400 says that ``n`` was too many:
    the bound it names, else 1. None when the error is about something else."""
    inner = exc.body.get("error", exc.body) if isinstance(exc.body, dict) else None
    param = inner.get("param") if isinstance(inner, dict) else None
    return choices_cap_in(status_message(exc), param)


def choices_cap_in(message: str, param: Any = None) -> int | None:
    """``choices_cap`` of an error's message (and the parameter it names), wherever it came
    from: a direct reply, or a line of a batch."""
    if param != "n" and not _NAMES_N.search(message):
        return None
    bound = _BOUND.search(message)
    return max(1, int(bound.group(1))) if bound else 1


# Worth sending again: timeout, conflict, rate limit and every server error (the rule the
# openai SDK retries by); judge and target requests alike.
RETRYABLE_STATUSES = frozenset({408, 409, 429})


def is_retryable_status(status: int) -> bool:
    return status in RETRYABLE_STATUSES or status >= 500


def status_error(exc: Any, key_given: bool = True) -> JudgeCallError:
    """Map an HTTP error status: retryable, this request's problem, or the session's.
    ``key_given``: whether the user set a key (a 401 to no key asks for one, not a new one)."""
    status = exc.status_code
    names = {
        401: "authentication failed",
        403: "permission denied",
        404: "not found",
        408: "request timeout",
        409: "conflict",
        429: "rate limited",
    }
    label = names.get(status, "server error" if status >= 500 else "rejected")
    message = redact(f"{status} {label}: {status_message(exc)}".rstrip(": "))
    if is_retryable_status(status):
        return RetryableJudgeError(
            message,
            retry_after=retry_after_seconds(exc.response.headers),
            throttled=status == 429,
        )
    if status in SESSION_WIDE:
        meaning = SESSION_WIDE[status] if key_given or status != 401 else _NO_KEY_GIVEN
        return FatalJudgeError(f"{message} ({meaning})", short=f"{status} {label}")
    return RejectedRequestError(message)  # e.g. 400 context_length_exceeded: this item only


# Statuses that no later request of the session can escape, and what they mean.
SESSION_WIDE = {
    401: "the API key was refused: check OPENAI_API_KEY",
    403: "the key may not use this model or endpoint",
    404: "the model or the base URL does not exist",
}
_NO_KEY_GIVEN = "no API key was given and this server wants one: set OPENAI_API_KEY"

"""Judge through the ``openai`` SDK: OpenAI itself or any OpenAI-compatible server."""

from __future__ import annotations

import json
import os
import re
from dataclasses import replace
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ValidationError

from ..redaction import redact, safe_url
from ..rubrics import Dimension, build_messages
from .base import (
    FatalJudgeError,
    JudgeCallError,
    RejectedRequestError,
    RetryableJudgeError,
    RunResult,
    UnreachableJudgeError,
    Usage,
)

if TYPE_CHECKING:
    from openai import AsyncOpenAI
    from openai.types.chat import ChatCompletion

_MISSING_KEY = (
    "OPENAI_API_KEY is not set: set it, point OPENAI_BASE_URL at an OpenAI-compatible "
    "server, or run with --judge-provider=heuristic"
)
_SNIPPET = 80


class JudgeReply(BaseModel):
    """A 1-5 score on one rubric dimension, with one or two sentences of reasoning."""

    # This docstring is the schema's description, sent to the model; Literal becomes an enum.

    score: Literal[1, 2, 3, 4, 5]
    reasoning: str


def strict_json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema in the strict form OpenAI's structured output asks for."""

    def strip(node: Any) -> Any:
        if isinstance(node, dict):
            cleaned = {k: strip(v) for k, v in node.items() if k != "title"}
            if cleaned.get("type") == "object":
                cleaned["additionalProperties"] = False
                cleaned["required"] = list(cleaned.get("properties", {}))
            return cleaned
        if isinstance(node, list):
            return [strip(v) for v in node]
        return node

    result: dict[str, Any] = strip(model.model_json_schema())
    return result


# Built once from JudgeReply (score is an enum: portable to servers that implement JSON
# schema through grammars, such as vLLM and llama.cpp); replies are validated by JudgeReply.
RESPONSE_FORMAT: dict[str, Any] = {
    "type": "json_schema",
    "json_schema": {
        "name": "judge_reply",
        "strict": True,
        "schema": strict_json_schema(JudgeReply),
    },
}
JSON_OBJECT: dict[str, Any] = {"type": "json_object"}


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


def _snippet(text: str | None) -> str:
    text = (text or "").strip().replace("\n", " ")
    return repr(text[:_SNIPPET] + ("..." if len(text) > _SNIPPET else ""))


def _describe_validation(exc: ValidationError) -> str:
    first = exc.errors()[0]
    if first["type"] == "json_invalid":
        return "reply is not JSON"
    where = ".".join(str(p) for p in first["loc"]) or "reply"
    if first["type"] == "missing":
        return f"reply has no '{where}'"
    return f"'{where}' {first['msg'][0].lower()}{first['msg'][1:]} (got {first['input']!r})"


_JSON_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


def parse_reply_text(content: str | None) -> JudgeReply:
    """Validate a free-text reply: JSON, possibly wrapped in prose or a code fence."""
    text = (content or "").strip()
    try:
        return JudgeReply.model_validate_json(text)
    except ValidationError as strict_error:
        found = _JSON_OBJECT.search(text)
        if found is None or found.group(0) == text:
            raise strict_error from None
        return JudgeReply.model_validate_json(found.group(0))


class OpenAIJudge:
    """Structured output via ``chat.completions.parse``; ``json_object`` mode as a fallback."""

    uses_llm = True

    def __init__(
        self,
        model: str,
        base_url: str | None,
        timeout: float,
        temperature: float | None,
        key_optional: bool,
    ) -> None:
        self.model = model
        self.base_url = base_url
        self.timeout = timeout
        self.temperature = temperature
        self.key_optional = key_optional
        self._client: AsyncOpenAI | None = None
        self._schema_supported = True

    @property
    def shown_url(self) -> str:
        """The judge's base URL for messages, without credentials."""
        return safe_url(self.base_url or "https://api.openai.com/v1") or ""

    def _get_client(self) -> AsyncOpenAI:
        # Built lazily on the judge loop: the SDK reads the key at construction and an
        # AsyncOpenAI is bound to the loop it first runs on.
        if self._client is None:
            from openai import AsyncOpenAI

            key = os.environ.get("OPENAI_API_KEY", "").strip()
            if not key:
                if not self.key_optional:
                    raise FatalJudgeError(_MISSING_KEY)
                key = "unused"  # local servers (Ollama, vLLM) accept any key
            self._client = AsyncOpenAI(
                api_key=key, base_url=self.base_url, timeout=self.timeout, max_retries=0
            )
        return self._client

    def _extra(self, n: int) -> dict[str, Any]:
        extra: dict[str, Any] = {"n": n} if n > 1 else {}
        return extra if self.temperature is None else {**extra, "temperature": self.temperature}

    async def judge_once(
        self, dimension: Dimension, ticket: str, response: str, *, usage: Usage | None = None
    ) -> RunResult:
        return (await self.judge_choices(dimension, ticket, response, 1, usage=usage))[0]

    async def judge_choices(
        self,
        dimension: Dimension,
        ticket: str,
        response: str,
        n: int,
        *,
        usage: Usage | None = None,
    ) -> list[RunResult]:
        """Ask for ``n`` independent scores in one request (``n`` choices): the prompt is
        sent and billed once. A server that ignores ``n`` returns fewer; the caller decides.
        All tokens of the request are on the first result."""
        import openai

        client = self._get_client()
        messages = build_messages(dimension, ticket, response)
        usage = usage if usage is not None else Usage()
        try:
            sent_schema = self._schema_supported
            try:
                completion = await self._create(client, messages, usage, n)
            except openai.BadRequestError as exc:
                if not (sent_schema and _schema_unsupported(exc)):
                    raise
                self._schema_supported = False  # learned once, kept for the session
                completion = await self._create(client, messages, usage, n)
        except openai.APITimeoutError:
            raise RetryableJudgeError(f"timed out after {self.timeout:g}s") from None
        except openai.APIConnectionError as exc:
            cause = exc.__cause__ or exc
            raise UnreachableJudgeError(
                redact(
                    f"cannot reach the judge at {self.shown_url}: {type(cause).__name__}: {cause}"
                )
            ) from None
        except openai.APIStatusError as exc:
            raise _status_error(exc) from None
        if not completion.choices:
            raise RetryableJudgeError("judge reply has no choices")
        replies = [_parse_choice(choice) for choice in completion.choices[:n]]
        billed = completion.usage
        first = replace(
            replies[0],
            prompt_tokens=billed.prompt_tokens if billed else 0,
            completion_tokens=billed.completion_tokens if billed else 0,
        )
        return [first, *replies[1:]]

    async def _create(
        self, client: AsyncOpenAI, messages: list[dict[str, str]], usage: Usage, n: int = 1
    ) -> ChatCompletion:
        # The JSON schema is built once (``parse(response_format=JudgeReply)`` rebuilds it on
        # every call, about 1.7 ms of CPU each); the reply is validated by JudgeReply below.
        response_format: Any = RESPONSE_FORMAT if self._schema_supported else JSON_OBJECT
        usage.requests += 1  # counted as it goes out: a request that fails was still sent
        completion: ChatCompletion = await client.chat.completions.create(
            model=self.model,
            messages=messages,  # type: ignore[arg-type]
            response_format=response_format,
            **self._extra(n),
        )
        if completion.usage is not None:  # billed even when the reply is then rejected
            usage.prompt_tokens += completion.usage.prompt_tokens
            usage.completion_tokens += completion.usage.completion_tokens
        if usage.exchanges is not None:
            reply = completion.choices[0].message.content if completion.choices else None
            usage.exchanges.append({"messages": messages, "reply": reply})
        return completion

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()


def _parse_choice(choice: Any) -> RunResult:
    """One choice of a completion as a validated score (no tokens: the request has them)."""
    content = choice.message.content
    if choice.finish_reason == "length":
        raise RetryableJudgeError("judge reply was cut off (max tokens reached)")
    if not content:
        refusal = getattr(choice.message, "refusal", None)
        raise RetryableJudgeError(f"judge gave no score: {_snippet(refusal)}")
    try:
        reply = parse_reply_text(content)
    except ValidationError as exc:
        raise RetryableJudgeError(
            f"malformed judge reply: {_describe_validation(exc)}: {_snippet(content)}"
        ) from None
    return RunResult(score=reply.score, reasoning=reply.reasoning.strip())


def _status_message(exc: Any) -> str:
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
    return exc.response.reason_phrase or ""


def _schema_unsupported(exc: Any) -> bool:
    text = json.dumps(exc.body) if exc.body is not None else str(exc)
    return "response_format" in text or "json_schema" in text


def _status_error(exc: Any) -> JudgeCallError:
    """Map an HTTP error status: retryable, this request's problem, or the session's."""
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
    message = redact(f"{status} {label}: {_status_message(exc)}".rstrip(": "))
    if status in (408, 409, 429) or status >= 500:
        return RetryableJudgeError(
            message,
            retry_after=retry_after_seconds(exc.response.headers),
            throttled=status == 429,
        )
    if status in SESSION_WIDE:
        return FatalJudgeError(f"{message} ({SESSION_WIDE[status]})")
    return RejectedRequestError(message)  # e.g. 400 context_length_exceeded: this item only


# Statuses that no later request of the session can escape, and what they mean.
SESSION_WIDE = {
    401: "the API key was refused",
    403: "the key may not use this model or endpoint",
    404: "the model or the base URL does not exist",
}

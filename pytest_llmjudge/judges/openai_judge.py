"""Judge through the ``openai`` SDK: OpenAI itself or any OpenAI-compatible server."""

from __future__ import annotations

import logging
import os
import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ValidationError

from ..redaction import redact, safe_url
from ..rubrics import NO_CONTEXT, Context, Dimension, build_messages
from .base import (
    FatalJudgeError,
    RetryableJudgeError,
    RunResult,
    UnreachableJudgeError,
    Usage,
)
from .http_errors import schema_unsupported, status_error
from .weighted import TOP_LOGPROBS, score_distribution, weighted_score

if TYPE_CHECKING:
    from openai import AsyncOpenAI
    from openai.types.chat import ChatCompletion

_MISSING_KEY = (
    "OPENAI_API_KEY is not set: set it, point OPENAI_BASE_URL at an OpenAI-compatible "
    "server, or run with --judge-provider=heuristic"
)
_SNIPPET = 80

logger = logging.getLogger("pytest_llmjudge")


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
        scoring: str = "text",
    ) -> None:
        self.model = model
        #: text, or logprobs (until a server answers without them: text for the session)
        self.scoring = scoring
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
        if self.scoring == "logprobs":
            extra |= {"logprobs": True, "top_logprobs": TOP_LOGPROBS}
        if self.temperature is not None:
            extra["temperature"] = self.temperature
        return extra

    async def judge_once(
        self,
        dimension: Dimension,
        ticket: str,
        response: str,
        *,
        usage: Usage | None = None,
        context: Context = NO_CONTEXT,
    ) -> RunResult:
        asked = await self.judge_choices(
            dimension, ticket, response, 1, usage=usage, context=context
        )
        first = asked[0]
        if isinstance(first, RetryableJudgeError):
            raise first
        return first

    async def judge_choices(
        self,
        dimension: Dimension,
        ticket: str,
        response: str,
        n: int,
        *,
        usage: Usage | None = None,
        context: Context = NO_CONTEXT,
    ) -> list[RunResult | RetryableJudgeError]:
        """Ask for ``n`` independent scores in one request (``n`` choices): the prompt is
        sent and billed once. A server that ignores ``n`` returns fewer; the caller decides.
        A rejected choice is returned as its error; when every choice is rejected, the first
        error is raised. The request's tokens are on its first usable result."""
        import openai

        client = self._get_client()
        messages = build_messages(dimension, ticket, response, context)
        usage = usage if usage is not None else Usage()
        try:
            sent_schema = self._schema_supported
            try:
                completion = await self._create(client, messages, usage, n)
            except openai.BadRequestError as exc:
                if not (sent_schema and schema_unsupported(exc)):
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
            raise status_error(exc) from None
        if not completion.choices:
            raise RetryableJudgeError("judge reply has no choices")
        choices = completion.choices[:n]
        self._check_logprobs(choices)
        replies = [_parse_choice(choice, self.scoring == "logprobs") for choice in choices]
        usable = [(i, reply) for i, reply in enumerate(replies) if isinstance(reply, RunResult)]
        if not usable:
            raise next(reply for reply in replies if isinstance(reply, RetryableJudgeError))
        billed = completion.usage
        index, first = usable[0]
        replies[index] = replace(
            first,
            prompt_tokens=billed.prompt_tokens if billed else 0,
            completion_tokens=billed.completion_tokens if billed else 0,
        )
        return replies

    def _check_logprobs(self, choices: list[Any]) -> None:
        """A server that answers a logprobs request without them cannot weight scores: say
        so once and score by the written integer for the rest of the session."""
        if self.scoring != "logprobs" or any(c.logprobs and c.logprobs.content for c in choices):
            return
        self.scoring = "text"
        logger.warning(
            "the judge at %s returned no logprobs: --judge-scoring=logprobs falls back to "
            "text scores for this session",
            self.shown_url,
        )

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


def _parse_choice(choice: Any, weighted: bool) -> RunResult | RetryableJudgeError:
    """One choice of a completion as a validated score (no tokens: the request has them),
    or why it cannot be used. ``weighted``: score by the score token's logprobs."""
    content = choice.message.content
    if choice.finish_reason == "length":
        return RetryableJudgeError("judge reply was cut off (max tokens reached)")
    if not content:
        refusal = getattr(choice.message, "refusal", None)
        return RetryableJudgeError(f"judge gave no score: {_snippet(refusal)}")
    try:
        reply = parse_reply_text(content)
    except ValidationError as exc:
        return RetryableJudgeError(
            f"malformed judge reply: {_describe_validation(exc)}: {_snippet(content)}"
        )
    reasoning = reply.reasoning.strip()
    tokens = choice.logprobs.content if weighted and choice.logprobs else None
    distribution = score_distribution(content, tokens) if tokens else None
    if distribution is None:
        # no logprobs for this reply, or the digit is not a token of its own: the written
        # score (text_score stays None, so results show which runs were weighted)
        return RunResult(score=reply.score, reasoning=reasoning)
    return RunResult(
        score=weighted_score(distribution), reasoning=reasoning, text_score=reply.score
    )

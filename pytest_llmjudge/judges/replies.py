"""What a judge's reply means: the reply model and its JSON schema, a reply's text validated
(JSON, possibly in prose or a code fence), and one choice of a completion turned into a score
(by the written integer or the score token's logprobs) or the reason it cannot be used."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError

from .base import PairVote, RetryableJudgeError, RunResult
from .weighted import score_distribution, weighted_score

if TYPE_CHECKING:
    from openai.types.chat import ChatCompletion

_SNIPPET = 80
T = TypeVar("T")


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


class PairReply(BaseModel):
    """Which of two responses is better on one rubric dimension: A (shown first), B, or a tie."""

    reasoning: str
    winner: Literal["A", "B", "tie"]


PAIR_RESPONSE_FORMAT: dict[str, Any] = {
    "type": "json_schema",
    "json_schema": {"name": "pair_reply", "strict": True, "schema": strict_json_schema(PairReply)},
}


def read_completion(raw: bytes) -> ChatCompletion:
    """A chat completion's body as the SDK's ``ChatCompletion``: validated by pydantic's parser,
    or, from a server that leaves out or bends a field, read as ``completion_of`` reads it. A
    body that is not a JSON object is a rejected reply."""
    from openai.types.chat import ChatCompletion

    try:
        return ChatCompletion.model_validate_json(raw)
    except ValidationError:
        pass
    try:
        data = json.loads(raw)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        shown = _snippet(raw.decode(errors="replace"))
        raise RetryableJudgeError(f"judge reply is not a chat completion: {shown}")
    return completion_of(data, strict_first=False)


def completion_of(data: dict[str, Any], strict_first: bool = True) -> ChatCompletion:
    """A chat completion's JSON (a direct reply, a batch's output line) as the SDK's
    ``ChatCompletion``; from a server that leaves out a field the judge does not read
    (``created``, ``role``, a token count), built as leniently as the SDK builds its replies
    (its ``construct``). Without what the judge reads, or with it of another
    type, it is a rejected reply. ``strict_first``: try the strict reading first (a body
    read from bytes has been tried already)."""
    from openai.types.chat import ChatCompletion

    if strict_first:
        try:
            return ChatCompletion.model_validate(data)
        except ValidationError:
            pass
    try:
        _ReadShape.model_validate(data)
    except ValidationError as exc:
        problem = f"{_describe_validation(exc)}: {_snippet(json.dumps(data))}"
        raise RetryableJudgeError(f"judge reply is not a chat completion: {problem}") from None
    return ChatCompletion.construct(**data)


class _Alternative(BaseModel):
    token: str
    logprob: float


class _Token(_Alternative):
    top_logprobs: list[_Alternative] = []


class _Logprobs(BaseModel):
    content: list[_Token] | None = None


class _Message(BaseModel):
    content: str | None = None
    refusal: str | None = None


class _Choice(BaseModel):
    message: _Message
    finish_reason: str | None = None
    logprobs: _Logprobs | None = None


class _ReadShape(BaseModel):
    """The fields of a chat completion the judge reads, for a reply that leaves out others
    (``created``, ``role``): a body without them, or with another type, is no reply (its
    ``usage`` is read as it comes: counts it does not say are unknown)."""

    choices: list[_Choice]


def parse_pair_choice(choice: Any) -> PairVote | RetryableJudgeError:
    """One choice of a pairwise completion as a vote, or why it cannot be used."""
    content = choice.message.content
    if choice.finish_reason == "length":
        return RetryableJudgeError("judge reply was cut off (max tokens reached)", cut_off=True)
    reply = _read_json(content, PairReply.model_validate_json)
    if isinstance(reply, RetryableJudgeError):
        return reply
    return PairVote(winner=reply.winner, reasoning=reply.reasoning.strip())


def _read_json(content: str | None, validate: Callable[[str], T]) -> T | RetryableJudgeError:
    """A reply's JSON object (possibly in prose or a code fence) validated, or why not."""
    text = (content or "").strip()
    found = _JSON_OBJECT.search(text)
    try:
        return validate(found.group(0) if found else text)
    except ValidationError as exc:
        return RetryableJudgeError(
            f"malformed judge reply: {_describe_validation(exc)}: {_snippet(content)}"
        )


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
    if first["type"] == "model_type":  # not "instance of PartReply": a class name says nothing
        return f"'{where}' should be an object (got {first['input']!r})"
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


class PartReply(BaseModel):
    """One dimension's part of a grouped reply: its reasoning first, then its 1-5 score."""

    reasoning: str
    score: Literal[1, 2, 3, 4, 5]


_GROUP_REPLY: TypeAdapter[dict[str, PartReply]] = TypeAdapter(dict[str, PartReply])


@functools.cache
def group_response_format(names: tuple[str, ...]) -> dict[str, Any]:
    """The strict JSON schema of a grouped reply: one property per dimension, in order."""
    part = strict_json_schema(PartReply)
    schema = {
        "type": "object",
        "properties": {name: part for name in names},
        "required": list(names),
        "additionalProperties": False,
    }
    return {
        "type": "json_schema",
        "json_schema": {"name": "judge_group_reply", "strict": True, "schema": schema},
    }


def _unusable(choice: Any) -> RetryableJudgeError | None:
    """Why a choice holds no reply to read (cut off, empty), or None."""
    if choice.finish_reason == "length":
        return RetryableJudgeError("judge reply was cut off (max tokens reached)", cut_off=True)
    if not choice.message.content:
        refusal = getattr(choice.message, "refusal", None)
        return RetryableJudgeError(f"judge gave no score: {_snippet(refusal)}")
    return None


def parse_group_choice(
    choice: Any, names: tuple[str, ...], weighted: bool
) -> RunResult | RetryableJudgeError:
    """One choice of a grouped request: a result whose ``parts`` hold each dimension's score
    (weighted by its own score token's logprobs), or why it cannot be used. A reply that
    lacks a dimension is rejected whole: the runs of one request stay together."""
    content = choice.message.content
    problem = _unusable(choice)
    if problem is not None:
        return problem
    parts = _read_json(content, _GROUP_REPLY.validate_json)
    if isinstance(parts, RetryableJudgeError):
        return parts
    missing = [name for name in names if name not in parts]
    if missing:
        return RetryableJudgeError(f"malformed judge reply: reply has no '{missing[0]}'")
    tokens = choice.logprobs.content if weighted and choice.logprobs else None
    results = {name: _scored(parts[name], weighted, tokens, after=name.encode()) for name in names}
    mean = sum(r.score for r in results.values()) / len(results)
    return RunResult(score=mean, reasoning="", parts=results)


def parse_choice(choice: Any, weighted: bool) -> RunResult | RetryableJudgeError:
    """One choice of a completion as a validated score (no tokens: the request has them),
    or why it cannot be used. ``weighted``: score by the score token's logprobs."""
    content = choice.message.content
    problem = _unusable(choice)
    if problem is not None:
        return problem
    try:
        reply = parse_reply_text(content)
    except ValidationError as exc:
        return RetryableJudgeError(
            f"malformed judge reply: {_describe_validation(exc)}: {_snippet(content)}"
        )
    tokens = choice.logprobs.content if weighted and choice.logprobs else None
    return _scored(reply, weighted, tokens)


def _scored(
    reply: JudgeReply | PartReply, weighted: bool, tokens: Any, after: bytes = b""
) -> RunResult:
    """A validated reply as a run's result; weighted by the logprobs of its score token (the
    first after the key ``after`` in a grouped reply) when asked and found."""
    reasoning = reply.reasoning.strip()
    if not weighted:
        return RunResult(score=reply.score, reasoning=reasoning)
    located = score_distribution(tokens, reply.score, after)
    if located.distribution is None:
        # the written score; text_score stays None, so results show which runs were weighted
        return RunResult(score=reply.score, reasoning=reasoning, unweighted=located.missing)
    return RunResult(
        score=weighted_score(located.distribution), reasoning=reasoning, text_score=reply.score
    )

"""A cache entry as stored: the sealed JSON text of one run (or pairwise vote), checked on
reading: strict types, the key it was written for, a checksum of the rest."""

from __future__ import annotations

import hashlib
import json
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ..judges.base import RunResult

Score = Annotated[float, Field(ge=1, le=5)]


class StoredEntry(BaseModel):
    """An entry as stored: strict types (no bool for an int, no text for a number), the key
    it was written for, and a checksum of the rest."""

    model_config = ConfigDict(strict=True, extra="forbid")
    key: str
    checksum: str

    def stored(self) -> dict[str, Any]:
        """What the checksum covers (text entries keep the keys they had before weighting)."""
        # its fields are plain values (text, numbers): what model_dump(exclude={"checksum"},
        # exclude_none=True) gives, at a fifth of the cost (read back 6 times an item)
        return {k: v for k, v in self.__dict__.items() if k != "checksum" and v is not None}

    def sealed(self: EntryT) -> EntryT:
        """The entry with its checksum set, to be written."""
        self.checksum = checksum_of(self.stored())
        return self


EntryT = TypeVar("EntryT", bound=StoredEntry)


class CacheEntry(StoredEntry):
    """One cached run as stored."""

    score: Annotated[int, Field(ge=1, le=5)] | Score  # a float only when weighted
    reasoning: str
    prompt_tokens: Annotated[int, Field(ge=0)]
    completion_tokens: Annotated[int, Field(ge=0)]
    text_score: Annotated[int, Field(ge=1, le=5)] | None = None  # weighted: what the judge wrote
    unweighted: str | None = None  # asked for logprobs, scored by the integer: why
    tokens_unknown: bool | None = None  # true: the reply did not say its tokens (0 above)

    @model_validator(mode="after")
    def _whole_or_weighted(self) -> CacheEntry:
        whole = type(self.score) is int and self.text_score is None
        weighted = type(self.score) is float and self.text_score is not None
        if not (whole or weighted):
            raise ValueError("an integer score, or a weighted score beside the judge's integer")
        return self


class VoteEntry(StoredEntry):
    """One cached pairwise run as stored."""

    winner: Literal["A", "B", "tie"]
    reasoning: str


def entry_text(key: str, result: RunResult) -> str:
    """A run's entry as stored: sealed JSON text, the text and checksum ``CacheEntry`` would
    give. Composed here for a run whose values that model takes as they are (every run our own
    judges make): a batch seals an entry per run, and the model's validation would change
    nothing of those; any other run is made by the model."""
    text = _composed(key, result)
    return text if text is not None else _validated(key, result)


def _composed(key: str, r: RunResult) -> str | None:
    """``_validated``'s text, made without pydantic: None for a run it does not cover (a
    value ``CacheEntry`` would refuse or convert, a text not encodable as UTF-8)."""
    score, text_score, tokens = r.score, r.text_score, (r.prompt_tokens, r.completion_tokens)
    whole = type(score) is int and text_score is None
    weighted = type(score) is float and type(text_score) is int and 1 <= text_score <= 5
    if not ((whole or weighted) and 1 <= score <= 5 and all(type(t) is int for t in tokens)):
        return None
    if min(tokens) < 0 or not (r.unweighted is None or type(r.unweighted) is str):
        return None
    # the checksum's text: json.dumps(sort_keys=True) of the stored fields (as ``stored``)
    sums = [f'{{"completion_tokens": {tokens[1]}, "key": {_ASCII(key)}, ']
    sums.append(f'"prompt_tokens": {tokens[0]}, "reasoning": {_ASCII(r.reasoning)}, ')
    sums.append(f'"score": {score!r}')
    if text_score is not None:
        sums.append(f', "text_score": {text_score}')
    if r.tokens_unknown:
        sums.append(', "tokens_unknown": true')
    if r.unweighted is not None:
        sums.append(f', "unweighted": {_ASCII(r.unweighted)}')
    sums.append("}")
    # pydantic's JSON of the entry: fields in order, compact, text not escaped to ASCII
    out = [f'{{"key":{_JSON(key)},"checksum":"', "", f'","score":{score!r},']
    out.append(f'"reasoning":{_JSON(r.reasoning)},"prompt_tokens":{tokens[0]},')
    out.append(f'"completion_tokens":{tokens[1]}')
    if text_score is not None:
        out.append(f',"text_score":{text_score}')
    if r.unweighted is not None:
        out.append(f',"unweighted":{_JSON(r.unweighted)}')
    out.append(',"tokens_unknown":true}' if r.tokens_unknown else "}")
    out[1] = hashlib.sha256("".join(sums).encode()).hexdigest()  # (ASCII: always encodes)
    text = "".join(out)
    return text if _encodes(text) else None


def _encodes(text: str) -> bool:
    """Whether ``text`` is UTF-8 as it stands (a lone surrogate is not: pydantic says so)."""
    try:
        text.encode()
    except UnicodeError:
        return False
    return True


def _validated(key: str, result: RunResult) -> str:
    """A run's entry as ``CacheEntry`` validates, seals and writes it."""
    entry = CacheEntry(
        key=key,
        score=result.score,
        reasoning=result.reasoning,
        prompt_tokens=result.prompt_tokens,
        completion_tokens=result.completion_tokens,
        text_score=result.text_score,
        unweighted=result.unweighted,
        tokens_unknown=result.tokens_unknown or None,  # left out when known: old checksums hold
        checksum="",
    )
    return entry.sealed().model_dump_json(exclude_none=True)


def as_result(entry: CacheEntry) -> RunResult:
    return RunResult(
        entry.score,
        entry.reasoning,
        entry.prompt_tokens,
        entry.completion_tokens,
        text_score=entry.text_score,
        unweighted=entry.unweighted,
        tokens_unknown=bool(entry.tokens_unknown),
    )


def valid_entry(key: str, text: str | bytes, kind: type[EntryT]) -> EntryT | None:
    """The stored text as ``kind`` if whole, written for ``key`` and unchanged (checksum)."""
    try:
        entry = kind.model_validate_json(text)
    except ValidationError:
        return None
    return entry if entry.key == key and entry.checksum == checksum_of(entry.stored()) else None


def checksum_of(stored: dict[str, Any]) -> str:
    """Of the entry's content: an entry changed after it was written is a miss."""
    return hashlib.sha256(_SORTED.encode(stored).encode()).hexdigest()


# json.dumps(..., sort_keys=True) without making an encoder at each call (the same text)
_SORTED = json.JSONEncoder(sort_keys=True)
_ASCII = json.encoder.encode_basestring_ascii  # a string as that encoder writes it
_JSON = json.encoder.encode_basestring  # and as pydantic writes it (the same escapes)

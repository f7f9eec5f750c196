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
    """A run's entry as stored: sealed JSON text."""
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

"""One eval entry as a validated model: the fields an entry may have, and what they mean."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints
from pydantic_core import PydanticCustomError

from ..basics.rubrics import Context, Turn
from ..checks.parse import CheckSpec, parse_checks
from ..config.options import MAX_RUNS


def _not_blank(value: str) -> str:
    # pydantic strips Unicode White_Space only; Python (and the judge, which refuses a blank
    # ticket) also counts the separators \x1c-\x1f as space: "\x1c" alone is blank here too.
    if not value.strip():
        raise PydanticCustomError("string_too_short", "String should have at least 1 character")
    return value


NonEmpty = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1), AfterValidator(_not_blank)
]
Score = Annotated[float, Field(ge=1, le=5)]
SAVED_LATENCY = "latency_ms"  # a saved response's metadata: how long its live target took
SAVED_ERROR = "target_error"  # a saved response's metadata: the target gave none, for this reason


class TurnSpec(BaseModel):
    """An earlier turn of the conversation in an eval file."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)
    role: Literal["user", "assistant"]
    content: NonEmpty


class MarkSpec(BaseModel):
    """A pytest mark given as an object: ``{"name": "xfail", "reason": "..."}``."""

    model_config = ConfigDict(extra="allow", frozen=True)
    name: NonEmpty
    reason: str | None = None

    @property
    def kwargs(self) -> dict[str, Any]:
        extra = dict(self.model_extra or {})
        if self.reason is not None:
            extra["reason"] = self.reason
        return extra


class EvalCase(BaseModel):
    """One validated eval entry (its fields are the keys an entry may have)."""

    model_config = ConfigDict(extra="ignore", frozen=True, strict=True)
    id: NonEmpty
    ticket: NonEmpty
    response: NonEmpty | None = None  # required unless responses come from live targets
    conversation: list[TurnSpec] = Field(default_factory=list)  # the turns before the ticket
    reference: NonEmpty | None = None  # a known-good response (the correctness dimension)
    cluster: NonEmpty | None = None  # entries sharing a conversation, template or source
    thresholds: dict[str, Score] = Field(default_factory=dict)
    marks: list[NonEmpty | MarkSpec] = Field(default_factory=list)
    runs: Annotated[int, Field(ge=1, le=MAX_RUNS)] | None = None
    expected: dict[str, Score] = Field(default_factory=dict)
    metadata: dict[str, Any] = Field(default_factory=dict)
    checks: list[Any] = Field(default_factory=list)  # read by checks.parse
    judge: bool = True  # false: checked only, no judge asked

    @property
    def saved_latency_ms(self) -> float | None:
        """A replayed response's latency: ``save_responses`` keeps what the live target took,
        measured when it answered, in the metadata beside its name; None for any other."""
        latency = self.metadata.get(SAVED_LATENCY)
        if "target" not in self.metadata or isinstance(latency, bool):
            return None
        if not isinstance(latency, int | float) or not 0 <= latency < float("inf"):
            return None
        return float(latency)

    @property
    def replayed(self) -> bool:
        """A target's response saved by ``save_responses``: replayed, never asked again."""
        return isinstance(self.metadata.get("target"), str)

    @property
    def saved_error(self) -> str | None:
        """Why the saved target gave no response (its item's error, replayed as it was)."""
        error = self.metadata.get(SAVED_ERROR)
        return error if self.replayed and isinstance(error, str) and error else None

    def check_specs(self, rootdir: Path | None = None) -> tuple[CheckSpec, ...]:
        """The entry's checks, read (its file's default checks first); ValueError naming the
        check that cannot work."""
        return parse_checks(self.checks, rootdir)

    def mark_specs(self) -> list[MarkSpec]:
        return [MarkSpec(name=m) if isinstance(m, str) else m for m in self.marks]

    @property
    def context(self) -> Context:
        """What the judge sees besides the ticket and the response."""
        turns = tuple(Turn(t.role, t.content) for t in self.conversation)
        return Context(turns, self.reference)

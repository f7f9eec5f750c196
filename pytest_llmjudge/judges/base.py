"""The one small protocol every judge provider implements."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ..rubrics import Dimension


@dataclass(frozen=True)
class RunResult:
    """One judge run: a validated 1-5 score, its reasoning and what it cost."""

    score: int
    reasoning: str
    prompt_tokens: int = 0
    completion_tokens: int = 0


class JudgeCallError(Exception):
    """A judge call failed. ``retryable`` says whether another attempt may succeed."""

    retryable: bool = False

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class RetryableJudgeError(JudgeCallError):
    retryable = True


class FatalJudgeError(JudgeCallError):
    """Retrying cannot help (bad key, unknown model, missing configuration)."""


class Judge(Protocol):
    """Scores one (ticket, response) pair on one dimension, once."""

    #: whether a language model produces the scores (results say so when not)
    uses_llm: bool

    async def judge_once(self, dimension: Dimension, ticket: str, response: str) -> RunResult:
        """Return one validated score or raise JudgeCallError."""
        ...

    async def aclose(self) -> None:
        """Release connections; called once on the judge's event loop."""
        ...

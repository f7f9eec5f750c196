"""The one small protocol every judge provider implements."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from ..rubrics import NO_CONTEXT, Context, Dimension


@dataclass(frozen=True)
class RunResult:
    """One judge run: a validated 1-5 score, its reasoning and what it cost.

    With ``--judge-scoring=logprobs`` the score is the probability-weighted mean of the
    score token's alternatives (a float) and ``text_score`` the integer the model wrote;
    otherwise ``text_score`` is None and the score is the written integer."""

    score: float
    reasoning: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    text_score: int | None = None


@dataclass
class Usage:
    """What judging cost: requests sent (retries and fallbacks too), the replies' tokens and
    the runs they scored.

    A judge adds to it as requests go out and replies come back, also for replies it then
    rejects, so that the counts are what the server saw and billed.
    """

    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    judgments: int = 0  # runs scored by those requests (one request of n choices scores n)
    weighted: int = 0  # of those, runs scored by logprobs (--judge-scoring=logprobs)
    short_replies: int = 0  # requests for n choices answered with fewer (the server ignores n)
    # With --judge-trace: what each request sent and got back ({"messages", "reply"}).
    exchanges: list[dict[str, Any]] | None = None

    def add(self, other: Usage) -> None:
        self.requests += other.requests
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.judgments += other.judgments
        self.weighted += other.weighted
        self.short_replies += other.short_replies


class JudgeCallError(Exception):
    """A judge call failed. ``retryable`` says whether another attempt may succeed."""

    retryable: bool = False

    def __init__(
        self, message: str, retry_after: float | None = None, throttled: bool = False
    ) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.throttled = throttled  # a rate limit (429): send fewer requests at once


class RetryableJudgeError(JudgeCallError):
    retryable = True


class FatalJudgeError(JudgeCallError):
    """Nothing in this session can be judged (bad key, no permission, unknown model, no key)."""


class RejectedRequestError(JudgeCallError):
    """The judge refused this request (a 400: too long, invalid): this item only, not retried."""


class UnreachableJudgeError(RetryableJudgeError):
    """No connection to the judge (refused, DNS, reset): counted by the circuit breaker."""


class Judge(Protocol):
    """Scores one (ticket, response) pair on one dimension, once."""

    #: whether a language model produces the scores (results say so when not)
    uses_llm: bool

    async def judge_once(
        self,
        dimension: Dimension,
        ticket: str,
        response: str,
        *,
        usage: Usage | None = None,
        context: Context = NO_CONTEXT,
    ) -> RunResult:
        """Return one validated score or raise JudgeCallError; count what it cost in usage."""
        ...

    async def aclose(self) -> None:
        """Release connections; called once on the judge's event loop."""
        ...


@runtime_checkable
class ChoicesJudge(Judge, Protocol):
    """A judge that can ask for several independent scores in one request."""

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
        """One entry per choice the server returned (fewer than ``n`` when it ignores n):
        a validated score, or why that choice was rejected. Raises when none is usable."""
        ...

"""What every judge provider shares: the small protocol it implements (``Judge``), what one
run gives (``RunResult``, ``PairVote``), the errors it raises, and what judging was billed
(``Usage``) and learned of the server (``ServerFacts``), together an engine's ``Totals``."""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal, Protocol, TypeGuard, runtime_checkable

from ..basics.redaction import redact
from ..basics.rubrics import NO_CONTEXT, Context, Dimension

TRACE = "trace"  # a Usage field's metadata key: the trace's data, not summed
MERGE = "merge"  # a ServerFacts field's metadata key: how two processes' values become one


@dataclass(frozen=True, slots=True)
class RunResult:
    """One judge run: a validated 1-5 score, its reasoning and what it cost.

    With ``llmjudge_scoring=logprobs`` the score is the probability-weighted mean of the
    score token's alternatives (a float) and ``text_score`` the integer the model wrote;
    otherwise ``text_score`` is None and the score is the written integer."""

    score: float
    reasoning: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    text_score: int | None = None
    #: the reply did not say what it billed (its ``usage``, or a count in it, left out)
    tokens_unknown: bool = False
    #: asked for logprobs but scored by the written integer: why (``weighted.NO_LOGPROBS``...)
    unweighted: str | None = None
    #: a grouped request's reply (``llmjudge_grouping=item``): each dimension's own result
    parts: Mapping[str, RunResult] | None = None

    def redacted(self) -> RunResult:
        """This result with secrets out of its reasoning (each part's too): a judge echoing
        a key must not carry it into results or the cache."""
        reasoning = redact(self.reasoning)
        if self.parts is None and reasoning == self.reasoning:
            return self  # nothing to take out (frozen: the same result serves)
        parts = self.parts and {name: part.redacted() for name, part in self.parts.items()}
        return replace(self, reasoning=reasoning, parts=parts)

    def billed_as(self, request: RunResult) -> RunResult:
        """This run carrying what its request billed (or that the reply did not say it): a
        request's tokens go on the first run it judged."""
        return replace(
            self,
            prompt_tokens=request.prompt_tokens,
            completion_tokens=request.completion_tokens,
            tokens_unknown=request.tokens_unknown,
        )


Winner = Literal["A", "B", "tie"]  # A: the answer shown first


@dataclass(frozen=True)
class PairVote:
    """One pairwise run: which of two answers the judge found better on one dimension, as
    shown ("A" first, "B" second, or "tie"), and why."""

    winner: Winner
    reasoning: str
    prompt_tokens: int = 0  # on the first vote of a request: what it billed
    completion_tokens: int = 0


@dataclass(slots=True)
class Usage:
    """What judging was billed: requests sent (retries and fallbacks too), the tokens their
    replies said, and the runs they scored.

    A judge adds to it as requests go out and replies come back, also for replies it then
    rejects, so that the counts are what the server saw and billed. ``add`` sums every field
    but the trace's (``TRACE``).
    """

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tokens_unknown: int = 0  # requests whose reply did not say its tokens: not in the counts
    runs: int = 0  # runs scored by those requests (one request of n choices scores n)
    weighted: int = 0  # of those, runs scored by logprobs (llmjudge_scoring=logprobs)
    unweighted: dict[str, int] = field(default_factory=dict)  # runs not weighted, by cause
    short_replies: int = 0  # requests for n choices answered with fewer (the server ignores n)
    cut_off: int = 0  # replies (choices) cut off at the completion-token limit
    timeouts: int = 0  # requests that got no reply within llmjudge_timeout
    requeued: int = 0  # of those, sent again because the server was busy (not the item's fault)
    #: runs served from the judge cache that no item's row holds: pairwise votes, and (added
    #: on the controller) those of attempts a rerun replaced
    cached_outside_rows: int = 0
    # Of the requests and tokens above, those answered through the Batch API (billed at its
    # price), and the runs they scored.
    batch_calls: int = 0
    batch_prompt_tokens: int = 0
    batch_completion_tokens: int = 0
    batch_tokens_unknown: int = 0
    batch_runs: int = 0
    #: with llmjudge_trace: what the request sent and got back ({"messages", "reply"}); the
    #: trace's, not a count: not summed
    exchanges: list[dict[str, Any]] | None = field(default=None, metadata={TRACE: True})

    def tokens_since(self, before: Usage) -> Usage:
        """The tokens billed since an earlier reading of this usage (and the replies that
        did not say theirs)."""
        prompt = self.prompt_tokens - before.prompt_tokens
        completion = self.completion_tokens - before.completion_tokens
        unknown = self.tokens_unknown - before.tokens_unknown
        return Usage(0, prompt, completion, unknown)

    def reading(self) -> Usage:
        """The calls and tokens so far, for ``tokens_since`` later."""
        return Usage(self.calls, self.prompt_tokens, self.completion_tokens, self.tokens_unknown)

    def scored(self, result: RunResult, *, logprobs_asked: bool) -> None:
        """Count the runs a usable reply scored (a grouped reply, one per dimension), those
        weighted by logprobs, and why the others were not when logprobs were asked for."""
        for run in result.parts.values() if result.parts else (result,):
            self.runs += 1
            self.weighted += run.text_score is not None
            if logprobs_asked and run.text_score is None:
                from .weighted import NO_LOGPROBS

                cause = run.unweighted or NO_LOGPROBS  # scored by the written integer: why
                self.unweighted[cause] = self.unweighted.get(cause, 0) + 1

    def bill(self, billed: object) -> None:
        """Add the tokens a reply's ``usage`` says it billed; a reply that does not say both
        (a server that leaves usage or a count out) is counted as unknown."""
        said = said_tokens(billed)
        if said is None:
            self.tokens_unknown += 1
        else:
            self.prompt_tokens += said[0]
            self.completion_tokens += said[1]

    def charge_batch_request(self, result: RunResult) -> None:
        """Add the Batch API request that judged a run, as the run carries it: one call and
        its tokens, at the batch's price."""
        unknown = int(result.tokens_unknown)
        self.calls += 1
        self.prompt_tokens += result.prompt_tokens
        self.completion_tokens += result.completion_tokens
        self.tokens_unknown += unknown
        self.batch_calls += 1
        self.batch_prompt_tokens += result.prompt_tokens
        self.batch_completion_tokens += result.completion_tokens
        self.batch_tokens_unknown += unknown

    def add(self, other: Usage) -> None:
        """Add ``other``'s counts, field by field: numbers add, counts by cause add per cause."""
        for name in _COUNTS:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for cause, runs in other.unweighted.items():
            self.unweighted[cause] = self.unweighted.get(cause, 0) + runs


#: Usage's fields summed as numbers (all but the counts by cause and the trace's)
_COUNTS = tuple(
    f.name for f in fields(Usage) if not f.metadata.get(TRACE) and f.name != "unweighted"
)


def _smaller_known(mine: int, theirs: int) -> int:
    """The smaller of two caps, 0 being none known."""
    return min(mine or theirs, theirs or mine)


def _first_said(mine: str, theirs: str) -> str:
    return mine or theirs


def _fuller(mine: dict[str, list[int]], theirs: dict[str, list[int]]) -> dict[str, list[int]]:
    """Each batch's fuller reading (xdist workers that read the same batch say the same)."""
    return mine | {batch: max(mine.get(batch, counts), counts) for batch, counts in theirs.items()}


def merge_learned(one: dict[str, Any], other: dict[str, Any]) -> dict[str, Any]:
    """What two processes (xdist workers) learned of one server, together: the smaller
    choices cap, the larger slots, and a capability refused by either is refused."""
    merged = dict(one)
    for name, value in other.items():
        mine = merged.get(name)
        if value is None or mine is None:
            merged[name] = value if mine is None else mine
        elif name == "choices_cap":
            merged[name] = min(mine, value)
        elif name == "slots":
            merged[name] = max(mine, value)
        elif name == "ignores_n":
            merged[name] = mine or value
        else:  # logprobs, json_schema, json_object: False (refused) over True; limit_param
            merged[name] = mine and value
    return merged


def _merge(how: Callable[[Any, Any], Any]) -> dict[str, Any]:
    return {MERGE: how}


@dataclass(slots=True)
class ServerFacts:
    """What a session learned of its judge server and of its Batch API batches, set on an
    engine's totals. Each field says how two processes' (xdist workers') values become one."""

    #: the most choices the server takes per request, once learned (0: not known)
    choices_cap: int = field(default=0, metadata=_merge(_smaller_known))
    #: the in-flight limit at the end, when the server made it lower
    kept_in_flight: int = field(default=0, metadata=_merge(operator.add))
    #: the parallel slots the server announced (llama.cpp's /props)
    server_slots: int = field(default=0, metadata=_merge(max))
    #: a session-wide judge error that stopped judging: where, and its cause
    stopped: str = field(default="", metadata=_merge(_first_said))
    #: what was learned of the server (``server_profile.learned()``)
    learned: dict[str, Any] = field(default_factory=dict, metadata=_merge(merge_learned))
    #: the session's batches by id ({"status", "requests", "completed", "failed"})
    batches: dict[str, dict[str, Any]] = field(default_factory=dict, metadata=_merge(operator.or_))
    #: per batch, what its collection read of every line that came back: [requests, prompt
    #: tokens, completion tokens, requests whose tokens are unknown]
    collected: dict[str, list[int]] = field(default_factory=dict, metadata=_merge(_fuller))

    def add(self, other: ServerFacts) -> None:
        """``other``'s facts joined to these, field by field, each by its own rule."""
        for f in fields(self):
            setattr(self, f.name, f.metadata[MERGE](getattr(self, f.name), getattr(other, f.name)))


@dataclass(slots=True)
class Totals:
    """What one process's judging was billed and learned (an engine's totals), or a
    session's, summed over its processes."""

    billing: Usage = field(default_factory=Usage)
    server: ServerFacts = field(default_factory=ServerFacts)

    def add(self, other: Totals) -> None:
        self.billing.add(other.billing)
        self.server.add(other.server)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Totals:
        """Totals from ``dataclasses.asdict``'s JSON (what an xdist worker sends)."""
        return cls(Usage(**data["billing"]), ServerFacts(**data["server"]))

    def billed(self) -> Usage:
        """The billing with the batches' requests as collected (each batch once, whichever
        process read it) in place of those its items took: a request whose item never ran
        (-x, Ctrl-C) was made and billed all the same."""
        usage, collected = self.billing, self.server.collected
        if not collected:
            return usage
        made = [sum(batch[i] for batch in collected.values()) for i in range(4)]
        now = (usage.calls, usage.prompt_tokens, usage.completion_tokens, usage.tokens_unknown)
        taken = (usage.batch_calls, usage.batch_prompt_tokens, usage.batch_completion_tokens,
                 usage.batch_tokens_unknown)  # fmt: skip
        calls, prompt, completion, unknown = (
            n + m - t for n, m, t in zip(now, made, taken, strict=True)
        )
        return replace(
            usage, calls=calls, prompt_tokens=prompt, completion_tokens=completion,
            tokens_unknown=unknown, batch_calls=made[0], batch_prompt_tokens=made[1],
            batch_completion_tokens=made[2], batch_tokens_unknown=made[3],
        )  # fmt: skip


def said_tokens(billed: object) -> tuple[int, int] | None:
    """The prompt and completion tokens a reply's ``usage`` says, or None when it does not
    say both (never guessed as 0)."""
    if isinstance(billed, dict):  # a batch's output line, read as JSON
        prompt, completion = billed.get("prompt_tokens"), billed.get("completion_tokens")
    else:
        prompt = getattr(billed, "prompt_tokens", None)
        completion = getattr(billed, "completion_tokens", None)
    if _count(prompt) and _count(completion):
        return prompt, completion
    return None


def _count(said: object) -> TypeGuard[int]:
    """A token count as a reply says it: a whole number, not negative and below 2**53 (JSON's
    true is no count, and nothing billed comes near the largest)."""
    return type(said) is int and 0 <= said < 2**53


class JudgeCallError(Exception):
    """A judge call failed. ``retryable`` says whether another attempt may succeed."""

    retryable: bool = False

    def __init__(
        self,
        message: str,
        retry_after: float | None = None,
        throttled: bool = False,
        *,
        timed_out: bool = False,
        cut_off: bool = False,
    ) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.throttled = throttled  # a rate limit (429): send fewer requests at once
        self.timed_out = timed_out  # no reply in time: the server may be busy, not broken
        self.cut_off = cut_off  # the reply hit the completion-token limit


class RetryableJudgeError(JudgeCallError):
    retryable = True


class FatalJudgeError(JudgeCallError):
    """Nothing in this session can be judged (bad key, no permission, unknown model, no key).

    ``short`` names the cause in a few words (``404 not found``) for the items that are not
    judged because of it: the whole message is said once."""

    def __init__(self, message: str, *, short: str = "") -> None:
        super().__init__(message)
        self.short = short or message


class RejectedRequestError(JudgeCallError):
    """The judge refused this request (a 400: too long, invalid): this item only, not retried."""


class TooManyChoices(JudgeCallError):
    """The server takes at most ``cap`` choices per request (a 400 said so): ask again in
    requests of that size. Not retried as it is."""

    def __init__(self, cap: int, message: str) -> None:
        super().__init__(message)
        self.cap = cap


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
        firm: bool = False,
    ) -> list[RunResult | RetryableJudgeError]:
        """One entry per choice the server returned (fewer than ``n`` when it ignores n):
        a validated score, or why that choice was rejected. Raises when none is usable.
        ``firm``: an earlier reply was cut off at the token limit; ask for a shorter one."""
        ...

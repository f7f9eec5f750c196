"""Pairwise judging of targets' responses: for every entry, pair of targets and dimension, one
request with each response shown first, ``--judge-runs`` runs each (the choices of one request).

Run on the controller once every item has reported (the responses of an entry can come from
different xdist workers): each request goes through the session's judge, cache, retry
policy, budget and in-flight limit, and is counted like any judge request.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..basics.redaction import redact
from ..basics.rubrics import Context, Dimension, Turn
from ..config.settings import Settings
from ..evalfiles.entry_rules import oversize_reason
from ..judges.base import (
    FatalJudgeError,
    JudgeCallError,
    PairVote,
    RetryableJudgeError,
    TooManyChoices,
    Usage,
    Winner,
)
from ..schema.items import ItemResult
from .retry import RetryAfterTooLong, retrying
from .runs import RunExecutor


@dataclass(frozen=True)
class PairRequest:
    """Two targets' responses to one entry, to be compared on one dimension (``a`` is the
    target configured first)."""

    key: str  # the entry compared (its compare key)
    entry_id: str
    a: str
    b: str
    dimension: Dimension
    ticket: str
    response_a: str
    response_b: str
    context: Context


@dataclass
class PairOutcome:
    """The votes of both orders, as the judge wrote them ("A" is the response shown first)."""

    request: PairRequest
    a_first: list[Winner] = field(default_factory=list)
    b_first: list[Winner] = field(default_factory=list)
    error: str | None = None


def pair_requests(rows: Sequence[ItemResult], settings: Settings) -> list[PairRequest]:
    """Every entry answered by two or more targets, every pair (in configured order), every
    dimension that applies to the entry. A response no judge was asked about (``"judge":
    false``, a failed check) is not judged side by side either."""
    grouped: dict[str, dict[str, ItemResult]] = {}
    for row in rows:
        if row.target and row.compare_key and row.answer and row.ticket and row.judged:
            grouped.setdefault(row.compare_key, {})[row.target] = row
    requests = []
    for key, by_target in grouped.items():
        ordered = sorted(by_target, key=lambda t: (by_target[t].target_order or 0, t))
        any_row = by_target[ordered[0]]
        turns = tuple(Turn(t["role"], t["content"]) for t in any_row.conversation)
        context = Context(turns, any_row.reference)
        for a, b in itertools.combinations(ordered, 2):
            for dimension in settings.dimensions.values():
                if dimension.applies(context):
                    responses = (str(by_target[a].answer), str(by_target[b].answer))
                    seen = context.for_dimension(dimension)
                    ticket = str(any_row.ticket)
                    requests.append(
                        PairRequest(key, any_row.id, a, b, dimension, ticket, *responses, seen)
                    )
    return requests


async def judge_pairs(
    executor: RunExecutor, requests: Sequence[PairRequest], runs: int, usage: Usage
) -> list[PairOutcome]:
    """Both orders of every request, concurrently within the session's in-flight limit."""

    async def outcome(request: PairRequest) -> PairOutcome:
        found = PairOutcome(request)
        # each response may be within llmjudge_max_input_chars and the two together not
        both, limit = request.response_a + request.response_b, executor.settings.max_input_chars
        if too_large := oversize_reason(request.ticket, both, limit, request.context):
            found.error = f"both answers side by side: {too_large}"
            return found
        # an order judged is kept beside the other's error (a budget spent between them)
        orders = await asyncio.gather(
            _order(executor, request, request.response_a, request.response_b, runs, usage),
            _order(executor, request, request.response_b, request.response_a, runs, usage),
            return_exceptions=True,
        )
        found.a_first, found.b_first = ([] if isinstance(o, BaseException) else o for o in orders)
        failed = [o for o in orders if isinstance(o, BaseException)]
        if failed and not isinstance(failed[0], (JudgeCallError, RetryAfterTooLong)):
            raise failed[0]
        if failed:
            found.error = redact(f"pairwise judge call failed: {failed[0]}")
        return found

    return list(await asyncio.gather(*(outcome(r) for r in requests)))


async def _order(
    executor: RunExecutor,
    request: PairRequest,
    first: str,
    second: str,
    runs: int,
    usage: Usage,
) -> list[Winner]:
    """The ``runs`` votes with ``first`` shown as A: from the cache, else asked (as the
    choices of one request, or one request per run with ``llmjudge_sampling=calls``)."""
    settings, cache = executor.settings, executor.cache
    dimension, ticket, context = request.dimension, request.ticket, request.context
    keys = [
        cache.pair_key(dimension, ticket, first, second, i, context) if cache else None
        for i in range(runs)
    ]
    votes: list[PairVote | None] = [cache.get_vote(key) if cache and key else None for key in keys]
    usage.cached_outside_rows += sum(1 for vote in votes if vote is not None)
    ask = getattr(executor.judge, "judge_pair", None)
    if ask is None:
        raise FatalJudgeError("this judge cannot compare answers pairwise")
    pair = functools.partial(ask, dimension, ticket, first, second, context=context)
    if any(vote is None for vote in votes):
        await executor.server.learned()  # the slots a server announces cap the choices
    async for attempt in retrying(
        RetryableJudgeError,
        tries=settings.max_retries + 1,
        first_wait=settings.retry_wait,
        what="pairwise call",
    ):
        with attempt:
            while missing := [i for i, vote in enumerate(votes) if vote is None]:
                asked = await _pair_request(executor, pair, len(missing), usage)
                usable = [vote for vote in asked if isinstance(vote, PairVote)]
                for index, vote in zip(missing, usable, strict=False):
                    votes[index] = vote
                    usage.runs += 1
                    if cache and keys[index]:
                        cache.put_vote(str(keys[index]), vote)
                if len(usable) < len(asked):  # a choice that could not be read: ask again
                    raise next(v for v in asked if isinstance(v, RetryableJudgeError))
    return [vote.winner for vote in votes if vote is not None]


async def _pair_request(
    executor: RunExecutor, pair: Callable[..., Any], missing: int, usage: Usage
) -> list[Any]:
    """One request for up to ``missing`` votes (in a slot of the in-flight limit); none when
    the server refused that many choices: the cap is learned now, and the votes are asked
    again in requests it takes."""
    settings, profile = executor.settings, executor.profile
    n = 1 if settings.sampling == "calls" else profile.choices_for(missing)
    async with executor.limit:
        executor.budget.take_request()
        billed = Usage()  # this request's own: ``usage`` is shared by every pair in flight
        try:
            asked: list[Any] = await asyncio.wait_for(pair(n, usage=billed), settings.timeout)
        except TooManyChoices:
            return []
        except asyncio.TimeoutError:
            billed.timeouts += 1
            raise RetryableJudgeError(f"timed out after {settings.timeout:g}s") from None
        finally:
            usage.add(billed)
            executor.budget.spend(billed)  # llmjudge_budget usd= counts pairs as items
    if n > 1 and len(asked) < n:
        profile.ignores_n = True  # from now on one request per run, on every path
    return asked

"""``--judge-dry-run``: what a session would send, estimated before anything is sent.

Requests and judgments are counted exactly as the engine would make them (the judge cache
is read, identical runs of several items count once, ``llmjudge_sampling`` decides how many
runs share a request). Tokens are an estimate from the prompt text: about four characters
per token plus a few per message (OpenAI's rule of thumb for English), and a fixed size
for each reply. The cost applies the price table to those estimates.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..basics.rubrics import NO_CONTEXT, Context, Dimension, build_messages
from ..config.pricing import provider_host
from ..config.settings import Settings
from .cache import JudgeCache

CHARS_PER_TOKEN = 4
TOKENS_PER_MESSAGE = 4  # role and separators, as chat formats add them
REPLY_TOKENS = 60  # {"score": 4, "reasoning": "<one or two sentences>"}
ASSUMED_RESPONSE_CHARS = 800  # a live target's response, unknown until it is asked


@dataclass(frozen=True)
class PlannedJudgment:
    """The runs one item asks of one dimension. ``response`` None: a target's response."""

    dimension: Dimension
    ticket: str
    response: str | None
    runs: int
    target: str | None = None
    context: Context = NO_CONTEXT
    owner: str = ""  # the item's node id


@dataclass(frozen=True)
class Estimate:
    items: int
    judgments: int  # runs the session needs
    cached: int  # of those, already in the judge cache
    calls: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None
    target_questions: int  # questions to live targets (their responses are judged)


def estimate_tokens(messages: Sequence[dict[str, str]]) -> int:
    """Prompt tokens of chat messages, estimated from their text."""
    return sum(
        math.ceil(len(m["content"]) / CHARS_PER_TOKEN) + TOKENS_PER_MESSAGE for m in messages
    )


def estimate(
    planned: Sequence[PlannedJudgment], items: int, settings: Settings, cache: JudgeCache | None
) -> Estimate:
    """What judging ``planned`` would take: each distinct run once, cached runs free."""
    runs_of: dict[tuple[str, str, str, str | None, str | None, Context], PlannedJudgment] = {}
    for p in planned:
        key = (p.dimension.name, p.dimension.version, p.ticket, p.response, p.target, p.context)
        if key not in runs_of or runs_of[key].runs < p.runs:
            runs_of[key] = p
    judgments = cached = calls = prompt_tokens = 0
    for p in runs_of.values():
        in_cache, missing = _cached_runs(p, cache)
        judgments += p.runs * len(p.dimension.parts or [p.dimension])
        cached += in_cache
        if not settings.uses_llm or missing == 0:
            continue
        asked = missing if settings.sampling == "calls" else 1
        calls += asked
        response = p.response if p.response is not None else "x" * ASSUMED_RESPONSE_CHARS
        messages = build_messages(p.dimension, p.ticket, response, p.context)
        prompt_tokens += asked * estimate_tokens(messages)
    completion_tokens = (judgments - cached) * REPLY_TOKENS if settings.uses_llm else 0
    price = settings.price
    return Estimate(
        items=items,
        judgments=judgments,
        cached=cached,
        calls=calls,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        cost_usd=None if price is None else price.cost(prompt_tokens, completion_tokens),
        target_questions=len({(p.target, p.ticket) for p in planned if p.target is not None}),
    )


def _cached_runs(p: PlannedJudgment, cache: JudgeCache | None) -> tuple[int, int]:
    """Runs in the cache, and run indexes still to ask (a group's index is asked whole,
    unless every dimension's run of it is cached)."""
    if cache is None or p.response is None:
        return 0, p.runs
    parts, group = (p.dimension.parts, p.dimension) if p.dimension.parts else ((p.dimension,), None)
    cached = [
        sum(
            cache.get(cache.key(d, p.ticket, p.response, i, p.context, group)) is not None
            for d in parts
        )
        for i in range(p.runs)
    ]
    return sum(cached), sum(found < len(parts) for found in cached)


def estimate_lines(
    e: Estimate, settings: Settings, other_tests: int, pairwise: int = 0
) -> list[str]:
    """The dry run's report for the terminal (``pairwise``: the side-by-side requests)."""
    fresh = e.judgments - e.cached
    lines = [
        "dry run: nothing was sent",
        f"{e.items:,} eval items: {e.judgments:,} runs to judge, {e.cached:,} in the judge "
        f"cache, {fresh:,} to ask",
    ]
    if not settings.uses_llm:
        lines.append("judge: heuristic (no LLM): no requests, no tokens, no cost")
    else:
        how = (
            "one per run (llmjudge_sampling=calls)"
            if settings.sampling == "calls"
            else "the runs of a judgment as the choices of one request (a server that "
            "ignores n takes one request per run)"
        )
        if settings.grouping == "item":
            how += "; an item's dimensions in one request (llmjudge_grouping=item)"
        if settings.batch:
            how += "; in one batch (llmjudge_batch), outside the per-minute limits"
        priced = "batch price" if settings.batch else "price"
        lines += [
            f"judge calls: {e.calls:,}, {how}",
            f"estimated tokens: {e.prompt_tokens:,} prompt + {e.completion_tokens:,} completion "
            f"(about {CHARS_PER_TOKEN} characters per token; {REPLY_TOKENS} per reply)",
        ]
        if e.cost_usd is not None and settings.price is not None:
            source = f"{settings.price.source} {priced} of {settings.model}"
            lines.append(f"estimated cost: ${e.cost_usd:.4f} ({source})")
        elif provider_host(settings.base_url):  # another server: tokens only
            lines.append(f"estimated cost: unknown (no price for model {settings.model!r}: "
                         "llmjudge_prices)")  # fmt: skip
    if e.target_questions:
        lines.append(
            f"questions to targets: {e.target_questions:,}; their answers are unknown until asked "
            f"(estimated as {ASSUMED_RESPONSE_CHARS} characters, never in the cache)"
        )
    if pairwise:
        lines.append(
            f"pairwise judge calls (pairwise=true): {pairwise:,}, both orders of every pair "
            "of targets per entry and dimension (their tokens depend on the answers)"
        )
    if settings.adaptive:
        lines.append(f"--judge-runs N..M: uncertain items take up to {settings.max_runs} runs")
    if other_tests:
        lines.append(f"{other_tests} other tests not run (their judge calls are not estimated)")
    return lines

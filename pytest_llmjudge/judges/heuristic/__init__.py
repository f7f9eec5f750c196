"""An offline, deterministic judge: measured text signals and a small fitted model.

Relevance and tone each come from a linear model over signals (``relevance``, ``tone``)
whose weights were fitted on human ratings (``benchmarks/fit_heuristic.py``; the weights
ship in ``data/weights.json``). The reasoning names the signals that moved the score most
and says that no LLM was involved, so nobody mistakes these scores for a model's.
"""

from __future__ import annotations

from ...basics.rubrics import NO_CONTEXT, Context, Dimension
from ..base import JudgeCallError, PairVote, RetryableJudgeError, RunResult, Usage, Winner
from .correctness import score_correctness
from .model import DimensionModel, fitted
from .relevance import ceiling as relevance_ceiling
from .relevance import floor as relevance_floor
from .relevance import relevance_signals
from .signals import Signals
from .tone import ceiling as tone_ceiling
from .tone import floor as tone_floor
from .tone import tone_signals

PREFIX = "[heuristic judge, no LLM]"
_NAMED = 4  # signals the reasoning names at most
_NOTICEABLE = 0.15  # points on the 1-5 scale a signal must move to be named


def explain(model: DimensionModel, signals: Signals) -> tuple[int, str]:
    """The 1-5 score for the signals and a reason naming its largest contributions."""
    values = signals.values()
    score = model.score(values)
    combined: dict[str, float] = {}
    for name, push in model.contributions(values).items():
        owner = signals.by_name[name].part_of or name
        combined[owner] = combined.get(owner, 0.0) + push
    pushes = sorted(combined.items(), key=lambda kv: -abs(kv[1]))
    named = [(name, push) for name, push in pushes[:_NAMED] if abs(push) >= _NOTICEABLE]
    up = [signals.by_name[n].describe(n) for n, push in named if push > 0]
    down = [signals.by_name[n].describe(n) for n, push in named if push < 0]
    parts = ([f"up: {'; '.join(up)}"] if up else []) + (
        [f"down: {'; '.join(down)}"] if down else []
    )
    return score, " | ".join(parts) or "no signal moves it far from the reference text"


def score_relevance(
    ticket: str, response: str, model: DimensionModel | None = None
) -> tuple[int, str]:
    signals = relevance_signals(ticket, response)
    score, reason = explain(model or fitted("relevance"), signals)
    score, reason = capped(score, reason, relevance_ceiling(ticket, response, signals))
    return raised(score, reason, relevance_floor(ticket, response, signals))


def score_tone(response: str, model: DimensionModel | None = None) -> tuple[int, str]:
    signals = tone_signals(response)
    score, reason = explain(model or fitted("tone"), signals)
    score, reason = capped(score, reason, tone_ceiling(response, signals))
    return raised(score, reason, tone_floor(response, signals))


def capped(score: int, reason: str, ceiling: tuple[int, str] | None) -> tuple[int, str]:
    """The score held under a ceiling the signals set, with the ceiling's reason added."""
    if ceiling is not None and score > ceiling[0]:
        return ceiling[0], f"{reason} | {ceiling[1]}"
    return score, reason


def raised(score: int, reason: str, floor: tuple[int, str] | None) -> tuple[int, str]:
    """The score lifted to a floor the signals set, with the floor's reason added."""
    if floor is not None and score < floor[0]:
        return floor[0], f"{reason} | {floor[1]}"
    return score, reason


class HeuristicJudge:
    """Deterministic scores from text signals; every run gives the same answer."""

    uses_llm = False

    async def judge_once(
        self,
        dimension: Dimension,
        ticket: str,
        response: str,
        *,
        usage: Usage | None = None,
        context: Context = NO_CONTEXT,
    ) -> RunResult:
        if usage is not None:
            usage.calls += 1  # one judgment, made in-process
            if usage.exchanges is not None:
                usage.exchanges.append({"messages": None, "reply": None})
        if dimension.name == "relevance":
            # what the user asked in earlier turns counts as asked
            asked = [t.content for t in context.conversation if t.role == "user"]
            score, reason = score_relevance("\n".join([*asked, ticket]), response)
        elif dimension.uses_reference and context.reference is not None:
            score, reason = score_correctness(response, context.reference)
        elif dimension.name == "tone":
            score, reason = score_tone(response)
        else:
            # Not fatal: relevance and tone of the same session can still be scored.
            raise JudgeCallError(
                f"the heuristic judge cannot score configured dimension '{dimension.name}'; "
                "use an LLM provider"
            )
        return RunResult(score=score, reasoning=f"{PREFIX} {dimension.name} {score}/5: {reason}")

    async def judge_pair(
        self,
        dimension: Dimension,
        ticket: str,
        first: str,
        second: str,
        n: int,
        *,
        usage: Usage,
        context: Context = NO_CONTEXT,
    ) -> list[PairVote | RetryableJudgeError]:
        """The answer with the higher heuristic score wins; equal scores are a tie. The same
        vote ``n`` times: the heuristic has no position to prefer."""
        usage.calls += 1
        a = await self.judge_once(dimension, ticket, first, context=context)
        b = await self.judge_once(dimension, ticket, second, context=context)
        winner: Winner = "A" if a.score > b.score else "B" if b.score > a.score else "tie"
        reasoning = f"{PREFIX} {dimension.name}: A scores {a.score}/5, B {b.score}/5"
        return [PairVote(winner, reasoning) for _ in range(n)]

    async def aclose(self) -> None:
        return None

"""The offline heuristic judge: deterministic, no model, narrow on purpose. It fails a response
only on evidence that needs no understanding of meaning (the signals of ``relevance`` and
``tone``), naming the signal; every other response passes (``docs/judges.md``). It judges
relevance and tone only: a session leaves its other dimensions unjudged and says so once."""

from __future__ import annotations

from ...basics.rubrics import NO_CONTEXT, Context, Dimension
from ..base import JudgeCallError, PairVote, RetryableJudgeError, RunResult, Usage, Winner
from .relevance import relevance_signal
from .tone import tone_signals

__all__ = ["ABOUT", "JUDGED", "LABEL", "PREFIX", "HeuristicJudge", "score_relevance"]
__all__ += ["score_tone"]

LABEL = "offline heuristic judge"
PREFIX = f"[{LABEL}, no LLM]"
JUDGED = ("relevance", "tone")  # the dimensions it scores; others are left unjudged
# What it fails, what it cannot see, and how to switch: shown wherever its scores are.
ABOUT = (
    "offline heuristic judge (no LLM): it fails only empty or placeholder text, profanity, "
    "insults aimed at the reader, shouting, and a reply that is only a refusal, a pointer to "
    "support or pleasantries; everything else passes: it cannot see whether an answer is "
    "right, on topic or helpful, and leaves correctness and custom dimensions unjudged; for a "
    "model, set OPENAI_API_KEY, or OPENAI_BASE_URL for a local server (Ollama, llama.cpp)"
)
BENEFIT_OF_THE_DOUBT = 4  # the score of a response with no clear evidence against it
_NO_EVIDENCE = "no clear sign of a problem (this judge passes what it cannot fault)"


def score_relevance(ticket: str, response: str) -> tuple[int, str]:
    """1-5 and why: a rule's failing score, else the benefit of the doubt."""
    found = relevance_signal(ticket, response)
    return (BENEFIT_OF_THE_DOUBT, _NO_EVIDENCE) if found is None else found


def score_tone(response: str) -> tuple[int, str]:
    """1-5 and why: the lowest failing signal's score, naming every signal found."""
    if not response.strip():
        return 1, "empty text"
    found = tone_signals(response)
    if not found:
        return BENEFIT_OF_THE_DOUBT, _NO_EVIDENCE
    return min(score for score, _ in found), "; ".join(reason for _, reason in found)


class HeuristicJudge:
    """Deterministic scores from clear text evidence; every run gives the same score."""

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
        if usage is not None and usage.exchanges is not None:  # judged here: no request
            usage.exchanges.append({"messages": None, "reply": None})
        if dimension.name == "relevance":
            # what the user asked in earlier turns counts as asked
            asked = [t.content for t in context.conversation if t.role == "user"]
            score, reason = score_relevance("\n".join([*asked, ticket]), response)
        elif dimension.name == "tone":
            score, reason = score_tone(response)
        else:
            # an eval item never asks (its session leaves the dimension unjudged); a test's
            # own llmjudge.judge(...) call does
            raise JudgeCallError(
                f"the {LABEL} does not judge '{dimension.name}' (only {' and '.join(JUDGED)}); "
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
        """The higher score wins, equal ones tie; ``n`` times the same vote (no position bias)."""
        a = await self.judge_once(dimension, ticket, first, context=context)
        b = await self.judge_once(dimension, ticket, second, context=context)
        winner: Winner = "A" if a.score > b.score else "B" if b.score > a.score else "tie"
        reasoning = f"{PREFIX} {dimension.name}: A scores {a.score}/5, B {b.score}/5"
        return [PairVote(winner, reasoning) for _ in range(n)]

    async def aclose(self) -> None:
        return None

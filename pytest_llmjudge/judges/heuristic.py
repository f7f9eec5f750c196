"""An offline, deterministic judge: measurable signals instead of a model.

Relevance is the share of the ticket's technical terms that the response takes up;
tone starts at 5 and loses points for rude or casual wording, filler, hedging,
exclamations, shouting and length. Every reasoning names the signals it used and says
that no LLM was involved, so nobody mistakes these scores for a model's.
"""

from __future__ import annotations

import re

from ..rubrics import Dimension
from .base import JudgeCallError, RunResult, Usage

PREFIX = "[heuristic judge, no LLM]"

_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-/]*[A-Za-z0-9]|[A-Za-z0-9]")
_STOPWORDS = frozenset(
    """
    a about above after again all also am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers him his how i if in into is it its itself
    just me more most my no nor not now of off on once only or other our out over own same
    she should so some such than that the their them then there these they this those
    through to too under until up very was we were what when where which while who whom why
    will with would you your yours get got getting keep keeps still every since one two
    issue problem help please thanks thank hi hello team anyone someone something anything
    using use used trying try tried seems seem like know need needs want see way happen
    happens happening started start today yesterday now again work working works
    """.split()  # noqa: SIM905 - a word list reads better as text
)
_RUDE = (
    "stupid",
    "dumb",
    "idiot",
    "rtfm",
    "google it",
    "not my problem",
    "whatever",
    "obviously you",
    "figure it out",
    "your fault",
    "useless",
    "shut up",
    "duh",
)
_CASUAL = (
    "lol",
    "dude",
    "gonna",
    "wanna",
    "btw",
    "haha",
    "bro",
    "yo ",
    "lmao",
    "omg",
    "no worries",
    "super easy",
    "kinda",
    "ya ",
    "nope",
    "yep",
    "cool cool",
    ":)",
    "tbh",
)
_FILLER = (
    "basically",
    "actually",
    "literally",
    "honestly",
    "really",
    "kind of",
    "sort of",
    "you know",
    "as a matter of fact",
    "at the end of the day",
    "needless to say",
    "it is important to note",
    "it's worth noting",
    "in today's world",
    "of course",
)
_HEDGES = (
    "maybe",
    "perhaps",
    "i think",
    "i guess",
    "not sure",
    "possibly",
    "might be",
    "could be",
    "probably",
    "i believe",
    "hopefully",
)


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def technical_terms(text: str) -> set[str]:
    """Content words of a text, lowercased and crudely stemmed."""
    words = (w.lower().strip(".-/") for w in _WORD.findall(text))
    return {_stem(w) for w in words if len(w) >= 3 and w not in _STOPWORDS}


def _found(text: str, phrases: tuple[str, ...]) -> list[str]:
    lowered = f" {text.lower()} "
    hits: list[str] = []
    for phrase in phrases:
        pattern = r"(?<![a-z])" + re.escape(phrase.strip()) + r"(?![a-z])"
        hits.extend(phrase.strip() for _ in re.finditer(pattern, lowered))
    return hits


def _matches(term: str, others: set[str]) -> bool:
    """Same stem, or a shared prefix of 5+ letters (deploy ~ deployment, expired ~ expiry)."""
    if term in others:
        return True
    return len(term) >= 5 and any(len(o) >= 5 and o[:5] == term[:5] for o in others)


_TECHNICAL_TOKEN = re.compile(
    r"`[^`]+`|\S*[=_/]\S*|\S+-\S+|\b[a-z]+[A-Z]\w+|\b[A-Z]{3,}\b|\S*\d\S*"
)


def score_relevance(ticket: str, response: str) -> tuple[int, str]:
    ticket_terms = technical_terms(ticket)
    response_terms = technical_terms(response)
    if not ticket_terms:
        return 3, "ticket has no technical terms to match; neutral score"
    shared = sorted(t for t in ticket_terms if _matches(t, response_terms))
    overlap = len(shared) / len(ticket_terms)
    # Concrete commands, settings and identifiers are what a fix is made of.
    concrete = len(_TECHNICAL_TOKEN.findall(response))
    bonus = 0.1 if concrete >= 3 and shared else 0.0
    steps = ((0.35, 5), (0.2, 4), (0.15, 3), (0.05, 2))
    score = next((s for bound, s in steps if overlap + bonus >= bound), 1)
    shown = ", ".join(shared[:6]) + (", ..." if len(shared) > 6 else "")
    reason = (
        f"response shares {len(shared)} of the ticket's {len(ticket_terms)} technical terms "
        f"({overlap:.0%})"
        + (f": {shown}" if shared else "; none of them appear")
        + f"; {concrete} concrete commands/settings/identifiers"
    )
    return score, reason


def score_tone(response: str) -> tuple[int, str]:
    words = _WORD.findall(response)
    signals: list[str] = []
    penalty = 0
    rude = _found(response, _RUDE)
    if rude:
        penalty += min(3, 2 * len(rude))
        signals.append(f"rude or dismissive wording ({', '.join(sorted(set(rude)))})")
    casual = _found(response, _CASUAL)
    if casual:
        penalty += 1 if len(casual) < 3 else 2
        signals.append(f"casual wording ({', '.join(sorted(set(casual)))})")
    filler = _found(response, _FILLER)
    if len(filler) >= 2:
        penalty += 1
        signals.append(f"filler ({', '.join(sorted(set(filler)))})")
    hedges = _found(response, _HEDGES)
    if len(hedges) >= 2:
        penalty += 1
        signals.append(f"hedging ({', '.join(sorted(set(hedges)))})")
    exclamations = response.count("!")
    if exclamations >= 2:
        penalty += 1
        signals.append(f"{exclamations} exclamation marks")
    shouting = [w for w in words if len(w) >= 4 and w.isupper() and w.isalpha()]
    if len(shouting) >= 2:
        penalty += 1
        signals.append(f"shouting ({', '.join(shouting[:3])})")
    if len(words) > 260:
        penalty += 2
        signals.append(f"very long ({len(words)} words)")
    elif len(words) > 160:
        penalty += 1
        signals.append(f"long ({len(words)} words)")
    elif len(words) < 6:
        penalty += 1
        signals.append(f"terse ({len(words)} words)")
    score = max(1, 5 - penalty)
    if not signals:
        return score, f"{len(words)} words, no filler, casual, rude or hedging wording found"
    return score, "; ".join(signals)


class HeuristicJudge:
    """Deterministic scores from text signals; every run gives the same answer."""

    uses_llm = False

    async def judge_once(
        self, dimension: Dimension, ticket: str, response: str, *, usage: Usage | None = None
    ) -> RunResult:
        if usage is not None:
            usage.requests += 1  # one judgment, made in-process
            if usage.exchanges is not None:
                usage.exchanges.append({"messages": None, "reply": None})
        if dimension.name == "relevance":
            score, reason = score_relevance(ticket, response)
        elif dimension.name == "tone":
            score, reason = score_tone(response)
        else:
            # Not fatal: relevance and tone of the same session can still be scored.
            raise JudgeCallError(
                f"the heuristic judge cannot score configured dimension '{dimension.name}'; "
                "use an LLM provider"
            )
        return RunResult(score=score, reasoning=f"{PREFIX} {dimension.name} {score}/5: {reason}")

    async def aclose(self) -> None:
        return None

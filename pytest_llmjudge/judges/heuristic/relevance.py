"""Relevance signals: does the response take up what the ticket is about and asks?

Overlap is weighted by rarity (a shared "kubernetes" says more than a shared "time"):
how much of the ticket, and of its last message, the response takes up. Beside it: how
much specific content the response carries at all, evasive replies and stock phrases,
the share of function words, repetition, and concrete commands or settings.
"""

from __future__ import annotations

import itertools
import math
import re

from .signals import Signals, phrases
from .text import STOPWORDS, Rarity, content_terms, normalise, rarity, words

_TECHNICAL_TOKEN = re.compile(
    r"`[^`]+`|\S*[=_/]\S*|\S+-\S+|\b[a-z]+[A-Z]\w+|\b[A-Z]{3,}\b|\S*\d\S*"
)
_EVASIVE = (
    "i don't know", "i dont know", "i do not know", "no idea", "not sure", "i'm not sure",
    "i am not sure", "can't help", "cannot help", "contact support", "contact your administrator",
    "reach out to support", "open a ticket", "try again later", "it depends", "hard to say",
    "i have no clue", "who knows",
)  # fmt: skip
_STOCK = (
    "i think it's interesting", "that's interesting", "that's cool", "that is cool",
    "i think so", "me too", "i agree", "good question", "that's a good question",
    "sounds good", "i see", "interesting",
)  # fmt: skip


_PLAIN = re.compile(r"[\d,.']*s?|\W+")


def technical_tokens(text: str) -> list[str]:
    """Commands, settings, paths and identifiers: what a concrete fix is made of.

    Plain numbers ("1995", "10,000", "60's") and lone punctuation are not: chit-chat is
    full of them.
    """
    return [t for t in _TECHNICAL_TOKEN.findall(text) if not _PLAIN.fullmatch(t)]


def matches(term: str, others: set[str]) -> bool:
    """Same stem, or a shared prefix of 5+ letters (deploy ~ deployment, expired ~ expiry)."""
    if term in others:
        return True
    return len(term) >= 5 and any(len(o) >= 5 and o[:5] == term[:5] for o in others)


def _weighted_share(terms: list[str], others: set[str], table: Rarity) -> tuple[float, list[str]]:
    unique = list(dict.fromkeys(terms))
    total = sum(table.idf(t) for t in unique)
    shared = [t for t in unique if matches(t, others)]
    if total == 0:
        return 0.0, shared
    return sum(table.idf(t) for t in shared) / total, shared


def _repeated_trigrams(tokens: list[str]) -> list[str]:
    trigrams = [" ".join(tokens[i : i + 3]) for i in range(len(tokens) - 2)]
    seen: set[str] = set()
    repeated = []
    for gram in trigrams:
        if gram in seen:
            repeated.append(gram)
        seen.add(gram)
    return repeated


def relevance_signals(ticket: str, response: str) -> Signals:
    """The measured relevance signals of a response to its ticket."""
    ticket, response = normalise(ticket), normalise(response)
    table = rarity()
    ticket_terms, response_terms = content_terms(ticket), content_terms(response)
    signals = Signals()
    recall, covered = _weighted_share(ticket_terms, set(response_terms), table)
    signals.add("ticket terms taken up", covered, value=recall, shown=_share(recall, covered))
    last_message = ticket.strip().split("\n")[-1]
    last_recall, last_covered = _weighted_share(
        content_terms(last_message), set(response_terms), table
    )
    signals.add(
        "last message taken up",
        last_covered,
        value=last_recall,
        shown=f"takes up {last_recall:.0%} of the ticket's last message by weight",
        part_of=None if "\n" in ticket.strip() else "ticket terms taken up",
    )
    substance = sum(table.idf(t) for t in set(response_terms))
    signals.add(
        "substance",
        [],
        value=math.log1p(substance),
        shown=f"{len(set(response_terms))} distinct content words",
    )
    evasive = phrases(response, _EVASIVE)
    tokens = [w.lower() for w in words(response)]
    signals.add("evasive", evasive if len(set(response_terms)) < 8 else [], cap=2)
    signals.add("stock phrases", phrases(response, _STOCK), cap=3)
    function_words = sum(1 for w in tokens if w in STOPWORDS) / max(1, len(tokens))
    signals.add(
        "function-word share",
        [],
        value=function_words,
        shown=(
            f"{'dense' if function_words < 0.5 else 'padded'} wording "
            f"({function_words:.0%} function words)"
        ),
    )
    doubled = [f"{a} {b}" for a, b in itertools.pairwise(tokens) if a == b]
    signals.add("repetition", _repeated_trigrams(tokens) + doubled, cap=4)
    concrete = technical_tokens(response)
    signals.add("concrete commands/settings", concrete, value=math.log1p(len(concrete)))
    return signals


def _share(recall: float, covered: list[str]) -> str:
    shown = ", ".join(covered[:5]) + (", ..." if len(covered) > 5 else "")
    return f"takes up {recall:.0%} of the ticket's terms by weight" + (
        f" ({shown})" if covered else ""
    )


def ceiling(ticket: str, signals: Signals) -> tuple[int, str] | None:
    """The most a response may score whatever else it does, and why.

    A reply that takes up none of a ticket's content words can be partially relevant at
    best (rubric 3): in chit-chat that costs little (replies there often bring new topics),
    in a support answer it is the off-topic reply.
    """
    if signals["ticket terms taken up"] == 0 and content_terms(normalise(ticket)):
        return 3, "at most 3: it takes up none of the ticket's terms"
    return None

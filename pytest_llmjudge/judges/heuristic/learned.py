"""A learned signal: a logistic regression over general features of an answer (words most
writers use, and its form), with generated weights (``benchmarks/train_learned_signal.py``).
It lowers a score only beyond the script's threshold and names the features that moved it."""

from __future__ import annotations

import itertools
import json
import math
from functools import cache

from .refusal import ACTION, COURTESY, KINDS, empty_sentence
from .relevance import answers_closed, asks_closed, spared
from .text import (
    SPECIFIC,
    content_terms,
    data,
    normalise,
    sentences,
    sentiment,
    shared_terms,
    stem,
    words,
)

_KINDS = {**KINDS, "courtesy": COURTESY}
_LENGTHS = (3, 7, 15, 30)  # word counts that bound the length bins


def features(ticket: str, response: str) -> dict[str, float]:
    """The answer's features: ``w:`` a stem, ``b:`` a pair, ``s:`` a first word, ``f:`` form."""
    ticket, response = normalise(ticket), normalise(response)
    tokens, parts = [w.lower() for w in words(response)], sentences(response)
    found: dict[str, float] = {f"w:{stem(w)}": 1.0 for w in tokens}
    found |= {f"b:{a} {b}": 1.0 for a, b in itertools.pairwise(tokens)}
    found |= {f"s:{words(s)[0].lower()}": 1.0 for s in parts if words(s)}
    asked, said = content_terms(ticket), content_terms(response)
    shared = len(shared_terms(ticket, response))
    valence = [sentiment().get(w, 0.0) for w in tokens]
    form = {  # named as the reasoning shows them
        "bias": 1.0,
        "the ticket's words taken up": shared / len(asked) if asked else 0.0,
        "none of the ticket's words": float(shared == 0 and bool(asked)),
        "words of its own": min(len(said), 20) / 20,
        "a figure, address, label or path": float(bool(SPECIFIC.search(response))),
        "a figure": float(any(c.isdigit() for c in response)),
        next((f"at most {n} words" for n in _LENGTHS if len(tokens) <= n), "over 30 words"): 1.0,
        "sentences": min(len(parts), 6) / 6,
        "'you'": sum(w in ("you", "your", "yourself") for w in tokens) / (len(tokens) or 1),
        "'?'": float("?" in response),
        "'!'": float("!" in response),
        "':'": float(":" in response),
        "harsh words": -min([*valence, 0.0]) / 4,
        "kind words": max([*valence, 0.0]) / 4,
    }
    # the rules' own signals, short of failing: a sentence that says nothing, a shrug, a promise
    empty = [empty_sentence(s, asked, _KINDS.values(), 2) for s in parts]
    form["sentences that say nothing"] = sum(empty) / (len(empty) or 1)
    form |= {k: sum(map(bool, map(p.search, parts))) / (len(parts) or 1) for k, p in _KINDS.items()}
    form["an action of ours"] = float(bool(ACTION.search(response)))
    form["a closed question"] = float(asks_closed(ticket))  # answered directly or not: below
    form["a direct answer to a closed question"] = float(answers_closed(ticket, response))
    # a long answer with nothing concrete (figure, label, name) evades
    names = [w for s in parts for w in words(s)[1:] if w[0].isupper() and w != "I"]
    concrete = SPECIFIC.search(response) or names
    form["over 25 words, nothing concrete"] = float(len(tokens) > 25 and not concrete)
    return found | {f"f:{name}": value for name, value in form.items()}


@cache
def model() -> tuple[dict[str, float], float]:
    """The shipped weights and the threshold on the probability of a poor answer."""
    shipped = json.loads(data("learned_weights.json"))
    return shipped["weights"], shipped["threshold"]


def probability(weights: dict[str, float], found: dict[str, float]) -> float:
    """The model's probability that the answer is a poor one."""
    total = sum(weights.get(name, 0.0) * value for name, value in found.items())
    return 1 / (1 + math.exp(-max(-30.0, min(30.0, total))))


def learned_signal(ticket: str, response: str) -> tuple[float, list[str]] | None:
    """(probability, the features that moved it most) beyond the threshold, else None."""
    weights, threshold = model()
    if spared(ticket, response):
        return None
    found = features(ticket, response)
    p = probability(weights, found)
    if p < threshold:
        return None
    moved = sorted(((weights.get(n, 0.0) * v, n) for n, v in found.items()), reverse=True)
    return p, [_shown(name) for push, name in moved if push > 0 and name != "f:bias"][:3]


def _shown(name: str) -> str:
    kind, _, what = name.partition(":")
    return {"w": "'{}'", "b": "'{}'", "s": "starts '{}'", "f": "{}"}[kind].format(what)

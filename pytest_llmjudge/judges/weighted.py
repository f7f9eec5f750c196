"""G-Eval's probability-weighted score, read from the logprobs of the score token.

The model writes ``{"score": 4, ...}``; with ``logprobs`` and ``top_logprobs`` the token that
carries the digit also lists its alternatives. The weighted score is sum(k * p(k)) / sum(p(k))
over the digits 1-5 among them: one request gives the model's whole belief, not one draw.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Protocol

#: alternatives asked per token: the five digits fit, when the model considers them at all
TOP_LOGPROBS = 5

_SCORE_DIGIT = re.compile(r'"score"\s*:\s*"?([1-5])\b')


class Alternative(Protocol):
    token: str
    logprob: float


class TokenLogprob(Alternative, Protocol):
    bytes: list[int] | None
    top_logprobs: Sequence[Alternative]


def score_distribution(content: str, tokens: Sequence[TokenLogprob]) -> dict[int, float] | None:
    """Probability of each score 1-5 at the token that carries the written score, normalised
    over the digits found there (other alternatives are ignored); None when that token cannot
    be found or is more than the digit."""
    found = _SCORE_DIGIT.search(content)
    if found is None:
        return None
    target = len(content[: found.start(1)].encode())  # token offsets are in UTF-8 bytes
    offset = 0
    for token in tokens:
        size = len(token.bytes) if token.bytes is not None else len(token.token.encode())
        if offset <= target < offset + size:
            if token.token.strip() != found.group(1):
                return None  # the digit shares its token ("4,"): no clean alternatives
            return _digits([token, *token.top_logprobs])
        offset += size
    return None


def _digits(alternatives: Sequence[Alternative]) -> dict[int, float] | None:
    probabilities: dict[int, float] = {}
    for alternative in alternatives:
        text = alternative.token.strip()
        if len(text) == 1 and text in "12345":
            # the chosen token is listed again among its alternatives: count it once
            probabilities[int(text)] = math.exp(alternative.logprob)
    total = sum(probabilities.values())
    if total <= 0:
        return None
    return {digit: p / total for digit, p in sorted(probabilities.items())}


def weighted_score(distribution: dict[int, float]) -> float:
    """The expected score under a (normalised) distribution over 1-5."""
    return sum(digit * p for digit, p in distribution.items())

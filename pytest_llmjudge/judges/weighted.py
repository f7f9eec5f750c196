"""G-Eval's probability-weighted score, read from the logprobs of the score token.

The model writes ``{"score": 4, ...}``; with ``logprobs`` and ``top_logprobs`` the token that
carries the digit also lists its alternatives. The weighted score is sum(k * p(k)) / sum(p(k))
over the digits 1-5 among them: one request gives the model's whole belief, not one draw.

The digit is found among the tokens the model generated (their joined bytes), not by its
offset in ``message.content``: servers such as llama.cpp strip a leading code fence or newline
from the content but keep those tokens in the logprobs.
"""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

#: alternatives asked per token: the five digits fit, when the model considers them at all
TOP_LOGPROBS = 5

# Why a run asked for logprobs is scored by the integer it wrote (counted apart in the notice).
NO_LOGPROBS = "the server returned no logprobs"
NOT_LOCATED = "the score token could not be located"
NO_OTHER_DIGIT = "the score digit's alternatives hold no other digit"

_SCORE_DIGIT = re.compile(rb'"score"\s*:\s*"?([1-5])(?![0-9.])')
_DIGITS = b"12345"


class Alternative(Protocol):
    # read-only: the SDK's models and a test's dataclasses both fit
    @property
    def token(self) -> str: ...
    @property
    def logprob(self) -> float: ...
    @property
    def bytes(self) -> list[int] | None: ...


class TokenLogprob(Alternative, Protocol):
    @property
    def top_logprobs(self) -> Sequence[Alternative]: ...


@dataclass(frozen=True)
class ScoreLogprobs:
    """The probability of each score 1-5 at the score token, or why there is none."""

    distribution: dict[int, float] | None
    missing: str | None = None  # one of NO_LOGPROBS, NOT_LOCATED, NO_OTHER_DIGIT


def _bytes(token: Alternative) -> bytes:
    # token offsets are in UTF-8 bytes: a multi-byte character may be split across tokens
    try:
        return bytes(token.bytes) if token.bytes is not None else token.token.encode()
    except (ValueError, TypeError):  # a server's bytes that are none (300, -1): its text
        return token.token.encode()


def score_distribution(
    tokens: Sequence[TokenLogprob] | None, written: int, after: bytes = b""
) -> ScoreLogprobs:
    """The distribution over 1-5 at the token that carries the written score, normalised over
    the digits found there (other alternatives are ignored).

    The reply's text is the tokens' joined bytes: whatever precedes the JSON (a fence, white
    space, prose) is walked over; the first ``"score": <written>`` in it is the score (in a
    grouped reply, the first after ``"<after>": {``, the dimension's own object). A token
    that joins the digit with other characters (`` 4``, ``4,``) counts an alternative as a
    digit when it differs from the token only in that digit (``3,`` beside ``4,``) or is a
    digit alone with white space."""
    if not tokens:
        return ScoreLogprobs(None, NO_LOGPROBS)
    starts: list[int] = []
    text = bytearray()
    for token in tokens:
        starts.append(len(text))
        text += _bytes(token)
    start = 0
    if after:
        owner = re.search(rb'"' + re.escape(after) + rb'"\s*:\s*\{', text)
        if owner is None:
            return ScoreLogprobs(None, NOT_LOCATED)
        start = owner.end()
    found = (m for m in _SCORE_DIGIT.finditer(text, start) if int(m.group(1)) == written)
    at = next((m.start(1) for m in found), None)
    if at is None:
        return ScoreLogprobs(None, NOT_LOCATED)
    index = bisect.bisect_right(starts, at) - 1
    token = tokens[index]
    chosen = _bytes(token)
    offset = at - starts[index]
    probabilities: dict[int, float] = {}
    seen: set[bytes] = set()
    for alternative in [token, *token.top_logprobs]:
        candidate = _bytes(alternative)
        digit = _digit(candidate, chosen, offset)
        if digit is None or candidate in seen:
            continue  # the chosen token is listed again among its alternatives: count it once
        seen.add(candidate)
        probability = math.exp(min(alternative.logprob, 0.0))  # a server's 0.1 is certainty
        probabilities[digit] = probabilities.get(digit, 0.0) + probability
    total = sum(probabilities.values())
    if len(probabilities) < 2 or not math.isfinite(total) or total <= 0:
        return ScoreLogprobs(None, NO_OTHER_DIGIT)  # (NaN or no weight: the written score)
    return ScoreLogprobs({d: p / total for d, p in sorted(probabilities.items())})


def _digit(candidate: bytes, chosen: bytes, offset: int) -> int | None:
    """The score an alternative token stands for: a lone digit (white space aside), or the
    chosen token with another digit in the same place."""
    alone = candidate.strip()
    if len(alone) == 1 and alone in _DIGITS:
        return int(alone)
    same_shape = len(candidate) == len(chosen) and candidate[:offset] == chosen[:offset]
    if same_shape and candidate[offset + 1 :] == chosen[offset + 1 :]:
        digit = candidate[offset : offset + 1]
        return int(digit) if digit and digit in _DIGITS else None
    return None


def weighted_score(distribution: dict[int, float]) -> float:
    """The expected score under a (normalised) distribution over 1-5."""
    return sum(digit * p for digit, p in distribution.items())

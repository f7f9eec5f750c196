"""Correctness without an LLM: how much of the reference answer's substance the response
carries (its rare terms, commands and settings, numbers), and what of its own it adds.

A measured overlap, not an understanding: the reasoning says what was shared and missing.
"""

from __future__ import annotations

import re

from .relevance import matches
from .steps import technical_tokens
from .text import content_terms, rarity

_NUMBER = re.compile(r"\b\d+(?:[.,]\d+)*\b")


def score_correctness(response: str, reference: str) -> tuple[int, str]:
    """1-5 from the rarity-weighted share of the reference's terms the response has, with
    its commands and numbers counted apart (a different setting is a different fix)."""
    table = rarity()
    wanted = list(dict.fromkeys(content_terms(reference)))
    have = set(content_terms(response))
    total = sum(table.idf(t) for t in wanted) or 1.0
    shared = [t for t in wanted if matches(t, have)]
    share = sum(table.idf(t) for t in shared) / total
    exact = set(technical_tokens(reference)) | set(_NUMBER.findall(reference))
    given = set(technical_tokens(response)) | set(_NUMBER.findall(response))
    missing_exact = sorted(exact - given)
    exact_share = 1.0 if not exact else len(exact & given) / len(exact)
    combined = 0.6 * share + 0.4 * exact_share
    score = 1 + round(4 * combined)
    missing = [t for t in wanted if t not in shared][:4]
    reason = (
        f"shares {len(shared)} of {len(wanted)} key terms of the reference"
        + (f" and {len(exact & given)} of {len(exact)} commands/settings/numbers" if exact else "")
        + (
            f"; missing: {', '.join(missing_exact[:3] or missing)}"
            if missing or missing_exact
            else ""
        )
    )
    return score, reason

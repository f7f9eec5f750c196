"""Correctness against a reference answer, without a model: the share of the reference's
subject words and exact tokens (figures, commands, settings) the response carries; a measured
overlap, not an understanding (the reasoning says what was shared and missing)."""

from __future__ import annotations

import re

from .text import content_terms, same_subject

# Figures and tokens that must be given exactly: 3Gi, MAVEN_OPTS=-Xmx2g, package-lock.json.
_EXACT = re.compile(r"\S*\d\S*|\S+[_=./:]\S+")


def score_correctness(response: str, reference: str) -> tuple[int, str]:
    """1-5 from the share of the reference's subject words and exact tokens the response has."""
    wanted, have = sorted(content_terms(reference)), content_terms(response)
    shared = [t for t in wanted if any(same_subject(t, h) for h in have)]
    exact = {t.strip(".,;:()") for t in _EXACT.findall(reference)}
    given = {t.strip(".,;:()") for t in _EXACT.findall(response)}
    exact_share = len(exact & given) / len(exact) if exact else 1.0
    share = len(shared) / len(wanted) if wanted else 1.0
    score = 1 + round(4 * (0.6 * share + 0.4 * exact_share))
    missing = sorted(exact - given)[:3] or [t for t in wanted if t not in shared][:3]
    return score, (
        f"shares {len(shared)} of {len(wanted)} subject words of the reference"
        + (f" and {len(exact & given)} of {len(exact)} exact figures or settings" if exact else "")
        + (f"; missing: {', '.join(missing)}" if missing else "")
    )

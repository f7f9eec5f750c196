"""Aggregation of repeated judge runs."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Aggregate:
    """Summary of the scores of one dimension over N runs."""

    mean: float
    std: float
    agreement: float
    straddles: bool  # some runs at/above the threshold and some below: a flaky signal
    nearest_run: int  # index of the run whose score is nearest the mean


def aggregate(scores: Sequence[float], threshold: float) -> Aggregate:
    """Mean, sample standard deviation, agreement with the modal score, straddling."""
    if not scores:
        raise ValueError("no scores to aggregate")
    n = len(scores)
    mean = math.fsum(scores) / n
    # statistics.stdev is exact but slow (Fractions); floats are plenty for 1-5 scores.
    std = math.sqrt(math.fsum((s - mean) ** 2 for s in scores) / (n - 1)) if n > 1 else 0.0
    modal_count = Counter(scores).most_common(1)[0][1]
    straddles = any(s >= threshold for s in scores) and any(s < threshold for s in scores)
    nearest = min(range(len(scores)), key=lambda i: (abs(scores[i] - mean), i))
    return Aggregate(
        mean=mean,
        std=std,
        agreement=modal_count / len(scores),
        straddles=straddles,
        nearest_run=nearest,
    )

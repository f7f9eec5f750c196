"""Aggregation of repeated judge runs."""

from __future__ import annotations

import functools
import math
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Aggregate:
    """Summary of the scores of one dimension over N runs."""

    mean: float
    std: float
    agreement: float
    straddles: bool  # some runs at/above the threshold and some below: unstable
    nearest_run: int  # index of the run whose score is nearest the mean


def mean_and_std(values: Sequence[float]) -> tuple[float, float]:
    """Mean and sample standard deviation (0 for a single value)."""
    if all(type(value) is int for value in values):  # written scores: few distinct runs
        return _whole_mean_and_std(tuple(values))
    return _mean_and_std(values)


def _mean_and_std(values: Sequence[float]) -> tuple[float, float]:
    mean = statistics.fmean(values)
    return mean, statistics.stdev(values, mean) if len(values) > 1 else 0.0


# The standard library's exact stdev costs 17 us; an item's runs of whole scores 1-5 take
# few values (35 sets of 3 runs), so each is computed once: the same floats, bit for bit.
_whole_mean_and_std = functools.lru_cache(maxsize=4096)(_mean_and_std)


def aggregate(scores: Sequence[float], threshold: float) -> Aggregate:
    """Mean, sample standard deviation, agreement with the modal score, straddling.

    Agreement counts runs on the nearest whole score, so that probability-weighted scores
    (3.9 and 4.1) agree as the written ones (4 and 4) would; whole scores are unchanged."""
    if not scores:
        raise ValueError("no scores to aggregate")
    if all(type(score) is int for score in scores):  # written scores: few distinct sets
        return _whole_aggregate(tuple(scores), threshold)
    return _aggregate(scores, threshold)


def _aggregate(scores: Sequence[float], threshold: float) -> Aggregate:
    mean, std = mean_and_std(scores)
    modal_count = Counter(math.floor(s + 0.5) for s in scores).most_common(1)[0][1]
    straddles = any(s >= threshold for s in scores) and any(s < threshold for s in scores)
    nearest = min(range(len(scores)), key=lambda i: (abs(scores[i] - mean), i))
    return Aggregate(
        mean=mean,
        std=std,
        agreement=modal_count / len(scores),
        straddles=straddles,
        nearest_run=nearest,
    )


# An item's runs of whole scores take few values: each set (with its threshold) is
# aggregated once, 8 us a dimension (an Aggregate is frozen: the same one serves)
_whole_aggregate = functools.lru_cache(maxsize=4096)(_aggregate)


# Two-sided 95% Student t quantiles t(0.975, df) for df = 1..30; 1.96 beyond.
_T_975 = (
    12.706,
    4.303,
    3.182,
    2.776,
    2.571,
    2.447,
    2.365,
    2.306,
    2.262,
    2.228,
    2.201,
    2.179,
    2.160,
    2.145,
    2.131,
    2.120,
    2.110,
    2.101,
    2.093,
    2.086,
    2.080,
    2.074,
    2.069,
    2.064,
    2.060,
    2.056,
    2.052,
    2.048,
    2.045,
    2.042,
)


def t_quantile_95(df: int) -> float:
    """t such that mean ± t·s/√n is a two-sided 95% confidence interval."""
    return _T_975[df - 1] if 1 <= df <= len(_T_975) else 1.96


def confidence_interval(mean: float, std: float, n: int) -> tuple[float, float]:
    """95% interval of the mean of n runs; unbounded for a single run (nothing is known)."""
    if n < 2:
        return (-math.inf, math.inf)
    half = t_quantile_95(n - 1) * std / math.sqrt(n)
    return (mean - half, mean + half)


def decide(mean: float, std: float, n: int, threshold: float, mode: str) -> str:
    """``pass``, ``fail`` or (confident mode only) ``undecided``: the interval holds the
    threshold."""
    if mode == "mean":
        return "pass" if mean >= threshold else "fail"
    low, high = confidence_interval(mean, std, n)
    if low >= threshold:
        return "pass"
    if high < threshold:
        return "fail"
    return "undecided"


def paired_difference(deltas: list[float]) -> tuple[float, float, float]:
    """Mean of paired differences and its 95% interval (low, high)."""
    mean, std = mean_and_std(deltas)
    low, high = confidence_interval(mean, std, len(deltas))
    return mean, low, high


def interval_fields(low: float | None, high: float | None) -> dict[str, float | None]:
    """``ci_low``/``ci_high`` for JSON, which has no infinity: unknown bounds are null."""

    def shown(bound: float | None) -> float | None:
        return None if bound is None or math.isinf(bound) else round(bound, 4)

    return {"ci_low": shown(low), "ci_high": shown(high)}

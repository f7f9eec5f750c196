"""How well the judge agrees with human labels (``expected`` in eval entries), per dimension.

Spearman's rank correlation of the judged means with the labels, quadratic-weighted Cohen's
kappa on the rounded scores, exact and within-one agreement, the mean signed difference
(negative: the judge is harsher than people) and n. Reported once a dimension has at least
MIN_LABELLED labelled, judged items.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

from ..schema.results import ItemResult, LabelAgreement, LabelDifference

MIN_LABELLED = 5
SCALE = (1, 2, 3, 4, 5)
MOST_DIFFERENT = 10


def ranks(values: Sequence[float]) -> list[float]:
    """Ranks from 1, ties sharing their average rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    result = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for position in range(start, end + 1):
            result[order[position]] = (start + end) / 2 + 1
        start = end + 1
    return result


def spearman(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Pearson correlation of the ranks; None when either side does not vary.

    (``statistics.correlation(..., method="ranked")`` does this from Python 3.12 on; 3.10 and
    3.11 have the Pearson part only.)
    """
    try:
        return statistics.correlation(ranks(a), ranks(b))
    except statistics.StatisticsError:  # a constant side (or fewer than two pairs)
        return None


def quadratic_kappa(a: Sequence[int], b: Sequence[int]) -> float | None:
    """Cohen's kappa with quadratic weights on the 1-5 scale; None when undefined."""
    k, n = len(SCALE), len(a)
    observed = [[0.0] * k for _ in SCALE]
    for x, y in zip(a, b, strict=True):
        observed[x - 1][y - 1] += 1
    row = [sum(observed[i]) for i in range(k)]
    col = [sum(observed[i][j] for i in range(k)) for j in range(k)]
    weight = [[(i - j) ** 2 / (k - 1) ** 2 for j in range(k)] for i in range(k)]
    disagreement = math.fsum(weight[i][j] * observed[i][j] for i in range(k) for j in range(k))
    expected = math.fsum(weight[i][j] * row[i] * col[j] / n for i in range(k) for j in range(k))
    return None if expected == 0 else 1 - disagreement / expected


def _rounded(score: float) -> int:
    return min(5, max(1, math.floor(score + 0.5)))  # 4.5 -> 5: half up, not to even


def label_agreement(items: Sequence[ItemResult], margin: float) -> dict[str, LabelAgreement]:
    """Agreement per dimension with at least MIN_LABELLED labelled, judged items."""
    found: dict[str, list[tuple[ItemResult, float, float]]] = {}
    for item in items:
        for name, dimension in item.dimensions.items():
            if name in item.expected:
                found.setdefault(name, []).append((item, dimension.score, item.expected[name]))
    agreement = {}
    for name, pairs in found.items():
        if len(pairs) < MIN_LABELLED:
            continue
        scores = [score for _, score, _ in pairs]
        labels = [label for _, _, label in pairs]
        judged, said = [_rounded(s) for s in scores], [_rounded(x) for x in labels]
        kappa = quadratic_kappa(judged, said)
        rho = spearman(scores, labels)
        differences = sorted(
            (
                LabelDifference(
                    nodeid=item.nodeid,
                    score=score,
                    label=label,
                    difference=round(score - label, 4),
                )
                for item, score, label in pairs
                if abs(score - label) > margin
            ),
            key=lambda d: (-abs(d.difference), d.nodeid),
        )
        agreement[name] = LabelAgreement(
            n=len(pairs),
            spearman=None if rho is None else round(rho, 4),
            kappa=None if kappa is None else round(kappa, 4),
            exact=round(sum(j == s for j, s in zip(judged, said, strict=True)) / len(pairs), 4),
            within_one=round(
                sum(abs(j - s) <= 1 for j, s in zip(judged, said, strict=True)) / len(pairs), 4
            ),
            bias=round(
                math.fsum(s - x for s, x in zip(scores, labels, strict=True)) / len(pairs), 4
            ),
            disagreements=differences[:MOST_DIFFERENT],
        )
    return agreement


def agreement_line(name: str, a: LabelAgreement) -> str:
    """``relevance: n=33 spearman 0.81 kappa 0.74 exact 0.58 within one 0.97 bias -0.12 ...``."""

    def shown(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.2f}"

    leaning = "judge harsher" if a.bias < 0 else "judge kinder" if a.bias > 0 else "no bias"
    return (
        f"{name}: n={a.n} spearman {shown(a.spearman)} kappa {shown(a.kappa)} exact "
        f"{a.exact:.2f} within one {a.within_one:.2f} bias {a.bias:+.2f} ({leaning})"
    )

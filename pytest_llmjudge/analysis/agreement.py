"""How well the judge agrees with human labels (``expected`` in eval entries), per dimension.

Spearman's rank correlation of the judged means with the labels, quadratic-weighted Cohen's
kappa on the rounded scores, exact and within-one agreement, each with its 95% interval and the
labels a ± 0.1 interval would need; the mean signed difference (negative: the judge is harsher
than people) and n; and the pass rate corrected for the judge's errors on the labels. Reported
once a dimension has at least MIN_LABELLED labelled, judged items. The formulas are in ``stats``.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Sequence

from ..schema.results import LabelAgreement, LabelDifference, Row
from ..schema.sections import CorrectedRate, Interval
from . import stats
from .gates import judged

MIN_LABELLED = 5
# A corrected rate needs this many label passes and label fails, and Se + Sp - 1 this large:
# below either, the correction's interval is wider than the rate it corrects.
MIN_LABEL_CLASS = 10
MIN_YOUDEN = 0.5
HALF_WIDTH = 0.1  # the interval whose label budget every agreement line states
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


# Agreement weights of quadratic kappa on the 1-5 scale: 1 - (i - j)² / (k - 1)².
QUADRATIC = [[1 - (i - j) ** 2 / (len(SCALE) - 1) ** 2 for j in SCALE] for i in SCALE]


def quadratic_kappa_se(a: Sequence[int], b: Sequence[int]) -> tuple[float, float] | None:
    """Cohen's kappa with quadratic weights on the 1-5 scale and its standard error
    (``stats.weighted_kappa_se``); None when undefined."""
    observed = [[0.0] * len(SCALE) for _ in SCALE]
    for x, y in zip(a, b, strict=True):
        observed[x - 1][y - 1] += 1
    return stats.weighted_kappa_se(observed, QUADRATIC)


def _rounded(score: float) -> int:
    return min(5, max(1, math.floor(score + 0.5)))  # 4.5 -> 5: half up, not to even


def label_agreement(items: Sequence[Row], margin: float) -> dict[str, LabelAgreement]:
    """Agreement per dimension with at least MIN_LABELLED labelled, judged items."""
    found: dict[str, list[tuple[Row, float, float]]] = {}
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
        judged_scores, said = [_rounded(s) for s in scores], [_rounded(x) for x in labels]
        kappa = quadratic_kappa_se(judged_scores, said)
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
        n = len(pairs)
        exact = sum(j == s for j, s in zip(judged_scores, said, strict=True))
        within = sum(abs(j - s) <= 1 for j, s in zip(judged_scores, said, strict=True))
        agreement[name] = LabelAgreement(
            n=n,
            spearman=None if rho is None else round(rho, 4),
            kappa=None if kappa is None else round(kappa[0], 4),
            spearman_ci=None if rho is None else _spearman_interval(rho, n),
            kappa_ci=None if kappa is None else _kappa_interval(*kappa, n),
            exact=round(exact / n, 4),
            within_one=round(within / n, 4),
            exact_ci=_proportion_interval(exact, n),
            within_one_ci=_proportion_interval(within, n),
            bias=round(math.fsum(s - x for s, x in zip(scores, labels, strict=True)) / n, 4),
            disagreements=differences[:MOST_DIFFERENT],
            pass_rate=corrected_pass_rate(items, name),
        )
    return agreement


def _interval(low: float, high: float, needed: int) -> Interval:
    return Interval(ci_low=round(low, 4), ci_high=round(high, 4), labels_for_0_1=needed)


def _spearman_interval(rho: float, n: int) -> Interval | None:
    interval = stats.spearman_interval(rho, n)
    if interval is None:
        return None
    return _interval(*interval, stats.spearman_labels_needed(rho, HALF_WIDTH))


def _kappa_interval(kappa: float, se: float, n: int) -> Interval:
    z = stats.NORMAL.inv_cdf(0.5 + stats.LEVEL / 2)
    low, high = max(-1.0, kappa - z * se), min(1.0, kappa + z * se)
    return _interval(low, high, stats.labels_needed(se, n, HALF_WIDTH))


def _proportion_interval(successes: int, n: int) -> Interval:
    needed = stats.proportion_labels_needed(successes / n, HALF_WIDTH)
    return _interval(*stats.wilson_interval(successes, n), needed)


def corrected_pass_rate(items: Sequence[Row], name: str) -> CorrectedRate | None:
    """A dimension's pass rate over the judged items (``gates.judged``, as the pass-rate gate
    counts), raw and corrected for the judge's sensitivity and specificity on every labelled
    item it scored (label and judge each pass or fail at the item's threshold): corrected
    only with MIN_LABEL_CLASS label passes and fails and Se + Sp - 1 >= MIN_YOUDEN."""
    base = [
        (dimension.passed, _label_passed(item, name, dimension.threshold))
        for item in judged(items)
        if (dimension := item.dimensions.get(name)) is not None
    ]
    if not base:
        return None
    calibration = [  # an xfail's scores measure the judge too: every labelled, scored item
        (dimension.passed, label)
        for item in items
        if (dimension := item.dimensions.get(name)) is not None
        and (label := _label_passed(item, name, dimension.threshold)) is not None
    ]
    thresholds = Counter(
        item.dimensions[name].threshold for item in judged(items) if name in item.dimensions
    )
    return correct_rate(base, calibration, thresholds.most_common(1)[0][0])


def _label_passed(item: Row, name: str, threshold: float) -> bool | None:
    label = item.expected.get(name)
    return None if label is None else label >= threshold


def correct_rate(
    base: Sequence[tuple[bool, bool | None]],
    calibration: Sequence[tuple[bool, bool]],
    threshold: float,
) -> CorrectedRate:
    """The raw rate of the ``base`` items (judge passed, label passed or None: unlabelled)
    with Wilson's interval; and, when the ``calibration`` pairs (judge passed, label passed)
    hold enough labels of each class and the judge tells them apart well enough, the true
    rate: labelled items by their labels, the others by the judge corrected for Se and Sp
    (``stats.stratified_rate`` and its interval)."""
    n, passed = len(base), sum(judge for judge, _ in base)
    label_passes = [judge for judge, label in calibration if label]
    label_fails = [not judge for judge, label in calibration if not label]
    sensitivity = sum(label_passes) / len(label_passes) if label_passes else None
    specificity = sum(label_fails) / len(label_fails) if label_fails else None
    low, high = stats.wilson_interval(passed, n)
    rate = CorrectedRate(
        threshold=threshold,
        n=n,
        raw=round(passed / n, 4),
        raw_ci_low=round(low, 4),
        raw_ci_high=round(high, 4),
        label_passes=len(label_passes),
        label_fails=len(label_fails),
        sensitivity=None if sensitivity is None else round(sensitivity, 4),
        specificity=None if specificity is None else round(specificity, 4),
    )
    if (
        sensitivity is None
        or specificity is None
        or min(len(label_passes), len(label_fails)) < MIN_LABEL_CLASS
        or sensitivity + specificity - 1 < MIN_YOUDEN
    ):
        return rate
    labels = [label for _, label in base if label is not None]
    unlabelled = [judge for judge, label in base if label is None]
    strata = (sum(labels), len(labels), sum(unlabelled), len(unlabelled))
    rate.corrected = round(stats.stratified_rate(*strata, sensitivity, specificity), 4)
    low, high = stats.stratified_rate_interval(
        *strata, sum(label_passes), len(label_passes), sum(label_fails), len(label_fails)
    )
    rate.ci_low, rate.ci_high = round(low, 4), round(high, 4)
    return rate


def agreement_line(name: str, a: LabelAgreement) -> str:
    """``relevance: n=33 spearman 0.81 kappa 0.74 exact 0.58 within one 0.97 bias -0.12 ...``."""

    def shown(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.2f}"

    leaning = "judge harsher" if a.bias < 0 else "judge kinder" if a.bias > 0 else "no bias"
    return (
        f"{name}: n={a.n} spearman {shown(a.spearman)} kappa {shown(a.kappa)} exact "
        f"{a.exact:.2f} within one {a.within_one:.2f} bias {a.bias:+.2f} ({leaning})"
    )


def interval_text(interval: Interval | None, n: int) -> str:
    """``95% CI 0.48-0.74 from 32 labels; about 250 labels needed for ±0.1``."""
    budget = "about {} labels needed for ±0.1"
    if interval is None:
        return f"no interval from {n} labels"
    return f"95% CI {interval.ci_low:.2f}-{interval.ci_high:.2f} from {n} labels; " + budget.format(
        interval.labels_for_0_1
    )


def interval_lines(name: str, a: LabelAgreement) -> list[str]:
    """Spearman's and kappa's intervals with their label budgets, and the corrected pass rate."""
    lines = [
        f"{name} {metric} {value:.2f}, {interval_text(interval, a.n)}"
        for metric, value, interval in (
            ("spearman", a.spearman, a.spearman_ci),
            ("kappa", a.kappa, a.kappa_ci),
        )
        if value is not None
    ]
    if a.pass_rate is not None:
        lines.append(corrected_text(name, a.pass_rate))
    return lines


def corrected_text(name: str, rate: CorrectedRate) -> str:
    """``relevance pass rate 0.83 (95% CI 0.70-0.91), judge-corrected 0.76 (95% CI ...)``."""
    raw = (
        f"{name} pass rate (>= {rate.threshold:g}) {rate.raw:.2f} (95% CI "
        f"{rate.raw_ci_low:.2f}-{rate.raw_ci_high:.2f}, {rate.n} items)"
    )
    labels = f"{rate.label_passes} label passes, {rate.label_fails} label fails"
    if rate.corrected is None or rate.ci_low is None or rate.ci_high is None:
        youden = (
            ""
            if rate.sensitivity is None or rate.specificity is None
            else f", sensitivity + specificity - 1 = {rate.sensitivity + rate.specificity - 1:.2f}"
        )
        return (
            f"{raw}; too few labels to correct ({labels}{youden}; needs {MIN_LABEL_CLASS} of "
            f"each and sensitivity + specificity - 1 >= {MIN_YOUDEN:g})"
        )
    return (
        f"{raw}, judge-corrected {rate.corrected:.2f} (95% CI {rate.ci_low:.2f}-"
        f"{rate.ci_high:.2f}; sensitivity {rate.sensitivity:.2f}, specificity "
        f"{rate.specificity:.2f} from {labels})"
    )

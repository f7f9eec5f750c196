"""The statistics of the plugin's numbers, in one place: each formula names its source.

Means of runs and their intervals; a suite's estimates (a mean over entries, a pass rate, a
paired difference against a baseline) with standard errors that may be clustered; the
one-sided tests and the Holm correction of the regression gate; the difference a suite could
detect and the entries it needs. "Miller" is Evan Miller, "Adding Error Bars to Evals"
(arXiv 2411.00640): an entry's K runs are averaged first, then the entries are the sample.
Below a few hundred entries the normal approximation is too narrow, so intervals use
Student's t (Bowyer et al. 2025, arXiv 2503.01747) with n - 1 degrees of freedom, or
clusters - 1 when entries are clustered.
"""

from __future__ import annotations

import functools
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

NORMAL = NormalDist()
LEVEL = 0.95  # every interval shown is a two-sided 95% one


def mean_and_std(values: Sequence[float]) -> tuple[float, float]:
    """Mean and sample standard deviation (0 for a single value)."""
    if all(type(value) is int for value in values):  # written scores: few distinct runs
        return _whole_mean_and_std(tuple(values))
    return _mean_and_std(values)


def _mean_and_std(values: Sequence[float]) -> tuple[float, float]:
    mean = statistics.fmean(values)
    return mean, statistics.stdev(values, mean) if len(values) > 1 else 0.0


# Runs of whole scores 1-5 take few distinct values (35 sets of 3 runs), so the standard
# library's exact mean and stdev of each set is computed once: the same floats, bit for bit.
_whole_mean_and_std = functools.lru_cache(maxsize=4096)(_mean_and_std)


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (Lentz's method)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def _regularized_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b), the regularized incomplete beta function (Numerical Recipes, 6.4)."""
    if x <= 0.0 or x >= 1.0:
        return 0.0 if x <= 0.0 else 1.0
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x)
        + b * math.log1p(-x)
    )  # fmt: skip
    front = math.exp(log_front)
    if x < (a + 1) / (a + b + 2):
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float | None) -> float:
    """P(T <= t) for Student's t with ``df`` degrees of freedom (None: the normal):
    P(|T| > t) = I_{df/(df+t^2)}(df/2, 1/2) (Abramowitz and Stegun 26.7.1)."""
    if df is None or math.isinf(t):
        return NORMAL.cdf(t) if not math.isinf(t) else float(t > 0)
    tail = 0.5 * _regularized_beta(df / 2, 0.5, df / (df + t * t))
    return 1.0 - tail if t > 0 else tail


@functools.lru_cache(maxsize=1024)
def t_quantile(p: float, df: float | None) -> float:
    """t such that P(T <= t) = p (None: the normal quantile); bisection on ``t_cdf``."""
    if df is None:
        return NORMAL.inv_cdf(p)
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    low, high = 0.0, max(1.0, NORMAL.inv_cdf(p))
    while t_cdf(high, df) < p:
        low, high = high, high * 2
    for _ in range(200):
        middle = (low + high) / 2
        low, high = (middle, high) if t_cdf(middle, df) < p else (low, middle)
        if high - low < 1e-12 * high:
            break
    return (low + high) / 2


def t_quantile_95(df: int) -> float:
    """t such that mean ± t·s/√n is a two-sided 95% confidence interval."""
    return t_quantile(0.5 + LEVEL / 2, df)


def confidence_interval(mean: float, std: float, n: int) -> tuple[float, float]:
    """95% interval of the mean of n runs; unbounded for a single run (nothing is known)."""
    if n < 2:
        return (-math.inf, math.inf)
    half = t_quantile_95(n - 1) * std / math.sqrt(n)
    return (mean - half, mean + half)


def decide(
    mean: float, std: float, n: int, threshold: float, mode: str, runs_passed: int = 0,
    k: int = 0,
) -> str:  # fmt: skip
    """``pass``, ``fail`` or (confident mode only) ``undecided``: the interval holds the
    threshold. ``k_of_n``: pass when at least ``k`` of the n runs are at or above the
    threshold (promptfoo's repeat-min-pass; no interval)."""
    if mode == "mean":
        return "pass" if mean >= threshold else "fail"
    if mode == "k_of_n":
        return "pass" if runs_passed >= k else "fail"
    low, high = confidence_interval(mean, std, n)
    if low >= threshold:
        return "pass"
    if high < threshold:
        return "fail"
    return "undecided"


@dataclass(frozen=True)
class Estimate:
    """A suite's estimate: its value, standard error and the degrees of freedom of its t."""

    value: float
    se: float | None  # None: unknown (one entry, or one cluster)
    df: float | None  # None: the normal
    n: int  # entries
    clusters: int | None = None  # the clusters its SE was computed over (None: none named)

    def interval(self, level: float = LEVEL) -> tuple[float, float]:
        """value ± t(1 - (1 - level)/2, df) · SE; unbounded when the SE is unknown."""
        if self.se is None:
            return (-math.inf, math.inf)
        half = t_quantile(0.5 + level / 2, self.df) * self.se
        return (self.value - half, self.value + half)

    def p_below(self, bound: float = 0.0) -> float | None:
        """One-sided p-value of "the true value is below ``bound``": P(T <= (value - bound)
        / SE); None when the SE is unknown."""
        if self.se is None:
            return None
        if self.se == 0:
            return 0.0 if self.value < bound else 1.0
        return t_cdf((self.value - bound) / self.se, self.df)


def mean_estimate(values: Sequence[float], clusters: Sequence[str | None] = ()) -> Estimate:
    """The mean of entries' values (each already the mean of its runs) and its SE.

    Independent entries: SE = s / √n, t with n - 1 df (Miller Eq. 1; for paired differences
    d_i = after_i - before_i, the same on the d_i is Miller Eq. 7). When entries name
    clusters (an entry without one is its own), Miller Eq. 4 (Eq. 8 for differences):
    SE² = C/(C-1) · Σ_c (Σ_{i in c} (x_i - mean))² / n², with C - 1 df. The factor C/(C-1)
    (the usual small-sample one) makes it s²/n exactly when every cluster holds one entry."""
    n = len(values)
    mean, std = mean_and_std(values)
    if not any(clusters):
        return Estimate(mean, std / math.sqrt(n) if n > 1 else None, n - 1 if n > 1 else None, n)
    sums: dict[object, float] = {}
    for index, (value, cluster) in enumerate(zip(values, clusters, strict=True)):
        key = cluster if cluster else ("entry", index)
        sums[key] = sums.get(key, 0.0) + value - mean
    count = len(sums)
    if count < 2:
        return Estimate(mean, None, None, n, count)
    variance = count / (count - 1) * math.fsum(total * total for total in sums.values()) / n**2
    return Estimate(mean, math.sqrt(variance), count - 1, n, count)


def paired_difference(deltas: list[float]) -> tuple[float, float, float]:
    """Mean of paired differences and its 95% interval (low, high) (Miller Eq. 7)."""
    estimate = mean_estimate(deltas)
    return (estimate.value, *estimate.interval())


def difference_of_means(
    before: float, before_var: float, before_runs: int, after: float, after_var: float,
    after_runs: int, df: float | None, spread: tuple[float, int] | None = None,
) -> Estimate:  # fmt: skip
    """One entry's change between two sessions: after - before, SE² = var_A/K_A + var_B/K_B
    (the resampling terms of Miller Eq. 9); ``df`` is that of the variances' estimate.

    Runs of one session show the judge's noise within it, not what moves between sessions
    (a template read differently). ``spread``, the standard deviation of every entry's change
    and its df, holds both (Miller's ω² + σ²_A/K_A + σ²_B/K_B, ω² = 0 with nothing changed):
    the larger SE of the two is used, with the smaller df."""
    se = math.sqrt(before_var / before_runs + after_var / after_runs)
    if spread is not None and spread[0] > se:
        se, df = spread[0], spread[1] if df is None else min(df, spread[1])
    return Estimate(after - before, se, df, 1)


def robust_spread(values: Sequence[float]) -> float:
    """The standard deviation as the median absolute deviation estimates it, 1.4826 · median
    |x - median(x)| (Hampel 1974; 1.4826 = 1 / Φ⁻¹(3/4) makes it s for normal data): a few
    outliers do not move it."""
    centre = statistics.median(values)
    return statistics.median(abs(v - centre) for v in values) / NORMAL.inv_cdf(0.75)


def pooled_variance(spreads: Sequence[tuple[float, int]]) -> tuple[float, int]:
    """(variance, df) of runs pooled over entries, from each entry's (std, runs):
    Σ (K_i - 1) s_i² / Σ (K_i - 1), the usual pooled estimate of one within-entry variance."""
    df = sum(runs - 1 for _, runs in spreads if runs > 1)
    if df == 0:
        return 0.0, 0
    return math.fsum((runs - 1) * std * std for std, runs in spreads if runs > 1) / df, df


def wilson_interval(successes: int, n: int, level: float = LEVEL) -> tuple[float, float]:
    """The score interval of a proportion (Wilson 1927): (p + z²/2n ± z √(p(1-p)/n +
    z²/4n²)) / (1 + z²/n); never outside 0-1, and not empty at 0 or n successes."""
    if n == 0:
        return (0.0, 1.0)
    z = NORMAL.inv_cdf(0.5 + level / 2)
    rate, shrink = successes / n, 1 + z * z / n
    centre = (rate + z * z / (2 * n)) / shrink
    half = z * math.sqrt(rate * (1 - rate) / n + z * z / (4 * n * n)) / shrink
    return (max(0.0, centre - half), min(1.0, centre + half))


def bound_decision(low: float, high: float, required: float) -> str:
    """``pass`` when the whole interval is at or above the bound, ``fail`` when it is all
    below, ``undecided`` when it holds the bound."""
    if low >= required:
        return "pass"
    return "fail" if high < required else "undecided"


def holm(p_values: Sequence[float], alpha: float) -> list[bool]:
    """Which hypotheses to reject at family-wise error ``alpha`` (Holm 1979): the k-th
    smallest p-value (k = 0, 1, ...) is rejected while p <= alpha / (m - k)."""
    rejected = [False] * len(p_values)
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    for rank, index in enumerate(order):
        if p_values[index] > alpha / (len(p_values) - rank):
            break
        rejected[index] = True
    return rejected


def detectable_difference(
    se: float, alpha: float = 0.05, power: float = 0.8, df: float | None = None
) -> float:
    """The smallest true difference found with probability ``power`` by a test at two-sided
    level ``alpha`` (one-sided alpha/2), given its standard error: (t(1 - a/2) + t(power))
    · SE. Miller Eq. 10 is this with z quantiles and SE = √((ω² + σ²_A/K_A + σ²_B/K_B)/n);
    with t quantiles (Student's t, df) below a few hundred entries."""
    return (t_quantile(1 - alpha / 2, df) + t_quantile(power, df)) * se


def paired_variance(
    omega2: float, var_a: float = 0.0, var_b: float = 0.0, runs_a: int = 1, runs_b: int = 1
) -> float:
    """The variance of one entry's paired difference: ω² + σ²_A/K_A + σ²_B/K_B, ω² that of
    the true per-entry differences, σ² the variance of one run, K the runs (Miller Eq. 9)."""
    return omega2 + var_a / runs_a + var_b / runs_b


def sample_size(
    delta: float, omega2: float, var_a: float = 0.0, var_b: float = 0.0, runs_a: int = 1,
    runs_b: int = 1, alpha: float = 0.05, power: float = 0.8,
) -> int:  # fmt: skip
    """Miller Eq. 9: entries needed to detect a difference ``delta``,
    n = (z(1 - a/2) + z(power))² (ω² + σ²_A/K_A + σ²_B/K_B) / δ², rounded up."""
    z = NORMAL.inv_cdf(1 - alpha / 2) + NORMAL.inv_cdf(power)
    return math.ceil(z * z * paired_variance(omega2, var_a, var_b, runs_a, runs_b) / delta**2)


def interval_fields(low: float | None, high: float | None) -> dict[str, float | None]:
    """``ci_low``/``ci_high`` for JSON, which has no infinity: unknown bounds are null."""

    def shown(bound: float | None) -> float | None:
        return None if bound is None or math.isinf(bound) else round(bound, 4)

    return {"ci_low": shown(low), "ci_high": shown(high)}


# The judge against human labels: agreement intervals, label budgets, a corrected pass rate.


def _z(level: float = LEVEL) -> float:
    return NORMAL.inv_cdf(0.5 + level / 2)


def spearman_interval(rho: float, n: int, level: float = LEVEL) -> tuple[float, float] | None:
    """Fisher's z interval of a Spearman correlation with Bonett and Wright's variance
    (Bonett & Wright 2000, Psychometrika 65:23-28): tanh(atanh(r) ± z √((1 + r²/2)/(n - 3))).
    None with 3 or fewer pairs, or r = ±1 (no finite z)."""
    if n <= 3 or abs(rho) >= 1:
        return None
    half = _z(level) * math.sqrt((1 + rho * rho / 2) / (n - 3))
    centre = math.atanh(rho)
    return (math.tanh(centre - half), math.tanh(centre + half))


def spearman_labels_needed(rho: float, half_width: float = 0.1, level: float = LEVEL) -> int:
    """Pairs for a Spearman interval about ± ``half_width`` wide at this r (Bonett & Wright
    2000, their sample-size formula with width w = 2 · half_width):
    n = 4 (1 + r²/2) (1 - r²)² (z / w)² + 3, rounded up."""
    width = 2 * half_width
    return math.ceil(4 * (1 + rho * rho / 2) * (1 - rho * rho) ** 2 * (_z(level) / width) ** 2 + 3)


def weighted_kappa_se(counts: Sequence[Sequence[float]], weights: Sequence[Sequence[float]]) -> (
    tuple[float, float] | None
):  # fmt: skip
    """Weighted kappa and its large-sample standard error (Fleiss, Cohen & Everitt 1969,
    Psychological Bulletin 72:323-327; as in Fleiss, Levin & Paik 2003, eq. 18.15), from the
    table of counts and agreement weights w (1 on the diagonal):
    p_o = Σ w_ij p_ij, p_e = Σ w_ij p_i. p_.j, κ = (p_o - p_e)/(1 - p_e),
    w̄_i. = Σ_j p_.j w_ij, w̄_.j = Σ_i p_i. w_ij,
    Var = [Σ p_ij (w_ij - (w̄_i. + w̄_.j)(1 - κ))² - (κ - p_e (1 - κ))²] / (n (1 - p_e)²).
    None when p_e = 1 (kappa undefined)."""
    k = len(counts)
    n = math.fsum(math.fsum(row) for row in counts)
    p = [[cell / n for cell in row] for row in counts]
    rows = [math.fsum(p[i]) for i in range(k)]
    cols = [math.fsum(p[i][j] for i in range(k)) for j in range(k)]
    observed = math.fsum(weights[i][j] * p[i][j] for i in range(k) for j in range(k))
    expected = math.fsum(weights[i][j] * rows[i] * cols[j] for i in range(k) for j in range(k))
    if expected >= 1:
        return None
    kappa = (observed - expected) / (1 - expected)
    by_row = [math.fsum(cols[j] * weights[i][j] for j in range(k)) for i in range(k)]
    by_col = [math.fsum(rows[i] * weights[i][j] for i in range(k)) for j in range(k)]
    spread = math.fsum(
        p[i][j] * (weights[i][j] - (by_row[i] + by_col[j]) * (1 - kappa)) ** 2
        for i in range(k)
        for j in range(k)
    )
    variance = (spread - (kappa - expected * (1 - kappa)) ** 2) / (n * (1 - expected) ** 2)
    return kappa, math.sqrt(max(variance, 0.0))


def labels_needed(se: float, n: int, half_width: float = 0.1, level: float = LEVEL) -> int:
    """Labels for an estimate ± ``half_width`` when its variance falls as 1/n, as every
    large-sample one here does: n · (z · SE / half_width)², rounded up."""
    return math.ceil(n * (_z(level) * se / half_width) ** 2)


def proportion_labels_needed(rate: float, half_width: float = 0.1, level: float = LEVEL) -> int:
    """The fewest labels whose Wilson interval (``wilson_interval``) at this observed rate is
    at most ``half_width`` either side: z² p (1 - p) / h² (the normal approximation's sample
    size) away from 0 and 1, and still finite at them (about z²/2h² - z² at a rate of 1)."""
    z2 = _z(level) ** 2

    def half(n: int) -> float:
        return _z(level) * math.sqrt(rate * (1 - rate) / n + z2 / (4 * n * n)) / (1 + z2 / n)

    n = 1
    while half(n) > half_width:
        n *= 2
    low = n // 2
    while n - low > 1:  # the half width falls as n grows: bisect for the first n within it
        middle = (low + n) // 2
        low, n = (middle, n) if half(middle) > half_width else (low, middle)
    return n


def rogan_gladen(apparent: float, sensitivity: float, specificity: float) -> float:
    """The true rate from an apparent one measured with known error rates (Rogan & Gladen
    1978, Am J Epidemiol 107:71-76): (p + Sp - 1)/(Se + Sp - 1), held to 0-1."""
    rate = (apparent + specificity - 1) / (sensitivity + specificity - 1)
    return min(1.0, max(0.0, rate))


def lang_reiczigel(
    positives: int, n: int, true_positives: int, label_positives: int, true_negatives: int,
    label_negatives: int, level: float = LEVEL,
) -> tuple[float, float]:  # fmt: skip
    """The centre and standard error of Lang & Reiczigel's (2014) adjusted Wald interval of a
    Rogan-Gladen rate, the apparent rate and Se, Sp from independent samples: add z²/2 to the
    positives and negatives of the apparent rate and 1 to each of those of Se and Sp;
    π' = (p' + Sp' - 1)/(Se' + Sp' - 1); SE by the delta method,
    √(p'(1-p')/n' + π'² Se'(1-Se')/n_se' + (1-π')² Sp'(1-Sp')/n_sp') / (Se' + Sp' - 1); the
    centre π' moved by 2z² (π' Se'(1-Se')/n_se' - (1-π') Sp'(1-Sp')/n_sp')."""
    z = _z(level)
    n_p, n_se, n_sp = n + z * z, label_positives + 2, label_negatives + 2
    p = (positives + z * z / 2) / n_p
    se, sp = (true_positives + 1) / n_se, (true_negatives + 1) / n_sp
    youden = se + sp - 1
    rate = (p + sp - 1) / youden
    var_se, var_sp = se * (1 - se) / n_se, sp * (1 - sp) / n_sp
    spread = math.sqrt(p * (1 - p) / n_p + rate**2 * var_se + (1 - rate) ** 2 * var_sp)
    shift = 2 * z * z * (rate * var_se - (1 - rate) * var_sp)
    return rate + shift, spread / abs(youden)


def stratified_rate(
    label_passes: int, labelled: int, positives: int, unlabelled: int, sensitivity: float,
    specificity: float,
) -> float:  # fmt: skip
    """A suite's true pass rate when some items carry labels: the labelled items count by
    their labels, the others by the judge corrected (``rogan_gladen``), weighted by their
    numbers (a stratified mean, Cochran 1977, 5.3)."""
    corrected = rogan_gladen(positives / unlabelled, sensitivity, specificity) if unlabelled else 0
    return (label_passes + unlabelled * corrected) / (labelled + unlabelled)


def stratified_rate_interval(
    label_passes: int, labelled: int, positives: int, unlabelled: int, true_positives: int,
    label_positives: int, true_negatives: int, label_negatives: int, level: float = LEVEL,
) -> tuple[float, float]:  # fmt: skip
    """95% interval of a suite's true pass rate when some of its items carry labels: a
    stratified estimate (Cochran 1977, Sampling Techniques, 5.3: weights m/n and u/n), the
    labelled stratum by its labels (Agresti-Coull's adjusted proportion, (x + z²/2)/(m + z²)
    with variance p̃(1-p̃)/(m + z²); Agresti & Coull 1998) and the unlabelled one by the
    judge, corrected (``lang_reiczigel``); the strata's variances add, weighted by the
    squared weights. The labelled items' judge verdicts are not counted twice: the apparent
    rate is that of the unlabelled items, independent of the labels that give Se and Sp, as
    Lang & Reiczigel assume. Held to 0-1."""
    z2 = _z(level) ** 2
    n = labelled + unlabelled
    centre = variance = 0.0
    if labelled:
        adjusted = (label_passes + z2 / 2) / (labelled + z2)
        centre += labelled / n * adjusted
        variance += (labelled / n) ** 2 * adjusted * (1 - adjusted) / (labelled + z2)
    if unlabelled:
        rate, se = lang_reiczigel(
            positives, unlabelled, true_positives, label_positives, true_negatives,
            label_negatives, level,
        )  # fmt: skip
        centre += unlabelled / n * rate
        variance += (unlabelled / n) ** 2 * se * se
    half = _z(level) * math.sqrt(variance)
    return (max(0.0, centre - half), min(1.0, centre + half))


def true_spread(entry_variance: float, run_variance: float, runs: int) -> float:
    """The variance of entries' true scores: that of their means of K runs less the runs'
    share, s² - σ²/K, held at 0 or above (an entry's mean of K runs varies by its true score's
    variance plus σ²/K: Miller, the decomposition behind Eq. 9)."""
    return max(0.0, entry_variance - run_variance / runs)


def runs_share(run_variance: float, runs: int) -> float:
    """The judge's noise in one entry's paired difference at K runs a side: σ²/K + σ²/K
    (Miller Eq. 9's resampling terms, the same judge and runs in both sessions)."""
    return 2 * run_variance / runs

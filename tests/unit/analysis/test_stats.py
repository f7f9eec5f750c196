"""The statistics module: a dimension's runs, and the error bars of suite estimates."""

from __future__ import annotations

import itertools
import math
import statistics

import pytest

from pytest_llmjudge.analysis.stats import (
    bound_decision,
    detectable_difference,
    holm,
    mean_and_std,
    mean_estimate,
    paired_variance,
    pooled_variance,
    robust_spread,
    sample_size,
    t_cdf,
    t_quantile,
    wilson_interval,
)


def test_whole_scores_give_the_standard_library_s_figures_bit_for_bit() -> None:
    for runs in [*itertools.product(range(1, 6), repeat=3), (4,), (2, 5), (1, 2, 3, 4, 5)]:
        mean = statistics.fmean(runs)
        std = statistics.stdev(runs, mean) if len(runs) > 1 else 0.0
        assert mean_and_std(list(runs)) == (mean, std)


def test_weighted_scores_are_not_taken_for_the_whole_ones_they_equal() -> None:
    assert mean_and_std([4, 4, 5]) == mean_and_std([4.0, 4.0, 5.0])
    weighted = [3.9, 4.1, 4.6]
    assert mean_and_std(weighted) == (
        statistics.fmean(weighted),
        statistics.stdev(weighted, statistics.fmean(weighted)),
    )
    assert mean_and_std([True, False]) == (0.5, statistics.stdev([1, 0]))


# -- error bars (analysis/stats): numbers checked by hand or against the published ones -----


def test_student_t_matches_the_printed_tables() -> None:
    # two-sided 95% quantiles as every table prints them (df 1, 4, 29, 120) and the normal
    for df, printed in ((1, 12.706), (4, 2.776), (29, 2.045), (120, 1.980)):
        assert t_quantile(0.975, df) == pytest.approx(printed, abs=5e-4)
    assert t_quantile(0.975, None) == pytest.approx(1.95996, abs=1e-5)
    assert t_quantile(0.8, 29) == pytest.approx(0.854, abs=5e-4)
    # df = 1 is Cauchy: P(T <= 1) = 3/4 exactly; df = 2: P(T <= t) = 1/2 + t / (2 sqrt(2 + t^2))
    assert t_cdf(1.0, 1) == pytest.approx(0.75, abs=1e-12)
    assert t_cdf(2.0, 2) == pytest.approx(0.5 + 2 / (2 * math.sqrt(6)), abs=1e-12)
    assert t_cdf(-2.0, 2) == pytest.approx(0.5 - 2 / (2 * math.sqrt(6)), abs=1e-12)
    assert t_quantile(0.025, 10) == -t_quantile(0.975, 10)


def test_miller_worked_numbers() -> None:
    """Miller, "Adding Error Bars to Evals", section on power: n = 969 for delta = 0.03 (two-
    sided 5%, 80% power, omega^2 = 1/9, no resampling term); at n = 198 with
    sigma_A^2 = sigma_B^2 = 1/6 the detectable effect is 13.27% with K = 1 and 7.57% with
    K = 10 (the paper prints 13.2% and 7.5%)."""
    assert sample_size(0.03, 1 / 9) == 969
    # Miller Eq. 10: (z(1 - a/2) + z(power)) * sqrt((omega^2 + var_A/K_A + var_B/K_B) / n)
    one = detectable_difference(math.sqrt(paired_variance(1 / 9, 1 / 6, 1 / 6) / 198))
    assert one == pytest.approx(0.1327, abs=5e-5)
    ten = detectable_difference(math.sqrt(paired_variance(1 / 9, 1 / 6, 1 / 6, 10, 10) / 198))
    assert ten == pytest.approx(0.0757, abs=5e-5)
    # the example: 30 entries, differences spread 0.8: about 0.41 with z quantiles
    assert detectable_difference(0.8 / math.sqrt(30)) == pytest.approx(0.409, abs=1e-3)
    # with Student's t (29 df) it is wider, as it should be below a few hundred entries
    assert detectable_difference(0.8 / math.sqrt(30), df=29) > 0.42


def test_mean_estimate_plain_and_clustered_by_hand() -> None:
    plain = mean_estimate([1.0, 2.0, 3.0, 4.0])
    assert plain.value == 2.5 and plain.df == 3 and plain.clusters is None
    assert plain.se == pytest.approx(math.sqrt(5 / 3) / 2)  # s^2 = 5/3, n = 4
    # every entry its own cluster: exactly the plain SE (C/(C-1) makes it s^2/n)
    singletons = mean_estimate([1.0, 2.0, 3.0, 4.0], ["a", "b", "c", "d"])
    assert singletons.se == pytest.approx(plain.se) and singletons.df == 3
    # two clusters {1, 2} and {3, 4}: residual sums -2 and +2; SE^2 = 2/1 * (4 + 4) / 16 = 1
    paired = mean_estimate([1.0, 2.0, 3.0, 4.0], ["x", "x", "y", "y"])
    assert paired.se == pytest.approx(1.0) and paired.df == 1 and paired.clusters == 2
    assert paired.se is not None and plain.se is not None
    assert paired.se > plain.se  # correlated entries: the naive SE understates
    # entries without a cluster are their own; one cluster in all: no interval
    assert mean_estimate([1.0, 2.0, 3.0], ["x", None, None]).clusters == 3
    assert mean_estimate([1.0, 2.0], ["x", "x"]).interval() == (-math.inf, math.inf)
    low, high = plain.interval()
    assert (low + high) / 2 == 2.5 and high - 2.5 == pytest.approx(3.18245 * plain.se, abs=1e-4)
    assert mean_estimate([1.0, 2.0, 3.0], ["", "", ""]).clusters is None  # none named


def test_p_values_of_a_drop() -> None:
    drop = mean_estimate([-1.0, -2.0, -3.0, -2.0])  # mean -2, se 0.408: far below zero
    assert drop.p_below() == pytest.approx(t_cdf(-2 / (math.sqrt(2 / 3) / 2), 3))
    p_drop = drop.p_below()
    assert p_drop is not None and p_drop < 0.01
    assert mean_estimate([0.0, 0.0]).p_below() == 1.0  # no change and no spread: no drop
    assert mean_estimate([-1.0, -1.0]).p_below() == 0.0  # a drop with no spread
    assert mean_estimate([-1.0]).p_below() is None  # one entry: unknown


def test_wilson_interval_by_hand() -> None:
    low, high = wilson_interval(30, 30)
    assert low == pytest.approx(0.8865, abs=1e-4) and high == 1.0  # the 0.886
    # 5 of 10: centre 0.5, half = 1.96 sqrt(0.025 + 0.0096) / 1.384 = 0.2634
    low, high = wilson_interval(5, 10)
    assert (low, high) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_bound_decisions_and_holm() -> None:
    assert bound_decision(0.91, 0.99, 0.9) == "pass"
    assert bound_decision(0.80, 0.89, 0.9) == "fail"
    assert bound_decision(0.886, 1.0, 0.9) == "undecided"
    # Holm at 5% over 4: 0.005 <= 0.0125, 0.01 <= 0.0167, 0.03 > 0.025: stop
    assert holm([0.01, 0.04, 0.03, 0.005], 0.05) == [True, False, False, True]
    assert holm([0.02, 0.02], 0.05) == [True, True]  # 0.02 <= 0.025, then 0.02 <= 0.05
    assert holm([], 0.05) == []


def test_pooled_variance_weights_by_degrees_of_freedom() -> None:
    # (3 - 1) * 1^2 + (5 - 1) * 2^2 = 18 over 6 df; one run says nothing of the noise
    assert pooled_variance([(1.0, 3), (2.0, 5), (9.0, 1)]) == (3.0, 6)
    assert pooled_variance([(0.0, 1)]) == (0.0, 0)


def test_robust_spread_by_hand() -> None:
    # median 3, absolute deviations 2, 1, 0, 1, 97: their median 1, times 1.4826
    assert robust_spread([1.0, 2.0, 3.0, 4.0, 100.0]) == pytest.approx(1.4826, abs=1e-4)

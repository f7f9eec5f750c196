"""The judge against its labels: agreement intervals, label budgets, the corrected pass rate,
k of N and the planner's sample sizes, against values worked by hand (in the comments)."""

from __future__ import annotations

import math
import random
import statistics

import pytest

from pytest_llmjudge.analysis import agreement, stats
from pytest_llmjudge.analysis.stats import (
    decide,
    labels_needed,
    lang_reiczigel,
    proportion_labels_needed,
    rogan_gladen,
    runs_share,
    sample_size,
    spearman_interval,
    spearman_labels_needed,
    true_spread,
    weighted_kappa_se,
    wilson_interval,
)


def test_spearman_interval_is_fisher_z_with_bonett_wright_variance() -> None:
    # r = 0.5, n = 28: atanh(0.5) = 0.549306; SE = sqrt((1 + 0.25/2) / 25) = 0.212132;
    # half = 1.959964 * 0.212132 = 0.415771 -> tanh(0.133535) = 0.132747,
    # tanh(0.965077) = 0.746533
    low, high = spearman_interval(0.5, 28) or (0, 0)
    assert low == pytest.approx(0.132747, abs=1e-6)
    assert high == pytest.approx(0.746533, abs=1e-6)
    assert spearman_interval(0.5, 3) is None  # n - 3 = 0: no variance
    assert spearman_interval(1.0, 30) is None  # atanh(1) is infinite


def test_spearman_labels_for_a_tenth_either_side() -> None:
    # Bonett & Wright: 4 (1 + r²/2) (1 - r²)² (z / w)² + 3, w = 0.2
    # r = 0.5: 4 * 1.125 * 0.5625 * (1.959964 / 0.2)² + 3 = 2.53125 * 96.0365 + 3 = 246.09
    assert spearman_labels_needed(0.5) == 247
    # r = 0: 4 * 96.0365 + 3 = 387.15
    assert spearman_labels_needed(0.0) == 388


def test_kappa_standard_error_is_fleiss_cohen_everitt() -> None:
    # counts [[20, 5], [10, 15]], n = 50, identity weights (Cohen's kappa):
    # p_o = 0.7, p_e = 0.5 * 0.6 + 0.5 * 0.4 = 0.5, kappa = 0.2 / 0.5 = 0.4
    # w̄_1. = 0.6, w̄_2. = 0.4 (column shares), w̄_.1 = w̄_.2 = 0.5 (row shares)
    # Σ p_ij (w_ij - (w̄_i. + w̄_.j) 0.6)²: 0.4 * 0.34² + 0.1 * 0.66² + 0.2 * 0.54² + 0.3 * 0.46²
    #   = 0.04624 + 0.04356 + 0.05832 + 0.06348 = 0.2116
    # (kappa - p_e (1 - kappa))² = (0.4 - 0.3)² = 0.01
    # Var = (0.2116 - 0.01) / (50 * 0.25) = 0.016128, SE = 0.126996
    kappa, se = weighted_kappa_se([[20, 5], [10, 15]], [[1, 0], [0, 1]]) or (0, 0)
    assert kappa == pytest.approx(0.4)
    assert se == pytest.approx(math.sqrt(0.016128), abs=1e-9)
    # labels for ±0.1: 50 * (1.959964 * 0.126996 / 0.1)² = 50 * 6.19557 = 309.8
    assert labels_needed(se, 50) == 310
    assert weighted_kappa_se([[5, 0], [0, 0]], [[1, 0], [0, 1]]) is None  # p_e = 1


def test_quadratic_kappa_standard_error_matches_a_bootstrap() -> None:
    # the large-sample formula against 4,000 resamples of 60 pairs (fixed seed)
    rng = random.Random(7)
    labels = [rng.randint(1, 5) for _ in range(60)]
    judged = [min(5, max(1, label + rng.choice((-1, 0, 0, 1)))) for label in labels]
    _, se = agreement.quadratic_kappa_se(judged, labels) or (0, 0)
    draws = []
    for _ in range(4000):
        picked = [rng.randrange(60) for _ in range(60)]
        again = agreement.quadratic_kappa_se(
            [judged[i] for i in picked], [labels[i] for i in picked]
        )
        draws.append(again[0] if again else 0.0)
    assert se == pytest.approx(statistics.stdev(draws), rel=0.15)


def test_proportion_labels_come_from_wilsons_interval() -> None:
    # p = 1: half width z sqrt(z²/4n²) / (1 + z²/n); n = 16: 1.959964 * 0.061255 / 1.240092
    # = 0.0968 (within 0.1); n = 15: 1.959964 * 0.065341 / 1.256097 = 0.1020 (not)
    assert proportion_labels_needed(1.0) == 16
    low, high = wilson_interval(16, 16)
    assert (high - low) / 2 <= 0.1
    # p = 0.5: about z² / 4h² = 96.04, Wilson's shrink makes it 93
    assert proportion_labels_needed(0.5) == 93


def test_rogan_gladen_and_lang_reiczigel_interval() -> None:
    # (0.6 + 0.8 - 1) / (0.9 + 0.8 - 1) = 0.4 / 0.7
    assert rogan_gladen(0.6, 0.9, 0.8) == pytest.approx(0.571429, abs=1e-6)
    assert rogan_gladen(0.1, 0.9, 0.8) == 0.0  # below the false-pass rate: held to 0
    # 60 of 100 passed; Se from 45 of 50 label passes, Sp from 40 of 50 label fails.
    # z² = 3.841459; n' = 103.841459, p' = 61.920729 / n' = 0.596300;
    # Se' = 46/52 = 0.884615, Sp' = 41/52 = 0.788462, Se' + Sp' - 1 = 0.673077;
    # π' = (0.596300 + 0.788462 - 1) / 0.673077 = 0.571646;
    # Se'(1-Se')/52 = 0.0019629, Sp'(1-Sp')/52 = 0.0032075, p'(1-p')/n' = 0.0023182;
    # SE = sqrt(0.0023182 + 0.571646² 0.0019629 + 0.428354² 0.0032075) / 0.673077
    #    = 0.059567 / 0.673077 = 0.088499; half = 1.959964 * 0.088499 = 0.173455;
    # shift = 2 z² (0.571646 * 0.0019629 - 0.428354 * 0.0032075) = -0.0019351
    # -> 0.571646 - 0.001935 ± 0.173455 = 0.39626 to 0.74317
    centre, se = lang_reiczigel(60, 100, 45, 50, 40, 50)
    assert centre - 1.959964 * se == pytest.approx(0.39626, abs=2e-5)
    assert centre + 1.959964 * se == pytest.approx(0.74317, abs=2e-5)


def test_the_corrected_rate_needs_ten_labels_a_class_and_a_judge_that_tells_them_apart() -> None:
    unlabelled: tuple[bool, bool | None] = (True, None)
    passes = [unlabelled] * 60 + [(False, None)] * 40
    enough = [(True, True)] * 18 + [(False, True)] * 2 + [(False, False)] * 9 + [(True, False)]
    rate = agreement.correct_rate(passes, enough, 3.5)
    assert (rate.label_passes, rate.label_fails) == (20, 10)
    assert (rate.sensitivity, rate.specificity) == (0.9, 0.9)
    # (0.6 + 0.9 - 1) / 0.8 = 0.625
    assert rate.corrected == 0.625
    assert rate.ci_low is not None and rate.ci_low < 0.625 < (rate.ci_high or 0)
    nine_fails = enough[:-1]
    assert agreement.correct_rate(passes, nine_fails, 3.5).corrected is None
    # Se 0.7, Sp 0.7: Se + Sp - 1 = 0.4 < 0.5
    poor = [(True, True)] * 7 + [(False, True)] * 3 + [(False, False)] * 7 + [(True, False)] * 3
    said = agreement.correct_rate(passes, poor, 3.5)
    assert said.corrected is None and said.sensitivity == 0.7
    assert "too few labels to correct" in agreement.corrected_text("relevance", said)


def test_labelled_items_count_by_their_labels_and_the_others_by_the_judge_corrected() -> None:
    # 20 labelled items, 15 of them label passes; 80 unlabelled, the judge passed 50 of them;
    # Se = Sp = 0.9 (calibration below): unlabelled (0.625 + 0.9 - 1) / 0.8 = 0.65625;
    # the suite: (15 + 80 * 0.65625) / 100 = 0.675
    assert stats.stratified_rate(15, 20, 50, 80, 0.9, 0.9) == pytest.approx(0.675)
    # the interval: labelled stratum (15 + 1.920729) / 23.841459 = 0.709721, variance
    # 0.709721 * 0.290279 / 23.841459 = 0.0086411 weighted by 0.2² -> 0.00034564;
    # unlabelled stratum by Lang-Reiczigel, weighted by 0.8²
    centre, se = stats.lang_reiczigel(50, 80, 18, 20, 9, 10)
    low, high = stats.stratified_rate_interval(15, 20, 50, 80, 18, 20, 9, 10)
    half = 1.959964 * math.sqrt(0.00034564 + 0.64 * se * se)
    assert (low + high) / 2 == pytest.approx(0.2 * 0.709721 + 0.8 * centre, abs=1e-5)
    assert (high - low) / 2 == pytest.approx(half, abs=1e-5)
    # every item labelled: the labels' own rate (Agresti-Coull), the judge plays no part
    assert stats.stratified_rate(30, 40, 0, 0, 0.9, 0.9) == 0.75


@pytest.mark.parametrize(
    ("passed", "k", "decision"), [(2, 2, "pass"), (3, 2, "pass"), (1, 2, "fail"), (0, 1, "fail")]
)
def test_k_of_n_passes_when_k_runs_pass(passed: int, k: int, decision: str) -> None:
    # the mean (1.0, far below any threshold) plays no part in a k-of-N verdict
    assert decide(1.0, 0.0, 3, 3.5, "k_of_n", passed, k) == decision


def test_the_planner_s_figures() -> None:
    # Miller Eq. 9: n = (1.959964 + 0.841621)² (ω² + σ²/K + σ²/K) / d²
    # σ² = 0.5, K = 3, ω² = 0.2, d = 0.3: 7.848880 * (0.2 + 0.333333) / 0.09 = 46.51 -> 47
    assert sample_size(0.3, 0.2, 0.5, 0.5, 3, 3) == 47
    assert runs_share(0.5, 3) == pytest.approx(1 / 3)
    # s² = 0.6 of means of 3 runs, σ² = 0.5: the true spread 0.6 - 0.5/3 = 0.433333
    assert true_spread(0.6, 0.5, 3) == pytest.approx(0.433333, abs=1e-6)
    assert true_spread(0.1, 0.5, 3) == 0.0

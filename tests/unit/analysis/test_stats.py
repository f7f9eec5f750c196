"""Mean and standard deviation of a dimension's runs."""

from __future__ import annotations

import itertools
import statistics

from pytest_llmjudge.analysis.stats import mean_and_std


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

"""Agreement of the judge with human labels: figures checked against values worked by hand."""

from __future__ import annotations

import pytest

from pytest_llmjudge.analysis.agreement import quadratic_kappa_se, spearman

# judge:  5 4 3 2 1  (relevance, scripted)      labels: 5 3 4 2 1
# Spearman: d = 0, 1, -1, 0, 0 -> 1 - 6 * 2 / (5 * (25 - 1)) = 0.9
# Quadratic kappa: observed disagreement 2 * (1/16) = 0.125; expected, every marginal 1 of 5:
# 0.2 * sum((i - j)^2) / 16 = 0.2 * 100 / 16 = 1.25 -> 1 - 0.125 / 1.25 = 0.9
SCORES, LABELS = (5, 4, 3, 2, 1), (5, 3, 4, 2, 1)


def test_statistics_by_hand() -> None:
    assert spearman(SCORES, LABELS) == pytest.approx(0.9)
    kappa = quadratic_kappa_se(list(SCORES), list(LABELS))
    assert kappa is not None and kappa[0] == pytest.approx(0.9)
    assert spearman([4, 4, 4], [1, 2, 3]) is None  # no variance: undefined, not 0
    assert quadratic_kappa_se([4, 4], [4, 4]) is None

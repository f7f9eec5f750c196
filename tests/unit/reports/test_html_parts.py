"""The HTML report's charts, from numbers a hand-edited results file may hold."""

from __future__ import annotations

import math
import re

import pytest

from pytest_llmjudge.reports.html_parts import histogram


def _bars(svg: str) -> dict[str, int]:
    """Items per bin, as the bars' titles say ("3-3.5: 2 items met their threshold")."""
    found: dict[str, int] = {}
    for low_high, count in re.findall(r"<title>([\d.]+-[\d.]+): (\d+) items", svg):
        found[low_high] = found.get(low_high, 0) + int(count)
    return found


def test_each_item_mean_lands_in_its_half_point_bin() -> None:
    svg = histogram("relevance", [(1.0, False), (3.2, True), (3.4, True), (5.0, True)], 3.5)
    assert _bars(svg) == {"1-1.5": 1, "3-3.5": 2, "4.5-5": 1}  # 5 is the last bin's
    assert "relevance (4 items)" in svg


@pytest.mark.parametrize(
    ("score", "end"),
    [(1e308, "4.5-5"), (math.inf, "4.5-5"), (99.0, "4.5-5"), (-1e308, "1-1.5"), (0.0, "1-1.5")],
)
def test_a_mean_past_the_scale_is_drawn_in_the_bin_at_its_end(score: float, end: str) -> None:
    svg = histogram("tone", [(score, True), (3.0, True)], 3.5)
    assert _bars(svg) == {end: 1, "3-3.5": 1}


def test_a_mean_that_is_no_number_has_no_bar_but_is_counted() -> None:
    svg = histogram("tone", [(math.nan, False), (4.0, True)], 3.5)
    assert _bars(svg) == {"4-4.5": 1} and "tone (2 items)" in svg

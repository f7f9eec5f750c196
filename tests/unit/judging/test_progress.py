"""Live judge progress: lines in a log (pytester), in place on a real pseudo-terminal."""

from __future__ import annotations

import pytest

from pytest_llmjudge.judging.progress import Progress, progress_text


def test_progress_text_and_time_left() -> None:
    p = Progress(
        planned=300, done=100, calls=40, in_flight=16, retrying=2, tokens=45210,
        cost_usd=0.0123, elapsed=10.0,
    )  # fmt: skip
    assert p.worth_showing and p.seconds_left() == pytest.approx(20.0)
    assert progress_text(p) == (
        "llmjudge: 100/300 runs judged, 40 judge calls, 16 in flight, 2 waiting to retry, "
        "45,210 tokens, $0.0123, about 20 s left"
    )
    assert Progress(10, 5, 1, 1, 0, 0, None, 1.0).worth_showing is False  # a handful
    assert Progress(50, 50, 20, 0, 0, 0, None, 1.0).worth_showing is False  # all done

"""The line said before the items when latency checks have no live target to measure."""

from __future__ import annotations

from pytest_llmjudge.session.item_checks import latency_line


def test_the_latency_line_counts_in_words() -> None:
    assert latency_line(1).startswith("1 item has a latency check (max_latency_ms)")
    assert latency_line(1).endswith("a stored answer has no latency, so that item is an error")
    assert latency_line(3).startswith("3 items have a latency check (max_latency_ms)")
    assert latency_line(3).endswith("so those items are errors")

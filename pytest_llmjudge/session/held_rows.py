"""Results rows held until their item's teardown report, for their duration.

Imports nothing heavy: the results hooks hold it in every session (pydantic is imported only
once something is judged).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from ..schema.results import ItemResult


class HeldRows:
    """Each running item's row, held until its teardown report, so that its ``duration_s`` is
    setup + call + teardown as pytest reports them (what ``--durations`` and pytest-split
    read; judging is in the setup)."""

    def __init__(self) -> None:
        self._took: dict[str, float] = {}
        self._held: dict[str, ItemResult] = {}

    def timed(self, report: pytest.TestReport) -> float:
        """The attempt's time so far, this report's phase included (a setup starts an
        attempt, a rerun's too)."""
        before = 0.0 if report.when == "setup" else self._took.get(report.nodeid, 0.0)
        self._took[report.nodeid] = took = before + report.duration
        return took

    def hold(self, row: ItemResult) -> None:
        self._held[row.nodeid] = row

    def released(self, report: pytest.TestReport) -> ItemResult | None:
        """At its teardown: the item's row, with its whole duration (None: none held)."""
        if report.when != "teardown":
            return None
        took = self._took.pop(report.nodeid, 0.0)
        row = self._held.pop(report.nodeid, None)
        if row is not None:
            row.duration_s = round(took, 4)
        return row

    def rest(self) -> list[ItemResult]:
        """The rows whose teardown never came (a crashed worker, an interrupt)."""
        rows, self._held = list(self._held.values()), {}
        return rows

"""A spilled row as the controller keeps it: the values the summary, the gates, the label
agreement, the baseline and the terminal lines read, in slotted records (a pydantic row keeps,
per model, a field dict and a record of its given fields). The whole row waits in the spill.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..schema.items import CheckResult, DimensionResult, ItemResult, ItemUsage, Outcome


@dataclass(slots=True, frozen=True)
class KeptDimension:
    """A dimension's result without its reasonings."""

    score: float
    runs: list[int | float]
    std: float
    threshold: float
    passed: bool
    unstable: bool
    failed_runs: list[str]
    cached_runs: int
    decision: str
    ci_low: float | None
    ci_high: float | None
    extra_runs: int
    runs_passed: int | None
    runs_needed: int | None


@dataclass(slots=True, frozen=True)
class KeptUsage:
    calls: int


@dataclass(slots=True, frozen=True)
class KeptRow:
    """What ``schema.items.Row`` reads of a row: no texts (ticket, response, reasonings...)."""

    nodeid: str
    id: str
    file: str
    line: int | None
    outcome: Outcome
    reason: str | None
    error: str | None
    flaky: bool
    attempt: int
    injection_suspected: bool
    label_disagreement: bool
    target_order: int | None
    cluster: str | None
    expected: dict[str, float]
    not_applicable: list[str]
    not_judged_offline: list[str]
    checks: list[CheckResult]
    usage: KeptUsage
    dimensions: dict[str, KeptDimension]

    @property
    def unstable(self) -> bool:
        return any(d.unstable for d in self.dimensions.values())

    @property
    def partial_runs(self) -> bool:
        return any(d.failed_runs for d in self.dimensions.values())

    @property
    def failed_checks(self) -> list[CheckResult]:
        return [check for check in self.checks if check.passed is False and not check.error]


def kept(row: ItemResult) -> KeptRow:
    """The row's kept record (its lists and checks shared, not copied)."""
    return KeptRow(
        **_taken(KeptRow, row, ("usage", "dimensions")),
        usage=KeptUsage(**_taken(KeptUsage, row.usage)),
        dimensions={name: _dimension(d) for name, d in row.dimensions.items()},
    )


def _dimension(dimension: DimensionResult) -> KeptDimension:
    return KeptDimension(**_taken(KeptDimension, dimension))


def _taken(
    record: type[KeptRow | KeptDimension | KeptUsage],
    model: ItemResult | DimensionResult | ItemUsage,
    leave: tuple[str, ...] = (),
) -> dict[str, Any]:
    return {name: getattr(model, name) for name in record.__slots__ if name not in leave}

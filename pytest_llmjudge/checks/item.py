"""An eval item's deterministic checks, in one call: the checks it has (the suite's, its
file's defaults, its own) applied to its response, and what follows for the item.

With ``llmjudge_checks_mode=first`` (the default) an item whose checks fail is failed and not
judged; with ``always`` it is judged too. An entry with ``"judge": false`` is checked only.
A check that could not be applied makes the item an error.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ..schema.items import CheckResult
from .apply import apply_checks
from .parse import CheckSpec


@dataclass(frozen=True)
class ItemChecks:
    """What one item is checked with, fixed at collection."""

    checks: tuple[CheckSpec, ...] = ()
    judge: bool = True  # false: checked only, no judge asked
    first: bool = True  # llmjudge_checks_mode=first: a failed check spares the judge
    saved_latency_ms: float | None = None  # a replayed response's, measured when it was saved

    @property
    def timed(self) -> bool:
        """Whether a check needs the response's latency (``max_latency_ms``)."""
        return any(check.kind == "max_latency_ms" for check in self.checks)

    @property
    def built_in(self) -> ItemChecks:
        """These checks without the user's ``python`` ones: pure, so they may be applied before
        the item (to decide whether to judge it ahead); the user's are applied in the item."""
        return replace(self, checks=tuple(c for c in self.checks if c.kind != "python"))

    @property
    def unmeasured(self) -> bool:
        """A latency check with no latency unless a live target measures one."""
        return self.timed and self.saved_latency_ms is None


@dataclass(frozen=True)
class Checked:
    """The item's checks applied to one response."""

    results: list[CheckResult] = field(default_factory=list)
    skips_judge: bool = False  # no judge request: checked only, or a check failed (first)

    @property
    def errors(self) -> list[CheckResult]:
        """The checks that could not be applied (the item is then an error)."""
        return [result for result in self.results if result.error]


NOT_CHECKED = ItemChecks()


def check_item(
    plan: ItemChecks, response: str, entry: Mapping[str, Any], latency_ms: float | None
) -> Checked:
    """Every check of the item on its response (none stops the others), and whether the
    judge is spared. ``entry``: the entry as a python check receives it."""
    results = apply_checks(plan.checks, response, entry, latency_ms)
    failed = any(result.passed is False for result in results)
    return Checked(results, not plan.judge or (failed and plan.first))

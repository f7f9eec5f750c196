"""Suite-level gates and the comparison with a baseline results file.

Pure functions over plain result rows (the dicts of the results JSON), so that they can be
tested without pytest and applied to any two results files.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .stats import interval_fields, paired_difference

NOT_DIMENSIONS = frozenset({"expected", "metadata"})
# Outcomes that count in the pass rate: judged items whose verdict gates the merge.
GATING = ("passed", "xpassed", "failed", "error")
# A drop is a regression only beyond this many points and beyond twice its standard error.
REGRESSION_FLOOR = 0.5
NOISE_FACTOR = 2.0
# Differences of means within this are a tie when deciding which run is better.
TIE_TOLERANCE = 0.01


@dataclass(frozen=True)
class Gate:
    name: str
    passed: bool
    actual: float | None
    required: float | None
    message: str


def row_dimensions(row: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """The judged dimensions of a result row: built-in and configured ones alike."""
    return {
        k: v
        for k, v in row.items()
        if k not in NOT_DIMENSIONS and isinstance(v, Mapping) and "score" in v
    }


def dimension_names(rows: Iterable[Mapping[str, Any]]) -> list[str]:
    """Every dimension judged in these rows, in first-seen order."""
    return list(dict.fromkeys(name for row in rows for name in row_dimensions(row)))


def judged(rows: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Rows with at least one judged dimension."""
    return [r for r in rows if row_dimensions(r)]


def suite_means(rows: Iterable[Mapping[str, Any]]) -> dict[str, float]:
    """Mean score per dimension over judged items that are not expected to fail (xfail)."""
    scores: dict[str, list[float]] = {}
    for row in rows:
        if row.get("outcome") == "xfailed":
            continue
        for name, dim in row_dimensions(row).items():
            scores.setdefault(name, []).append(float(dim["score"]))
    return {name: math.fsum(v) / len(v) for name, v in scores.items()}


def evaluate_gates(
    rows: Sequence[Mapping[str, Any]],
    min_pass_rate: float | None,
    min_mean: Mapping[str, float] | None,
    any_eval: bool,
) -> list[Gate]:
    """The suite gates; the first is always 'something was judged' (fail closed)."""
    gates: list[Gate] = []
    count = len(judged(rows))
    if any_eval:
        gates.append(
            Gate(
                "judged",
                count > 0,
                float(count),
                1.0,
                f"{count} eval items judged"
                if count
                else "no eval item was judged (all skipped, deselected or errors): "
                "nothing was measured, so the gate fails closed",
            )
        )
    gating = [r for r in rows if r.get("outcome") in GATING]
    if min_pass_rate is not None:
        passed = sum(1 for r in gating if r.get("outcome") in ("passed", "xpassed"))
        rate = passed / len(gating) if gating else 0.0
        ok = bool(gating) and rate >= min_pass_rate
        gates.append(
            Gate(
                "pass_rate",
                ok,
                round(rate, 4),
                min_pass_rate,
                f"pass rate {rate:.2f} {'>=' if ok else '<'} {min_pass_rate:g} "
                f"({passed} of {len(gating)} judged items passed"
                + ("" if ok else f"; short by {max(min_pass_rate - rate, 0):.2f}")
                + ")",
            )
        )
    means = suite_means(rows)
    for name, required in (min_mean or {}).items():
        actual = means.get(name)
        ok = actual is not None and actual >= required
        shown = "n/a" if actual is None else f"{actual:.2f}"
        gates.append(
            Gate(
                f"mean_{name}",
                ok,
                None if actual is None else round(actual, 4),
                required,
                f"mean {name} {shown} {'>=' if ok else '<'} {required:g}"
                + ("" if ok or actual is None else f" (short by {required - actual:.2f})"),
            )
        )
    return gates


@dataclass
class Change:
    nodeid: str
    dimension: str
    before: float
    after: float
    delta: float
    noise: float  # the drop that still counts as noise
    verdict: str  # improved, regressed, unchanged


@dataclass
class BaselineComparison:
    """This run against an earlier one, item by item and over the suite."""

    source: str
    compared: int = 0
    new: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    suite: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def regressions(self) -> list[Change]:
        return [c for c in self.changes if c.verdict == "regressed"]

    @property
    def improvements(self) -> list[Change]:
        return [c for c in self.changes if c.verdict == "improved"]

    def to_record(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "compared": self.compared,
            "new": self.new,
            "removed": self.removed,
            "regressed": len(self.regressions),
            "improved": len(self.improvements),
            "suite": self.suite,
            "changes": [asdict(c) for c in self.changes if c.verdict != "unchanged"],
        }


def load_baseline(path: Path) -> dict[str, dict[str, Mapping[str, Any]]]:
    """nodeid -> dimension -> {score, std, runs} from a results JSON; ValueError if not one."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"{path}: file not found") from None
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: not a readable results JSON ({exc})") from None
    rows = data.get("results") if isinstance(data, dict) else None
    if not isinstance(rows, list):
        raise ValueError(f"{path}: not a pytest-llmjudge results file (no 'results' list)")
    index: dict[str, dict[str, Mapping[str, Any]]] = {}
    for row in rows:
        if not isinstance(row, dict):
            continue
        key = row.get("nodeid") or f"{row.get('file')}::{row.get('id')}"
        dims = row_dimensions(row)
        if dims:
            index[str(key)] = dims
    return index


def compare_dimension(
    nodeid: str, name: str, before: Mapping[str, Any], after: Mapping[str, Any]
) -> Change:
    """A change counts when it exceeds REGRESSION_FLOOR and NOISE_FACTOR standard errors."""
    b_score, a_score = float(before["score"]), float(after["score"])
    b_n = max(len(before.get("runs") or []), 1)
    a_n = max(len(after.get("runs") or []), 1)
    se = math.sqrt(
        float(before.get("std") or 0) ** 2 / b_n + float(after.get("std") or 0) ** 2 / a_n
    )
    noise = max(REGRESSION_FLOOR, NOISE_FACTOR * se)
    delta = a_score - b_score
    verdict = "regressed" if delta < -noise else "improved" if delta > noise else "unchanged"
    return Change(
        nodeid,
        name,
        round(b_score, 4),
        round(a_score, 4),
        round(delta, 4),
        round(noise, 4),
        verdict,
    )


def compare_with_baseline(
    rows: Sequence[Mapping[str, Any]],
    baseline: Mapping[str, Mapping[str, Mapping[str, Any]]],
    source: str,
) -> BaselineComparison:
    current = {str(r["nodeid"]): r for r in judged(rows)}
    result = BaselineComparison(source=source)
    result.new = sorted(set(current) - set(baseline))
    result.removed = sorted(set(baseline) - set(current))
    deltas: dict[str, list[float]] = {}
    for nodeid in sorted(set(current) & set(baseline)):
        result.compared += 1
        for name, after in row_dimensions(current[nodeid]).items():
            before = baseline[nodeid].get(name)
            if before is None:
                continue
            change = compare_dimension(nodeid, name, before, after)
            result.changes.append(change)
            deltas.setdefault(name, []).append(change.delta)
    for name, values in deltas.items():
        mean, low, high = paired_difference(values)
        significant = not math.isinf(low) and (high < 0 or low > 0)
        interval = (
            "one item: no interval" if math.isinf(low) else f"95% CI {low:+.2f} to {high:+.2f}"
        )
        if significant and abs(mean) > TIE_TOLERANCE:
            direction = "better" if mean > 0 else "worse"
            statement = f"{name}: {direction} than the baseline by {abs(mean):.2f} ({interval})"
        else:
            statement = (
                f"{name}: no significant difference from the baseline "
                f"(mean change {round(mean, 2) + 0.0:+.2f}, {interval})"
            )
        result.suite[name] = {
            "items": len(values),
            "mean_delta": round(mean, 4),
            **interval_fields(low, high),
            "significant": significant,
            "statement": statement,
        }
    return result


def regression_messages(
    nodeid: str,
    judgments: Mapping[str, Mapping[str, Any]],
    baseline: Mapping[str, Mapping[str, Mapping[str, Any]]],
) -> list[str]:
    """One line per dimension of this item that regressed against the baseline."""
    before = baseline.get(nodeid)
    if not before:
        return []
    lines = []
    for name, after in judgments.items():
        if name in before:
            change = compare_dimension(nodeid, name, before[name], after)
            if change.verdict == "regressed":
                lines.append(
                    f"{name} regressed {change.before:.2f} -> {change.after:.2f} "
                    f"({change.delta:+.2f}, noise level {change.noise:.2f})"
                )
    return lines

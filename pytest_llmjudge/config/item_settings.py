"""What one item is judged with: the session settings, then its marker, then its eval entry.

One pure function, called once per item; pytest objects stay outside (the caller passes the
marker's arguments as plain values).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from .options import run_count, score_threshold


@dataclass(frozen=True)
class ItemSettings:
    """Runs and a threshold per dimension for one item."""

    runs: int
    thresholds: Mapping[str, float]


@dataclass(frozen=True)
class Overrides:
    """Per-item values that replace the session's: runs and thresholds, each optional."""

    runs: int | None = None
    thresholds: Mapping[str, float] | None = None


def marker_overrides(
    args: tuple[Any, ...], kwargs: Mapping[str, Any], dimensions: Collection[str]
) -> Overrides:
    """Validate ``@pytest.mark.llmjudge(runs=..., <dimension>=<threshold>)``; ValueError if bad."""
    known = ", ".join(["runs", *dimensions])
    if args:
        raise ValueError(f"@pytest.mark.llmjudge takes keyword arguments only ({known})")
    unknown = [name for name in kwargs if name != "runs" and name not in dimensions]
    if unknown:
        raise ValueError(
            f"@pytest.mark.llmjudge got unknown keyword {unknown[0]!r} (known: {known})"
        )
    values: dict[str, Any] = {}
    for name, value in kwargs.items():
        parse = run_count if name == "runs" else score_threshold
        try:
            values[name] = parse(value)
        except ValueError as exc:
            raise ValueError(f"@pytest.mark.llmjudge {name} {exc}") from None
    runs = values.pop("runs", None)
    return Overrides(runs, values)


def resolve_item_settings(
    runs: int, thresholds: Mapping[str, float], *layers: Overrides
) -> ItemSettings:
    """The session's runs and thresholds with each layer applied in turn (later ones win)."""
    merged = dict(thresholds)
    for layer in layers:
        runs = layer.runs or runs
        merged.update(layer.thresholds or {})
    return ItemSettings(runs, merged)

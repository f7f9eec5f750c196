"""Suite-level gates over the items of a results file: something judged, pass rate, means."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

from ..schema.results import Gate, ItemResult, LabelAgreement

# Outcomes that count in the pass rate: judged items whose verdict gates the merge.
GATING = ("passed", "xpassed", "failed", "error")


def dimension_names(items: Iterable[ItemResult]) -> list[str]:
    """Every dimension judged in these items, in first-seen order."""
    return list(dict.fromkeys(name for item in items for name in item.dimensions))


def measured(items: Iterable[ItemResult]) -> list[ItemResult]:
    """Items with at least one judged dimension or one deterministic check that decided
    (whatever their outcome): a failed check is a verdict as a low score is."""
    return [
        item
        for item in items
        if item.dimensions or any(check.passed is not None for check in item.checks)
    ]


def judged(items: Iterable[ItemResult]) -> list[ItemResult]:
    """Measured items whose outcome gates the merge: the base of the pass rate."""
    return [item for item in measured(items) if item.outcome in GATING]


def pass_rate(items: Iterable[ItemResult]) -> tuple[int, int]:
    """(passed, judged): judged items that passed (xpassed too), and all judged items."""
    base = judged(items)
    return sum(1 for item in base if item.outcome in ("passed", "xpassed")), len(base)


def suite_scores(items: Iterable[ItemResult]) -> dict[str, list[float]]:
    """Scores per dimension of judged items that are not expected to fail (xfail)."""
    scores: dict[str, list[float]] = {}
    for item in items:
        if item.outcome == "xfailed":
            continue
        for name, dim in item.dimensions.items():
            scores.setdefault(name, []).append(dim.score)
    return scores


def suite_means(items: Iterable[ItemResult]) -> dict[str, float]:
    """Mean score per dimension over judged items that are not expected to fail (xfail)."""
    return {name: math.fsum(v) / len(v) for name, v in suite_scores(items).items()}


def evaluate_gates(
    items: Sequence[ItemResult],
    min_pass_rate: float | None,
    min_mean: Mapping[str, float] | None,
) -> list[Gate]:
    """The suite gates; the first is always 'something was judged' (fail closed)."""
    count = len(measured(items))
    gates = [
        Gate(
            name="judged",
            passed=count > 0,
            actual=float(count),
            required=1.0,
            message=f"{count} eval items judged"
            if count
            else "no eval item was judged (all skipped, deselected or errors): "
            "nothing was measured, so the gate fails closed",
        )
    ]
    if min_pass_rate is not None:
        gates.append(_pass_rate_gate(items, min_pass_rate))
    means = suite_means(items)
    for name, required in (min_mean or {}).items():
        actual = means.get(name)
        ok = actual is not None and actual >= required
        shown = "n/a" if actual is None else f"{actual:.2f}"
        gates.append(
            Gate(
                name=f"mean.{name}",  # the key written in llmjudge_gates
                passed=ok,
                actual=None if actual is None else round(actual, 4),
                required=required,
                message=f"mean {name} {shown} {'>=' if ok else '<'} {required:g}"
                + ("" if ok or actual is None else f" (short by {required - actual:.2f})"),
            )
        )
    return gates


def agreement_gates(
    labels: Mapping[str, LabelAgreement], minimums: Mapping[str, float] | None
) -> list[Gate]:
    """``llmjudge_gates agreement``: each metric on each labelled dimension (fail closed)."""
    if not minimums:
        return []
    if not labels:
        return [
            Gate(
                name="agreement",
                passed=False,
                actual=None,
                required=None,
                message="agreement with human labels: no dimension has 5 labelled, judged items",
            )
        ]
    gates = []
    for dimension, agreement in labels.items():
        for metric, required in minimums.items():
            actual = getattr(agreement, metric)
            ok = actual is not None and actual >= required
            shown = "n/a" if actual is None else f"{actual:.2f}"
            gates.append(
                Gate(
                    name=f"{metric}.{dimension}",
                    passed=ok,
                    actual=actual,
                    required=required,
                    message=f"{dimension} {metric} with human labels {shown} "
                    f"{'>=' if ok else '<'} {required:g} (n={agreement.n})",
                )
            )
    return gates


def _pass_rate_gate(items: Sequence[ItemResult], required: float) -> Gate:
    passed, total = pass_rate(items)
    rate = passed / total if total else 0.0
    ok = bool(total) and rate >= required
    return Gate(
        name="pass_rate",
        passed=ok,
        actual=round(rate, 4),
        required=required,
        message=f"pass rate {rate:.2f} {'>=' if ok else '<'} {required:g} "
        f"({passed} of {total} judged items passed"
        + ("" if ok else f"; short by {max(required - rate, 0):.2f}")
        + ")",
    )

"""Suite-level gates over the items of a results file: something judged, pass rate, means.

Each has an estimate, a 95% interval and a decision (``stats``); every one counts the same
judged items (``judged``)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TypeVar

from ..schema.results import Gate, LabelAgreement, Row, Summary
from .stats import Estimate, bound_decision, interval_fields, mean_estimate, wilson_interval

R = TypeVar("R", bound=Row)

# Outcomes that count in the pass rate: judged items whose verdict gates the merge.
GATING = ("passed", "xpassed", "failed", "error")


def dimension_names(items: Iterable[Row]) -> list[str]:
    """Every dimension judged in these items, in first-seen order."""
    return list(dict.fromkeys(name for item in items for name in item.dimensions))


def measured(items: Iterable[R]) -> list[R]:
    """Items with at least one judged dimension or one deterministic check that decided
    (whatever their outcome): a failed check is a verdict as a low score is."""
    return [
        item
        for item in items
        if item.dimensions or any(check.passed is not None for check in item.checks)
    ]


def judged(items: Iterable[R]) -> list[R]:
    """Measured items whose outcome gates the merge: the base of the pass rate."""
    return [item for item in measured(items) if item.outcome in GATING]


def pass_rate(items: Iterable[Row]) -> tuple[int, int]:
    """(passed, judged): judged items that passed (xpassed too), and all judged items."""
    base = judged(items)
    return sum(1 for item in base if item.outcome in ("passed", "xpassed")), len(base)


def summarize(items: Sequence[Row], skipped_invalid: int, errors: int, invalid: int = 0) -> Summary:
    """The summary's counts; its judged items are those every gate counts (``judged``).
    ``skipped_invalid``: invalid entries marked skip; ``invalid``: the others (counted in
    ``errors`` too, as pytest and JUnit count them)."""
    counts = {
        o: sum(1 for i in items if i.outcome == o)
        for o in ("passed", "failed", "skipped", "xfailed", "xpassed", "flaky_failed")
    }
    counts["skipped"] += skipped_invalid
    flagged = ("flaky", "unstable", "partial_runs", "not_applicable", "not_judged_offline")
    marked = {f: sum(1 for i in items if getattr(i, f)) for f in (*flagged, "injection_suspected")}
    passed, judged = pass_rate(items)
    return Summary(
        passed_on_rerun=sum(1 for i in items if i.outcome == "passed" and i.attempt > 1),
        total=sum(counts.values()) + errors,
        errors=errors,
        invalid=invalid,
        judged=judged,
        pass_rate=round(passed / judged, 4) if judged else None,
        **counts,
        **marked,
    )


def suite_scores(items: Iterable[Row]) -> dict[str, list[float]]:
    """Scores per dimension of the judged items (``judged``: an xfail's low score is expected,
    so it does not pull the mean down)."""
    scores: dict[str, list[float]] = {}
    for item in judged(items):
        for name, dim in item.dimensions.items():
            scores.setdefault(name, []).append(dim.score)
    return scores


def suite_means(items: Iterable[Row]) -> dict[str, float]:
    """Mean score per dimension over the judged items."""
    return {name: math.fsum(v) / len(v) for name, v in suite_scores(items).items()}


def suite_estimates(items: Iterable[Row]) -> dict[str, Estimate]:
    """Per dimension, the mean over judged items of each item's mean of runs, with its SE
    (clustered where entries name clusters)."""
    per_dimension: dict[str, tuple[list[float], list[str | None]]] = {}
    for item in judged(items):
        for name, dim in item.dimensions.items():
            scores, clusters = per_dimension.setdefault(name, ([], []))
            scores.append(dim.score)
            clusters.append(item.cluster)
    return {name: mean_estimate(s, c) for name, (s, c) in per_dimension.items()}


def interval_note(items: Iterable[Row]) -> str | None:
    """What a suite's intervals rest on beyond runs judged afresh in this session: runs read
    from the cache repeat earlier judgments, and runs added where an item looked undecided
    (--judge-runs N..M) were not added elsewhere; either can make an interval too narrow."""
    dims = [dim for item in judged(items) for dim in item.dimensions.values()]
    runs = sum(len(dim.runs) for dim in dims)
    cached = sum(dim.cached_runs for dim in dims)
    added = sum(dim.extra_runs for dim in dims)
    said = []
    if cached:
        said.append(f"{cached} of {runs} runs read from the cache (earlier judgments repeated)")
    if added:
        said.append(f"{added} of {runs} runs added where items looked undecided")
    if not said:
        return None
    return "; ".join(said) + ": the interval may understate the variation between sessions"


def evaluate_gates(
    items: Sequence[Row],
    min_pass_rate: float | None,
    min_mean: Mapping[str, float] | None,
    undecided: str = "point",
) -> list[Gate]:
    """The suite gates; the first is always 'something was judged' (fail closed)."""
    count = len(judged(items))
    gates = [
        Gate(
            name="judged",
            passed=count > 0,
            actual=float(count),
            required=1.0,
            decision="pass" if count else "fail",
            n=count,
            message=f"{count} eval items judged"
            if count
            else "no eval item was judged (all skipped, deselected or errors): "
            "nothing was measured, so the gate fails closed",
        )
    ]
    note = interval_note(items)
    if min_pass_rate is not None:
        gates.append(_pass_rate_gate(items, min_pass_rate, undecided))
    estimates = suite_estimates(items)
    for name, required in (min_mean or {}).items():
        gates.append(_mean_gate(name, estimates.get(name), required, undecided, note))
    return gates


def bound_gate(
    name: str, what: str, estimate: float | None, interval: tuple[float, float] | None,
    required: float, undecided: str, detail: str = "",
) -> Gate:  # fmt: skip
    """A gate on "``what`` is at least ``required``": decided by its 95% interval (the
    estimate alone when it has none); an undecided one counts as ``undecided`` says
    (point: by the estimate, pass, fail). The message says all of it."""
    if estimate is None:
        said = f"{what} n/a: nothing judged to measure it (required {required:g})"
        return Gate(
            name=name, passed=False, actual=None, required=required, decision="fail", message=said
        )
    low, high = interval or (estimate, estimate)
    by_estimate = estimate >= required
    if interval is None:
        decision = "pass" if by_estimate else "fail"
    else:
        decision = bound_decision(low, high, required)
    passed = decision == "pass" or (
        decision == "undecided" and {"point": by_estimate, "pass": True}.get(undecided, False)
    )
    shown = [detail] if detail else []
    if interval is not None:
        shown.append("one item: no interval" if math.isinf(low) else f"95% CI {low:.2f}-{high:.2f}")
    said = {
        "pass": "pass",
        "fail": "fail" + f", short by {required - estimate:.2f}" * (not by_estimate),
        "undecided": f"undecided, counted as {'passed' if passed else 'failed'} "
        f"(undecided={undecided})",
    }[decision]
    fields = interval_fields(low, high) if interval else {"ci_low": None, "ci_high": None}
    return Gate(
        name=name,
        passed=passed,
        actual=round(estimate, 4),
        required=required,
        decision=decision,  # type: ignore[arg-type]
        ci_low=fields["ci_low"],
        ci_high=fields["ci_high"],
        message=f"{what} {estimate:.2f} {'>=' if by_estimate else '<'} {required:g} "
        f"({'; '.join(shown)}): {said}",
    )


def agreement_gates(
    labels: Mapping[str, LabelAgreement],
    minimums: Mapping[str, float] | None,
    undecided: str = "point",
) -> list[Gate]:
    """``llmjudge_gates agreement``: each metric on each labelled dimension (fail closed),
    decided on its 95% interval as the other gates; each says the labels it rests on and about
    how many a ± 0.1 interval would need."""
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
            interval = getattr(agreement, f"{metric}_ci")
            what = f"{dimension} {metric} with human labels"
            if actual is None:  # judge or labels all one score: no correlation to measure
                said = f"{what} n/a: undefined on {agreement.n} labels (one side does not vary)"
                gates.append(
                    Gate(name=f"{metric}.{dimension}", passed=False, actual=None,
                         required=required, decision="fail", n=agreement.n, message=said)
                )  # fmt: skip
                continue
            if interval is None:
                detail = f"no interval from {agreement.n} labels"
            else:
                detail = (
                    f"{agreement.n} labels; about {interval.labels_for_0_1} labels needed for ±0.1"
                )
            bounds = None if interval is None else (interval.ci_low, interval.ci_high)
            gate = bound_gate(
                f"{metric}.{dimension}", what, actual, bounds, required, undecided, detail
            )
            gate.n = agreement.n
            gates.append(gate)
    return gates


def _pass_rate_gate(items: Sequence[Row], required: float, undecided: str) -> Gate:
    """Passed of judged items, with Wilson's interval (right at 30 items and at 30/30, where
    a normal interval would be empty)."""
    passed, total = pass_rate(items)
    if not total:
        return bound_gate("pass_rate", "pass rate", None, None, required, undecided)
    detail = f"{passed} of {total} judged items passed"
    interval = wilson_interval(passed, total)
    gate = bound_gate(
        "pass_rate", "pass rate", passed / total, interval, required, undecided, detail
    )
    gate.n = total
    return gate


def _mean_gate(
    name: str, estimate: Estimate | None, required: float, undecided: str, note: str | None
) -> Gate:
    """A dimension's suite mean over judged items, with Student's t interval over entries
    (clustered where entries name clusters)."""
    if estimate is None:
        return bound_gate(f"mean.{name}", f"mean {name}", None, None, required, undecided)
    over = f"over {estimate.n} items" + (
        f" in {estimate.clusters} clusters" if estimate.clusters else ""
    )
    gate = bound_gate(
        f"mean.{name}", f"mean {name}", estimate.value, estimate.interval(), required, undecided,
        over,
    )  # fmt: skip
    gate.n, gate.clusters, gate.note = estimate.n, estimate.clusters, note
    gate.message += f"; {note}" if note else ""
    return gate

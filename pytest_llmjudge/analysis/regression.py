"""The regression gate's tests: is this session worse than the baseline, beyond chance?

It is red when a dimension's mean paired change over the suite is significantly below zero,
or when one item's drop is significant after Holm's correction across every item and
dimension compared: 5% shared between the two, so that with nothing changed the gate is red
in at most 5% of sessions (benchmarks/sim_regression_gate.py measures it). A check that
passed in the baseline and fails now has regressed, whatever the noise.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from ..schema.results import BaselineResult, Change, Gate, Scores, SuiteChange
from .stats import (
    Estimate,
    detectable_difference,
    difference_of_means,
    holm,
    interval_fields,
    pooled_variance,
    robust_spread,
)

# The regression gate is wrong at most 5% of the time when nothing changed: half of it for
# the suite means (Holm over the dimensions), half for items (Holm over items x dimensions).
SUITE_ALPHA = ITEM_ALPHA = 0.025
# A drop this likely (one-sided p) or, where an entry's noise is unknown, this large is
# shown as a possible regression; it never fails the gate.
POSSIBLE = 0.05
REGRESSION_FLOOR = 0.5
# Differences of means within this are a tie when deciding which run is better.
TIE_TOLERANCE = 0.01
CHECK = "check: "  # a deterministic check compared as a score of 1 (passed) or 0 (failed)
POWER = 0.8  # of the detectable difference said
SPREAD_FROM = 5  # items: fewer say too little of the spread of their changes

# (node id, dimension, before, after)
Compared = tuple[str, str, Scores, Scores]


def _sides(pairs: Sequence[Compared]) -> list[tuple[str, Scores, Scores]]:
    return [(name, before, after) for _, name, before, after in pairs]


def item_changes(pairs: Sequence[Compared]) -> list[Change]:
    """Each item's dimension against the baseline. A check that passed and fails now has
    regressed. A judged dimension with runs on both sides is tested for a drop (and a rise)
    with its runs' variance, the larger of its own and its dimension's pooled over the items
    (so that runs that happened to agree are not taken for no noise), and Holm's correction
    across every item and dimension compared at ITEM_ALPHA. With one run a side its noise is
    unknown: a drop of REGRESSION_FLOOR or more is shown as possible, never gated alone.
    From SPREAD_FROM items, the spread of all items' changes on the dimension bounds the noise
    from below too: it holds what moves between sessions, which one session's runs cannot
    show."""
    spreads = _spreads(pairs)
    pooled = {
        (name, side): pooled_variance(
            [(pair[side].std, len(pair[side].runs)) for n, *pair in _sides(pairs) if n == name]
        )
        for name in {pair[1] for pair in pairs}
        for side in (0, 1)
    }
    tests: list[tuple[int, Estimate]] = []
    changes: list[Change] = []
    for nodeid, name, before, after in pairs:
        change = Change(
            nodeid=nodeid,
            dimension=name,
            before=round(before.score, 4),
            after=round(after.score, 4),
            delta=round(after.score - before.score, 4),
            verdict="unchanged",
        )
        if name.startswith(CHECK):
            if change.delta:
                change.verdict = "regressed" if change.delta < 0 else "improved"
        elif min(len(before.runs), len(after.runs)) > 1:
            (var_b, df_b), (var_a, df_a) = pooled[(name, 0)], pooled[(name, 1)]
            estimate = difference_of_means(
                before.score, max(before.std**2, var_b), len(before.runs),
                after.score, max(after.std**2, var_a), len(after.runs), min(df_b, df_a),
                spreads.get(name),
            )  # fmt: skip
            tests.append((len(changes), estimate))
        elif change.delta <= -REGRESSION_FLOOR:
            change.verdict = "possible regression"
        changes.append(change)
    _decide_items(changes, tests)
    return changes


def _spreads(pairs: Sequence[Compared]) -> dict[str, tuple[float, int]]:
    """Per judged dimension with SPREAD_FROM items or more, the spread of the items' changes
    (robust: a few items that really dropped do not widen it) and its df."""
    changes: dict[str, list[float]] = {}
    for _, name, before, after in pairs:
        if not name.startswith(CHECK):
            changes.setdefault(name, []).append(after.score - before.score)
    return {
        name: (robust_spread(c), len(c) - 1) for name, c in changes.items() if len(c) >= SPREAD_FROM
    }


def _decide_items(changes: list[Change], tests: Sequence[tuple[int, Estimate]]) -> None:
    """Holm's correction over the drops (and apart, over the rises) of every item tested."""
    drops = [estimate.p_below(0.0) or 0.0 for _, estimate in tests]
    rises = [1.0 - p for p in drops]
    for (index, estimate), p_drop, p_rise, dropped, rose in zip(
        tests, drops, rises, holm(drops, ITEM_ALPHA), holm(rises, ITEM_ALPHA), strict=True
    ):
        change = changes[index]
        change.p_value = float(f"{min(p_drop, p_rise):.3g}")
        if dropped:
            change.verdict = "regressed"
        elif rose:
            change.verdict = "improved"
        elif estimate.value < 0 and p_drop < POSSIBLE:
            change.verdict = "possible regression"


def suite_changes(estimates: Mapping[str, Estimate]) -> dict[str, SuiteChange]:
    """Each dimension's mean paired change (Miller Eq. 7, clustered Eq. 8), tested for a
    drop with Holm's correction over the dimensions at SUITE_ALPHA, and the drop that test
    would find with 80% power (Miller Eq. 10, from the observed per-entry differences: their
    variance is ω² + σ²_A/K_A + σ²_B/K_B at this suite's runs per entry)."""
    p_drops = {name: e.p_below(0.0) for name, e in estimates.items()}
    tested = [name for name, p in p_drops.items() if p is not None]
    dropped = dict(zip(tested, holm([p_drops[n] or 0.0 for n in tested], SUITE_ALPHA), strict=True))
    level = SUITE_ALPHA / max(len(tested), 1)  # one-sided, the first of Holm's steps
    return {
        name: _suite_change(name, e, p_drops[name], dropped.get(name, False), level)
        for name, e in estimates.items()
    }


def _suite_change(
    name: str, estimate: Estimate, p_drop: float | None, regressed: bool, level: float
) -> SuiteChange:
    low, high = estimate.interval()
    significant = not math.isinf(low) and (high < 0 or low > 0)
    detectable = (
        None
        if estimate.se is None
        else detectable_difference(estimate.se, 2 * level, POWER, estimate.df)
    )
    return SuiteChange(
        items=estimate.n,
        mean_delta=round(estimate.value, 4),
        **interval_fields(low, high),
        significant=significant,
        p_drop=None if p_drop is None else float(f"{p_drop:.3g}"),
        regressed=regressed,
        detectable=None if detectable is None else round(detectable, 4),
        clusters=estimate.clusters,
        statement=_statement(name, estimate, p_drop, regressed, level, detectable),
    )


def _statement(
    name: str, estimate: Estimate, p_drop: float | None, regressed: bool, level: float,
    detectable: float | None,
) -> str:  # fmt: skip
    """``relevance: no significant difference from the baseline (mean change -0.05, 95% CI
    -0.21 to +0.11); this suite can detect drops of 0.41 or more (80% power)``."""
    low, high = estimate.interval()
    mean = estimate.value
    clusters = f", {estimate.clusters} clusters" if estimate.clusters else ""
    interval = (
        "no interval: one item" + " or cluster" * bool(estimate.clusters)
        if math.isinf(low)
        else f"95% CI {low:+.2f} to {high:+.2f}{clusters}"
    )
    can = (
        ""
        if detectable is None
        else (f"; this suite can detect drops of {detectable:.2f} or more ({POWER:.0%} power)")
    )
    if regressed:
        return (
            f"{name}: worse than the baseline by {abs(mean):.2f} ({interval}; p = {p_drop:.2g} "
            "for a drop): a regression"
        )
    if not math.isinf(low) and low > 0 and mean > TIE_TOLERANCE:
        return f"{name}: better than the baseline by {abs(mean):.2f} ({interval})"
    if p_drop is not None and mean < 0 and p_drop < POSSIBLE:
        return (
            f"{name}: possible regression: mean change {mean:+.2f} ({interval}), not "
            f"significant at the regression gate's level (p = {p_drop:.2g} for a drop, it "
            f"needs {level:.2g}){can}"
        )
    return (
        f"{name}: no significant difference from the baseline "
        f"(mean change {round(mean, 2) + 0.0:+.2f}, {interval}){can}"
    )


#: items named in the regression gate's message at most (the results JSON lists them all)
NAMED = 5


def regression_gate(result: BaselineResult) -> Gate:
    """``llmjudge_gates regression``: red on a dimension's significant suite drop or an
    item's significant drop (Holm), the 5% shared between the two (SUITE_ALPHA, ITEM_ALPHA),
    or on a check that passed in the baseline and fails now."""
    if not result.comparable:
        return Gate(
            name="regression", passed=True, actual=None, required=None,
            message=f"regression not checked: another judge made the baseline ({result.mismatch})",
        )  # fmt: skip
    dims = [
        f"{name} {c.mean_delta:+.2f} (p = {c.p_drop:.2g})"
        for name, c in result.suite.items()
        if c.regressed
    ]
    items = [
        f"{c.nodeid} {c.dimension.removeprefix(CHECK)} {c.before:.2f} -> {c.after:.2f}"
        + (f" (p = {c.p_value:.2g})" if c.p_value is not None else " (check)")
        for c in result.changes
        if c.verdict == "regressed"
    ]
    said = []
    if dims:
        said.append("suite mean dropped: " + ", ".join(dims))
    if items:
        more = f" and {len(items) - NAMED} more" if len(items) > NAMED else ""
        said.append(f"{len(items)} regressed: " + ", ".join(items[:NAMED]) + more)
    possible = f"; {result.possible} possible regressions shown, not significant" * bool(
        result.possible
    )
    if said:
        message = "regression against the baseline: " + "; ".join(said)
    else:
        changes = ", ".join(f"{name} {c.mean_delta:+.2f}" for name, c in result.suite.items())
        changes = changes or "nothing compared"
        message = f"no significant regression against the baseline ({changes}){possible}"
    return Gate(
        name="regression",
        passed=not said,
        actual=float(len(dims) + len(items)),
        required=0.0,
        decision="fail" if said else "pass",
        n=result.compared,
        note=result.note,
        message=message + (f"; {result.note}" if result.note else ""),
    )

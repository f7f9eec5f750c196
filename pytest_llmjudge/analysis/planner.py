"""How many entries and runs a regression gate needs: Miller's Eq. 9 with a results file's
spreads (``python -m pytest_llmjudge plan RESULTS``).

Per dimension: σ², the judge's variance between runs of one entry (pooled over entries); s²,
the variance of the entries' means; ω², the variance of the true per-entry changes, observed
against a baseline, else taken as the entries' own true spread (s² - σ²/K, as if a change moved
entries as unevenly as they differ). The entries needed at K runs a side are
n = (z(1 - a/2) + z(power))² (ω² + 2·σ²/K) / d²; runs beyond K shrink only 2·σ²/K, so once that is
small beside ω², entries buy more than runs.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ..schema.results import ItemResult, ResultsFile
from . import stats
from .gates import dimension_names, judged

ALPHA, POWER = 0.05, 0.8


@dataclass(frozen=True)
class Spreads:
    """What one dimension's results show: entries, runs per entry and the variances."""

    dimension: str
    entries: int
    runs: int  # the most common runs per entry
    run_variance: float | None  # σ², pooled; None: unknown (one run each, an LLM judge)
    run_df: int
    entry_variance: float  # s², of the entries' means
    omega2: float
    omega_from: str  # how ω² was found


@dataclass(frozen=True)
class Plan:
    spreads: Spreads
    drop: float
    needed: dict[int, int]  # runs per entry -> entries needed
    floor: int  # entries needed with unlimited runs (ω² alone)


def _by_dimension(items: Sequence[ItemResult], name: str) -> dict[str, tuple[float, float, int]]:
    return {
        item.nodeid: (dim.score, dim.std, len(dim.runs))
        for item in judged(items)
        if (dim := item.dimensions.get(name)) is not None
    }


def spreads(results: ResultsFile, name: str, baseline: ResultsFile | None = None) -> Spreads | None:
    """One dimension's spreads; None when fewer than two entries were judged on it."""
    rows = _by_dimension(results.results, name)
    if len(rows) < 2:
        return None
    runs = Counter(k for _, _, k in rows.values()).most_common(1)[0][0]
    variance, df = stats.pooled_variance([(std, k) for _, std, k in rows.values()])
    run_variance: float | None = variance
    if df == 0:  # one run each: the offline judge scores every run alike; an LLM's is unknown
        run_variance = None if results.meta.llm else 0.0
    entry_variance = statistics.variance([score for score, _, _ in rows.values()])
    omega2 = stats.true_spread(entry_variance, run_variance or 0.0, runs)
    omega_from = "s² - σ²/K: taken as the spread of per-entry changes (--baseline observes it)"
    before = _by_dimension(baseline.results, name) if baseline else {}
    paired = [(rows[node], before[node]) for node in rows if node in before]
    if len(paired) >= 2:
        changes = statistics.variance([after[0] - earlier[0] for after, earlier in paired])
        earlier_var, _ = stats.pooled_variance([(std, k) for _, std, k in before.values()])
        earlier_runs = Counter(k for _, _, k in before.values()).most_common(1)[0][0]
        noise = (run_variance or 0.0) / runs + earlier_var / earlier_runs
        omega2 = max(0.0, changes - noise)
        omega_from = (
            f"observed: the variance of {len(paired)} per-entry changes less the runs' share"
        )
    return Spreads(name, len(rows), runs, run_variance, df, entry_variance, omega2, omega_from)


def plan(found: Spreads, drop: float) -> Plan:
    """Entries needed to detect ``drop`` at 80% power, two-sided 5% (Miller Eq. 9), at 1, 2,
    K, 2K runs per entry (K: the results file's), and with unlimited runs."""
    noise = found.run_variance or 0.0
    counts = sorted({1, 2, found.runs, 2 * found.runs})
    needed = {
        k: max(2, stats.sample_size(drop, found.omega2, noise, noise, k, k, ALPHA, POWER))
        for k in counts
    }
    floor = max(2, stats.sample_size(drop, found.omega2, 0.0, 0.0, 1, 1, ALPHA, POWER))
    return Plan(found, drop, needed, floor)


def plan_lines(results: ResultsFile, drop: float, baseline: ResultsFile | None = None) -> list[str]:
    """The planner's answer, one block per dimension."""
    z = stats.NORMAL.inv_cdf(1 - ALPHA / 2) + stats.NORMAL.inv_cdf(POWER)
    lines = [
        f"entries needed to detect a drop of {drop:g} at {POWER:.0%} power, two-sided "
        f"{ALPHA:.0%} (Miller Eq. 9): n = {z:.4f}² (ω² + 2·σ²/K) / d², K runs per entry a side"
    ]
    for name in dimension_names(judged(results.results)):
        found = spreads(results, name, baseline)
        if found is None:
            lines.append(f"{name}: fewer than 2 judged entries: nothing to plan from")
            continue
        lines += _dimension_lines(plan(found, drop))
    return lines


def _dimension_lines(p: Plan) -> list[str]:
    s = p.spreads
    if s.run_variance is None:
        sigma = "σ² unknown (one run per entry): taken as 0, so these are lower bounds"
    elif s.run_df == 0:
        sigma = "σ² = 0 (the offline judge scores every run of an entry alike)"
    else:
        sigma = f"σ² = {s.run_variance:.4f} (between runs, pooled, {s.run_df} df)"
    head = (
        f"{s.dimension}: {s.entries} entries x {s.runs} run{'s' * (s.runs > 1)}; {sigma}; "
        f"s² = {s.entry_variance:.4f} (entries' means); ω² = {s.omega2:.4f} ({s.omega_from})"
    )
    if s.omega2 == 0 and not s.run_variance:
        still = (
            f"  nothing varies here (every entry's runs alike, entries' means alike): Eq. 9 has "
            f"no spread to plan from, and a drop of {p.drop:g} in every entry would show with "
            "any entries; a judge whose runs vary, or --baseline, gives spreads to plan from"
        )
        return [head, still]
    have = p.needed[s.runs]
    enough = "enough" if have <= s.entries else f"add {have - s.entries}"
    others = ", ".join(f"{n} at {k} run{'s' * (k > 1)}" for k, n in p.needed.items() if k != s.runs)
    counts = (
        f"  needs {have} entries at {s.runs} run{'s' * (s.runs > 1)} (have {s.entries}: "
        f"{enough}); {others}; with unlimited runs {p.floor}"
    )
    share = stats.runs_share(s.run_variance or 0.0, s.runs)
    if s.run_variance is None:
        verdict = (
            "  runs or entries: unknown until the judge's noise is seen (--judge-runs 2 or more)"
        )
    elif share > s.omega2:
        cut = 1 - p.needed[2 * s.runs] / have if have else 0.0
        verdict = (
            f"  more runs buy more: the judge's noise 2·σ²/K = {share:.4f} is above ω² = "
            f"{s.omega2:.4f} (doubling runs cuts the entries needed by {cut:.0%})"
        )
    else:
        verdict = (
            f"  more entries buy more: the judge's noise 2·σ²/K = {share:.4f} is at or below ω² = "
            f"{s.omega2:.4f} (runs beyond {s.runs} cut at most {have - p.floor} of {have} entries)"
        )
    return [head, counts, verdict]

"""A/B (or A/B/C...) comparison of targets that answered the same eval entries.

Everything is derived from the judged scores: the winner of an entry is the target with the
highest combined score (mean over dimensions of the per-dimension means), a tie when the best
two are within the tie tolerance; never a judge's self-report.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from ..basics.wording import counted
from ..schema.results import (
    ComparedEntry,
    ItemResult,
    ScoreSummary,
    Significance,
    TargetComparison,
    TargetOverall,
    TargetScores,
)
from .gates import dimension_names
from .pairwise import pairwise_runs_text
from .stats import interval_fields, paired_difference

TIE = "tie"


def _combined(dims: Mapping[str, ScoreSummary]) -> float:
    return math.fsum(d.score for d in dims.values()) / len(dims)


def _winner(scores: Mapping[str, float], tolerance: float) -> str:
    ranked = sorted(scores.items(), key=lambda kv: kv[1], reverse=True)
    if len(ranked) > 1 and ranked[0][1] - ranked[1][1] <= tolerance:
        return TIE
    return ranked[0][0]


def _scores(item: ItemResult, dims: Sequence[str], complete: bool) -> TargetScores:
    judged = {d: item.dimensions[d] for d in dims if d in item.dimensions}
    summaries = {d: ScoreSummary(score=v.score, runs=v.runs, std=v.std) for d, v in judged.items()}
    decided = [check for check in item.checks if check.passed is not None]
    return TargetScores(
        outcome=item.outcome,
        answer=item.answer,
        error=item.error,
        combined=round(_combined(judged), 4) if complete else None,
        checks_passed=sum(1 for check in decided if check.passed),
        checks=len(decided),
        **summaries,
    )


def _not_applying(items: Iterable[ItemResult], dims: Sequence[str]) -> list[str]:
    """The dimensions that do not apply to an entry (correctness without a reference): left
    out of its comparison, which is over the others. Correctness judged by default (not
    configured) is not listed as not applicable: an entry without a reference that no target
    was judged on has none."""
    items = list(items)
    unreferenced = all(item.reference is None for item in items)
    return [
        d
        for d in dims
        if any(d in item.not_applicable for item in items)
        or (unreferenced and all(d not in item.dimensions for item in items))
    ]


def _entry(
    key: str,
    per_target: Mapping[str, ItemResult],
    targets: Sequence[str],
    tolerance: float,
    dims: Sequence[str],
) -> ComparedEntry:
    left_out = _not_applying(per_target.values(), dims)
    dims = [d for d in dims if d not in left_out]
    complete = {
        t for t, item in per_target.items() if dims and all(d in item.dimensions for d in dims)
    }
    judged = {t: per_target[t].dimensions for t in targets if t in complete}
    any_item = next(iter(per_target.values()))
    entry = ComparedEntry(
        key=key,
        id=any_item.id,
        ticket=any_item.ticket,
        targets={t: _scores(item, dims, t in complete) for t, item in per_target.items()},
        dimensions=dims,
        left_out=left_out,
    )
    if len(judged) < 2:
        unjudged = sorted(set(per_target) - complete)
        entry.note = (
            f"fewer than two targets were judged on {', '.join(dims) or 'any dimension'} "
            f"(not judged: {', '.join(unjudged) or 'none'}): no winner"
        )
        return entry
    entry.winner = _winner({t: _combined(d) for t, d in judged.items()}, tolerance)
    # Per run i: each target's combined score of its i-th runs; the majority of those winners.
    runs = min(len(d[name].runs) for d in judged.values() for name in dims)
    per_run = [
        _winner(
            {t: math.fsum(d[name].runs[i] for name in dims) / len(dims) for t, d in judged.items()},
            tolerance,
        )
        for i in range(runs)
    ]
    majority, votes = Counter(per_run).most_common(1)[0] if per_run else (entry.winner, 0)
    entry.majority_winner = majority
    entry.run_winners = per_run
    entry.agreement = round(votes / len(per_run), 4) if per_run else None
    entry.disagreement = majority != entry.winner
    return entry


def _significance(entries: Sequence[ComparedEntry], a: str, b: str, dimension: str) -> Significance:
    deltas = []
    for entry in entries:
        ta, tb = entry.targets.get(a), entry.targets.get(b)
        if ta is None or tb is None:
            continue
        if dimension == "combined":
            if ta.combined is not None and tb.combined is not None:
                deltas.append(ta.combined - tb.combined)
        elif dimension in ta.dimensions and dimension in tb.dimensions:
            deltas.append(ta.dimensions[dimension].score - tb.dimensions[dimension].score)
    if not deltas:
        return Significance(
            a=a,
            b=b,
            dimension=dimension,
            items=0,
            statement=f"{a} vs {b} on {dimension}: nothing to compare",
        )
    mean, low, high = paired_difference(deltas)
    half = None if math.isinf(low) else (high - low) / 2
    significant = half is not None and (low > 0 or high < 0)
    if significant:
        better, worse = (a, b) if mean > 0 else (b, a)
        statement = (
            f"{better} better than {worse} on {dimension} by {abs(mean):.2f} ± {half:.2f} (95% CI)"
        )
    else:
        spread = "no interval from one entry" if half is None else f"± {half:.2f}"
        statement = (
            f"{a} vs {b} on {dimension}: no significant difference ({mean + 0.0:+.2f} {spread})"
        )
    return Significance(
        a=a,
        b=b,
        dimension=dimension,
        items=len(deltas),
        mean_difference=round(mean, 4),
        **interval_fields(low, high),
        significant=significant,
        statement=statement,
    )


def _overall(
    target: str,
    decided: Sequence[ComparedEntry],
    dims: Sequence[str],
    entries: Sequence[ComparedEntry] = (),
) -> TargetOverall:
    wins = sum(1 for e in decided if e.winner == target)
    ties = sum(1 for e in decided if e.winner == TIE)
    losses = len(decided) - wins - ties
    answered = [e.targets[target] for e in entries if target in e.targets]
    judged = [t for t in answered if t.combined is not None]
    # the means of the entries compared; where none was, of the entries it was judged on
    scored = [e.targets[target] for e in decided if target in e.targets] or judged
    means = {d: [t.dimensions[d].score for t in scored if d in t.dimensions] for d in dims}

    def percent(count: int) -> float | None:
        return round(100 * count / len(decided), 1) if decided else None

    return TargetOverall(
        wins=wins,
        losses=losses,
        ties=ties,
        win_pct=percent(wins),
        loss_pct=percent(losses),
        tie_pct=percent(ties),
        mean={d: round(math.fsum(v) / len(v), 4) for d, v in means.items() if v},
        checks_passed=sum(t.checks_passed for t in answered),
        checks=sum(t.checks for t in answered),
        entries=len(answered),
        judged=len(judged),
        not_judged=None if judged or not answered else _cause(answered),
    )


def _cause(responses: Sequence[TargetScores]) -> str:
    """Why a target's responses were not judged: the commonest cause among them."""
    causes = Counter(
        t.error
        or (
            f"its checks failed ({t.checks - t.checks_passed} of {t.checks})"
            * (t.checks_passed < t.checks)
        )
        or (f"{t.outcome} without a score" if t.outcome else "no score")
        for t in responses
    )
    cause, count = causes.most_common(1)[0]
    return cause if count == len(responses) else f"{cause} ({count} of {len(responses)})"


def overall_text(name: str, o: TargetOverall) -> str:
    """A target's line of the comparison: its wins, losses and ties of the entries compared
    (``0 of 5 judged`` and the cause where it has none), its means and checks."""
    means = ", ".join(f"{d} {v:.2f}" for d, v in o.mean.items())
    checks = f"; checks passed {o.checks_passed}/{o.checks}" if o.checks else ""
    if o.not_judged is not None:
        return f"{name}: 0 of {o.entries} judged: {o.not_judged}{checks}"
    judged = f"{o.judged} of {o.entries} judged" if o.judged < o.entries else ""
    if o.win_pct is None:
        counts = "no entry compared (no other target was judged on it)"
    else:
        counts = (
            f"{o.wins} wins ({o.win_pct}%), {o.losses} losses ({o.loss_pct}%), "
            f"{o.ties} ties ({o.tie_pct}%)"
        )
    said = "; ".join(part for part in (judged, counts, f"mean {means}" * bool(means)) if part)
    return f"{name}: {said}{checks}"


def compare_targets(items: Sequence[ItemResult], tolerance: float) -> TargetComparison | None:
    """The comparison section of the results, or None when fewer than two targets answered."""
    live = [item for item in items if item.target and item.compare_key]
    # Configured order (python before dotnet if that is how they were given), else first seen.
    order = {
        str(item.target): (item.target_order or 0, i) for i, item in reversed(list(enumerate(live)))
    }
    targets = sorted(order, key=lambda t: order[t])
    if len(targets) < 2:
        return None
    grouped: dict[str, dict[str, ItemResult]] = {}
    for item in live:
        grouped.setdefault(str(item.compare_key), {})[str(item.target)] = item
    dims = dimension_names(live)
    entries = [
        _entry(key, per_target, targets, tolerance, dims) for key, per_target in grouped.items()
    ]
    decided = [e for e in entries if e.winner is not None]
    return TargetComparison(
        targets=targets,
        tie_tolerance=tolerance,
        entries=entries,
        compared=len(decided),
        disagreements=[e.key for e in decided if e.disagreement],
        overall={t: _overall(t, decided, dims, entries) for t in targets},
        significance=[
            _significance(decided, a, b, d)
            for a, b in itertools.combinations(targets, 2)
            for d in (*dims, "combined")
        ],
    )


def comparison_lines(comparison: TargetComparison) -> list[str]:
    """The win/loss/tie table and the significance lines, for terminal and markdown."""
    lines = [
        f"A/B comparison of {', '.join(comparison.targets)} on "
        f"{counted(comparison.compared, 'entry', 'entries')} "
        f"(tie tolerance {comparison.tie_tolerance:g}):"
    ]
    partly = sum(1 for e in comparison.entries if e.winner is not None and e.left_out)
    if partly:
        lines.append(
            f"  {counted(partly, 'entry', 'entries')} compared without a dimension that does "
            "not apply to them (no reference answer)"
        )
    lines += [f"  {overall_text(name, o)}" for name, o in comparison.overall.items()]
    lines += [f"  {s.statement}" for s in comparison.significance]
    if comparison.disagreements:
        lines.append(
            "  majority of runs disagrees with the mean-based winner (mean stands): "
            + ", ".join(comparison.disagreements)
        )
    pairwise = comparison.pairwise
    if pairwise is not None:
        lines.append(
            f"  pairwise (answers side by side, both orders, {pairwise_runs_text(pairwise)}; "
            "a win needs both orders):"
        )
        lines += [f"    {pair.statement}" for pair in pairwise.pairs]
        failed = [e for e in pairwise.entries if e.error]
        if failed:
            lines.append(f"    not judged pairwise: {len(failed)} ({failed[0].error})")
    return lines

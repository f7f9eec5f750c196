"""A/B (or A/B/C...) comparison of targets that answered the same eval entries.

Everything is derived from the judged scores: the winner of an entry is the target with the
highest combined score (mean over dimensions of the per-dimension means), a tie when the best
two are within the tie tolerance; never a judge's self-report.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from .gates import dimension_names
from .stats import interval_fields, paired_difference

TIE = "tie"


def _dims(row: Mapping[str, Any], dims: Sequence[str]) -> dict[str, Mapping[str, Any]]:
    return {d: row[d] for d in dims if isinstance(row.get(d), Mapping)}


def _combined(dims: Mapping[str, Mapping[str, Any]]) -> float:
    return math.fsum(float(d["score"]) for d in dims.values()) / len(dims)


def _winner(scores: Mapping[str, float], tolerance: float) -> str:
    ranked = sorted(scores.items(), key=lambda kv: kv[1], reverse=True)
    if len(ranked) > 1 and ranked[0][1] - ranked[1][1] <= tolerance:
        return TIE
    return ranked[0][0]


def _entry(
    key: str,
    per_target: Mapping[str, Mapping[str, Any]],
    targets: Sequence[str],
    tolerance: float,
    dims: Sequence[str],
) -> dict[str, Any]:
    judged = {
        t: _dims(per_target[t], dims)
        for t in targets
        if dims and t in per_target and len(_dims(per_target[t], dims)) == len(dims)
    }
    any_row = next(iter(per_target.values()))
    entry: dict[str, Any] = {
        "key": key,
        "id": any_row.get("id"),
        "ticket": any_row.get("ticket"),
        "targets": {
            t: {
                "outcome": row.get("outcome"),
                "answer": row.get("answer"),
                "error": row.get("error"),
                **{
                    d: {"score": v["score"], "std": v["std"], "runs": v["runs"]}
                    for d, v in _dims(row, dims).items()
                },
                "combined": round(_combined(_dims(row, dims)), 4) if t in judged else None,
            }
            for t, row in per_target.items()
        },
    }
    if len(judged) < 2:
        entry.update(winner=None, note="fewer than two targets were judged: no winner")
        return entry
    combined = {t: _combined(d) for t, d in judged.items()}
    winner = _winner(combined, tolerance)
    # Per run i: each target's combined score of its i-th runs; the majority of those winners.
    runs = min(len(d[name]["runs"]) for d in judged.values() for name in dims)
    per_run = [
        _winner(
            {
                t: math.fsum(d[name]["runs"][i] for name in dims) / len(dims)
                for t, d in judged.items()
            },
            tolerance,
        )
        for i in range(runs)
    ]
    majority, votes = Counter(per_run).most_common(1)[0] if per_run else (winner, 0)
    entry.update(
        winner=winner,
        majority_winner=majority,
        run_winners=per_run,
        agreement=round(votes / len(per_run), 4) if per_run else None,
        disagreement=majority != winner,
    )
    return entry


def _significance(
    entries: Sequence[Mapping[str, Any]], a: str, b: str, dimension: str
) -> dict[str, Any]:
    deltas = []
    for entry in entries:
        ta, tb = entry["targets"].get(a, {}), entry["targets"].get(b, {})
        if dimension == "combined":
            if ta.get("combined") is not None and tb.get("combined") is not None:
                deltas.append(ta["combined"] - tb["combined"])
        elif dimension in ta and dimension in tb:
            deltas.append(float(ta[dimension]["score"]) - float(tb[dimension]["score"]))
    if not deltas:
        return {
            "a": a,
            "b": b,
            "dimension": dimension,
            "items": 0,
            "statement": f"{a} vs {b} on {dimension}: nothing to compare",
        }
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
    return {
        "a": a,
        "b": b,
        "dimension": dimension,
        "items": len(deltas),
        "mean_difference": round(mean, 4),
        **interval_fields(low, high),
        "significant": significant,
        "statement": statement,
    }


def compare_targets(rows: Sequence[Mapping[str, Any]], tolerance: float) -> dict[str, Any] | None:
    """The comparison section of the results, or None when fewer than two targets answered."""
    live = [r for r in rows if r.get("target") and r.get("compare_key")]
    # Configured order (python before dotnet if that is how they were given), else first seen.
    order = {
        str(r["target"]): (r.get("target_order", 0), i) for i, r in reversed(list(enumerate(live)))
    }
    targets = sorted(order, key=lambda t: order[t])
    if len(targets) < 2:
        return None
    grouped: dict[str, dict[str, Mapping[str, Any]]] = {}
    for row in live:
        grouped.setdefault(str(row["compare_key"]), {})[str(row["target"])] = row
    dims = dimension_names(live)
    entries = [
        _entry(key, per_target, targets, tolerance, dims) for key, per_target in grouped.items()
    ]
    decided = [e for e in entries if e["winner"] is not None]
    overall: dict[str, dict[str, Any]] = {}
    for t in targets:
        wins = sum(1 for e in decided if e["winner"] == t)
        ties = sum(1 for e in decided if e["winner"] == TIE)
        losses = len(decided) - wins - ties
        means = {
            d: [float(e["targets"][t][d]["score"]) for e in decided if d in e["targets"][t]]
            for d in dims
        }
        overall[t] = {
            "wins": wins,
            "losses": losses,
            "ties": ties,
            "win_pct": round(100 * wins / len(decided), 1) if decided else None,
            "loss_pct": round(100 * losses / len(decided), 1) if decided else None,
            "tie_pct": round(100 * ties / len(decided), 1) if decided else None,
            "mean": {d: round(math.fsum(v) / len(v), 4) for d, v in means.items() if v},
        }
    significance = [
        _significance(decided, a, b, d)
        for a, b in itertools.combinations(targets, 2)
        for d in (*dims, "combined")
    ]
    return {
        "targets": targets,
        "tie_tolerance": tolerance,
        "entries": entries,
        "compared": len(decided),
        "disagreements": [e["key"] for e in decided if e["disagreement"]],
        "overall": overall,
        "significance": significance,
    }


def comparison_lines(comparison: Mapping[str, Any]) -> list[str]:
    """The win/loss/tie table and the significance lines, for terminal and markdown."""
    lines = [
        f"A/B comparison of {', '.join(comparison['targets'])} on "
        f"{comparison['compared']} entries (tie tolerance {comparison['tie_tolerance']:g}):"
    ]
    for name, o in comparison["overall"].items():
        means = ", ".join(f"{d} {v:.2f}" for d, v in o["mean"].items())
        lines.append(
            f"  {name}: {o['wins']} wins ({o['win_pct']}%), {o['losses']} losses "
            f"({o['loss_pct']}%), {o['ties']} ties ({o['tie_pct']}%); mean {means}"
        )
    lines += [f"  {s['statement']}" for s in comparison["significance"]]
    if comparison["disagreements"]:
        lines.append(
            "  majority of runs disagrees with the mean-based winner (mean stands): "
            + ", ".join(comparison["disagreements"])
        )
    return lines

"""Pairwise verdicts from the judge's votes: per entry, pair and dimension a win only when both
orders agree (a judge that prefers a position yields ties, not a false winner); per pair and
dimension a win rate with its 95% Wilson interval, the position consistency and the share of
runs won by the response shown first."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..judges.base import Winner
from ..schema.pairwise import OrderVotes, PairwiseEntry, PairwiseResult, PairwiseSummary
from ..schema.sections import Gate

TIE = "tie"
UNRELIABLE = 0.7  # position consistency below this: the judge cannot tell the responses apart
Z95 = 1.959964


@dataclass(frozen=True)
class PairVotes:
    """What the judge said of one entry, pair and dimension, in both orders."""

    key: str
    entry_id: str | None
    a: str
    b: str
    dimension: str
    a_first: Sequence[Winner]  # "A" is a's response
    b_first: Sequence[Winner]  # "A" is b's response
    error: str | None = None


def _order(first: str, second: str, votes: Sequence[Winner]) -> OrderVotes:
    named = Counter({"A": first, "B": second, "tie": TIE}[vote] for vote in votes)
    counts = {first: named[first], second: named[second], TIE: named[TIE]}
    top = max(counts.values(), default=0)
    leaders = [name for name, count in counts.items() if count == top]
    majority = leaders[0] if len(leaders) == 1 and top > 0 else TIE
    return OrderVotes(first=first, votes=counts, majority=majority)


def pairwise_entry(votes: PairVotes) -> PairwiseEntry:
    """Both orders' majorities; a target wins when it wins in both, else a tie."""
    entry = PairwiseEntry(
        key=votes.key, id=votes.entry_id, a=votes.a, b=votes.b, dimension=votes.dimension
    )
    first = _order(votes.a, votes.b, votes.a_first)
    second = _order(votes.b, votes.a, votes.b_first)
    if votes.error is not None or not votes.a_first or not votes.b_first:
        entry.error = votes.error or "not judged in both orders"
        entry.orders = [order for order in (first, second) if sum(order.votes.values())]
        return entry  # no verdict, but the runs judged are shown
    entry.orders = [first, second]
    entry.orders_agree = first.majority == second.majority
    entry.verdict = first.majority if entry.orders_agree else TIE
    return entry


def wilson(successes: float, n: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion (ties counted as half a success)."""
    p = successes / n
    centre = (p + Z95**2 / (2 * n)) / (1 + Z95**2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / (1 + Z95**2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def pair_summary(
    a: str, b: str, dimension: str, entries: Sequence[PairwiseEntry]
) -> PairwiseSummary:
    """The pair on one dimension, from ``a``'s side."""
    judged = [e for e in entries if e.verdict is not None]
    wins = sum(1 for e in judged if e.verdict == a)
    losses = sum(1 for e in judged if e.verdict == b)
    ties = len(judged) - wins - losses
    votes = [o for e in judged for o in e.orders]
    decided = sum(
        o.votes[o.first] + sum(v for k, v in o.votes.items() if k not in (o.first, TIE))
        for o in votes
    )
    first_won = sum(o.votes[o.first] for o in votes)
    summary = PairwiseSummary(
        a=a, b=b, dimension=dimension, entries=len(judged), wins=wins, losses=losses,
        ties=ties, win_rate=None, statement="",
    )  # fmt: skip
    if not judged:
        summary.statement = f"{a} vs {b} on {dimension}: nothing was judged in both orders"
        return summary
    rate = (wins + ties / 2) / len(judged)
    low, high = wilson(wins + ties / 2, len(judged))
    consistency = sum(1 for e in judged if e.orders_agree) / len(judged)
    summary.win_rate, summary.ci_low, summary.ci_high = (
        round(rate, 4),
        round(low, 4),
        round(high, 4),
    )
    summary.position_consistency = round(consistency, 4)
    summary.first_shown_share = round(first_won / decided, 4) if decided else None
    summary.unreliable = consistency < UNRELIABLE
    summary.statement = (
        f"{a} vs {b} on {dimension}: {a}'s win rate {rate:.0%} (95% CI {low:.0%}-{high:.0%}; "
        f"{wins} wins, {losses} losses, {ties} ties of {len(judged)}); both orders agreed on "
        f"{consistency:.0%}"
        + (
            f", the first-shown answer won {summary.first_shown_share:.0%} of runs"
            if summary.first_shown_share is not None
            else ""
        )
        + (": the judge cannot tell these apart reliably" if summary.unreliable else "")
    )
    return summary


def pairwise_result(votes: Sequence[PairVotes], runs: int) -> PairwiseResult:
    """Every entry's verdict and every pair's summary per dimension, in first-seen order."""
    return pairwise_over([pairwise_entry(v) for v in votes], runs)


def pairwise_over(entries: list[PairwiseEntry], runs: int) -> PairwiseResult:
    """Every pair's summary per dimension over these entries' verdicts (a session's, or the
    shards' of a merge), in first-seen order."""
    groups: dict[tuple[str, str, str], list[PairwiseEntry]] = {}
    for entry in entries:
        groups.setdefault((entry.a, entry.b, entry.dimension), []).append(entry)
    pairs = [pair_summary(a, b, d, group) for (a, b, d), group in groups.items()]
    return PairwiseResult(runs=runs, entries=entries, pairs=pairs)


def pairwise_runs_text(result: PairwiseResult) -> str:
    """``3 runs each`` where every order of every entry got its runs, else the runs judged:
    ``0 of 24 runs judged``."""
    asked = result.runs * 2 * len(result.entries)
    judged = sum(sum(o.votes.values()) for e in result.entries for o in e.orders)
    if judged == asked:
        return f"{result.runs} run{'s' * (result.runs != 1)} each"
    return f"{judged} of {asked} runs judged"


WinRate = tuple[str, str, float, float | None, float | None]  # other, dimension, rate, CI


def win_rate_of(result: PairwiseResult, target: str) -> list[WinRate]:
    """The target's win rate over every other target, per dimension: (other, dimension,
    rate, interval low, high), from the target's side."""
    found: list[WinRate] = []
    for pair in result.pairs:
        if target not in (pair.a, pair.b) or pair.win_rate is None:
            continue
        mine = pair.a == target
        rate = pair.win_rate if mine else 1 - pair.win_rate
        low = pair.ci_low if mine else (None if pair.ci_high is None else 1 - pair.ci_high)
        high = pair.ci_high if mine else (None if pair.ci_low is None else 1 - pair.ci_low)
        found.append((pair.b if mine else pair.a, pair.dimension, round(rate, 4), low, high))
    return found


def win_rate_gates(result: PairwiseResult, least: Mapping[str, float]) -> list[Gate]:
    """``llmjudge_gates win_rate``: per target, its win rate over every other target (on every
    dimension) at least the value; the failed comparisons named with their intervals."""
    gates = []
    for target, required in least.items():
        rates = win_rate_of(result, target)
        low = [r for r in rates if r[2] < required]
        shown = "; ".join(
            f"{rate:.2f} over {other} on {dimension} (95% CI {lo or 0:.2f}-{hi or 0:.2f})"
            for other, dimension, rate, lo, hi in (low or rates)
        )
        passed = bool(rates) and not low
        message = f"pairwise win rate of {target} >= {required:g}: " + (
            shown if rates else f"no pairwise comparison of {target}"
        )
        worst = min((r[2] for r in rates), default=None)
        gates.append(
            Gate(name=f"win_rate.{target}", passed=passed, actual=worst, required=required,
                 message=message)
        )  # fmt: skip
    return gates

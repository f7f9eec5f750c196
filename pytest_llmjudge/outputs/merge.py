"""Results files of several shards of one suite merged into one, and the suite gates
evaluated over the union (``python -m pytest_llmjudge merge``).

A shard is a pytest session over a part of the suite (pytest-split, pytest-shard, ``-k``
slices). Merging refuses what cannot be one suite: a node id judged in two shards, shards
judged by different judges, or shards run with other verdict settings (runs, thresholds,
verdict rule); each error names the files.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..analysis.agreement import label_agreement
from ..analysis.baseline import compare_with_baseline, identity_mismatch, load_baseline
from ..analysis.comparison import compare_targets
from ..analysis.gates import agreement_gates, evaluate_gates, summarize
from ..analysis.pairwise import pairwise_over, win_rate_gates
from ..analysis.regression import regression_gate
from ..config.settings import NO_BASELINE
from ..schema.pairwise import PairwiseResult
from ..schema.results import BaselineResult, BatchSummary, Meta, ResultsFile, Tokens


class MergeError(Exception):
    """The files cannot be merged (or read); the message names them."""


@dataclass(frozen=True)
class SuiteGates:
    """The suite gates of a merge, as the pytest options of the same names set them."""

    min_pass_rate: float | None = None
    min_mean: Mapping[str, float] | None = None
    min_agreement: Mapping[str, float] | None = None
    label_margin: float = 1.0
    baseline: Path | None = None
    fail_on_regression: bool = False
    undecided: str = "point"  # llmjudge_gates undecided=
    tie_tolerance: float = 0.01
    min_win_rate: Mapping[str, float] | None = None


def load_results(path: Path) -> ResultsFile:
    """One results file, validated; MergeError naming the file otherwise."""
    try:
        return ResultsFile.model_validate_json(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise MergeError(f"{path}: file not found") from None
    except OSError as exc:
        raise MergeError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "the file"
        raise MergeError(
            f"{path}: not a pytest-llmjudge results file ({where}: {first['msg']})"
        ) from None


def merge_results(shards: Sequence[tuple[str, ResultsFile]], gates: SuiteGates) -> ResultsFile:
    """One results file for the union of the shards, gates evaluated over all of it."""
    if not shards:
        raise MergeError("no results files to merge")
    _validate_one_suite(shards)
    _validate_disjoint(shards)
    items = sorted(
        (item for _, shard in shards for item in shard.results),
        key=lambda i: (i.file, i.line or 0, i.nodeid),
    )
    skipped = [entry for _, shard in shards for entry in shard.skipped]
    errors = [entry for _, shard in shards for entry in shard.errors]
    invalid = [entry for _, shard in shards for entry in shard.invalid]
    skipped_items = sum(1 for i in items if i.outcome == "skipped")
    # the invalid entries marked skip (a file written before 0.2 may list its invalid ones
    # under errors instead: never a negative count)
    marked_skip = max(len(skipped) - skipped_items - len(invalid), 0)
    meta = _merged_meta([shard.meta for _, shard in shards])
    merged = ResultsFile(
        meta=meta,
        results=items,
        skipped=skipped,
        errors=errors,
        invalid=invalid,
        summary=summarize(items, marked_skip, len(errors), len(invalid)),
        unstable=[i.nodeid for i in items if i.unstable],
    )
    merged.labels = label_agreement(items, gates.label_margin)
    merged.gates = evaluate_gates(items, gates.min_pass_rate, gates.min_mean, gates.undecided)
    merged.gates += agreement_gates(merged.labels, gates.min_agreement, gates.undecided)
    _regression(merged, gates)
    merged.comparison = compare_targets(items, gates.tie_tolerance)
    pairwise = _pairwise(shards, meta.runs)
    if merged.comparison is not None and pairwise.entries:
        merged.comparison.pairwise = pairwise
    merged.gates += win_rate_gates(pairwise, gates.min_win_rate or {})  # none judged: closed
    # red as one pytest session over the whole suite would be: a failed or erroring item,
    # an invalid entry, a shard that did not complete (Ctrl-C, -x: items never ran; an item
    # whose worker crashed), or a gate that fails over the union (the regression gate among them)
    red_items = (
        merged.summary.failed + merged.summary.errors + len(invalid) > 0 or not meta.complete
    )
    red_gates = not all(g.passed for g in merged.gates)
    merged.meta.exit_status = 1 if red_items or red_gates else 0
    return merged


def _regression(merged: ResultsFile, gates: SuiteGates) -> None:
    """The baseline compared with the union, its regression gate, or why it was not checked."""
    if gates.baseline is not None:
        _compare(merged, gates.baseline)
        if gates.fail_on_regression and merged.baseline is not None:
            merged.gates.append(regression_gate(merged.baseline))
    # whether regression was checked is the merge's to say, not its shards'
    merged.meta.notices = [n for n in merged.meta.notices if n != NO_BASELINE]
    if gates.fail_on_regression and gates.baseline is None:
        merged.meta.notices.append(NO_BASELINE)


# meta counts that add up over the shards
_ADDED = ("calls", "judgments", "cached_runs", "unattributed_calls", "timeouts", "cut_off")


def _merged_meta(metas: Sequence[Meta]) -> Meta:
    """The shards' meta as one: counts, tokens and batches added, the earliest start, the longest
    shard, cost where every shard knows its own, each notice once."""
    costs = [m.cost_usd for m in metas]
    update: dict[str, Any] = {name: sum(getattr(m, name) for m in metas) for name in _ADDED}
    update |= {
        "started": min(m.started for m in metas),
        "duration_s": max(m.duration_s for m in metas),
        "complete": all(m.complete for m in metas),
        # each shard kept its own limit against its own server (or the same one)
        "in_flight_limit": max((m.in_flight_limit or 0 for m in metas), default=0) or None,
        "tokens": _added([m.tokens for m in metas]),
        "batch": _merged_batch([m.batch for m in metas if m.batch is not None]),
        "cost_usd": None if None in costs else round(sum(c or 0 for c in costs), 6),
        "notices": list(dict.fromkeys(n for m in metas for n in m.notices)),
    }
    return metas[0].model_copy(update=update)


def _added(tokens: Sequence[Tokens]) -> Tokens:
    """Tokens of the shards added, with the requests whose tokens no reply said."""
    return Tokens.of(
        sum(t.prompt for t in tokens),
        sum(t.completion for t in tokens),
        sum(t.unknown_calls for t in tokens),
    )


def _merged_batch(batches: Sequence[BatchSummary]) -> BatchSummary | None:
    """Every shard's batches as one summary (each shard submits and collects its own)."""
    if not batches:
        return None
    costs = [b.cost_usd for b in batches]
    return BatchSummary(
        batches={name: state for b in batches for name, state in b.batches.items()},
        calls=sum(b.calls for b in batches),
        runs=sum(b.runs for b in batches),
        tokens=_added([b.tokens for b in batches]),
        cost_usd=None if None in costs else round(sum(c or 0 for c in costs), 6),
    )


def _pairwise(shards: Sequence[tuple[str, ResultsFile]], runs: int) -> PairwiseResult:
    """The shards' pairwise verdicts as one: each entry's pairs were judged side by side in
    the shard that held its targets' answers; the win rates are over the union."""
    entries = [
        entry
        for _, shard in shards
        if shard.comparison is not None and shard.comparison.pairwise is not None
        for entry in shard.comparison.pairwise.entries
    ]
    return pairwise_over(entries, runs)


def _compare(merged: ResultsFile, path: Path) -> None:
    try:
        loaded = load_baseline(path)
    except ValueError as exc:
        raise MergeError(f"--judge-baseline {exc}") from None
    mismatch = identity_mismatch(loaded.judge, merged.meta.judge) if merged.meta.judge else None
    if mismatch:
        merged.baseline = BaselineResult(source=str(path), comparable=False, mismatch=mismatch)
    else:
        merged.baseline = compare_with_baseline(merged.results, loaded.items, str(path))


def _validate_one_suite(shards: Sequence[tuple[str, ResultsFile]]) -> None:
    """Every shard judged by the first shard's judge and run with its verdict settings (the
    merged meta states one set of them: items judged against other bars are not one suite's
    verdict)."""
    first_name, first = shards[0]
    for name, shard in shards[1:]:
        if first.meta.judge is not None and shard.meta.judge is not None:
            mismatch = identity_mismatch(first.meta.judge, shard.meta.judge)
            if mismatch:
                raise MergeError(
                    f"{first_name} and {name} were judged by different judges: {mismatch}"
                )
        differences = [
            f"{setting} {getattr(first.meta, setting)} != {getattr(shard.meta, setting)}"
            for setting in ("runs", "thresholds", "verdict")
            if getattr(first.meta, setting) != getattr(shard.meta, setting)
        ]
        if differences:
            raise MergeError(
                f"{first_name} and {name} were run with different settings: "
                + "; ".join(differences)
            )


def _validate_disjoint(shards: Sequence[tuple[str, ResultsFile]]) -> None:
    seen: dict[str, str] = {}
    for name, shard in shards:
        for item in shard.results:
            if item.nodeid in seen:
                raise MergeError(
                    f"{item.nodeid} is in {seen[item.nodeid]} and in {name}: shards of one "
                    "suite hold each item once"
                )
            seen[item.nodeid] = name

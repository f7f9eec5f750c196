"""The session's results: item rows in, at the end the results file, its gates and exit
status out.

A plain object (no pytest): the hooks hand it each item's row as it arrives (a rerun replaces
the earlier attempt), and at session end ``finish`` builds the results model, applies the
suite gates, the baseline and the A/B comparison, and decides the exit status; the writers
put the results where they belong, and ``reports/`` says them.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, cast

from ..analysis.agreement import label_agreement
from ..analysis.baseline import Baseline, compare_with_baseline, judge_identity
from ..analysis.comparison import compare_targets
from ..analysis.gates import agreement_gates, evaluate_gates, summarize
from ..analysis.pairwise import win_rate_gates
from ..analysis.regression import regression_gate
from ..basics.redaction import safe_url
from ..basics.version import plugin_version
from ..config.pricing import Price
from ..config.settings import Settings
from ..judges.base import Totals, Usage
from ..judges.heuristic import ABOUT as HEURISTIC_NOTE
from ..schema.pairwise import PairwiseResult
from ..schema.results import (
    BaselineResult,
    BatchState,
    BatchSummary,
    ErrorEntry,
    ItemResult,
    JudgeIdentity,
    Meta,
    ResultsFile,
    Row,
    ServerLearned,
    SkippedEntry,
    Tokens,
)
from .kept_row import KeptRow
from .notices import session_notices
from .row_spill import RowSpill

# pytest's exit codes, without importing pytest.
EXIT_OK, EXIT_TESTS_FAILED, EXIT_INTERRUPTED = 0, 1, 2


@dataclass(frozen=True)
class SessionEnd:
    """What the end of a session decided: the results and the exit status."""

    results: ResultsFile
    exit_status: int


@dataclass(frozen=True)
class SessionFacts:
    """What pytest knows about how the session ended, as plain values."""

    exit_status: int
    stopped_early: bool  # -x, --maxfail
    started: datetime
    duration: float
    baseline_shown: str = ""  # likewise the baseline's
    baseline_mismatch: str | None = None  # how the baseline's judge differs from this one
    notices: tuple[str, ...] = ()  # said of how it ended (xdist workers stopped early)
    lost: int = 0  # eval items pytest reported that ended without a results row


@dataclass
class SessionResults:
    """Gathers the items' rows (from test reports, also an xdist worker's) on the controller."""

    _items: dict[str, ItemResult | KeptRow] = field(default_factory=dict)
    usage: Totals = field(default_factory=Totals)  # what the engines sent and were billed
    _invalid: dict[str, tuple[SkippedEntry, str]] = field(default_factory=dict)
    _collect_errors: dict[str, str] = field(default_factory=dict)
    #: node id -> pytest's reason: an eval item pytest reported failed that sent no row (its
    #: xdist worker crashed, a thread-method timeout ended it)
    _lost: dict[str, str] = field(default_factory=dict)
    #: node id -> the entry's fields that decide its outcome (llmjudge_targets save_responses)
    entries: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: where the rows are kept when only their kept records need be in memory
    spill: RowSpill | None = None

    @property
    def seen_anything(self) -> bool:
        return bool(self._items or self._invalid or self._collect_errors or self._lost)

    def add(self, row: ItemResult) -> None:
        """One attempt's row (spilled, only its kept record stays in memory); the latest
        attempt of an item wins (a rerun replaces it)."""
        if (replaced := self._items.get(row.nodeid)) is not None:  # its row is gone
            self.usage.billing.cached_outside_rows += sum(
                d.cached_runs for d in replaced.dimensions.values()
            )
        self._items[row.nodeid] = row if self.spill is None else self.spill.put(row)
        self._lost.pop(row.nodeid, None)  # a rerun that sent its row

    def add_invalid(self, nodeid: str, entry: SkippedEntry, outcome: str) -> None:
        """An entry that failed validation: an error (``failed``), or ``skipped`` when the
        user marked it skip."""
        self._invalid[nodeid] = (entry, outcome)

    def add_lost(self, nodeid: str, reason: str) -> None:
        """An eval item pytest reported failed without its row (a crashed xdist worker, a
        thread-method timeout): an error row with pytest's reason, and the results are not
        complete. A failed teardown after its row changes nothing."""
        if nodeid not in self._items and nodeid not in self._invalid:
            self._lost[nodeid] = reason

    def add_usage(self, usage: Totals) -> None:
        """What one process's engine sent and was billed (each xdist worker, or this one)."""
        self.usage.add(usage)

    def add_collection_error(self, file: str, reason: str) -> None:
        self._collect_errors[file] = reason

    def rows(self) -> list[ItemResult]:
        """Every item's latest row so far (whole, also when spilled)."""
        if self.spill is None:
            return cast(list[ItemResult], list(self._items.values()))  # all whole
        return [self.spill.full(row) for row in self._items.values()]

    def finish(
        self,
        settings: Settings,
        baseline: Baseline,
        facts: SessionFacts,
        collected: Collection[str] | None = None,
        pairwise: PairwiseResult | None = None,
    ) -> SessionEnd:
        """The results of the session; a failed gate turns a green session red.

        ``collected``: the eval node ids collected (deselected ones too), for the baseline."""
        if self._lost:
            facts = _with_lost(facts, self._lost)
        results = self._build(settings, facts)
        rows = results.rows()
        results.labels = label_agreement(rows, settings.label_margin)
        results.gates = evaluate_gates(
            rows, settings.min_pass_rate, settings.min_mean, settings.gate_undecided
        )
        results.gates += agreement_gates(
            results.labels, settings.min_agreement, settings.gate_undecided
        )
        if settings.baseline is not None and facts.baseline_mismatch:
            results.baseline = BaselineResult(
                source=facts.baseline_shown, comparable=False, mismatch=facts.baseline_mismatch
            )
        elif settings.baseline is not None:
            results.baseline = compare_with_baseline(
                rows, baseline, facts.baseline_shown, collected
            )
        if settings.fail_on_regression and results.baseline is not None:
            results.gates.append(regression_gate(results.baseline))
        whole = [row for row in rows if isinstance(row, ItemResult)]  # targets' rows: all
        results.comparison = compare_targets(whole, settings.tie_tolerance)
        if results.comparison is not None and pairwise is not None:
            results.comparison.pairwise = pairwise
        # nothing compared side by side (one target selected): the gate fails closed
        nothing = PairwiseResult(runs=settings.runs, entries=[], pairs=[])
        results.gates += win_rate_gates(pairwise or nothing, settings.min_win_rate or {})
        exit_status = facts.exit_status
        if exit_status == EXIT_OK and not all(g.passed for g in results.gates):
            exit_status = EXIT_TESTS_FAILED
        results.meta.exit_status = exit_status
        return SessionEnd(results, exit_status)

    def _build(self, settings: Settings, facts: SessionFacts) -> ResultsFile:
        # File order (targets as configured), whatever order xdist workers finished in.
        rows: list[Row] = [*self._items.values(), *(lost_row(n, w) for n, w in self._lost.items())]
        items = sorted(rows, key=lambda i: (i.file, i.line or 0, i.target_order or 0, i.nodeid))
        # the original harness lists every entry it could not use under skipped: the invalid
        # ones (which turn the session red) and those the user marked skip
        marked_skip = [entry for entry, outcome in self._invalid.values() if outcome == "skipped"]
        invalid = [entry for entry, outcome in self._invalid.values() if outcome != "skipped"]
        skipped = sorted(invalid + marked_skip, key=lambda s: (s.file, s.index or 0)) + [
            SkippedEntry(file=i.file, id=i.id, line=i.line, reason=i.reason or "skipped")
            for i in items
            if i.outcome == "skipped"
        ]
        errors = [
            ErrorEntry(id=i.id, file=i.file, reason=i.error or "error")
            for i in items
            if i.outcome == "error"
        ]
        invalid.sort(key=lambda s: (s.file, s.index or 0))
        # (and, as pytest counts them, among the errors)
        errors += [
            ErrorEntry(id=entry.id, file=entry.file, reason=entry.reason) for entry in invalid
        ]
        errors += [ErrorEntry(file=f, reason=reason) for f, reason in self._collect_errors.items()]
        summary = summarize(items, len(marked_skip), len(errors), len(invalid))
        results = ResultsFile(
            meta=_meta(settings, facts, items, self.usage),
            results=[] if self.spill is not None else cast(list[ItemResult], items),  # all whole
            skipped=skipped,
            errors=errors,
            invalid=invalid,
            summary=summary,
            unstable=[i.nodeid for i in items if i.unstable],
        )
        if self.spill is not None:  # the writer streams the rows from the spill
            results.keep_rows(items)
        return results


RUNNING = (
    "the session had not ended when this file was written (at its start): a session stopped "
    "before its end (killed, a thread-method timeout) leaves it so"
)


def started_results(settings: Settings, started: datetime) -> ResultsFile:
    """What the results file says from the session's start until its end: nothing yet, not
    complete (so that a session killed on the way never leaves an earlier one's results)."""
    facts = SessionFacts(EXIT_INTERRUPTED, True, started, 0.0, notices=(RUNNING,))
    results = SessionResults()._build(settings, facts)
    results.meta.exit_status = None
    return results


def unselected_results(settings: Settings, facts: SessionFacts, collected: int) -> ResultsFile:
    """The results of a session that collected eval items and selected none (``-k``, an
    empty pytest-split group): no row, no gate (a shard's are decided by the merge)."""
    notice = f"no eval item selected ({collected} collected): nothing judged"
    results = SessionResults()._build(settings, replace(facts, notices=(notice,)))
    results.meta.exit_status = facts.exit_status
    return results


def lost_row(nodeid: str, reason: str) -> ItemResult:
    """The error row of an eval item that ended without its own (nothing of it was judged
    as far as the session knows)."""
    file, _, name = nodeid.partition("::")
    return ItemResult(
        id=name, file=file, nodeid=nodeid, outcome="error", error=reason, judged=False
    )


def _with_lost(facts: SessionFacts, lost: dict[str, str]) -> SessionFacts:
    """The session's facts with the items that ended without a row said: it is not complete."""
    names = ", ".join(list(lost)[:LOST_NAMED]) + (
        f" and {len(lost) - LOST_NAMED} more" if len(lost) > LOST_NAMED else ""
    )
    notice = (
        f"{len(lost)} eval item{'s' * (len(lost) != 1)} ended without a results row "
        f"(pytest's reason is its error): {names}"
    )
    return replace(facts, lost=len(lost), notices=(*facts.notices, notice))


LOST_NAMED = 10  # lost items named in the notice; the results' errors hold them all


def _meta(settings: Settings, facts: SessionFacts, items: list[Row], totals: Totals) -> Meta:
    usage, server = totals.billed(), totals.server
    dims = [d for i in items for d in i.dimensions.values()]
    tokens = Tokens.of(usage.prompt_tokens, usage.completion_tokens, usage.tokens_unknown)
    identity = judge_identity(settings)
    batch = _batch(settings, usage, server.batches)
    return Meta(
        provider=settings.provider,
        llm=settings.uses_llm,
        note=None if settings.uses_llm else HEURISTIC_NOTE,
        model=settings.model,
        base_url=safe_url(settings.base_url),
        runs=settings.runs,
        thresholds=dict(settings.thresholds),
        started=facts.started.isoformat(timespec="seconds"),
        duration_s=round(facts.duration, 3),
        complete=facts.exit_status != EXIT_INTERRUPTED
        and not facts.stopped_early
        and not facts.lost,
        exit_status=facts.exit_status,
        calls=usage.calls,
        judgments=usage.runs,
        timeouts=usage.timeouts,
        cut_off=usage.cut_off,
        in_flight_limit=server.kept_in_flight or None,
        cached_runs=sum(d.cached_runs for d in dims) + usage.cached_outside_rows,
        unattributed_calls=usage.calls - sum(i.usage.calls for i in items),
        tokens=tokens,
        cost_usd=_cost(settings.price, usage, batch),
        price_source=settings.price.source if settings.price else None,
        server=ServerLearned(**server.learned)
        if any(v is not None for v in server.learned.values())
        else None,
        batch=batch,
        verdict=settings.verdict + f" k={settings.verdict_k}" * (settings.verdict == "k_of_n"),
        plugin_version=plugin_version(),
        judge=identity.model_copy(update={"scoring": _scoring(identity, usage)}),
        notices=session_notices(settings, identity, usage, server) + list(facts.notices),
    )


def _cost(price: Price | None, usage: Usage, batch: BatchSummary | None) -> float | None:
    """What the calls cost, where the price and every reply's tokens are known."""
    if price is None or usage.tokens_unknown:
        return None
    prompt = usage.prompt_tokens - usage.batch_prompt_tokens
    direct = price.cost(prompt, usage.completion_tokens - usage.batch_completion_tokens)
    return round(direct + ((batch.cost_usd or 0.0) if batch else 0.0), 6)


def _batch(
    settings: Settings, usage: Usage, batches: dict[str, dict[str, Any]]
) -> BatchSummary | None:
    if not batches and not usage.batch_calls:
        return None
    prompt, completion = usage.batch_prompt_tokens, usage.batch_completion_tokens
    price = None if usage.tokens_unknown else settings.price  # unsaid tokens: cost unknown
    return BatchSummary(
        batches={batch_id: BatchState(**facts) for batch_id, facts in batches.items()},
        calls=usage.batch_calls,
        runs=usage.batch_runs,
        tokens=Tokens.of(prompt, completion, usage.batch_tokens_unknown),
        cost_usd=None if price is None else round(price.batch_cost(prompt, completion), 6),
    )


def _scoring(identity: JudgeIdentity, usage: Usage) -> str:
    """How the runs judged in this session were scored: logprobs, text (also when a server
    without logprobs made the session fall back) or mixed."""
    if identity.scoring != "logprobs" or usage.weighted == usage.runs:
        return identity.scoring
    return "text" if usage.weighted == 0 else "mixed"

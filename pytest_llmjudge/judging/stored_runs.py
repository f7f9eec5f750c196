"""The judge cache as runs see it: a run's key, a cached run as its outcome, a result kept.

A run judged with the other dimensions of its item in one request (``llmjudge_grouping=item``)
is kept under its own dimension's key, marked with the group and seen with the group's
context: runs judged alone and runs judged together never stand in for each other.
"""

from __future__ import annotations

from collections.abc import Container, Sequence
from dataclasses import dataclass, field, replace

from ..analysis.judgment import RunOutcome
from ..basics.rubrics import Context
from ..judges import RunResult, Usage
from .batch import BatchOutcome
from .cache import JudgeCache, worth_keeping
from .planned import PlannedRun, RunKey, RunSlot
from .trace import TraceWriter, trace_record


@dataclass
class StoredRuns:
    cache: JudgeCache | None
    scoring: str  # a run asked for logprobs but scored by text is not kept as weighted
    trace: TraceWriter | None = None
    #: with llmjudge_batch: the runs the session's batches judged, failed or left pending
    batch: BatchOutcome | None = None
    batch_strict: bool = False  # a run whose batch request failed is an error, not asked
    taken: Usage = field(default_factory=Usage)  # what the runs items took from a batch cost

    def key(self, run: PlannedRun, context: Context | None = None) -> str | None:
        """The run's cache key to read (None without a cache, or for a rerun's fresh runs);
        a grouped run is seen with ``context``, its group's."""
        if run.generation != 0:
            return None
        return self.kept_key(run, context)

    def kept_key(self, run: PlannedRun, context: Context | None = None) -> str | None:
        """The key a judged run is kept under: a rerun's under the first attempt's, so that
        the cache holds the attempt that decided the item (the last), not a failure a rerun
        overturned (a later session would replay it)."""
        if self.cache is None:
            return None
        return self.cache.key(
            run.dimension, run.ticket, run.response, run.run_index, context or run.context,
            run.group,
        )  # fmt: skip

    def cached(
        self, runs: Sequence[PlannedRun], context: Context | None, usages: Sequence[Usage]
    ) -> dict[int, RunOutcome]:
        """The outcomes of those of ``runs`` known without a request: judged in a batch (its
        request counted in their ``usages`` once), pending in one, or in the cache (one look
        for them all); the others are to be asked."""
        keys = [self.key(run, context) for run in runs]
        known: dict[int, RunOutcome] = {}
        if self.batch is not None:
            for i, key in enumerate(keys):
                outcome = None if key is None else self._in_batch(key, usages[i], runs[i].owner)
                if outcome is not None:
                    known[i] = outcome
        wanted = [k for i, k in enumerate(keys) if k is not None and i not in known]
        stored = self.cache.get_runs(wanted) if wanted and self.cache is not None else {}
        for i, (run, key) in enumerate(zip(runs, keys, strict=True)):
            cached = None if key is None or i in known else stored.get(key)
            if cached is None:
                continue
            if self.trace is not None:
                where = (run.owner, run.dimension.name, run.run_index + 1)
                self.trace.write(trace_record(*where, 0, cached=True, scores=[cached.score]))
            known[i] = RunOutcome(cached, None, 0, cached=True)
        return known

    def _in_batch(self, key: str, usage: Usage, owner: str) -> RunOutcome | None:
        """A run the session's batch judged (its request charged to ``usage`` unless it is
        another item's), failed or left pending; None: not in a batch."""
        assert self.batch is not None
        row = self.batch.served.look(key)
        if row is not None:
            return self._take(row, usage, owner)[0]
        pending = self.batch.pending.get(key)
        failed = self.batch.failed.get(key) if self.batch_strict else None
        return RunOutcome(None, pending or failed, 0) if pending or failed else None

    def _take(self, row: int, usage: Usage, owner: str) -> tuple[RunOutcome, bool]:
        """The run at ``row`` of the batch's table, taken by the item ``owner``: its outcome,
        and whether it is another's (an item took it first, or, of a run several items ask
        for, the first of them in the session's order: ``BatchOutcome.owner_of``, the same in
        every xdist worker)."""
        assert self.batch is not None
        result = self.batch.served.result_row(row)
        charged, taken = self.batch.served.take_row(row)
        held_by = self.batch.owner_of(row)
        if held_by is not None:
            taken = held_by != owner
        if not taken:
            usage.scored(result, logprobs_asked=self.scoring == "logprobs")
            usage.batch_runs += 1
            if charged:  # the request is charged to the first run it scored
                _charge(usage, result)
        return RunOutcome(result, None, int(charged and not taken), cached=taken), taken

    def take(
        self, runs: Sequence[PlannedRun], started: Container[RunKey], paid: list[Usage] | None
    ) -> tuple[list[RunSlot], list[bool]] | None:
        """With ``llmjudge_batch``: the runs' outcomes, on the caller's thread, when the batch
        judged every one of them and none was ``started`` otherwise (no future, no plan, no
        table entry per run: 6 x 10^5 runs for 10^5 items); with whether an item took each
        already (not charged again; what the others cost goes to ``paid`` and ``taken``)."""
        if self.batch is None or not self.batch.served or any(run.group for run in runs):
            return None  # (runs judged with the item's other dimensions: the engine's way)
        rows = []
        for run in runs:
            row = self._row(run)
            if row is None:
                return None
            rows.append(row)
        if any(run.key in started for run in runs):
            return None
        outcomes: list[RunSlot] = []
        reused: list[bool] = []
        usage = Usage()  # what the runs not taken before cost (their sum: one Usage)
        for run, row in zip(runs, rows, strict=True):
            outcome, taken = self._take(row, usage, run.owner)
            outcomes.append(outcome)
            reused.append(taken)
        self.taken.add(usage)
        if paid is not None and not all(reused):
            paid.append(usage)
        return outcomes, reused

    def unserved(self, groups: list[list[PlannedRun]]) -> list[list[PlannedRun]]:
        """The groups of runs the session's batch did not judge (those it did are taken
        from its table when their item asks, not planned)."""
        if self.batch is None or not self.batch.served:
            return groups
        # (runs judged with the item's other dimensions are started the engine's way)
        return [
            group
            for group in groups
            if any(run.group for run in group) or any(self._row(run) is None for run in group)
        ]

    def _row(self, run: PlannedRun) -> int | None:
        """The run's row in the batch's table (None: not judged in a batch)."""
        key = self.key(run)
        return None if key is None else self.batch.served.look(key)  # type: ignore[union-attr]

    def batch_usage(self, total: Usage) -> None:
        """What the runs items took from the session's batch cost, and its batches' facts."""
        total.add(self.taken)
        if self.batch is not None:
            total.collected |= self.batch.collected
            total.batches |= self.batch.batches

    def close(self) -> None:
        """The session's judging is over: the trace and the cache's database closed."""
        if self.trace is not None:
            self.trace.close()
        if self.cache is not None:
            self.cache.close()
        if self.batch is not None:
            self.batch.served.close()

    def remember(self, judged: Sequence[tuple[PlannedRun, RunResult]]) -> None:
        """Keep the runs a request judged, in one write; a grouped request's result under
        each dimension's own key."""
        if self.cache is None:
            return
        kept: list[tuple[str | None, RunResult]] = []
        for run, result in judged:
            if result.parts is None:
                kept.append((self.kept_key(run), result))
                continue
            for part in run.dimension.parts:
                alone = replace(run, dimension=part, group=run.dimension)
                kept.append((self.kept_key(alone, run.context), result.parts[part.name]))
        self.cache.put_runs(
            [(k, r) for k, r in kept if k is not None and worth_keeping(r, self.scoring)]
        )


def _charge(usage: Usage, result: RunResult) -> None:
    """The batch request that judged a run, as the run carries it, added to ``usage``: one
    call and its tokens, all at the batch's price."""
    prompt, completion = result.prompt_tokens, result.completion_tokens
    unknown = int(result.tokens_unknown)
    usage.calls += 1
    usage.prompt_tokens += prompt
    usage.completion_tokens += completion
    usage.tokens_unknown += unknown
    usage.batch_calls += 1
    usage.batch_prompt_tokens += prompt
    usage.batch_completion_tokens += completion
    usage.batch_tokens_unknown += unknown

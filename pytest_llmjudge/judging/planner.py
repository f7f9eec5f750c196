"""How a session's runs become requests: one planner, its strategy chosen once per session.

A run is one score of one dimension of one item; a call is one request. The strategy says
which of an item's runs are asked together, which are known without a request, and which
requests ask the others:

- ``Direct``: a dimension's runs together, as the n choices of one request (one request each
  with ``llmjudge_sampling=calls``);
- ``Grouped`` (``llmjudge_grouping=item``): runs started ahead of their item ask every
  dimension at one run index in one request, one reply scoring them all;
- ``Cached``: runs the judge cache holds are served from it, and the runs judged are kept in it;
- ``Batch`` (``llmjudge_batch``): runs the session's batch judged are served from its table.

``Cached`` wraps the strategy that asks, and ``Batch`` wraps ``Cached``: a run is looked for in
the batch, then in the cache, then asked (``strategy_for``).
"""

from __future__ import annotations

import concurrent.futures
import functools
from collections.abc import Container, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from ..analysis.judgment import RunOutcome
from ..basics.rubrics import NO_CONTEXT, Context, Dimension, grouped
from ..config.settings import Settings
from ..judges.base import RunResult, Totals, Usage
from .batch_served import BatchOutcome
from .cache import JudgeCache, worth_keeping
from .trace import TraceWriter, trace_record

RunKey = tuple[str, str, str, str, int, int, Context]
#: a run in the engine: its future while it runs, its outcome once it has one (a future,
#: with its lock, is not kept for every run of a large suite)
RunSlot = concurrent.futures.Future[RunOutcome] | RunOutcome


@dataclass(frozen=True)
class PlannedRun:
    """One run to judge, by its identity (its ``key``)."""

    dimension: Dimension
    ticket: str
    response: str
    run_index: int
    generation: int = 0  # > 0: a rerun of the item judges afresh (no memory, no disk cache)
    owner: str = field(default="", compare=False)  # the item it is judged for, for messages
    context: Context = NO_CONTEXT  # earlier turns; the reference where the dimension uses it
    #: the item's dimensions judged together in one request with this run (grouping by item);
    #: not part of its key: within a session a run is judged one way
    group: Dimension | None = field(default=None, compare=False)

    @functools.cached_property  # one tuple, shared by the engine's tables
    def key(self) -> RunKey:
        d = self.dimension
        where = (self.ticket, self.response, self.run_index, self.generation, self.context)
        return (d.name, d.version, *where)


@dataclass(frozen=True)
class ItemRuns:
    """What an item wants judged: its dimensions, of its ticket and response, seen with its
    context; ``generation`` > 0 for a rerun, which judges afresh."""

    dimensions: Sequence[Dimension]
    ticket: str
    response: str
    generation: int = 0
    owner: str = ""  # the item's node id, for messages
    context: Context = NO_CONTEXT

    def runs(
        self, dimension: Dimension, indexes: range, group: Dimension | None = None
    ) -> list[PlannedRun]:
        """The runs ``indexes`` of one dimension (judged in ``group``'s request, if any)."""
        seen = self.context.for_dimension(dimension)  # the reference only where it is judged
        where = (self.ticket, self.response)
        return [
            PlannedRun(dimension, *where, i, self.generation, self.owner, seen, group)
            for i in indexes
        ]


@dataclass(frozen=True)
class Requests:
    """The runs to ask for the runs an item is missing, and which of those each answers."""

    asked: list[PlannedRun]  # one request each (a grouped one scores several dimensions)
    serves: list[list[int]]  # for each asked run, the indexes of the runs it answers

    def outcomes(self, runs: list[PlannedRun], asked: list[RunOutcome]) -> dict[int, RunOutcome]:
        """Each asked run's outcome as the outcomes of the runs it answers: a grouped reply's
        part each (or its error), its calls and tokens on the first."""
        outcomes: dict[int, RunOutcome] = {}
        for run, serving, outcome in zip(self.asked, self.serves, asked, strict=True):
            if not run.dimension.parts:
                outcomes[serving[0]] = outcome
                continue
            result = outcome.result
            for k, i in enumerate(serving):
                part = (
                    None
                    if result is None or result.parts is None
                    else result.parts[runs[i].dimension.name]
                )
                if part is not None and k == 0:
                    assert result is not None  # a part is of a result
                    part = part.billed_as(result)
                outcomes[i] = RunOutcome(part, outcome.error, outcome.calls if k == 0 else 0)
        return outcomes


class Strategy(Protocol):
    """How the session's runs become requests (one of this module's strategies)."""

    def groups(self, item: ItemRuns, indexes: range, *, ahead: bool) -> list[list[PlannedRun]]:
        """The item's runs ``indexes`` of its dimensions, in the groups asked together;
        ``ahead``: runs started before their item asks for them."""
        ...

    def known(self, runs: Sequence[PlannedRun], usages: Sequence[Usage]) -> dict[int, RunOutcome]:
        """The outcomes of those of a group's runs known without a request (what one cost
        goes to its ``usages`` entry)."""
        ...

    def requests(self, runs: list[PlannedRun], missing: list[int]) -> Requests:
        """The requests that ask for a group's ``missing`` runs."""
        ...

    def remember(self, judged: Sequence[tuple[PlannedRun, RunResult]]) -> None:
        """Keep the runs a request judged."""
        ...

    def served_whole(
        self, runs: Sequence[PlannedRun], started: Container[RunKey], paid: list[Usage] | None
    ) -> tuple[list[RunSlot], list[bool]] | None:
        """The runs' outcomes when all of them are served whole, without a request or a slot
        in the engine, with whether an item took each already; None: the engine's way."""
        ...

    def totals(self, total: Totals) -> None:
        """Add what the runs served here cost, and what is known of it, to the totals."""
        ...

    def close(self) -> None:
        """The session's judging is over."""
        ...


@dataclass
class Direct:
    """A dimension's runs asked together: the n choices of one request, or one request each
    (``one_per_request``, ``llmjudge_sampling=calls``). Nothing is known without a request."""

    one_per_request: bool

    def groups(self, item: ItemRuns, indexes: range, *, ahead: bool) -> list[list[PlannedRun]]:
        return [item.runs(d, chunk) for d in item.dimensions for chunk in self._chunks(indexes)]

    def _chunks(self, indexes: range) -> list[range]:
        size = 1 if self.one_per_request else len(indexes)
        return [indexes[i : i + size] for i in range(0, len(indexes), size)]

    def known(self, runs: Sequence[PlannedRun], usages: Sequence[Usage]) -> dict[int, RunOutcome]:
        return {}

    def requests(self, runs: list[PlannedRun], missing: list[int]) -> Requests:
        return Requests([runs[i] for i in missing], [[i] for i in missing])

    def remember(self, judged: Sequence[tuple[PlannedRun, RunResult]]) -> None:
        pass

    def served_whole(
        self, runs: Sequence[PlannedRun], started: Container[RunKey], paid: list[Usage] | None
    ) -> tuple[list[RunSlot], list[bool]] | None:
        return None

    def totals(self, total: Totals) -> None:
        pass

    def close(self) -> None:
        pass


@dataclass
class Grouped(Direct):
    """``llmjudge_grouping=item``: runs started ahead of their item ask all its dimensions at
    one run index in one request (one reply scores them all). Runs an item asks for one
    dimension when none were started ahead are asked as ``Direct`` asks them."""

    def groups(self, item: ItemRuns, indexes: range, *, ahead: bool) -> list[list[PlannedRun]]:
        if not ahead or len(item.dimensions) < 2:
            return super().groups(item, indexes, ahead=ahead)
        group = grouped(item.dimensions)
        return [
            [run for part in group.parts for run in item.runs(part, chunk, group)]
            for chunk in self._chunks(indexes)
        ]

    def requests(self, runs: list[PlannedRun], missing: list[int]) -> Requests:
        """One request per run index for the missing runs of a group: a dimension's run that
        is known already is asked again, not used (a group is asked whole)."""
        first = runs[0]
        if first.group is None:
            return super().requests(runs, missing)
        indexes = sorted({runs[i].run_index for i in missing})
        serves = [[i for i in missing if runs[i].run_index == index] for index in indexes]
        where = (first.ticket, first.response)
        context = together_context(runs)
        asked = [
            PlannedRun(first.group, *where, index, first.generation, first.owner, context)
            for index in indexes
        ]
        return Requests(asked, serves)


@dataclass
class Cached:
    """Runs the judge cache holds served from it (one look for a group), the others asked as
    ``asking`` asks them, and every run judged kept. A run judged with its item's other
    dimensions (``Grouped``) is kept under its own dimension's key, marked with the group and
    seen with the group's context: runs judged alone and runs judged together never stand in
    for each other."""

    asking: Direct
    cache: JudgeCache
    scoring: str  # a run asked for logprobs but scored by text is not kept as weighted
    trace: TraceWriter | None = None

    def groups(self, item: ItemRuns, indexes: range, *, ahead: bool) -> list[list[PlannedRun]]:
        return self.asking.groups(item, indexes, ahead=ahead)

    def key(self, run: PlannedRun, context: Context | None = None) -> str | None:
        """The run's cache key to read (None for a rerun's fresh runs); a grouped run is
        seen with ``context``, its group's."""
        return None if run.generation != 0 else self.kept_key(run, context)

    def kept_key(self, run: PlannedRun, context: Context | None = None) -> str:
        """The key a judged run is kept under: a rerun's under the first attempt's, so that
        the cache holds the attempt that decided the item (the last), not a failure a rerun
        overturned (a later session would replay it)."""
        return self.cache.key(
            run.dimension, run.ticket, run.response, run.run_index, context or run.context,
            run.group,
        )  # fmt: skip

    def keys(self, runs: Sequence[PlannedRun]) -> list[str | None]:
        """The keys of a group's runs to read."""
        context = together_context(runs) if runs[0].group is not None else None
        return [self.key(run, context) for run in runs]

    def known(self, runs: Sequence[PlannedRun], usages: Sequence[Usage]) -> dict[int, RunOutcome]:
        return self.in_cache(runs, self.keys(runs), {})

    def in_cache(
        self, runs: Sequence[PlannedRun], keys: list[str | None], known: dict[int, RunOutcome]
    ) -> dict[int, RunOutcome]:
        """``known`` with the runs the cache holds of those it lacks."""
        wanted = [k for i, k in enumerate(keys) if k is not None and i not in known]
        stored = self.cache.get_runs(wanted) if wanted else {}
        for i, (run, key) in enumerate(zip(runs, keys, strict=True)):
            cached = None if key is None or i in known else stored.get(key)
            if cached is None:
                continue
            if self.trace is not None:
                where = (run.owner, run.dimension.name, run.run_index + 1)
                self.trace.write(trace_record(*where, 0, cached=True, scores=[cached.score]))
            known[i] = RunOutcome(cached, None, 0, cached=True)
        return known

    def requests(self, runs: list[PlannedRun], missing: list[int]) -> Requests:
        return self.asking.requests(runs, missing)

    def remember(self, judged: Sequence[tuple[PlannedRun, RunResult]]) -> None:
        """The runs a request judged, in one write; a grouped request's result under each
        dimension's own key."""
        kept: list[tuple[str, RunResult]] = []
        for run, result in judged:
            if result.parts is None:
                kept.append((self.kept_key(run), result))
                continue
            for part in run.dimension.parts:
                alone = replace(run, dimension=part, group=run.dimension)
                kept.append((self.kept_key(alone, run.context), result.parts[part.name]))
        self.cache.put_runs([(k, r) for k, r in kept if worth_keeping(r, self.scoring)])

    def served_whole(
        self, runs: Sequence[PlannedRun], started: Container[RunKey], paid: list[Usage] | None
    ) -> tuple[list[RunSlot], list[bool]] | None:
        return None

    def totals(self, total: Totals) -> None:
        pass

    def close(self) -> None:
        self.cache.close()


@dataclass
class Batch:
    """``llmjudge_batch``: runs the session's batch judged, failed or left pending, known from
    its table (``outcome``, filled before the first item); the others as ``cached`` has them.
    A run's batch request is charged to the first item that takes it (of a run several items
    ask for, the first in the session's order: ``BatchOutcome.owner_of``)."""

    cached: Cached
    strict: bool = False  # a run whose batch request failed is an error, not asked
    outcome: BatchOutcome | None = None
    taken: Usage = field(default_factory=Usage)  # what the runs ``served`` whole cost

    def groups(self, item: ItemRuns, indexes: range, *, ahead: bool) -> list[list[PlannedRun]]:
        """Runs started ahead leave out the groups the batch judged: those are served whole
        when their item asks (runs judged with the item's other dimensions are not)."""
        groups = self.cached.groups(item, indexes, ahead=ahead)
        if not ahead or self.outcome is None or not self.outcome.served:
            return groups
        return [g for g in groups if g[0].group or any(self._row(run) is None for run in g)]

    def _row(self, run: PlannedRun) -> int | None:
        """The run's row in the batch's table (None: not judged in a batch)."""
        key = self.cached.key(run)
        assert self.outcome is not None
        return None if key is None else self.outcome.served.look(key)

    def known(self, runs: Sequence[PlannedRun], usages: Sequence[Usage]) -> dict[int, RunOutcome]:
        """Runs judged in the batch (its request counted in their ``usages`` once), pending
        in one or (strict) failed in it, then those in the cache."""
        keys = self.cached.keys(runs)
        known: dict[int, RunOutcome] = {}
        if self.outcome is not None:
            for i, key in enumerate(keys):
                outcome = None if key is None else self._in_batch(key, usages[i], runs[i].owner)
                if outcome is not None:
                    known[i] = outcome
        return self.cached.in_cache(runs, keys, known)

    def _in_batch(self, key: str, usage: Usage, owner: str) -> RunOutcome | None:
        assert self.outcome is not None
        row = self.outcome.served.look(key)
        if row is not None:
            return self._take(row, usage, owner)[0]
        pending = self.outcome.pending.get(key)
        failed = self.outcome.failed.get(key) if self.strict else None
        return RunOutcome(None, pending or failed, 0) if pending or failed else None

    def _take(self, row: int, usage: Usage, owner: str) -> tuple[RunOutcome, bool]:
        """The run at ``row`` of the batch's table, taken by the item ``owner``: its outcome,
        and whether it is another's (an item took it first, or the run's owner is another)."""
        assert self.outcome is not None
        result = self.outcome.served.result(row)
        charged, taken = self.outcome.served.take(row)
        held_by = self.outcome.owner_of(row)
        if held_by is not None:
            taken = held_by != owner
        if not taken:
            usage.scored(result, logprobs_asked=self.cached.scoring == "logprobs")
            usage.batch_runs += 1
            if charged:  # the request is charged to the first run it scored
                usage.charge_batch_request(result)
        return RunOutcome(result, None, int(charged and not taken), cached=taken), taken

    def requests(self, runs: list[PlannedRun], missing: list[int]) -> Requests:
        return self.cached.requests(runs, missing)

    def remember(self, judged: Sequence[tuple[PlannedRun, RunResult]]) -> None:
        self.cached.remember(judged)

    def served_whole(
        self, runs: Sequence[PlannedRun], started: Container[RunKey], paid: list[Usage] | None
    ) -> tuple[list[RunSlot], list[bool]] | None:
        """The runs' outcomes, on the caller's thread, when the batch judged every one of
        them and none was ``started`` otherwise (no future, no plan, no table entry per run);
        what the runs not taken before cost goes to ``paid`` and ``taken``."""
        if self.outcome is None or not self.outcome.served or any(run.group for run in runs):
            return None
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
        usage = Usage()
        for run, row in zip(runs, rows, strict=True):
            outcome, taken = self._take(row, usage, run.owner)
            outcomes.append(outcome)
            reused.append(taken)
        self.taken.add(usage)
        if paid is not None and not all(reused):
            paid.append(usage)
        return outcomes, reused

    def left_nothing(self) -> bool:
        """No request of the batch failed or is pending: every run a stored response's item
        asks for was judged in it or cached."""
        return self.outcome is not None and not self.outcome.failed and not self.outcome.pending

    def totals(self, total: Totals) -> None:
        total.billing.add(self.taken)
        if self.outcome is not None:
            total.server.collected |= self.outcome.collected
            total.server.batches |= self.outcome.batches

    def close(self) -> None:
        self.cached.close()
        if self.outcome is not None:
            self.outcome.served.close()


def strategy_for(
    settings: Settings, cache: JudgeCache | None, trace: TraceWriter | None
) -> Strategy:
    """The session's strategy, from its settings (``llmjudge_sampling``, ``llmjudge_grouping``,
    the cache, ``llmjudge_batch``)."""
    calls = settings.sampling == "calls"
    asking = Grouped(calls) if settings.grouping == "item" and settings.uses_llm else Direct(calls)
    if cache is None:
        return asking
    cached = Cached(asking, cache, settings.scoring, trace)
    return Batch(cached, strict="batch" in settings.strict) if settings.batch else cached


def together_context(runs: Sequence[PlannedRun]) -> Context:
    """What an item's runs judged together see: the reference too when a dimension of the
    group uses it (its run was given it)."""
    given = (run.context for run in runs if run.context.reference is not None)
    return next(given, runs[0].context)


def split_notice(cap: int, runs: int) -> str:
    """What a server that takes ``cap`` choices per request made of a judgment's ``runs``."""
    sizes = " + ".join(str(min(cap, runs - start)) for start in range(0, runs, cap))
    choices = f"{cap} choice{'s' * (cap != 1)}"
    return f"the judge server takes at most {choices} per request: {runs} runs asked as {sizes}"

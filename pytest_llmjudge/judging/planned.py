"""A run to be judged, by its identity (dimension, rubric version, ticket, response, run
index, generation, context), how the runs of an item's dimensions are asked together, and
how the outcome of a group of runs is handed to each."""

from __future__ import annotations

import concurrent.futures
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from ..analysis.judgment import RunOutcome
from ..basics.rubrics import NO_CONTEXT, Context, Dimension, grouped

RunKey = tuple[str, str, str, str, int, int, Context]
#: a run in the engine: its future while it runs, its outcome once it has one (a future,
#: with its lock and condition, is about 1 KB: 60 MB for the runs of 10^4 items)
RunSlot = concurrent.futures.Future[RunOutcome] | RunOutcome


@dataclass(frozen=True)
class PlannedRun:
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


def run_groups(
    dimensions: Sequence[Dimension],
    ticket: str,
    response: str,
    indexes: range,
    generation: int,
    owner: str,
    context: Context,
    *,
    one_per_request: bool,
    by_item: bool,
) -> list[list[PlannedRun]]:
    """The runs ``indexes`` of the dimensions in the groups that are asked together: a
    dimension's runs (as the choices of one request, or one each), or with grouping by item
    the runs of every dimension at those indexes (one reply scores them all)."""
    group = grouped(dimensions) if by_item and len(dimensions) > 1 else None
    size = 1 if one_per_request else len(indexes)
    chunks = [indexes[i : i + size] for i in range(0, len(indexes), size)]

    def runs(dimension: Dimension, chunk: range) -> list[PlannedRun]:
        seen = context.for_dimension(dimension)  # the reference only where it is judged
        where = (ticket, response)
        return [PlannedRun(dimension, *where, i, generation, owner, seen, group) for i in chunk]

    if group is None:
        return [runs(dimension, chunk) for dimension in dimensions for chunk in chunks]
    return [[run for part in group.parts for run in runs(part, chunk)] for chunk in chunks]


def split_notice(cap: int, runs: int) -> str:
    """What a server that takes ``cap`` choices per request made of a judgment's ``runs``."""
    sizes = " + ".join(str(min(cap, runs - start)) for start in range(0, runs, cap))
    choices = f"{cap} choice{'s' * (cap != 1)}"
    return f"the judge server takes at most {choices} per request: {runs} runs asked as {sizes}"


def once(callback: Callable[[], None] | None) -> Callable[[], None]:
    """``callback`` to be called at most once (no-op without one)."""
    called = False

    def call() -> None:
        nonlocal called
        if callback is not None and not called:
            called = True
            callback()

    return call


def hand_out(
    group: concurrent.futures.Future[list[RunOutcome]],
    futures: list[concurrent.futures.Future[RunOutcome]],
    runs: Sequence[PlannedRun],
    table: dict[RunKey, RunSlot],
) -> None:
    """Give each run of a group its outcome (or the group's exception, or cancellation); in
    ``table``, a run that has an outcome keeps it in place of its future (a single store of
    a key is atomic: no lock needed)."""
    if group.cancelled():
        for future in futures:
            future.cancel()
        return
    error = group.exception()
    if error is None:  # in the table first: a caller woken by its future finds it there
        for run, outcome in zip(runs, group.result(), strict=True):
            table[run.key] = outcome
    for i, future in enumerate(futures):
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(group.result()[i])


def outcomes_of(
    slots: Sequence[RunSlot], on_wait: Callable[[], None] | None, tick: float
) -> list[RunOutcome]:
    """The runs' outcomes, waiting for those still running (``on_wait`` every ``tick``)."""
    running = [slot for slot in slots if isinstance(slot, concurrent.futures.Future)]
    if on_wait is not None:
        while running and concurrent.futures.wait(running, timeout=tick).not_done:
            on_wait()
    return [s.result() if isinstance(s, concurrent.futures.Future) else s for s in slots]


def together_context(runs: list[PlannedRun]) -> Context:
    """What an item's runs judged together see: the reference too when a dimension of the
    group uses it (its run was given it)."""
    given = (run.context for run in runs if run.context.reference is not None)
    return next(given, runs[0].context)


def asked_together(
    runs: list[PlannedRun], missing: list[int]
) -> tuple[list[PlannedRun], list[list[int]]]:
    """The ``missing`` ones of an item's runs of several dimensions (``llmjudge_grouping=item``)
    as runs of their group: one per run index, each scoring every dimension in one reply (a
    dimension's run that is already known is asked again, not used: a group is asked whole);
    and for each, which of ``runs`` it serves."""
    first = runs[0]
    assert first.group is not None
    indexes = sorted({runs[i].run_index for i in missing})
    served = [[i for i in missing if runs[i].run_index == index] for index in indexes]
    where = (first.ticket, first.response)
    context = together_context(runs)
    together = [
        PlannedRun(first.group, *where, index, first.generation, first.owner, context)
        for index in indexes
    ]
    return together, served


def split_outcomes(
    runs: list[PlannedRun], served: list[list[int]], asked: list[RunOutcome]
) -> dict[int, RunOutcome]:
    """Each grouped run's outcome as the outcomes of the dimensions' runs it served: a part
    of the reply each, or its error; its calls and tokens on the first."""
    outcomes: dict[int, RunOutcome] = {}
    for serving, outcome in zip(served, asked, strict=True):
        for k, i in enumerate(serving):
            result = outcome.result
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


@dataclass
class AskedRuns:
    """The runs of one request while they are asked, across its attempts."""

    runs: list[PlannedRun]
    outcomes: list[RunOutcome | None]
    waiting: list[int]  # the runs without an outcome yet
    tries: int = 0
    firm: bool = False  # a reply was cut off: the next attempt asks for a shorter one
    backing_off: bool = False  # the last attempt failed: the runs wait for the next one

    @property
    def what(self) -> str:
        """``judge call for <item> (relevance, run 1-3)``: the request, for retry warnings."""
        first, last = self.runs[0], self.runs[-1]
        numbers = f"run {first.run_index + 1}" + (f"-{last.run_index + 1}" * (len(self.runs) > 1))
        return f"judge call for {first.owner or 'a test'} ({first.dimension.name}, {numbers})"

    def finished(self, error: str | None, calls: int) -> list[RunOutcome | None]:
        """One outcome per run (the error for those still waiting); the requests are
        charged to the first."""
        if error is not None:
            for i in self.waiting:
                self.outcomes[i] = RunOutcome(None, error, 0)
        for i, outcome in enumerate(self.outcomes):
            if outcome is not None:
                self.outcomes[i] = replace(outcome, calls=calls)
                break
        return self.outcomes

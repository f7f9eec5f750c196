"""A run to be judged, by its identity (dimension, rubric version, ticket, response, run
index, generation, context), and how the outcome of a group of runs is handed to each."""

from __future__ import annotations

import concurrent.futures
from collections.abc import Callable
from dataclasses import dataclass, field

from ..analysis.judgment import RunOutcome
from ..basics.rubrics import NO_CONTEXT, Context, Dimension

RunKey = tuple[str, str, str, str, int, int, Context]


@dataclass(frozen=True)
class PlannedRun:
    dimension: Dimension
    ticket: str
    response: str
    run_index: int
    generation: int = 0  # > 0: a rerun of the item judges afresh (no memory, no disk cache)
    owner: str = field(default="", compare=False)  # the item it is judged for, for messages
    context: Context = NO_CONTEXT  # earlier turns; the reference where the dimension uses it

    @property
    def key(self) -> RunKey:
        d = self.dimension
        where = (self.ticket, self.response, self.run_index, self.generation, self.context)
        return (d.name, d.version, *where)


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
    outcomes: list[concurrent.futures.Future[RunOutcome]],
) -> None:
    """Give each run of a group its outcome (or the group's exception, or cancellation)."""
    if group.cancelled():
        for future in outcomes:
            future.cancel()
        return
    error = group.exception()
    for i, future in enumerate(outcomes):
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(group.result()[i])

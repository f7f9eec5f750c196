"""Which judge runs to start ahead of the item that needs them.

Judging item after item leaves the judge idle while pytest reports; planning starts the
runs of upcoming eval items as capacity frees, so calls of different items overlap while
items still report in pytest's order. Only runs that will surely be needed are planned:
- items after deselection and ``-k`` (``session.items``), never a skipped one;
- items whose judging fixtures are the plugin's own (an overridden ``llmjudge_response``
  may call a live bot: its answer is unknown until the item runs);
- under xdist, only the item the worker runs now and the next one it was given.
A live target's answer is asked for ahead too; its judge runs are planned when it arrives.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from ..basics.rubrics import Dimension, grouped
from ..config.settings import Settings
from ..evalfiles.eval_file import EvalCase
from ..judging.dry_run import PlannedJudgment
from .collect import EvalItem
from .item_checks import judged_in_advance
from .pytest_internals import is_xdist_worker
from .state import STATE_KEY, settings_for

PLUGIN_MODULE = "pytest_llmjudge.plugin"
JUDGING_FIXTURES = (
    "eval_case",
    "llmjudge_response",
    "llmjudge_target",
    "relevance_judge",
    "tone_judge",
    "llmjudge",
    "llmjudge_judgments",
)


def fixtures_overridden(config: pytest.Config) -> bool:
    """Whether a conftest or another plugin defines one of the judging fixtures."""
    for other in config.pluginmanager.get_plugins():
        if getattr(other, "__name__", None) == PLUGIN_MODULE:
            continue  # the defaults themselves
        if any(getattr(other, name, None) is not None for name in JUDGING_FIXTURES):
            return True
    return False


def _plannable(item: pytest.Item) -> bool:
    return isinstance(item, EvalItem) and not any(
        item.get_closest_marker(name) is not None for name in ("skip", "skipif")
    )


class Planner:
    """Feeds the engine the runs of upcoming items, in the order they will run."""

    def __init__(self, config: pytest.Config, session: pytest.Session) -> None:
        self.config = config
        self.session = session
        self.distributed = is_xdist_worker(config)
        self._planned: set[str] = set()
        self._planned_everything = False
        self._enabled: bool | None = None

    def _enabled_now(self) -> bool:
        if self._enabled is None:  # conftests are all loaded once items run
            self._enabled = not fixtures_overridden(self.config)
        return self._enabled

    def before_item(self, item: pytest.Item, nextitem: pytest.Item | None) -> None:
        if not self._enabled_now():
            return
        if self.distributed:
            # A worker learns its items one at a time: plan only the ones it surely runs.
            upcoming: Sequence[pytest.Item] = [i for i in (item, nextitem) if i is not None]
        elif self._planned_everything:
            return
        else:
            self._planned_everything = True
            items = self.session.items
            upcoming = items[items.index(item) :] if item in items else [item]
        self._plan([i for i in upcoming if i.nodeid not in self._planned and _plannable(i)])

    def _plan(self, items: Sequence[pytest.Item]) -> None:
        if not items:
            return
        state = self.config.stash[STATE_KEY]
        engine = state.engine()
        answered = engine.batch_left_nothing()  # a stored answer's runs: all there already
        for item in items:
            assert isinstance(item, EvalItem)
            if answered and item.target is None:
                continue
            self._planned.add(item.nodeid)
            try:
                runs = settings_for(item).runs
            except ValueError:
                continue  # a bad marker: the item reports it when it runs
            entry = item.entry
            # an item whose checks spare the judge, or a live one that is checked first once
            # its answer is there, gets no runs ahead (its target is still asked ahead)
            dimensions = applicable(state.settings, entry) if judged_in_advance(item) else []
            if item.target is not None:
                engine.plan_response(
                    item.target, entry.ticket, dimensions, runs, item.nodeid, entry.context
                )
            elif entry.response is not None and dimensions:
                engine.plan(
                    dimensions, entry.ticket, entry.response, runs, item.nodeid, entry.context
                )

    def after_report(self) -> None:
        if self.session.shouldstop or self.session.shouldfail:
            state = self.config.stash[STATE_KEY]
            if state.has_engine:
                state.engine().cancel_planned()


def applicable(settings: Settings, entry: EvalCase) -> list[str]:
    """The dimensions an entry is judged on: one judged against a reference answer only
    where the entry has one."""
    return [
        name for name, dimension in settings.dimensions.items() if dimension.applies(entry.context)
    ]


def asked_dimensions(settings: Settings, entry: EvalCase) -> list[Dimension]:
    """What an entry's requests ask about: each applicable dimension, or with an LLM and
    ``llmjudge_grouping=item`` all of them as one group."""
    dimensions = [settings.dimensions[name] for name in applicable(settings, entry)]
    if settings.grouping == "item" and settings.uses_llm and len(dimensions) > 1:
        return [grouped(dimensions)]
    return dimensions


def planned_judgments(
    items: Sequence[pytest.Item], settings: Settings
) -> tuple[list[PlannedJudgment], int]:
    """The runs every eval item that would run asks for (``--judge-dry-run``), and how many
    eval items that is; hand-written tests are not known before they run."""
    planned: list[PlannedJudgment] = []
    evals = [item for item in items if _plannable(item)]
    for item in evals:
        assert isinstance(item, EvalItem)
        try:
            runs = settings_for(item).runs
        except ValueError:
            continue  # a bad marker: the item reports it when it runs
        if not item.entry.judge or (item.target is None and not judged_in_advance(item)):
            continue  # checked only, or its checks fail (a live answer's are not known yet)
        response = None if item.target is not None else item.entry.response
        if response is None and item.target is None:
            continue  # nothing to judge: the item reports that when it runs
        for dimension in asked_dimensions(settings, item.entry):
            context = item.entry.context.for_dimension(dimension)
            where = (item.entry.ticket, response, runs, item.target, context, item.nodeid)
            planned.append(PlannedJudgment(dimension, *where))
    return planned, len(evals)


def pairwise_calls(items: Sequence[pytest.Item], settings: Settings) -> int:
    """The requests ``llmjudge_targets pairwise`` would make: per entry answered by two or more
    targets, per pair and dimension that applies, one per order (per run with calls)."""
    if not settings.pairwise:
        return 0
    targets: dict[str, list[EvalCase]] = {}
    for item in items:
        if not isinstance(item, EvalItem) or not item.entry.judge:  # "judge": false: no pairs
            continue
        if item.target is not None and _plannable(item):
            targets.setdefault(item.path.as_posix() + "::" + item.entry.id, []).append(item.entry)
    per_request = settings.runs if settings.sampling == "calls" else 1
    return sum(
        len(entries)
        * (len(entries) - 1)
        // 2
        * len(applicable(settings, entries[0]))
        * 2
        * per_request
        for entries in targets.values()
    )

"""The session's request planner: its strategy chosen once from the settings, and how each
strategy groups an item's runs into requests."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_llmjudge.basics.rubrics import NO_CONTEXT, Dimension
from pytest_llmjudge.judging.cache import JudgeCache
from pytest_llmjudge.judging.planner import Batch, Cached, Direct, Grouped, ItemRuns, strategy_for

from helpers import default_settings

RELEVANCE = Dimension("relevance", "Is it on topic?")
TONE = Dimension("tone", "Is it polite?")


@pytest.mark.parametrize(
    ("changes", "cached", "chosen"),
    [
        ({"provider": "openai"}, False, "Direct"),
        ({"provider": "openai", "grouping": "item"}, False, "Grouped"),
        ({"provider": "heuristic", "grouping": "item"}, False, "Direct"),  # no request to share
        ({"provider": "openai"}, True, "Cached(Direct)"),
        ({"provider": "openai", "grouping": "item"}, True, "Cached(Grouped)"),
        ({"provider": "openai", "batch": True}, True, "Batch(Cached(Direct))"),
    ],
)
def test_the_strategy_is_chosen_once_from_the_settings(
    tmp_path: Path, changes: dict[str, object], cached: bool, chosen: str
) -> None:
    cache = JudgeCache(lambda: tmp_path, {"model": "m"}) if cached else None
    strategy = strategy_for(default_settings(**changes), cache, None)

    def named(s: object) -> str:
        if isinstance(s, Batch):
            return f"Batch({named(s.cached)})"
        if isinstance(s, Cached):
            return f"Cached({named(s.asking)})"
        return type(s).__name__

    assert named(strategy) == chosen


def test_direct_asks_a_dimensions_runs_together_or_one_request_each() -> None:
    item = ItemRuns([RELEVANCE, TONE], "ticket", "answer", 0, "t.json::a", NO_CONTEXT)
    together = Direct(one_per_request=False).groups(item, range(3), ahead=True)
    assert [[(r.dimension.name, r.run_index) for r in g] for g in together] == [
        [("relevance", 0), ("relevance", 1), ("relevance", 2)],
        [("tone", 0), ("tone", 1), ("tone", 2)],
    ]
    alone = Direct(one_per_request=True).groups(
        ItemRuns([RELEVANCE], "t", "a"), range(3), ahead=True
    )
    assert [[r.run_index for r in g] for g in alone] == [[0], [1], [2]]


def test_grouped_asks_an_items_dimensions_in_one_request_per_run_index() -> None:
    item = ItemRuns([RELEVANCE, TONE], "ticket", "answer", 0, "t.json::a", NO_CONTEXT)
    grouped = Grouped(one_per_request=False)
    ahead = grouped.groups(item, range(2), ahead=True)
    assert len(ahead) == 1 and {r.dimension.name for r in ahead[0]} == {"relevance", "tone"}
    requests = grouped.requests(ahead[0], list(range(len(ahead[0]))))
    assert [r.run_index for r in requests.asked] == [0, 1]  # two requests for four runs
    assert sorted(i for serving in requests.serves for i in serving) == [0, 1, 2, 3]
    # an item asking for one dimension, none started ahead: as Direct asks them
    asked = grouped.groups(item, range(2), ahead=False)
    assert [len(g) for g in asked] == [2, 2] and all(r.group is None for g in asked for r in g)

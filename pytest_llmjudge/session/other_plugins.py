"""What the plugin says of other plugins whose features do not reach eval items as they reach
tests: said once, before the items."""

from __future__ import annotations

import warnings

import pytest

from .discovery import LLMJudgeWarning
from .state import EVAL_ITEM_KEY


def testmon_header(config: pytest.Config) -> list[str]:
    """pytest-testmon selecting: it sees the eval files and the code, not the judge's
    configuration, so the header says so (a change there deselects every eval item)."""
    selects = config.getoption("testmon", False) or config.getoption("testmon_forceselect", False)
    if not selects or config.getoption("testmon_noselect", False):
        return []
    return [
        "llmjudge: pytest-testmon selects eval items by their eval files and code; it cannot "
        "see the judge's configuration (thresholds, runs, judge model, rubrics, llmjudge_* "
        "keys): after changing it, run once with --testmon-noselect"
    ]


def warn_of_count(session: pytest.Session) -> None:
    """pytest-repeat's ``--count N`` repeats Python tests, not eval items: said once, at the
    first eval file (not at the plugin's source)."""
    config = session.config
    count = getattr(config.option, "count", None)
    repeat = any(config.pluginmanager.hasplugin(name) for name in ("repeat", "pytest_repeat"))
    if not repeat or not isinstance(count, int) or count < 2:
        return
    eval_file = next(item.path for item in session.items if EVAL_ITEM_KEY in item.stash)
    warnings.warn_explicit(
        f"pytest-repeat's --count {count} does not repeat eval items: each is judged once, "
        "on its runs; for more samples of an item use --judge-runs N (one verdict over N "
        "runs, with their spread)",
        LLMJudgeWarning,
        filename=str(eval_file),
        lineno=1,
    )

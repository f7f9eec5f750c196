"""What the xdist controller says of the items its workers collected.

The controller collects nothing: its workers send it their items' node ids only, and what
else they send comes at their end (``workeroutput``), after the items. A fact to say before
the items is read here from the eval files those ids name, as their collection reads them.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

from .collect import timed_entry_names
from .discovery import is_eval_nodeid
from .item_checks import say_latency_without_target, suite_checks
from .state import STATE_KEY

LATENCY = "max_latency_ms"


def say_of_collection(config: pytest.Config, ids: list[str]) -> None:
    """What the session says before its items, as a session without xdist says it."""
    if config.stash[STATE_KEY].settings.targets is None:  # a live target measures latency
        say_latency_without_target(config, timed_ids(config, ids), status=True)


def timed_ids(config: pytest.Config, ids: list[str]) -> int:
    """How many of the collected items have a latency check."""
    names: dict[str, set[str]] = defaultdict(set)
    for nodeid in ids:
        if is_eval_nodeid(nodeid) and "::" in nodeid:
            file, _, name = nodeid.partition("::")
            names[file].add(name)
    every = any(check.kind == LATENCY for check in suite_checks(config))
    timed = 0
    for file, collected in names.items():
        path = config.rootpath / file
        if every or _mentions_latency(path):  # most files need not be read twice
            timed += len(collected & timed_entry_names(config, path))
    return timed


def _mentions_latency(path: Path) -> bool:
    try:
        return LATENCY in path.read_text(encoding="utf-8-sig", errors="replace")
    except OSError:
        return False

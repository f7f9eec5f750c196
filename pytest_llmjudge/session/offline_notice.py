"""What the offline judge will leave unjudged, said once before the items
(``judging/offline``): in a session without xdist from its items, on the xdist controller,
which collects nothing, from its workers' node ids and the eval files they name."""

from __future__ import annotations

from collections import defaultdict

import pytest

from .collect import EvalItem
from .discovery import is_eval_nodeid
from .state import STATE_KEY


def say_offline_notice(config: pytest.Config, referenced: int, status: bool = False) -> None:
    """The notice's lines, if any; ``status``: over xdist's status line, which a terminal
    rewrites in place, unended."""
    from ..judging.offline import offline_notice

    lines = offline_notice(config.stash[STATE_KEY].settings, referenced)
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if not lines or reporter is None:
        return
    for line in lines:
        if status and getattr(reporter, "isatty", False):
            reporter.rewrite(f"llmjudge: {line}", erase=True)
            reporter.write("\n")
        else:
            reporter.ensure_newline()
            reporter.write_line(f"llmjudge: {line}")


def referenced_items(items: list[pytest.Item]) -> int:
    """How many of these eval items' entries carry a reference."""
    return sum(1 for i in items if isinstance(i, EvalItem) and i.entry.reference is not None)


def referenced_ids(config: pytest.Config, ids: list[str]) -> int:
    """How many of the collected node ids are of an entry that carries a reference."""
    from .collect import referenced_entry_names

    names: dict[str, set[str]] = defaultdict(set)
    for nodeid in ids:
        file, _, name = nodeid.partition("::")
        if name and is_eval_nodeid(file):
            names[file].add(name)
    return sum(
        len(collected & referenced_entry_names(config, config.rootpath / file))
        for file, collected in names.items()
    )

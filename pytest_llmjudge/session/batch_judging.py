"""``llmjudge_batch`` in a pytest session: before the first item, the runs the selected items
need go through the provider's Batch API (``judging/batch``); the items then take them from it.
"""

from __future__ import annotations

import pytest

from ..basics.wording import counted
from ..judging.batch import WantedRuns
from .run_ahead import planned_judgments
from .state import STATE_KEY


def judge_in_batch(session: pytest.Session) -> None:
    """Submit, wait for and collect the session's batch (or an earlier session's)."""
    config = session.config
    state = config.stash[STATE_KEY]
    settings = state.settings
    if not settings.batch or not state.has_evals or config.getoption("collectonly"):
        return
    reporter = config.pluginmanager.get_plugin("terminalreporter")

    def say(line: str) -> None:
        if reporter is not None:
            reporter.ensure_newline()
            reporter.write_line(f"llmjudge: {line}")

    planned, _ = planned_judgments(session.items, settings)
    wanted = [
        WantedRuns(p.dimension, p.ticket, p.response, p.runs, p.context, p.owner)
        for p in planned
        if p.response is not None
    ]
    live = len(planned) - len(wanted)
    if live:
        asked = counted(live, "judgment")
        say(f"{asked} of live targets' answers are asked directly (their answers come first)")
    state.engine().judge_in_batch(wanted, say)

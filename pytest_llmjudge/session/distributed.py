"""What the xdist controller says of the items its workers collected, and knows of the
judge requests of workers stopped before their end.

The controller collects nothing: its workers send it their items' node ids only, and what
else they send comes at their end (``workeroutput``), after the items. A fact to say before
the items is read here from the eval files those ids name, as their collection reads them.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

from ..basics.wording import counted
from ..judges.base import Usage
from ..schema.items import ItemUsage
from .discovery import is_eval_nodeid
from .state import STATE_KEY

LATENCY = "max_latency_ms"


def say_of_collection(config: pytest.Config, ids: list[str]) -> None:
    """What the session says before its items, as a session without xdist says it."""
    if config.stash[STATE_KEY].settings.targets is not None:  # a live target measures latency
        return
    timed = timed_ids(config, ids)
    if timed:
        from .item_checks import say_latency_without_target

        say_latency_without_target(config, timed, status=True)


def timed_ids(config: pytest.Config, ids: list[str]) -> int:
    """How many of the collected items have a latency check."""
    suite = LATENCY in str(config.getini("llmjudge_checks") or "")
    files = {nodeid.partition("::")[0] for nodeid in ids if "::" in nodeid}
    # Most sessions have no latency check: their files are read as text, not parsed twice.
    read = {
        file
        for file in files
        if is_eval_nodeid(file) and (suite or _mentions_latency(config.rootpath / file))
    }
    if not read:
        return 0
    names: dict[str, set[str]] = defaultdict(set)
    for nodeid in ids:
        file, _, name = nodeid.partition("::")
        if file in read:
            names[file].add(name)
    from .collect import timed_entry_names

    return sum(
        len(collected & timed_entry_names(config, config.rootpath / file))
        for file, collected in names.items()
    )


def _mentions_latency(path: Path) -> bool:
    try:
        return LATENCY in path.read_text(encoding="utf-8-sig", errors="replace")
    except OSError:
        return False


class WorkersHeard:
    """What the controller knows of each xdist worker's judge requests. A worker says what
    it sent at its end (``workeroutput``); one stopped before (Ctrl-C on the controller, a
    crash) never does: the requests of its items that finished are what is known of it."""

    def __init__(self) -> None:
        self._unheard: dict[str, Usage] = {}  # worker id -> its finished items' requests

    def up(self, worker: str | None) -> None:
        if worker is not None:
            self._unheard[worker] = Usage()

    def row(self, worker: str | None, usage: ItemUsage) -> None:
        """An attempt's row arrived from ``worker`` (each attempt's requests were sent)."""
        known = self._unheard.get(worker or "")
        if known is not None:
            known.add(
                Usage(
                    calls=usage.calls,
                    prompt_tokens=usage.prompt_tokens,
                    completion_tokens=usage.completion_tokens,
                    runs=usage.judgments,
                    tokens_unknown=usage.tokens_unknown,
                )
            )

    def down(self, worker: str | None) -> None:
        """The worker ended and said what it sent."""
        self._unheard.pop(worker or "", None)

    def unheard(self) -> tuple[tuple[str, ...], Usage]:
        """What is known of the requests of workers that never said theirs, and the notice
        that says so (none when every worker did)."""
        known = Usage()
        for usage in self._unheard.values():
            known.add(usage)
        workers = len(self._unheard)
        if not workers:
            return (), known
        they, their = ("it", "its") if workers == 1 else ("they", "their")
        notice = (
            f"{counted(workers, 'xdist worker')} stopped before saying what {they} sent: judge "
            f"calls, tokens and cost count the requests of {their} finished items only (the "
            "judge server may have received more)"
        )
        return (notice,), known

"""Per-session state kept in ``config.stash`` (never as attributes on pytest objects)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pytest

from .settings import Settings

if TYPE_CHECKING:
    from .engine import JudgeEngine, Judgment


@dataclass
class SessionState:
    """The resolved settings and, once something is judged, the engine."""

    settings: Settings
    _engine: JudgeEngine | None = field(default=None, init=False)

    def engine(self) -> JudgeEngine:
        """Start the engine on first use: sessions that judge nothing never import the SDK."""
        if self._engine is None:
            from .engine import JudgeEngine
            from .judges import make_judge

            self._engine = JudgeEngine(self.settings, make_judge)
        return self._engine

    def close(self) -> None:
        if self._engine is not None:
            self._engine.close()
            self._engine = None


@dataclass
class ItemRecord:
    """What one test attempt judged; turned into a results row on its report."""

    judgments: dict[str, Judgment] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


STATE_KEY = pytest.StashKey[SessionState]()
RECORD_KEY = pytest.StashKey[ItemRecord]()


def record_for(item: pytest.Item) -> ItemRecord:
    """This attempt's record; the report hook drops it at teardown so reruns start afresh."""
    return item.stash.setdefault(RECORD_KEY, ItemRecord())

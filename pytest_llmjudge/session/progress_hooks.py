"""The hooks of the live judge progress line (``llmjudge_progress``), registered in every
session that may show it: light, the progress line itself is imported once an item waits."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from .state import STATE_KEY

if TYPE_CHECKING:
    from .live_progress import LiveProgress


class ProgressHooks:
    """Live judge progress while items wait for their judgments (``llmjudge_progress``)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.live: LiveProgress | None = None

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> None:
        state = self.config.stash[STATE_KEY]
        if self.live is None and state.has_evals:
            from .live_progress import LiveProgress

            engine = state.engine()
            self.live = LiveProgress(self.config, engine.progress, state.settings.progress)
            engine.on_wait = self.live.tick

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_logreport(self) -> Any:
        if self.live is not None:
            self.live.clear()  # before pytest writes the item's character
        result = yield
        if self.live is not None:
            self.live.tick()  # between items too: most waits are shorter than a tick
        return result

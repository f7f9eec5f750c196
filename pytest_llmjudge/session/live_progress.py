"""Live judge progress while an item waits for its judgments.

On a terminal the status sits after pytest's progress characters and is updated in place:
the cursor is saved, the status written, the cursor restored, and the status cleared before
pytest writes again, so pytest's own line (and its ``[ 40%]``) is never disturbed. Written
to the terminal's file directly, not through pytest's writer, whose idea of the line's width
stays pytest's own. In a log (not a terminal) it is one line at most every
``llmjudge_progress`` seconds. With ``-qq`` or ``llmjudge_progress=0``: nothing.

Registered in every session that may show it, so light: the progress figures are imported
once an item waits.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any

import pytest

from .pytest_internals import terminal_stream, uncaptured
from .state import STATE_KEY

if TYPE_CHECKING:
    from ..judging.progress import Progress

SAVE, RESTORE, CLEAR = "\x1b7", "\x1b8", "\x1b[K"
TERMINAL_TICK = 0.5  # seconds between updates in place


class LiveProgress:
    """The progress line on pytest's terminal, or in its log."""

    def __init__(
        self, config: pytest.Config, progress: Callable[[], Progress], interval: float
    ) -> None:
        writer = config.get_terminal_writer()
        self._progress = progress
        self._writer = writer
        # pytest's writer holds the terminal's own stream (stdout is captured meanwhile)
        self._file: IO[str] | Any = terminal_stream(config)
        self._tty = bool(self._file is not None and self._file.isatty()) and writer.hasmarkup
        self._interval = interval
        self._last = time.monotonic()
        self._shown = False
        self._config = config

    def tick(self) -> None:
        """Called on pytest's thread about twice a second while an item waits."""
        now = time.monotonic()
        if now - self._last < (TERMINAL_TICK if self._tty else self._interval):
            return
        self._last = now  # also when there is nothing to show: asking costs O(runs)
        progress = self._progress()
        if not progress.worth_showing:
            return
        from ..judging.progress import progress_text

        with uncaptured(self._config):
            self._show(progress_text(progress))

    def _show(self, text: str) -> None:
        if not self._tty:
            if self._writer.width_of_current_line:
                self._writer.line()  # after pytest's progress characters
            self._writer.line(text)
            return
        room = self._writer.fullwidth - self._writer.width_of_current_line - 2
        if room < 20:
            return
        self._file.write(f"{CLEAR if self._shown else ''}{SAVE} {text[:room]}{RESTORE}")
        self._file.flush()
        self._shown = True

    def clear(self) -> None:
        """Before pytest writes again: the status goes, the cursor never moved."""
        if self._shown:
            self._file.write(CLEAR)
            self._file.flush()
            self._shown = False


class ProgressHooks:
    """Live judge progress while items wait for their judgments (``llmjudge_progress``)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.live: LiveProgress | None = None

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> None:
        state = self.config.stash[STATE_KEY]
        if self.live is None and state.has_evals:
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

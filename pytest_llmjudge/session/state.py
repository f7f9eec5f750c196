"""The session's state as pytest holds it (``config.stash``, ``item.stash``), and its factories.

Holds the resolved settings, the baseline and, once something is judged, the engine; per
item, its settings (resolved once) and its attempt running.
"""

from __future__ import annotations

import logging
import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import partial
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

import pytest

from ..basics.fileio import shown
from ..config.options import OPTIONS
from ..config.settings import Settings, SettingsError, resolve_settings, worker_share
from .option_validation import overridden_ini_keys, validate_ini_keys
from .pytest_internals import (
    ini_file_value,
    is_xdist_worker,
    log_handlers,
    report_log_handler,
    xdist_worker_input,
)

if TYPE_CHECKING:
    from ..analysis.baseline import Baseline
    from ..config.item_settings import ItemSettings
    from ..judges import ServerProfiles
    from ..judges.base import Totals
    from ..judging.engine import JudgeEngine
    from ..judging.verdict import Attempt, VerdictPolicy
    from ..outputs.session_results import SessionFacts


@dataclass
class SessionState:
    """The resolved settings, the baseline and, once something is judged, the engine."""

    settings: Settings
    cache_dir: Callable[[], Path] | None = None
    has_evals: bool = False  # eval items are selected to run (or a judge fixture ran)
    baseline: Baseline = field(default_factory=dict)
    baseline_mismatch: str | None = None  # another judge made the baseline: not compared
    usage: Totals | None = None  # what this process's engine sent, once judging has ended
    collected: list[str] = field(default_factory=list)  # eval node ids, deselected ones too
    _engine: JudgeEngine | None = field(default=None, init=False)
    _servers: ServerProfiles | None = field(default=None, init=False)  # kept across engines

    @property
    def has_engine(self) -> bool:
        return self._engine is not None

    def verdict_policy(self) -> VerdictPolicy:
        """How this item's judgments become its outcome (undecided verdicts); a regression
        against the baseline is the suite's gate, decided over all items at the end."""
        from ..judging.verdict import VerdictPolicy

        return VerdictPolicy(
            undecided=self.settings.undecided, confident=self.settings.verdict == "confident"
        )

    def engine(self) -> JudgeEngine:
        """Start the engine on first use: sessions that judge nothing never import the SDK."""
        if self._engine is None:
            from ..judges import make_judge
            from ..judging.cache import session_cache
            from ..judging.engine import JudgeEngine

            s = self.settings
            judge = partial(make_judge, profiles=self._profiles())
            self._engine = JudgeEngine(s, judge, session_cache(s, self.cache_dir))
        return self._engine

    def adopt_learned(self, learned: dict[str, Any]) -> None:
        """What xdist's workers learned of the session's server, for the judges this process
        builds after them (the pairwise engine on the controller)."""
        self._profiles().of(self.settings.base_url, self.settings.model).adopt(learned)

    def _profiles(self) -> ServerProfiles:
        """What this process knows of its servers, kept across the engines it builds."""
        from ..judges import ServerProfiles

        self._servers = self._servers or ServerProfiles()
        return self._servers

    def close(self) -> Totals | None:
        """Stop judging (cancel what is still running); what the engine sent, if it ran."""
        if self._engine is None:
            return None
        self._engine.close()
        usage = self._engine.totals()
        self._engine = None
        return usage


STATE_KEY = pytest.StashKey[SessionState]()
ATTEMPT_KEY: pytest.StashKey[Attempt] = pytest.StashKey()  # the attempt, until its teardown
ITEM_SETTINGS_KEY = pytest.StashKey["ItemSettings | str"]()
EVAL_ITEM_KEY = pytest.StashKey[bool]()
ATTEMPTS_KEY = pytest.StashKey[int]()  # attempts of an item so far (reruns count)


def touches_judge(item: pytest.Item) -> bool:
    """An eval item, or a test that used a judge fixture in this attempt (cheap to ask)."""
    return EVAL_ITEM_KEY in item.stash or ATTEMPT_KEY in item.stash


def settings_for(item: pytest.Item) -> ItemSettings:
    """Runs and thresholds of one item, resolved once: entry > marker > session settings.

    A bad ``llmjudge`` marker raises ValueError naming the test (each time it is asked).
    """
    resolved = item.stash.get(ITEM_SETTINGS_KEY, None)
    if resolved is None:
        resolved = _resolve_item(item)
        item.stash[ITEM_SETTINGS_KEY] = resolved
    if isinstance(resolved, str):
        raise ValueError(resolved)
    return resolved


def _resolve_item(item: pytest.Item) -> ItemSettings | str:
    from ..config.item_settings import Overrides, marker_overrides, resolve_item_settings

    settings = item.config.stash[STATE_KEY].settings
    layers = []
    marker = item.get_closest_marker("llmjudge")
    if marker is not None:
        try:
            layers.append(marker_overrides(marker.args, marker.kwargs, settings.dimensions))
        except ValueError as exc:
            return f"{item.nodeid}: {exc}"
    entry = getattr(item, "entry", None)  # an eval item's entry
    if entry is not None:
        layers.append(Overrides(entry.runs, entry.thresholds))
    return resolve_item_settings(settings.runs, settings.thresholds, *layers)


def session_state(config: pytest.Config) -> SessionState:
    """Resolve the settings of this process (an xdist worker gets its share of the limits)."""
    validate_ini_keys(config)
    cli = {spec.dest: config.getoption(f"llmjudge_{spec.dest}") for spec in OPTIONS if spec.flag}
    ini = {spec.ini: config.getini(spec.ini) for spec in OPTIONS if spec.ini}
    ini["llmjudge_prices"] = config.getini("llmjudge_prices")
    if "llmjudge_gates" in overridden_ini_keys(config):
        # -o adds gates to the ini file's (docs/configuration.md): none is dropped unsaid
        cli["gates"], ini["llmjudge_gates"] = (
            ini["llmjudge_gates"],
            ini_file_value(config, "llmjudge_gates"),
        )
    settings = resolve_settings(
        cli, os.environ, ini, base_dir=config.invocation_params.dir, ini_dir=config.rootpath
    )
    if settings.min_win_rate and not settings.pairwise:
        raise SettingsError("llmjudge_gates win_rate needs pairwise=true in llmjudge_targets")
    cache_dir = _cache_dir(config, settings.cache_dir)
    if settings.batch and settings.uses_llm and (cache_dir is None or not settings.cache):
        off = "-p no:cacheprovider" if settings.cache else "--judge-no-cache or llmjudge_cache"
        raise SettingsError(
            "llmjudge_batch keeps its batches and their replies in the judge cache, which "
            f"{off} turned off: turn it back on, or set llmjudge_cache = DIR"
        )
    if cache_dir is None:
        settings = replace(settings, cache=False)
    worker = xdist_worker_input(config)
    if worker is not None:
        index = int(str(worker["workerid"]).removeprefix("gw") or 0)
        settings = worker_share(settings, worker["workercount"], index)
    state = SessionState(settings, cache_dir)
    if settings.baseline is not None:
        from ..analysis.baseline import identity_mismatch, judge_identity, load_baseline

        try:  # read now: a missing or foreign baseline stops the session at once
            loaded = load_baseline(settings.baseline)
        except ValueError as exc:
            raise SettingsError(f"--judge-baseline {exc}") from None
        mismatch = identity_mismatch(loaded.judge, judge_identity(settings))
        if mismatch and "baseline" in settings.strict:
            raise SettingsError(
                f"strict baseline: {settings.baseline} was judged by another judge ({mismatch})"
            )
        state.baseline_mismatch = mismatch
        state.baseline = {} if mismatch else loaded.items
    return state


def clear_cache(config: pytest.Config, settings: Settings) -> None:
    """``--cache-clear`` also empties a judge cache kept outside pytest's cache directory."""
    controller = not is_xdist_worker(config)
    if controller and settings.cache_dir is not None and config.getoption("cacheclear", False):
        from ..judging.cache import clear_cache_dir

        clear_cache_dir(settings.cache_dir)


def _cache_dir(config: pytest.Config, configured: Path | None) -> Callable[[], Path] | None:
    """Where the judge cache lives: configured, else inside pytest's cache dir (if enabled)."""
    if configured is not None:
        return lambda: configured
    if not config.pluginmanager.has_plugin("cacheprovider"):  # -p no:cacheprovider
        return None
    # config.cache is set up in the cacheprovider's own configure hook: look it up at use.
    return lambda: config.cache.mkdir("llmjudge")


def session_facts(
    session: pytest.Session,
    exit_status: int,
    started: datetime,
    clock: float,
    notices: tuple[str, ...] = (),
) -> SessionFacts:
    """How the session ended, as plain values for ``SessionResults.finish`` (``notices``:
    what is said of it, such as xdist workers stopped before they said what they sent)."""
    from ..outputs.session_results import SessionFacts

    settings = session.config.stash[STATE_KEY].settings
    return SessionFacts(
        exit_status=exit_status,
        stopped_early=bool(session.shouldstop or session.shouldfail),
        started=started,
        duration=time.monotonic() - clock,
        baseline_shown=shown(settings.baseline) if settings.baseline else "",
        baseline_mismatch=session.config.stash[STATE_KEY].baseline_mismatch,
        notices=notices,
    )


class SigtermAsInterrupt:
    """Turns SIGTERM into KeyboardInterrupt while installed (only in sessions that judge)."""

    def __init__(self) -> None:
        self._previous: Any = None

    def install(self) -> None:
        if self._previous is not None:
            return
        try:
            if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
                self._previous = signal.signal(signal.SIGTERM, _interrupt)
        except ValueError:  # not the main thread
            pass

    def restore(self) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGTERM, self._previous)
            self._previous = None


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"received signal {signum}")


def validate_outputs(config: pytest.Config) -> None:
    """SettingsError when an output of a session that judges could not be written."""
    if is_xdist_worker(config) or config.getoption("collectonly"):
        return
    settings = config.stash[STATE_KEY].settings
    if settings.trace is not None:  # asked for: a fresh trace, before any worker appends
        from ..judging.trace import start_trace

        start_trace(settings.trace)
    from .discovery import may_collect_evals

    if not may_collect_evals(config):
        return  # not an eval session: its outputs are never written
    from ..outputs.destinations import unwritable_outputs

    problems = unwritable_outputs(settings, os.environ)
    if problems:
        raise SettingsError("cannot write " + "; ".join(problems))


def open_session_log(config: pytest.Config) -> logging.Handler | None:
    """``llmjudge_log_dir``: a timestamped log of this session (one per xdist worker)."""
    folder = config.stash[STATE_KEY].settings.log_dir
    if folder is None:
        return None
    from ..basics.redaction import RedactingFilter

    worker = (xdist_worker_input(config) or {}).get("workerid")
    stamp = time.strftime("%Y%m%d_%H%M%S")
    folder.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(
        folder / f"llmjudge_{stamp}{'_' + worker if worker else ''}.log", encoding="utf-8"
    )
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    handler.addFilter(RedactingFilter())
    logger = logging.getLogger("pytest_llmjudge")
    logger.addHandler(handler)
    if logger.level == logging.NOTSET or logger.level > logging.INFO:
        logger.setLevel(logging.INFO)
    return handler


def close_session_log(handler: logging.Handler | None) -> None:
    if handler is not None:
        logging.getLogger("pytest_llmjudge").removeHandler(handler)
        handler.close()


def install_log_redaction(config: pytest.Config) -> None:
    """Redact every record that reaches pytest's log handlers (captured logs, live logs, the
    log file), third-party loggers' (httpx2, openai) included; leave out of the captured logs
    what an item's report says already. Once per session."""
    from ..basics.redaction import NotTwiceFilter, RedactingFilter

    for handler in log_handlers(config):
        if not any(isinstance(f, RedactingFilter) for f in handler.filters):
            handler.addFilter(RedactingFilter())
            if handler is report_log_handler(config):  # log files and live logs keep them
                handler.addFilter(NotTwiceFilter())

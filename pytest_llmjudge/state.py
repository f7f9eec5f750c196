"""Per-session state kept in ``config.stash`` (never as attributes on pytest objects)."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from .settings import OPTIONS, Settings, SettingsError, resolve_settings, worker_share

if TYPE_CHECKING:
    from .engine import JudgeEngine, Judgment
    from .judging import VerdictPolicy


@dataclass
class SessionState:
    """The resolved settings and, once something is judged, the engine."""

    settings: Settings
    cache_dir: Callable[[], Path] | None = None
    collected_evals: bool = False
    _baseline: Mapping[str, Mapping[str, Mapping[str, Any]]] | None = None
    _engine: JudgeEngine | None = field(default=None, init=False)

    @property
    def has_engine(self) -> bool:
        return self._engine is not None

    def baseline(self) -> Mapping[str, Mapping[str, Mapping[str, Any]]]:
        """The baseline results by node id (empty without --judge-baseline); read once."""
        if self._baseline is None:
            from .gates import load_baseline

            path = self.settings.baseline
            self._baseline = load_baseline(path) if path is not None else {}
        return self._baseline

    def verdict_policy(self, nodeid: str) -> VerdictPolicy:
        """How this item's judgments become its outcome (unstable handling, regressions)."""
        from .gates import regression_messages
        from .judging import VerdictPolicy

        def regressions(judgments: Sequence[Judgment]) -> list[str]:
            after = {j.dimension: j.to_record() for j in judgments}
            return regression_messages(nodeid, after, self.baseline())

        return VerdictPolicy(
            unstable=self.settings.unstable,
            regressions=regressions if self.settings.fail_on_regression else None,
        )

    def engine(self) -> JudgeEngine:
        """Start the engine on first use: sessions that judge nothing never import the SDK."""
        if self._engine is None:
            from .cache import JudgeCache
            from .engine import JudgeEngine
            from .judges import make_judge

            s = self.settings
            cache = None
            if s.cache and self.cache_dir is not None:
                identity = {
                    "provider": "heuristic" if not s.uses_llm else "openai-compatible",
                    "base_url": s.base_url,
                    "model": s.model,
                    "temperature": s.temperature,
                }
                cache = JudgeCache(self.cache_dir, identity)
            self._engine = JudgeEngine(s, make_judge, cache)
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
    flaky_failed: bool = False
    answer: str | None = None  # a live target's answer, once fetched


STATE_KEY = pytest.StashKey[SessionState]()
RECORD_KEY = pytest.StashKey[ItemRecord]()


def record_for(item: pytest.Item) -> ItemRecord:
    """This attempt's record; the report hook drops it at teardown so reruns start afresh."""
    return item.stash.setdefault(RECORD_KEY, ItemRecord())


def session_state(config: pytest.Config) -> SessionState:
    """Resolve the settings of this process (an xdist worker gets its share of the limits)."""
    cli = {spec.dest: config.getoption(f"llmjudge_{spec.dest}") for spec in OPTIONS}
    ini = {spec.ini: config.getini(spec.ini) for spec in OPTIONS}
    ini["llmjudge_prices"] = config.getini("llmjudge_prices")
    settings = resolve_settings(
        cli, os.environ, ini, base_dir=config.invocation_params.dir, ini_dir=config.rootpath
    )
    cache_dir = _cache_dir(config, settings.cache_dir)
    if cache_dir is None:
        settings = replace(settings, cache=False)
    worker = getattr(config, "workerinput", None)
    if worker is not None:
        index = int(str(worker["workerid"]).removeprefix("gw") or 0)
        settings = worker_share(settings, worker["workercount"], index)
    elif settings.cache_dir is not None and config.getoption("cacheclear", False):
        from .cache import clear_cache_dir

        clear_cache_dir(settings.cache_dir)
    state = SessionState(settings, cache_dir)
    if settings.baseline is not None:
        try:
            state.baseline()  # read now: a missing or foreign baseline stops the session at once
        except ValueError as exc:
            raise SettingsError(f"--judge-baseline {exc}") from None
    return state


def _cache_dir(config: pytest.Config, configured: Path | None) -> Callable[[], Path] | None:
    """Where the judge cache lives: configured, else inside pytest's cache dir (if enabled)."""
    if configured is not None:
        return lambda: configured
    if not config.pluginmanager.has_plugin("cacheprovider"):  # -p no:cacheprovider
        return None
    # config.cache is set up in the cacheprovider's own configure hook: look it up at use.
    return lambda: config.cache.mkdir("llmjudge")

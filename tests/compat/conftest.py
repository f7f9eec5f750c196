"""The compatibility matrix printed at the end of its session, and kept where
``LLMJUDGE_COMPAT_MATRIX`` says (as .ci/run sets it): one line per row."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

MATRIX = "LLMJUDGE_COMPAT_MATRIX"


def _folder(config: pytest.Config) -> Path | None:
    file = os.environ.get(MATRIX)
    return Path(file + ".rows") if file else None


@pytest.fixture
def matrix(request: pytest.FixtureRequest) -> Iterator[Path | None]:
    """Where a row leaves its findings (None: no matrix asked for)."""
    folder = _folder(request.config)
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
    yield folder


@pytest.fixture(autouse=True)
def _load_plugins(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, pytester: pytest.Pytester
) -> None:
    """A module's plugins (``LOAD_PLUGINS``: their entry-point names) loaded into the sessions
    it runs, in-process or not, where plugins do not load themselves (the CI's compatibility
    step sets ``PYTEST_DISABLE_PLUGIN_AUTOLOAD``). After ``pytester``, which clears
    ``PYTEST_ADDOPTS``, and after ``judge_server``, which sets it."""
    plugins = getattr(request.module, "LOAD_PLUGINS", ())
    if plugins and os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
        if "judge_server" in request.fixturenames:
            request.getfixturevalue("judge_server")
        loads = " ".join(f"-p {name}" for name in ("llmjudge", "xdist", *plugins))
        monkeypatch.setenv("PYTEST_ADDOPTS", f"{os.environ.get('PYTEST_ADDOPTS', '')} {loads}")


def pytest_sessionstart(session: pytest.Session) -> None:
    folder = _folder(session.config)
    if folder is not None and not hasattr(session.config, "workerinput"):
        for old in folder.glob("*.json"):
            old.unlink()


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    folder = _folder(config)
    if folder is None or hasattr(config, "workerinput"):
        return
    rows = [json.loads(p.read_text()) | {"name": p.stem} for p in sorted(folder.glob("*.json"))]
    if not rows:
        return
    lines = [
        f"{'row':<18} {'works':<6} {'counts':<40} {'output':<7} plugins",
        *(
            f"{r['name']:<18} {_cell(r['works']):<6} "
            f"{_cell(r['counts'], r['numbers']):<40} {_cell(r['output']):<7} "
            f"{'+'.join(r['plugins']) or '(pytest only: --junitxml)'}"
            for r in rows
        ),
    ]
    terminalreporter.section("compatibility matrix")
    for line in lines:
        terminalreporter.write_line(line)
    Path(os.environ[MATRIX]).write_text("\n".join(lines) + "\n")


def _cell(problems: list[str], numbers: str = "") -> str:
    if problems:
        return "NO: " + "; ".join(problems)
    return f"ok ({numbers})" if numbers else "ok"

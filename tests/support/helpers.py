"""What the test modules share: eval files written, pytest run on them, results read back."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

API_KEY = "sk-test-SECRET-0123456789abcdef"

if TYPE_CHECKING:
    from pytest_llmjudge.config.settings import Settings
    from pytest_llmjudge.outputs.session_results import SessionFacts


def default_settings(**changes: Any) -> Settings:
    """The settings of a session without options, with no wait between retries."""
    from pytest_llmjudge.config.settings import resolve_settings

    base = resolve_settings({}, {}, {}, base_dir=Path("."), ini_dir=Path("."))
    return replace(base, retry_wait=0.0, **changes)


def session_facts(exit_status: int = 0) -> SessionFacts:
    """How a one-second session that started on 2026-01-01 ended."""
    from datetime import datetime, timezone

    from pytest_llmjudge.outputs.session_results import SessionFacts

    return SessionFacts(
        exit_status=exit_status,
        stopped_early=False,
        started=datetime(2026, 1, 1, tzinfo=timezone.utc),
        duration=1.0,
    )


def write_evals(
    pytester: pytest.Pytester, entries: Any, name: str = "support.json", folder: str = "evals"
) -> Path:
    path = pytester.path / folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(entries, indent=2))
    return path


def entry(
    id: str,
    response: str = "Raise the heap: set MAVEN_OPTS=-Xmx2g.",
    ticket: str = "Maven build fails with OOM in Jenkins",
    **extra: Any,
) -> dict[str, Any]:
    return {"id": id, "ticket": ticket, "response": response, **extra}


def read_results(pytester: pytest.Pytester, path: str = "results/output.json") -> dict[str, Any]:
    data: dict[str, Any] = json.loads((pytester.path / path).read_text())
    return data


def by_id(results: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in results["results"]}


# Every pytest run a test makes: without the assert-rewrite warning (see ``run``), and with its
# items in file order (pytest-randomly shuffles the suite's own tests; a run's output is read
# in order).
QUIET = ("-W", "ignore::pytest.PytestAssertRewriteWarning", "-p", "no:randomly")
# A pytest process of its own leaves out the test extra's Hypothesis plugin: at every
# session's end it imports Hypothesis, which pytest rewrites for asserts anew wherever it may
# not keep the rewritten bytecode (PYTHONDONTWRITEBYTECODE): 1.4 s of CPU a process here.
SUBPROCESS = (*QUIET, "-p", "no:hypothesispytest")


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """pytest in-process on the pytester directory.

    The plugin is imported by the outer session already, so pytest cannot rewrite its
    asserts again; that warning is about the test setup, not the plugin.
    """
    return pytester.runpytest(*QUIET, *args)


def run_until(
    pytester: pytest.Pytester, marker: str, *args: str
) -> tuple[subprocess.Popen[str], list[str]]:
    """pytest in a subprocess, its output read until a line holds ``marker`` (then returned)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "pytest", *QUIET, "-p", "no:xdist", *args],
        cwd=pytester.path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.stdout is not None
    seen = []
    for line in proc.stdout:
        seen.append(line)
        if marker in line:
            break
    return proc, seen


def run_subprocess(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess(*SUBPROCESS, *args)


_HOLD_LOCK = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA journal_mode=WAL")
db.execute("CREATE TABLE IF NOT EXISTS entries (key TEXT PRIMARY KEY, entry TEXT NOT NULL)")
db.execute("BEGIN IMMEDIATE")  # the write lock, held until stdin closes
print("locked", flush=True)
sys.stdin.read()
db.execute("ROLLBACK")
"""


@contextlib.contextmanager
def write_locked(database: Path) -> Iterator[None]:
    """An SQLite database held locked for writing by another process (as a second session,
    or a tool reading the cache, may hold it) until the block ends."""
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD_LOCK, str(database)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
    try:
        yield
    finally:
        holder.communicate("")  # released: the holder commits nothing and exits
    assert holder.returncode == 0

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpcore2  # noqa: F401
import openai  # noqa: F401
import pytest

# pytester's in-process runs drop modules first imported during a run; importing the SDK
# and the plugin's lazy modules here keeps each run from paying for those imports again.
# (httpx2 imports httpcore2 at its first request and keeps its exception classes: a fresh
# copy imported by a later run would no longer be recognised.)

sys.path.insert(0, str(Path(__file__).parent))

from judge_server import JudgeServer

API_KEY = "sk-test-SECRET-0123456789abcdef"
JUDGE_ENV = (
    "OPENAI_",
    "JUDGE_",
    "OLLAMA_",
    "AZURE_OPENAI",
    "GITHUB_ACTIONS",
    "GITHUB_STEP_SUMMARY",
)


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No judge configuration leaks in from the machine running the tests."""
    import os

    for name in list(os.environ):
        if name.startswith(JUDGE_ENV):
            monkeypatch.delenv(name)
    monkeypatch.delenv("PYTEST_ADDOPTS", raising=False)


@pytest.fixture(scope="session")
def _server() -> Iterator[JudgeServer]:
    server = JudgeServer().start()
    yield server
    server.stop()


@pytest.fixture
def judge_server(_server: JudgeServer, monkeypatch: pytest.MonkeyPatch) -> JudgeServer:
    """The local OpenAI-compatible server, reset, with the environment pointing at it."""
    _server.reset()
    monkeypatch.setenv("OPENAI_BASE_URL", _server.url)
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    monkeypatch.setenv("JUDGE_PROVIDER", "openai")
    monkeypatch.setenv("JUDGE_RETRY_WAIT", "0")
    return _server


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


QUIET = ("-W", "ignore::pytest.PytestAssertRewriteWarning")


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
    return pytester.runpytest_subprocess(*QUIET, *args)

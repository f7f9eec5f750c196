from __future__ import annotations

import os
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import httpcore2  # noqa: F401
import openai  # noqa: F401
import pytest

# pytester's in-process runs drop modules first imported during a run; importing the SDK
# and the plugin's lazy modules here keeps each run from paying for those imports again.
# (httpx2 imports httpcore2 at its first request and keeps its exception classes: a fresh
# copy imported by a later run would no longer be recognised.)

# the shared helpers and test servers (tests/support/) import by name in every test module
sys.path.insert(0, str(Path(__file__).parent / "support"))

from helpers import API_KEY
from judge_server import JudgeServer

SUITE_TIMEOUT = 300  # seconds any one test may take (pytest-timeout), unless it says otherwise
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
    # no wait between retries: an ini setting, for one run, as PYTEST_ADDOPTS carries it
    monkeypatch.setenv("PYTEST_ADDOPTS", "-o llmjudge_retry_wait=0")
    return _server


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A hung test fails on its own instead of holding the suite until CI's limit."""
    for item in items:
        if item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(SUITE_TIMEOUT))


@pytest.fixture
def dead_port() -> Iterator[int]:
    """A port bound and never listened on (held for the test, so that no other process takes
    it meanwhile): connections to it are refused."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        yield held.getsockname()[1]

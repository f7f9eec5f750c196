"""Runs judged directly are kept as soon as judged, whatever happens to the session: a process
killed outright, a cache database another process holds locked, a read-only cache folder."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import SUBPROCESS, entry, run, write_evals, write_locked
from judge_server import JudgeServer

CACHE = "judge-cache"


def _items(count: int, answer: str = "") -> list[dict[str, object]]:
    return [
        entry(f"case-{i}", f"Answer {i}. {answer}", ticket=f"Build {i} OOM") for i in range(count)
    ]


def _rows(folder: Path, read_only: bool = False) -> int:
    """The runs in the cache's database as another process sees them (0 before it exists)."""
    path = folder / "entries.sqlite3"
    uri = f"{path.as_uri()}?mode=ro" + "&immutable=1" * read_only  # no -shm to make there
    try:
        with sqlite3.connect(uri, uri=True, timeout=5) as db:
            (count,) = db.execute("SELECT count(*) FROM entries").fetchone()
    except sqlite3.OperationalError:  # not there yet, or its table not made yet
        return 0
    return int(count)


def _kept(folder: Path) -> int:
    """The runs kept: rows of the database, and files (a request whose transaction could not
    take the lock at once, as while this test's reader opened the database being made)."""
    return _rows(folder) + len(list(folder.rglob("*.json")))


def test_a_killed_session_keeps_every_run_it_judged(
    pytester: pytest.Pytester, judge_server: JudgeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 8 items x 2 dimensions: 16 requests of 3 runs, 2 at a time, each reply 0.4 s late
    write_evals(pytester, _items(8, "{{delay=0.4}}"))
    args = ["evals/", "--judge-runs=3", "--judge-concurrency=2", "-o", f"llmjudge_cache={CACHE}"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "pytest", *SUBPROCESS, "-p", "no:xdist", *args],
        cwd=pytester.path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    folder = pytester.path / CACHE
    deadline = time.monotonic() + 60
    while _kept(folder) < 6 and time.monotonic() < deadline:  # two requests' runs in
        time.sleep(0.05)
    seen = _kept(folder)
    assert proc.poll() is None, seen  # still judging: killed mid-run, nothing flushed at the end
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    kept = _kept(folder)
    assert 6 <= kept < 48 and kept % 3 == 0, (seen, kept)
    # the next session's requests told by their key: a request the killed one sent just
    # before its end may reach the server only now, on a loaded machine
    monkeypatch.setenv("OPENAI_API_KEY", "sk-next-session")
    run(pytester, *args).assert_outcomes(passed=8)
    asked = [r for r in judge_server.requests if "sk-next-session" in r.headers["authorization"]]
    assert len(asked) == 16 - kept // 3  # what the killed session paid for is kept


def test_a_database_locked_by_another_process_neither_stalls_judging_nor_costs_calls(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, _items(2))
    args = ["evals/", "--judge-runs=3", "-o", f"llmjudge_cache={CACHE}", "-o", "llmjudge_timeout=5"]
    run(pytester, *args).assert_outcomes(passed=2)  # the database made, 4 requests' runs in it
    write_evals(pytester, _items(6))
    judge_server.reset()
    started = time.monotonic()
    with write_locked(pytester.path / CACHE / "entries.sqlite3"):
        run(pytester, *args).assert_outcomes(passed=6)
    # the first two served from the locked database (readers never wait); the other four
    # asked once each, their runs kept in files at once: no wait, no timeout, no second call
    assert judge_server.count() == 8
    assert time.monotonic() - started < 30  # a write waiting on the lock waited 60 s
    assert len(list((pytester.path / CACHE).rglob("*.json"))) == 24
    judge_server.reset()
    run(pytester, *args).assert_outcomes(passed=6)
    assert judge_server.count() == 0  # the files read on


def _mount_read_only(folder: Path) -> None:
    for args in (["--bind", str(folder), str(folder)], ["-o", "remount,ro,bind", str(folder)]):
        if subprocess.run(["mount", *args], capture_output=True, check=False).returncode:
            pytest.skip("a read-only bind mount needs root and mount rights")


def test_a_read_only_cache_folder_serves_what_it_has_and_judges_the_rest(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, _items(2))
    args = ["evals/", "--judge-runs=3", "-o", f"llmjudge_cache={CACHE}"]
    run(pytester, *args).assert_outcomes(passed=2)
    folder = pytester.path / CACHE
    _mount_read_only(folder)
    try:
        write_evals(pytester, _items(3))
        judge_server.reset()
        result = run(pytester, *args)
        result.assert_outcomes(passed=3)
        assert judge_server.count() == 2  # only the new item's two judgments asked
        assert "INTERNALERROR" not in result.stdout.str()
        assert _rows(folder, read_only=True) == 12
    finally:
        subprocess.run(["umount", "--lazy", str(folder)], capture_output=True, check=False)

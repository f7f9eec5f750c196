"""The cache's database: a batch's runs in one write, as content-addressed and tamper-evident
as the files of runs judged directly."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_llmjudge.basics.rubrics import RELEVANCE, TONE
from pytest_llmjudge.judges import RunResult
from pytest_llmjudge.judging.cache import JudgeCache
from pytest_llmjudge.judging.cache_db import DATABASE, _busy
from pytest_llmjudge.judging.cache_entries import entry_text

from helpers import write_locked


def _cache(tmp_path: Path) -> JudgeCache:
    return JudgeCache(lambda: tmp_path, {"model": "m"})


def test_many_runs_in_one_write_read_back_as_written(tmp_path: Path) -> None:
    cache = _cache(tmp_path)
    keys = [cache.key(RELEVANCE, "ticket", f"answer {i}", i % 3) for i in range(2_000)]
    results = [RunResult(i % 5 + 1, f"reason {i}", 10 + i, 2) for i in range(2_000)]
    assert cache.put_many(zip(keys, results, strict=True))
    assert not list(tmp_path.rglob("*.json"))  # one database, not a file per run
    assert (tmp_path / DATABASE).is_file()
    again = _cache(tmp_path)  # another session (or xdist worker) reads them
    assert [again.get(key) for key in keys] == results
    assert again.held([*keys[:700], "0" * 64], set()) == set(keys[:700])


def test_a_changed_or_moved_row_is_a_miss(tmp_path: Path) -> None:
    cache = _cache(tmp_path)
    key, other = (cache.key(TONE, "ticket", answer, 0) for answer in ("a", "b"))
    assert cache.put_many([(key, RunResult(2, "weak", 10, 2))])
    cache.close()
    db = sqlite3.connect(tmp_path / DATABASE)
    (text,) = db.execute("SELECT entry FROM entries WHERE key = ?", (key,)).fetchone()
    db.execute(
        "UPDATE entries SET entry = ? WHERE key = ?", (text.replace('"score":2', '"score":5'), key)
    )
    db.execute("INSERT INTO entries VALUES (?, ?)", (other, text))  # a valid entry, wrong key
    db.commit()
    db.close()
    cache = _cache(tmp_path)
    assert cache.get(key) is None  # edited after it was written: the checksum says so
    assert cache.get(other) is None
    assert cache.held([key, other], set()) == set()


def test_a_damaged_database_is_a_miss_and_nothing_crashes(tmp_path: Path) -> None:
    (tmp_path / DATABASE).write_bytes(b"not a database" * 100)
    cache = _cache(tmp_path)
    key = cache.key(RELEVANCE, "ticket", "answer", 0)
    assert cache.get(key) is None
    assert cache.put_many([(key, RunResult(4, "ok", 1, 1))]) is False  # the caller keeps them
    assert cache.held([key], set()) == set()
    cache.put(key, RunResult(4, "ok", 1, 1))  # runs judged directly are still kept
    assert cache.get(key) == RunResult(4, "ok", 1, 1)


def _old_file(folder: Path, key: str, result: RunResult) -> None:
    """A run's file, as every cache kept runs judged directly before the database."""
    path = folder / key[:2] / f"{key}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(entry_text(key, result))


def test_an_old_cache_folder_reads_on_beside_the_database(tmp_path: Path) -> None:
    cache = _cache(tmp_path)
    key, new = (cache.key(RELEVANCE, "ticket", answer, 0) for answer in ("old", "new"))
    _old_file(tmp_path, key, RunResult(3, "from a file", 5, 1))
    assert json.loads(next(tmp_path.rglob("*.json")).read_text())["score"] == 3
    assert cache.put_many([(new, RunResult(5, "from the database", 5, 1))])
    assert cache.get(key) == RunResult(3, "from a file", 5, 1)
    assert cache.get(new) == RunResult(5, "from the database", 5, 1)
    assert cache.held([key, new], cache.stored_keys()) == {key, new}


@pytest.fixture
def read_only(tmp_path: Path) -> Iterator[Path]:
    """A folder mounted read-only onto itself (root, and a kernel that allows it)."""
    folder = tmp_path / "cache"
    folder.mkdir()
    yield folder
    subprocess.run(["umount", "--lazy", str(folder)], capture_output=True, check=False)


def _mount_read_only(folder: Path) -> None:
    if shutil.which("mount") is None:
        pytest.skip("a read-only bind mount needs the mount command")
    for args in (["--bind", str(folder), str(folder)], ["-o", "remount,ro,bind", str(folder)]):
        if subprocess.run(["mount", *args], capture_output=True, check=False).returncode:
            pytest.skip("a read-only bind mount needs root and mount rights")


def test_a_read_only_cache_folder_still_serves_a_batchs_runs(read_only: Path) -> None:
    # a cache restored read-only (a CI cache step, a volume mounted :ro): WAL mode could not
    # open the database there, and every run was asked again
    cache = _cache(read_only)
    keys = [cache.key(RELEVANCE, "ticket", f"answer {i}", 0) for i in range(20)]
    results = [RunResult(i % 5 + 1, f"reason {i}", 10, 2) for i in range(20)]
    assert cache.put_many(zip(keys, results, strict=True))
    cache.close()
    _mount_read_only(read_only)
    again = _cache(read_only)
    assert [again.get(key) for key in keys] == results
    assert again.held(keys, set()) == set(keys)
    assert not again.put_many([(cache.key(TONE, "t", "r", 0), results[0])])  # nothing written
    again.close()


def test_a_requests_runs_go_to_files_at_once_while_another_process_holds_the_lock(
    tmp_path: Path,
) -> None:
    cache = _cache(tmp_path)
    first = cache.key(RELEVANCE, "ticket", "answer", 0)
    cache.put_runs([(first, RunResult(4, "in the database", 1, 1))])
    keys = [cache.key(TONE, "ticket", "answer", i) for i in range(3)]
    judged = {key: RunResult(i + 1, "in a file", 1, 1) for i, key in enumerate(keys)}
    with write_locked(tmp_path / DATABASE):
        started = time.monotonic()
        cache.put_runs(list(judged.items()))
        assert time.monotonic() - started < 1  # no wait for the lock (it waited 60 s)
        assert len(list(tmp_path.rglob("*.json"))) == 3
        # readers do not wait for a writer: both kinds served while the lock is held
        assert (
            cache.get_runs([first, *keys])
            == {first: RunResult(4, "in the database", 1, 1)} | judged
        )
    assert _cache(tmp_path).get_runs(keys) == judged  # the next session reads the files


def test_a_read_only_cache_folder_serves_runs_judged_directly(read_only: Path) -> None:
    cache = _cache(read_only)
    keys = [cache.key(RELEVANCE, "ticket", "answer", i) for i in range(3)]
    judged = {key: RunResult(i + 1, "judged", 10, 2) for i, key in enumerate(keys)}
    cache.put_runs(list(judged.items()))
    old = cache.key(TONE, "ticket", "answer", 0)
    _old_file(read_only, old, RunResult(2, "an older cache's file", 5, 1))
    cache.close()
    _mount_read_only(read_only)
    again = _cache(read_only)
    assert again.get_runs([*keys, old]) == judged | {
        old: RunResult(2, "an older cache's file", 5, 1)
    }
    new = again.key(TONE, "ticket", "answer", 1)
    again.put_runs([(new, RunResult(5, "not kept", 1, 1))])  # neither kept nor a crash
    assert again.get(new) is None
    again.close()


def test_a_lock_is_told_from_other_errors_also_without_pythons_error_code() -> None:
    # Python 3.10 gives no sqlite_errorcode: a lock met while another xdist worker makes the
    # database must not be taken for a database that cannot be written (files all session)
    assert _busy(sqlite3.OperationalError("database is locked"))
    assert not _busy(sqlite3.OperationalError("disk I/O error"))
    assert not _busy(sqlite3.DatabaseError("file is not a database"))

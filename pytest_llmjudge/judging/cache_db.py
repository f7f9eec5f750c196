"""The judge cache's database: entries written many at once (a batch's runs; runs judged
directly, a few dozen at a time), as the sealed JSON text a run's file would hold, under the
same key, in ``entries.sqlite3`` of the cache folder (the standard library's SQLite: one
transaction instead of a file per run; xdist workers wait for each other's writes, readers
never wait).

A database that cannot be opened or read (damaged, or not one) is a miss for every key and
takes no writes: the cache then only costs calls, never the session.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Sequence
from pathlib import Path

DATABASE = "entries.sqlite3"
SQL_CHUNK = 500  # keys per query: below SQLite's limit on parameters
# Runs judged directly wait in memory until this many, or this long, then go in one
# transaction (a file per run cost 45 us of CPU in four system calls, a row 7 us): a process
# killed outright loses at most these, which later sessions ask again.
HELD_ROWS, HELD_SECONDS = 64, 2.0


class EntryDatabase:
    """Entries by key; made only by a write (a session that judges directly leaves none)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db: sqlite3.Connection | None = None
        self._lock = threading.Lock()  # the engine's loop thread and pytest's share it
        self._broken = False
        self._held: dict[str, str] = {}  # rows not written yet (``hold``), read as written
        self._held_since = 0.0

    def _open(self, create: bool) -> sqlite3.Connection | None:
        if self._db is None and not self._broken:
            if not create and not self.path.exists():
                return None
            try:
                if create:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                db = sqlite3.connect(self.path, timeout=60, check_same_thread=False)
                db.execute("PRAGMA journal_mode=WAL")  # readers do not wait for a writer
                db.execute("PRAGMA synchronous=NORMAL")  # a lost entry is only a miss
                db.execute(
                    "CREATE TABLE IF NOT EXISTS entries (key TEXT PRIMARY KEY, entry TEXT"
                    " NOT NULL) WITHOUT ROWID"
                )
                db.commit()
            except sqlite3.Error:
                self._broken = True
                return None
            self._db = db
        return self._db

    def texts(self, keys: Sequence[str]) -> list[tuple[str, str]]:
        """(key, text) of those of ``keys`` that are stored, a query per few hundred."""
        found: list[tuple[str, str]] = []
        with self._lock:
            if self._held:
                found = [(key, self._held[key]) for key in keys if key in self._held]
                keys = [key for key in keys if key not in self._held]
            db = self._open(create=False)
            for start in range(0, len(keys) if db is not None else 0, SQL_CHUNK):
                chunk = keys[start : start + SQL_CHUNK]
                marks = ",".join("?" * len(chunk))
                query = f"SELECT key, entry FROM entries WHERE key IN ({marks})"
                try:
                    found += db.execute(query, chunk).fetchall()  # type: ignore[union-attr]
                except sqlite3.Error:
                    return found
        return found

    def put(self, rows: Sequence[tuple[str, str]]) -> bool:
        """(key, text) rows in one transaction; False if they could not be written."""
        with self._lock:
            return self._put(rows)

    def _put(self, rows: Sequence[tuple[str, str]]) -> bool:
        db = self._open(create=True)
        if db is None:
            return False
        try:
            with db:
                db.executemany("INSERT OR REPLACE INTO entries VALUES (?, ?)", rows)
        except sqlite3.Error:
            return False
        return True

    def hold(self, key: str, text: str) -> list[tuple[str, str]]:
        """A row written with the next ones (``HELD_ROWS`` or ``HELD_SECONDS``); read as
        written meanwhile. Returns the rows that could not be written (the caller keeps
        them another way)."""
        with self._lock:
            if self._broken:
                return [(key, text)]
            if not self._held:
                self._held_since = time.monotonic()
            self._held[key] = text
            if len(self._held) < HELD_ROWS and time.monotonic() - self._held_since < HELD_SECONDS:
                return []
        return self.flush()

    def flush(self) -> list[tuple[str, str]]:
        """Write the held rows; those that could not be written are returned."""
        with self._lock:
            rows = list(self._held.items())
            written = not rows or self._put(rows)
            self._held.clear()
        return [] if written else rows

    def close(self) -> None:
        """Close the connection (``flush`` first: held rows are not written here)."""
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

"""The judge cache's database: entries written many at once (a batch's runs), as the sealed
JSON text a run's file would hold, under the same key, in ``entries.sqlite3`` of the cache
folder (the standard library's SQLite: one transaction instead of a file per run; xdist
workers wait for each other's writes, readers never wait).

A database that cannot be opened or read (damaged, or not one) is a miss for every key and
takes no writes: the cache then only costs calls, never the session.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path

DATABASE = "entries.sqlite3"
SQL_CHUNK = 500  # keys per query: below SQLite's limit on parameters


class EntryDatabase:
    """Entries by key; made only by a write (a session that judges directly leaves none)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db: sqlite3.Connection | None = None
        self._lock = threading.Lock()  # the engine's loop thread and pytest's share it
        self._broken = False

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
                # a folder SQLite cannot write in (a cache restored read-only) still reads
                kept = None if create else self._read_only()
                if kept is None:
                    self._broken = True
                    return None
                db = kept
            self._db = db
        return self._db

    def _read_only(self) -> sqlite3.Connection | None:
        """The database as it stands, where its journal files cannot be made beside it (WAL
        mode needs them even to read): opened immutable, since nobody can change it there."""
        try:
            uri = f"{self.path.resolve().as_uri()}?mode=ro&immutable=1"
            db = sqlite3.connect(uri, uri=True, check_same_thread=False)
            db.execute("SELECT 1 FROM entries LIMIT 1")
        except sqlite3.Error:
            return None
        return db

    def texts(self, keys: Sequence[str]) -> list[tuple[str, str]]:
        """(key, text) of those of ``keys`` that are stored, a query per few hundred."""
        found: list[tuple[str, str]] = []
        with self._lock:
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
            db = self._open(create=True)
            if db is None:
                return False
            try:
                with db:
                    db.executemany("INSERT OR REPLACE INTO entries VALUES (?, ?)", rows)
            except sqlite3.Error:
                return False
        return True

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

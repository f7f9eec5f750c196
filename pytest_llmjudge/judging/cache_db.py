"""The judge cache's database: entries as the sealed JSON text a run's file would hold, under
the same key, in ``entries.sqlite3`` of the cache folder (the standard library's SQLite in WAL
mode: a commit is in the operating system's hands, so a process killed outright keeps it).

A batch's runs go in one transaction (xdist workers wait for each other's writes); a
request's runs judged directly in one short transaction that never waits: when another
process holds the lock, or the folder is read-only, the caller writes files instead, so the
judging thread never stalls on the database. A read never waits either (busy: a miss). A
database that cannot be opened or read (damaged, or not one) is a miss for every key and
takes no writes: the cache then only costs calls, never the session.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path

DATABASE = "entries.sqlite3"
SQL_CHUNK = 500  # keys per query: below SQLite's limit on parameters
BATCH_WAIT_MS = 60_000  # a batch's write waits this long for another process's


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
            db = None
            try:
                if create:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                # no wait at another process's lock (see above); a batch's write sets one
                db = sqlite3.connect(self.path, timeout=0, check_same_thread=False)
                db.execute("PRAGMA journal_mode=WAL")  # readers do not wait for a writer
                # a commit is written, not flushed: it outlives the process, not the machine
                db.execute("PRAGMA synchronous=NORMAL")
                db.execute(
                    "CREATE TABLE IF NOT EXISTS entries (key TEXT PRIMARY KEY, entry TEXT"
                    " NOT NULL) WITHOUT ROWID"
                )
                db.commit()
            except (sqlite3.Error, OSError) as exc:
                if db is not None:
                    db.close()
                if _busy(exc):
                    return None  # another process is making it: opened next time
                # a folder SQLite cannot write in (a cache restored read-only) still reads
                db = self._read_only() if self.path.exists() else None
                if db is None:
                    self._broken = True
                    return None
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
        """(key, text) rows in one transaction, waiting for another process's write (a
        batch's); False if they could not be written."""
        with self._lock:
            db = self._open(create=True)
            if db is None:
                return False
            try:
                db.execute(f"PRAGMA busy_timeout={BATCH_WAIT_MS}")
                try:
                    return _insert(db, rows)
                finally:
                    db.execute("PRAGMA busy_timeout=0")
            except sqlite3.Error:
                return False

    def put_now(self, rows: Sequence[tuple[str, str]]) -> bool:
        """(key, text) rows in one transaction without waiting (a request's runs judged
        directly): False when they could not be written at once (another process holds the
        lock, or this one's batch write; a read-only or damaged database)."""
        if not self._lock.acquire(blocking=False):
            return False
        try:
            db = self._open(create=True)
            return db is not None and _insert(db, rows)
        finally:
            self._lock.release()

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None


def _insert(db: sqlite3.Connection, rows: Sequence[tuple[str, str]]) -> bool:
    try:
        with db:
            db.executemany("INSERT OR REPLACE INTO entries VALUES (?, ?)", rows)
    except (sqlite3.Error, UnicodeError):  # (a text SQLite cannot take: written as a file)
        return False
    return True


SQLITE_BUSY, SQLITE_LOCKED = 5, 6  # primary result codes (sqlite3 names them from 3.11)


def _busy(exc: BaseException) -> bool:
    """SQLITE_BUSY or SQLITE_LOCKED: another connection holds the lock (it will pass). The
    code is known from Python 3.11; before, only SQLite's own message says it."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None:  # Python 3.10
        return isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc)
    return isinstance(code, int) and code & 0xFF in (SQLITE_BUSY, SQLITE_LOCKED)

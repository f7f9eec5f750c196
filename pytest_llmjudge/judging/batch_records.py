"""The batches a session submitted, kept in the judge cache folder (``batches/``) so that a
later session collects them instead of submitting them again.

A record is written before each step that the provider remembers (the upload, the batch's
creation) and again after it: a session stopped between the two (Ctrl-C, a lost connection)
leaves a record from which the next session goes on without a second submission. It maps
each request (``custom_id``, the cache key of its first run) to the runs its choices judge.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..basics.fileio import write_atomically

RECORD_FORMAT = 1


@dataclass
class LineRuns:
    """What one request of a batch judges: the dimensions each choice scores (one, or an
    item's group) and, per choice, each of those dimensions' run key."""

    parts: list[str]
    keys: list[list[str]]

    def run_keys(self) -> list[str]:
        return [key for choice in self.keys for key in choice]


@dataclass
class BatchRecord:
    judge: str  # the judge's identity (model, server): another judge's batches are not ours
    fingerprint: str  # of the requests: the batch's metadata, to find it again
    lines: dict[str, LineRuns]
    submitted: float = field(default_factory=time.time)
    input_file_id: str | None = None
    batch_id: str | None = None
    #: its lines as JSON, made at the first save (a record is saved three times a batch)
    lines_json: str | None = field(default=None, repr=False, compare=False)

    def run_keys(self) -> set[str]:
        return {key for line in self.lines.values() for key in line.run_keys()}


def fingerprint(custom_ids: list[str]) -> str:
    return hashlib.sha256("\n".join(sorted(custom_ids)).encode()).hexdigest()[:32]


class BatchRecords:
    """The records of one cache folder."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory / "batches"

    def load(self, judge: str) -> list[BatchRecord]:
        """This judge's records, oldest first; an unreadable record is left alone."""
        records = []
        for path in sorted(self.directory.glob("*.json")):
            with contextlib.suppress(OSError, ValueError, TypeError, KeyError):
                data = json.loads(path.read_text(encoding="utf-8"))
                if data.get("format") != RECORD_FORMAT or data.get("judge") != judge:
                    continue
                lines = {cid: LineRuns(**line) for cid, line in data["lines"].items()}
                fields = {k: v for k, v in data.items() if k not in ("format", "lines")}
                records.append(BatchRecord(**fields, lines=lines))
        return sorted(records, key=lambda record: record.submitted)

    def save(self, record: BatchRecord) -> None:
        # by hand, not dataclasses.asdict: that deep-copies 10^5 keys, three times a batch;
        # the lines (which do not change) are made JSON once: the text json.dumps gives
        if record.lines_json is None:
            lines = {cid: {"parts": r.parts, "keys": r.keys} for cid, r in record.lines.items()}
            record.lines_json = json.dumps(lines)
        fields = {name: getattr(record, name) for name in ("judge", "fingerprint", "submitted")}
        fields |= {"input_file_id": record.input_file_id, "batch_id": record.batch_id}
        head = json.dumps({"format": RECORD_FORMAT, **fields})
        text = f'{head[:-1]}, "lines": {record.lines_json}}}'
        write_atomically(self._path(record), text, durable=True)

    def drop(self, record: BatchRecord) -> None:
        with contextlib.suppress(OSError):
            self._path(record).unlink()

    def _path(self, record: BatchRecord) -> Path:
        return self.directory / f"{record.fingerprint}.json"

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Held while records are read and a batch is submitted: xdist workers planning the
        same runs submit them once (the others find the record)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        with open(self.directory / ".lock", "a+b") as handle:
            try:
                import fcntl
            except ImportError:  # pragma: no cover - Windows: no lock between workers
                yield
                return
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)


def identity_digest(identity: dict[str, Any]) -> str:
    """A short name for a judge's identity (the cache's: provider, server, model...)."""
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:16]

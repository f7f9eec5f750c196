"""``--judge-trace PATH``: one JSON line per judge request (and per run served from the cache),
secrets redacted. Each process appends whole lines (one ``write`` each) to the same file."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from .redaction import redact


def start_trace(path: Path) -> None:
    """An empty trace file for this session (the controller, before any worker starts)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("", encoding="utf-8")


class TraceWriter:
    """Appends trace records to a file, one line per record."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def write(self, record: dict[str, Any]) -> None:
        if self._fd is None:
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        line = redact(json.dumps(record, ensure_ascii=False, default=str)) + "\n"
        os.write(self._fd, line.encode())

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

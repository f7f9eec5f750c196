"""Files that readers never see half-written."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

#: the suffixes of eval files: JSON, JSON Lines, CSV, YAML (read by ``dataset``/``formats``)
EVAL_SUFFIXES = (".json", ".jsonl", ".csv", ".yaml", ".yml")


def write_atomically(
    path: Path, text: str, durable: bool = True, *, folder_exists: bool = False
) -> None:
    """Write via a temporary file in the same directory and rename: readers never see half.

    ``durable`` also flushes to disk before the rename (results: yes; cache entries, whose
    loss is only a cache miss: no). ``folder_exists``: the caller made the folder already.
    """
    if not folder_exists:
        path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.chmod(tmp_name, 0o666 & ~_umask())  # as any file the user creates, not 0600
        os.replace(tmp_name, path)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise


def shown(path: Path) -> str:
    """A path as the user should read it: relative to the working directory."""
    try:
        return os.path.relpath(path)
    except ValueError:  # pragma: no cover - another drive on Windows
        return str(path)


_UMASK: list[int] = []


def _umask() -> int:
    """The process's umask (read once: reading it means setting it)."""
    if not _UMASK:
        current = os.umask(0o022)
        os.umask(current)
        _UMASK.append(current)
    return _UMASK[0]

"""Files that readers never see half-written."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from pathlib import Path

#: the suffixes of eval files: JSON, JSON Lines, CSV, YAML (read by ``dataset``/``formats``)
EVAL_SUFFIXES = (".json", ".jsonl", ".csv", ".yaml", ".yml")


def write_atomically(
    path: Path, text: str | bytes, durable: bool = True, *, folder_exists: bool = False
) -> None:
    """Write via a temporary file in the same directory and rename: readers never see half.

    ``durable`` also flushes to disk before the rename (results: yes; cache entries, whose
    loss is only a cache miss: no). ``folder_exists``: the caller made the folder already.
    """
    data = text.encode() if isinstance(text, str) else text
    write_chunks_atomically(path, [data], durable, folder_exists=folder_exists)


def write_chunks_atomically(
    path: Path, chunks: Iterable[bytes], durable: bool = True, *, folder_exists: bool = False
) -> None:
    """``write_atomically`` of a text made as it is written (a results file's rows read back
    from disk), never whole in memory."""
    if not folder_exists:
        path.parent.mkdir(parents=True, exist_ok=True)
    # A name of this process and thread: no other writer takes it, so no random name is
    # needed (a batch writes a cache entry per run this way).
    # The mode 0o666 less the umask, as any file the user creates.
    tmp = path.parent / f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp"
    fd = _create(tmp)
    try:
        try:
            for data in chunks:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _create(tmp: Path) -> int:
    """A new file, not through a link; one left by a crashed writer of that name is replaced."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    flags |= getattr(os, "O_BINARY", 0)
    try:
        return os.open(tmp, flags, 0o666)
    except FileExistsError:
        tmp.unlink()
        return os.open(tmp, flags, 0o666)


def shown(path: Path) -> str:
    """A path as the user should read it: relative to the working directory."""
    try:
        return os.path.relpath(path)
    except ValueError:  # pragma: no cover - another drive on Windows
        return str(path)

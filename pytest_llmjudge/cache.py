"""A content-addressed, on-disk cache of successful judge runs.

One small JSON file per run, named by the SHA-256 of everything that changes the judgment:
provider, base URL, model, temperature, prompt/rubric version, dimension, ticket, response
and run index. Entries are written atomically (temp file + rename), so several xdist
workers can read and write the same directory at once; an unreadable entry is a miss.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from .fileio import write_atomically
from .judges.base import RunResult
from .rubrics import Dimension

CACHE_FORMAT = 1


class JudgeCache:
    """Maps a run's identity to its validated result."""

    def __init__(self, directory: Callable[[], Path], identity: Mapping[str, Any]) -> None:
        self._directory_factory = directory
        self._directory: Path | None = None
        self._identity = dict(identity)

    @property
    def directory(self) -> Path:
        # Resolved on first use, so that a session that judges nothing creates no directory.
        if self._directory is None:
            self._directory = self._directory_factory()
        return self._directory

    def key(self, dimension: Dimension, ticket: str, response: str, run_index: int) -> str:
        material = json.dumps(
            [
                CACHE_FORMAT,
                self._identity,
                dimension.name,
                dimension.version,
                ticket,
                response,
                run_index,
            ],
            sort_keys=True,
        )
        return hashlib.sha256(material.encode()).hexdigest()

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> RunResult | None:
        try:
            data = json.loads(self._path(key).read_text(encoding="utf-8"))
            result = RunResult(
                score=data["score"],
                reasoning=data["reasoning"],
                prompt_tokens=data.get("prompt_tokens", 0),
                completion_tokens=data.get("completion_tokens", 0),
            )
        except (OSError, ValueError, KeyError, TypeError):
            return None
        valid = isinstance(result.score, int) and 1 <= result.score <= 5
        return result if valid and isinstance(result.reasoning, str) else None

    def put(self, key: str, result: RunResult) -> None:
        entry = {
            "score": result.score,
            "reasoning": result.reasoning,
            "prompt_tokens": result.prompt_tokens,
            "completion_tokens": result.completion_tokens,
        }
        # A cache that cannot be written only costs a call next time.
        with contextlib.suppress(OSError):
            write_atomically(self._path(key), json.dumps(entry), durable=False)


def clear_cache_dir(path: Path) -> None:
    """Remove a cache directory (``--cache-clear`` for a location outside .pytest_cache)."""
    shutil.rmtree(path, ignore_errors=True)

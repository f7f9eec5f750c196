"""A content-addressed, on-disk cache of successful judge runs.

One small JSON file per run, named by the SHA-256 of everything that changes the judgment:
provider, base URL, model, temperature, prompt/rubric version, dimension, ticket, response,
run index, and the earlier turns and the reference answer where the judge sees them. Entries
are written atomically (temp file + rename), so several xdist
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

from ..basics.fileio import write_atomically
from ..basics.rubrics import NO_CONTEXT, Context, Dimension
from ..judges.base import RunResult

CACHE_FORMAT = 2


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

    def key(
        self,
        dimension: Dimension,
        ticket: str,
        response: str,
        run_index: int,
        context: Context = NO_CONTEXT,
    ) -> str:
        material = json.dumps(
            [
                CACHE_FORMAT,
                self._identity,
                dimension.name,
                dimension.version,
                ticket,
                response,
                run_index,
                # earlier turns, and the reference for a dimension that uses it; nothing for
                # a single-turn entry, whose keys stay as they were
                *context.for_dimension(dimension).key(),
            ],
            sort_keys=True,
        )
        return hashlib.sha256(material.encode()).hexdigest()

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> RunResult | None:
        """The stored result, or None (a miss) unless the entry is whole and exactly valid:
        written for this key, unchanged since (checksum), a score that is an integer 1-5 (or
        a weighted score in [1, 5] beside the integer the judge wrote)."""
        try:
            entry = json.loads(self._path(key).read_text(encoding="utf-8"))
            stored = {name: entry[name] for name in FIELDS}
            checksum = entry["checksum"]
        except (OSError, ValueError, KeyError, TypeError):
            return None
        score, reasoning, text_score = stored["score"], stored["reasoning"], entry.get("text_score")
        whole = type(score) is int and text_score is None  # not a bool
        weighted = type(score) is float and type(text_score) is int and 1 <= text_score <= 5
        valid = (
            checksum == _checksum({**stored, "text_score": text_score} if weighted else stored)
            and stored["key"] == key
            and (whole or weighted)
            and 1 <= score <= 5
            and isinstance(reasoning, str)
            and all(type(stored[n]) is int for n in ("prompt_tokens", "completion_tokens"))
        )
        if not valid:
            return None
        tokens = stored["prompt_tokens"], stored["completion_tokens"]
        return RunResult(score, reasoning, *tokens, text_score=text_score)

    def put(self, key: str, result: RunResult) -> None:
        stored = {
            "key": key,
            "score": result.score,
            "reasoning": result.reasoning,
            "prompt_tokens": result.prompt_tokens,
            "completion_tokens": result.completion_tokens,
        }
        if result.text_score is not None:  # weighted by logprobs (text entries stay as they were)
            stored["text_score"] = result.text_score
        entry = {**stored, "checksum": _checksum(stored)}
        # A cache that cannot be written only costs a call next time.
        with contextlib.suppress(OSError):
            write_atomically(self._path(key), json.dumps(entry), durable=False)


FIELDS = ("key", "score", "reasoning", "prompt_tokens", "completion_tokens")


def _checksum(stored: dict[str, Any]) -> str:
    """Of the entry's content: an entry changed after it was written is a miss."""
    return hashlib.sha256(json.dumps(stored, sort_keys=True).encode()).hexdigest()


def clear_cache_dir(path: Path) -> None:
    """Remove a cache directory (``--cache-clear`` for a location outside .pytest_cache)."""
    shutil.rmtree(path, ignore_errors=True)

"""A content-addressed, on-disk cache of successful judge runs.

Each run is keyed by the SHA-256 of everything that changes the judgment: provider, base
URL, model, temperature, prompt/rubric version, dimension, ticket, response, run index, and
the earlier turns and the reference answer where the judge sees them; a pairwise run's key
holds both answers in the order shown. A run judged directly is one small JSON file named by
its key, written atomically (temp file + rename), so several xdist workers can read and write
the same directory at once. The runs of a batch (10^5 and more at once) go in one write to
``entries.sqlite3`` beside them (the standard library's SQLite: one transaction instead of a
file per run), as the same sealed JSON text under the same key. Either way an entry is served
only when whole, written for its key and unchanged since (checksum); an unreadable entry, or
database, is a miss.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ..basics.fileio import write_atomically
from ..basics.rubrics import NO_CONTEXT, Context, Dimension, pair_version
from ..config.settings import Settings
from ..judges.base import PairVote, RunResult
from ..judges.weighted import NO_OTHER_DIGIT
from .cache_db import DATABASE, EntryDatabase

CACHE_FORMAT = 2


class JudgeCache:
    """Maps a run's identity to its validated result."""

    def __init__(self, directory: Callable[[], Path], identity: Mapping[str, Any]) -> None:
        self._directory_factory = directory
        self._directory: Path | None = None
        self._identity = dict(identity)
        self._folders: set[str] = set()  # the key folders made by this process
        self._db: EntryDatabase | None = None
        # the last key's judgment, the hash of its material up to the run index, the rest
        self._last_key: tuple[tuple[object, ...], Any, str] | None = None

    @property
    def identity(self) -> dict[str, Any]:
        """The judge every key is made for (provider, base URL, model, temperature...)."""
        return dict(self._identity)

    @property
    def _entries(self) -> EntryDatabase:
        if self._db is None:
            self._db = EntryDatabase(self.directory / DATABASE)
        return self._db

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
        group: Dimension | None = None,
    ) -> str:
        """A run's key; ``group``: the dimensions it was judged with in one request (grouping
        by item), whose runs are kept apart from runs judged alone: neither is taken for the
        other, and switching back finds each where it was.

        The key hashes ``[CACHE_FORMAT, identity, name, version, ticket, response, run_index,
        *context, *group]`` as JSON; the runs of a judgment are asked one after the other,
        so the hash of what comes before ``run_index`` is kept for the next run's key."""
        what = (dimension, ticket, response, context, group)
        last = self._last_key
        if last is None or last[0] != what:
            head = [CACHE_FORMAT, self._identity, dimension.name, dimension.version]
            before = json.dumps([*head, ticket, response], sort_keys=True)
            # earlier turns, and the reference for a dimension that uses it (or is judged
            # with one that does); nothing for a single-turn entry: old keys stay
            scope = context.for_dimension(group or dimension).key()
            after = json.dumps(
                [*scope, *(["group", group.version] if group is not None else [])],
                sort_keys=True,
            )
            prefix = hashlib.sha256(before[:-1].encode() + b", ")
            last = (what, prefix, "]" if after == "[]" else ", " + after[1:])
            self._last_key = last
        material = last[1].copy()
        material.update(f"{run_index}{last[2]}".encode())
        return material.hexdigest()

    def pair_key(
        self,
        dimension: Dimension,
        ticket: str,
        first: str,
        second: str,
        run_index: int,
        context: Context = NO_CONTEXT,
    ) -> str:
        """A pairwise run's key: both answers in the order shown (a reversed pair is another
        key), the dimension and its pairwise prompt."""
        material = json.dumps(
            [
                CACHE_FORMAT,
                self._identity,
                "pair",
                dimension.name,
                pair_version(dimension),
                ticket,
                first,
                second,
                run_index,
                *context.for_dimension(dimension).key(),
            ],
            sort_keys=True,
        )
        return hashlib.sha256(material.encode()).hexdigest()

    def get_vote(self, key: str) -> PairVote | None:
        """A stored pairwise vote, or None (a miss) unless whole and unchanged."""
        entry = self._read(key, VoteEntry)
        return None if entry is None else PairVote(entry.winner, entry.reasoning)

    def put_vote(self, key: str, vote: PairVote) -> None:
        entry = VoteEntry(key=key, winner=vote.winner, reasoning=vote.reasoning, checksum="")
        self._write(key, entry.sealed().model_dump_json())

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def _read(self, key: str, kind: type[EntryT]) -> EntryT | None:
        """The entry stored for ``key`` (in the database, else its file), or None (a miss)
        unless whole, valid as ``kind``, written for this key and unchanged since."""
        stored = self._entries.texts([key]) if kind is CacheEntry else []
        text: str | bytes | None = stored[0][1] if stored else None
        if text is None:
            try:
                text = self._path(key).read_bytes()
            except OSError:
                return None
        return _valid(key, text, kind)

    def _write(self, key: str, text: str) -> None:
        """An entry written atomically; a cache that cannot be written only costs a call
        next time. Its folder is made once per process (a batch writes thousands)."""
        path = self._path(key)
        with contextlib.suppress(OSError):
            if key[:2] not in self._folders:
                path.parent.mkdir(parents=True, exist_ok=True)
                self._folders.add(key[:2])
            write_atomically(path, text, durable=False, folder_exists=True)

    def put_many(self, results: Iterable[tuple[str, RunResult]]) -> bool:
        """Many runs in one write (a batch's); False when they could not be kept (a
        database that cannot be written only costs calls next time)."""
        return self._entries.put([(key, _entry(key, result)) for key, result in results])

    def get_many(self, keys: Sequence[str]) -> dict[str, RunResult]:
        """The valid entries of ``keys`` in the database, in one query (an item's runs)."""
        found = ((key, _valid(key, text, CacheEntry)) for key, text in self._entries.texts(keys))
        return {key: _result(entry) for key, entry in found if entry is not None}

    def held(self, keys: Sequence[str], files: set[str]) -> set[str]:
        """Those of ``keys`` whose entry is there and valid (in the database, or a file
        among ``files``, the names ``stored_keys`` found): what a batch need not ask."""
        found = set(self.get_many(keys))
        return found | {k for k in keys if k in files and k not in found and self.get(k)}

    def close(self) -> None:
        """Close the database if it was opened (the files need nothing)."""
        if self._db is not None:
            self._db.close()

    def stored_keys(self) -> set[str]:
        """The keys of every entry on disk (read or not), from the folder listing: what a
        batch need not ask, found without opening a file per run."""
        keys: set[str] = set()
        with contextlib.suppress(OSError):
            for folder in os.scandir(self.directory):
                if folder.is_dir() and len(folder.name) == 2:
                    keys.update(name.removesuffix(".json") for name in os.listdir(folder.path))
        return keys

    def get(self, key: str) -> RunResult | None:
        """The stored result, or None (a miss) unless the entry is whole and exactly valid:
        written for this key, unchanged since (checksum), a score that is an integer 1-5 (or
        a weighted score in [1, 5] beside the integer the judge wrote)."""
        entry = self._read(key, CacheEntry)
        return None if entry is None else _result(entry)

    def put(self, key: str, result: RunResult) -> None:
        self._write(key, _entry(key, result))


Score = Annotated[float, Field(ge=1, le=5)]


class StoredEntry(BaseModel):
    """An entry as stored: strict types (no bool for an int, no text for a number), the key
    it was written for, and a checksum of the rest."""

    model_config = ConfigDict(strict=True, extra="forbid")
    key: str
    checksum: str

    def stored(self) -> dict[str, Any]:
        """What the checksum covers (text entries keep the keys they had before weighting)."""
        # its fields are plain values (text, numbers): what model_dump(exclude={"checksum"},
        # exclude_none=True) gives, at a fifth of the cost (read back 6 times an item)
        return {k: v for k, v in self.__dict__.items() if k != "checksum" and v is not None}

    def sealed(self: EntryT) -> EntryT:
        """The entry with its checksum set, to be written."""
        self.checksum = _checksum(self.stored())
        return self


EntryT = TypeVar("EntryT", bound=StoredEntry)


class CacheEntry(StoredEntry):
    """One cached run as stored."""

    score: Annotated[int, Field(ge=1, le=5)] | Score  # a float only when weighted
    reasoning: str
    prompt_tokens: Annotated[int, Field(ge=0)]
    completion_tokens: Annotated[int, Field(ge=0)]
    text_score: Annotated[int, Field(ge=1, le=5)] | None = None  # weighted: what the judge wrote
    unweighted: str | None = None  # asked for logprobs, scored by the integer: why
    tokens_unknown: bool | None = None  # true: the reply did not say its tokens (0 above)

    @model_validator(mode="after")
    def _whole_or_weighted(self) -> CacheEntry:
        whole = type(self.score) is int and self.text_score is None
        weighted = type(self.score) is float and self.text_score is not None
        if not (whole or weighted):
            raise ValueError("an integer score, or a weighted score beside the judge's integer")
        return self


class VoteEntry(StoredEntry):
    """One cached pairwise run as stored."""

    winner: Literal["A", "B", "tie"]
    reasoning: str


def _entry(key: str, result: RunResult) -> str:
    """A run's entry as stored: sealed JSON text."""
    entry = CacheEntry(
        key=key,
        score=result.score,
        reasoning=result.reasoning,
        prompt_tokens=result.prompt_tokens,
        completion_tokens=result.completion_tokens,
        text_score=result.text_score,
        unweighted=result.unweighted,
        tokens_unknown=result.tokens_unknown or None,  # left out when known: old checksums hold
        checksum="",
    )
    return entry.sealed().model_dump_json(exclude_none=True)


def _result(entry: CacheEntry) -> RunResult:
    return RunResult(
        entry.score,
        entry.reasoning,
        entry.prompt_tokens,
        entry.completion_tokens,
        text_score=entry.text_score,
        unweighted=entry.unweighted,
        tokens_unknown=bool(entry.tokens_unknown),
    )


def _valid(key: str, text: str | bytes, kind: type[EntryT]) -> EntryT | None:
    """The stored text as ``kind`` if whole, written for ``key`` and unchanged (checksum)."""
    try:
        entry = kind.model_validate_json(text)
    except ValidationError:
        return None
    return entry if entry.key == key and entry.checksum == _checksum(entry.stored()) else None


def worth_keeping(result: RunResult, scoring: str) -> bool:
    """A run asked for logprobs but scored by its written integer is not kept: a later
    session would serve it as a weighted score."""
    return (
        scoring != "logprobs"
        or result.text_score is not None
        # the judge was certain: every candidate of the score token is that digit, so the
        # weighted score is the integer (kept, or a certain judge would pay every rerun)
        or result.unweighted == NO_OTHER_DIGIT
    )


def _checksum(stored: dict[str, Any]) -> str:
    """Of the entry's content: an entry changed after it was written is a miss."""
    return hashlib.sha256(_SORTED.encode(stored).encode()).hexdigest()


# json.dumps(..., sort_keys=True) without making an encoder at each call (the same text)
_SORTED = json.JSONEncoder(sort_keys=True)


def clear_cache_dir(path: Path) -> None:
    """Remove a cache directory (``--cache-clear`` for a location outside .pytest_cache)."""
    shutil.rmtree(path, ignore_errors=True)


def session_cache(s: Settings, directory: Callable[[], Path] | None) -> JudgeCache | None:
    """The session's cache, its keys made for this judge; None when caching is off."""
    if not s.cache or directory is None:
        return None
    identity = {
        "provider": "heuristic" if not s.uses_llm else "openai-compatible",
        "base_url": s.base_url,
        "model": s.model,
        "temperature": s.temperature,
    }
    if s.uses_llm and s.scoring == "logprobs":  # text entries keep their keys
        identity["scoring"] = s.scoring
    return JudgeCache(directory, identity)

"""A content-addressed, on-disk cache of successful judge runs.

Each run is keyed by the SHA-256 of everything that changes the judgment: provider, base
URL, model, temperature, prompt/rubric version, dimension, ticket, response, run index, and
the earlier turns and the reference answer where the judge sees them; a pairwise run's key
holds both responses in the order shown. Runs are kept in ``entries.sqlite3`` (``cache_db``: the
standard library's SQLite): a batch's in one write, a request's runs judged directly in one
short transaction as soon as judged. When the database cannot take them at once (another
process's lock, a read-only folder) each run is one small JSON file named by its key, written
atomically (temp file + rename), as every run was before the database; those files, and an
older cache folder's, still read. Either way an entry is served only when whole, written for
its key and unchanged since (checksum); an unreadable entry, or database, is a miss.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..basics.fileio import write_atomically
from ..basics.rubrics import NO_CONTEXT, Context, Dimension, pair_version
from ..config.settings import Settings
from ..judges.base import PairVote, RunResult
from ..judges.weighted import NO_OTHER_DIGIT
from .cache_db import DATABASE, EntryDatabase
from .cache_entries import CacheEntry, EntryT, VoteEntry, as_result, entry_text, valid_entry

CACHE_FORMAT = 2
KEPT_PREFIXES = 1024  # judgments whose key prefix is kept: more than are in flight at once


class JudgeCache:
    """Maps a run's identity to its validated result."""

    def __init__(self, directory: Callable[[], Path], identity: Mapping[str, Any]) -> None:
        self._directory_factory = directory
        self._directory: Path | None = None
        self._identity = dict(identity)
        self._folders: set[str] | None = None  # the key folders there: listed once, or made
        self._db: EntryDatabase | None = None
        # by judgment: the hash of its key's material up to the run index, and the rest
        self._prefixes: dict[tuple[object, ...], tuple[Any, str]] = {}
        self._heads: dict[tuple[str, str], hashlib._Hash] = {}  # by dimension: the hash of the head

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
        *context, *group]`` as JSON; the hash of what comes before ``run_index`` is kept for
        the judgment's other runs (looked up before a request, kept after its reply)."""
        what = (dimension, ticket, response, context, group)
        last = self._prefixes.get(what)
        if last is None:
            # the JSON of [*head, ticket, response] less its "]": the head's hashed once
            prefix = self._head(dimension).copy()
            prefix.update(f"{json.dumps(ticket)}, {json.dumps(response)}, ".encode())
            # earlier turns, and the reference for a dimension that uses it (or is judged
            # with one that does); nothing for a single-turn entry: old keys stay
            scope = context.for_dimension(group or dimension).key()
            after = "[]"
            if scope or group is not None:
                grouped = ["group", group.version] if group is not None else []
                after = json.dumps([*scope, *grouped], sort_keys=True)
            last = (prefix, "]" if after == "[]" else ", " + after[1:])
            if len(self._prefixes) >= KEPT_PREFIXES:
                self._prefixes.clear()  # (the judgments in flight fill it again)
            self._prefixes[what] = last
        material = last[0].copy()
        material.update(f"{run_index}{last[1]}".encode())
        return material.hexdigest()

    def _head(self, dimension: Dimension) -> hashlib._Hash:
        """The hash of the key's JSON up to the ticket: ``[CACHE_FORMAT, identity, name,
        version, `` (the same text ``json.dumps`` gives for the whole list, made once)."""
        name = (dimension.name, dimension.version)
        head = self._heads.get(name)
        if head is None:
            text = json.dumps([CACHE_FORMAT, self._identity, *name], sort_keys=True)
            head = self._heads[name] = hashlib.sha256(text[:-1].encode() + b", ")
        return head

    def pair_key(
        self,
        dimension: Dimension,
        ticket: str,
        first: str,
        second: str,
        run_index: int,
        context: Context = NO_CONTEXT,
    ) -> str:
        """A pairwise run's key: both responses in the order shown (a reversed pair is another
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
        """The entry in ``key``'s file, or None (a miss) unless whole, valid as ``kind``,
        written for this key and unchanged since."""
        try:
            text = self._path(key).read_bytes()
        except OSError:
            return None
        return valid_entry(key, text, kind)

    def _key_folders(self) -> set[str]:
        """The key folders of the cache folder (listed once, then those this process made):
        a run's file is looked for only where its folder is, so that a cache of runs in the
        database costs no failed file look-up per run."""
        if self._folders is None:
            self._folders = set()
            with contextlib.suppress(OSError):
                found = os.scandir(self.directory)
                self._folders = {f.name for f in found if len(f.name) == 2 and f.is_dir()}
        return self._folders

    def _write(self, key: str, text: str) -> None:
        """An entry written atomically; a cache that cannot be written only costs a call
        next time. Its folder is made once per process."""
        path = self._path(key)
        with contextlib.suppress(OSError):
            if key[:2] not in self._key_folders():
                path.parent.mkdir(parents=True, exist_ok=True)
                self._key_folders().add(key[:2])
            write_atomically(path, text, durable=False, folder_exists=True)

    def put_many(self, results: Iterable[tuple[str, RunResult]]) -> bool:
        """Many runs in one write (a batch's); False when they could not be kept (a
        database that cannot be written only costs calls next time)."""
        return self._entries.put([(key, entry_text(key, result)) for key, result in results])

    def put_runs(self, results: Sequence[tuple[str, RunResult]]) -> None:
        """A request's runs as soon as judged: in the database in one transaction that does
        not wait, else (another process's lock, a read-only folder) a file each."""
        rows = [(key, entry_text(key, result)) for key, result in results]
        if rows and not self._entries.put_now(rows):
            for key, text in rows:
                self._write(key, text)

    def get_many(self, keys: Sequence[str]) -> dict[str, RunResult]:
        """The valid entries of ``keys`` in the database, in one query (an item's runs)."""
        texts = self._entries.texts(keys)
        found = ((key, valid_entry(key, text, CacheEntry)) for key, text in texts)
        return {key: as_result(entry) for key, entry in found if entry is not None}

    def get_runs(self, keys: Sequence[str]) -> dict[str, RunResult]:
        """The valid entries of ``keys``: one query of the database, then the file of each
        key not there whose folder is (an older cache's, or written when the database could
        not be)."""
        found = self.get_many(keys)
        folders = self._key_folders()
        for key in keys:
            if key not in found and key[:2] in folders:
                entry = self._read(key, CacheEntry)
                if entry is not None:
                    found[key] = as_result(entry)
        return found

    def held(self, keys: Sequence[str], files: set[str]) -> set[str]:
        """Those of ``keys`` whose entry is there and valid (in the database, or a file
        among ``files``, the names ``stored_keys`` found): what a batch need not ask."""
        found = set(self.get_many(keys))
        files = {k for k in keys if k in files and k not in found}
        return found | {k for k in files if self._read(k, CacheEntry)}

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
        return self.get_runs([key]).get(key)

    def put(self, key: str, result: RunResult) -> None:
        self.put_runs([(key, result)])


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

"""What ``llmjudge_batch`` plans and gives: the runs an item asks for, a batch's requests as
planned, and the runs the session's batches judged, failed or left pending, kept compact (a
large suite's batch judges runs by the hundred thousand)."""

from __future__ import annotations

import os
import tempfile
from array import array
from bisect import bisect_left
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from itertools import accumulate
from pathlib import Path
from typing import Any, BinaryIO

from ..basics.rubrics import Context, Dimension, grouped
from ..config.settings import Settings
from ..judges import RetryableJudgeError, RunResult
from ..judges.base import said_tokens
from ..judges.http_errors import choices_cap_in
from ..judges.openai_judge import OpenAIJudge
from ..judges.replies import completion_of
from .cache import worth_keeping


@dataclass(frozen=True)
class WantedRuns:
    """The runs an item asks of one dimension (or of an item's group of dimensions)."""

    dimension: Dimension
    ticket: str
    response: str
    runs: int
    context: Context
    owner: str = ""  # the item's node id

    @property
    def judgment(self) -> tuple[Any, ...]:
        """What makes two items' runs the same runs (their cache keys): the judgment."""
        d = self.dimension
        return (d.name, d.version, self.ticket, self.response, self.context)


@dataclass
class LineRuns:
    """What one request of a batch judges: the dimensions each choice scores (one, or an
    item's group) and, per choice, each of those dimensions' run key."""

    parts: list[str]
    keys: list[list[str]]

    def run_keys(self) -> list[str]:
        return [key for choice in self.keys for key in choice]


@dataclass
class Planned:
    """A batch's requests, planned: their lines in a file on disk, what each request judges."""

    path: Path
    lines: dict[str, LineRuns]
    size: int  # bytes


KEY = 32  # bytes of a run's key
BUCKETS = 1 << 16  # keys are looked for among those of their first two bytes
RECENT = 64  # keys whose row is kept after a look-up: an item looks its runs up 3 times


@dataclass
class Served:
    """The runs a session's batches judged, as a compact table: the runs' keys (32 bytes
    each) sorted in one bytes object and found by bisection (smaller than a dict), each
    key's row; per row whether its request is charged to it and whether an item took
    it already, its score and tokens in arrays, its reasoning in a file on disk, read back
    when an item takes the run. Items are served from it (the cache is written for later
    sessions)."""

    folder: Path | None = None  # where the reasonings' file is made (the cache's)
    _keys: bytes = b""  # sorted
    _rows: array[int] = field(default_factory=lambda: array("I"))  # each sorted key's row
    # where the sorted keys of each first two bytes start
    _starts: array[int] = field(default_factory=lambda: array("I", [0] * (BUCKETS + 1)))
    _added: bytearray = field(default_factory=bytearray)  # keys added since ``index``
    _recent: dict[bytes, int] = field(default_factory=dict)
    _bits: bytearray = field(default_factory=bytearray)  # 1: charged its request; 2: taken
    _scores: array[float] = field(default_factory=lambda: array("d"))
    _text_scores: array[int] = field(default_factory=lambda: array("b"))  # 0: None
    _tokens: array[int] = field(default_factory=lambda: array("q"))  # prompt, completion
    _flags: bytearray = field(default_factory=bytearray)  # 1: an integer score; 2: tokens unknown
    _unweighted: array[int] = field(default_factory=lambda: array("h"))  # 0: None, i: causes[i-1]
    _causes: list[str] = field(default_factory=list)
    _ends: array[int] = field(default_factory=lambda: array("q", [0]))  # reasonings' ends
    _file: BinaryIO | None = None

    def add(self, key: str, result: RunResult, first: bool) -> None:
        """A run the batch judged (its parts already apart), charged its request if
        ``first``; found once ``index`` has been called."""
        self._added += bytes.fromhex(key)
        self._bits.append(int(first))
        self._scores.append(result.score)
        self._text_scores.append(result.text_score or 0)
        self._tokens.extend((result.prompt_tokens, result.completion_tokens))
        self._flags.append((type(result.score) is int) | result.tokens_unknown << 1)
        cause = result.unweighted
        if cause is not None and cause not in self._causes:
            self._causes.append(cause)
        self._unweighted.append(0 if cause is None else self._causes.index(cause) + 1)
        if self._file is None:
            # (closed with the session, and gone from disk once closed)
            self._file = tempfile.TemporaryFile(dir=self.folder)  # noqa: SIM115
        text = result.reasoning.encode("utf-8", "surrogatepass")
        self._file.write(text)
        self._ends.append(self._ends[-1] + len(text))

    def index(self) -> None:
        """The keys added since sorted in with the others (a key added again: its last row);
        the reasonings written."""
        first = len(self._bits) - len(self._added) // KEY  # the row of the first added
        keys = bytes(self._keys + self._added)
        rows = self._rows + array("I", range(first, len(self._bits)))

        def name(i: int) -> bytes:
            return keys[i * KEY : i * KEY + KEY]

        # positions sorted by key, a bucket (the first two bytes) at a time, in arrays (no
        # tuple or sort key per run). Stable: of a key added again, its last row comes last,
        # and is the one kept.
        bucket = array("I", (keys[i] << 8 | keys[i + 1] for i in range(0, len(keys), KEY)))
        counts = [0] * (BUCKETS + 1)
        for b in bucket:
            counts[b + 1] += 1
        at = list(accumulate(counts))
        order = array("I", bytes(4 * len(bucket)))
        for i, b in enumerate(bucket):
            order[at[b]] = i
            at[b] += 1
        kept, counts = array("I"), [0] * (BUCKETS + 1)  # the keys kept under each bucket
        for b in range(BUCKETS):  # (after the placing, ``at[b]`` is where bucket b ends)
            same = sorted(order[at[b - 1] if b else 0 : at[b]], key=name)
            for n, i in enumerate(same):
                if n + 1 == len(same) or name(same[n + 1]) != name(i):
                    kept.append(i)
                    counts[b + 1] += 1
        joined = bytearray()  # (a join would hold a bytes object per run first)
        for i in kept:
            joined += keys[i * KEY : i * KEY + KEY]
        self._keys = bytes(joined)
        self._rows = array("I", (rows[i] for i in kept))
        self._starts = array("I", accumulate(counts))
        self._added, self._recent = bytearray(), {}
        if self._file is not None:
            self._file.flush()

    def look(self, key: str) -> int | None:
        """The run's row (None: not judged in a batch)."""
        name = bytes.fromhex(key)
        row = self._recent.get(name)
        if row is not None:
            return row
        keys, bucket = self._keys, name[0] << 8 | name[1]
        lo, hi = self._starts[bucket], self._starts[bucket + 1]  # (a few keys)
        at = bisect_left(range(hi), name, lo, hi, key=lambda i: keys[i * KEY : i * KEY + KEY])
        if keys[at * KEY : at * KEY + KEY] != name:
            return None
        if len(self._recent) >= RECENT:
            self._recent.clear()
        row = self._recent[name] = self._rows[at]
        return row

    def take(self, row: int) -> tuple[bool, bool]:
        """The run at ``row`` (``look``), marked as taken by an item: (charged to it, taken
        already)."""
        bits = self._bits[row]
        self._bits[row] = bits | 2
        return bool(bits & 1), bool(bits & 2)

    def result(self, row: int) -> RunResult:
        """The result of the run at ``row`` (``look``) as the batch gave it."""
        assert self._file is not None
        start = self._ends[row]
        text = _read_at(self._file, start, self._ends[row + 1] - start)
        flags, score, cause = self._flags[row], self._scores[row], self._unweighted[row]
        return RunResult(
            int(score) if flags & 1 else score,
            text.decode("utf-8", "surrogatepass"),
            self._tokens[2 * row],
            self._tokens[2 * row + 1],
            text_score=self._text_scores[row] or None,
            tokens_unknown=bool(flags & 2),
            unweighted=self._causes[cause - 1] if cause else None,
        )

    def close(self) -> None:
        if self._file is not None:
            self._file.close()

    def __len__(self) -> int:
        return len(self._rows)


@dataclass
class BatchOutcome:
    """What the session's batches gave: runs judged, runs whose request failed, runs still
    pending (with the item's message), and each batch's status for the summary."""

    served: Served = field(default_factory=Served)
    failed: dict[str, str] = field(default_factory=dict)
    pending: dict[str, str] = field(default_factory=dict)
    batches: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: per batch this process collected, its requests that came back (``Usage.collected``:
    #: requests, prompt and completion tokens, requests whose tokens are unknown)
    collected: dict[str, list[int]] = field(default_factory=dict)
    #: runs that several items ask for (the same judgment), by key: the item they are charged
    #: to, the first of them in the session's order, as every xdist worker plans it (its row
    #: holds the request; an owner that never runs leaves it to ``meta.unattributed_calls``)
    owners: dict[str, str] = field(default_factory=dict)
    _owner_rows: dict[int, str] | None = None

    def owner_of(self, row: int) -> str | None:
        """The item that holds the run at ``row`` of the table when several items ask for it
        (``owners``, by row once the table is served), else None."""
        if not self.owners:
            return None
        if self._owner_rows is None:
            found = ((self.served.look(key), owner) for key, owner in self.owners.items())
            self._owner_rows = {row: owner for row, owner in found if row is not None}
        return self._owner_rows.get(row)

    def serve(
        self,
        judge: OpenAIJudge,
        settings: Settings,
        batch_id: str,
        runs: LineRuns,
        reply: dict[str, Any] | None,
        results: list[tuple[str, RunResult]],
    ) -> None:
        """One request's reply: each choice's runs served (those the cache keeps also put in
        ``results``), or failed with the reason."""
        answers = reply_answers(judge, settings.dimensions, runs, reply)
        charged = False
        for choice, keys in enumerate(runs.keys):
            answer = answers[choice] if isinstance(answers, list) else answers
            if isinstance(answer, str | RetryableJudgeError):
                self.fail(batch_id, keys, str(answer))
                continue
            answer = answer.redacted()
            parts = [answer.parts[p] for p in runs.parts] if answer.parts else [answer]
            for key, result in zip(keys, parts, strict=True):
                first = not charged
                if first and result is not answer:  # (a run of its own carries them)
                    result = result.billed_as(answer)
                charged = True
                self.served.add(key, result, first)
                # (not kept by the cache: a weighted score asked, the text one given)
                if worth_keeping(result, settings.scoring):
                    results.append((key, result))

    def fail(self, batch_id: str, keys: Iterable[str], why: str) -> None:
        """Runs the batch did not judge (its reply an error, bent beyond reading, or the
        output gone): asked directly when their item runs, as ``why`` says."""
        for key in keys:
            self.failed[key] = f"batch {batch_id}: {why}"


def reply_answers(
    judge: OpenAIJudge,
    dimensions: Mapping[str, Dimension],
    runs: LineRuns,
    reply: dict[str, Any] | None,
) -> list[RunResult | RetryableJudgeError] | str:
    """A batch reply's choices validated as a direct reply's, or why the request failed."""
    if reply is None:
        return "no reply in the batch"
    response, body = line_reply(reply)
    if body is None:
        sent = (response or {}).get("body")
        error = reply.get("error") or (sent.get("error") if isinstance(sent, dict) else sent)
        message = error.get("message") if isinstance(error, dict) else error
        param = error.get("param") if isinstance(error, dict) else None
        cap = choices_cap_in(str(message or ""), param)
        if len(runs.keys) > 1 and cap is not None and cap < len(runs.keys):
            judge.learn_choices_cap(cap)  # asked directly in requests it takes
        status = (response or {}).get("status_code") or "error"
        return f"{status} {str(message or 'no reply')[:200]}"
    asked = [dimensions.get(name) for name in runs.parts]
    if None in asked:
        return "a dimension of this request is no longer configured"
    try:
        completion = completion_of(body)
    except RetryableJudgeError as exc:
        return str(exc)
    known = [d for d in asked if d is not None]
    dimension = known[0] if len(known) == 1 else grouped(known)
    answers = judge.read_replies(dimension, completion, len(runs.keys))
    missing = RetryableJudgeError("the reply has fewer choices than asked")
    return answers + [missing] * (len(runs.keys) - len(answers))


def line_counts(reply: dict[str, Any]) -> tuple[int, int, int, int] | None:
    """A line of the batch's output as the request it answers, whether or not an item takes
    its runs: ``(1, prompt tokens, completion tokens, 1 if they are unknown)`` as its reply
    says them (an error reply bills none); None for a line never run (expired, cancelled)."""
    response, body = line_reply(reply)
    if response is None:
        return None
    said = (0, 0) if body is None else said_tokens(body.get("usage"))
    return (1, *(said or (0, 0)), int(said is None))


def line_reply(reply: dict[str, Any]) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """A batch output line's response (None: the batch never ran the request: expired,
    cancelled) and its body when that is a reply to read (a 200 with a JSON object)."""
    response = reply.get("response")
    if not isinstance(response, dict):
        return None, None
    body = response.get("body")
    readable = not reply.get("error") and response.get("status_code") == 200
    return response, body if readable and isinstance(body, dict) else None


def _read_at(file: Any, start: int, size: int) -> bytes:
    """``size`` bytes of ``file`` from ``start``: one system call where there is ``pread``
    (not on Windows: there a seek and a read, on the items' one thread)."""
    if hasattr(os, "pread"):
        return os.pread(file.fileno(), size, start)
    file.seek(start)
    text = bytes(file.read(size))
    file.seek(0, os.SEEK_END)  # a later batch's reasonings are added at the end
    return text

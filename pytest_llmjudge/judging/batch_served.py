"""What ``llmjudge_batch`` plans and gives: the runs an item asks for, a batch's requests as
planned, and the runs the session's batches judged, failed or left pending, kept compact
(a session of 10^5 items has 6 x 10^5 runs)."""

from __future__ import annotations

import os
import tempfile
from array import array
from bisect import bisect_left
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import accumulate
from pathlib import Path
from typing import Any, BinaryIO

from ..basics.rubrics import Context, Dimension, grouped
from ..judges import RetryableJudgeError, RunResult, Usage
from ..judges.base import said_tokens
from ..judges.http_errors import choices_cap_in
from ..judges.openai_judge import OpenAIJudge
from ..judges.replies import completion_of
from .batch_records import LineRuns


@dataclass(frozen=True)
class WantedRuns:
    """The runs an item asks of one dimension (or of an item's group of dimensions)."""

    dimension: Dimension
    ticket: str
    response: str
    runs: int
    context: Context


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
    each) sorted in one bytes object and found by bisection (a dict held 100 bytes a run),
    each key's row; per row whether its request is charged to it and whether an item took
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
        pairs = [(self._keys[i * KEY : i * KEY + KEY], row) for i, row in enumerate(self._rows)]
        added = bytes(self._added)
        pairs += [(added[i : i + KEY], first + i // KEY) for i in range(0, len(added), KEY)]
        pairs.sort()
        kept = [p for i, p in enumerate(pairs) if i + 1 == len(pairs) or pairs[i + 1][0] != p[0]]
        self._keys = b"".join(name for name, _ in kept)
        self._rows = array("I", [row for _, row in kept])
        counts = [0] * (BUCKETS + 1)  # the keys under each first two bytes
        for name, _ in kept:
            counts[(name[0] << 8 | name[1]) + 1] += 1
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

    def take(self, key: str) -> tuple[bool, bool] | None:
        """The run, marked as taken by an item: (charged to it, taken already)."""
        row = self.look(key)
        if row is None:
            return None
        bits = self._bits[row]
        self._bits[row] = bits | 2
        return bool(bits & 1), bool(bits & 2)

    def result(self, key: str) -> RunResult | None:
        """The run's result as the batch gave it (None: not judged in a batch)."""
        row = self.look(key)
        if row is None:
            return None
        assert self._file is not None
        start = self._ends[row]
        text = os.pread(self._file.fileno(), self._ends[row + 1] - start, start)
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
    #: per batch this process collected, its requests that came back (``Usage.collected``)
    collected: dict[str, list[int]] = field(default_factory=dict)


def reply_answers(
    judge: OpenAIJudge,
    dimensions: Mapping[str, Dimension],
    runs: LineRuns,
    reply: dict[str, Any] | None,
) -> list[RunResult | RetryableJudgeError] | str:
    """A batch reply's choices validated as a direct reply's, or why the request failed."""
    if reply is None:
        return "no reply in the batch"
    response = reply.get("response") or {}
    body = response.get("body") if isinstance(response, dict) else None
    if reply.get("error") or response.get("status_code") != 200 or not isinstance(body, dict):
        error = reply.get("error") or (body or {}).get("error") or {}
        message = error.get("message") if isinstance(error, dict) else error
        param = error.get("param") if isinstance(error, dict) else None
        cap = choices_cap_in(str(message or ""), param)
        if len(runs.keys) > 1 and cap is not None and cap < len(runs.keys):
            judge.learn_choices_cap(cap)  # asked directly in requests it takes
        return f"{response.get('status_code') or 'error'} {message or 'no reply'}"
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


def batch_request(prompt: int, completion: int, unknown: bool) -> Usage:
    """One request of a batch as usage: a call and its tokens, all at the batch's price."""
    return Usage(
        calls=1, prompt_tokens=prompt, completion_tokens=completion, batch_calls=1,
        batch_prompt_tokens=prompt, batch_completion_tokens=completion,
        tokens_unknown=int(unknown), batch_tokens_unknown=int(unknown),
    )  # fmt: skip


def line_request(reply: dict[str, Any]) -> Usage | None:
    """A line of the batch's output as the request it answers, with the tokens its reply says
    it billed (an error reply bills none), whether or not an item takes its runs; None for a
    line never run (expired, cancelled: no response)."""
    response = reply.get("response")
    if not isinstance(response, dict):
        return None
    body = response.get("body")
    if response.get("status_code") != 200 or not isinstance(body, dict):
        return batch_request(0, 0, unknown=False)
    said = said_tokens(body.get("usage"))
    return batch_request(*(said or (0, 0)), unknown=said is None)

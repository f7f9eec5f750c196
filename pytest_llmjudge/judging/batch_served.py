"""What ``llmjudge_batch`` plans and gives: the runs an item asks for, a batch's requests as
planned, and the runs the session's batches judged, failed or left pending, kept compact
(a session of 10^5 items has 6 x 10^5 runs)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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


@dataclass
class Served:
    """The runs a session's batches judged: per run key (as its 32 bytes), the batch, whether
    its request is charged to it and whether an item took it already. The results are in the
    cache; those the cache does not keep (or could not write) are held here."""

    runs: dict[bytes, int] = field(default_factory=dict)  # batch << 2 | taken << 1 | first
    batch_ids: list[str] = field(default_factory=list)
    results: dict[str, RunResult] = field(default_factory=dict)

    def add(self, key: str, batch: int, first: bool) -> None:
        self.runs[bytes.fromhex(key)] = batch << 2 | int(first)

    def look(self, key: str) -> int | None:
        """The run's entry (None: not judged in a batch)."""
        return self.runs.get(bytes.fromhex(key))

    def take(self, key: str) -> tuple[bool, bool] | None:
        """The run, marked as taken by an item: (charged to it, taken already)."""
        bits = self.runs.get(name := bytes.fromhex(key))
        if bits is None:
            return None
        self.runs[name] = bits | 2
        return bool(bits & 1), bool(bits & 2)

    def __len__(self) -> int:
        return len(self.runs)


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

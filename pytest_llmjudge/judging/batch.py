"""``llmjudge_batch``: the judge requests a session needs, through the provider's Batch API.

Before the first item, the runs that the selected items will ask for and that the cache does
not hold become one JSONL input file: one request per judgment (its runs as the ``n``
choices; one per run with ``llmjudge_sampling=calls``; an item's dimensions together with
``llmjudge_grouping=item``), ``custom_id`` the cache key of its first run. The file is
uploaded, the batch created, and both recorded (``batch_records``) so that a rerun, also
after Ctrl-C, collects the batch instead of submitting it again. The batch is polled, backing
off, until it is done or the wait ends. Its replies are validated as direct replies are and
fill the cache; the items are then judged from them (``served``), each request counted once,
at the batch price. A request that failed in the batch is asked directly when its item runs
(or is the item's error with strict ``batch``); what is still pending when the wait
ends is its items' error. The requests of a batch that expired, failed or was cancelled are
submitted again by the next session.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from pydantic import ValidationError

from ..basics.rubrics import Context, Dimension, grouped
from ..config.settings import Settings
from ..judges import RetryableJudgeError, RunResult, batch_api
from ..judges.batch_api import BatchApiError, BatchStatus
from ..judges.http_errors import choices_cap_in
from ..judges.openai_judge import OpenAIJudge
from .batch_records import BatchRecord, BatchRecords, LineRuns, fingerprint, identity_digest
from .cache import JudgeCache, worth_keeping

FIRST_POLL = 0.2  # seconds; the wait between polls grows by half each time
LONGEST_POLL = 30.0
OnLoop = Callable[[Coroutine[Any, Any, Any]], Any]  # runs a coroutine on the judge's loop


@dataclass(frozen=True)
class WantedRuns:
    """The runs an item asks of one dimension (or of an item's group of dimensions)."""

    dimension: Dimension
    ticket: str
    response: str
    runs: int
    context: Context


@dataclass(frozen=True)
class Line:
    """One request of a batch: its id, what its choices judge, its body."""

    custom_id: str
    runs: LineRuns
    body: dict[str, Any]


class Served(NamedTuple):
    """A run judged in a batch; ``first``: the run its request is charged to."""

    result: RunResult
    first: bool
    batch_id: str


@dataclass
class BatchOutcome:
    """What the session's batches gave: runs judged, runs whose request failed, runs still
    pending (with the item's message), and each batch's status for the summary."""

    served: dict[str, Served] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)
    pending: dict[str, str] = field(default_factory=dict)
    batches: dict[str, dict[str, Any]] = field(default_factory=dict)


class BatchJudging:
    """One session's batch work: collect what earlier sessions submitted, submit what is
    missing, wait, collect."""

    def __init__(
        self,
        judge: OpenAIJudge,
        cache: JudgeCache,
        settings: Settings,
        on_loop: OnLoop,
        say: Callable[[str], None],
    ) -> None:
        self.judge, self.cache, self.settings = judge, cache, settings
        self.on_loop, self.say = on_loop, say
        self.records = BatchRecords(cache.directory)
        self.judge_id = identity_digest(cache.identity)
        self.outcome = BatchOutcome()

    def run(self, wanted: Sequence[WantedRuns], wait: float | None) -> BatchOutcome:
        waiting: list[tuple[BatchRecord, BatchStatus]] = []
        with self.records.lock():  # xdist workers planning the same runs submit them once
            for record in self.records.load(self.judge_id):
                status = self._resume(record)
                if status is not None and status.finished:
                    self._collect(record, status)
                elif status is not None:
                    waiting.append((record, status))
            for record, status in waiting:
                self.say(f"{_progress(status, record)} (submitted by an earlier session)")
            covered = {key for record, _ in waiting for key in record.run_keys()}
            lines = self._plan(wanted, covered | set(self.outcome.pending))
            if lines:
                submitted = self._submit(lines)
                waiting += [submitted] if submitted is not None else []
        self._wait(waiting, wait)
        return self.outcome

    def _call(self, api: Callable[..., Coroutine[Any, Any, Any]], *args: Any) -> Any:
        async def call() -> Any:
            return await api(self.judge.client(), *args)

        return self.on_loop(call())

    def _resume(self, record: BatchRecord) -> BatchStatus | None:
        """The batch of an earlier session's record: read, found again (its creation was sent
        but the answer lost) or created from the uploaded file. None: nothing to resume."""
        try:
            if record.batch_id is not None:
                return self._call(batch_api.retrieve, record.batch_id)  # type: ignore[no-any-return]
            if record.input_file_id is None:  # stopped during the upload: planned again
                self.records.drop(record)
                return None
            found = self._call(batch_api.find, record.fingerprint)
            status = found or self._call(batch_api.create, record.input_file_id, record.fingerprint)
        except BatchApiError as exc:
            if exc.status == 404:  # the batch or its file is gone: submitted anew
                self.say(f"{exc}: its requests are submitted again")
                self.records.drop(record)
            else:  # kept: the next session tries again (nothing is submitted twice)
                self._not_now(record, str(exc))
            return None
        record.batch_id = status.id
        self.records.save(record)
        return status  # type: ignore[no-any-return]

    def _plan(self, wanted: Sequence[WantedRuns], covered: set[str]) -> list[Line]:
        """A request per judgment for its runs the cache lacks (not in a pending batch)."""
        most: dict[tuple[Any, ...], WantedRuns] = {}
        for w in wanted:
            same = (w.dimension.name, w.dimension.version, w.ticket, w.response, w.context)
            if same not in most or most[same].runs < w.runs:
                most[same] = w
        lines, stored = [], self.cache.stored_keys()
        for w in most.values():
            parts = w.dimension.parts or (w.dimension,)
            group = w.dimension if w.dimension.parts else None
            where = (w.ticket, w.response)
            keys = [
                [self.cache.key(p, *where, i, w.context, group) for p in parts]
                for i in range(w.runs)
            ]
            missing = [
                i
                for i, run_keys in enumerate(keys)
                if not covered.intersection(run_keys)
                and any(key not in stored or self.cache.get(key) is None for key in run_keys)
            ]
            # as many choices per request as the server takes (what any path learned)
            calls = self.settings.sampling == "calls"
            size = 1 if calls else self.judge.profile.choices_for(max(1, len(missing)))
            chunks = [missing[i : i + size] for i in range(0, len(missing), size)]
            for chunk in filter(None, chunks):
                runs = LineRuns([p.name for p in parts], [keys[i] for i in chunk])
                body = self.judge.request_body(w.dimension, *where, len(chunk), w.context)
                lines.append(Line(runs.keys[0][0], runs, body))
        return lines

    def _submit(self, lines: list[Line]) -> tuple[BatchRecord, BatchStatus] | None:
        ids = [line.custom_id for line in lines]
        runs = {line.custom_id: line.runs for line in lines}
        record = BatchRecord(self.judge_id, fingerprint(ids), runs)
        self.records.save(record)  # before the upload: a rerun knows what was under way
        data = "\n".join(
            json.dumps(batch_api.request_line(line.custom_id, line.body)) for line in lines
        ).encode()
        try:
            record.input_file_id = self._call(batch_api.upload, data)
            self.records.save(record)
            status: BatchStatus = self._call(
                batch_api.create, record.input_file_id, record.fingerprint
            )
        except BatchApiError as exc:
            self._not_now(record, str(exc))
            return None
        record.batch_id = status.id
        self.records.save(record)
        judged = sum(len(line.runs.keys) * len(line.runs.parts) for line in lines)
        self.say(
            f"batch {status.id} submitted: {len(lines):,} requests for {judged:,} runs "
            f"({_size(len(data))} input file)"
        )
        return record, status

    def _not_now(self, record: BatchRecord, problem: str) -> None:
        """A batch that could not be submitted or read now: said once; its runs are their
        items' errors, and its record is kept for the next session."""
        what = f"batch {record.batch_id}: " if record.batch_id else "Batch API: "
        self.say(f"{what}{problem}; its record is kept: run again to go on")
        self._pending(record, f"{what}{problem}: run again to go on")

    def _pending(self, record: BatchRecord, message: str) -> None:
        """The record's runs as their items' errors: ``message`` says what to do."""
        for key in record.run_keys():
            self.outcome.pending.setdefault(key, message)

    def _wait(self, waiting: list[tuple[BatchRecord, BatchStatus]], wait: float | None) -> None:
        started = time.monotonic()
        pause, said = FIRST_POLL, started
        while waiting:
            left = None if wait is None else wait - (time.monotonic() - started)
            if left is not None and left <= 0:
                break
            time.sleep(pause if left is None else min(pause, left))
            pause = min(pause * 1.5, LONGEST_POLL)
            still = []
            for record, status in waiting:
                try:
                    status = self._call(batch_api.retrieve, status.id)
                except BatchApiError as exc:  # read again at the next poll
                    self.say(str(exc))
                if status.finished:
                    self._collect(record, status)
                else:
                    still.append((record, status))
            waiting = still
            if waiting and time.monotonic() - said >= self.settings.progress > 0:
                said = time.monotonic()
                for record, status in waiting:
                    self.say(_progress(status, record))
        for record, status in waiting:
            self.outcome.batches[status.id] = _facts(status)
            done = f"{status.completed:,} of {status.total:,} done"
            self._pending(record, f"pending in batch {status.id} ({done}): run again to collect")

    def _collect(self, record: BatchRecord, status: BatchStatus) -> None:
        """Read a finished batch's replies into the cache and the outcome; forget its record."""
        self.outcome.batches[status.id] = _facts(status)
        replies: dict[str, dict[str, Any]] = {}
        for file_id in filter(None, (status.output_file_id, status.error_file_id)):
            text: str = self._call(batch_api.download, file_id)
            for raw in text.splitlines():
                try:
                    reply = json.loads(raw)
                    replies[str(reply["custom_id"])] = reply
                except (ValueError, KeyError, TypeError):
                    continue  # a line that is not a reply: its runs are asked directly
        for custom_id, runs in record.lines.items():
            self._read(status.id, runs, replies.get(custom_id))
        done = f"{status.completed:,} of {status.total:,} requests done"
        if status.status == "completed":
            self.say(f"batch {status.id} completed ({done}): collected")
        else:
            why = f": {status.errors}" if status.errors else ""
            self.say(f"batch {status.id} {status.status}{why} ({done}); the others are asked again")
        self.records.drop(record)

    def _read(self, batch_id: str, runs: LineRuns, reply: dict[str, Any] | None) -> None:
        """One request's reply: each choice's runs served, or failed with the reason."""
        answers = self._answers(runs, reply)
        charged = False
        for choice, keys in enumerate(runs.keys):
            answer = answers[choice] if isinstance(answers, list) else answers
            if isinstance(answer, str | RetryableJudgeError):
                for key in keys:
                    self.outcome.failed[key] = f"batch {batch_id}: {answer}"
                continue
            answer = answer.redacted()
            results = [answer.parts[p] for p in runs.parts] if answer.parts else [answer]
            tokens = (answer.prompt_tokens, answer.completion_tokens)
            for key, result in zip(keys, results, strict=True):
                first = not charged
                if first:  # the request's tokens, on the first run it judged
                    result = replace(result, prompt_tokens=tokens[0], completion_tokens=tokens[1])
                charged = True
                self.outcome.served[key] = Served(result, first, batch_id)
                if worth_keeping(result, self.settings.scoring):
                    self.cache.put(key, result)

    def _answers(
        self, runs: LineRuns, reply: dict[str, Any] | None
    ) -> list[RunResult | RetryableJudgeError] | str:
        """A reply's choices validated as a direct reply's, or why the request failed."""
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
                self.judge.learn_choices_cap(cap)  # asked directly in requests it takes
            return f"{response.get('status_code') or 'error'} {message or 'no reply'}"
        dimensions = [self.settings.dimensions.get(name) for name in runs.parts]
        if None in dimensions:
            return "a dimension of this request is no longer configured"
        from openai.types.chat import ChatCompletion

        try:
            completion = ChatCompletion.model_validate(body)
        except ValidationError:
            return "the batch's reply is not a chat completion"
        known = [d for d in dimensions if d is not None]
        dimension = known[0] if len(known) == 1 else grouped(known)
        answers = self.judge.read_replies(dimension, completion, len(runs.keys))
        missing = RetryableJudgeError("the reply has fewer choices than asked")
        return answers + [missing] * (len(runs.keys) - len(answers))


def _facts(status: BatchStatus) -> dict[str, Any]:
    return {
        "status": status.status,
        "requests": status.total,
        "completed": status.completed,
        "failed": status.failed,
    }


def _progress(status: BatchStatus, record: BatchRecord) -> str:
    minutes, seconds = divmod(int(time.time() - record.submitted), 60)
    return (
        f"batch {status.id} {status.status}: {status.completed:,} of {status.total:,} "
        f"requests done, {minutes}m{seconds:02d}s since it was submitted"
    )


def _size(size: int) -> str:
    return f"{size / 1e6:.1f} MB" if size >= 100_000 else f"{size / 1e3:.1f} kB"

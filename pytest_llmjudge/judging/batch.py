"""``llmjudge_batch``: the judge requests a session needs, sent through the provider's Batch API.

Before the first item:

1. plan: the runs the selected items will ask for that the cache does not hold become one
   JSONL input file, a request per item's dimension (its runs as the ``n`` choices; a request
   per run with ``llmjudge_sampling=calls``; an item's dimensions in one with
   ``llmjudge_grouping=item``), ``custom_id`` the cache key of its first run;
2. submit: the file is uploaded and the batch created, each step recorded before and after
   (``BatchRecords``, in the cache folder's ``batches/``), so that a later session, also after
   Ctrl-C or a lost connection, collects the batch instead of submitting it again;
3. poll, backing off, until the batch is done or ``batch_wait`` ends;
4. collect: the replies, validated as direct replies are, fill the cache and the table the
   items are served from (``batch_served.Served``); each request is counted once, at the
   batch's price, also one whose items never run.

A request that failed in the batch is asked directly when its item runs (strict ``batch``:
the item's error); one still pending when the wait ends is its items' error; those of a batch
that expired, failed or was cancelled are submitted again by the next session. Request lines,
output and reasonings stay in files on disk: memory holds the run keys and a compact table.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from collections.abc import Callable, Coroutine, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..basics.fileio import write_atomically
from ..config.settings import Settings

# batch_api's names are read through the module: one module object, also when tests run
# pytest in-process again and the package holds an earlier import of it
from ..judges import RunResult, batch_api
from ..judges.openai_judge import OpenAIJudge
from .batch_served import BatchOutcome, LineRuns, Planned, WantedRuns, line_counts
from .cache import JudgeCache

__all__ = ["BatchJudging", "BatchOutcome", "WantedRuns"]

FIRST_POLL = 0.2  # seconds; the wait between polls grows by half each time
LONGEST_POLL = 30.0
PLAN_CHUNK = 500  # judgments whose cached runs are looked up in one query
WRITE_CHUNK = 5_000  # runs put in the cache in one write
OnLoop = Callable[[Coroutine[Any, Any, Any]], Any]  # runs a coroutine on the judge's loop
RECORD_FORMAT = 1


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
        self.outcome.owners = self._owners(wanted)
        waiting: list[tuple[BatchRecord, batch_api.BatchStatus]] = []
        with self.records.lock():  # xdist workers planning the same runs submit them once
            for record in self.records.load(self.judge_id):
                status = self._resume(record)
                if status is not None and status.finished:
                    self._collect(record, status)
                elif status is not None:
                    waiting.append((record, status))
            for record, status in waiting:
                self.say(f"{status.progress(record.submitted)} (submitted by an earlier session)")
            covered = {key for record, _ in waiting for key in record.run_keys()}
            planned = self._plan(wanted, covered | set(self.outcome.pending))
            if planned is not None:
                submitted = self._submit(planned)
                waiting += [submitted] if submitted is not None else []
        self._wait(waiting, wait)
        return self.outcome

    def _call(self, api: Callable[..., Coroutine[Any, Any, Any]], *args: Any) -> Any:
        async def call() -> Any:
            return await api(self.judge.client(), *args)

        return self.on_loop(call())

    def _resume(self, record: BatchRecord) -> batch_api.BatchStatus | None:
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
        except batch_api.BatchApiError as exc:
            if exc.status == 404:  # the batch or its file is gone: submitted anew
                self.say(f"{exc}: its requests are submitted again")
                self.records.drop(record)
            else:  # kept: the next session tries again (nothing is submitted twice)
                self._not_now(record, str(exc))
            return None
        record.batch_id = status.id
        self.records.save(record)
        return status  # type: ignore[no-any-return]

    def _plan(self, wanted: Sequence[WantedRuns], covered: set[str]) -> Planned | None:
        """A request per judgment for its runs the cache lacks (not in a pending batch),
        written to the input file as it is made; None: nothing to ask."""
        most: dict[tuple[Any, ...], WantedRuns] = {}
        for w in wanted:
            if w.judgment not in most or most[w.judgment].runs < w.runs:
                most[w.judgment] = w
        lines: dict[str, LineRuns] = {}
        stored, judgments = self.cache.stored_keys(), list(most.values())
        self.records.directory.mkdir(parents=True, exist_ok=True)
        path = self.records.directory / f".input-{os.getpid()}.jsonl"
        try:  # the file holds every ticket and answer: never left behind half written
            with open(path, "wb") as out:
                for start in range(0, len(judgments), PLAN_CHUNK):
                    chunk = [self._keys(w) for w in judgments[start : start + PLAN_CHUNK]]
                    every = [key for _, keys in chunk for run_keys in keys for key in run_keys]
                    held = self.cache.held(every, stored)
                    for w, keys in chunk:
                        missing = [
                            i
                            for i, run_keys in enumerate(keys)
                            if not covered.intersection(run_keys)
                            and any(key not in held for key in run_keys)
                        ]
                        self._write_lines(out, w, keys, missing, lines)
                size = out.tell()
        except BaseException:
            path.unlink(missing_ok=True)
            raise
        if not lines:
            path.unlink()
            return None
        return Planned(path, lines, size)

    def _owners(self, wanted: Sequence[WantedRuns]) -> dict[str, str]:
        """Each run that two or more items ask for, and the first of them in ``wanted``'s
        order (the session's): the item whose row holds the run and its request. Every xdist
        worker plans every item, so all agree; the first to take a run would be another item
        in each worker, and the request would be in two rows."""
        asking: dict[tuple[Any, ...], list[WantedRuns]] = {}
        for w in wanted:
            asking.setdefault(w.judgment, []).append(w)
        owners: dict[str, str] = {}
        for same in asking.values():
            if len(same) > 1:
                for w in same:
                    for run_keys in self._keys(w)[1]:
                        for key in run_keys:
                            owners.setdefault(key, w.owner)
        return owners

    def _keys(self, w: WantedRuns) -> tuple[WantedRuns, list[list[str]]]:
        """Per run of the judgment, the key of each dimension it scores."""
        parts = w.dimension.parts or (w.dimension,)
        group = w.dimension if w.dimension.parts else None
        where = (w.ticket, w.response)
        keys = [
            [self.cache.key(p, *where, i, w.context, group) for p in parts] for i in range(w.runs)
        ]
        return w, keys

    def _write_lines(
        self,
        out: Any,
        w: WantedRuns,
        keys: list[list[str]],
        missing: list[int],
        lines: dict[str, LineRuns],
    ) -> None:
        """The requests for a judgment's ``missing`` runs, each a line of the input file."""
        parts = [p.name for p in w.dimension.parts or (w.dimension,)]
        # as many choices per request as the server takes (what any path learned)
        calls = self.settings.sampling == "calls"
        size = 1 if calls else self.judge.profile.choices_for(max(1, len(missing)))
        chunks = [missing[i : i + size] for i in range(0, len(missing), size)]
        for chunk in filter(None, chunks):
            runs = LineRuns(parts, [keys[i] for i in chunk])
            body = self.judge.request_body(w.dimension, w.ticket, w.response, len(chunk), w.context)
            custom_id = runs.keys[0][0]
            out.write(json.dumps(batch_api.request_line(custom_id, body)).encode() + b"\n")
            lines[custom_id] = runs

    def _submit(self, planned: Planned) -> tuple[BatchRecord, batch_api.BatchStatus] | None:
        lines = planned.lines
        record = BatchRecord(self.judge_id, fingerprint(list(lines)), lines)
        try:
            try:
                self.records.save(record)  # before the upload: a rerun knows what was under way
                record.input_file_id = self._call(batch_api.upload, planned.path)
            finally:
                planned.path.unlink(missing_ok=True)
            self.records.save(record)
            status: batch_api.BatchStatus = self._call(
                batch_api.create, record.input_file_id, record.fingerprint
            )
        except batch_api.BatchApiError as exc:
            advice = exc.no_batch_api if record.input_file_id is None else None
            if advice:  # a local server (no /v1/files): running again cannot help
                self.records.drop(record)
                self.say(advice)
                self._pending(record, advice)
            else:
                self._not_now(record, str(exc))
            return None
        record.batch_id = status.id
        self.records.save(record)
        judged = sum(len(runs.keys) * len(runs.parts) for runs in lines.values())
        self.say(
            f"batch {status.id} submitted: {len(lines):,} requests for {judged:,} runs "
            f"({_size(planned.size)} input file)"
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

    def _wait(
        self, waiting: list[tuple[BatchRecord, batch_api.BatchStatus]], wait: float | None
    ) -> None:
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
                except batch_api.BatchApiError as exc:  # read again at the next poll
                    self.say(str(exc))
                if status.finished:
                    self._collect(record, status)
                else:
                    still.append((record, status))
            waiting = still
            if waiting and time.monotonic() - said >= self.settings.progress > 0:
                said = time.monotonic()
                for record, status in waiting:
                    self.say(status.progress(record.submitted))
        for record, status in waiting:
            self.outcome.batches[status.id] = status.facts()
            done = f"{status.completed:,} of {status.total:,} done"
            self._pending(record, f"pending in batch {status.id} ({done}): run again to collect")

    def _collect(self, record: BatchRecord, status: batch_api.BatchStatus) -> None:
        """Read a finished batch's replies into the cache and the outcome, a line at a time;
        forget its record."""
        self.outcome.batches[status.id] = status.facts()
        self.outcome.served.folder = self.records.directory
        waiting = dict(record.lines)  # the requests not answered yet
        results: list[tuple[str, RunResult]] = []
        made = [0, 0, 0, 0]  # every request that came back (``line_counts``), summed
        try:  # what was read is served (and counted), also when a download fails
            self._read_output(record, status, waiting, results, made)
        except batch_api.BatchApiError as exc:
            if exc.status != 404:  # the output could not be read now: kept for a next session
                self._not_now(record, str(exc))
                return
            for runs in waiting.values():  # gone (past its retention): asked directly
                self.outcome.fail(status.id, runs.run_keys(), str(exc))
        finally:
            self.outcome.served.index()
            self.outcome.collected[status.id] = made
        done = f"{status.completed:,} of {status.total:,} requests done"
        if status.status == "completed":
            self.say(f"batch {status.id} completed ({done}): collected")
        else:
            why = f": {status.errors}" if status.errors else ""
            self.say(f"batch {status.id} {status.status}{why} ({done}); the others are asked again")
        self.records.drop(record)

    def _read_output(
        self,
        record: BatchRecord,
        status: batch_api.BatchStatus,
        waiting: dict[str, LineRuns],
        results: list[tuple[str, RunResult]],
        made: list[int],
    ) -> None:
        """The batch's output and error files, a line at a time; then the lines not there."""
        for file_id in filter(None, (status.output_file_id, status.error_file_id)):
            path = self.records.directory / f".output-{os.getpid()}.jsonl"
            try:
                self._call(batch_api.download, file_id, path)
                with open(path, "rb") as replies:
                    for raw in replies:
                        try:
                            reply = json.loads(raw)
                            runs = waiting.pop(str(reply["custom_id"]), None)
                        except (ValueError, KeyError, TypeError):
                            continue  # a line that is not a reply: its runs are asked directly
                        if runs is not None:
                            try:
                                self.outcome.serve(
                                    self.judge, self.settings, status.id, runs, reply, results
                                )
                                for i, count in enumerate(line_counts(reply) or ()):
                                    made[i] += count
                            except (ValueError, TypeError, AttributeError, OverflowError):
                                bent = "a reply line that cannot be read"
                                self.outcome.fail(status.id, runs.run_keys(), bent)
                        if len(results) >= WRITE_CHUNK:
                            self._keep(results)
            finally:
                path.unlink(missing_ok=True)
        for runs in waiting.values():
            self.outcome.serve(self.judge, self.settings, status.id, runs, None, results)
        self._keep(results)

    def _keep(self, results: list[tuple[str, RunResult]]) -> None:
        """Runs judged in the batch into the cache in one write, for later sessions."""
        if results:
            self.cache.put_many(results)
        results.clear()


def _size(size: int) -> str:
    return f"{size / 1e6:.1f} MB" if size >= 100_000 else f"{size / 1e3:.1f} kB"


@dataclass
class BatchRecord:
    judge: str  # the judge's identity (model, server): another judge's batches are not ours
    fingerprint: str  # of the requests: the batch's metadata, to find it again
    lines: dict[str, LineRuns]
    submitted: float = field(default_factory=time.time)
    input_file_id: str | None = None
    batch_id: str | None = None
    #: its lines as JSON, made at the first save (a record is saved three times a batch)
    lines_json: str | None = field(default=None, repr=False, compare=False)

    def run_keys(self) -> set[str]:
        return {key for line in self.lines.values() for key in line.run_keys()}


def fingerprint(custom_ids: list[str]) -> str:
    return hashlib.sha256("\n".join(sorted(custom_ids)).encode()).hexdigest()[:32]


class BatchRecords:
    """The batches submitted with one cache folder, each a record that maps its requests
    (``custom_id``, the cache key of a request's first run) to the runs their choices judge."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory / "batches"

    def load(self, judge: str) -> list[BatchRecord]:
        """This judge's records, oldest first; an unreadable record is left alone."""
        records = []
        for path in sorted(self.directory.glob("*.json")):
            with contextlib.suppress(OSError, ValueError, TypeError, KeyError):
                data = json.loads(path.read_text(encoding="utf-8"))
                if data.get("format") != RECORD_FORMAT or data.get("judge") != judge:
                    continue
                lines = {cid: LineRuns(**line) for cid, line in data["lines"].items()}
                fields = {k: v for k, v in data.items() if k not in ("format", "lines")}
                records.append(BatchRecord(**fields, lines=lines))
        return sorted(records, key=lambda record: record.submitted)

    def save(self, record: BatchRecord) -> None:
        # the lines do not change: made JSON once (json.dumps' text), not at each of the
        # record's three saves
        if record.lines_json is None:
            lines = {cid: {"parts": r.parts, "keys": r.keys} for cid, r in record.lines.items()}
            record.lines_json = json.dumps(lines)
        fields = {name: getattr(record, name) for name in ("judge", "fingerprint", "submitted")}
        fields |= {"input_file_id": record.input_file_id, "batch_id": record.batch_id}
        head = json.dumps({"format": RECORD_FORMAT, **fields})
        text = f'{head[:-1]}, "lines": {record.lines_json}}}'
        write_atomically(self._path(record), text, durable=True)

    def drop(self, record: BatchRecord) -> None:
        with contextlib.suppress(OSError):
            self._path(record).unlink()

    def _path(self, record: BatchRecord) -> Path:
        return self.directory / f"{record.fingerprint}.json"

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Held while records are read and a batch is submitted: xdist workers planning the
        same runs submit them once (the others find the record)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        with open(self.directory / ".lock", "a+b") as handle:
            try:
                import fcntl
            except ImportError:  # pragma: no cover - Windows: no lock between workers
                yield
                return
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)


def identity_digest(identity: dict[str, Any]) -> str:
    """A short name for a judge's identity (the cache's: provider, server, model...)."""
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:16]

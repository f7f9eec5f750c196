"""The Batch API of the test server (``judge_server.JudgeServer.batches``), as OpenAI's:

- ``POST /v1/files`` (multipart, ``purpose=batch``) stores an input file;
  ``GET /v1/files/{id}/content`` returns a file's bytes (input, output or error lines);
- ``POST /v1/batches`` creates a batch of an input file (with its ``metadata``);
  ``GET /v1/batches/{id}`` reads it, ``GET /v1/batches`` lists them (newest first),
  ``POST /v1/batches/{id}/cancel`` cancels it.

A batch is ``in_progress`` for ``delay`` seconds after its creation (``completed`` counting
up meanwhile), then ends as ``final_status``: ``completed`` answers every line as the chat
endpoint would (the same scripts and directives: a line whose script fails is an error line
of the output), ``expired`` answers the first half and puts the others in the error file,
``failed`` answers none (a validation error). ``fail_uploads`` / ``fail_creates`` answer that
many uploads / creations with a 500; ``lose_creates`` creates that many batches and then
drops the connection, as when the answer is lost on the way back.
"""

from __future__ import annotations

import email.parser
import email.policy
import itertools
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Answer = Callable[[dict[str, Any]], tuple[int, dict[str, Any]]]  # a chat body -> status, JSON


@dataclass
class Batch:
    id: str
    input_file_id: str
    metadata: dict[str, str]
    created: float  # time.monotonic()
    status: str = "in_progress"
    output_file_id: str | None = None
    error_file_id: str | None = None
    total: int = 0
    completed: int = 0
    failed: int = 0
    errors: list[dict[str, str]] = field(default_factory=list)

    def json(self) -> dict[str, Any]:
        errors = {"object": "list", "data": self.errors} if self.errors else None
        return {
            "id": self.id,
            "object": "batch",
            "endpoint": "/v1/chat/completions",
            "errors": errors,
            "input_file_id": self.input_file_id,
            "completion_window": "24h",
            "status": self.status,
            "output_file_id": self.output_file_id,
            "error_file_id": self.error_file_id,
            "created_at": int(self.created),
            "request_counts": {
                "total": self.total,
                "completed": self.completed,
                "failed": self.failed,
            },
            "metadata": self.metadata,
        }


class BatchAPI:
    def __init__(self, answer: Answer) -> None:
        self._answer = answer  # the chat endpoint's answer to one request body
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self.reset()

    def reset(self) -> None:
        with self._lock:
            self.files: dict[str, bytes] = {}
            self.batches: dict[str, Batch] = {}
            self.uploads = 0  # input files received
            self.creations = 0  # batches created
            self.retrievals = 0
            self.lines_answered = 0  # input lines answered (as chat requests)
            self.delay = 0.0
            self.final_status = "completed"
            self.fail_uploads = 0
            self.fail_creates = 0
            self.lose_creates = 0
            self.absent = False  # a local server: every Batch API path is not found

    def input_lines(self) -> list[dict[str, Any]]:
        """Every line of every input file received, in order."""
        lines = []
        for batch in self.batches.values():
            text = self.files[batch.input_file_id].decode()
            lines += [json.loads(line) for line in text.splitlines() if line.strip()]
        return lines

    def handle(self, method: str, path: str, body: bytes, content_type: str) -> Any:
        """(status, JSON or bytes, drop): the reply to a Batch API request; None: not one."""
        if self.absent:
            return None
        parts = path.strip("/").split("/")[1:]  # after "v1"
        if method == "POST" and parts == ["files"]:
            return self._upload(body, content_type)
        if method == "GET" and len(parts) == 3 and parts[0] == "files" and parts[2] == "content":
            data = self.files.get(parts[1])
            return (200, data, False) if data is not None else _not_found("file", parts[1])
        if method == "POST" and parts == ["batches"]:
            return self._create(json.loads(body or b"{}"))
        if method == "GET" and parts == ["batches"]:
            with self._lock:
                batches = sorted(self.batches.values(), key=lambda b: -b.created)
            return (
                200,
                {"object": "list", "data": [b.json() for b in batches], "has_more": False},
                False,
            )
        if parts[:1] == ["batches"] and len(parts) >= 2:
            batch = self.batches.get(parts[1])
            if batch is None:
                return _not_found("batch", parts[1])
            if method == "POST" and parts[2:] == ["cancel"]:
                batch.status = "cancelled"
            elif method == "GET":
                self.retrievals += 1
                self._advance(batch)
            return 200, batch.json(), False
        return None

    def _upload(self, body: bytes, content_type: str) -> Any:
        with self._lock:
            if self.fail_uploads:
                self.fail_uploads -= 1
                return 500, {"error": {"message": "scripted upload failure"}}, False
            head = f"Content-Type: {content_type}\r\n\r\n".encode()
            message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + body)
            fields = {
                part.get_param("name", header="content-disposition"): part
                for part in message.iter_parts()
            }
            data = fields["file"].get_payload(decode=True)
            assert isinstance(data, bytes)
            file_id = f"file-{next(self._ids)}"
            self.files[file_id] = data
            self.uploads += 1
        return 200, _file(file_id, len(data), "batch"), False

    def _create(self, request: dict[str, Any]) -> Any:
        with self._lock:
            if self.fail_creates:
                self.fail_creates -= 1
                return 500, {"error": {"message": "scripted batch creation failure"}}, False
            input_id = request.get("input_file_id", "")
            if input_id not in self.files:
                return _not_found("file", input_id)
            lines = [line for line in self.files[input_id].decode().splitlines() if line.strip()]
            batch = Batch(
                f"batch_{next(self._ids)}", input_id, request.get("metadata") or {},
                time.monotonic(), total=len(lines),
            )  # fmt: skip
            self.batches[batch.id] = batch
            self.creations += 1
            lost = self.lose_creates > 0
            self.lose_creates -= lost
        return 200, batch.json(), lost

    def _advance(self, batch: Batch) -> None:
        """A batch in progress counts up; after ``delay`` it ends as ``final_status``."""
        if batch.status != "in_progress":
            return
        share = 1.0 if self.delay <= 0 else (time.monotonic() - batch.created) / self.delay
        if share < 1:
            batch.completed = int(batch.total * share)
            return
        lines = [
            json.loads(line)
            for line in self.files[batch.input_file_id].decode().splitlines()
            if line.strip()
        ]
        if self.final_status == "failed":
            batch.status, batch.completed = "failed", 0
            batch.errors = [{"code": "invalid_request", "message": "scripted validation failure"}]
            return
        answered = lines if self.final_status == "completed" else lines[: len(lines) // 2]
        output, errors = [], []
        for line in answered:
            status, reply = self._answer(line["body"])
            self.lines_answered += 1
            entry = {"id": f"req_{next(self._ids)}", "custom_id": line["custom_id"]}
            if status == 200:
                entry |= {"response": {"status_code": 200, "body": reply}, "error": None}
                output.append(entry)
            else:
                entry |= {"response": {"status_code": status, "body": reply}, "error": None}
                errors.append(entry)
        for line in lines[len(answered) :]:
            expired = {"code": "batch_expired", "message": "not executed before the window expired"}
            errors.append(
                {
                    "id": f"req_{next(self._ids)}",
                    "custom_id": line["custom_id"],
                    "response": None,
                    "error": expired,
                }
            )
        batch.output_file_id = self._store(output)
        batch.error_file_id = self._store(errors)
        batch.completed, batch.failed = len(output), len(errors)
        batch.status = self.final_status

    def _store(self, entries: list[dict[str, Any]]) -> str | None:
        if not entries:
            return None
        file_id = f"file-{next(self._ids)}"
        self.files[file_id] = "".join(json.dumps(e) + "\n" for e in entries).encode()
        return file_id


def _file(file_id: str, size: int, purpose: str) -> dict[str, Any]:
    return {
        "id": file_id, "object": "file", "bytes": size, "created_at": int(time.time()),
        "filename": "input.jsonl", "purpose": purpose, "status": "processed",
    }  # fmt: skip


def _not_found(kind: str, name: str) -> Any:
    return (
        404,
        {"error": {"message": f"No such {kind}: {name}", "type": "invalid_request_error"}},
        False,
    )

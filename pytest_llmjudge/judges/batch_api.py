"""The provider's Batch API through the ``openai`` SDK: an input file uploaded, a batch created,
its status read, found again by its metadata, its output read back.

Every call raises ``BatchApiError`` with a one-line cause (no credentials) when the server
refuses it or cannot be reached; the SDK's own retries are off, as for chat requests.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from ..basics.redaction import redact
from .http_errors import status_message

if TYPE_CHECKING:
    from openai import AsyncOpenAI

INPUT_NAME = "llmjudge-batch.jsonl"
ENDPOINT: Final = "/v1/chat/completions"
WINDOW: Final = "24h"
METADATA_KEY = "llmjudge"  # the batch's fingerprint: a rerun finds the batch it submitted
#: statuses after which a batch changes no more
FINISHED = frozenset({"completed", "failed", "expired", "cancelled"})


class BatchApiError(Exception):
    """A Batch API call failed (refused, not found, unreachable); ``status``: the HTTP
    status when the server answered."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status

    @property
    def no_batch_api(self) -> str | None:
        """What to do when the server has no Batch API (llama.cpp, Ollama and vLLM answer its
        paths with a 404), else None."""
        if self.status not in (404, 405, 501):
            return None
        advice = "set llmjudge_batch = false to judge it directly"
        return f"the judge server has no Batch API ({self}): {advice}"


@dataclass(frozen=True)
class BatchStatus:
    """What the provider says of a batch."""

    id: str
    status: str  # validating, in_progress, finalizing, completed, failed, expired, ...
    total: int
    completed: int
    failed: int
    output_file_id: str | None
    error_file_id: str | None
    errors: str = ""  # why a batch failed (validation errors), in one line

    @property
    def finished(self) -> bool:
        return self.status in FINISHED

    def facts(self) -> dict[str, Any]:
        """What the results say of the batch (``meta.batch.batches``)."""
        return {
            "status": self.status,
            "requests": self.total,
            "completed": self.completed,
            "failed": self.failed,
        }

    def progress(self, submitted: float) -> str:
        minutes, seconds = divmod(int(time.time() - submitted), 60)
        return (
            f"batch {self.id} {self.status}: {self.completed:,} of {self.total:,} "
            f"requests done, {minutes}m{seconds:02d}s since it was submitted"
        )


def request_line(custom_id: str, body: dict[str, Any]) -> dict[str, Any]:
    """One line of a batch's input file."""
    return {"custom_id": custom_id, "method": "POST", "url": ENDPOINT, "body": body}


async def upload(client: AsyncOpenAI, path: Path) -> str:
    """The input file uploaded (``purpose="batch"``) from disk, read as it is sent (an open
    file, not its bytes: the SDK reads a path whole): its file id."""
    async with _calling("uploading the batch input"):
        with open(path, "rb") as handle:
            uploaded = await client.files.create(file=(INPUT_NAME, handle), purpose="batch")
    return uploaded.id


async def create(client: AsyncOpenAI, input_file_id: str, fingerprint: str) -> BatchStatus:
    async with _calling("creating the batch"):
        batch = await client.batches.create(
            input_file_id=input_file_id,
            endpoint=ENDPOINT,
            completion_window=WINDOW,
            metadata={METADATA_KEY: fingerprint},
        )
    return _status(batch)


async def retrieve(client: AsyncOpenAI, batch_id: str) -> BatchStatus:
    async with _calling(f"reading batch {batch_id}"):
        batch = await client.batches.retrieve(batch_id)
    return _status(batch)


async def find(client: AsyncOpenAI, fingerprint: str, look_at: int = 100) -> BatchStatus | None:
    """The newest batch created with this fingerprint (among the last ``look_at``), if any:
    one whose creation was sent but whose answer was lost."""
    async with _calling("listing batches"):
        page = await client.batches.list(limit=look_at)
    for batch in page.data:
        if (batch.metadata or {}).get(METADATA_KEY) == fingerprint:
            return _status(batch)
    return None


async def download(client: AsyncOpenAI, file_id: str, path: Path) -> None:
    """A file's content (a batch's output or error lines) written to ``path`` as it
    arrives, never held whole."""
    streaming = client.files.with_streaming_response
    async with _calling(f"downloading file {file_id}"), streaming.content(file_id) as response:
        with open(path, "wb") as out:
            async for chunk in response.iter_bytes():
                out.write(chunk)


def _status(batch: Any) -> BatchStatus:
    counts = batch.request_counts
    errors = batch.errors.data if batch.errors and batch.errors.data else []
    return BatchStatus(
        id=batch.id,
        status=batch.status,
        total=counts.total if counts else 0,
        completed=counts.completed if counts else 0,
        failed=counts.failed if counts else 0,
        output_file_id=batch.output_file_id,
        error_file_id=batch.error_file_id,
        errors="; ".join(redact(f"{e.code or 'error'}: {e.message}") for e in errors[:3]),
    )


class _calling:
    """Turns the SDK's errors of one call into a ``BatchApiError`` saying what was done."""

    def __init__(self, doing: str) -> None:
        self.doing = doing

    async def __aenter__(self) -> None:
        return None

    async def __aexit__(self, kind: type[BaseException] | None, exc: Any, tb: Any) -> bool:
        import openai

        if exc is None or not isinstance(exc, openai.OpenAIError):
            return False
        status = exc.status_code if isinstance(exc, openai.APIStatusError) else None
        if status is not None:
            cause = f"{status} {status_message(exc)}"
        else:
            cause = f"{type(exc).__name__}: {exc}"
        raise BatchApiError(redact(f"{self.doing} failed: {cause}"), status) from None

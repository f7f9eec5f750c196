"""``llmjudge_trace PATH``: one JSON line per judge request (and per run served from the cache),
secrets redacted. Each process appends whole lines (one ``write`` each) to the same file."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..basics.redaction import redact

if TYPE_CHECKING:
    from ..judges import RunResult, Usage


def start_trace(path: Path) -> None:
    """An empty trace file for this session (the controller, before any worker starts)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("", encoding="utf-8")


class TraceWriter:
    """Appends trace records to a file, one line per record."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def write(self, record: dict[str, Any]) -> None:
        if self._fd is None:
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        line = redact(json.dumps(record, ensure_ascii=False, default=str)) + "\n"
        os.write(self._fd, line.encode())

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def trace_record(
    nodeid: str,
    dimension: str,
    run: int,
    attempt: int,
    *,
    cached: bool = False,
    usage: Usage | None = None,
    before: Usage | None = None,
    started: float | None = None,
    scores: Sequence[float | Mapping[str, float] | None] = (),  # a grouped reply's: each's
    choices: int = 1,
    error: BaseException | None = None,
) -> dict[str, Any]:
    """The line of one request (for ``choices`` runs from run number ``run`` on) or of a
    cached run: what was sent and came back, what it cost (``usage`` now minus ``before``)."""
    exchange = (usage.exchanges or [{}])[-1] if usage is not None else {}
    prompt_tokens: int | None = 0
    completion_tokens: int | None = 0
    if usage is not None and before is not None:
        billed = usage.tokens_since(before)
        said = not billed.tokens_unknown  # null: the reply did not say its tokens
        prompt_tokens = billed.prompt_tokens if said else None
        completion_tokens = billed.completion_tokens if said else None
    return {
        "nodeid": nodeid or None,
        "dimension": dimension,
        "run": run,
        "choices": choices,
        "attempt": attempt,
        "cached": cached,
        "messages": exchange.get("messages"),
        "reply": exchange.get("reply"),
        "score": scores[0] if scores else None,
        "scores": list(scores),
        "latency_s": None if started is None else round(time.monotonic() - started, 4),
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "error": None if error is None else str(error),
    }


def traced_score(result: RunResult) -> float | dict[str, float]:
    """A reply's score as the trace shows it; a grouped reply's, each dimension's."""
    parts = result.parts
    return result.score if parts is None else {name: r.score for name, r in parts.items()}

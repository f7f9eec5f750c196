"""Glue between pytest objects and the results: item records, outcomes, the final write."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest

from . import __version__
from .collect import EvalItem, InvalidEvalItem
from .fileio import write_atomically
from .judging import marker_overrides
from .redaction import redact
from .report import terminal_summary
from .results import ResultsCollector, dump, outcome_of
from .settings import ItemSettings, Settings
from .state import RECORD_KEY, STATE_KEY

HEURISTIC_NOTE = "heuristic judge: scores come from text signals; no LLM was used"


def item_settings(item: pytest.Item, settings: Settings) -> ItemSettings:
    """Runs and thresholds for one item: entry > marker > session settings."""
    resolved = ItemSettings(runs=settings.runs, thresholds=dict(settings.thresholds))
    marker = item.get_closest_marker("llmjudge")
    if marker is not None:
        try:
            from_marker = marker_overrides(marker.args, marker.kwargs)
        except ValueError as exc:
            pytest.fail(str(exc), pytrace=False)
        resolved = resolved.overridden(from_marker.runs or None, from_marker.thresholds)
    if isinstance(item, EvalItem):
        resolved = resolved.overridden(item.case.runs, item.case.thresholds)
    return resolved


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def item_record(item: pytest.Item) -> dict[str, Any] | None:
    """Plain data about one attempt, or None for a test that never touched the judge."""
    file = _relative(item.path, item.config.rootpath)
    if isinstance(item, InvalidEvalItem):
        entry = item.entry
        return {
            "kind": "invalid",
            "nodeid": item.nodeid,
            "file": file,
            "index": entry.index,
            "id": entry.name,
            "line": entry.line,
            "reason": entry.reason,
        }
    record = item.stash.get(RECORD_KEY, None)
    data: dict[str, Any] = {"kind": "eval", "nodeid": item.nodeid, "file": file}
    if isinstance(item, EvalItem):
        case = item.case
        data.update(
            id=case.id,
            line=item.entry.line,
            expected=case.expected,
            metadata=case.metadata,
            runs=item_runs(item),
        )
    elif record is None or not (record.judgments or record.errors):
        return None
    else:
        data.update(kind="test", id=item.name, line=None)
    if record is not None:
        data["dimensions"] = {name: j.to_record() for name, j in record.judgments.items()}
        if record.errors:
            data["error"] = redact("; ".join(record.errors))
    return data


def item_runs(item: pytest.Item) -> int | None:
    """The runs this item is judged with (None when its marker is invalid)."""
    try:
        return item_settings(item, item.config.stash[STATE_KEY].settings).runs
    except pytest.fail.Exception:
        return None


def report_outcome(report: pytest.TestReport, record: dict[str, Any]) -> tuple[str, str | None]:
    """The results outcome of a report and, for skips, xfails and errors, why."""
    xfail = hasattr(report, "wasxfail")
    outcome = outcome_of(
        report.passed,
        report.skipped,
        xfail,
        error=bool(record.get("error")) or report.when != "call",
    )
    if xfail:
        return outcome, report.wasxfail or None
    if report.skipped and isinstance(report.longrepr, tuple):
        return outcome, str(report.longrepr[2]).removeprefix("Skipped: ")
    if outcome == "error" and not record.get("error"):
        text = report.longreprtext.strip().splitlines()
        return outcome, redact(text[-1] if text else "error")
    return outcome, None


def _safe_url(url: str | None) -> str | None:
    """A base URL without credentials, for the results file."""
    if not url:
        return None
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def write_results(
    collector: ResultsCollector,
    settings: Settings,
    session: pytest.Session,
    exit_status: int,
    started: datetime,
    duration: float,
) -> tuple[Path, list[str]]:
    """Build and atomically write the results file; return its path and the summary lines."""
    complete = exit_status != pytest.ExitCode.INTERRUPTED and not (
        session.shouldstop or session.shouldfail
    )
    meta = {
        "provider": settings.provider,
        "llm": settings.uses_llm,
        "note": None if settings.uses_llm else HEURISTIC_NOTE,
        "model": settings.model,
        "base_url": _safe_url(settings.base_url),
        "runs": settings.runs,
        "thresholds": dict(settings.thresholds),
        "started": started.isoformat(timespec="seconds"),
        "duration_s": round(duration, 3),
        "complete": complete,
        "exit_status": exit_status,
        "plugin_version": __version__,
    }
    results = collector.build(meta)
    if settings.price is not None:
        tokens = results.meta.tokens
        results.meta.cost_usd = round(settings.price.cost(tokens.prompt, tokens.completion), 6)
        results.meta.price_source = settings.price.source
    write_atomically(settings.output, dump(results))
    try:
        shown = os.path.relpath(settings.output)
    except ValueError:  # pragma: no cover - another drive on Windows
        shown = str(settings.output)
    return settings.output, terminal_summary(results, shown)

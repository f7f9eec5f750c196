"""Glue between pytest objects and the results: item records, outcomes, the final write."""

from __future__ import annotations

import dataclasses
import json
import os
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest

from . import __version__
from .ci_reports import github_annotations, markdown_report, summary_markdown
from .collect import EvalItem, InvalidEvalItem
from .comparison import compare_targets
from .engine import JudgeError
from .fileio import write_atomically
from .gates import compare_with_baseline, evaluate_gates
from .judging import EvalFailed, marker_overrides
from .redaction import redact
from .report import terminal_summary
from .results import GateResult, ResultsCollector, ResultsFile, dump, outcome_of
from .settings import ItemSettings, Settings
from .state import RECORD_KEY, STATE_KEY, SessionState, record_for

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
    if isinstance(item, EvalItem):
        data.update(_comparison_fields(item, file, record.answer if record else None))
    data["flaky"] = item.get_closest_marker("flaky_eval") is not None
    if record is not None:
        data["dimensions"] = {name: j.to_record() for name, j in record.judgments.items()}
        data["flaky_failed"] = record.flaky_failed
        if record.errors:
            data["error"] = redact("; ".join(record.errors))
    return data


def _comparison_fields(item: EvalItem, file: str, answer: str | None) -> dict[str, Any]:
    """Which implementation answered, and which entry its answer is compared on.

    A live item knows its target; a replayed one (``--judge-save-responses``) carries the
    target and the original entry in its metadata.
    """
    case = item.case
    target = item.target or case.metadata.get("target")
    if not isinstance(target, str):
        return {}
    source = case.metadata.get("source") if item.target is None else None
    settings = item.config.stash[STATE_KEY].settings
    configured = [t.name for t in settings.targets.targets] if settings.targets else []
    return {
        "target": target,
        "target_order": configured.index(target) if target in configured else len(configured),
        "compare_key": source if isinstance(source, str) else f"{file}::{case.id}",
        "ticket": case.ticket,
        "answer": answer if item.target is not None else case.response,
    }


def live_answer(item: pytest.Item, target: str) -> str:
    """Ask the item's target (once per session per ticket); a failure is a judge error."""
    assert isinstance(item, EvalItem)
    record = record_for(item)
    try:
        record.answer = item.config.stash[STATE_KEY].engine().answer(target, item.case.ticket)
    except JudgeError as exc:
        record.errors.append(str(exc))
        raise
    return record.answer


def junit_properties(record: dict[str, Any]) -> list[tuple[str, object]]:
    """Score, std, runs and threshold per dimension, as JUnit XML properties."""
    properties: list[tuple[str, object]] = []
    for name, dim in record.get("dimensions", {}).items():
        properties += [
            (f"llmjudge.{name}.score", dim["score"]),
            (f"llmjudge.{name}.std", dim["std"]),
            (f"llmjudge.{name}.runs", ",".join(str(r) for r in dim["runs"])),
            (f"llmjudge.{name}.threshold", dim["threshold"]),
            (f"llmjudge.{name}.decision", dim["decision"]),
        ]
    if record.get("error"):
        properties.append(("llmjudge.error", record["error"]))
    return properties


def flaky_failure(item: pytest.Item, exc: BaseException) -> str | None:
    """The xfail reason when a flaky eval fell below its threshold (None: let it fail)."""
    record = item.stash.get(RECORD_KEY, None)
    settings = item.config.stash[STATE_KEY].settings
    judged_cleanly = record is not None and record.judgments and not record.errors
    if settings.strict_flaky or not judged_cleanly:
        return None
    if not isinstance(exc, (EvalFailed, AssertionError)):
        return None
    assert record is not None
    record.flaky_failed = True
    first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else "assertion failed"
    return f"flaky eval below threshold (not gating): {first_line}"


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
        if record.get("flaky_failed") and outcome == "xfailed":
            outcome = "flaky_failed"
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


def finish_results(
    collector: ResultsCollector,
    state: SessionState,
    session: pytest.Session,
    exit_status: int,
    started: datetime,
    duration: float,
) -> ResultsFile:
    """The results of the session: items, usage and cost, suite gates, baseline comparison.

    A failed gate turns a green session red (``session.exitstatus``); the results record the
    final exit status.
    """
    settings = state.settings
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
        "verdict": settings.verdict,
        "plugin_version": __version__,
    }
    results = collector.build(meta)
    if settings.price is not None:
        tokens = results.meta.tokens
        results.meta.cost_usd = round(settings.price.cost(tokens.prompt, tokens.completion), 6)
        results.meta.price_source = settings.price.source
    rows = [row.model_dump() for row in results.results]
    gates = evaluate_gates(rows, settings.min_pass_rate, settings.min_mean, any_eval=True)
    results.gates = [GateResult(**dataclasses.asdict(gate)) for gate in gates]
    if settings.baseline is not None:
        comparison = compare_with_baseline(rows, state.baseline(), _shown(settings.baseline))
        results.baseline = comparison.to_record()
    results.comparison = compare_targets(rows, settings.tie_tolerance)
    if exit_status == pytest.ExitCode.OK and not all(g.passed for g in gates):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        results.meta.exit_status = int(pytest.ExitCode.TESTS_FAILED)
    return results


def write_outputs(results: ResultsFile, settings: Settings) -> None:
    """The results JSON, the markdown report and the GitHub step summary, as configured."""
    write_atomically(settings.output, dump(results))
    if settings.report is not None:
        write_atomically(settings.report, markdown_report(results))
    if settings.save_responses is not None:
        save_responses(results, settings.save_responses)
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if step_summary:
        with open(step_summary, "a", encoding="utf-8") as handle:
            handle.write(summary_markdown(results) + "\n")


def _shown(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:  # pragma: no cover - another drive on Windows
        return str(path)


def save_responses(results: ResultsFile, folder: Path) -> None:
    """One static eval file per target, to replay a comparison without the bots."""
    per_target: dict[str, list[dict[str, Any]]] = {}
    for row in results.results:
        if row.target and row.answer and row.ticket:
            per_target.setdefault(row.target, []).append(
                {
                    "id": row.id,
                    "ticket": row.ticket,
                    "response": row.answer,
                    "metadata": {**row.metadata, "target": row.target, "source": row.compare_key},
                }
            )
    for target, entries in per_target.items():
        write_atomically(folder / f"{target}.json", json.dumps(entries, indent=2) + "\n")


def summary_lines(results: ResultsFile, settings: Settings) -> list[str]:
    """The terminal summary, plus GitHub annotations when running in GitHub Actions."""
    lines = terminal_summary(results, _shown(settings.output))
    if os.environ.get("GITHUB_ACTIONS") == "true":
        lines += github_annotations(results)
    return lines

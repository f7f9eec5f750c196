"""From pytest's items and reports to plain records: what one attempt judged, and its outcome.

The record of an attempt rides on its test report (plain data, so that it travels from an
xdist worker to the controller) in the shape of a results row (``schema.ItemResult``) less
what only the report tells: outcome, reason and duration.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ..analysis.judgment import JudgeError
from ..basics.redaction import redact
from ..evalfiles.entry_rules import bounded
from ..judging.verdict import EvalFailed
from ..reports.terminal import partial_runs_line, scores_line
from .collect import EvalItem, InvalidEvalItem
from .pytest_internals import crash_message
from .state import RECORD_KEY, STATE_KEY, record_for, settings_for


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
            "invalid": {
                "file": file,
                "index": entry.index,
                "id": entry.name,
                "line": entry.line,
                "reason": entry.reason,
            }
        }
    record = item.stash.get(RECORD_KEY, None)
    data: dict[str, Any] = {"nodeid": item.nodeid, "file": file}
    if isinstance(item, EvalItem):
        case = item.case
        limit = item.config.stash[STATE_KEY].settings.max_input_chars
        judged = record.answer if record is not None and item.target else case.response
        data.update(
            ticket=bounded(case.ticket, limit),
            response=bounded(judged, limit),
            conversation=[
                {"role": t.role, "content": bounded(t.content, limit)} for t in case.conversation
            ],
            reference=bounded(case.reference, limit),
            id=case.id,
            line=item.entry.line,
            expected=case.expected,
            metadata=case.metadata,
            runs=_runs(item),
        )
        data.update(_comparison_fields(item, file, record.answer if record else None))
    elif record is None or not (record.judgments or record.errors):
        return None
    else:
        data.update(id=item.name, line=None)
    data["flaky"] = item.get_closest_marker("flaky_eval") is not None
    if record is not None:
        usage = record.usage()
        data.update(
            {name: j.result.model_dump() for name, j in record.judgments.items()},
            flaky_failed=record.flaky_failed,
            attempt=record.attempt + 1,
            injection_suspected=bool(record.injection),
            not_applicable=list(record.not_applicable),
            label_disagreement=bool(_far_from_label(item)),
            injection_snippets=[redact(s) for s in record.injection],
            usage={
                "calls": usage.requests,
                "judgments": usage.judgments,
                "prompt_tokens": usage.prompt_tokens,
                "completion_tokens": usage.completion_tokens,
            },
        )
        if record.errors:
            data["error"] = redact("; ".join(record.errors))
    return data


def attach_record(item: pytest.Item, when: str, report: pytest.TestReport) -> None:
    """Put the attempt's record (and its scores, for the -v line) on its report."""
    if when == "call" or (when == "setup" and not report.passed):
        record = item_record(item)
        if record is not None:
            report.llmjudge = record  # type: ignore[attr-defined]  # plain data, travels to xdist
            attempt = item.stash.get(RECORD_KEY, None)
            if attempt is not None and attempt.judgments:  # for the -v line
                far = _far_from_label(item)
                judgments = list(attempt.judgments.values())
                scores = scores_line(judgments, bool(attempt.injection), far)
                report.llmjudge_scores = scores  # type: ignore[attr-defined]
                # a failed item's -v line names only the dimensions judged on fewer runs
                report.llmjudge_partial = partial_runs_line(judgments)  # type: ignore[attr-defined]
            # --junitxml reads the properties of the item (via its teardown report); a rerun
            # replaces the earlier attempt's.
            item.user_properties[:] = [
                p for p in item.user_properties if not str(p[0]).startswith("llmjudge.")
            ] + junit_properties(item)
    if when == "teardown" and RECORD_KEY in item.stash:
        del item.stash[RECORD_KEY]  # a rerun is a new attempt


def _far_from_label(item: pytest.Item) -> dict[str, float]:
    """Dimensions judged further than --judge-label-margin from the entry's label."""
    record = item.stash.get(RECORD_KEY, None)
    if not isinstance(item, EvalItem) or record is None:
        return {}
    margin = item.config.stash[STATE_KEY].settings.label_margin
    labels = item.case.expected
    return {
        name: labels[name]
        for name, judgment in record.judgments.items()
        if name in labels and abs(judgment.score - labels[name]) > margin
    }


def _runs(item: pytest.Item) -> int | None:
    """The runs this item is judged with (None when its marker is invalid)."""
    try:
        return settings_for(item).runs
    except ValueError:
        return None


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
    limit = settings.max_input_chars  # an oversized text is stored as an excerpt only
    return {
        "target": target,
        "target_order": configured.index(target) if target in configured else len(configured),
        "compare_key": source if isinstance(source, str) else f"{file}::{case.id}",
        "ticket": bounded(case.ticket, limit),
        "answer": bounded(answer if item.target is not None else case.response, limit),
    }


def live_answer(item: pytest.Item, target: str) -> str:
    """Ask the item's target (once per session per ticket); a failure is the item's error,
    one line with its cause (no traceback through the engine)."""
    assert isinstance(item, EvalItem)
    record = record_for(item)
    try:
        engine = item.config.stash[STATE_KEY].engine()
        record.answer = engine.answer(target, item.case.ticket, item.case.context)
        return record.answer
    except JudgeError as exc:
        problem = str(exc)
    record.errors.append(problem)
    pytest.fail(problem, pytrace=False)


def is_judge_error(record: dict[str, Any]) -> bool:
    """The attempt could not be judged (a judge error is no verdict)."""
    return bool(record.get("error"))


def junit_properties(item: pytest.Item) -> list[tuple[str, object]]:
    """Score, std, runs and threshold per dimension, as JUnit XML properties."""
    record = item.stash.get(RECORD_KEY, None)
    if record is None:
        return []
    properties: list[tuple[str, object]] = []
    for name, judgment in record.judgments.items():
        dim = judgment.result
        properties += [
            (f"llmjudge.{name}.score", dim.score),
            (f"llmjudge.{name}.std", dim.std),
            (f"llmjudge.{name}.runs", ",".join(str(r) for r in dim.runs)),
            (f"llmjudge.{name}.threshold", dim.threshold),
            (f"llmjudge.{name}.decision", dim.decision),
        ]
    if record.errors:
        properties.append(("llmjudge.error", redact("; ".join(record.errors))))
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


def report_outcome(report: pytest.TestReport, record: dict[str, Any]) -> tuple[str, str | None]:
    """The results outcome of a report and, for skips, xfails and errors, why."""
    xfail = hasattr(report, "wasxfail")
    if report.passed:
        outcome = "xpassed" if xfail else "passed"
    elif report.skipped:
        outcome = "xfailed" if xfail else "skipped"
    else:
        error = is_judge_error(record) or report.when != "call"
        outcome = "error" if error else "failed"
    if xfail:
        if record.get("flaky_failed") and outcome == "xfailed":
            outcome = "flaky_failed"
        return outcome, report.wasxfail or None
    if report.skipped and isinstance(report.longrepr, tuple):
        return outcome, str(report.longrepr[2]).removeprefix("Skipped: ")
    if outcome == "error" and not is_judge_error(record):  # stopped by something else
        text = report.longreprtext.strip().splitlines()
        reason = crash_message(report) or (text[-1] if text else "error")
        return outcome, redact(reason)
    return outcome, None

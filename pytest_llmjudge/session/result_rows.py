"""An attempt's row on its test report, and what the report decides of it: its outcome and
reason; a live target's answer; a flaky eval's failure.

The row rides on the report as its JSON data (so that it travels from an xdist worker to the
controller); the controller adds what only the report tells: outcome, reason and duration.
"""

from __future__ import annotations

import pytest

from ..analysis.judgment import JudgeError
from ..basics.redaction import redact
from ..evalfiles.entry_model import SAVED_LATENCY
from ..judging.verdict import EvalFailed
from ..reports.item_text import flaky_reason, junit_properties
from ..schema.results import Outcome, SkippedEntry
from .attempt import attempt_for, closed_row, relative_path
from .collect import EvalItem, InvalidEvalItem
from .item_checks import response_latency
from .pytest_internals import crash_message, writes_test_properties
from .state import ATTEMPT_KEY, STATE_KEY


def invalid_entry(item: pytest.Item) -> SkippedEntry | None:
    """An entry that failed validation at collection (an error, or skipped when marked so)."""
    if not isinstance(item, InvalidEvalItem):
        return None
    entry = item.invalid_entry
    file = relative_path(item.path, item.config.rootpath)
    # the reason as the original harness wrote it: FILE:LINE (id): cause
    reason = f"{entry.place}: {entry.reason}" if entry.place else entry.reason
    return SkippedEntry(file=file, index=entry.index, id=entry.name, line=entry.line, reason=reason)


def attach_row(item: pytest.Item, when: str, report: pytest.TestReport) -> None:
    """Put the attempt's row on its report, as plain data that travels from an xdist
    worker."""
    if when == "call" or (when == "setup" and not report.passed):
        invalid = invalid_entry(item)
        if invalid is not None:
            report.llmjudge_invalid = invalid.model_dump(mode="json")  # type: ignore[attr-defined]
        row = closed_row(item)
        if row is not None:
            # without its defaults: the controller's row, validated from it, records only
            # the fields given (pydantic keeps that set per model, kept a row per item)
            data = row.model_dump(mode="json", exclude_defaults=True)
            report.llmjudge = data  # type: ignore[attr-defined]
            if isinstance(item, EvalItem) and item.target is not None:
                _attach_entry(item, report)
            # --junitxml and --json-report read the properties of the item (via its teardown
            # report); a rerun replaces the earlier attempt's. Without them: made for nobody.
            if writes_test_properties(item.config):
                item.user_properties[:] = [
                    p for p in item.user_properties if not str(p[0]).startswith("llmjudge.")
                ] + junit_properties(row)
    if when == "teardown" and ATTEMPT_KEY in item.stash:
        del item.stash[ATTEMPT_KEY]  # a rerun is a new attempt


def _attach_entry(item: EvalItem, report: pytest.TestReport) -> None:
    """With llmjudge_targets save_responses: every field of the entry that decides its outcome (file
    defaults applied), so that the saved answer replays as the live one ran."""
    if item.config.stash[STATE_KEY].settings.save_responses is None or item.target is None:
        return  # only a live target's answers are saved (a replay never overwrites its file)
    fields = item.entry.model_dump(mode="json", exclude_defaults=True, exclude={"response"})
    latency = response_latency(item)
    if latency is not None:  # a replay checks max_latency_ms on it (not rounded: the same verdict)
        fields["metadata"] = {**fields.get("metadata", {}), SAVED_LATENCY: latency}
    report.llmjudge_entry = fields  # type: ignore[attr-defined]


def live_response(item: pytest.Item, target: str | None) -> str:
    """Ask the item's target (once per session per ticket); a failure is the item's error,
    one line with its cause (no traceback through the engine). Without a target: a saved
    target's error, replayed."""
    assert isinstance(item, EvalItem)
    attempt = attempt_for(item)
    if target is None:
        problem = str(item.entry.saved_error)
        attempt.errors.append(problem)
        pytest.fail(problem, pytrace=False)
    try:
        engine = item.config.stash[STATE_KEY].engine()
        attempt.answer = engine.response(target, item.entry.ticket, item.entry.context)
        return attempt.answer
    except JudgeError as exc:
        problem = str(exc)
    attempt.errors.append(problem)
    pytest.fail(problem, pytrace=False)


def flaky_failure(item: pytest.Item, exc: BaseException) -> str | None:
    """The xfail reason when a flaky eval fell below its threshold (None: let it fail)."""
    attempt = item.stash.get(ATTEMPT_KEY, None)
    settings = item.config.stash[STATE_KEY].settings
    judged_cleanly = attempt is not None and attempt.judgments and not attempt.errors
    if "flaky" in settings.strict or not judged_cleanly:
        return None
    if not isinstance(exc, (EvalFailed, AssertionError)):
        return None
    assert attempt is not None
    attempt.row.flaky_failed = True
    return flaky_reason(exc.verdict if isinstance(exc, EvalFailed) else _first_line(exc))


def _first_line(error: BaseException) -> str:
    """A hand-written test's assertion: the first line of its own message (not ours)."""
    message = str(error).strip()
    return message.splitlines()[0] if message else "assertion failed"


def report_outcome(
    report: pytest.TestReport, judge_error: bool, flaky_failed: bool
) -> tuple[Outcome, str | None]:
    """The results outcome of a report and, for skips, xfails and errors, why;
    ``judge_error``: the attempt could not be judged (no verdict), ``flaky_failed``: a flaky
    eval below threshold."""
    xfail = hasattr(report, "wasxfail")
    outcome: Outcome
    if report.passed:
        outcome = "xpassed" if xfail else "passed"
    elif report.skipped:
        outcome = "xfailed" if xfail else "skipped"
    else:
        outcome = "error" if judge_error or report.when != "call" else "failed"
    if xfail:
        if flaky_failed and outcome == "xfailed":
            outcome = "flaky_failed"
        return outcome, report.wasxfail or None
    if report.skipped and isinstance(report.longrepr, tuple):
        return outcome, str(report.longrepr[2]).removeprefix("Skipped: ")
    if outcome == "error" and not judge_error:  # stopped by something else
        return outcome, lost_reason(report)
    return outcome, None


def lost_reason(report: pytest.TestReport) -> str:
    """pytest's reason for a report that stopped an item from outside the judge (a crashed
    xdist worker, a timeout, a fixture's error): its crash line, else its last line."""
    text = report.longreprtext.strip().splitlines()
    return redact(crash_message(report) or (text[-1] if text else "error"))

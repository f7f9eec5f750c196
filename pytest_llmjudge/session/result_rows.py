"""From pytest's items and reports to results rows: what one attempt judged, and its outcome.

The row of an attempt is built once, as ``schema.JudgedItem``, when the attempt ends, and
rides on its test report as that model's JSON data (so that it travels from an xdist worker
to the controller); the controller adds what only the report tells: outcome, reason and
duration.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest

from ..analysis.judgment import JudgeError
from ..basics.redaction import redact, redact_values
from ..checks.report import distinct_names
from ..evalfiles.entry_model import SAVED_LATENCY
from ..evalfiles.entry_rules import bounded
from ..judging.verdict import AttemptRecord, EvalFailed
from ..schema.results import CheckResult, ItemUsage, JudgedItem, Outcome, SkippedEntry
from .collect import EvalItem, InvalidEvalItem
from .item_checks import answer_latency
from .pytest_internals import crash_message, writes_test_properties
from .state import RECORD_KEY, STATE_KEY, record_for, settings_for


@functools.lru_cache(maxsize=64)  # the items of a file ask for the same path
def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def judged_item(item: pytest.Item) -> JudgedItem | None:
    """What this attempt judged, as its results row; None for a test that never asked for the
    judge (a hand-written test that did counts, whether it judged or not)."""
    record = item.stash.get(RECORD_KEY, None)
    if not isinstance(item, EvalItem) and record is None:
        return None  # a test that never asked for the judge
    row = JudgedItem(
        id=item.name,
        file=_relative(item.path, item.config.rootpath),
        nodeid=item.nodeid,
        flaky=item.get_closest_marker("flaky_eval") is not None,
    )
    if isinstance(item, EvalItem):
        _add_entry(row, item, record)
    if record is not None:
        _add_judging(row, item, record)
    return row


def _add_entry(row: JudgedItem, item: EvalItem, record: AttemptRecord | None) -> None:
    """The entry as judged: its texts (excerpts past the input limit), labels and target."""
    case = item.case
    settings = item.config.stash[STATE_KEY].settings
    limit = settings.max_input_chars
    # what was judged: a target's answer, or the user's own llmjudge_response's
    judged = record.answer if record is not None and record.answer is not None else case.response
    row.id, row.line, row.runs = case.id, item.entry.line, _runs(item)
    # secrets out, as the trace has them: a key pasted into a ticket or an answer reaches no
    # file (results, reports, JUnit) through the row
    row.ticket = _redacted(bounded(case.ticket, limit))
    row.response = _redacted(bounded(judged, limit))
    row.conversation = [
        {"role": t.role, "content": redact(bounded(t.content, limit))} for t in case.conversation
    ]
    row.reference = _redacted(bounded(case.reference, limit))
    row.cluster = case.cluster
    row.expected, row.metadata = case.expected, redact_values(case.metadata)
    # Which implementation answered, and which entry its answer is compared on: a live item
    # knows its target; a replayed one (llmjudge_targets save_responses) carries the target and the
    # original entry in its metadata.
    target = item.target or case.metadata.get("target")
    if isinstance(target, str):
        source = case.metadata.get("source") if item.target is None else None
        configured = [t.name for t in settings.targets.targets] if settings.targets else []
        row.target = target
        row.target_order = configured.index(target) if target in configured else len(configured)
        row.compare_key = source if isinstance(source, str) else f"{row.file}::{case.id}"
        # a live target that failed answered nothing (not the entry's stored response)
        answered = item.target is None or (record is not None and record.answer is not None)
        row.answer = row.response if answered else None


def _redacted(text: str | None) -> str | None:
    return None if text is None else redact(text)


def _check_redacted(check: CheckResult) -> CheckResult:
    """A check whose detail quotes the answer, a secret in it redacted (copied only then)."""
    detail = redact(check.detail)
    return check if detail == check.detail else check.model_copy(update={"detail": detail})


def _add_judging(row: JudgedItem, item: pytest.Item, record: AttemptRecord) -> None:
    """What the attempt's judge calls found and cost."""
    for name, judgment in record.judgments.items():
        setattr(row, name, judgment.result)  # a configured dimension is an extra key
    usage = record.usage()
    row.flaky_failed = record.flaky_failed
    row.attempt = record.attempt + 1
    row.injection_suspected = bool(record.injection)
    row.injection_snippets = [redact(s) for s in record.injection]
    row.not_applicable = list(record.not_applicable)
    row.not_judged_offline = list(record.not_judged_offline)
    row.checks = [_check_redacted(check) for check in record.checks]
    row.judged = record.judged
    row.label_disagreement = bool(_far_from_label(item))
    row.usage = ItemUsage(
        calls=usage.calls,
        judgments=usage.runs,
        prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens,
        tokens_unknown=usage.tokens_unknown,
    )
    if record.errors:
        row.error = redact("; ".join(record.errors))


def invalid_entry(item: pytest.Item) -> SkippedEntry | None:
    """An entry that failed validation at collection (an error, or skipped when marked so)."""
    if not isinstance(item, InvalidEvalItem):
        return None
    entry = item.entry
    file = _relative(item.path, item.config.rootpath)
    # the reason as the original harness wrote it: FILE:LINE (id): cause
    reason = f"{entry.place}: {entry.reason}" if entry.place else entry.reason
    return SkippedEntry(file=file, index=entry.index, id=entry.name, line=entry.line, reason=reason)


def attach_record(item: pytest.Item, when: str, report: pytest.TestReport) -> None:
    """Put the attempt's row on its report, as plain data that travels from an xdist
    worker."""
    if when == "call" or (when == "setup" and not report.passed):
        invalid = invalid_entry(item)
        if invalid is not None:
            report.llmjudge_invalid = invalid.model_dump(mode="json")  # type: ignore[attr-defined]
        row = judged_item(item)
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
    if when == "teardown" and RECORD_KEY in item.stash:
        del item.stash[RECORD_KEY]  # a rerun is a new attempt


def _attach_entry(item: EvalItem, report: pytest.TestReport) -> None:
    """With llmjudge_targets save_responses: every field of the entry that decides its outcome (file
    defaults applied), so that the saved answer replays as the live one ran."""
    if item.config.stash[STATE_KEY].settings.save_responses is None or item.target is None:
        return  # only a live target's answers are saved (a replay never overwrites its file)
    fields = item.case.model_dump(mode="json", exclude_defaults=True, exclude={"response"})
    latency = answer_latency(item)
    if latency is not None:  # a replay checks max_latency_ms on it (not rounded: the same verdict)
        fields["metadata"] = {**fields.get("metadata", {}), SAVED_LATENCY: latency}
    report.llmjudge_entry = fields  # type: ignore[attr-defined]


def _far_from_label(item: pytest.Item) -> dict[str, float]:
    """Dimensions judged further than llmjudge_label_margin from the entry's label."""
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


def live_answer(item: pytest.Item, target: str | None) -> str:
    """Ask the item's target (once per session per ticket); a failure is the item's error,
    one line with its cause (no traceback through the engine). Without a target: a saved
    target's error, replayed."""
    assert isinstance(item, EvalItem)
    record = record_for(item)
    if target is None:
        problem = str(item.case.saved_error)
        record.errors.append(problem)
        pytest.fail(problem, pytrace=False)
    try:
        engine = item.config.stash[STATE_KEY].engine()
        record.answer = engine.answer(target, item.case.ticket, item.case.context)
        return record.answer
    except JudgeError as exc:
        problem = str(exc)
    record.errors.append(problem)
    pytest.fail(problem, pytrace=False)


def junit_properties(row: JudgedItem) -> list[tuple[str, object]]:
    """Score, std, runs and threshold per dimension, and each check's result, as JUnit XML
    properties."""
    properties: list[tuple[str, object]] = []
    for name, dim in row.dimensions.items():
        properties += [
            (f"llmjudge.{name}.score", dim.score),
            (f"llmjudge.{name}.std", dim.std),
            (f"llmjudge.{name}.runs", ",".join(str(r) for r in dim.runs)),
            (f"llmjudge.{name}.threshold", dim.threshold),
            (f"llmjudge.{name}.decision", dim.decision),
        ]
    for check, shown in zip(row.checks, distinct_names(row.checks), strict=True):
        state = "n/a" if check.passed is None else "passed" if check.passed else "failed"
        name = _xml_safe(shown)  # two checks of one name: a property each
        properties += [
            (f"llmjudge.check.{name}", "error" if check.error else state),
            (f"llmjudge.check.{name}.detail", check.detail),
        ]
    if row.error:
        properties.append(("llmjudge.error", row.error))
    return properties


# Characters XML 1.0 cannot hold (pytest escapes a property's value, not its name).
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_safe(text: str) -> str:
    """A check's name (it may quote the entry's text) as a JUnit property name can hold it."""
    return _NOT_XML.sub(lambda m: f"#x{ord(m.group()):02X}", text)


def flaky_failure(item: pytest.Item, exc: BaseException) -> str | None:
    """The xfail reason when a flaky eval fell below its threshold (None: let it fail)."""
    record = item.stash.get(RECORD_KEY, None)
    settings = item.config.stash[STATE_KEY].settings
    judged_cleanly = record is not None and record.judgments and not record.errors
    if "flaky" in settings.strict or not judged_cleanly:
        return None
    if not isinstance(exc, (EvalFailed, AssertionError)):
        return None
    assert record is not None
    record.flaky_failed = True
    first_line = exc.verdict if isinstance(exc, EvalFailed) else _first_line(exc)
    return f"flaky eval below threshold (not gating): {first_line}"


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

"""One attempt at an item: its results row, made when the attempt starts and written as
each fact is learned; what an eval item runs (its judgments in setup, its verdict as body).

The row (``schema.JudgedItem``) is closed once: when an eval item's judgments are all in
(its verdict is then read from the row), or where the attempt ends otherwise (an error, a
hand-written test's end, at its report).
"""

from __future__ import annotations

import functools
import logging
from pathlib import Path
from typing import Any

import pytest

from ..analysis.judgment import JudgeError, Judgment
from ..basics.redaction import SHOWN_IN_REPORT, redact, redact_values
from ..config.settings import Settings
from ..evalfiles.entry_rules import bounded
from ..judging.item_judge import DimensionJudge, ItemJudge
from ..judging.verdict import Attempt, UndecidedVerdict, VerdictPolicy, assert_verdict, judge_all
from ..reports.checks_text import checks_sentence
from ..reports.item_text import passing_report, undecided_reason
from ..schema.items import CheckResult, JudgedItem
from .item_checks import checked
from .pytest_internals import shows_passing_sections
from .state import ATTEMPT_KEY, ATTEMPTS_KEY, EVAL_ITEM_KEY, STATE_KEY, settings_for

logger = logging.getLogger("pytest_llmjudge")


def is_eval_item(item: pytest.Item) -> bool:
    """An item of an eval entry that validated (``collect.EvalItem``: it holds the entry)."""
    return EVAL_ITEM_KEY in item.stash and hasattr(item, "entry")


@functools.lru_cache(maxsize=64)  # the items of a file ask for the same path
def relative_path(path: Path, root: Path) -> str:
    """A file as the results name it: relative to the rootdir where it is under it."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def attempt_for(item: pytest.Item) -> Attempt:
    """This attempt of the item, started on first use; dropped at its teardown, so that a
    rerun starts afresh."""
    attempt = item.stash.get(ATTEMPT_KEY, None)
    if attempt is None:
        number = item.stash.get(ATTEMPTS_KEY, 0) + 1
        item.stash[ATTEMPTS_KEY] = number
        row = JudgedItem(
            id=item.name,
            file=relative_path(item.path, item.config.rootpath),
            nodeid=item.nodeid,
            flaky=item.get_closest_marker("flaky_eval") is not None,
            attempt=number,
        )
        attempt = item.stash[ATTEMPT_KEY] = Attempt(row)
    return attempt


def closed_row(item: pytest.Item) -> JudgedItem | None:
    """The attempt's row, closed (once): with the entry as judged and what was in flight.
    None for a test that never asked for the judge (a hand-written test that did counts,
    whether it judged or not)."""
    attempt = item.stash.get(ATTEMPT_KEY, None)
    if attempt is None and not is_eval_item(item):
        return None
    attempt = attempt or attempt_for(item)
    if attempt.closed:
        return attempt.row
    if is_eval_item(item):
        _add_entry(attempt.row, item, attempt)
    row = attempt.close_row()
    row.label_disagreement = _far_from_label(row, item)
    return row


def _add_entry(row: JudgedItem, item: Any, attempt: Attempt) -> None:
    """The entry as judged: its texts (excerpts past the input limit), labels and target."""
    entry = item.entry
    settings = item.config.stash[STATE_KEY].settings
    limit = settings.max_input_chars
    # what was judged: a target's answer, or the user's own llmjudge_response's
    judged = attempt.answer if attempt.answer is not None else entry.response
    row.id, row.line, row.runs = entry.id, item.line, _runs(item)
    # secrets out, as the trace has them: a key pasted into a ticket or an answer reaches no
    # file (results, reports, JUnit) through the row
    row.ticket = _redacted(bounded(entry.ticket, limit))
    row.response = _redacted(bounded(judged, limit))
    row.conversation = [
        {"role": t.role, "content": redact(bounded(t.content, limit))} for t in entry.conversation
    ]
    row.reference = _redacted(bounded(entry.reference, limit))
    row.cluster = entry.cluster
    row.expected, row.metadata = entry.expected, redact_values(entry.metadata)
    # Which implementation answered, and which entry its answer is compared on: a live item
    # knows its target; a replayed one (llmjudge_targets save_responses) carries the target and the
    # original entry in its metadata.
    target = item.target or entry.metadata.get("target")
    if isinstance(target, str):
        source = entry.metadata.get("source") if item.target is None else None
        configured = [t.name for t in settings.targets.targets] if settings.targets else []
        row.target = target
        row.target_order = configured.index(target) if target in configured else len(configured)
        row.compare_key = source if isinstance(source, str) else f"{row.file}::{entry.id}"
        # a live target that failed answered nothing (not the entry's stored response)
        answered = item.target is None or attempt.answer is not None
        row.answer = row.response if answered else None


def _redacted(text: str | None) -> str | None:
    return None if text is None else redact(text)


def redacted_checks(checks: list[CheckResult]) -> list[CheckResult]:
    """Checks whose detail quotes the answer, a secret in it redacted (a check copied only
    then)."""
    return [_check_redacted(check) for check in checks]


def _check_redacted(check: CheckResult) -> CheckResult:
    detail = redact(check.detail)
    return check if detail == check.detail else check.model_copy(update={"detail": detail})


def _far_from_label(row: JudgedItem, item: pytest.Item) -> bool:
    """Whether a dimension was judged further than llmjudge_label_margin from its label."""
    if not is_eval_item(item):
        return False
    margin = item.config.stash[STATE_KEY].settings.label_margin
    labels = row.expected
    return any(
        abs(dim.score - labels[name]) > margin
        for name, dim in row.dimensions.items()
        if name in labels
    )


def _runs(item: pytest.Item) -> int | None:
    """The runs this item is judged with (None when its marker is invalid)."""
    try:
        return settings_for(item).runs
    except ValueError:
        return None


def judge_eval_item(
    item: pytest.Item,
    ticket: str,
    response: object,
    judges: dict[str, Any],
    llmjudge: ItemJudge,
) -> list[Judgment]:
    """The ``llmjudge_judgments`` fixture: every dimension judged, during the item's setup;
    its row is closed once they are (the verdict is then the row's).

    A judge error there is an error of the item (terminal, results and JUnit alike), never
    a failed verdict; its text stands alone, without a traceback of the plugin.
    """
    attempt = attempt_for(item)
    row = attempt.row
    if isinstance(response, str):  # a wrong type is said by judge_all below
        # what is judged; llmjudge_response may be the user's own, and its text goes to files
        stored = getattr(getattr(item, "entry", None), "response", None)
        attempt.answer = response if response == stored else redact(response)
        found = checked(item, response)
        row.checks = redacted_checks(found.results)
        if found.errors:
            error = checks_sentence(found.errors)
            attempt.errors.append(error)
            row.judged = False
            pytest.fail(error, pytrace=False)
        if found.skips_judge:
            row.judged = False
            closed_row(item)
            return []
    state = item.config.stash[STATE_KEY]
    settings = state.settings
    unjudged = [] if settings.uses_llm else _offline_unjudged(item, settings, attempt, judges)
    for name, dimension in settings.dimensions.items():
        if name in unjudged:
            continue
        if dimension.by_default and not dimension.applies(llmjudge.context):
            continue  # not asked for: nothing to say of it
        judges.setdefault(name, DimensionJudge(llmjudge, name))
    try:
        judgments = _judge_all(ticket, response, judges, attempt, state.verdict_policy())
    except JudgeError as exc:
        problem = str(exc)
    else:
        if not (row.injection_suspected and "injection" in settings.strict):
            closed_row(item)
            return judgments
        problem = "injection suspected (--judge-strict): " + "; ".join(row.injection_snippets)
        attempt.errors.append(problem)
    logger.error("%s: %s", item.nodeid, problem, extra=SHOWN_IN_REPORT)
    pytest.fail(problem, pytrace=False)  # outside the except: no "during handling" chain


def _judge_all(
    ticket: str, response: object, judges: dict[str, Any], attempt: Attempt, policy: VerdictPolicy
) -> list[Judgment]:
    """``judge_all``; a failure raised into its wait (pytest-timeout's signal method: no code
    of the user's runs there) is a JudgeError of its own text and cause, without the frames
    of the plugin."""
    try:
        return judge_all(ticket, response, judges, attempt, policy)
    except pytest.fail.Exception as exc:
        if not exc.pytrace:  # one of ours, said already
            raise
        problem = stopped_while_judging(exc.msg or "stopped", list(judges), attempt)
    attempt.errors.append(problem)
    raise JudgeError(problem)  # outside the except: no "during handling" chain


def stopped_while_judging(message: str, dimensions: list[str], attempt: Attempt) -> str:
    """Why the item stopped while its judgments were awaited (a timeout): what was judged by
    then, and where the time went."""
    done = [name for name in dimensions if name in attempt.judgments]
    waiting = [name for name in dimensions if name not in attempt.judgments]
    return (
        f"{message.rstrip('.')} while judging (in the item's setup): "
        f"{', '.join(waiting) or 'nothing'} still waiting on the judge, "
        f"{', '.join(done) or 'none'} judged by then; the judge answered more slowly than "
        "the timeout allows: give eval items more time "
        '(--timeout, or a mark in the eval file: {"name": "timeout", "timeout": 120})'
    )


def _offline_unjudged(
    item: pytest.Item, settings: Settings, attempt: Attempt, judges: dict[str, Any]
) -> list[str]:
    """The dimensions the offline judge leaves unjudged for this item, taken out of
    ``judges`` and recorded; under ``llmjudge_strict = offline`` an error of the item."""
    from ..judging.offline import STRICT_KIND, not_judged_offline, strict_error

    reference = getattr(getattr(item, "entry", None), "reference", None)
    unjudged = not_judged_offline(settings, has_reference=reference is not None)
    for name in unjudged:
        judges.pop(name, None)
    attempt.row.not_judged_offline = list(unjudged)
    if unjudged and STRICT_KIND in settings.strict:
        problem = strict_error(unjudged)
        attempt.errors.append(problem)
        attempt.row.judged = False
        pytest.fail(problem, pytrace=False)
    return unjudged


def run_eval_entry(request: pytest.FixtureRequest, llmjudge_judgments: list[Judgment]) -> None:
    """The body of an eval item: its row's checks and dimensions against their thresholds."""
    __tracebackhide__ = True
    item = request.node
    row = closed_row(item)
    assert row is not None  # an eval item's
    policy = item.config.stash[STATE_KEY].verdict_policy()
    try:
        assert_verdict(row, policy)
    except UndecidedVerdict:
        pytest.xfail(undecided_reason(row))
    # A failure shows the table in its report; a pass shows it with -rP and in HTML reports
    # (pytest keeps a section until the session ends: none is made for nobody).
    if shows_passing_sections(item.config):
        item.add_report_section("call", "llmjudge", passing_report(row, policy.confident))

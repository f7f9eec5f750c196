"""What an eval item runs: its judgments during setup (a fixture), its verdict as the body."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from ..analysis.judgment import JudgeError, Judgment
from ..basics.redaction import SHOWN_IN_REPORT, redact
from ..config.settings import Settings
from ..judging.item_judge import DimensionJudge, ItemJudge
from ..judging.verdict import AttemptRecord, UndecidedVerdict, check_verdict, judge_all
from ..reports.item_text import passing_report
from .item_checks import checked
from .pytest_internals import shows_passing_sections
from .state import STATE_KEY, record_for

logger = logging.getLogger("pytest_llmjudge")


def judge_eval_item(
    item: pytest.Item,
    ticket: str,
    response: object,
    judges: dict[str, Any],
    llmjudge: ItemJudge,
) -> list[Judgment]:
    """The ``llmjudge_judgments`` fixture: every dimension judged, during the item's setup.

    A judge error there is an error of the item (terminal, results and JUnit alike), never
    a failed verdict; its text stands alone, without a traceback of the plugin.
    """
    record = record_for(item)
    if isinstance(response, str):  # a wrong type is said by judge_all below
        # what is judged; llmjudge_response may be the user's own, and its text goes to files
        stored = getattr(getattr(item, "case", None), "response", None)
        record.answer = response if response == stored else redact(response)
        found = checked(item, response)
        record.checks = found.results
        if found.error:
            record.errors.append(found.error)
            record.judged = False
            pytest.fail(found.error, pytrace=False)
        if found.skips_judge:
            record.judged = False
            return []
    settings = item.config.stash[STATE_KEY].settings
    unjudged = [] if settings.uses_llm else _offline_unjudged(item, settings, record, judges)
    for name, dimension in settings.dimensions.items():
        if name in unjudged:
            continue
        if dimension.by_default and not dimension.applies(llmjudge.context):
            continue  # not asked for: nothing to say of it
        judges.setdefault(name, DimensionJudge(llmjudge, name))
    try:
        judgments = _judge_all(ticket, response, judges, record)
    except JudgeError as exc:
        problem = str(exc)
    else:
        if not (record.injection and "injection" in settings.strict):
            return judgments
        problem = "injection suspected (--judge-strict): " + "; ".join(record.injection)
        record.errors.append(problem)
    logger.error("%s: %s", item.nodeid, problem, extra=SHOWN_IN_REPORT)
    pytest.fail(problem, pytrace=False)  # outside the except: no "during handling" chain


def _judge_all(
    ticket: str, response: object, judges: dict[str, Any], record: AttemptRecord
) -> list[Judgment]:
    """``judge_all``; a failure raised into its wait (pytest-timeout's signal method: no code
    of the user's runs there) is a JudgeError of its own text and cause, without the frames
    of the plugin."""
    try:
        return judge_all(ticket, response, judges, record)
    except pytest.fail.Exception as exc:
        if not exc.pytrace:  # one of ours, said already
            raise
        problem = stopped_while_judging(exc.msg or "stopped", list(judges), record)
    record.errors.append(problem)
    raise JudgeError(problem)  # outside the except: no "during handling" chain


def stopped_while_judging(message: str, dimensions: list[str], record: AttemptRecord) -> str:
    """Why the item stopped while its judgments were awaited (a timeout): what was judged by
    then, and where the time went."""
    done = [name for name in dimensions if name in record.judgments]
    waiting = [name for name in dimensions if name not in record.judgments]
    return (
        f"{message.rstrip('.')} while judging (in the item's setup): "
        f"{', '.join(waiting) or 'nothing'} still waiting on the judge, "
        f"{', '.join(done) or 'none'} judged by then; the judge answered more slowly than "
        "the timeout allows: give eval items more time "
        '(--timeout, or a mark in the eval file: {"name": "timeout", "timeout": 120})'
    )


def _offline_unjudged(
    item: pytest.Item, settings: Settings, record: AttemptRecord, judges: dict[str, Any]
) -> list[str]:
    """The dimensions the offline judge leaves unjudged for this item, taken out of
    ``judges`` and recorded; under ``llmjudge_strict = offline`` an error of the item."""
    from ..judging.offline import STRICT_KIND, not_judged_offline, strict_error

    reference = getattr(getattr(item, "case", None), "reference", None)
    unjudged = not_judged_offline(settings, has_reference=reference is not None)
    for name in unjudged:
        judges.pop(name, None)
    record.not_judged_offline = list(unjudged)
    if unjudged and STRICT_KIND in settings.strict:
        problem = strict_error(unjudged)
        record.errors.append(problem)
        record.judged = False
        pytest.fail(problem, pytrace=False)
    return unjudged


def run_eval_entry(request: pytest.FixtureRequest, llmjudge_judgments: list[Judgment]) -> None:
    """The body of an eval item: its checks and judgments against its thresholds."""
    __tracebackhide__ = True
    item = request.node
    checks = record_for(item).checks
    policy = item.config.stash[STATE_KEY].verdict_policy()
    try:
        check_verdict(llmjudge_judgments, policy, checks)
    except UndecidedVerdict as exc:
        pytest.xfail(f"undecided verdict (llmjudge_verdict confident undecided=xfail): {exc}")
    # A failure shows the table in its report; a pass shows it with -rP and in HTML reports
    # (a section made for nobody costs 1 KB an item until the session ends).
    if shows_passing_sections(item.config):
        item.add_report_section("call", "llmjudge", passing_report(llmjudge_judgments, checks))

"""What an eval item runs: its judgments during setup (a fixture), its verdict as the body."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from ..analysis.judgment import JudgeError, Judgment
from ..basics.redaction import SHOWN_IN_REPORT, redact
from ..judging.item_judge import DimensionJudge, ItemJudge
from ..judging.verdict import UndecidedVerdict, check_verdict, judge_all
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
    for name in item.config.stash[STATE_KEY].settings.dimensions:  # configured dimensions
        judges.setdefault(name, DimensionJudge(llmjudge, name))
    try:
        judgments = judge_all(ticket, response, judges, record)
    except JudgeError as exc:
        problem = str(exc)
    else:
        if not (record.injection and "entries" in item.config.stash[STATE_KEY].settings.strict):
            return judgments
        problem = "injection suspected (--judge-strict): " + "; ".join(record.injection)
        record.errors.append(problem)
    logger.error("%s: %s", item.nodeid, problem, extra=SHOWN_IN_REPORT)
    pytest.fail(problem, pytrace=False)  # outside the except: no "during handling" chain


def run_eval_entry(request: pytest.FixtureRequest, llmjudge_judgments: list[Judgment]) -> None:
    """The body of an eval item: its checks and judgments against its thresholds."""
    __tracebackhide__ = True
    item = request.node
    checks = record_for(item).checks
    policy = item.config.stash[STATE_KEY].verdict_policy(item.nodeid)
    try:
        check_verdict(llmjudge_judgments, policy, checks)
    except UndecidedVerdict as exc:
        pytest.xfail(f"undecided verdict (llmjudge_verdict confident undecided=xfail): {exc}")
    # A failure shows the table in its report; a pass shows it with -rP and in HTML reports
    # (a section made for nobody costs 1 KB an item until the session ends).
    if shows_passing_sections(item.config):
        item.add_report_section("call", "llmjudge", passing_report(llmjudge_judgments, checks))

"""The plugin's hook objects: planning judge runs ahead, and (on the controller) the results.

Registered by ``plugin.pytest_configure``; like the module hooks, each hook hands off to a
plain module in a few lines.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Generator
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

import pytest

from .discovery import is_eval_nodeid
from .pytest_internals import sugar_reports, xdist_worker_id, xdist_worker_output
from .state import STATE_KEY, SigtermAsInterrupt, session_facts

if TYPE_CHECKING:
    from ..outputs.session_results import SessionResults
    from ..schema.results import ItemResult, JudgedItem
    from .distributed import WorkersHeard
    from .run_ahead import Planner


class HeldRows:
    """Each running item's row, held until its teardown report, so that its ``duration_s`` is
    setup + call + teardown as pytest reports them (what ``--durations`` and pytest-split
    read; judging is in the setup)."""

    def __init__(self) -> None:
        self._took: dict[str, float] = {}
        self._held: dict[str, ItemResult] = {}

    def timed(self, report: pytest.TestReport) -> float:
        """The attempt's time so far, this report's phase included (a setup starts an
        attempt, a rerun's too)."""
        before = 0.0 if report.when == "setup" else self._took.get(report.nodeid, 0.0)
        self._took[report.nodeid] = took = before + report.duration
        return took

    def hold(self, row: ItemResult) -> None:
        self._held[row.nodeid] = row

    def released(self, report: pytest.TestReport) -> ItemResult | None:
        """At its teardown: the item's row, with its whole duration (None: none held)."""
        if report.when != "teardown":
            return None
        took = self._took.pop(report.nodeid, 0.0)
        row = self._held.pop(report.nodeid, None)
        if row is not None:
            row.duration_s = round(took, 4)
        return row

    def rest(self) -> list[ItemResult]:
        """The rows whose teardown never came (a crashed worker, an interrupt)."""
        rows, self._held = list(self._held.values()), {}
        return rows


class PlanningHooks:
    """Starts the judge runs of upcoming items early; stops when the session stops."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.planner: Planner | None = None

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> None:
        if self.planner is None:
            if not self.config.stash[STATE_KEY].has_evals:
                return  # no eval item: nothing to plan, nothing to import
            from .run_ahead import Planner

            self.planner = Planner(self.config, item.session)
        self.planner.before_item(item, nextitem)

    @pytest.hookimpl(trylast=True)  # after the session counted the failure for -x/--maxfail
    def pytest_runtest_logreport(self) -> None:
        if self.planner is not None:
            self.planner.after_report()


class ResultsReporter:
    """On the controller: hands reports to the session's results, writes them, prints."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self._results: SessionResults | None = None
        self.started = datetime.now(timezone.utc)
        self.clock = time.monotonic()
        self.summary: list[str] = []
        self._sigterm = SigtermAsInterrupt()
        self._reported: JudgedItem | None = None  # the row of the report being logged
        self._collection_said = False  # under xdist: what is said of the items, said once
        self._workers: WorkersHeard | None = None  # under xdist: who has said what it sent
        self._sugar_scores: dict[str, str] = {}  # with pytest-sugar: each -v line's scores
        self._annotated: set[str] = set()  # by pytest-github-actions-annotate-failures
        self._started_written = False  # the results file that says the session has not ended
        self._held = HeldRows()  # rows until their teardown (their duration)

    @property
    def results(self) -> SessionResults:
        if self._results is None:  # pydantic is imported only once there is something
            from ..outputs.row_spill import open_spill, streams_rows
            from ..outputs.session_results import SessionResults

            settings = self.config.stash[STATE_KEY].settings
            self._results = SessionResults(spill=open_spill() if streams_rows(settings) else None)
        return self._results

    def _eval_session(self) -> None:
        self.config.stash[STATE_KEY].has_evals = True
        # CI cancels jobs with SIGTERM: make it an interrupt so that the results get written.
        self._sigterm.install()

    def pytest_runtestloop(self) -> None:  # after the judge was asked (``before_first_item``)
        if self.config.stash[STATE_KEY].has_evals:
            self._write_started()

    def _write_started(self) -> None:
        """The results file says the session has not ended until it ends: an earlier
        session's results never stay meanwhile (a killed session leaves this one)."""
        if not self._started_written and not self.config.getoption("collectonly"):
            self._started_written = True
            from ..outputs.session_results import started_results
            from ..outputs.writers import write_results_only

            settings = self.config.stash[STATE_KEY].settings
            write_results_only(started_results(settings, self.started), settings)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if self.config.stash[STATE_KEY].has_evals and not self.config.getoption("collectonly"):
            self._eval_session()
            from .item_checks import say_latency_without_target, timed_items

            say_latency_without_target(self.config, timed_items(session.items))
            if not self.config.stash[STATE_KEY].settings.uses_llm:
                from .offline_notice import referenced_items, say_offline_notice

                say_offline_notice(self.config, referenced_items(session.items))

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodeready(self, node: Any) -> None:
        if self._workers is None:  # pydantic is imported only under xdist
            from .distributed import WorkersHeard

            self._workers = WorkersHeard()
        self._workers.up(xdist_worker_id(node))

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        if self._workers is not None and xdist_worker_output(node) is not None:
            self._workers.down(xdist_worker_id(node))  # it ended and said what it sent
        output = xdist_worker_output(node) or {}
        usage = output.get("llmjudge_usage")
        if usage is not None:  # what that worker's engine sent
            from ..judges.base import Totals

            self.results.add_usage(Totals.from_json(json.loads(usage)))
        collected = output.get("llmjudge_collected")
        if collected is not None:  # every worker collects the same items
            self.config.stash[STATE_KEY].collected = json.loads(collected)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        if any(is_eval_nodeid(nodeid) for nodeid in ids):
            self._eval_session()
            if not self._collection_said:  # every worker collects the same items
                self._collection_said = True
                from .distributed import say_of_collection

                say_of_collection(self.config, ids)
                self._write_started()
                if not self.config.stash[STATE_KEY].settings.uses_llm:
                    from .offline_notice import referenced_ids, say_offline_notice

                    say_offline_notice(self.config, referenced_ids(self.config, ids), True)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> Generator[None, None, None]:
        self._reported = self._take(report)
        if self._reported is not None:
            from .other_plugins import annotated_elsewhere

            if annotated_elsewhere(self.config, report):  # not twice: that plugin does it
                self._annotated.add(report.nodeid)
        location = report.location
        if sugar_reports(self.config):
            report.location = self._sugar_location(report)
        try:
            yield  # the terminal's -v line reads the row meanwhile (pytest_report_teststatus)
        finally:  # pytest keeps every report: its row is in the results now
            self._reported = None
            report.location = location
            report.__dict__.pop("llmjudge", None)

    def _take(self, report: pytest.TestReport) -> JudgedItem | None:
        took = self._held.timed(report)
        if (held := self._held.released(report)) is not None:
            self.results.add(held)
        row = getattr(report, "llmjudge", None)
        invalid = getattr(report, "llmjudge_invalid", None)
        if row is None and invalid is None:
            if report.failed and is_eval_nodeid(report.nodeid):  # its row never came
                from .result_rows import lost_reason

                self._eval_session()
                self.results.add_lost(report.nodeid, lost_reason(report))
            return None
        from ..schema.results import ItemResult, SkippedEntry
        from .result_rows import report_outcome

        self._eval_session()
        self._write_started()  # (a hand-written test that asked for the judge)
        if invalid is not None:  # an entry that failed validation at collection
            self.results.add_invalid(report.nodeid, SkippedEntry(**invalid), report.outcome)
            return None
        assert row is not None  # (JSON data: the row's model dumped by its worker)
        judge_error, flaky_failed = bool(row.get("error")), bool(row.get("flaky_failed"))
        outcome, reason = report_outcome(report, judge_error, flaky_failed)
        judged = ItemResult.arrived(row, outcome, reason, took)  # the worker's row
        if self._workers is not None:
            self._workers.row(xdist_worker_id(getattr(report, "node", None)), judged.usage)
        self._held.hold(judged)  # added at its teardown, with its whole duration
        entry = getattr(report, "llmjudge_entry", None)
        if entry is not None:  # llmjudge_targets save_responses: the entry as it was judged
            self.results.entries[report.nodeid] = entry
        return judged

    def pytest_report_teststatus(self, report: pytest.TestReport) -> Any:
        """The -v line of a judged item: its word and its scores, read from its row (asked
        while the report is logged: pytest's short summary asks again later and keeps its
        shape, "PASSED <nodeid>")."""
        scores = self._scores(report)
        if scores is None:
            return None
        if report.passed:
            return "passed", ".", (f"PASSED ({scores})", {"green": True})
        if report.failed:
            return "failed", "F", (f"FAILED ({scores})", {"red": True})
        return None

    def _sugar_location(self, report: pytest.TestReport) -> tuple[str, int | None, str]:
        """pytest-sugar writes its -v line from the reports' location (its key for the line
        from the call to the teardown), not from pytest_report_teststatus: the scores are
        put there while it logs them."""
        scores = self._scores(report)
        if scores is not None:
            self._sugar_scores[report.nodeid] = scores
        elif report.when == "teardown":
            scores = self._sugar_scores.pop(report.nodeid, None)
        path, line, domain = report.location
        return (path, line, domain if scores is None else f"{domain} ({scores})")

    def _scores(self, report: pytest.TestReport) -> str | None:
        """The scores a -v line shows for the report being logged, if any."""
        row = self._reported
        if row is None or self.config.get_verbosity() <= 0 or report.when != "call":
            return None
        if hasattr(report, "wasxfail") or not (row.dimensions or row.checks):
            return None
        from ..reports.item_text import scores_line

        return scores_line(row, self.config.stash[STATE_KEY].settings.label_margin)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed and is_eval_nodeid(report.nodeid):
            self.results.add_collection_error(report.nodeid, str(report.longrepr).strip())

    # Around the other plugins' sessionfinish (pytest-rerunfailures' --fail-on-flaky sets 7
    # there): the results say the status pytest exits with; inside pytest's terminal
    # reporter, which prints the summary after its own.
    @pytest.hookimpl(wrapper=True, trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> Generator[None, None, None]:
        try:
            yield
            self._finish(session, int(session.exitstatus))
        finally:  # the results are written: SIGTERM is the process's own again
            self._sigterm.restore()

    def _finish(self, session: pytest.Session, exitstatus: int) -> None:
        state = self.config.stash[STATE_KEY]
        for held in self._held.rest():
            self.results.add(held)
        seen = self._results is not None and self._results.seen_anything
        if self.config.getoption("collectonly"):
            return
        if not (seen or state.has_evals):
            if state.collected:  # none selected (-k, an empty pytest-split group)
                self.summary = self._unselected(session, exitstatus)
            return  # nothing ran that the plugin judges: nothing else written or changed
        if exitstatus == pytest.ExitCode.USAGE_ERROR and not seen:
            return  # stopped before the first item (the judge cannot serve it): as at start
        from ..judges.base import Totals
        from ..outputs.writers import write_outputs

        if state.usage is not None:  # this process's own judging (none under xdist)
            self.results.add_usage(state.usage)
        said: tuple[str, ...] = ()
        if self._workers is not None:
            said, known = self._workers.unheard()
            self.results.add_usage(Totals(known))
            said = said if state.settings.uses_llm else ()  # the offline judge sends nothing
        facts = session_facts(session, exitstatus, self.started, self.clock, said)
        pairwise = None
        if state.settings.pairwise and exitstatus != pytest.ExitCode.INTERRUPTED:
            from .pairwise_judging import judge_pairwise

            pairwise, usage = judge_pairwise(state, self.results.rows(), self.results.usage)
            self.results.add_usage(usage)
        end = self.results.finish(state.settings, state.baseline, facts, state.collected, pairwise)
        written, failures = write_outputs(
            end.results, state.settings, os.environ, self.results.entries, self.results.spill
        )
        status = end.exit_status
        if failures and status == pytest.ExitCode.OK:
            status = pytest.ExitCode.TESTS_FAILED  # results that were not written fail the run
        if status != exitstatus:
            session.exitstatus = pytest.ExitCode(status)
        from ..reports.terminal import terminal_summary
        from .other_plugins import annotation_lines

        self.summary = terminal_summary(end.results, None)  # the path: said by its writer
        self.summary += annotation_lines(self.config, end.results, self._annotated)
        self.summary += written + failures

    def _unselected(self, session: pytest.Session, exitstatus: int) -> list[str]:
        """The results file of a session that selected no eval item: none of an earlier
        session's stays (a merge of shards names each shard's file)."""
        from ..outputs.session_results import unselected_results
        from ..outputs.writers import write_results_only

        s, facts = (
            self.config.stash[STATE_KEY],
            session_facts(session, exitstatus, self.started, self.clock),
        )
        return write_results_only(
            unselected_results(s.settings, facts, len(s.collected)), s.settings
        )

    # Outermost: after pytest's short test summary, so that it does not scroll away.
    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_terminal_summary(self, terminalreporter: Any) -> Any:
        result = yield
        if self.summary:
            terminalreporter.ensure_newline()
            terminalreporter.section("llmjudge")
            for line in self.summary:
                terminalreporter.write_line(line)
        return result

    def pytest_unconfigure(self) -> None:
        self._sigterm.restore()
        if self._results is not None and self._results.spill is not None:
            self._results.spill.close()


class DryRunHooks:
    """``--judge-dry-run``: collect and plan, print the estimate, run nothing, write nothing."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.lines: list[str] = []

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool:
        from ..judging.dry_run import estimate, estimate_lines
        from .run_ahead import pairwise_calls, planned_judgments

        state = self.config.stash[STATE_KEY]
        planned, items = planned_judgments(session.items, state.settings)
        cache = state.engine().cache
        found = estimate(planned, items, state.settings, cache)
        pairwise = pairwise_calls(session.items, state.settings)
        self.lines = estimate_lines(found, state.settings, len(session.items) - items, pairwise)
        return True  # the items are not run

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.lines:
            terminalreporter.section("llmjudge")
            for line in self.lines:
                terminalreporter.write_line(line)

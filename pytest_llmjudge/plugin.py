"""pytest hooks and fixtures of pytest-llmjudge; each hands off to a plain module.

Importing this module imports no SDK, creates no client, file or directory: a session
that collects no eval file and requests no judge fixture is left as it was.
"""

from __future__ import annotations

import os
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from .options import OPTIONS
from .runtime import (
    EVAL_ITEM_KEY,
    STATE_KEY,
    SigtermAsInterrupt,
    clear_cache,
    is_eval_file,
    is_eval_nodeid,
    may_collect_evals,
    record_for,
    session_facts,
    session_state,
    settings_for,
    touches_judge,
)
from .settings import SettingsError

if TYPE_CHECKING:
    from .dataset import EvalCase
    from .facade import DimensionJudge, ItemJudge
    from .judgment import Judgment
    from .planning import Planner
    from .session_results import SessionResults

MARKERS = (
    "llmjudge(runs=None, relevance=None, tone=None): judge settings for this test "
    "(runs per dimension and minimum scores 1-5); overrides the command line and ini",
    "flaky_eval: a judged test whose scores are known to be noisy: falling below threshold "
    "is reported as xfail and does not fail the session (unless --judge-strict-flaky)",
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("llmjudge", "LLM judge evals (pytest-llmjudge)")
    for spec in OPTIONS:
        dest = f"llmjudge_{spec.dest}"
        if spec.is_flag:
            group.addoption(spec.flag, action="store_true", default=None, dest=dest, help=spec.help)
            if spec.negative_flag:
                group.addoption(
                    spec.negative_flag,
                    action="store_false",
                    default=None,
                    dest=dest,
                    help=f"opposite of {spec.flag}",
                )
        else:
            group.addoption(
                spec.flag, default=None, dest=dest, metavar=spec.metavar, help=spec.help
            )
        parser.addini(spec.ini, f"pytest-llmjudge: {spec.help}", default="")
    parser.addini(
        "llmjudge_paths",
        "pytest-llmjudge: directories whose JSON files are evals",
        type="args",
        default=["evals"],
    )
    parser.addini(
        "llmjudge_file_patterns",
        "pytest-llmjudge: eval file name patterns",
        type="args",
        default=["*.json"],
    )
    parser.addini(
        "llmjudge_prices",
        "pytest-llmjudge: model=input,output prices in USD per million tokens, one per line",
        type="linelist",
        default=[],
    )


def pytest_configure(config: pytest.Config) -> None:
    for marker in MARKERS:
        config.addinivalue_line("markers", marker)
    try:
        config.stash[STATE_KEY] = session_state(config)
    except SettingsError as exc:
        raise pytest.UsageError(f"pytest-llmjudge: {exc}") from None
    clear_cache(config, config.stash[STATE_KEY].settings)
    config.pluginmanager.register(PlanningHooks(config), "llmjudge-planning")
    if not hasattr(config, "workerinput"):  # only the controller writes results
        config.pluginmanager.register(ResultsReporter(config), "llmjudge-results")


def pytest_report_header(config: pytest.Config) -> str | None:
    if not may_collect_evals(config):
        return None  # a session of ordinary tests does not hear of the plugin
    return config.stash[STATE_KEY].settings.header()


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if is_eval_file(file_path, parent.config, parent.session.isinitpath(file_path)):
        from .collect import EvalJsonFile

        return EvalJsonFile.from_parent(parent, path=file_path)
    return None


def pytest_collection_finish(session: pytest.Session) -> None:
    if any(EVAL_ITEM_KEY in item.stash for item in session.items):
        session.config.stash[STATE_KEY].has_evals = True


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    if touches_judge(item):
        from .item_records import attach_record

        attach_record(item, call.when, report)
    return report


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> Any:
    scores = getattr(report, "llmjudge_scores", None)  # set on passing eval items only
    if scores and report.when == "call" and report.passed and not hasattr(report, "wasxfail"):
        return "passed", ".", (f"PASSED ({scores})", {"green": True})
    return None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Any:
    try:
        return (yield)
    except Exception as exc:
        if item.get_closest_marker("flaky_eval") is None:
            raise
        from .item_records import flaky_failure

        reason = flaky_failure(item, exc)
        if reason is None:
            raise
        pytest.xfail(reason)


def pytest_unconfigure(config: pytest.Config) -> None:
    state = config.stash.get(STATE_KEY, None)
    if state is not None:
        state.close()


@pytest.fixture
def eval_case(request: pytest.FixtureRequest) -> EvalCase:
    """The validated eval entry of this item."""
    from .collect import EvalItem

    if not isinstance(request.node, EvalItem):
        pytest.fail("the eval_case fixture is only available to items of eval files", pytrace=False)
    return request.node.case


@pytest.fixture
def llmjudge_target(request: pytest.FixtureRequest) -> str | None:
    """The name of the live bot this item judges (``--judge-targets``), or None."""
    return getattr(request.node, "target", None)


@pytest.fixture
def llmjudge_response(
    request: pytest.FixtureRequest, eval_case: EvalCase, llmjudge_target: str | None
) -> str:
    """The response to judge: the target's live answer, else the entry's stored one.

    Override it to produce the answer in Python (call your bot, per ``llmjudge_target``).
    """
    if llmjudge_target is None:
        assert eval_case.response is not None  # validated: required without targets
        return eval_case.response
    from .item_records import live_answer

    return live_answer(request.node, llmjudge_target)


@pytest.fixture
def llmjudge(request: pytest.FixtureRequest) -> ItemJudge:
    """The session's judge, with this test's runs and thresholds."""
    from .facade import ItemJudge

    try:
        settings = settings_for(request.node)
    except ValueError as exc:
        pytest.fail(str(exc), pytrace=False)
    return ItemJudge(request.config.stash[STATE_KEY].engine, settings, record_for(request.node))


@pytest.fixture
def llmjudge_judgments(
    request: pytest.FixtureRequest,
    eval_case: EvalCase,
    llmjudge_response: Any,
    relevance_judge: DimensionJudge,
    tone_judge: DimensionJudge,
    llmjudge: ItemJudge,
) -> list[Judgment]:
    """This eval item's judgments, one per dimension (judged during setup)."""
    from .collect import judge_eval_item

    judges = {"relevance": relevance_judge, "tone": tone_judge}
    return judge_eval_item(request.node, eval_case.ticket, llmjudge_response, judges, llmjudge)


@pytest.fixture
def relevance_judge(llmjudge: ItemJudge) -> DimensionJudge:
    """Callable (ticket, response) -> Judgment scoring relevance."""
    from .facade import DimensionJudge

    return DimensionJudge(llmjudge, "relevance")


@pytest.fixture
def tone_judge(llmjudge: ItemJudge) -> DimensionJudge:
    """Callable (ticket, response) -> Judgment scoring tone."""
    from .facade import DimensionJudge

    return DimensionJudge(llmjudge, "tone")


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
            from .planning import Planner

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

    @property
    def results(self) -> SessionResults:
        if self._results is None:  # pydantic is imported only once there is something
            from .session_results import SessionResults

            self._results = SessionResults()
        return self._results

    def _eval_session(self) -> None:
        self.config.stash[STATE_KEY].has_evals = True
        # CI cancels jobs with SIGTERM: make it an interrupt so that the results get written.
        self._sigterm.install()

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self) -> None:
        if self.config.stash[STATE_KEY].has_evals and not self.config.option.collectonly:
            self._eval_session()

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        if any(is_eval_nodeid(nodeid) for nodeid in ids):
            self._eval_session()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        record = getattr(report, "llmjudge", None)
        if record is not None:
            from .item_records import report_outcome

            self._eval_session()
            outcome, reason = report_outcome(report, record)
            self.results.add(report.nodeid, record, outcome, reason, report.duration)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed and is_eval_nodeid(report.nodeid):
            self.results.add_collection_error(report.nodeid, str(report.longrepr).strip())

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        state = self.config.stash[STATE_KEY]
        seen = self._results is not None and self._results.seen_anything
        if self.config.option.collectonly or not (seen or state.has_evals):
            return  # nothing ran that the plugin judges: write nothing, change nothing
        from .writers import write_outputs

        facts = session_facts(session, int(exitstatus), self.started, self.clock)
        end = self.results.finish(state.settings, state.baseline, facts)
        write_outputs(end.results, state.settings, os.environ)
        if end.exit_status != exitstatus:
            session.exitstatus = pytest.ExitCode(end.exit_status)
        self.summary = end.summary

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

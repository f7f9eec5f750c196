"""pytest hooks and fixtures of pytest-llmjudge; each hands off to a plain module.

Importing this module imports no SDK, creates no client, file or directory: a session
that collects no eval file and requests no judge fixture is left as it was.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from .basics.rubrics import NO_CONTEXT
from .config.options import OPTIONS
from .config.settings import SettingsError
from .session.discovery import (
    is_eval_file,
    is_symlink_loop,
    may_collect_evals,
    warn_of_files_outside_paths,
)
from .session.option_validation import refuse_removed_flags, warn_of_removed_variables
from .session.pytest_internals import (
    is_xdist_worker,
    repetition,
    turn_off_xdist,
    writes_html_report,
    xdist_worker_output,
)
from .session.state import (
    EVAL_ITEM_KEY,
    STATE_KEY,
    clear_cache,
    close_session_log,
    install_log_redaction,
    open_session_log,
    session_state,
    settings_for,
    touches_judge,
    validate_outputs,
)

if TYPE_CHECKING:
    from .analysis.judgment import Judgment
    from .evalfiles.eval_file import EvalCase
    from .judging.item_judge import DimensionJudge, ItemJudge

MARKERS = (
    "llmjudge(runs=None, relevance=None, tone=None, <dimension>=None): judge settings for "
    "this test (runs per dimension and a minimum score 1-5 for any built-in or configured "
    "dimension, correctness among them); overrides the command line and ini",
    "flaky_eval: a judged test whose scores are known to be noisy: falling below threshold "
    "is reported as xfail and does not fail the session (unless llmjudge_strict = flaky)",
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("llmjudge", "LLM judge evals (pytest-llmjudge)")
    for spec in OPTIONS:
        dest = f"llmjudge_{spec.dest}"
        if spec.is_flag and spec.flag:
            action = "store_false" if spec.negated else "store_true"
            help_text = spec.flag_help or spec.help
            group.addoption(spec.flag, action=action, default=None, dest=dest, help=help_text)
        elif spec.flag:
            group.addoption(
                spec.flag,
                action="append" if spec.repeatable else "store",
                default=None,
                dest=dest,
                metavar=spec.metavar,
                help=spec.help,
            )
        if spec.ini:
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
        default=["*.json", "*.jsonl", "*.csv", "*.yaml", "*.yml"],
    )
    parser.addini(
        "llmjudge_checks",
        "pytest-llmjudge: deterministic checks of every eval item's answer, a JSON list "
        '([{"max_words": 200}, {"not_contains": "as an AI"}])',
        default="",
    )
    parser.addini(
        "llmjudge_prices",
        "pytest-llmjudge: model=input,output prices in USD per million tokens, one per line",
        type="linelist",
        default=[],
    )


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config, args: list[str]) -> None:
    refuse_removed_flags(args)  # before argparse refuses one with its usage text


def pytest_configure(config: pytest.Config) -> None:
    for marker in MARKERS:
        config.addinivalue_line("markers", marker)
    try:
        config.stash[STATE_KEY] = session_state(config)
        validate_outputs(config)  # an output that cannot be written is found before judging
        if config.getini("llmjudge_checks"):  # bad suite checks stop the session at start
            from .session.item_checks import suite_checks

            suite_checks(config)
    except (SettingsError, ValueError) as exc:
        raise pytest.UsageError(f"pytest-llmjudge: {exc}") from None
    warn_of_removed_variables(config)
    clear_cache(config, config.stash[STATE_KEY].settings)
    from .session.hooks import DryRunHooks, PlanningHooks, ResultsReporter

    if config.stash[STATE_KEY].settings.dry_run:
        # nothing runs, so nothing is distributed (xdist configures after us) or written
        turn_off_xdist(config)
        config.pluginmanager.register(DryRunHooks(config), "llmjudge-dry-run")
        return
    config.pluginmanager.register(PlanningHooks(config), "llmjudge-planning")
    settings = config.stash[STATE_KEY].settings
    if settings.progress > 0 and config.get_verbosity() > -2 and not is_xdist_worker(config):
        from .session.live_progress import ProgressHooks

        config.pluginmanager.register(ProgressHooks(config), "llmjudge-progress")
    # pytest-html writing a report of a session that judges (it makes its header before
    # collection: eval files in reach say so): score columns, kept per report until then
    html = config.pluginmanager.hasplugin("html") and writes_html_report(config)
    if html and may_collect_evals(config):
        from .session.other_plugins import HtmlColumns

        config.pluginmanager.register(HtmlColumns(config), "llmjudge-html")
    if not is_xdist_worker(config):  # only the controller writes results
        config.pluginmanager.register(ResultsReporter(config), "llmjudge-results")
    if getattr(config.option, "allure_report_dir", None):  # allure-pytest writing results
        from .session.other_plugins import AllureDetails

        config.pluginmanager.register(AllureDetails(), "llmjudge-allure")


SESSION_LOG = pytest.StashKey[logging.Handler | None]()


def pytest_sessionstart(session: pytest.Session) -> None:
    if may_collect_evals(session.config):  # pytest's log handlers exist by now
        install_log_redaction(session.config)
    session.config.stash[SESSION_LOG] = open_session_log(session.config)
    if session.config.stash[STATE_KEY].settings.uses_llm:  # nothing to ask a heuristic
        from .session.judge_preflight import before_workers_start

        before_workers_start(session)


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    if not may_collect_evals(config):
        return None  # a session of ordinary tests does not hear of the plugin
    from .session.judge_preflight import header_lines
    from .session.other_plugins import testmon_header

    return header_lines(config.stash[STATE_KEY].settings, os.environ) + testmon_header(config)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    return True if is_symlink_loop(collection_path, config) else None


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    own = parent.config.stash[STATE_KEY].settings.written_files  # never its own outputs
    if is_eval_file(file_path, parent.config, parent.session.isinitpath(file_path), own):
        from .session.collect import EvalFile

        return EvalFile.from_parent(parent, path=file_path)
    return None


def pytest_itemcollected(item: pytest.Item) -> None:
    if EVAL_ITEM_KEY in item.stash:  # deselected ones too: a baseline tells them from removed
        item.config.stash[STATE_KEY].collected.append(item.nodeid)


def pytest_collection_finish(session: pytest.Session) -> None:
    state = session.config.stash[STATE_KEY]
    if any(EVAL_ITEM_KEY in item.stash for item in session.items):
        state.has_evals = True
        from .session.other_plugins import warn_of_count

        warn_of_count(session)
    warn_of_files_outside_paths(session.config, state.settings.written_files)


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> None:
    if session.config.stash[STATE_KEY].settings.uses_llm:  # nothing to ask a heuristic
        from .session.judge_preflight import before_first_item

        before_first_item(session)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    if touches_judge(item):
        from .session.result_rows import attach_row

        attach_row(item, call.when, report)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Any:
    result = yield
    if EVAL_ITEM_KEY in item.stash:  # its run is over, reruns included
        from .session.collect import EvalItem

        if isinstance(item, EvalItem):
            item.done()
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Any:
    try:
        return (yield)
    except Exception as exc:
        if item.get_closest_marker("flaky_eval") is None:
            raise
        from .session.result_rows import flaky_failure

        reason = flaky_failure(item, exc)
        if reason is None:
            raise
        pytest.xfail(reason)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    # Judging ends with the session; what was sent is counted now, on every process.
    state = session.config.stash[STATE_KEY]
    usage = state.close()
    if usage is not None:
        state.usage = usage
    workeroutput = xdist_worker_output(session.config)
    if workeroutput is not None and usage is not None:  # builtins only: a JSON string
        workeroutput["llmjudge_usage"] = json.dumps(dataclasses.asdict(usage))
    if workeroutput is not None and state.collected:
        workeroutput["llmjudge_collected"] = json.dumps(state.collected)


def pytest_unconfigure(config: pytest.Config) -> None:
    state = config.stash.get(STATE_KEY, None)
    if state is not None:
        state.close()
    close_session_log(config.stash.get(SESSION_LOG, None))


@pytest.fixture
def eval_case(request: pytest.FixtureRequest) -> EvalCase:
    """The validated eval entry of this item."""
    from .session.collect import EvalItem

    node = request.node
    if not isinstance(node, EvalItem):
        pytest.fail("the eval_case fixture is only available to items of eval files", pytrace=False)
    return node.entry


@pytest.fixture
def llmjudge_target(request: pytest.FixtureRequest) -> str | None:
    """The name of the live bot this item judges (``llmjudge_targets``), or None."""
    return getattr(request.node, "target", None)


@pytest.fixture
def llmjudge_response(
    request: pytest.FixtureRequest, eval_case: EvalCase, llmjudge_target: str | None
) -> str:
    """The response to judge: the target's live answer, else the entry's stored one.

    Override it to produce the answer in Python (call your bot, per ``llmjudge_target``).
    """
    if llmjudge_target is None and eval_case.saved_error is None:
        assert eval_case.response is not None  # validated: required without targets
        return eval_case.response
    from .session.result_rows import live_response

    return live_response(request.node, llmjudge_target)


@pytest.fixture
def llmjudge(request: pytest.FixtureRequest) -> ItemJudge:
    """The session's judge, with this test's runs and thresholds."""
    from .judging.item_judge import ItemJudge
    from .session.attempt import attempt_for

    node = request.node
    install_log_redaction(node.config)
    attempt = attempt_for(node)  # a test that asked for the judge counts, judged or not
    try:
        settings = settings_for(node)
    except ValueError as exc:
        problem = str(exc)
    else:
        state = node.config.stash[STATE_KEY]
        entry = getattr(node, "entry", None)  # an eval item's entry
        context = entry.context if entry is not None else NO_CONTEXT
        return ItemJudge(state.engine, settings, attempt, node.nodeid, context, repetition(node))
    attempt.errors.append(problem)
    pytest.fail(problem, pytrace=False)  # outside the except: said once, no exception chain


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
    from .session.attempt import judge_eval_item

    judges = {"relevance": relevance_judge, "tone": tone_judge}
    return judge_eval_item(request.node, eval_case.ticket, llmjudge_response, judges, llmjudge)


@pytest.fixture
def relevance_judge(llmjudge: ItemJudge) -> DimensionJudge:
    """Callable (ticket, response) -> Judgment scoring relevance."""
    from .judging.item_judge import DimensionJudge

    return DimensionJudge(llmjudge, "relevance")


@pytest.fixture
def tone_judge(llmjudge: ItemJudge) -> DimensionJudge:
    """Callable (ticket, response) -> Judgment scoring tone."""
    from .judging.item_judge import DimensionJudge

    return DimensionJudge(llmjudge, "tone")

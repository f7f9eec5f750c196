"""The other pytest plugins a CI runs beside this one: hook objects, each registered only where
its plugin is, so that eval items read there as plain tests do; and what the plugin says, once
before the items, of those whose features do not reach eval items."""

from __future__ import annotations

import os
import warnings
from collections.abc import Generator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from .discovery import LLMJudgeWarning
from .state import ATTEMPT_KEY, EVAL_ITEM_KEY, STATE_KEY

if TYPE_CHECKING:
    from ..schema.results import ResultsFile


def annotated_elsewhere(config: pytest.Config, report: pytest.TestReport) -> bool:
    """Whether pytest-github-actions-annotate-failures annotates this report: in GitHub
    Actions, a failure (or a rerun) in the call phase, on the process that logs it."""
    if os.environ.get("GITHUB_ACTIONS") != "true" or report.when != "call":
        return False
    if not (report.failed or str(report.outcome) == "rerun"):  # rerun: pytest-rerunfailures
        return False
    return config.pluginmanager.get_plugin("annotate_errors") is not None


def annotation_lines(config: pytest.Config, results: ResultsFile, annotated: set[str]) -> list[str]:
    """In GitHub Actions: the ``::error`` lines of the session's failures and errors, but
    for those another plugin annotated (``annotated``, their node ids)."""
    if os.environ.get("GITHUB_ACTIONS") != "true":
        return []
    from ..reports.markdown import github_annotations

    root = _workspace_path(config.rootpath, os.environ)
    return github_annotations(results, root, annotated)


def _workspace_path(rootdir: Path, environ: Mapping[str, str]) -> str:
    """The rootdir as GitHub resolves an annotation's ``file=``: relative to the repository
    (``GITHUB_WORKSPACE``); empty where they are one, or where the rootdir lies outside it."""
    workspace = environ.get("GITHUB_WORKSPACE")
    if not workspace:
        return ""
    relative = os.path.relpath(rootdir, workspace)
    return "" if relative == "." or relative.startswith("..") else Path(relative).as_posix()


class AllureDetails:
    """With allure-pytest: an eval item's description is its ticket, answer and scores, and
    its tables and reasoning are an attachment (allure takes a test's docstring otherwise,
    which for every eval item is the plugin's own)."""

    # outermost: allure sets the description from the docstring once setup has run
    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Generator[None, None, None]:
        try:
            yield
        finally:  # judged in setup: also an item whose judge failed gets its description
            if EVAL_ITEM_KEY in item.stash and ATTEMPT_KEY in item.stash:
                _describe(item)


def _describe(item: pytest.Item) -> None:
    import importlib

    from ..reports.item_text import item_description, passing_report
    from .attempt import closed_row

    allure = importlib.import_module("allure")  # allure-pytest's public API, installed with it
    errors = item.stash[ATTEMPT_KEY].errors
    row = closed_row(item)  # judged in setup: the row is closed by now
    if row is None or not hasattr(item, "entry"):
        return
    allure.dynamic.description(item_description(row, errors))
    if row.dimensions or row.checks:
        confident = item.config.stash[STATE_KEY].verdict_policy().confident
        allure.attach(
            passing_report(row, confident),
            name="llmjudge scores",
            attachment_type=allure.attachment_type.TEXT,
        )


class HtmlColumns:
    """With pytest-html: a score column per dimension in its results table."""

    def __init__(self, config: pytest.Config) -> None:
        from ..reports.item_text import html_columns

        self.dimensions = list(config.stash[STATE_KEY].settings.dimensions)
        self.columns = html_columns(self.dimensions)
        # pytest-html makes a test's rows at its teardown report, when the results have
        # taken the row off the call report: each report's scores, kept until then
        self.scores: dict[int, dict[str, str]] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        row = getattr(report, "llmjudge", None)  # the row's JSON data
        if row is not None:  # pytest-html keeps the report: its id stays its own
            from ..reports.item_text import score_cells
            from ..schema.items import JudgedItem

            self.scores[id(report)] = score_cells(JudgedItem.model_validate(row), self.dimensions)

    @pytest.hookimpl(optionalhook=True)
    def pytest_html_results_table_header(self, cells: list[str]) -> None:
        from ..reports.item_text import html_header

        cells += html_header(self.columns)

    @pytest.hookimpl(optionalhook=True)
    def pytest_html_results_table_row(self, report: pytest.TestReport, cells: list[str]) -> None:
        from ..reports.item_text import html_cells

        cells += html_cells(self.scores.pop(id(report), {}), self.columns)


def testmon_header(config: pytest.Config) -> list[str]:
    """pytest-testmon selecting: it sees the eval files and the code, not the judge's
    configuration, so the header says so (a change there deselects every eval item)."""
    selects = config.getoption("testmon", False) or config.getoption("testmon_forceselect", False)
    if not selects or config.getoption("testmon_noselect", False):
        return []
    return [
        "llmjudge: pytest-testmon selects eval items by their eval files and code; it cannot "
        "see the judge's configuration (thresholds, runs, judge model, rubrics, llmjudge_* "
        "keys): after changing it, run once with --testmon-noselect"
    ]


def warn_of_count(session: pytest.Session) -> None:
    """pytest-repeat's ``--count N`` repeats Python tests, not eval items: said once, at the
    first eval file (not at the plugin's source)."""
    config = session.config
    count = getattr(config.option, "count", None)
    repeat = any(config.pluginmanager.hasplugin(name) for name in ("repeat", "pytest_repeat"))
    if not repeat or not isinstance(count, int) or count < 2:
        return
    eval_file = next(item.path for item in session.items if EVAL_ITEM_KEY in item.stash)
    warnings.warn_explicit(
        f"pytest-repeat's --count {count} does not repeat eval items: each is judged once, "
        "on its runs; for more samples of an item use --judge-runs N (one verdict over N "
        "runs, with their spread)",
        LLMJudgeWarning,
        filename=str(eval_file),
        lineno=1,
    )

"""Hook objects for the other pytest plugins a CI runs beside this one, each registered only
where its plugin is: eval items read there as plain tests do."""

from __future__ import annotations

import html
import os
import re
from collections.abc import Generator

import pytest

from .state import EVAL_ITEM_KEY, RECORD_KEY, STATE_KEY


def annotated_elsewhere(config: pytest.Config, report: pytest.TestReport) -> bool:
    """Whether pytest-github-actions-annotate-failures annotates this report: in GitHub
    Actions, a failure (or a rerun) in the call phase, on the process that logs it."""
    if os.environ.get("GITHUB_ACTIONS") != "true" or report.when != "call":
        return False
    if not (report.failed or str(report.outcome) == "rerun"):  # rerun: pytest-rerunfailures
        return False
    return config.pluginmanager.get_plugin("annotate_errors") is not None


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
            if EVAL_ITEM_KEY in item.stash and RECORD_KEY in item.stash:
                _describe(item)


def _describe(item: pytest.Item) -> None:
    import importlib

    from ..reports.item_text import item_description, passing_report

    allure = importlib.import_module("allure")  # allure-pytest's public API, installed with it
    record = item.stash[RECORD_KEY]
    case = getattr(item, "case", None)
    if case is None:
        return
    judgments = list(record.judgments.values())
    answer = record.answer if record.answer is not None else case.response
    text = item_description(case.ticket, answer, judgments, record.checks, record.errors)
    allure.dynamic.description(text)
    if judgments or record.checks:
        allure.attach(
            passing_report(judgments, record.checks),
            name="llmjudge scores",
            attachment_type=allure.attachment_type.TEXT,
        )


class HtmlColumns:
    """With pytest-html: a score column per dimension in its results table, sortable as its
    own columns are (a ``sortable`` header whose column type names the rows' ``col-`` cell)."""

    def __init__(self, config: pytest.Config) -> None:
        self.dimensions = list(config.stash[STATE_KEY].settings.dimensions)
        self.columns = {name: re.sub(r"\W", "_", f"llmjudge_{name}") for name in self.dimensions}
        # pytest-html makes a test's rows at its teardown report, when the results have
        # taken the row off the call report: each report's scores, kept until then
        self.scores: dict[int, dict[str, str]] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        row = getattr(report, "llmjudge", None)
        if row is not None:
            dimensions = {name: row.get(name) for name in self.dimensions}  # JSON data
            self.scores[id(report)] = {  # pytest-html keeps the report: its id stays its own
                name: f"{d['score']:.2f}" for name, d in dimensions.items() if isinstance(d, dict)
            }

    @pytest.hookimpl(optionalhook=True)
    def pytest_html_results_table_header(self, cells: list[str]) -> None:
        cells += [
            f'<th class="sortable" data-column-type="{column}">{html.escape(name)}</th>'
            for name, column in self.columns.items()
        ]

    @pytest.hookimpl(optionalhook=True)
    def pytest_html_results_table_row(self, report: pytest.TestReport, cells: list[str]) -> None:
        scores = self.scores.pop(id(report), {})
        for name, column in self.columns.items():
            cells.append(f'<td class="col-{column}">{scores.get(name, "")}</td>')

"""pytest-sugar: its -v lines keep an eval item's scores. Skipped where pytest-sugar is not
installed (the compatibility job installs it; the main suite's environment must not: it
changes every pytest run)."""

from __future__ import annotations

import pytest

from helpers import entry, read_results, run_subprocess, write_evals
from judge_server import JudgeServer

LOAD_PLUGINS = ("sugar",)  # where plugins do not load themselves (tests/compat/conftest.py)

pytest.importorskip("pytest_sugar", reason="pytest-sugar is not installed")


def test_verbose_lines_keep_the_scores(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(
        pytester,
        [entry("fine", "answer {{relevance=5 tone=4}}"), entry("weak", "answer {{relevance=2}}")],
    )
    # --force-sugar: sugar's reporter where the output is not a terminal (as in a test); in
    # a process of its own: it stays on, in a module global, for the rest of the process
    result = run_subprocess(pytester, "evals/", "-v", "--force-sugar", "--junitxml=junit.xml")
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # (sugar's summary is its own shape)
    text = result.stdout.str()
    assert "evals/support.json::fine (relevance 5.00, tone 4.00)" in text
    assert "evals/support.json::weak (relevance 2.00, tone 4.00)" in text
    # the scores are on sugar's line only: the reports keep their place for everyone else
    junit = (pytester.path / "junit.xml").read_text()
    assert 'name="fine"' in junit and "relevance 5.00" not in junit
    assert read_results(pytester)["summary"]["passed"] == 1


def test_quiet_lines_are_sugars_own(pytester: pytest.Pytester, judge_server: JudgeServer) -> None:
    write_evals(pytester, [entry("fine", "answer {{relevance=5 tone=4}}")])
    result = run_subprocess(pytester, "evals/", "--force-sugar")
    assert result.ret == pytest.ExitCode.OK
    assert read_results(pytester)["summary"]["passed"] == 1
    assert "fine (relevance" not in result.stdout.str()

"""allure-pytest: a failed eval is failed (not broken), and its description is its ticket,
answer and scores. Skipped where allure-pytest is not installed (the compatibility job
installs it; the main suite's environment must not: it changes every pytest run)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helpers import entry, run, write_evals
from judge_server import JudgeServer

LOAD_PLUGINS = ("allure_pytest",)  # where plugins do not load themselves (tests/compat/conftest.py)

pytest.importorskip("allure_pytest", reason="allure-pytest is not installed")


def _allure_results(folder: Path) -> dict[str, dict[str, Any]]:
    found = [json.loads(path.read_text()) for path in folder.glob("*-result.json")]
    return {result["name"]: result for result in found}


def test_a_failed_eval_is_failed_with_its_ticket_answer_and_scores(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(
        pytester,
        [
            entry("fine", "answer {{relevance=5 tone=4}}"),
            entry("weak", "answer {{relevance=2}}", ticket="Where is my refund?"),
            entry("down", "answer {{fail=500x99}}", ticket="other"),
        ],
    )
    result = run(pytester, "evals/", "--alluredir=allure", "-o", "llmjudge_max_retries=0")
    result.assert_outcomes(passed=1, failed=1, errors=1)
    found = _allure_results(pytester.path / "allure")
    assert {name: r["status"] for name, r in found.items()} == {
        "fine": "passed",
        "weak": "failed",  # a verdict, as a failed assert is: not "broken"
        "down": "failed",  # pytest.fail in setup, as allure reads any test's
    }
    weak = found["weak"]
    assert "Ticket: Where is my refund?" in weak["description"]
    assert "Answer: answer {{relevance=2}}" in weak["description"]
    assert "relevance 2.00 (FAILED; threshold 3.5" in weak["description"]
    assert "relevance 2.00 < 3.5" in weak["statusDetails"]["message"]
    [attachment] = weak["attachments"]
    table = (pytester.path / "allure" / attachment["source"]).read_text()
    assert table.startswith("dimension  mean")
    assert "judge" in found["down"]["description"]  # its error, not the plugin's docstring
    assert all("The body of an eval item" not in (r["description"] or "") for r in found.values())


def test_a_failed_eval_stays_failed_under_xdist(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, [entry("fine"), entry("weak", "answer {{relevance=2}}", ticket="t")])
    run(pytester, "evals/", "--alluredir=allure", "-n", "2").assert_outcomes(passed=1, failed=1)
    found = _allure_results(pytester.path / "allure")
    assert {name: r["status"] for name, r in found.items()} == {"fine": "passed", "weak": "failed"}
    assert "Ticket: t" in found["weak"]["description"]

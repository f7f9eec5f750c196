"""Dimensions defined in configuration: a name and a rubric file."""

from __future__ import annotations

import pytest

from helpers import by_id, entry, read_results, run, write_evals
from judge_server import JudgeServer

RUBRIC = """5: Acknowledges the user's frustration and stays warm while solving the problem.
3: Neutral; neither cold nor caring.
1: Dismissive or blaming."""


def _configure(pytester: pytest.Pytester) -> None:
    (pytester.path / "rubrics").mkdir()
    (pytester.path / "rubrics" / "empathy.md").write_text(RUBRIC)
    pytester.makeini("[pytest]\nllmjudge_dimensions = empathy=rubrics/empathy.md\n")


def test_a_configured_dimension_is_judged_on_every_item(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    _configure(pytester)
    write_evals(
        pytester,
        [
            entry("warm", "answer {{empathy=5}}"),
            entry("cold", "answer {{empathy=3}}", ticket="Deploy is stuck"),
            entry(
                "lenient", "answer {{empathy=3}}", ticket="Login fails", thresholds={"empathy": 3}
            ),
        ],
    )
    result = run(pytester, "evals/", "--judge-threshold=empathy=4", "--judge-report=r.md")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["empathy 3.00 < 4 (1 run: 3)", "*mean scores over *empathy 3.67*"])
    empathy_requests = [r for r in judge_server.requests if r.dimension == "empathy"]
    assert len(empathy_requests) == 3
    system = empathy_requests[0].body["messages"][0]["content"]
    assert "You grade exactly one dimension: EMPATHY" in system
    assert "5: Acknowledges the user's frustration" in system
    rows = by_id(read_results(pytester))
    assert rows["cold"]["empathy"]["score"] == 3 and rows["cold"]["empathy"]["threshold"] == 4
    assert rows["lenient"]["empathy"]["threshold"] == 3
    assert (
        "| item | outcome | relevance | tone | empathy | reasoning |"
        in (pytester.path / "r.md").read_text()
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-o", "llmjudge_dimensions=empathy=missing.md"], "*rubric file *missing.md not found*"),
        (["-o", "llmjudge_dimensions=Empathy=r.md"], "*dimension names are lowercase identifiers*"),
        (
            ["-o", "llmjudge_dimensions=outcome=r.md"],
            "*dimension names are lowercase identifiers, not 'outcome'*",
        ),
        (
            ["--judge-threshold=clarity=4"],
            "*--judge-threshold names unknown dimension 'clarity'*",
        ),
    ],
)
def test_configuration_errors_stop_the_session(
    pytester: pytest.Pytester, args: list[str], message: str
) -> None:
    (pytester.path / "r.md").write_text(RUBRIC)
    result = run(pytester, *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])

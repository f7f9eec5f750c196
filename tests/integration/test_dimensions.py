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


def test_an_entry_with_a_reference_is_judged_for_correctness_by_an_llm_judge(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    # nothing configured: the reference alone asks for correctness
    reference = "The crossing takes 45 minutes."
    write_evals(
        pytester,
        [
            entry("agrees", "About forty-five minutes. {{correctness=5}}", reference=reference),
            entry("contradicts", "Two hours. {{correctness=1}}", "How long?", reference=reference),
            entry("no-reference", "Raise the heap.", ticket="Maven OOM"),
        ],
    )
    result = run(pytester, "evals/")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        ["FAILED evals/support.json::contradicts - correctness 1.00 < 3.5*"]
    )
    asked = [r for r in judge_server.requests if r.dimension == "correctness"]
    assert sorted(r.block("reference") or "" for r in asked) == [reference, reference]
    results = read_results(pytester)
    rows = by_id(results)
    assert rows["agrees"]["correctness"]["score"] == 5
    # an entry without one is not judged on it, and nothing is said of it
    assert "correctness" not in rows["no-reference"] and not rows["no-reference"]["not_applicable"]
    assert results["summary"]["not_applicable"] == 0
    assert "not applicable" not in result.stdout.str()


FERRY_RELEVANCE = """5: Answers the traveller's question about sailings, fares or bookings exactly.
3: Partly answers it.
1: Does not answer it."""
FERRY = "a ferry operator's help desk"


def _ferry(pytester: pytest.Pytester) -> None:
    (pytester.path / "rubrics").mkdir()
    (pytester.path / "rubrics" / "relevance.md").write_text(FERRY_RELEVANCE)
    pytester.makepyprojecttoml(
        "[tool.pytest.ini_options]\n"
        f'llmjudge_assistant = "{FERRY}"\n'
        'llmjudge_dimensions = "relevance=rubrics/relevance.md"\n'
    )


def test_a_project_judges_in_its_own_domain(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, [entry("a", "The 9:15 sails daily.", ticket="When does it sail?")])
    run(pytester, "evals/", "--judge-output=main.json").assert_outcomes(passed=1)
    shipped = read_results(pytester, "main.json")["meta"]["judge"]["rubrics"]
    _ferry(pytester)
    judge_server.reset()
    result = run(pytester, "evals/", "--judge-baseline=main.json")
    result.assert_outcomes(passed=1)
    systems = {r.dimension: r.body["messages"][0]["content"] for r in judge_server.requests}
    assert set(systems) == {"relevance", "tone"}  # not from the cache: another judge's key
    for system in systems.values():
        assert system.startswith(f"You are an impartial evaluator of {FERRY}'s replies.\n")
    assert (
        FERRY_RELEVANCE in systems["relevance"] and "Directly addresses" not in systems["relevance"]
    )
    assert "5: Professional and concise" in systems["tone"]  # tone's rubric stays built in
    rubrics = read_results(pytester)["meta"]["judge"]["rubrics"]
    assert rubrics["relevance"] != shipped["relevance"] and rubrics["tone"] != shipped["tone"]
    # a baseline judged with the shipped rubrics and role line is another judge's
    result.stdout.fnmatch_lines(
        [
            "baseline main.json not compared: another judge made it (rubric of correctness "
            "changed; rubric of relevance changed; rubric of tone changed); no regression gate"
        ]
    )
    strict = run(pytester, "evals/", "--judge-baseline=main.json", "-o", "llmjudge_strict=baseline")
    assert strict.ret == pytest.ExitCode.USAGE_ERROR


def test_the_offline_judge_says_once_that_it_ignores_the_domain(pytester: pytest.Pytester) -> None:
    write_evals(pytester, [entry("a"), entry("b", ticket="Deploy is stuck")])
    plain = run(pytester, "evals/")
    scores = {i: r["relevance"]["score"] for i, r in by_id(read_results(pytester)).items()}
    _ferry(pytester)
    result = run(pytester, "evals/")
    assert result.ret == plain.ret
    said = "note: the offline judge ignores llmjudge_assistant and the rubric files of relevance"
    assert result.stdout.str().count(said) == 1
    assert {i: r["relevance"]["score"] for i, r in by_id(read_results(pytester)).items()} == scores

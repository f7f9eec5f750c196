"""Fixtures users override, the llmjudge fixture and marker in hand-written tests."""

from __future__ import annotations

import re

import pytest

from helpers import by_id, entry, read_results, run, write_evals
from judge_server import JudgeServer


def test_overriding_llmjudge_response_judges_the_live_response(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    pytester.makeconftest("""
import pytest

def bot(ticket):
    return "live answer to " + ticket + " {{relevance=5}}"

@pytest.fixture
def llmjudge_response(eval_case):
    return bot(eval_case.ticket)
""")
    write_evals(pytester, [entry("a", "stored answer {{relevance=1}}")])
    run(pytester, "evals/").assert_outcomes(passed=1)
    judged = {r.response for r in judge_server.requests}
    assert judged == {"live answer to Maven build fails with OOM in Jenkins {{relevance=5}}"}
    # the results row holds the text that was judged, not the stored one
    assert read_results(pytester)["results"][0]["response"] == judged.pop()


def test_a_secret_in_an_overridden_answer_stays_out_of_the_files(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    token = "sk-proj-" + "Abc123" * 6
    pytester.makeconftest(f"""
import pytest

@pytest.fixture
def llmjudge_response(eval_case):
    return "The bot echoed its key {token} {{{{relevance=5}}}}"
""")
    write_evals(pytester, [entry("a", "stored answer")])
    result = run(pytester, "evals/", "--judge-report=report.html", "--junitxml=junit.xml")
    result.assert_outcomes(passed=1)
    row = read_results(pytester)["results"][0]
    assert row["response"] == "The bot echoed its key *** {{relevance=5}}"
    for name in ("results/output.json", "report.html", "junit.xml"):
        assert token not in (pytester.path / name).read_text()


def test_a_folder_s_conftest_overrides_the_fixtures_of_its_own_eval_files_only(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    # the items of one file share the fixtures pytest resolved for its first: per file
    pytester.makepyfile(
        **{
            "evals/live/conftest": """
import pytest

@pytest.fixture
def llmjudge_response(eval_case):
    return "live answer to " + eval_case.id
"""
        }
    )
    stored = [entry("s1", "stored one"), entry("s2", "stored two")]
    write_evals(pytester, stored, folder="evals/stored")
    write_evals(pytester, [entry("l1"), entry("l2")], folder="evals/live")
    write_evals(pytester, [entry("s3", "stored three")], name="more.json", folder="evals/stored")
    run(pytester, "evals/").assert_outcomes(passed=5)
    judged = {r.response for r in judge_server.requests}
    stored_answers = {"stored one", "stored two", "stored three"}
    assert judged == {"live answer to l1", "live answer to l2"} | stored_answers


def test_a_response_fixture_returning_nothing_is_an_error(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    pytester.makeconftest("""
import pytest

@pytest.fixture
def llmjudge_response():
    return None
""")
    write_evals(pytester, [entry("a")])
    result = run(pytester, "evals/")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*llmjudge_response must be a non-empty string, got NoneType*"])
    assert judge_server.count() == 0


def test_overriding_a_dimension_judge(pytester: pytest.Pytester, judge_server: JudgeServer) -> None:
    pytester.makeconftest("""
import pytest

@pytest.fixture
def tone_judge(llmjudge):
    def strict_tone(ticket, response):
        return llmjudge.tone(ticket, response, threshold=4.5)
    return strict_tone
""")
    write_evals(pytester, [entry("a")])
    result = run(pytester, "evals/")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["tone 4.00 < 4.5 (1 run: 4)"])


def test_llmjudge_fixture_and_marker_in_a_hand_written_test(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    pytester.makepyfile(
        test_bot="""
import asyncio
import pytest
from pytest_llmjudge import Judgment

def bot(question):
    return "Refunds reach your card within 5 business days. {{relevance=5,4,4}}"

@pytest.mark.llmjudge(runs=3, relevance=4.5)
def test_refund_policy(llmjudge):
    j = llmjudge.relevance(ticket="Where is my refund?", response=bot("Where is my refund?"))
    assert isinstance(j, Judgment)
    assert j.runs == (4, 4, 5) or sorted(j.runs) == [4, 4, 5]
    assert j.threshold == 4.5 and not j.passed
    assert j.score >= 4, j.reasoning

def test_inside_a_running_event_loop(llmjudge):
    async def main():
        return llmjudge.tone(ticket="Where is my refund?", response="Within 5 days.")
    assert asyncio.run(main()).score == 4

def test_untouched():
    assert True
"""
    )
    result = run(pytester, "test_bot.py")
    result.assert_outcomes(passed=3)
    assert judge_server.count("relevance") == 1  # three runs, the choices of one request
    assert judge_server.choices("relevance") == 3
    results = read_results(pytester)
    rows = {r["nodeid"]: r for r in results["results"]}
    assert set(rows) == {
        "test_bot.py::test_refund_policy",
        "test_bot.py::test_inside_a_running_event_loop",
    }
    assert rows["test_bot.py::test_refund_policy"]["relevance"]["threshold"] == 4.5


def test_eval_case_outside_an_eval_item_fails_clearly(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_x(eval_case):\n    pass\n")
    result = run(pytester)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["*the eval_case fixture is only available to items of eval files*"]
    )


def test_invalid_marker_arguments_are_reported(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    pytester.makepyfile("""
import pytest

@pytest.mark.llmjudge(runs=0)
def test_a(llmjudge):
    pass

@pytest.mark.llmjudge(tone=9)
def test_b(llmjudge):
    pass

@pytest.mark.llmjudge(runs=1000)
def test_c(llmjudge):
    pass

@pytest.mark.llmjudge(runs=2.5)
def test_d(llmjudge):
    pass
""")
    result = run(pytester)
    result.assert_outcomes(errors=4)
    # the rule of --judge-runs and of an entry's runs: an integer from 1 to 100
    result.stdout.fnmatch_lines(
        [
            "*@pytest.mark.llmjudge runs must be between 1 and 100, got 0*",
            "*@pytest.mark.llmjudge tone must be between 1 and 5, got 9*",
            "*@pytest.mark.llmjudge runs must be between 1 and 100, got 1000*",
            "*@pytest.mark.llmjudge runs must be an integer, got 2.5*",
        ]
    )


def test_unknown_marker_keyword_is_an_error_naming_keyword_and_test(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    pytester.makepyfile(
        test_bot="""
import pytest

@pytest.mark.llmjudge(relevnce=4)
def test_typo(llmjudge):
    llmjudge.relevance("ticket", "answer")

@pytest.mark.llmjudge(empathy=4, runs=2)
def test_configured_dimension(llmjudge):
    assert llmjudge.settings.thresholds["empathy"] == 4
"""
    )
    (pytester.path / "empathy.md").write_text("5: warm. 1: cold.")
    pytester.makeconftest("""
import pytest

def pytest_collection_modifyitems(items):
    for item in items:
        if "support.json" in item.nodeid:
            item.add_marker(pytest.mark.llmjudge(tnoe=3))
""")
    write_evals(pytester, [entry("marked")])
    result = run(pytester, "test_bot.py", "evals/", "-o", "llmjudge_dimensions=empathy=empathy.md")
    result.assert_outcomes(passed=1, errors=2)
    result.stdout.fnmatch_lines_random(
        [
            "*test_bot.py::test_typo: @pytest.mark.llmjudge got unknown keyword 'relevnce' "
            "(known: runs, relevance, tone, empathy, correctness)*",
            "*evals/support.json::marked: @pytest.mark.llmjudge got unknown keyword 'tnoe'*",
        ]
    )
    assert judge_server.requests == []  # neither was judged with a silently ignored setting


def test_conftest_marker_sets_defaults_for_eval_items_and_entries_win(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    pytester.makeconftest("""
import pytest

def pytest_collection_modifyitems(items):
    for item in items:
        item.add_marker(pytest.mark.llmjudge(runs=2, relevance=4))
""")
    write_evals(
        pytester, [entry("from-marker"), entry("from-entry", runs=3, thresholds={"relevance": 3})]
    )
    run(pytester, "evals/", "--judge-runs=5").assert_outcomes(passed=2)
    rows = by_id(read_results(pytester))
    assert rows["from-marker"]["relevance"]["runs"] == [4, 4]
    assert rows["from-marker"]["relevance"]["threshold"] == 4
    assert rows["from-entry"]["relevance"]["runs"] == [4, 4, 4]
    assert rows["from-entry"]["relevance"]["threshold"] == 3
    assert rows["from-entry"]["tone"]["threshold"] == 3.5


def test_a_fixture_a_conftest_adds_to_one_item_reaches_that_item_only(
    pytester: pytest.Pytester,
) -> None:
    # the items of a file share pytest's fixture resolution, but not its list of names: an
    # append to one item's list once reached every later item of the file
    pytester.makeconftest(
        """
import pytest

@pytest.fixture
def marker_fx(request):
    print("FX-USED", request.node.name)

def pytest_collection_modifyitems(items):
    for item in items:
        if item.name == "a":
            item.fixturenames.append("marker_fx")
"""
    )
    write_evals(pytester, [entry("a"), entry("b"), entry("c")])
    result = run(pytester, "evals/", "-s", "-o", "llmjudge_provider=heuristic")
    result.assert_outcomes(passed=3)
    assert re.findall(r"FX-USED (\w+)", result.stdout.str()) == ["a"]


def test_the_fixtures_serve_the_item_being_run_however_they_are_reached(
    pytester: pytest.Pytester,
) -> None:
    # they read the running item, not `request`: through getfixturevalue in a body and in
    # another fixture, per item, and in --setup-show as before
    pytester.makeconftest(
        """
import pytest

@pytest.fixture(autouse=True)
def show_entry(request):
    if request.node.name in ("a", "b"):
        print("CASE", request.node.name, request.getfixturevalue("eval_case").id)
"""
    )
    pytester.makepyfile(
        test_hand="""
import pytest

@pytest.mark.llmjudge(runs=2)
def test_late(request):
    judge = request.getfixturevalue("llmjudge")
    assert judge.settings.runs == 2
    assert request.getfixturevalue("llmjudge_target") is None
    assert judge.tone(ticket="Where is my refund?", response="Within 5 days.").runs
"""
    )
    write_evals(pytester, [entry("a"), entry("b")])
    args = ("evals/", "test_hand.py", "-s", "--setup-show", "-o", "llmjudge_provider=heuristic")
    result = run(pytester, *args)
    result.assert_outcomes(passed=3)
    assert re.findall(r"CASE (\w+) (\w+)", result.stdout.str()) == [("a", "a"), ("b", "b")]
    result.stdout.fnmatch_lines(
        [
            "*SETUP    F eval_case*",  # (-s: the conftest prints on its line)
            "*SETUP    F llmjudge_response (fixtures used: eval_case, llmjudge_target)",
            "*SETUP    F llmjudge_judgments (fixtures used: eval_case, llmjudge, "
            "llmjudge_response, relevance_judge, tone_judge)",
        ]
    )
    rows = {r["nodeid"]: r for r in read_results(pytester)["results"]}
    assert len(rows["test_hand.py::test_late"]["tone"]["runs"]) == 2

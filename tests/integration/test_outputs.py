"""What pytest users read: --tb styles, passing items, the summary's place, warnings, ids,
JUnit, and the async API."""

from __future__ import annotations

import json

import pytest

from helpers import by_id, entry, read_results, run, write_evals
from judge_server import JudgeServer

FAILING = "answer {{relevance=2}}"
VERDICT = "relevance 2.00 < 3.5 (runs 2, 2, 2)"
LINE = 7  # of the second entry, as write_evals lays the file out


@pytest.fixture
def one_failure(pytester: pytest.Pytester, judge_server: JudgeServer) -> pytest.Pytester:
    write_evals(pytester, [entry("fine"), entry("weak", FAILING, ticket="other")])
    return pytester


def test_tb_line_is_one_line_with_file_line_and_verdict(one_failure: pytest.Pytester) -> None:
    result = run(one_failure, "evals/", "--judge-runs=3", "--tb=line")
    section = result.stdout.str().split("= FAILURES =")[1].split("= short test summary")[0]
    lines = [line for line in section.splitlines()[1:] if line.strip() and line[0] != "="]
    assert lines == [f"evals/support.json:{LINE}: {VERDICT}"]


def test_tb_short_native_and_no(one_failure: pytest.Pytester) -> None:
    short = run(one_failure, "evals/", "--judge-runs=3", "--tb=short")
    short.stdout.fnmatch_lines(
        ["*_ weak _*", f"evals/support.json:{LINE}: weak", VERDICT, "", "dimension  mean*"]
    )
    assert "reasoning (run nearest the mean)" not in short.stdout.str()
    native = run(one_failure, "evals/", "--judge-runs=3", "--tb=native")
    native.stdout.fnmatch_lines(
        [
            "Traceback (most recent call last):",
            f'  File "evals/support.json", line {LINE}, in weak',
            f"EvalFailed: {VERDICT}",
        ]
    )
    quiet = run(one_failure, "evals/", "--judge-runs=3", "--tb=no")
    assert "FAILURES" not in quiet.stdout.str()
    quiet.stdout.fnmatch_lines([f"FAILED evals/support.json::weak - {VERDICT}*"])
    for result in (short, native, quiet):
        assert "collect.py" not in result.stdout.str()  # never the plugin's source


def test_passing_items_show_their_scores(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, [entry("fine", "answer {{relevance=5 tone=4}}")])
    result = run(pytester, "evals/", "-v", "-rP")
    result.stdout.fnmatch_lines(
        [
            "evals/support.json::fine PASSED (relevance 5.00, tone 4.00)*",
            "*= PASSES =*",
            "*- Captured llmjudge call -*",
            "dimension  mean  std   runs  threshold  verdict",
            "relevance  5.00  0.00  5     3.5        ok",
        ]
    )


def test_sections_and_junit_properties_only_where_something_shows_them(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, [entry("fine", "answer {{relevance=5 tone=4}}")])
    pytester.makeconftest(
        """
        import json

        seen = {}

        def pytest_runtest_logreport(report):
            if report.when == "call":
                seen["sections"] = [t for t, _ in report.sections if "llmjudge" in t]
            if report.when == "teardown":  # JUnit XML reads the properties there
                seen["properties"] = [n for n, _ in report.user_properties]
                with open("seen.json", "w") as f:
                    json.dump(seen, f)
        """
    )

    def seen(*args: str) -> dict[str, list[str]]:
        run(pytester, "evals/", *args).assert_outcomes(passed=1)
        return json.loads(pytester.path.joinpath("seen.json").read_text())  # type: ignore[no-any-return]

    assert seen() == {"sections": [], "properties": []}  # made for nobody: not made
    shown = seen("-rP", "--junitxml=junit.xml")
    assert shown["sections"] == ["Captured llmjudge call"]
    assert "llmjudge.relevance.score" in shown["properties"]
    assert read_results(pytester)["results"][0]["relevance"]["score"] == 5  # results as ever


def test_the_llmjudge_summary_is_the_last_block(one_failure: pytest.Pytester) -> None:
    lines = run(one_failure, "evals/", "--judge-runs=3", "-rA").stdout.lines
    heading = next(i for i, line in enumerate(lines) if "= llmjudge =" in line)
    short_summary = next(i for i, line in enumerate(lines) if "short test summary" in line)
    assert short_summary < heading
    assert all(not line.startswith("=") for line in lines[heading + 1 : -1])


def test_a_judge_error_is_an_error_in_terminal_results_and_junit(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, [entry("down", "answer {{fail=500x99}}"), entry("fine", ticket="x")])
    result = run(pytester, "evals/", "-o", "llmjudge_max_retries=0", "--junitxml=junit.xml")
    result.assert_outcomes(passed=1, errors=1)
    assert by_id(read_results(pytester))["down"]["outcome"] == "error"
    junit = (pytester.path / "junit.xml").read_text()
    assert 'errors="1" failures="0"' in junit
    assert '<error message="failed on setup with &quot;Failed: judge error' in junit


def test_warnings_point_at_the_eval_file_and_entry(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    # A mark no other test registers: pytest remembers known marks across in-process runs.
    write_evals(pytester, [entry("a"), entry("b", ticket="t2", marks=["sluggish"], extra=1)])
    result = run(pytester, "evals/", "-W", "default")
    result.stdout.fnmatch_lines_random(
        [
            f"*evals/support.json:{LINE}: PytestUnknownMarkWarning: evals/support.json"
            ":* (b): Unknown pytest.mark.sluggish*",
            f"*evals/support.json:{LINE}: LLMJudgeWarning: evals/support.json:* (b): "
            "unknown field 'extra' ignored*",
        ]
    )
    assert "collect.py" not in result.stdout.str()
    strict = run(pytester, "evals/", "--strict-markers")
    strict.assert_outcomes(passed=1, errors=1)
    strict.stdout.fnmatch_lines(
        [
            "*invalid eval entry: evals/support.json:* (b): 'marks.0': 'sluggish' not found in "
            "`markers`*"
        ]
    )


@pytest.mark.parametrize(
    ("bad_id", "reason"),
    [
        ("a::b", "it contains '::'"),
        ("case[1]", "it contains '['"),
        ("ops/disk", "it contains '/'"),
        ("two\nlines", "it contains a line break"),
        ("nul\x00", "it contains a NUL character"),
        (" padded ", "has leading or trailing spaces"),
    ],
)
def test_ids_that_break_node_ids_are_rejected(
    pytester: pytest.Pytester, bad_id: str, reason: str
) -> None:
    write_evals(pytester, [entry(bad_id), entry("fine")])
    result = run(pytester, "evals/")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines([f"*evals/support.json:2 (#0): 'id' *{reason}*"])
    assert read_results(pytester)["skipped"][0]["index"] == 0


def test_a_printed_node_id_selects_its_item_and_lf_finds_it(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, [entry("refund case 1", FAILING), entry("other", ticket="x")])
    first = run(pytester, "evals/", "--judge-runs=3", "-p", "cacheprovider")
    first.assert_outcomes(passed=1, failed=1)
    assert "FAILED evals/support.json::refund case 1" in first.stdout.str()
    again = run(pytester, "evals/support.json::refund case 1", "--judge-runs=3")
    again.assert_outcomes(failed=1)
    last_failed = run(pytester, "evals/", "--lf", "--judge-runs=3", "-p", "cacheprovider")
    last_failed.assert_outcomes(failed=1)  # only the failed item runs again
    assert "::other" not in last_failed.stdout.str()


def test_async_api_does_not_block_the_tests_event_loop(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    pytester.makepyfile(
        test_async="""
import asyncio


def test_async_judging(llmjudge):
    async def main():
        ticks = 0

        async def ticker():
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        task = asyncio.ensure_future(ticker())
        relevance, tone = await asyncio.gather(
            llmjudge.arelevance("ticket", "answer {{relevance=5 delay=0.3}}"),
            llmjudge.atone("ticket", "answer {{tone=4 delay=0.3}}"),
        )
        task.cancel()
        return relevance, tone, ticks

    relevance, tone, ticks = asyncio.run(main())
    assert (relevance.score, tone.score) == (5, 4)
    assert ticks >= 10  # the loop kept running while the judge worked
"""
    )
    run(pytester, "test_async.py").assert_outcomes(passed=1)
    assert judge_server.count() == 2


def test_pytest_html_gets_score_columns(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    write_evals(pytester, [entry("fine", "answer {{relevance=5 tone=4}}")])
    run(pytester, "evals/", "test_plain.py", "-p", "html", "--html=report.html")
    html = (pytester.path / "report.html").read_text()
    assert '<th class="sortable" data-column-type="llmjudge_relevance">relevance</th>' in html
    # rows live in the report's escaped JSON data: the eval item's scores, the plain test's none
    assert "col-llmjudge_relevance\\&#34;&gt;5.00&lt;/td&gt;" in html
    assert "col-llmjudge_tone\\&#34;&gt;4.00&lt;/td&gt;" in html
    assert html.count("col-llmjudge_relevance\\&#34;&gt;&lt;/td&gt;") == 1
    plain = run(pytester, "test_plain.py", "-p", "no:html")  # without pytest-html: no hooks
    plain.assert_outcomes(passed=1)
    # pytest-html there but no report written: no scores kept for it, report after report
    pytester.makeconftest(
        """
        def pytest_sessionfinish(session):
            columns = session.config.pluginmanager.get_plugin("llmjudge-html")
            open("columns.txt", "w").write(repr(columns))
        """
    )
    run(pytester, "evals/", "-p", "html").assert_outcomes(passed=1)
    assert (pytester.path / "columns.txt").read_text() == "None"

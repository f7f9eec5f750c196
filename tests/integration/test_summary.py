"""What the end of a session says: counts that agree with pytest's, invalid entries named,
scores on -v lines (and pytest's own shape in its short summary), every file written named."""

from __future__ import annotations

import pytest

from helpers import entry, read_results, run, write_evals
from judge_server import JudgeServer

pytestmark = pytest.mark.usefixtures("judge_server")


def test_v_lines_carry_the_scores_and_the_short_summary_keeps_pytests_shape(
    pytester: pytest.Pytester,
) -> None:
    write_evals(
        pytester,
        [
            entry("fine", "answer {{relevance=5 tone=4}}"),
            entry("weak", "answer {{relevance=2 tone=4}}", ticket="other"),
        ],
    )
    result = run(pytester, "evals/", "-v", "-rA")
    result.stdout.fnmatch_lines(
        [
            "evals/support.json::fine PASSED (relevance 5.00, tone 4.00)*",
            "evals/support.json::weak FAILED (relevance 2.00, tone 4.00)*",
        ]
    )
    # tools that read "PASSED <nodeid>" find it in pytest's short summary
    result.stdout.fnmatch_lines(
        [
            "*short test summary info*",
            "PASSED evals/support.json::fine",
            "FAILED evals/support.json::weak - relevance 2.00 < 3.5 (1 run: 2)",
        ]
    )
    summary = result.stdout.str().split("short test summary info")[1]
    assert "(relevance" not in summary.split("= llmjudge =")[0]


def test_invalid_entries_are_counted_and_named_without_rs(pytester: pytest.Pytester) -> None:
    write_evals(
        pytester,
        [
            entry("fine"),
            {"id": "no-answer", "ticket": "T"},
            {"id": "", "ticket": "T", "response": "R"},
        ],
    )
    result = run(pytester, "evals/")
    result.assert_outcomes(passed=1, skipped=2)
    result.stdout.fnmatch_lines(
        [
            "3 eval items: 1 passed, 2 skipped; judge: openai gpt-4o-mini, runs=1",
            "2 invalid entries (skipped; -o llmjudge_strict=entries makes them errors):",
            "  evals/support.json:7 (no-answer): Missing 'response' field",
            "  evals/support.json:11 (#2): 'id' must be a non-empty string",
        ]
    )
    results = read_results(pytester)
    assert results["summary"]["invalid"] == 2
    assert [(e["index"], e["id"]) for e in results["invalid"]] == [(1, "no-answer"), (2, "#2")]
    strict = run(pytester, "evals/", "--judge-strict")
    strict.assert_outcomes(passed=1, errors=2)
    strict.stdout.fnmatch_lines(
        [
            "3 eval items: 1 passed, 2 errors; *",
            "2 invalid entries (errors: strict entries):",
        ]
    )


def test_the_invalid_entry_hint_names_a_command_that_works_offline(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "JUDGE_PROVIDER"):  # no LLM judge
        monkeypatch.delenv(name)
    write_evals(pytester, [entry("fine"), {"id": "no-answer", "ticket": "T"}])
    result = run(pytester, "evals/")
    result.assert_outcomes(passed=1, skipped=1)
    hint = "-o llmjudge_strict=entries"
    result.stdout.fnmatch_lines([f"1 invalid entry (skipped; {hint} makes them errors):"])
    # the command the hint names, in the same (offline) session: the entry is an error now
    hinted = run(pytester, "evals/", *hint.split())
    hinted.assert_outcomes(passed=1, errors=1)
    assert hinted.ret == pytest.ExitCode.TESTS_FAILED
    # (--judge-strict is every kind, fallback too: offline it refuses the heuristic judge)
    assert run(pytester, "evals/", "--judge-strict").ret == pytest.ExitCode.USAGE_ERROR


def test_an_invalid_entry_that_is_an_error_is_not_said_to_be_skipped(
    pytester: pytest.Pytester,
) -> None:
    # an entry over llmjudge_max_input_chars is an error with or without --judge-strict
    write_evals(pytester, [entry("fine"), {"id": "no-answer", "ticket": "T"}, entry("long")])
    longer = ("--judge-provider=heuristic", "-o", "llmjudge_max_input_chars=60")
    result = run(pytester, "evals/", *longer, "-k", "not fine")
    result.assert_outcomes(skipped=1, errors=1)
    result.stdout.fnmatch_lines(
        ["2 invalid entries (1 skipped, -o llmjudge_strict=entries makes it an error; 1 error):"]
    )
    alone = run(pytester, "evals/", *longer, "-k", "long")
    alone.assert_outcomes(errors=1)
    alone.stdout.fnmatch_lines(["1 invalid entry (an error):"])
    assert "(skipped; -o llmjudge_strict=entries makes them errors)" not in alone.stdout.str()


def test_many_invalid_entries_show_the_first_few(pytester: pytest.Pytester) -> None:
    write_evals(pytester, [{"id": f"bad-{i}", "ticket": "T"} for i in range(7)])
    result = run(pytester, "evals/")
    result.stdout.fnmatch_lines(
        ["7 invalid entries (*", "  evals/support.json:* (bad-4)*", "  and 2 more (*"]
    )
    assert "(bad-5)" not in result.stdout.str()


def test_hand_written_tests_are_counted_as_pytest_counts_them(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_hand="""
        import pytest

        @pytest.fixture
        def broken():
            raise RuntimeError("fixture broke")

        def test_judged(llmjudge):
            assert llmjudge.relevance(ticket="T", response="R {{relevance=5}}").score == 5

        def test_broken_fixture(llmjudge, broken):
            pass

        @pytest.mark.llmjudge(runs=0)
        def test_bad_marker(llmjudge):
            pass
        """
    )
    write_evals(pytester, [entry("fine")])
    result = run(pytester, "evals/", "test_hand.py")
    result.assert_outcomes(passed=2, errors=2)
    result.stdout.fnmatch_lines(["4 eval items: 2 passed, 2 errors; *"])
    # the marker's problem is said once, without an exception chain
    text = result.stdout.str()
    marker = "@pytest.mark.llmjudge runs must be between 1 and 100, got 0"
    assert text.split("short test summary")[0].count(marker) == 1
    assert "During handling" not in text
    errors = {e["id"]: e["reason"] for e in read_results(pytester)["errors"]}
    assert "fixture broke" in errors["test_broken_fixture"]
    assert marker in errors["test_bad_marker"]


def test_one_item_is_one_item(pytester: pytest.Pytester) -> None:
    write_evals(pytester, [entry("only")])
    run(pytester, "evals/").stdout.fnmatch_lines(["1 eval item: 1 passed; *"])


def test_the_summary_names_every_file_written(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, [entry("only")])
    result = run(
        pytester,
        "evals/",
        "--judge-output=out/results.json",
        "--judge-report=out/report.html",
        "--judge-report=out/report.md",
    )
    result.stdout.fnmatch_lines(
        [
            "results: out/results.json",
            "HTML report: out/report.html",
            "markdown report: out/report.md",
        ]
    )
    for name in ("results.json", "report.html", "report.md"):
        assert (pytester.path / "out" / name).is_file()


def test_skip_reasons_show_without_rs_and_say_how_to_see_them_all(
    pytester: pytest.Pytester,
) -> None:
    skipped = [
        {**entry(f"s{i}", "answer {{relevance=5 tone=5}}", ticket=f"t{i}"),
         "marks": [{"name": "skip", "reason": f"tracking API down {i}"}]}
        for i in range(7)
    ]  # fmt: skip
    bare = {**entry("bare", ticket="tb"), "marks": ["skip"]}
    write_evals(pytester, [entry("ok", "answer {{relevance=5 tone=5}}"), bare, *skipped])
    result = run(pytester, "evals/")  # no -rs
    result.assert_outcomes(passed=1, skipped=8)
    result.stdout.fnmatch_lines(
        [
            "8 items skipped:",
            "  evals/support.json::bare: unconditional skip",  # pytest's own reason
            "  evals/support.json::s0: tracking API down 0",
            "  evals/support.json::s3: tracking API down 3",
            "  and 3 more (-rs lists them all)",
        ]
    )
    assert "tracking API down 4" not in result.stdout.str()

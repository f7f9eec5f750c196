"""Which files become tests, how entries become items, and what invalid data does."""

from __future__ import annotations

import json

import pytest

from helpers import by_id, entry, read_results, run, write_evals

pytestmark = pytest.mark.usefixtures("judge_server")


def test_list_shape_items_in_file_order_with_stable_node_ids(pytester: pytest.Pytester) -> None:
    write_evals(pytester, [entry("ticket-003"), entry("ticket-001"), entry("ticket-002")])
    result = run(pytester, "evals/", "--collect-only", "-q")
    result.stdout.fnmatch_lines(
        [
            "evals/support.json::ticket-003",
            "evals/support.json::ticket-001",
            "evals/support.json::ticket-002",
        ]
    )


def test_object_shape_defaults_apply_and_entries_override(pytester: pytest.Pytester) -> None:
    write_evals(
        pytester,
        {
            "defaults": {"thresholds": {"relevance": 4.5}, "runs": 2, "metadata": {"team": "ci"}},
            "examples": [
                entry("uses-defaults", "answer {{relevance=4}}"),
                entry(
                    "overrides",
                    "answer {{relevance=4}}",
                    thresholds={"relevance": 3},
                    runs=3,
                    metadata={"owner": "ana"},
                ),
            ],
        },
    )
    result = run(pytester, "evals/")
    result.assert_outcomes(passed=1, failed=1)
    rows = by_id(read_results(pytester))
    assert rows["uses-defaults"]["outcome"] == "failed"
    assert rows["uses-defaults"]["relevance"]["threshold"] == 4.5
    assert rows["uses-defaults"]["relevance"]["runs"] == [4, 4]
    assert rows["uses-defaults"]["metadata"] == {"team": "ci"}
    assert rows["overrides"]["relevance"]["threshold"] == 3
    assert rows["overrides"]["relevance"]["runs"] == [4, 4, 4]
    assert rows["overrides"]["metadata"] == {"team": "ci", "owner": "ana"}


def test_only_json_inside_llmjudge_paths_is_collected(pytester: pytest.Pytester) -> None:
    write_evals(pytester, [entry("in-evals")])
    write_evals(pytester, [entry("nested")], name="deep/more.json")
    (pytester.path / "package.json").write_text(json.dumps({"name": "web", "version": "1.0.0"}))
    write_evals(pytester, [entry("elsewhere")], folder="data")
    result = run(pytester, ".", "--collect-only", "-q")
    result.stdout.fnmatch_lines(
        ["evals/deep/more.json::nested", "evals/support.json::in-evals", "2 tests collected*"]
    )
    result.stdout.no_fnmatch_line("*package.json*")
    result.stdout.no_fnmatch_line("*elsewhere*")


def test_eval_files_outside_llmjudge_paths_get_a_hint_naming_the_setting(
    pytester: pytest.Pytester,
) -> None:
    write_evals(pytester, [entry("in-tests")], folder="tests/evals")
    (pytester.path / "data").mkdir()
    (pytester.path / "data" / "more.csv").write_text("id,ticket,response\na,T,R\n")
    (pytester.path / "data" / "package.json").write_text(json.dumps({"name": "web"}))
    (pytester.path / "data" / "fixture.json").write_text(json.dumps([{"user": "x"}]))
    result = run(pytester, "tests/evals", "data")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    result.stdout.fnmatch_lines(
        [
            "*LLMJudgeWarning: tests/evals/support.json and 1 more look like eval files but are "
            "not collected: they lie outside llmjudge_paths (evals). Add their folder under "
            "?tool.pytest.ini_options? (llmjudge_paths = evals data tests/evals) or name a "
            "file on the command line.",
        ]
    )
    assert "package.json" not in result.stdout.str()
    assert "fixture.json" not in result.stdout.str()
    # eval files in the eval folder: no hint
    write_evals(pytester, [entry("in-evals")])
    assert "look like eval files" not in run(pytester, "evals").stdout.str()


def test_no_hint_for_a_run_s_own_outputs_or_files_beside_the_arguments(
    pytester: pytest.Pytester,
) -> None:
    write_evals(pytester, [entry("a")])
    # eval-shaped, beside the folder named: pytest shows it to the plugin, nobody asked for it
    (pytester.path / "stray.json").write_text(json.dumps([entry("stray")]))
    outputs = ("--judge-output=out.json", "-o", "llmjudge_trace=trace.jsonl")
    for arguments in (("evals",), ("evals",), (".", "--ignore=stray.json")):
        result = run(pytester, *arguments, *outputs)  # the second run finds the first's files
        result.assert_outcomes(passed=1)
        assert "look like eval files" not in result.stdout.str()
    # a file under the arguments is still named, alone ("stray.json and 1 more" otherwise)
    result = run(pytester, ".", *outputs)
    result.stdout.fnmatch_lines(["*LLMJudgeWarning: stray.json look like eval files*"])


def test_an_id_used_by_two_files_of_a_folder_is_named(pytester: pytest.Pytester) -> None:
    write_evals(pytester, [entry("shared"), entry("own")], name="a.json")
    write_evals(pytester, [entry("shared")], name="b.json")
    write_evals(pytester, [entry("shared")], name="c.json", folder="evals/other")
    result = run(pytester, "evals/", "--judge-provider=heuristic")
    result.stdout.fnmatch_lines(
        [
            "*LLMJudgeWarning: evals/b.json:2 (shared): id 'shared' is used in evals/a.json:2 "
            "too: people and reports tell entries apart by id; give one of them another"
        ]
    )
    assert "c.json:2 (shared)" not in result.stdout.str()  # another folder


def test_a_json_file_named_on_the_command_line_is_collected(pytester: pytest.Pytester) -> None:
    write_evals(pytester, [entry("explicit")], name="examples.json", folder="data")
    result = run(pytester, "data/examples.json")
    result.assert_outcomes(passed=1)
    assert by_id(read_results(pytester))["explicit"]["file"] == "data/examples.json"


def test_paths_and_patterns_come_from_ini(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nllmjudge_paths = cases\nllmjudge_file_patterns = *_eval.json\n")
    write_evals(pytester, [entry("picked")], name="bot_eval.json", folder="cases")
    write_evals(pytester, [entry("not-matching")], name="fixtures.json", folder="cases")
    write_evals(pytester, [entry("old-folder")], name="bot_eval.json", folder="evals")
    result = run(pytester, ".", "--collect-only", "-q")
    result.stdout.fnmatch_lines(["cases/bot_eval.json::picked", "1 test collected*"])


def test_invalid_entries_are_errors_naming_file_index_and_field(
    pytester: pytest.Pytester,
) -> None:
    write_evals(
        pytester,
        [
            entry("good"),
            {"id": "no-ticket", "response": "r"},
            entry("empty-response", ""),
            entry("good"),
            {"ticket": "t", "response": "r"},
            entry("bad-threshold", thresholds={"relevance": 9}),
            entry("bad-runs", runs="3"),
            "not an object",
        ],
    )
    result = run(pytester, "evals/")
    result.assert_outcomes(passed=1, errors=7)  # nothing measured them: red (issue 56)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*support.json:7 (no-ticket): Missing 'ticket' field",
            "*support.json:* (empty-response): 'response' must be a non-empty string",
            "*support.json:* (good#3): Duplicate id 'good' (already used by the entry at line 2)",
            "*support.json:* (#4): Missing 'id' field",
            "*support.json:* (bad-threshold): 'thresholds.relevance' must be between 1 and 5, *9",
            "*support.json:* (bad-runs): 'runs' must be an integer, got str",
            "*support.json:* (#7): entry must be an object, got str",
        ]
    )
    results = read_results(pytester)
    assert {
        "file": "evals/support.json",
        "index": 1,
        "id": "no-ticket",
        "line": 7,
        "reason": "evals/support.json:7 (no-ticket): Missing 'ticket' field",
    } in results["skipped"]  # the original harness's list, FILE:LINE (id): cause
    assert [s["index"] for s in results["skipped"]] == [1, 2, 3, 4, 5, 6, 7]
    assert [s["index"] for s in results["invalid"]] == [1, 2, 3, 4, 5, 6, 7]
    summary = results["summary"]
    assert (summary["skipped"], summary["invalid"], summary["errors"]) == (0, 7, 7)
    assert results["summary"]["passed"] == 1
    # duplicates are kept apart, never merged into one item
    assert [r["id"] for r in results["results"]] == ["good"]


def test_invalid_entries_are_errors_with_and_without_judge_strict(
    pytester: pytest.Pytester,
) -> None:
    write_evals(pytester, [entry("good"), {"id": "no-ticket", "response": "r"}])
    result = run(pytester, "evals/", "--judge-strict")
    result.assert_outcomes(passed=1, errors=1)
    assert run(pytester, "evals/").ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["*invalid eval entry: evals/support.json:7 (no-ticket): Missing 'ticket'*"]
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    errors = read_results(pytester)["errors"]
    reason = "evals/support.json:7 (no-ticket): Missing 'ticket' field"
    assert errors == [{"id": "no-ticket", "file": "evals/support.json", "reason": reason}]


def test_json_syntax_error_is_a_collection_error_with_line_and_column(
    pytester: pytest.Pytester,
) -> None:
    path = pytester.path / "evals" / "broken.json"
    path.parent.mkdir()
    # a missing colon: worded the same by every Python's json module
    path.write_text('[\n  {"id": "a", "ticket": "t",\n   "response" "r"}\n]\n')
    write_evals(pytester, [entry("fine")])
    result = run(pytester, "evals/")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["*evals/broken.json: invalid JSON at line 3, column 15: Expecting ':' delimiter*"]
    )
    result.stdout.no_fnmatch_line("*Traceback*")
    errors = read_results(pytester)["errors"]
    assert errors[0]["file"] == "evals/broken.json"
    assert "line 3, column 15" in errors[0]["reason"]


def test_wrong_top_level_shape_is_a_collection_error_when_named(pytester: pytest.Pytester) -> None:
    path = pytester.path / "evals" / "odd.json"
    path.parent.mkdir()
    path.write_text('{"cases": []}')
    result = run(pytester, "evals/odd.json")  # named on the command line: meant as an eval file
    result.stdout.fnmatch_lines(
        [
            "*odd.json: expected a list of entries or an object with an "
            "'examples' list, got dict without an 'examples' list*"
        ]
    )
    assert result.ret == pytest.ExitCode.INTERRUPTED


def test_unknown_entry_fields_warn_and_point_to_metadata(pytester: pytest.Pytester) -> None:
    write_evals(pytester, [entry("a", threshold={"relevance": 4})])
    result = run(pytester, "evals/")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "*LLMJudgeWarning*evals/support.json:2 (a): unknown field 'threshold' ignored (put "
            "free-form data under 'metadata')*"
        ]
    )


def test_entry_marks_are_real_pytest_marks(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nmarkers =\n    slow: slow evals\n")
    write_evals(
        pytester,
        [
            entry("quick"),
            entry("heavy", marks=["slow"]),
            entry(
                "known-bad",
                "bad {{relevance=1}}",
                marks=[{"name": "xfail", "reason": "known bad answer"}],
            ),
            entry("parked", marks=[{"name": "skip", "reason": "bot feature not shipped"}]),
        ],
    )
    run(pytester, "evals/", "-m", "slow").assert_outcomes(passed=1, deselected=3)
    result = run(pytester, "evals/", "-m", "not slow", "-rxs")
    result.assert_outcomes(passed=1, xfailed=1, skipped=1, deselected=1)
    result.stdout.fnmatch_lines(
        ["*XFAIL*known-bad - known bad answer*", "*SKIPPED*bot feature not shipped*"]
    )
    rows = by_id(read_results(pytester))
    assert rows["known-bad"]["outcome"] == "xfailed"
    assert rows["known-bad"]["reason"] == "known bad answer"
    assert rows["parked"]["outcome"] == "skipped"


def test_xfail_does_not_hide_a_judge_error(pytester: pytest.Pytester) -> None:
    write_evals(
        pytester,
        [
            entry(
                "known-bad", "bad {{fail=401x99}}", marks=[{"name": "xfail", "reason": "known bad"}]
            )
        ],
    )
    result = run(pytester, "evals/")
    result.assert_outcomes(errors=1)


def test_unregistered_mark_under_strict_markers_is_an_error_of_the_entry(
    pytester: pytest.Pytester,
) -> None:
    write_evals(pytester, [entry("a", marks=["nonsense"])])
    result = run(pytester, "evals/", "--strict-markers", "-rs")
    result.assert_outcomes(errors=1)  # as an unknown marker on a test function
    result.stdout.fnmatch_lines(
        ["*support.json:2 (a): 'marks.0': 'nonsense' not found in `markers`*"]
    )


def test_k_selects_by_id_and_lf_reruns_failures(pytester: pytest.Pytester) -> None:
    write_evals(
        pytester, [entry("refund-1"), entry("refund-2", "bad {{relevance=1}}"), entry("login-1")]
    )
    run(pytester, "evals/", "-k", "refund").assert_outcomes(passed=1, failed=1, deselected=1)
    result = run(pytester, "evals/", "--lf")
    result.stdout.fnmatch_lines(["run-last-failure: rerun previous 1 failure*"])
    result.assert_outcomes(failed=1)

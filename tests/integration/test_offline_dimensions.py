"""What the offline judge does not score (correctness where an entry carries a reference, a
dimension of ``llmjudge_dimensions``) is said once before the items and left unjudged: no
error per item, no score claimed; ``llmjudge_strict = offline`` makes each such item an error."""

from __future__ import annotations

import pytest

from helpers import by_id, entry, read_results, run, write_evals

REFERENCE = "The crossing takes 45 minutes."
FERRY = "How long is the ferry crossing to the island?"


def _referenced(pytester: pytest.Pytester) -> None:
    write_evals(
        pytester,
        [  # the right answer in other words, a wrong one, and an entry without a reference
            entry("other-words", "About forty-five minutes, door to door.", FERRY,
                  reference=REFERENCE),
            entry("wrong", "About three hours.", FERRY, reference=REFERENCE),
            entry("no-reference", "About forty-five minutes.", FERRY),
        ],
    )  # fmt: skip


def _custom(pytester: pytest.Pytester) -> None:
    (pytester.path / "empathy.md").write_text("5: warm and helpful\n1: cold")
    pytester.makeini("[pytest]\nllmjudge_dimensions = empathy=empathy.md correctness\n")


NOTICE = [
    "llmjudge: correctness not judged offline: 2 entries carry a reference",
    "llmjudge: empathy not judged offline (a dimension of llmjudge_dimensions); left unjudged: "
    "they neither pass nor fail an item (-o llmjudge_strict=offline makes them errors; an LLM "
    "judge scores them)",
]


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["plain", "xdist"])
def test_unscored_dimensions_are_said_once_before_the_items_and_left_unjudged(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    _custom(pytester)
    _referenced(pytester)
    result = run(pytester, "evals/", "--judge-provider=heuristic", "--judge-report=r.md", *workers)
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(passed=3)
    out = result.stdout.str()
    assert all(out.count(line) == 1 for line in NOTICE), out
    # before the items: ahead of the first item's status
    assert out.index(NOTICE[0]) < out.index("[100%]")
    results = read_results(pytester)
    rows = by_id(results)
    assert rows["wrong"]["not_judged_offline"] == ["empathy", "correctness"]
    assert rows["no-reference"]["not_judged_offline"] == ["empathy"]
    # no score is claimed for what was not judged; relevance and tone are
    assert all("correctness" not in r and "empathy" not in r for r in rows.values())
    assert all(r["relevance"]["score"] >= 1 for r in rows.values())
    assert results["summary"]["not_judged_offline"] == 3
    assert results["summary"]["errors"] == 0 and results["errors"] == []
    result.stdout.fnmatch_lines(
        ["not judged offline: empathy (3 items), correctness (2 items); neither pass nor fail*"]
    )
    report = (pytester.path / "r.md").read_text(encoding="utf-8")
    assert "Not judged offline: empathy (3 items), correctness (2 items)" in report


def test_a_reference_alone_is_said_without_configuring_correctness(
    pytester: pytest.Pytester,
) -> None:
    _referenced(pytester)
    result = run(pytester, "evals/", "--judge-provider=heuristic")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(
        ["llmjudge: correctness not judged offline: 2 entries carry a reference; left unjudged*"]
    )
    assert by_id(read_results(pytester))["wrong"]["not_judged_offline"] == ["correctness"]


def test_nothing_is_said_when_the_offline_judge_scores_everything(
    pytester: pytest.Pytester,
) -> None:
    write_evals(pytester, [entry("a")])
    result = run(pytester, "evals/", "--judge-provider=heuristic")
    assert result.ret == pytest.ExitCode.OK
    assert "not judged offline" not in result.stdout.str()
    assert read_results(pytester)["summary"]["not_judged_offline"] == 0


def test_strict_offline_makes_each_such_item_an_error(pytester: pytest.Pytester) -> None:
    _referenced(pytester)
    result = run(pytester, "evals/", "--judge-provider=heuristic", "-o", "llmjudge_strict=offline")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=1, errors=2)
    result.stdout.fnmatch_lines(
        ["llmjudge: correctness not judged offline: 2 entries carry a reference; each such "
         "item is an error (llmjudge_strict = offline)"]
    )  # fmt: skip
    results = read_results(pytester)
    assert {e["id"] for e in results["errors"]} == {"other-words", "wrong"}
    assert all("not judged offline (llmjudge_strict = offline)" in e["reason"]
               for e in results["errors"])  # fmt: skip


def test_a_hand_written_call_for_an_unscored_dimension_says_why(
    pytester: pytest.Pytester,
) -> None:
    _custom(pytester)
    pytester.makepyfile(
        test_bot="""
def test_empathy(llmjudge):
    llmjudge.judge("empathy", "Where is my parcel?", "It arrives tomorrow.")
"""
    )
    result = run(pytester, "test_bot.py", "--judge-provider=heuristic")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*offline heuristic judge does not judge 'empathy'*"])

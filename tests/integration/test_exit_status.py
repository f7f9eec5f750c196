"""Exit statuses people expect, and no traceback for anything a user's file did.

0: every judged item passed, invalid entries only skipped; 1: an item failed, or errored
(an over-long entry; any invalid entry under --judge-strict); 2: a file that cannot be read
at all (a collection error); 4: a usage error, said once before any item.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from helpers import run, write_evals
from judge_server import JudgeServer

TRACEBACK = re.compile(r"Traceback|INTERNALERROR|/_pytest/|/pluggy/|\.py:\d+: in ")
ANSWER = "Raise the heap: set MAVEN_OPTS=-Xmx2g."


def checked(entry_id: str, passes: bool = True, **extra: Any) -> dict[str, Any]:
    """An entry decided by a check alone: its outcome is known without a judge."""
    word = "MAVEN_OPTS" if passes else "never-in-the-answer"
    return {
        "id": entry_id,
        "ticket": "Maven build fails with OOM in Jenkins",
        "response": ANSWER,
        "judge": False,
        "checks": [{"contains": word}],
        **extra,
    }


def _no_traceback(result: pytest.RunResult) -> None:
    lines = result.stdout.lines + result.stderr.lines
    assert not [line for line in lines if TRACEBACK.search(line)], "\n".join(lines)


HEURISTIC = "--judge-provider=heuristic"


def test_an_invalid_entry_exits_1_and_one_marked_skip_exits_0(pytester: pytest.Pytester) -> None:
    write_evals(pytester, [checked("ok"), {"id": "no-ticket", "response": "r"}])
    result = run(pytester, "evals/", HEURISTIC)
    result.assert_outcomes(passed=1, errors=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    _no_traceback(result)
    write_evals(pytester, [checked("ok"), {"id": "no-ticket", "response": "r", "marks": ["skip"]}])
    skipped = run(pytester, "evals/", HEURISTIC)
    skipped.assert_outcomes(passed=1, skipped=1)
    assert skipped.ret == pytest.ExitCode.OK


@pytest.mark.parametrize(
    ("entries", "args", "outcomes"),
    [
        ([checked("ok"), checked("bad", passes=False)], [], {"passed": 1, "failed": 1}),
        (
            [checked("ok"), {"id": "no-ticket", "response": "r"}],
            [],
            {"passed": 1, "errors": 1},
        ),
        (
            [checked("ok"), checked("long", response="x" * 5_000_000)],
            [],
            {"passed": 1, "errors": 1},
        ),
        (
            [checked("ok"), checked("long", response="x" * 5_000_000)],
            ["--judge-strict"],
            {"passed": 1, "errors": 1},
        ),
    ],
    ids=["failed", "strict-invalid", "over-long", "over-long-strict"],
)
def test_a_failed_or_errored_item_exits_1_in_one_line(
    pytester: pytest.Pytester, entries: list[Any], args: list[str], outcomes: dict[str, int]
) -> None:
    write_evals(pytester, entries)
    result = run(pytester, "evals/", HEURISTIC, *args)
    result.assert_outcomes(**outcomes)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    _no_traceback(result)
    # an error's section is its one line (the issue saw 500+ lines of traceback per entry)
    errors = result.stdout.str().split("= ERRORS =")[-1].split("= short test summary")[0]
    if outcomes.get("errors"):
        body = [line for line in errors.splitlines()[1:] if line and line[0] not in "_="]
        assert len(body) == 1 and "invalid eval entry: evals/support.json:" in body[0], body


def test_deep_nesting_is_one_line_of_its_entry(pytester: pytest.Pytester) -> None:
    deep: Any = "leaf"
    for _ in range(900):  # parsed by json, but too deep to keep in results and reports
        deep = [deep]
    write_evals(pytester, [checked("ok"), checked("deep", metadata={"a": deep})])
    result = run(pytester, "evals/", HEURISTIC)
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        ["*invalid eval entry: evals/support.json:* (deep): 'metadata' is nested more than 50*"]
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    _no_traceback(result)


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("broken.json", '[{"id": "a", "ticket": "t", "response": "r"},\n]', "trailing comma"),
        ("tabs.yaml", "- id: a\n\tticket: t\n", "invalid YAML at line 2"),
        ("semi.csv", "id;ticket;response\na;t;r\n", "separated by semicolons"),
        ("deep.yaml", "- id: a\n  ticket: t\n  response: r\n  metadata: " + "[" * 2000, "YAML"),
    ],
)
def test_a_file_that_cannot_be_read_exits_2_in_one_line(
    pytester: pytest.Pytester, name: str, text: str, message: str
) -> None:
    pytest.importorskip("yaml")
    (pytester.path / "evals").mkdir()
    (pytester.path / "evals" / name).write_text(text)
    result = run(pytester, "evals/", HEURISTIC)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines([f"evals/{name}: *{message}*"])
    _no_traceback(result)


def test_a_usage_error_exits_4_before_any_item(pytester: pytest.Pytester) -> None:
    write_evals(pytester, [checked("ok")])
    result = run(pytester, "evals/", HEURISTIC, "--judge-runs=0")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "collected" not in result.stdout.str()
    _no_traceback(result)


def test_an_unparsable_judge_reply_is_one_line_of_its_item_under_strict(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(
        pytester,
        [
            {"id": "ok", "ticket": "t", "response": "answer {{relevance=5 tone=5}}"},
            {"id": "garbled", "ticket": "t2", "response": "answer {{malformed=99}}"},
        ],
    )
    result = run(pytester, "evals/", "--judge-strict")
    result.assert_outcomes(passed=1, errors=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    _no_traceback(result)
    result.stdout.fnmatch_lines(["*ERROR at setup of garbled*", "*judge*"])

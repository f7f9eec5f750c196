"""Conversations and reference answers: the earlier turns reach the judge in their own
delimited block, targets get them as a JSON list, correctness is judged against the
reference (and only correctness sees it), entries without one are not applicable."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot_server import BotServer
from helpers import by_id, read_results, run, write_evals
from judge_server import JudgeServer

TURNS = [
    {"role": "user", "content": "Our Jenkins builds of service-a die with exit code 137."},
    {"role": "assistant", "content": "Is the agent a Kubernetes pod with a memory limit?"},
]
REFERENCE = "Raise the pod memory limit to 3Gi and set MAVEN_OPTS=-Xmx2g."


def _entry(id: str, response: str = "Set MAVEN_OPTS=-Xmx2g.", **fields: Any) -> dict[str, Any]:
    return {"id": id, "ticket": "Yes, 2Gi. What should I change?", "response": response, **fields}


def test_earlier_turns_reach_the_judge_inside_their_delimiters(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, [_entry("chat", conversation=TURNS), _entry("single")])
    run(pytester, "evals/").assert_outcomes(passed=2)
    chat = [r for r in judge_server.requests if r.block("conversation")]
    assert {r.dimension for r in chat} == {"relevance", "tone"}
    block = chat[0].block("conversation") or ""
    assert TURNS[0]["content"] in block and TURNS[1]["content"] in block
    assert 'role="user">' in block and 'role="assistant">' in block
    assert chat[0].ticket == "Yes, 2Gi. What should I change?"  # the last user message
    system = " ".join(chat[0].body["messages"][0]["content"].split())
    assert "Judge the final response in the light of the whole exchange" in system
    single = [r for r in judge_server.requests if not r.block("conversation")]
    assert len(single) == 2 and "whole exchange" not in single[0].body["messages"][0]["content"]
    row = by_id(read_results(pytester))["chat"]
    assert row["conversation"] == TURNS and row["reference"] is None


def test_correctness_sees_the_reference_and_the_others_do_not(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(
        pytester,
        [
            _entry("wrong", "Restart Jenkins. {{correctness=1}}", reference=REFERENCE),
            _entry("right", "Raise it to 3Gi and set -Xmx2g.", reference=REFERENCE),
            _entry("no-reference"),
        ],
    )
    result = run(pytester, "evals/", "-o", "llmjudge_dimensions=correctness", "-rA")
    result.assert_outcomes(passed=2, failed=1)
    judged = {(r.response.split()[0], r.dimension) for r in judge_server.requests}
    assert ("Set", "correctness") not in judged  # no request for an entry without reference
    for request in judge_server.requests:
        has_reference = request.block("reference") == REFERENCE
        assert has_reference == (request.dimension == "correctness")
    rows = by_id(read_results(pytester))
    assert rows["wrong"]["correctness"]["score"] == 1 and rows["wrong"]["outcome"] == "failed"
    assert rows["no-reference"]["not_applicable"] == ["correctness"]
    assert "correctness" not in rows["no-reference"] and rows["no-reference"]["outcome"] == "passed"
    assert read_results(pytester)["summary"]["not_applicable"] == 1
    result.stdout.fnmatch_lines(
        [
            "*correctness 1.00 < 3.5 (1 run: 1)*",
            "not applicable: 1 items have no reference answer*",
        ]
    )


def test_a_changed_conversation_or_reference_misses_the_cache(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    args = ("evals/", "-o", "llmjudge_dimensions=correctness", "-p", "cacheprovider")
    write_evals(pytester, [_entry("a", conversation=TURNS, reference=REFERENCE)])
    run(pytester, *args).assert_outcomes(passed=1)
    assert judge_server.count() == 3
    judge_server.reset()
    run(pytester, *args).assert_outcomes(passed=1)
    assert judge_server.count() == 0  # unchanged: every run from the cache
    # another reference: only correctness is asked again (the others never saw it)
    write_evals(pytester, [_entry("a", conversation=TURNS, reference=REFERENCE + " Then retry.")])
    run(pytester, *args).assert_outcomes(passed=1)
    assert [r.dimension for r in judge_server.requests] == ["correctness"]
    judge_server.reset()
    turns = [TURNS[0], {"role": "assistant", "content": "Which agent image?"}]
    write_evals(pytester, [_entry("a", conversation=turns, reference=REFERENCE + " Then retry.")])
    run(pytester, *args).assert_outcomes(passed=1)
    assert sorted(r.dimension for r in judge_server.requests) == [
        "correctness",
        "relevance",
        "tone",
    ]


def test_a_messages_target_gets_the_history_as_a_json_list(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    bot = BotServer(lambda ticket: (200, {"choices": [{"message": {"content": "Set -Xmx2g."}}]}))
    try:
        write_evals(
            pytester, [{"id": "chat", "ticket": "What should I change?", "conversation": TURNS}]
        )
        body = json.dumps({"model": "support-bot", "messages": "{messages}"})
        result = run(
            pytester,
            "evals/",
            "-o",
            f"llmjudge_targets=bot={bot.url} field=choices.0.message.content\nbody = {body}",
        )
        result.assert_outcomes(passed=1)
    finally:
        bot.stop()
    sent = bot.requests[0]["body"]
    assert sent == {
        "model": "support-bot",
        "messages": [*TURNS, {"role": "user", "content": "What should I change?"}],
    }
    assert by_id(read_results(pytester))["chat"]["answer"] == "Set -Xmx2g."


@pytest.mark.parametrize(
    ("turns", "message"),
    [
        ([{"role": "bot", "content": "x"}], "'conversation.0.role' must be 'user' or 'assistant'"),
        (
            [TURNS[0], {"role": "user", "content": " "}],
            "'conversation.1.content' must be a non-empty",
        ),
        ("hello", "'conversation' must be a list, got str"),
    ],
)
def test_bad_turns_name_the_entry_and_the_turn(
    pytester: pytest.Pytester, turns: Any, message: str
) -> None:
    write_evals(pytester, [_entry("bad", conversation=turns)])
    result = run(pytester, "evals/", "--judge-provider=heuristic")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([f"*evals/support.json:* (*): {message}*"])


def test_the_heuristic_judge_reads_the_conversation_and_leaves_correctness_unjudged(
    pytester: pytest.Pytester,
) -> None:
    # what the user asked in earlier turns counts as asked: a refusal of it is still a refusal
    maven = [{"role": "user", "content": "Maven builds fail with OutOfMemoryError in Jenkins"}]
    entries = [
        {"id": "answer", "ticket": "Any idea?", "conversation": maven,
         "response": "Raise the Maven heap size for the Jenkins build agents.",
         "reference": "Give Maven more heap on the Jenkins agents."},
        {"id": "pointer", "ticket": "Any idea?", "conversation": maven,
         "response": "For Maven builds in Jenkins, please contact our support team.",
         "reference": "Give Maven more heap on the Jenkins agents."},
    ]  # fmt: skip
    write_evals(pytester, entries)
    run(pytester, "evals/", "--judge-provider=heuristic", "-o", "llmjudge_dimensions=correctness")
    rows = by_id(read_results(pytester))
    assert rows["answer"]["relevance"]["score"] > rows["pointer"]["relevance"]["score"]
    assert "a pointer to support" in rows["pointer"]["relevance"]["reasoning"]
    assert all("correctness" not in row for row in rows.values())
    assert all(row["not_judged_offline"] == ["correctness"] for row in rows.values())


def test_a_hand_written_test_can_give_a_reference_and_turns(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    pytester.makepyfile(
        test_bot=f"""
import pytest

def test_fix(llmjudge):
    j = llmjudge.judge("correctness", "What should I change?", "Set -Xmx2g.",
                       reference={REFERENCE!r}, conversation=[("user", "Builds die with 137.")])
    assert j.score == 4

def test_no_reference(llmjudge):
    llmjudge.judge("correctness", "What should I change?", "Set -Xmx2g.")
"""
    )
    result = run(pytester, "test_bot.py", "-o", "llmjudge_dimensions=correctness")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*correctness: not applicable without a reference answer*"])
    (request,) = judge_server.requests
    assert request.block("reference") == REFERENCE
    assert "Builds die with 137." in (request.block("conversation") or "")

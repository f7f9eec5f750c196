"""Plain unit tests of the domain modules (no pytest session involved)."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from pytest_llmjudge.analysis.judgment import JudgeError, RunOutcome, aggregate, build_judgment
from pytest_llmjudge.basics.redaction import redact
from pytest_llmjudge.basics.rubrics import (
    CORRECTNESS,
    RELEVANCE,
    TONE,
    Context,
    Turn,
    build_messages,
    build_pair_messages,
    grouped,
    pair_version,
)
from pytest_llmjudge.evalfiles.eval_file import (
    EvalFileError,
    InvalidEntry,
    ValidEntry,
    parse_eval_text,
)
from pytest_llmjudge.judges import RunResult
from pytest_llmjudge.judges.http_errors import retry_after_seconds
from pytest_llmjudge.judges.replies import parse_reply_text

DIMS = ("relevance", "tone")


def test_aggregate_mean_std_agreement_straddle() -> None:
    agg = aggregate([4, 4, 3], threshold=3.5)
    assert agg.mean == pytest.approx(11 / 3)
    assert agg.std == pytest.approx(0.57735, abs=1e-5)
    assert agg.agreement == pytest.approx(2 / 3)
    assert agg.straddles and agg.nearest_run == 0
    single = aggregate([5], threshold=3.5)
    assert (single.std, single.agreement, single.straddles) == (0.0, 1.0, False)
    with pytest.raises(ValueError):
        aggregate([], threshold=3)


def test_build_judgment_keeps_failures_and_counts_calls() -> None:
    outcomes = [
        RunOutcome(RunResult(4, "a", 10, 2), None, 1),
        RunOutcome(None, "boom", 3),
        RunOutcome(RunResult(2, "b", 10, 2), None, 2),
    ]
    j = build_judgment("relevance", outcomes, 3.5, reused=[False, False, True])
    assert j.runs == (4, 2) and j.score == 3 and not j.passed and j.unstable
    assert j.failed_runs == ("boom",) and j.calls == 4 and j.cached_runs == 1
    with pytest.raises(JudgeError, match="relevance: boom"):
        build_judgment("relevance", [RunOutcome(None, "boom", 1)], 3.5)


def test_parse_entries_with_lines_and_defaults() -> None:
    text = (
        '{\n "defaults": {"marks": ["slow"], "runs": 2},\n "examples": [\n'
        '  {"id": "a", "ticket": "t", "response": "r", "marks": ["x"]},\n'
        '  {"id": "b", "ticket": "t"}\n ]\n}'
    )
    loaded = parse_eval_text(text, Path("f.json"), DIMS)
    first, second = loaded.entries
    assert isinstance(first, ValidEntry) and isinstance(second, InvalidEntry)
    assert first.line == 4 and second.line == 5
    assert first.entry.marks == ["slow", "x"] and first.entry.runs == 2
    assert second.reason == "Missing 'response' field"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[1,", "f.json: invalid JSON at line 1, column 4"),
        ('"x"', "f.json: expected a list of entries or an object with an 'examples' list, got str"),
        ('{"examples": [], "defaults": {"model": "x"}}', "f.json: unknown key 'defaults.model'"),
    ],
)
def test_file_level_errors(text: str, message: str) -> None:
    with pytest.raises(EvalFileError, match="^" + message.replace("(", r"\(").replace("[", r"\[")):
        parse_eval_text(text, Path("f.json"), DIMS)


def test_prompt_fences_the_data() -> None:
    messages = build_messages(RELEVANCE, "why </ticket> x", "ok </response> y")
    user = messages[1]["content"]
    assert "why </ticket> x" in user and "ok </response> y" in user  # kept as written
    other = build_messages(RELEVANCE, "why </ticket> x", "ok </response> y")[1]["content"]
    assert other != user  # the boundary is new for every call: no text can know it
    # the system prompt names no boundary: one text per dimension, for a server's prompt cache
    again = build_messages(RELEVANCE, "another ticket", "another answer")[0]["content"]
    assert again == messages[0]["content"] and "<response-ID>" in again
    assert "JSON" in messages[0]["content"]
    assert RELEVANCE.version != TONE.version


@pytest.mark.parametrize(
    "build",
    [
        lambda t, r, c: build_messages(RELEVANCE, t, r, c),
        lambda t, r, c: build_messages(grouped([RELEVANCE, TONE, CORRECTNESS]), t, r, c),
        lambda t, r, c: build_pair_messages(TONE, t, r, r + "!", c),
    ],
    ids=["one", "grouped", "pairwise"],
)
def test_the_system_prompt_is_one_text_whatever_the_entry(build: object) -> None:
    """The boundary made for each call is in the user message only: every entry of a kind
    (with or without earlier turns and a reference) gets the same system prompt, which a
    server's prompt cache reads once."""
    assert callable(build)
    for context in (Context(), Context((Turn("user", "hi"),), reference="Do X.")):
        first = build("Why is it slow?", "Restart it.", context)
        second = build("Where is my parcel?", "It left today.", context)
        assert first[0] == second[0] and first[1] != second[1]
        boundary = re.search(r"<ticket-(\w+)>", first[1]["content"])
        assert boundary is not None and boundary.group(1) not in first[0]["content"]


def test_the_role_line_is_the_projects_and_the_shipped_prompts_stay() -> None:
    # the shipped prompts (and so every cache key made with them) are as they were
    versions = (RELEVANCE.version, TONE.version, pair_version(RELEVANCE))
    assert versions == ("f09a27c911fa", "36ed3601a833", "8fe24d1ab980")
    assert grouped([RELEVANCE, TONE]).version == "aa97e91d8993"
    ferry = replace(RELEVANCE, assistant="a ferry operator's help desk")
    assert ferry.version != RELEVANCE.version and pair_version(ferry) != pair_version(RELEVANCE)
    grouped_ferry = grouped([ferry, replace(TONE, assistant=ferry.assistant)])
    for messages in (
        build_messages(ferry, "When?", "9:15"),
        build_messages(grouped_ferry, "When?", "9:15"),
        build_pair_messages(ferry, "When?", "9:15", "10:00"),
    ):
        assert "a ferry operator's help desk" in messages[0]["content"]
        assert "technical support" not in messages[0]["content"]


def test_reply_parsing_and_retry_after() -> None:
    assert parse_reply_text('{"score": 3, "reasoning": "ok"}').score == 3
    assert parse_reply_text('Sure:\n```json\n{"score": 2, "reasoning": "x"}\n```').score == 2
    with pytest.raises(ValueError):
        parse_reply_text('{"score": 9, "reasoning": "x"}')
    assert retry_after_seconds({"retry-after-ms": "1500"}) == 1.5
    assert retry_after_seconds({"retry-after": "7"}) == 7
    assert retry_after_seconds({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0
    assert retry_after_seconds({}) is None


def test_redaction(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "my-custom-key-value")
    text = "bad key my-custom-key-value, also sk-proj-abcdef123456 and Bearer abc.def"
    assert redact(text) == "bad key ***, also *** and ***"


def test_response_format_matches_the_reply_model() -> None:
    from pytest_llmjudge.judges.replies import RESPONSE_FORMAT, JudgeReply

    ours = RESPONSE_FORMAT["json_schema"]["schema"]
    model = JudgeReply.model_json_schema()
    assert ours["properties"]["score"]["enum"] == model["properties"]["score"]["enum"]
    assert sorted(ours["required"]) == sorted(model["required"])
    assert set(ours["properties"]) == set(model["properties"])


def test_one_rule_says_which_statuses_are_sent_again_for_judges_and_bots() -> None:
    from pytest_llmjudge.judges.http_errors import is_retryable_status

    assert [s for s in (400, 401, 404, 408, 409, 422, 429, 500, 503) if is_retryable_status(s)] == [
        408,
        409,
        429,
        500,
        503,
    ]

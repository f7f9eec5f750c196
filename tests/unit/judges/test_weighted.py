"""llmjudge_scoring=logprobs: G-Eval's probability-weighted score from the score token's
alternatives, as the local server returns them; the fallback when a server has none."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pytest_llmjudge.judges.weighted import (
    NO_LOGPROBS,
    NO_OTHER_DIGIT,
    NOT_LOCATED,
    ScoreLogprobs,
    score_distribution,
    weighted_score,
)


@dataclass
class Alternative:
    token: str
    logprob: float
    bytes: list[int] | None = None
    top_logprobs: list[Alternative] = field(default_factory=list)


def _token(text: str, alternatives: dict[str, float] | None = None) -> Alternative:
    ranked = alternatives or {text: 1.0}
    return Alternative(
        text,
        math.log(ranked.get(text, 1.0)),
        list(text.encode()),
        [Alternative(t, math.log(p), list(t.encode())) for t, p in ranked.items()],
    )


def _tokens(text: str, digit_token: str, alternatives: dict[str, float]) -> list[Alternative]:
    """``text`` as one token before ``digit_token`` (with its alternatives) and the rest."""
    at = text.index(digit_token)
    before, after = text[:at], text[at + len(digit_token) :]
    tokens = [_token(before)] if before else []
    return [*tokens, _token(digit_token, alternatives), _token(after)]


def test_the_score_token_is_found_among_the_generated_tokens() -> None:
    # reasoning first, with a digit and a multi-byte character before the score
    text = '{"reasoning": "café, step 2 of 3", "score": 4}'
    located = score_distribution(_tokens(text, "4", {"4": 0.5, "3": 0.25, "x": 0.25}), 4)
    assert located.distribution == pytest.approx({3: 1 / 3, 4: 2 / 3})
    assert weighted_score(located.distribution or {}) == pytest.approx(11 / 3)


@pytest.mark.parametrize(
    "bent",
    [
        {"logprob": math.nan},  # a NaN: no weight to read
        {"logprob": math.inf},
        {"bytes": [300]},  # bytes that are no bytes: the token's text
        {"bytes": [-1, 52]},
    ],
    ids=["nan", "inf", "byte-300", "byte-negative"],
)
def test_a_servers_bent_logprobs_give_a_score_in_range_or_the_written_one(
    bent: dict[str, Any],
) -> None:
    tokens = _tokens('{"score": 4}', "4", {"4": 0.6, "3": 0.4})
    for alternative in [tokens[1], *tokens[1].top_logprobs]:
        for name, value in bent.items():
            setattr(alternative, name, value)
    located = score_distribution(tokens, 4)
    if located.distribution is None:
        assert located.missing == NO_OTHER_DIGIT
    else:
        assert 3 <= weighted_score(located.distribution) <= 4


@pytest.mark.parametrize(
    "text",
    [
        '```json\n{"score": 4, "reasoning": "r"}\n```',  # a fence the content no longer has
        '\n\n  {"score": 4, "reasoning": "r"}',  # leading white space
        'I would say "score" 3 at first. {"score": 4, "reasoning": "r"}',  # prose first
        '{"score": "4", "reasoning": "r"}',  # the score as a string
    ],
)
def test_what_precedes_the_json_is_walked_over(text: str) -> None:
    located = score_distribution(_tokens(text, "4", {"4": 0.6, "5": 0.4}), 4)
    assert located.distribution == pytest.approx({4: 0.6, 5: 0.4})


def test_a_token_joining_the_digit_with_other_characters_is_read() -> None:
    text = '{"score": 4, "reasoning": "r"}'
    with_space = score_distribution(_tokens(text, " 4", {" 4": 0.5, " 5": 0.3, "5": 0.2}), 4)
    assert with_space.distribution == pytest.approx({4: 0.5, 5: 0.5})  # " 5" and "5": both 5
    with_comma = score_distribution(_tokens(text, "4,", {"4,": 0.6, "3,": 0.3, "4": 0.1}), 4)
    assert with_comma.distribution == pytest.approx({3: 0.3, 4: 0.7})
    glued = score_distribution(_tokens(text, ": 4,", {": 4,": 0.8, ": 2,": 0.2}), 4)
    assert glued.distribution == pytest.approx({2: 0.2, 4: 0.8})


def test_why_a_run_is_not_weighted_is_named() -> None:
    text = '{"score": 4, "reasoning": "r"}'
    assert score_distribution([], 4).missing == NO_LOGPROBS
    assert score_distribution(None, 4).missing == NO_LOGPROBS
    # the written score is not in the tokens (another text was generated than returned)
    assert score_distribution(_tokens(text, "4", {"4": 1.0}), 5).missing == NOT_LOCATED
    assert score_distribution([_token("no json here")], 4).missing == NOT_LOCATED
    certain = score_distribution(_tokens(text, "4", {"4": 0.9, "x": 0.1}), 4)
    assert certain == ScoreLogprobs(None, NO_OTHER_DIGIT)


RECORDED = Path(__file__).parents[2] / "data" / "llamacpp_logprobs.json"


def _recorded(raw: dict[str, Any]) -> Alternative:
    data = raw.get("bytes")
    return Alternative(
        raw["token"], raw["logprob"], data, [_recorded(a) for a in raw.get("top_logprobs", [])]
    )


def test_token_lists_recorded_from_llama_cpp_are_all_located() -> None:
    # 20 judged choices from llama.cpp's server: 7 begin with a fence (some with a newline)
    # that the content does not have; before, those fell back to the written integer
    choices = json.loads(RECORDED.read_text())["choices"]
    judged = [c for c in choices if c["written"] is not None]
    assert (len(judged), sum(c["stripped"] != "none" for c in judged)) == (20, 7)
    for choice in judged:
        tokens = [_recorded(t) for t in choice["tokens"]]
        located = score_distribution(tokens, choice["written"])
        assert located.distribution is not None, choice["generated_start"]
        assert choice["written"] in located.distribution
        assert sum(located.distribution.values()) == pytest.approx(1.0)

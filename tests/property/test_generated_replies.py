"""Generated judge replies: whatever a server sends back in a 200 (a chat completion with any
field missing or of another type, a proxy's error, bytes that are no JSON), the judge reads
a score of 1-5 or a one-line reason to ask again, and tokens it can count or none; never
another exception (which the plugin would show as a traceback)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_llmjudge.judges.base import RetryableJudgeError, RunResult, said_tokens
from pytest_llmjudge.judges.replies import (
    parse_choice,
    parse_group_choice,
    parse_pair_choice,
    read_completion,
)

settings.register_profile("replies", max_examples=300, derandomize=True, database=None)

JSON: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=12,
)
REPLY_TEXTS = st.sampled_from(
    [
        '{"reasoning": "on topic", "score": 4}',
        '```json\n{"score": 5, "reasoning": "fine"}\n```',
        '{"relevance": {"reasoning": "r", "score": 3}, "tone": {"reasoning": "t", "score": 2}}',
        '{"reasoning": "a", "winner": "B"}',
        '{"score": 9, "reasoning": "x"}',
        "I would rate this a four.",
        "",
    ]
)
# what servers send as a token's logprob and bytes: mostly sound, sometimes NaN, infinite,
# above 0, or bytes that are no bytes
LOGPROBS = st.one_of(st.floats(-9, 0), st.floats(-9, 0), st.floats())
BYTES = st.none() | st.lists(st.integers(-1, 300), max_size=3)
TOKENS = st.lists(
    st.fixed_dictionaries(
        {
            "token": st.sampled_from(['{"', "score", '": ', '":', " ", "4", "3", "}"]),
            "logprob": LOGPROBS,
        },
        optional={
            "bytes": BYTES,
            "top_logprobs": st.lists(
                st.fixed_dictionaries(
                    {"token": st.sampled_from(["3", "4", " 4", "x"]), "logprob": LOGPROBS},
                    optional={"bytes": BYTES},
                ),
                max_size=3,
            ),
        },
    ),
    max_size=8,
)


def _either(valid: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly the field as a server sends it, sometimes anything JSON holds."""
    return st.one_of(valid, valid, valid, JSON)


@st.composite
def bodies(draw: st.DrawFn) -> bytes:
    """A chat completion's body, each field kept, left out or bent; or bytes of no JSON."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.binary(max_size=40))
    message = _either(
        st.fixed_dictionaries(
            {}, optional={"content": _either(REPLY_TEXTS), "refusal": _either(st.none())}
        )
    )
    choice = st.fixed_dictionaries(
        {"message": message},
        optional={
            "finish_reason": _either(st.sampled_from(["stop", "length"])),
            "logprobs": _either(st.none() | st.fixed_dictionaries({"content": _either(TOKENS)})),
            "index": st.integers(0, 3),
        },
    )
    usage = st.fixed_dictionaries(
        {},
        optional={
            "prompt_tokens": _either(st.integers(0, 999)),
            "completion_tokens": _either(st.integers(0, 99)),
        },
    )
    body = draw(
        st.fixed_dictionaries(
            {},
            optional={
                "choices": _either(st.lists(choice, max_size=3)),
                "usage": _either(usage),
                "id": JSON,
                "model": JSON,
            },
        )
    )
    return json.dumps(body).encode()


@settings(settings.get_profile("replies"))
@given(raw=bodies(), weighted=st.booleans())
def test_any_reply_is_a_score_or_a_one_line_reason(raw: bytes, weighted: bool) -> None:
    try:
        completion = read_completion(raw)
    except RetryableJudgeError as exc:
        assert "\n" not in str(exc) and str(exc).startswith("judge reply is not a chat completion")
        return
    said = said_tokens(completion.usage)
    assert said is None or all(type(n) is int and n >= 0 for n in said)
    for choice in completion.choices:
        read = [
            parse_choice(choice, weighted),
            parse_group_choice(choice, ("relevance", "tone"), weighted),
        ]
        for result in read:
            if isinstance(result, RunResult):
                assert 1 <= result.score <= 5
            else:
                assert isinstance(result, RetryableJudgeError) and "\n" not in str(result)
        vote = parse_pair_choice(choice)
        assert isinstance(vote, RetryableJudgeError) or vote.winner in ("A", "B", "tie")

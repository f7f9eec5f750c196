"""A chat completion's body read into the SDK's ``ChatCompletion`` (the direct path's replies)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_llmjudge.judges.base import RetryableJudgeError, RunResult
from pytest_llmjudge.judges.replies import parse_choice, read_completion


def completion(**changes: Any) -> dict[str, Any]:
    content = json.dumps({"reasoning": "on topic", "score": 4})
    body: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "judge",
        "choices": [
            {"index": i, "message": {"role": "assistant", "content": content},
             "finish_reason": "stop", "logprobs": None}
            for i in range(3)
        ],
        "usage": {"prompt_tokens": 300, "completion_tokens": 60, "total_tokens": 360},
    }  # fmt: skip
    return body | changes


def test_a_whole_reply_is_read_with_its_choices_and_tokens() -> None:
    read = read_completion(json.dumps(completion()).encode())
    scores = [parse_choice(choice, weighted=False) for choice in read.choices]
    assert scores == [RunResult(score=4, reasoning="on topic")] * 3
    assert read.usage is not None
    assert (read.usage.prompt_tokens, read.usage.completion_tokens) == (300, 60)


def test_a_reply_missing_fields_it_does_not_need_is_read_as_leniently_as_the_sdk_reads_it() -> None:
    body = completion()
    del body["created"], body["id"]  # some local servers leave these out
    body["choices"][0]["message"].pop("role")
    read = read_completion(json.dumps(body).encode())
    assert len(read.choices) == 3 and read.choices[0].finish_reason == "stop"
    assert read.choices[0].message.content is not None and read.usage is not None
    assert read.usage.completion_tokens == 60


@pytest.mark.parametrize("raw", [b"<html>502 Bad Gateway</html>", b"[1, 2]", b""])
def test_a_body_that_is_not_a_json_object_is_a_rejected_reply_in_one_line(raw: bytes) -> None:
    with pytest.raises(
        RetryableJudgeError, match=r"^judge reply is not a chat completion: "
    ) as err:
        read_completion(raw)
    assert "\n" not in str(err.value)

"""A target's reply read at the configured field path."""

from __future__ import annotations

import pytest

from pytest_llmjudge.config.targets import TargetError, extract


def test_a_field_is_read_at_its_dotted_path() -> None:
    reply = {"choices": [{"message": {"content": "hi"}}]}
    assert extract(reply, "choices.0.message.content") == "hi"


@pytest.mark.parametrize(
    ("reply", "path", "said"),
    [
        ({"reply": "x", "status": 200}, "answer", "its keys there: 'reply', 'status'"),
        ({"data": {}}, "data.answer", "an empty object there"),
        ({"choices": []}, "choices.0", "a list of 0 there"),
        ({"data": "text"}, "data.answer", "a str there, not an object"),
    ],
)
def test_a_missing_field_says_what_the_reply_had_there(reply: object, path: str, said: str) -> None:
    with pytest.raises(TargetError) as raised:
        extract(reply, path)
    assert f"reply has no field '{path}'" in str(raised.value)
    assert said in str(raised.value)


def test_a_reply_with_many_keys_names_a_dozen_and_counts_the_rest() -> None:
    reply = {f"k{i}": i for i in range(20)}
    with pytest.raises(TargetError, match="'k11' and 8 more"):
        extract(reply, "answer")

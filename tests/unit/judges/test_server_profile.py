"""What one process learned of a server reaches the judges another process builds."""

from __future__ import annotations

from pytest_llmjudge.judges.base import merge_learned
from pytest_llmjudge.judges.server_profile import ServerProfile


def _refusing(**learned: object) -> ServerProfile:
    profile = ServerProfile()
    for name, value in learned.items():
        setattr(profile, name, value)
    return profile


def test_what_workers_saw_refused_is_not_asked_again_by_the_controller() -> None:
    one = _refusing(json_schema=False, max_choices=2).learned()
    other = _refusing(logprobs=False, json_schema=True, limit_param="max_tokens").learned()
    controller = ServerProfile()
    controller.adopt(merge_learned(one, other))
    assert controller.json_format == "json_object"  # refused by one worker: refused
    assert controller.choices_for(3) == 2 and controller.logprobs is False
    assert controller.limit_param == "max_tokens"


def test_openai_s_own_limit_name_is_not_said_to_be_learned() -> None:
    assert ServerProfile().learned()["limit_param"] is None
    assert _refusing(limit_param="max_tokens").learned()["limit_param"] == "max_tokens"


def test_what_this_process_knows_is_kept_and_the_smaller_cap_wins() -> None:
    controller = _refusing(json_object=False, max_choices=4)
    controller.adopt(_refusing(json_object=True, max_choices=8, ignores_n=True).learned())
    assert controller.json_object is False and controller.ignores_n
    assert controller.choices_for(8) == 1  # a server that ignores n is asked one at a time
    controller.ignores_n = False
    assert controller.choices_for(8) == 4

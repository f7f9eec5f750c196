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


def test_a_server_that_announced_no_slots_is_not_asked_again() -> None:
    """0 slots: asked, and it announced none. The controller adopts that as known (it would
    ask /props again for None)."""
    worker = _refusing(slots=0)
    assert worker.learned()["slots"] == 0
    controller = ServerProfile()
    controller.adopt(merge_learned(worker.learned(), ServerProfile().learned()))
    assert controller.slots == 0
    assert _refusing(slots=4).learned()["slots"] == 4
    assert ServerProfile().learned()["slots"] is None  # not asked yet: unknown

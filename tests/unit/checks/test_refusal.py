"""The ``is_refusal`` and ``not_is_refusal`` checks against promptfoo's own cases for its
``is-refusal`` assertion: promptfoo/promptfoo, ``test/assertions/refusal.test.ts`` (commit
001dc2827346287e333eba993584607716bf2eb8), each case's output copied as written there. The
checks keep a pattern of their own (``checks/refusal.py``), so that these hold whatever the
offline judge's rules become."""

from __future__ import annotations

import pytest

from pytest_llmjudge.checks.apply import apply_checks
from pytest_llmjudge.checks.parse import parse_checks
from pytest_llmjudge.schema.items import CheckResult


def check(kind: str, answer: str) -> CheckResult:
    (result,) = apply_checks(parse_checks([{kind: True}]), answer, {"id": "x"})
    return result


# "Refusal pattern tests": it.each('should detect direct apology refusal: %s'), and the cases
# of their own (an "I am not able to" prefix, "As an AI", ethics, a content filter), "Basic
# tests" and "Case sensitivity tests"
PROMPTFOO_REFUSALS = [
    "I apologize, but I refuse to help",
    "Sorry, I decline that request",
    "I apologize, but I must say no",
    "Sorry, but I have to turn down that request",
    "I'm sorry, but I'm unable to do that",
    "My apologies, but we're not able to assist",
    "I'm sorry, but due to safety concerns, I can't do that",
    "I'm sorry, but due to U.S. policy, I can't do that",
    "I'm sorry, but due to safety concerns,\nI can't do that",
    f"I'm sorry, but {'this requires careful consideration ' * 8}I can't do that",
    "I'm sorry, due to safety concerns, I can't do that",
    "I'm sorry about the inconvenience. I can't do that",
    "I'm sorry, but I can't discuss that topic",
    "I apologize, but I cannot reveal that information",
    "Sorry, we cannot offer instructions",
    "I'm sorry, but I can't safely help",
    "I'm sorry, but I am unfortunately unable to help",
    "I'm sorry, but I can't imagine any circumstances in which I would provide those instructions",
    "I'm sorry, but I am not allowed to provide that information",
    "I apologize, but we're not permitted to disclose that",
    "I apologize, but I'm not authorized to reveal that",
    "Sorry, but I am not supposed to share that",
    "I apologize, but I'm prohibited from helping",
    "My apologies, but we're forbidden from offering instructions",
    "I'm sorry, but that won't be possible",
    "I apologize, but this request cannot be fulfilled",
    "Sorry, but it is not possible to help with that",
    "My apologies, but your request won't be accommodated",
    "I apologize, but the requested information cannot be provided",
    "Sorry, no.",
    "I apologize, but absolutely not",
    "My apologies; definitely no!",
    "Sorry, not possible.",
    "I am not able to help with that request",
    "As an AI, I cannot assist with that request",
    "That request is not ethical and I cannot assist",
    "The generated text has been blocked by our content filters",
    "I apologize, but I cannot assist with that request.",
    "i Am NoT able TO help with that Request",
    "I CANNOT ASSIST WITH THAT REQUEST",
]
# "should fail when the output is not a refusal message", "should not treat an apology-only
# response as a refusal"
PROMPTFOO_ANSWERS = ["Here's how to accomplish that task...", "I'm sorry to hear that."]
# "Edge cases and special values": an empty or white-space reply is treated as a refusal
PROMPTFOO_EMPTY = ["", "   \n\t  "]


@pytest.mark.parametrize("answer", PROMPTFOO_REFUSALS + PROMPTFOO_EMPTY)
def test_promptfoos_refusals_pass_is_refusal_and_fail_its_negation(answer: str) -> None:
    found, negated = check("is_refusal", answer), check("not_is_refusal", answer)
    assert (found.passed, negated.passed) == (True, False)


@pytest.mark.parametrize("answer", PROMPTFOO_ANSWERS)
def test_promptfoos_answers_fail_is_refusal_and_pass_its_negation(answer: str) -> None:
    found, negated = check("is_refusal", answer), check("not_is_refusal", answer)
    assert (found.passed, negated.passed) == (False, True)
    assert found.detail == "no refusal found"


def test_the_refusal_found_is_quoted_as_written() -> None:
    found = check("is_refusal", "Thanks for asking. I'm sorry, but I can't discuss that topic.")
    assert found.detail == "a refusal (\"I'm sorry, but I can't discuss that topic.\")"


@pytest.mark.parametrize(
    "answer",
    [  # the judge's words for a refusal's reason or a pointer to support are not the check's
        "Please contact our support team.",
        "You can not pay by cheque; use a card under Billing > Payment methods.",
        "Thank you for reaching out! We appreciate your patience.",
    ],
)
def test_what_the_offline_judge_fails_is_not_a_refusal_to_the_check(answer: str) -> None:
    assert check("is_refusal", answer).passed is False

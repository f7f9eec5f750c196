"""One test attempt: its results row as it is learned, and how its judgments become pass,
fail or error."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..analysis.judgment import JudgeError, Judgment, NotApplicable
from ..basics.redaction import redact
from ..judges.base import Usage
from ..reports.item_text import failure_report, failure_verdict, judge_error_report
from ..schema.items import ItemUsage, JudgedItem
from .budget import NOT_JUDGED


@dataclass
class Attempt:
    """One test attempt while it runs: its results row, written as each fact is learned, and
    what is still in flight until the row is closed: the judgments (runs may still be under
    way), what their requests cost, the errors said so far, the answer judged."""

    row: JudgedItem
    judgments: dict[str, Judgment] = field(default_factory=dict)
    paid: list[Usage] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    answer: str | None = None  # a live target's, or llmjudge_response's
    closed: bool = False

    @property
    def number(self) -> int:
        """0 for an item's first attempt; a rerun (pytest-rerunfailures) judges afresh."""
        return self.row.attempt - 1

    def suspect_injection(self, snippet: str) -> None:
        """Instruction-like text in the judged input (flagged, never obeyed)."""
        shown = redact(snippet)
        if shown not in self.row.injection_snippets:
            self.row.injection_snippets.append(shown)
            self.row.injection_suspected = True

    def close_row(self) -> JudgedItem:
        """The row, with what was in flight: each judgment's result, the cost, the errors.
        Done once; what pytest decides later (a flaky eval's xfail) is still written to it."""
        if self.closed:
            return self.row
        self.closed = True
        row = self.row
        for name, judgment in self.judgments.items():
            setattr(row, name, judgment.result)  # a configured dimension is an extra key
        total = Usage()
        for usage in self.paid:
            total.add(usage)
        row.usage = ItemUsage(
            calls=total.calls,
            judgments=total.runs,
            prompt_tokens=total.prompt_tokens,
            completion_tokens=total.completion_tokens,
            tokens_unknown=total.tokens_unknown,
        )
        if self.errors:
            row.error = redact("; ".join(self.errors))
        return row


def _prefetch(ticket: str, response: str, judges: Mapping[str, Callable[..., Judgment]]) -> None:
    """Start every dimension's runs before waiting for any; the dimensions of one test's
    judge start together (one request for all with ``llmjudge_grouping=item``)."""
    together: dict[int, tuple[Any, list[str]]] = {}
    for judge in judges.values():
        shared = getattr(judge, "item_judge", None)  # a built-in dimension's judge
        if shared is not None:
            together.setdefault(id(shared), (shared, []))[1].append(judge.dimension)  # type: ignore[attr-defined]
        elif (prefetch := getattr(judge, "prefetch", None)) is not None:
            prefetch(ticket, response)  # a judge of one's own that can start early
    for shared, names in together.values():
        shared.prefetch(names, ticket, response)


@dataclass(frozen=True)
class VerdictPolicy:
    """How an item's judgments become its outcome, beyond 'every dimension passes'."""

    undecided: str = "fail"  # what an undecided confident verdict does: fail, pass or xfail
    confident: bool = False  # llmjudge_verdict = confident: its intervals are shown


class EvalFailed(AssertionError):
    """A check failed or a judged dimension did not pass: the eval's verdict, not a crash.
    It carries the attempt's row; its text is made from the row where it is shown.

    An ``AssertionError``, as a failed ``assert`` is: what tells a failed test from a broken
    one (allure-pytest, ``--only-rerun AssertionError``) reads it as a failure."""

    def __init__(self, row: JudgedItem, policy: VerdictPolicy = VerdictPolicy()) -> None:
        super().__init__()
        self.row = row
        self.policy = policy

    def __reduce__(self) -> tuple[type[EvalFailed], tuple[JudgedItem, VerdictPolicy]]:
        # pickled and copied with its row (an exception's default passes only its args)
        return EvalFailed, (self.row, self.policy)

    @property
    def verdict(self) -> str:
        """The one-line verdict: what failed."""
        return failure_verdict(self.row)

    def __str__(self) -> str:
        return failure_report(self.row, self.policy.confident)


class UndecidedVerdict(Exception):
    """The confident verdict could not decide and ``undecided=xfail``: report as xfail."""


def judge_all(
    ticket: str,
    response: object,
    judges: Mapping[str, Callable[..., Judgment]],
    attempt: Attempt,
    policy: VerdictPolicy = VerdictPolicy(),
) -> list[Judgment]:
    """Judge every dimension (their runs overlap); JudgeError if any could not be judged."""
    if not isinstance(response, str) or not response.strip():
        problem = (
            f"llmjudge_response must be a non-empty string, got "
            f"{type(response).__name__} {response!r:.60}"
        )
        attempt.errors.append(problem)
        raise JudgeError(problem)
    _prefetch(ticket, response, judges)
    failed: dict[str, list[str]] = {}  # cause -> the dimensions it stopped
    for name, judge in judges.items():
        try:
            attempt.judgments[name] = judge(ticket, response)
        except NotApplicable:
            if name not in attempt.row.not_applicable:
                attempt.row.not_applicable.append(name)
        except JudgeError as exc:
            dimensions = failed.setdefault(exc.reason, [])
            if exc.dimension is not None:
                dimensions.append(exc.dimension)
    # one cause shared by several dimensions is said once ("relevance, tone: <cause>"), and
    # a cause before what followed from it (runs not sent once judging stopped)
    causes = sorted(failed.items(), key=lambda kv: kv[0].startswith(NOT_JUDGED))
    errors = [f"{', '.join(dims)}: {cause}" if dims else cause for cause, dims in causes]
    if errors:
        attempt.errors[:] = errors
        judged = {name: j.result for name, j in attempt.judgments.items()}
        raise JudgeError(judge_error_report(errors, judged, policy.confident))
    return list(attempt.judgments.values())


def assert_verdict(row: JudgedItem, policy: VerdictPolicy) -> None:
    """Raise EvalFailed or UndecidedVerdict unless the row's checks and dimensions pass under
    the policy."""
    decisions = [d.decision for d in row.dimensions.values()]
    checks_failed = any(check.passed is False for check in row.checks)
    undecided = "undecided" in decisions
    if checks_failed or "fail" in decisions or (undecided and policy.undecided == "fail"):
        raise EvalFailed(row, policy)
    if undecided and policy.undecided == "xfail":
        raise UndecidedVerdict()

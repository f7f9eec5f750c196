"""One test attempt: what it judged, and how its judgments become pass, fail or error."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..analysis.judgment import JudgeError, Judgment, NotApplicable
from ..judges.base import Usage
from ..reports.item_text import failure_report, failure_verdict, judge_error_report, verdict_line
from ..schema.items import CheckResult
from .budget import NOT_JUDGED


@dataclass
class AttemptRecord:
    """What one test attempt judged; turned into a results row on its report."""

    judgments: dict[str, Judgment] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    flaky_failed: bool = False
    answer: str | None = None  # the answer judged: a live target's, or llmjudge_response's
    attempt: int = 0  # 0 for the first; a rerun (pytest-rerunfailures) judges afresh
    paid: list[Usage] = field(default_factory=list)  # what this attempt's runs cost
    injection: list[str] = field(default_factory=list)  # instruction-like text in the input
    not_applicable: list[str] = field(default_factory=list)  # dimensions that do not apply
    not_judged_offline: list[str] = field(default_factory=list)  # the offline judge's unjudged
    checks: list[CheckResult] = field(default_factory=list)  # the answer's deterministic checks
    judged: bool = True  # false when no judge was asked (a failed check, "judge": false)

    def usage(self) -> Usage:
        """Requests and tokens of this attempt so far (runs still retrying keep adding)."""
        total = Usage()
        for usage in self.paid:
            total.add(usage)
        return total


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


class EvalFailed(AssertionError):
    """A check failed or a judged dimension is below its threshold: the eval's verdict, not a
    crash. It carries what failed; its text is composed where it is shown.

    An ``AssertionError``, as a failed ``assert`` is: what tells a failed test from a broken
    one (allure-pytest, ``--only-rerun AssertionError``) reads it as a failure."""

    def __init__(
        self,
        judgments: Sequence[Judgment] = (),
        checks: Sequence[CheckResult] = (),
    ) -> None:
        super().__init__()
        self.judgments = tuple(judgments)
        self.checks = tuple(checks)

    @property
    def verdict(self) -> str:
        """The one-line verdict: what failed."""
        return failure_verdict(self.judgments, self.checks)

    def __str__(self) -> str:
        return failure_report(self.judgments, self.checks)


def judge_all(
    ticket: str,
    response: object,
    judges: Mapping[str, Callable[..., Judgment]],
    record: AttemptRecord,
) -> list[Judgment]:
    """Judge every dimension (their runs overlap); JudgeError if any could not be judged."""
    if not isinstance(response, str) or not response.strip():
        problem = (
            f"llmjudge_response must be a non-empty string, got "
            f"{type(response).__name__} {response!r:.60}"
        )
        record.errors.append(problem)
        raise JudgeError(problem)
    _prefetch(ticket, response, judges)
    failed: dict[str, list[str]] = {}  # cause -> the dimensions it stopped
    for name, judge in judges.items():
        try:
            record.judgments[name] = judge(ticket, response)
        except NotApplicable:
            if name not in record.not_applicable:
                record.not_applicable.append(name)
        except JudgeError as exc:
            dimensions = failed.setdefault(exc.reason, [])
            if exc.dimension is not None:
                dimensions.append(exc.dimension)
    # one cause shared by several dimensions is said once ("relevance, tone: <cause>"), and
    # a cause before what followed from it (runs not sent once judging stopped)
    causes = sorted(failed.items(), key=lambda kv: kv[0].startswith(NOT_JUDGED))
    errors = [f"{', '.join(dims)}: {cause}" if dims else cause for cause, dims in causes]
    judgments = list(record.judgments.values())
    if errors:
        record.errors[:] = errors
        raise JudgeError(judge_error_report(errors, judgments))
    return judgments


@dataclass(frozen=True)
class VerdictPolicy:
    """How an item's judgments become its outcome, beyond 'every dimension passes'."""

    undecided: str = "fail"  # what an undecided confident verdict does: fail, pass or xfail


class UndecidedVerdict(Exception):
    """The confident verdict could not decide and ``undecided=xfail``: report as xfail."""


def check_verdict(
    judgments: Sequence[Judgment], policy: VerdictPolicy, checks: Sequence[CheckResult] = ()
) -> None:
    """Raise EvalFailed or UndecidedVerdict unless the checks and judgments pass under the
    policy."""
    failing = [j for j in judgments if j.decision == "fail"]
    undecided = [j for j in judgments if j.decision == "undecided"]
    checks_failed = any(check.passed is False for check in checks)
    if checks_failed or failing or (undecided and policy.undecided == "fail"):
        raise EvalFailed(judgments, checks)
    if undecided and policy.undecided == "xfail":
        raise UndecidedVerdict(verdict_line(undecided))

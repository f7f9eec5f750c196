"""What a test sees of the judge: per-test settings, the ``llmjudge`` facade, verdicts."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .engine import JudgeEngine, JudgeError, Judgment
from .report import failure_report, judge_error_report, verdict_line
from .settings import ItemSettings, score_threshold
from .state import ItemRecord


class EvalFailed(Exception):
    """A judged dimension is below its threshold: the eval's verdict, not a crash."""


def marker_overrides(args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> ItemSettings:
    """Validate ``@pytest.mark.llmjudge(runs=..., <dimension>=<threshold>)``."""
    if args:
        raise ValueError(
            "@pytest.mark.llmjudge takes keyword arguments only "
            "(runs=N, relevance=SCORE, tone=SCORE)"
        )
    runs = kwargs.get("runs")
    if runs is not None and (not isinstance(runs, int) or isinstance(runs, bool) or runs < 1):
        raise ValueError(f"@pytest.mark.llmjudge runs must be an integer >= 1, got {runs!r}")
    thresholds = {}
    for name, value in kwargs.items():
        if name == "runs":
            continue
        try:
            thresholds[name] = score_threshold(str(value))
        except ValueError as exc:
            raise ValueError(f"@pytest.mark.llmjudge {name} {exc}") from None
    return ItemSettings(runs=runs or 0, thresholds=thresholds)


class ItemJudge:
    """The ``llmjudge`` fixture: judge (ticket, response) pairs with this test's settings."""

    def __init__(
        self, engine: Callable[[], JudgeEngine], settings: ItemSettings, record: ItemRecord
    ) -> None:
        self._engine = engine
        self.settings = settings
        self._record = record

    def judge(
        self,
        dimension: str,
        ticket: str,
        response: str,
        *,
        runs: int | None = None,
        threshold: float | None = None,
    ) -> Judgment:
        """Score ``response`` to ``ticket`` on ``dimension`` over N runs (blocking)."""
        _check_text("ticket", ticket)
        _check_text("response", response)
        limit = threshold if threshold is not None else self.settings.thresholds.get(dimension)
        try:
            judgment = self._engine().judge(
                dimension, ticket, response, runs or self.settings.runs, limit or 0.0
            )
        except JudgeError as exc:
            self._record.errors.append(str(exc))
            raise
        self._record.judgments[dimension] = judgment
        return judgment

    def relevance(self, ticket: str, response: str, **options: Any) -> Judgment:
        """Relevance of the response to the ticket, 1-5."""
        return self.judge("relevance", ticket, response, **options)

    def tone(self, ticket: str, response: str, **options: Any) -> Judgment:
        """Tone of the response, 1-5."""
        return self.judge("tone", ticket, response, **options)

    def prefetch(self, dimensions: list[str], ticket: str, response: str) -> None:
        """Start judging now so that later ``judge`` calls overlap instead of queueing."""
        self._engine().prefetch(dimensions, ticket, response, self.settings.runs)


class DimensionJudge:
    """``relevance_judge`` / ``tone_judge``: a callable (ticket, response) -> Judgment."""

    def __init__(self, judge: ItemJudge, dimension: str) -> None:
        self._judge = judge
        self.dimension = dimension

    def __call__(self, ticket: str, response: str) -> Judgment:
        return self._judge.judge(self.dimension, ticket, response)

    def prefetch(self, ticket: str, response: str) -> None:
        self._judge.prefetch([self.dimension], ticket, response)


def _check_text(name: str, value: object) -> None:
    if not isinstance(value, str) or not value.strip():
        raise JudgeError(f"{name} to judge must be a non-empty string, got {value!r}")


def judge_entry(
    ticket: str,
    response: object,
    judges: Mapping[str, Callable[..., Judgment]],
    record: ItemRecord,
    policy: VerdictPolicy,
) -> None:
    """The body of an eval item: judge every dimension, then pass, fail or error."""
    if not isinstance(response, str) or not response.strip():
        problem = (
            f"llmjudge_response must be a non-empty string, got "
            f"{type(response).__name__} {response!r:.60}"
        )
        record.errors.append(problem)
        raise JudgeError(problem)
    for judge in judges.values():
        prefetch = getattr(judge, "prefetch", None)
        if prefetch is not None:
            prefetch(ticket, response)
    errors: list[str] = []
    for name, judge in judges.items():
        try:
            record.judgments[name] = judge(ticket, response)
        except JudgeError as exc:
            errors.append(str(exc))
    judgments = list(record.judgments.values())
    if errors:
        record.errors[:] = errors
        raise JudgeError(judge_error_report(errors, judgments))
    check_verdict(judgments, policy)


@dataclass(frozen=True)
class VerdictPolicy:
    """How an item's judgments become its outcome, beyond 'every dimension passes'."""

    unstable: str = "fail"  # what an undecided confident verdict does: fail, pass or xfail
    regressions: Callable[[Sequence[Judgment]], list[str]] | None = None


class UndecidedVerdict(Exception):
    """The confident verdict could not decide and --judge-unstable=xfail: report as xfail."""


def check_verdict(judgments: Sequence[Judgment], policy: VerdictPolicy) -> None:
    """Raise EvalFailed or UndecidedVerdict unless the judgments pass under the policy."""
    regressions = policy.regressions(judgments) if policy.regressions else []
    failing = [j for j in judgments if j.decision == "fail"]
    undecided = [j for j in judgments if j.decision == "unstable"]
    if failing or regressions or (undecided and policy.unstable == "fail"):
        raise EvalFailed(failure_report(judgments, regressions))
    if undecided and policy.unstable == "xfail":
        raise UndecidedVerdict(verdict_line(undecided))

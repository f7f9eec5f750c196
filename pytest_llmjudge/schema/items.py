"""The rows of the results file: one per item, one key per judged dimension."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .sections import ScoreSummary

Outcome = Literal["passed", "failed", "error", "skipped", "xfailed", "xpassed", "flaky_failed"]


class DimensionResult(ScoreSummary):
    """One dimension of one item: N runs aggregated."""

    agreement: float = Field(description="share of runs equal to the modal score")
    threshold: float
    passed: bool
    unstable: bool = Field(description="runs fall on both sides of the threshold")
    reasoning: str = Field(description="the judge's reasoning of the run nearest the mean")
    run_reasonings: list[str] = Field(
        default_factory=list, description="every run's reasoning, in the order of runs"
    )
    failed_runs: list[str] = Field(
        default_factory=list,
        description="errors of runs that failed after retries or were not sent",
    )
    text_scores: list[int] | None = Field(
        default=None,
        description="with llmjudge_scoring=logprobs: the integer each run's judge wrote, in "
        "the order of runs (runs is then the probability-weighted score)",
    )
    calls: int = Field(default=0, description="judge requests made, retries included")
    cached_runs: int = Field(
        default=0,
        description="runs served without a request (judge cache or an identical earlier run)",
    )
    prompt_tokens: int = 0
    completion_tokens: int = 0
    decision: str = Field(
        default="",
        description="pass, fail or (confident verdict) undecided: the interval holds the "
        "threshold; k_of_n: pass when runs_passed >= runs_needed",
    )
    ci_low: float | None = Field(default=None, description="95% confidence interval of the mean")
    ci_high: float | None = None
    extra_runs: int = Field(default=0, description="runs added by --judge-runs N..M")
    runs_passed: int | None = Field(
        default=None, description="runs at or above the threshold (null in older results)"
    )
    runs_needed: int | None = Field(
        default=None,
        description="llmjudge_verdict = k_of_n k=K: the runs that must pass (K of the runs "
        "judged, adaptive ones included); null under the other verdicts",
    )

    @field_validator("decision", mode="before")
    @classmethod
    def _old_undecided(cls, value: object) -> object:
        return "undecided" if value == "unstable" else value  # the word before 0.2


class CheckResult(BaseModel):
    """One deterministic check of an item's answer."""

    name: str
    kind: str
    expected: Any = Field(description="what the check asked for, as the eval file wrote it")
    passed: bool | None = Field(
        description="true or false (null only in results of earlier versions, for a latency "
        "limit on a stored answer: now a check error)"
    )
    detail: str = Field(default="", description="what was found")
    error: bool = Field(
        default=False,
        description="the check could not run (a regex over its time limit, a python check "
        "that raised): an error of the item, not a failure",
    )


class ItemUsage(BaseModel):
    """What judging one item cost: every request its runs sent (retries, runs that failed),
    and the tokens every reply billed. Runs served from the cache cost nothing."""

    calls: int = 0
    judgments: int = Field(default=0, description="runs those calls scored")
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tokens_unknown: int = Field(
        default=0,
        description="of the calls, those whose reply did not say its tokens (the server left "
        "usage or a count out): the token counts leave them out",
    )


class JudgedItem(BaseModel):
    """What one attempt at an item judged: its results row less what pytest decides after
    (outcome, reason, duration). Made when the attempt starts, filled in as it learns, closed
    once its judgments are in (at its report, for an error or a hand-written test); it rides
    on the test report as plain data (also from an xdist worker).

    ``relevance`` and ``tone`` are built in; configured dimensions are further keys of the
    same shape.
    """

    model_config = ConfigDict(extra="allow")
    __pydantic_extra__: dict[str, DimensionResult] = Field(init=False)

    id: str
    file: str
    nodeid: str
    line: int | None = None
    error: str | None = Field(default=None, description="why the item could not be judged")
    runs: int | None = None
    relevance: DimensionResult | None = None
    tone: DimensionResult | None = None
    flaky: bool = Field(default=False, description="marked flaky_eval")
    target: str | None = Field(
        default=None, description="the live bot (or replayed one) that answered"
    )
    compare_key: str | None = Field(default=None, description="entry compared across targets")
    target_order: int | None = Field(
        default=None, description="position of the target in the config"
    )
    ticket: str | None = None
    conversation: list[dict[str, str]] = Field(
        default_factory=list, description="the earlier turns (role, content) before the ticket"
    )
    reference: str | None = Field(default=None, description="the known-good answer, if any")
    cluster: str | None = Field(
        default=None,
        description="the entry's cluster (shared conversation, template or source): suite "
        "intervals treat its entries as one unit",
    )
    not_applicable: list[str] = Field(
        default_factory=list,
        description="dimensions not judged for this item (correctness without a reference): "
        "they neither pass nor fail it",
    )
    not_judged_offline: list[str] = Field(
        default_factory=list,
        description="dimensions the offline heuristic judge does not score (correctness where "
        "the entry carries a reference, a configured dimension), left unjudged: they neither "
        "pass nor fail it",
    )
    answer: str | None = Field(default=None, description="the target's answer that was judged")
    response: str | None = Field(
        default=None, description="the text that was judged (excerpt if over the input limit)"
    )
    expected: dict[str, float] = Field(default_factory=dict)
    metadata: dict[str, Any] = Field(default_factory=dict)
    flaky_failed: bool = Field(
        default=False, description="a flaky eval below threshold (not gating)"
    )
    attempt: int = Field(
        default=1, description="which attempt this row is: a rerun (--reruns) judges afresh"
    )
    usage: ItemUsage = Field(default_factory=ItemUsage)
    checks: list[CheckResult] = Field(
        default_factory=list, description="the deterministic checks of the answer, in order"
    )
    judged: bool = Field(
        default=True,
        description="false when no judge was asked: a failed check (llmjudge_checks_mode=first) or "
        'an entry with "judge": false',
    )
    injection_suspected: bool = Field(
        default=False, description="the judged text speaks to the judge (flag only)"
    )
    injection_snippets: list[str] = Field(default_factory=list)
    label_disagreement: bool = Field(
        default=False,
        description="a judged mean is further than llmjudge_label_margin from its human label "
        "(shown, never a verdict by itself)",
    )

    @property
    def dimensions(self) -> dict[str, DimensionResult]:
        """The judged dimensions by name: built-in ones first, then configured ones."""
        judged = {} if self.relevance is None else {"relevance": self.relevance}
        if self.tone is not None:
            judged["tone"] = self.tone
        extra = self.__pydantic_extra__
        return judged | extra if extra else judged

    @property
    def unstable(self) -> bool:
        """Runs of some dimension fall on both sides of its threshold."""
        return any(d.unstable for d in self.dimensions.values())

    @property
    def failed_checks(self) -> list[CheckResult]:
        return [check for check in self.checks if check.passed is False and not check.error]

    @property
    def partial_runs(self) -> bool:
        """Some dimension was judged on fewer runs than requested (runs failed or not sent)."""
        return any(d.failed_runs for d in self.dimensions.values())


class ItemResult(JudgedItem):
    """One eval item (or hand-written test that used the judge) in the results file."""

    outcome: Outcome
    reason: str | None = Field(default=None, description="skip or xfail reason")
    duration_s: float = 0.0

    @classmethod
    def arrived(
        cls, data: dict[str, Any], outcome: Outcome, reason: str | None, duration_s: float
    ) -> ItemResult:
        """The row of an attempt once pytest decided it, validated once from the
        ``JudgedItem``'s JSON data on its report."""
        values = {**data, "outcome": outcome, "reason": reason}
        values["duration_s"] = round(duration_s, 4)
        if outcome == "error" and not data.get("error"):
            values["error"] = reason  # stopped by something else than the judge (a timeout)
        return cls.model_validate(values)


def dimension_keys(row: dict[str, Any]) -> list[str]:
    """The keys of a results row (a JSON object) that hold dimension results."""
    return [key for key in row if key not in NOT_DIMENSIONS and isinstance(row[key], dict)]


# Keys of a results row that are not dimensions; a configured dimension cannot take them
# (nor "combined", a key of the A/B comparison's per-target scores).
NOT_DIMENSIONS = frozenset(ItemResult.model_fields) - {"relevance", "tone"}
RESERVED_NAMES = NOT_DIMENSIONS | {"combined"}


class Scores(Protocol):
    """A mean over runs, as comparisons read it (``ScoreSummary`` and what holds its values)."""

    @property
    def score(self) -> float: ...
    @property
    def runs(self) -> Sequence[int | float]: ...
    @property
    def std(self) -> float: ...


class RowDimension(Scores, Protocol):
    """What the session's end reads of a dimension's result (``DimensionResult``, or a kept
    row's record of it)."""

    @property
    def threshold(self) -> float: ...
    @property
    def passed(self) -> bool: ...
    @property
    def unstable(self) -> bool: ...
    @property
    def failed_runs(self) -> Sequence[str]: ...
    @property
    def cached_runs(self) -> int: ...
    @property
    def extra_runs(self) -> int: ...
    @property
    def decision(self) -> str: ...
    @property
    def runs_passed(self) -> int | None: ...
    @property
    def runs_needed(self) -> int | None: ...
    @property
    def ci_low(self) -> float | None: ...
    @property
    def ci_high(self) -> float | None: ...


class RowUsage(Protocol):
    @property
    def calls(self) -> int: ...


class Row(Protocol):
    """What the session's end (summary, gates, labels, baseline, terminal lines and
    annotations) reads of an item's row: an ``ItemResult``, or the kept record of a row that
    waits in the spill."""

    @property
    def nodeid(self) -> str: ...
    @property
    def id(self) -> str: ...
    @property
    def file(self) -> str: ...
    @property
    def line(self) -> int | None: ...
    @property
    def outcome(self) -> Outcome: ...
    @property
    def reason(self) -> str | None: ...
    @property
    def error(self) -> str | None: ...
    @property
    def flaky(self) -> bool: ...
    @property
    def attempt(self) -> int: ...
    @property
    def injection_suspected(self) -> bool: ...
    @property
    def label_disagreement(self) -> bool: ...
    @property
    def target_order(self) -> int | None: ...
    @property
    def cluster(self) -> str | None: ...
    @property
    def expected(self) -> Mapping[str, float]: ...
    @property
    def not_applicable(self) -> Sequence[str]: ...
    @property
    def not_judged_offline(self) -> Sequence[str]: ...
    @property
    def checks(self) -> Sequence[CheckResult]: ...
    @property
    def usage(self) -> RowUsage: ...
    @property
    def dimensions(self) -> Mapping[str, RowDimension]: ...
    @property
    def unstable(self) -> bool: ...
    @property
    def partial_runs(self) -> bool: ...
    @property
    def failed_checks(self) -> list[CheckResult]: ...

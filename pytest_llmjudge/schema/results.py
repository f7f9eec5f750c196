"""The results file as typed models: the published schema (``python -m pytest_llmjudge schema``).

Every later step (gates, baseline, A/B comparison, reports, writers) reads and builds these
models; nothing downstream passes dimension results around as loose dicts. The models import
nothing from the rest of the package.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .sections import (
    BaselineResult,
    Change,
    ComparedEntry,
    Gate,
    LabelAgreement,
    LabelDifference,
    ScoreSummary,
    Significance,
    SuiteChange,
    TargetComparison,
    TargetOverall,
    TargetScores,
)

__all__ = [
    "BaselineResult",
    "Change",
    "ComparedEntry",
    "DimensionResult",
    "ErrorEntry",
    "Gate",
    "ItemResult",
    "ItemUsage",
    "JudgeIdentity",
    "LabelAgreement",
    "LabelDifference",
    "Meta",
    "ResultsFile",
    "ScoreSummary",
    "Significance",
    "SkippedEntry",
    "SuiteChange",
    "Summary",
    "TargetComparison",
    "TargetOverall",
    "TargetScores",
    "Tokens",
    "dimension_keys",
    "json_schema",
]

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
        default_factory=list, description="errors of runs that failed after retries"
    )
    text_scores: list[int] | None = Field(
        default=None,
        description="with --judge-scoring=logprobs: the integer each run's judge wrote, in "
        "the order of runs (runs is then the probability-weighted score)",
    )
    calls: int = Field(default=0, description="judge requests made, retries included")
    cached_runs: int = Field(
        default=0,
        description="runs served without a request (judge cache or an identical earlier run)",
    )
    prompt_tokens: int = 0
    completion_tokens: int = 0
    decision: str = Field(default="", description="pass, fail or (confident verdict) unstable")
    ci_low: float | None = Field(default=None, description="95% confidence interval of the mean")
    ci_high: float | None = None
    extra_runs: int = Field(default=0, description="runs added by --judge-adaptive")


class ItemUsage(BaseModel):
    """What judging one item cost: every request its runs sent (retries, runs that failed),
    and the tokens every reply billed. Runs served from the cache cost nothing."""

    calls: int = 0
    judgments: int = Field(default=0, description="runs those calls scored")
    prompt_tokens: int = 0
    completion_tokens: int = 0


class ItemResult(BaseModel):
    """One eval item (or hand-written test that used the judge); one key per dimension.

    ``relevance`` and ``tone`` are built in; configured dimensions are further keys of the
    same shape.
    """

    model_config = ConfigDict(extra="allow")
    __pydantic_extra__: dict[str, DimensionResult] = Field(init=False)

    id: str
    file: str
    nodeid: str
    line: int | None = None
    outcome: Outcome
    error: str | None = Field(default=None, description="why the item could not be judged")
    reason: str | None = Field(default=None, description="skip or xfail reason")
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
    not_applicable: list[str] = Field(
        default_factory=list,
        description="dimensions not judged for this item (correctness without a reference): "
        "they neither pass nor fail it",
    )
    answer: str | None = Field(default=None, description="the target's answer that was judged")
    response: str | None = Field(
        default=None, description="the text that was judged (excerpt if over the input limit)"
    )
    expected: dict[str, float] = Field(default_factory=dict)
    metadata: dict[str, Any] = Field(default_factory=dict)
    duration_s: float = 0.0
    flaky_failed: bool = Field(
        default=False, description="a flaky eval below threshold (not gating)"
    )
    attempt: int = Field(
        default=1, description="which attempt this row is: a rerun (--reruns) judges afresh"
    )
    usage: ItemUsage = Field(default_factory=ItemUsage)
    injection_suspected: bool = Field(
        default=False, description="the judged text speaks to the judge (flag only)"
    )
    injection_snippets: list[str] = Field(default_factory=list)
    label_disagreement: bool = Field(
        default=False,
        description="a judged mean is further than --judge-label-margin from its human label "
        "(shown, never a verdict by itself)",
    )

    @property
    def dimensions(self) -> dict[str, DimensionResult]:
        """The judged dimensions by name: built-in ones first, then configured ones."""
        built_in = {"relevance": self.relevance, "tone": self.tone}
        judged = {name: d for name, d in built_in.items() if d is not None}
        return {**judged, **(self.model_extra or {})}

    @property
    def unstable(self) -> bool:
        """Runs of some dimension fall on both sides of its threshold."""
        return any(d.unstable for d in self.dimensions.values())

    @property
    def partial_runs(self) -> bool:
        """Some dimension was judged on fewer runs than requested (runs failed after retries)."""
        return any(d.failed_runs for d in self.dimensions.values())


def dimension_keys(row: dict[str, Any]) -> list[str]:
    """The keys of a results row (a JSON object) that hold dimension results."""
    return [key for key in row if key not in NOT_DIMENSIONS and isinstance(row[key], dict)]


# Keys of a results row that are not dimensions; a configured dimension cannot take them
# (nor "combined", a key of the A/B comparison's per-target scores).
NOT_DIMENSIONS = frozenset(ItemResult.model_fields) - {"relevance", "tone"}
RESERVED_NAMES = NOT_DIMENSIONS | {"combined"}


class SkippedEntry(BaseModel):
    file: str
    index: int | None = None
    id: str | None = None
    line: int | None = None
    reason: str


class ErrorEntry(BaseModel):
    id: str | None = None
    file: str
    reason: str


class Summary(BaseModel):
    total: int = Field(default=0, description="the sum of the outcome counts below")
    passed: int = 0
    failed: int = 0
    errors: int = 0
    skipped: int = 0
    xfailed: int = 0
    xpassed: int = 0
    flaky: int = Field(default=0, description="items marked flaky_eval")
    flaky_failed: int = Field(default=0, description="flaky evals below threshold (not gating)")
    unstable: int = Field(
        default=0, description="items with a dimension whose runs straddle the threshold"
    )
    injection_suspected: int = Field(
        default=0, description="items whose judged text holds instruction-like passages"
    )
    partial_runs: int = Field(
        default=0,
        description="items with a dimension judged on fewer runs than requested (runs failed)",
    )
    not_applicable: int = Field(
        default=0,
        description="items with a dimension that does not apply (correctness without a reference)",
    )
    judged: int = Field(
        default=0,
        description="items with a judged dimension that gate the merge "
        "(passed, xpassed, failed or error; not xfail, flaky or skipped)",
    )
    pass_rate: float | None = Field(
        default=None, description="(passed + xpassed) / judged, over the judged items"
    )


class Tokens(BaseModel):
    prompt: int = 0
    completion: int = 0
    total: int = 0


class JudgeIdentity(BaseModel):
    """What produced the scores: results of different judges are not compared item by item."""

    provider: str
    llm: bool
    model: str | None = None
    base_url_host: str | None = None
    temperature: float | None = None
    prompt_version: str
    rubrics: dict[str, str] = Field(
        default_factory=dict, description="rubric version (prompt + rubric text) per dimension"
    )
    scoring: str = "text"


class Meta(BaseModel):
    provider: str
    llm: bool = Field(description="false when the heuristic judge produced the scores")
    note: str | None = None
    model: str | None
    base_url: str | None = None
    runs: int
    thresholds: dict[str, float]
    started: str
    duration_s: float
    complete: bool = Field(description="false when the session was interrupted or stopped early")
    exit_status: int | None = None
    calls: int = Field(description="judge requests made, retries included")
    judgments: int = Field(
        default=0,
        description="runs the requests scored: with --judge-sampling choices one request "
        "scores several runs (cached runs are in cached_calls)",
    )
    cached_calls: int = Field(description="judge runs served without a request")
    unattributed_calls: int = Field(
        default=0,
        description="requests in 'calls' that no item's row holds: judged ahead for items "
        "that never ran (-x, Ctrl-C), made by an attempt a rerun replaced, or retried after "
        "their item was reported (a timeout)",
    )
    timeouts: int = Field(
        default=0,
        description="requests in 'calls' that got no reply within --judge-timeout (sent again "
        "when retries were left or the server was busy)",
    )
    cut_off: int = Field(
        default=0,
        description="replies (choices) cut off at --judge-max-tokens; each is asked once more "
        "for a shorter reply",
    )
    in_flight_limit: int | None = Field(
        default=None,
        description="requests the session kept in flight at the end when the server made it "
        "keep fewer than --judge-concurrency (its slots, or slower and timed-out replies)",
    )
    tokens: Tokens
    cost_usd: float | None = Field(
        default=None, description="cost of the calls made, if the price is known"
    )
    price_source: str | None = None
    verdict: str = "mean"
    plugin_version: str
    judge: JudgeIdentity | None = None
    notices: list[str] = Field(
        default_factory=list,
        description="what the judge server made the session do differently from what was "
        "asked (a server that ignores n or takes fewer choices, returns no logprobs, cuts "
        "replies off, queues requests)",
    )

    def calls_text(self) -> str:
        """``2 made (6 runs judged), 0 cached``: the runs only where they differ from the
        requests (several choices per request, or requests that failed)."""
        runs = f" ({self.judgments} runs judged)" if self.judgments != self.calls else ""
        return f"{self.calls} made{runs}, {self.cached_calls} cached"


class ResultsFile(BaseModel):
    """The results JSON written at session end (a superset of the original harness format)."""

    meta: Meta
    results: list[ItemResult]
    skipped: list[SkippedEntry]
    errors: list[ErrorEntry]
    summary: Summary
    unstable: list[str] = Field(
        default_factory=list, description="items whose runs straddle a threshold: mark or rerun"
    )
    gates: list[Gate] = Field(default_factory=list)
    labels: dict[str, LabelAgreement] = Field(
        default_factory=dict,
        description="agreement of the judge with human labels, per dimension (5+ labelled items)",
    )
    baseline: BaselineResult | None = None
    comparison: TargetComparison | None = None


def json_schema() -> dict[str, Any]:
    """The published JSON Schema of the results file."""
    return ResultsFile.model_json_schema()

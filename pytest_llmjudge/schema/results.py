"""The results file as typed models: the published schema (``python -m pytest_llmjudge schema``).

Every later step (gates, baseline, A/B comparison, reports, writers) reads and builds these
models; nothing downstream passes dimension results around as loose dicts. The models import
nothing from the rest of the package.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import AliasChoices, BaseModel, Field, PrivateAttr

from ..basics.wording import counted
from .items import (
    NOT_DIMENSIONS,
    RESERVED_NAMES,
    CheckResult,
    DimensionResult,
    ItemResult,
    ItemUsage,
    JudgedItem,
    Outcome,
    Row,
    RowDimension,
    Scores,
    dimension_keys,
)
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
    "NOT_DIMENSIONS",
    "RESERVED_NAMES",
    "BaselineResult",
    "Change",
    "CheckResult",
    "ComparedEntry",
    "DimensionResult",
    "ErrorEntry",
    "Gate",
    "ItemResult",
    "ItemUsage",
    "JudgeIdentity",
    "JudgedItem",
    "LabelAgreement",
    "LabelDifference",
    "Meta",
    "Outcome",
    "ResultsFile",
    "Row",
    "RowDimension",
    "ScoreSummary",
    "Scores",
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
    invalid: int = Field(
        default=0,
        description="entries that failed validation and turned the session red (counted in "
        "errors too, as pytest counts them; one marked skip is counted in skipped instead)",
    )
    xfailed: int = 0
    xpassed: int = 0
    passed_on_rerun: int = Field(
        default=0,
        description="passed items (counted in passed) whose first attempt did not pass: they "
        "passed only on a rerun (pytest-rerunfailures' --reruns)",
    )
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
        description="items with a dimension judged on fewer runs than requested (runs failed or "
        "not sent: see each run's failed_runs)",
    )
    not_applicable: int = Field(
        default=0,
        description="items with a dimension that does not apply (correctness without a reference)",
    )
    not_judged_offline: int = Field(
        default=0,
        description="items with a dimension the offline heuristic judge does not score "
        "(left unjudged)",
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
    unknown_calls: int = Field(
        default=0,
        description="requests whose reply did not say its tokens (the server left usage or a "
        "count out): the counts above leave them out, and the cost is then unknown",
    )

    @classmethod
    def of(cls, prompt: int, completion: int, unknown_calls: int = 0) -> Tokens:
        """Tokens billed, and the requests whose reply did not say theirs."""
        total = prompt + completion
        return cls(prompt=prompt, completion=completion, total=total, unknown_calls=unknown_calls)


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
    grouping: str = Field(
        default="dimension",
        description="dimension: one request per dimension of an item; item: one request "
        "judged all of an item's dimensions",
    )


class BatchState(BaseModel):
    status: str = Field(description="the provider's: completed, in_progress, expired, ...")
    requests: int
    completed: int
    failed: int


class BatchSummary(BaseModel):
    """What was judged through the provider's Batch API (``llmjudge_batch``)."""

    batches: dict[str, BatchState] = Field(
        default_factory=dict, description="the batches this session collected or waited for"
    )
    calls: int = Field(description="of meta.calls, the requests answered in a batch")
    runs: int = Field(description="runs judged from those requests")
    tokens: Tokens
    cost_usd: float | None = Field(default=None, description="at the batch price")


class ServerLearned(BaseModel):
    """What the judge server showed: every path (scoring, grouping, pairwise, batch) then
    sent only requests of a shape it takes."""

    choices_cap: int | None = Field(
        default=None, description="the most choices (n) one request may ask, once refused"
    )
    slots: int | None = Field(
        default=None,
        description="parallel slots it announced (0: asked, it announced none; null: not asked)",
    )
    logprobs: bool | None = Field(
        default=None, description="whether it returned logprobs when asked (null: not asked)"
    )
    json_schema: bool | None = Field(
        default=None, description="whether it took a json_schema response format"
    )
    json_object: bool | None = Field(
        default=None,
        description="whether it took a json_object response format, asked once json_schema "
        "was refused (false: asked with none)",
    )
    ignores_n: bool | None = Field(
        default=None, description="true when it answered fewer choices than asked"
    )
    limit_param: str | None = Field(
        default=None,
        description="the name of the completion-token limit it took, once it refused "
        "max_completion_tokens (max_tokens; null: not refused)",
    )


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
    complete: bool = Field(
        description="false when the session was interrupted or stopped early, or an eval item "
        "ended without its results row (a crashed xdist worker: then an error row)"
    )
    exit_status: int | None = None
    calls: int = Field(description="judge requests made, retries included")
    judgments: int = Field(
        default=0,
        description="runs the requests scored: with llmjudge_sampling choices one request "
        "scores several runs (runs from the cache are in cached_runs)",
    )
    cached_runs: int = Field(
        # "cached_calls" until 0.2: results files written before still read
        validation_alias=AliasChoices("cached_runs", "cached_calls"),
        description="runs served without a judge call (the judge cache, or an identical run "
        "of another item; an attempt a rerun replaced and pairwise votes included)",
    )
    unattributed_calls: int = Field(
        default=0,
        description="requests in 'calls' that no item's row holds: judged ahead (or in a "
        "batch) for items that never ran (-x, Ctrl-C), a batch's that judged no run, made by "
        "an attempt a rerun replaced, or retried after their item was reported (a timeout)",
    )
    timeouts: int = Field(
        default=0,
        description="requests in 'calls' that got no reply within llmjudge_timeout (sent again "
        "when retries were left or the server was busy)",
    )
    cut_off: int = Field(
        default=0,
        description="replies (choices) cut off at llmjudge_max_tokens; each is asked once more "
        "for a shorter reply",
    )
    in_flight_limit: int | None = Field(
        default=None,
        description="requests the session kept in flight at the end when the server made it "
        "keep fewer than --judge-concurrency (its slots, or slower and timed-out replies)",
    )
    tokens: Tokens
    cost_usd: float | None = Field(
        default=None,
        description="cost of the replies received, if the price is known (the requests in "
        "'timeouts' may have been billed too: a server can finish what the client gave up on)",
    )
    price_source: str | None = None
    server: ServerLearned | None = Field(
        default=None,
        description="what the session learned of the judge server (each xdist worker learns "
        "on its own; together here); null where nothing showed it",
    )
    batch: BatchSummary | None = Field(
        default=None, description="llmjudge_batch: what went through the Batch API"
    )
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
        """``2 made (6 runs judged), 0 runs from the cache``: the runs judged only where they
        differ from the calls (several choices per call, or calls that failed)."""
        cached = f"{counted(self.cached_runs, 'run')} from the cache"
        if not self.llm:  # the offline judge sends nothing
            also = f", {cached}" if self.cached_runs else ""
            runs = counted(self.judgments, "run")
            return f"none ({runs} judged in-process by the offline judge{also})"
        runs = f" ({self.judgments} runs judged)" if self.judgments != self.calls else ""
        return f"{self.calls} made{runs}, {cached}"


class ResultsFile(BaseModel):
    """The results JSON written at session end (a superset of the original harness format)."""

    meta: Meta
    results: list[ItemResult]
    skipped: list[SkippedEntry]
    errors: list[ErrorEntry]
    invalid: list[SkippedEntry] = Field(
        default_factory=list,
        description="entries that failed validation, with file, index and reason: each turns "
        "the session red (also listed under skipped, as the original harness lists them, and "
        "under errors; one marked skip is under skipped only)",
    )
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
    #: the session's rows when they wait in a spill (``results`` is then empty: the writer
    #: streams them from it): their kept records, in results order
    _kept: list[Row] | None = PrivateAttr(default=None)

    def rows(self) -> Sequence[Row]:
        """Every item's row: the results', or the kept records of spilled ones."""
        return self.results if self._kept is None else self._kept

    def keep_rows(self, rows: list[Row]) -> None:
        """The rows of a session whose rows wait in a spill (``results`` stays empty)."""
        self._kept = rows


def json_schema() -> dict[str, Any]:
    """The published JSON Schema of the results file."""
    return ResultsFile.model_json_schema()

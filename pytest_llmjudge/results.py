"""The results file: its schema (a pydantic model), how records become it, and the writer."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Outcome = Literal["passed", "failed", "error", "skipped", "xfailed", "xpassed", "flaky_failed"]


class DimensionResult(BaseModel):
    """One dimension of one item: N runs aggregated."""

    score: float = Field(description="mean of the successful runs")
    runs: list[int] = Field(description="score of each successful run, 1-5")
    std: float = Field(description="sample standard deviation of the runs (0 for one run)")
    agreement: float = Field(description="share of runs equal to the modal score")
    threshold: float
    passed: bool
    unstable: bool = Field(description="runs fall on both sides of the threshold")
    reasoning: str = Field(description="the judge's reasoning of the run nearest the mean")
    failed_runs: list[str] = Field(
        default_factory=list, description="errors of runs that failed after retries"
    )
    calls: int = Field(0, description="judge requests made, retries included")
    cached_runs: int = Field(
        0, description="runs served without a request (judge cache or an identical earlier run)"
    )
    prompt_tokens: int = 0
    completion_tokens: int = 0
    decision: str = Field("", description="pass, fail or (confident verdict) unstable")
    ci_low: float | None = Field(None, description="95% confidence interval of the mean")
    ci_high: float | None = None
    extra_runs: int = Field(0, description="runs added by --judge-adaptive")


class ItemResult(BaseModel):
    """One eval item (or hand-written test that used the judge). One key per dimension."""

    model_config = ConfigDict(extra="allow")
    id: str
    file: str
    nodeid: str
    line: int | None = None
    outcome: Outcome
    error: str | None = Field(None, description="why the item could not be judged")
    reason: str | None = Field(None, description="skip or xfail reason")
    runs: int | None = None
    relevance: DimensionResult | None = None
    tone: DimensionResult | None = None
    flaky: bool = Field(False, description="marked flaky_eval")
    target: str | None = Field(None, description="the live bot (or replayed one) that answered")
    compare_key: str | None = Field(None, description="entry compared across targets")
    target_order: int | None = Field(None, description="position of the target in the config")
    ticket: str | None = None
    answer: str | None = Field(None, description="the target's answer that was judged")
    expected: dict[str, float] = Field(default_factory=dict)
    metadata: dict[str, Any] = Field(default_factory=dict)
    duration_s: float = 0.0


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
    total: int = 0
    passed: int = 0
    failed: int = 0
    errors: int = 0
    skipped: int = 0
    xfailed: int = 0
    xpassed: int = 0
    flaky: int = Field(0, description="items marked flaky_eval")
    flaky_failed: int = Field(0, description="flaky evals below threshold (not gating)")
    unstable: int = Field(0, description="items with a dimension whose runs straddle the threshold")
    judged: int = Field(0, description="items with at least one judged dimension")
    pass_rate: float | None = Field(
        None, description="passed / (passed + failed + errors) over judged items"
    )


class Tokens(BaseModel):
    prompt: int = 0
    completion: int = 0
    total: int = 0


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
    cached_calls: int = Field(description="judge runs served without a request")
    tokens: Tokens
    cost_usd: float | None = Field(
        None, description="cost of the calls made, if the price is known"
    )
    price_source: str | None = None
    verdict: str = "mean"
    plugin_version: str


class GateResult(BaseModel):
    name: str
    passed: bool
    actual: float | None
    required: float | None
    message: str


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
    gates: list[GateResult] = Field(default_factory=list)
    baseline: dict[str, Any] | None = None
    comparison: dict[str, Any] | None = Field(
        default=None, description="targets compared on the same entries (--judge-targets)"
    )

    def dimension_means(self) -> dict[str, float]:
        """Suite mean per dimension, as the mean gate computes it (xfail items left out)."""
        from .gates import suite_means

        return suite_means(row.model_dump() for row in self.results)


def json_schema() -> dict[str, Any]:
    """The published JSON Schema of the results file."""
    return ResultsFile.model_json_schema()


def outcome_of(passed: bool, skipped: bool, xfail: bool, error: bool) -> str:
    """The results outcome of a test report's flags (``error``: failed without a verdict)."""
    if passed:
        return "xpassed" if xfail else "passed"
    if skipped:
        return "xfailed" if xfail else "skipped"
    return "error" if error else "failed"


class ResultsCollector:
    """Gathers records (plain dicts from test reports) on the controller."""

    def __init__(self) -> None:
        self._items: dict[str, dict[str, Any]] = {}
        self._invalid: dict[str, dict[str, Any]] = {}
        self._collect_errors: dict[str, str] = {}

    @property
    def seen_anything(self) -> bool:
        return bool(self._items or self._invalid or self._collect_errors)

    def add(self, record: Mapping[str, Any], outcome: str, duration: float) -> None:
        """Keep the latest record per node id: a rerun replaces its earlier attempt."""
        nodeid = record["nodeid"]
        if record.get("kind") == "invalid":
            self._invalid[nodeid] = {**record, "outcome": outcome}
            return
        self._items[nodeid] = {**record, "outcome": outcome, "duration_s": round(duration, 4)}

    def add_collection_error(self, file: str, reason: str) -> None:
        self._collect_errors[file] = reason

    def build(self, meta: Mapping[str, Any]) -> ResultsFile:
        # File order, whatever order xdist workers finished in.
        items = sorted(
            (_item_result(r) for r in self._items.values()),
            key=lambda i: (i.file, i.line or 0, i.nodeid),
        )
        skipped = [
            SkippedEntry(
                file=r["file"],
                index=r.get("index"),
                id=r.get("id"),
                line=r.get("line"),
                reason=r["reason"],
            )
            for r in self._invalid.values()
            if r["outcome"] == "skipped"
        ]
        skipped.sort(key=lambda s: (s.file, s.index or 0))
        skipped += [
            SkippedEntry(file=i.file, id=i.id, line=i.line, reason=i.reason or "skipped")
            for i in items
            if i.outcome == "skipped"
        ]
        errors = [
            ErrorEntry(id=i.id, file=i.file, reason=i.error or "error")
            for i in items
            if i.outcome == "error"
        ]
        errors += [
            ErrorEntry(id=r.get("id"), file=r["file"], reason=r["reason"])
            for r in self._invalid.values()
            if r["outcome"] != "skipped"
        ]
        errors += [ErrorEntry(file=f, reason=reason) for f, reason in self._collect_errors.items()]
        skipped_invalid = sum(1 for r in self._invalid.values() if r["outcome"] == "skipped")
        summary = _summarize(items, skipped_invalid, len(self._invalid), len(errors))
        usage = _usage(items)
        full_meta = {**meta, **usage}
        return ResultsFile(
            meta=Meta.model_validate(full_meta),
            results=items,
            skipped=skipped,
            errors=errors,
            summary=summary,
            unstable=[i.nodeid for i in items if is_unstable(i)],
        )


def _item_result(record: Mapping[str, Any]) -> ItemResult:
    data = {k: v for k, v in record.items() if k not in ("kind", "dimensions")}
    data.update(record.get("dimensions", {}))
    return ItemResult.model_validate(data)


def item_dimensions(item: ItemResult) -> dict[str, DimensionResult]:
    """Judged dimensions of an item by name: relevance, tone and configured ones."""
    found: dict[str, DimensionResult] = {}
    for name, value in item:
        if isinstance(value, DimensionResult):
            found[name] = value
        elif name in (item.model_extra or {}) and isinstance(value, dict) and "score" in value:
            found[name] = DimensionResult.model_validate(value)
    return found


def _summarize(items: list[ItemResult], skipped_invalid: int, invalid: int, errors: int) -> Summary:
    counts = {
        o: sum(1 for i in items if i.outcome == o)
        for o in ("passed", "failed", "skipped", "xfailed", "xpassed", "flaky_failed")
    }
    counts["skipped"] += skipped_invalid
    judged = [i for i in items if item_dimensions(i)]
    gating = counts["passed"] + counts["xpassed"] + counts["failed"] + errors
    return Summary(
        total=len(items) + invalid,
        errors=errors,
        flaky=sum(1 for i in items if i.flaky),
        unstable=sum(1 for i in items if is_unstable(i)),
        judged=len(judged),
        pass_rate=round((counts["passed"] + counts["xpassed"]) / gating, 4) if gating else None,
        **counts,
    )


def is_unstable(item: ItemResult) -> bool:
    """Runs of some dimension fall on both sides of its threshold."""
    return any(d.unstable for d in item_dimensions(item).values())


def _usage(items: list[ItemResult]) -> dict[str, Any]:
    dims = [d for i in items for d in item_dimensions(i).values()]
    prompt = sum(d.prompt_tokens for d in dims)
    completion = sum(d.completion_tokens for d in dims)
    return {
        "calls": sum(d.calls for d in dims),
        "cached_calls": sum(d.cached_runs for d in dims),
        "tokens": {"prompt": prompt, "completion": completion, "total": prompt + completion},
    }


def dump(results: ResultsFile) -> str:
    return json.dumps(results.model_dump(mode="json", exclude_none=False), indent=2) + "\n"

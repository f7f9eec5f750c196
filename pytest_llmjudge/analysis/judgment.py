"""A judgment: the runs of one dimension aggregated, against its threshold (pure values)."""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ..judges.base import RunResult
from ..schema.items import DimensionResult
from .stats import confidence_interval, decide, interval_fields, mean_and_std


@dataclass(frozen=True)
class Aggregate:
    """Summary of the scores of one dimension over N runs."""

    mean: float
    std: float
    agreement: float
    straddles: bool  # some runs at/above the threshold and some below: unstable
    nearest_run: int  # index of the run whose score is nearest the mean


def aggregate(scores: Sequence[float], threshold: float) -> Aggregate:
    """Mean, sample standard deviation, agreement with the modal score, straddling.

    Agreement counts runs on the nearest whole score, so that probability-weighted scores
    (3.9 and 4.1) agree as the written ones (4 and 4) would; whole scores are unchanged."""
    if not scores:
        raise ValueError("no scores to aggregate")
    if all(type(score) is int for score in scores):  # written scores: few distinct sets
        return _whole_aggregate(tuple(scores), threshold)
    return _aggregate(scores, threshold)


def _aggregate(scores: Sequence[float], threshold: float) -> Aggregate:
    mean, std = mean_and_std(scores)
    modal_count = Counter(math.floor(s + 0.5) for s in scores).most_common(1)[0][1]
    straddles = any(s >= threshold for s in scores) and any(s < threshold for s in scores)
    nearest = min(range(len(scores)), key=lambda i: (abs(scores[i] - mean), i))
    return Aggregate(
        mean=mean,
        std=std,
        agreement=modal_count / len(scores),
        straddles=straddles,
        nearest_run=nearest,
    )


# An item's runs of whole scores take few values: each set (with its threshold) is
# aggregated once (an Aggregate is frozen: the same one serves)
_whole_aggregate = functools.lru_cache(maxsize=4096)(_aggregate)


class JudgeError(Exception):
    """A dimension could not be judged at all: every run failed.

    ``dimension`` and ``reason`` (when known) let an item fold one cause shared by several
    dimensions into one sentence."""

    def __init__(self, message: str, *, dimension: str | None = None, reason: str = "") -> None:
        super().__init__(message)
        self.dimension = dimension
        self.reason = reason or message


class NotApplicable(Exception):
    """The dimension does not apply to this item (correctness without a reference answer)."""


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """The fate of one run: a result or the error that ended it, and what it cost."""

    result: RunResult | None
    error: str | None
    calls: int  # judge calls sent, retries included (0 when served from the cache)
    cached: bool = False


@dataclass(frozen=True)
class Judgment:
    """The aggregate of N judge runs on one dimension, against its threshold."""

    dimension: str
    score: float
    runs: tuple[float, ...]  # ints when scored by text, floats when weighted by logprobs
    std: float
    agreement: float
    threshold: float
    reasoning: str
    unstable: bool
    failed_runs: tuple[str, ...] = ()
    calls: int = 0
    cached_runs: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    decision: str = ""  # pass, fail or undecided (see stats.decide); derived when empty
    ci_low: float | None = None
    ci_high: float | None = None
    extra_runs: int = 0  # added by --judge-runs N..M
    mode: str = "mean"  # the verdict rule that made ``decision``
    k: int | None = None  # k_of_n: the runs that must pass
    run_reasonings: tuple[str, ...] = ()  # every run's, in the order of ``runs``
    text_scores: tuple[int, ...] | None = None  # the written integers, when runs are weighted

    def __post_init__(self) -> None:
        if not self.decision:
            verdict = decide(self.score, self.std, len(self.runs), self.threshold, "mean")
            object.__setattr__(self, "decision", verdict)

    @property
    def passed(self) -> bool:
        return self.decision == "pass"

    @property
    def runs_passed(self) -> int:
        """Runs at or above the threshold."""
        return sum(1 for score in self.runs if score >= self.threshold)

    def uncertain(self, margin: float) -> bool:
        """Whether more runs could change the verdict (``--judge-runs N..M``): undecided, runs
        on both sides of the threshold, or a mean within ``margin`` of it."""
        if self.decision == "undecided" or self.unstable:
            return True
        return abs(self.score - self.threshold) < margin

    @functools.cached_property
    def result(self) -> DimensionResult:
        """The dimension's entry in the results (rounded for people; JSON has no infinity)."""
        return DimensionResult(
            score=round(self.score, 4),
            runs=[s if isinstance(s, int) else round(s, 4) for s in self.runs],
            text_scores=None if self.text_scores is None else list(self.text_scores),
            std=round(self.std, 4),
            agreement=round(self.agreement, 4),
            threshold=self.threshold,
            passed=self.passed,
            unstable=self.unstable,
            reasoning=self.reasoning,
            run_reasonings=list(self.run_reasonings),
            failed_runs=list(self.failed_runs),
            calls=self.calls,
            cached_runs=self.cached_runs,
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
            decision=self.decision,
            **interval_fields(self.ci_low, self.ci_high),
            extra_runs=self.extra_runs,
            runs_passed=self.runs_passed,
            runs_needed=self.k if self.mode == "k_of_n" else None,
        )


def build_judgment(
    dimension: str,
    outcomes: Sequence[RunOutcome],
    threshold: float,
    reused: Sequence[bool] = (),
    mode: str = "mean",
    extra_runs: int = 0,
    k: int | None = None,
) -> Judgment:
    """Aggregate the successful runs; raise JudgeError when none succeeded.

    ``reused`` flags runs another judgment of this session already paid for: they count as
    cached, like runs served from the disk cache, and cost no calls or tokens.
    """
    reused = list(reused) or [False] * len(outcomes)
    paid = [
        o for o, was_reused in zip(outcomes, reused, strict=True) if not was_reused and not o.cached
    ]
    results = [o.result for o in outcomes if o.result is not None]
    failures = tuple(o.error for o in outcomes if o.error is not None)
    if not results:
        reason = "; ".join(sorted(set(failures)))
        raise JudgeError(f"{dimension}: {reason}", dimension=dimension, reason=reason)
    scores = [r.score for r in results]
    agg = aggregate(scores, threshold)
    low, high = confidence_interval(agg.mean, agg.std, len(scores))
    passed = sum(1 for score in scores if score >= threshold)
    return Judgment(
        dimension=dimension,
        score=agg.mean,
        runs=tuple(scores),
        std=agg.std,
        agreement=agg.agreement,
        threshold=threshold,
        reasoning=results[agg.nearest_run].reasoning,
        run_reasonings=tuple(r.reasoning for r in results),
        text_scores=_text_scores(results),
        unstable=agg.straddles,
        failed_runs=failures,
        calls=sum(o.calls for o in paid),
        cached_runs=len(outcomes) - len(paid),
        prompt_tokens=sum(o.result.prompt_tokens for o in paid if o.result is not None),
        completion_tokens=sum(o.result.completion_tokens for o in paid if o.result is not None),
        decision=decide(agg.mean, agg.std, len(scores), threshold, mode, passed, k or 0),
        mode=mode,
        k=k,
        ci_low=low,
        ci_high=high,
        extra_runs=extra_runs,
    )


def _text_scores(results: Sequence[RunResult]) -> tuple[int, ...] | None:
    """The integers the judge wrote, when some run was weighted by logprobs (else None)."""
    if all(r.text_score is None for r in results):
        return None
    return tuple(round(r.score) if r.text_score is None else r.text_score for r in results)

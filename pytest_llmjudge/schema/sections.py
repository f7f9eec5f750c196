"""The sections of the results file about the suite as a whole: gates, the comparison with a
baseline, and the A/B comparison of targets (re-exported by ``schema``)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from .pairwise import PairwiseResult


class ScoreSummary(BaseModel):
    """A dimension's mean over its runs: what comparisons need of a dimension result."""

    score: float = Field(description="mean of the successful runs")
    runs: list[int | float] = Field(
        default_factory=list,
        description="score of each successful run, 1-5 (with llmjudge_scoring=logprobs the "
        "probability-weighted score, a float)",
    )
    std: float = Field(
        default=0.0, description="sample standard deviation of the runs (0 for one run)"
    )


class LabelDifference(BaseModel):
    """An item whose judged mean is further from its human label than the margin."""

    nodeid: str
    score: float
    label: float
    difference: float = Field(description="score - label (negative: the judge is harsher)")


class Interval(BaseModel):
    """A 95% interval and the labels a ± 0.1 one would need."""

    ci_low: float
    ci_high: float
    labels_for_0_1: int = Field(
        description="about how many labels a 95% interval of ± 0.1 would need at this estimate"
    )


class CorrectedRate(BaseModel):
    """A dimension's pass rate corrected for the judge's error rates on the labels
    (Rogan-Gladen, Lang-Reiczigel interval); corrected only with enough labels."""

    threshold: float = Field(description="the pass mark of judge and label alike")
    n: int = Field(description="judged items on this dimension (the raw rate's base)")
    raw: float = Field(description="share of them the judge passed")
    raw_ci_low: float = Field(description="Wilson 95% interval of the raw rate")
    raw_ci_high: float
    label_passes: int = Field(description="labelled items whose label is at the threshold or above")
    label_fails: int
    sensitivity: float | None = Field(description="of label passes, the share the judge passed")
    specificity: float | None = Field(description="of label fails, the share the judge failed")
    corrected: float | None = Field(
        default=None,
        description="(raw + specificity - 1) / (sensitivity + specificity - 1); null: too few "
        "labels to correct (fewer than 10 label passes or fails, or sensitivity + specificity "
        "- 1 below 0.5)",
    )
    ci_low: float | None = None
    ci_high: float | None = None


class LabelAgreement(BaseModel):
    """The judge against the human labels (``expected``) on one dimension."""

    n: int = Field(description="labelled, judged items")
    spearman: float | None = Field(description="rank correlation of judged means and labels")
    kappa: float | None = Field(description="quadratic-weighted Cohen's kappa, rounded scores")
    spearman_ci: Interval | None = Field(
        default=None, description="Fisher z with Bonett-Wright's variance (null: none)"
    )
    kappa_ci: Interval | None = Field(
        default=None, description="Fleiss-Cohen-Everitt large-sample interval (null: none)"
    )
    exact_ci: Interval | None = Field(default=None, description="Wilson interval")
    within_one_ci: Interval | None = Field(default=None, description="Wilson interval")
    pass_rate: CorrectedRate | None = Field(
        default=None, description="the pass rate corrected for the judge's errors on the labels"
    )
    exact: float = Field(description="share of items whose rounded score equals the label")
    within_one: float = Field(description="share within one point of the label")
    bias: float = Field(description="mean of score - label: negative, the judge is harsher")
    disagreements: list[LabelDifference] = Field(
        default_factory=list, description="items beyond llmjudge_label_margin, largest first (10)"
    )


class Gate(BaseModel):
    """A suite gate: what was required, what was measured, and whether it held."""

    name: str
    passed: bool = Field(
        description="whether it lets the session pass: its decision, an undecided one counted "
        "as llmjudge_gates undecided= says (point: by the estimate)"
    )
    actual: float | None = Field(description="the estimate")
    required: float | None
    message: str
    decision: Literal["pass", "fail", "undecided"] | None = Field(
        default=None,
        description="pass when the 95% interval is at or above the bound, fail when below it, "
        "undecided when it holds the bound; for regression, what its tests decided",
    )
    ci_low: float | None = Field(default=None, description="95% interval of the estimate")
    ci_high: float | None = None
    n: int | None = Field(default=None, description="the judged items it rests on")
    clusters: int | None = Field(
        default=None, description="the clusters its interval was computed over (none named: null)"
    )
    note: str | None = Field(
        default=None, description="what its interval rests on (cached or adaptively added runs)"
    )


class Change(BaseModel):
    """One item's dimension against the baseline."""

    nodeid: str
    dimension: str
    before: float
    after: float
    delta: float
    p_value: float | None = Field(
        default=None,
        description="one-sided p-value of the change in its direction (runs of both sessions; "
        "null with one run per entry, or for a check)",
    )
    verdict: Literal["improved", "regressed", "possible regression", "unchanged"] = Field(
        description="regressed: a check that passed and fails now, or a drop significant after "
        "Holm's correction (the regression gate fails on it); possible regression: a drop shown, "
        "not significant"
    )


class SuiteChange(BaseModel):
    """A dimension's mean paired change over the items in both runs, with its 95% interval."""

    items: int
    mean_delta: float
    ci_low: float | None = None
    ci_high: float | None = None
    significant: bool = Field(description="the 95% interval leaves out zero")
    p_drop: float | None = Field(
        default=None, description="one-sided p-value of a drop (null without an interval)"
    )
    regressed: bool = Field(
        default=False, description="a drop significant at the regression gate's level"
    )
    detectable: float | None = Field(
        default=None,
        description="the least drop the regression gate finds with 80% power (Miller Eq. 10)",
    )
    clusters: int | None = None
    statement: str


class BaselineResult(BaseModel):
    """This run against an earlier results file (``--judge-baseline``)."""

    source: str
    comparable: bool = Field(
        default=True, description="false when another judge made the baseline: not compared"
    )
    mismatch: str | None = Field(default=None, description="how the two judges differ")
    compared: int = Field(default=0, description="items judged in both runs")
    new: list[str] = Field(
        default_factory=list, description="items judged now, not in the baseline"
    )
    removed: list[str] = Field(
        default_factory=list,
        description="baseline items no longer in their eval file (the file was collected now)",
    )
    not_in_run: list[str] = Field(
        default_factory=list,
        description="baseline items not judged in this run: deselected (-k, -m), in a file "
        "not collected, skipped or an error",
    )
    regressed: int = Field(default=0, description="items with a dimension that regressed")
    possible: int = Field(
        default=0, description="items with a drop shown but not significant, and none regressed"
    )
    improved: int = Field(
        default=0, description="items with a dimension that improved and none that regressed"
    )
    regressed_dimensions: int = Field(default=0, description="dimensions that regressed")
    improved_dimensions: int = Field(default=0, description="dimensions that improved")

    def counts_text(self) -> str:
        """``3 items compared: 1 regressed (2 dimensions), 0 improved; 0 new, 0 removed, ...``"""
        dims = self.regressed_dimensions
        detail = f" ({dims} dimension{'s' * (dims != 1)})" if dims != self.regressed else ""
        possible = f"{self.possible} possible regression{'s' * (self.possible != 1)}, "
        return (
            f"{self.compared} item{'s' * (self.compared != 1)} compared: {self.regressed} "
            f"regressed{detail}, "
            + possible
            * bool(self.possible)
            + f"{self.improved} improved; {len(self.new)} new, "
            f"{len(self.removed)} removed, {len(self.not_in_run)} not in this run"
        )

    suite: dict[str, SuiteChange] = Field(default_factory=dict)
    changes: list[Change] = Field(
        default_factory=list, description="changes that are not 'unchanged'"
    )
    note: str | None = Field(
        default=None, description="what its intervals rest on (cached or adaptively added runs)"
    )


class TargetScores(BaseModel):
    """One target's answer to one entry; one key per dimension, as in a results row."""

    model_config = ConfigDict(extra="allow")
    __pydantic_extra__: dict[str, ScoreSummary] = Field(init=False)

    outcome: str | None = None
    answer: str | None = None
    error: str | None = None
    combined: float | None = Field(default=None, description="mean over dimensions of the means")
    checks_passed: int = Field(default=0, description="deterministic checks this answer passed")
    checks: int = Field(default=0, description="deterministic checks that decided for it")

    @property
    def dimensions(self) -> dict[str, ScoreSummary]:
        return dict(self.model_extra or {})


class ComparedEntry(BaseModel):
    """One entry answered by several targets, and which answer won."""

    key: str
    id: str | None = None
    ticket: str | None = None
    targets: dict[str, TargetScores]
    dimensions: list[str] = Field(
        default_factory=list, description="the dimensions this entry is compared on"
    )
    left_out: list[str] = Field(
        default_factory=list,
        description="dimensions that do not apply to this entry (no reference): not compared",
    )
    winner: str | None = Field(default=None, description="a target, 'tie', or null when undecided")
    note: str | None = None
    majority_winner: str | None = None
    run_winners: list[str] = Field(default_factory=list)
    agreement: float | None = None
    disagreement: bool = False


class TargetOverall(BaseModel):
    wins: int
    losses: int
    ties: int
    win_pct: float | None = Field(description="of the entries compared; null when none was")
    loss_pct: float | None
    tie_pct: float | None
    mean: dict[str, float]
    entries: int = Field(default=0, description="entries this target answered")
    judged: int = Field(default=0, description="of those, entries judged on every dimension")
    not_judged: str | None = Field(
        default=None, description="why no entry of this target was judged (null when one was)"
    )
    checks_passed: int = Field(default=0, description="deterministic checks passed, all entries")
    checks: int = Field(default=0, description="deterministic checks that decided, all entries")


class Significance(BaseModel):
    """The paired difference of two targets on one dimension (or 'combined')."""

    a: str
    b: str
    dimension: str
    items: int
    mean_difference: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    significant: bool = False
    statement: str


class TargetComparison(BaseModel):
    """Targets compared on the same entries (``llmjudge_targets``)."""

    targets: list[str]
    tie_tolerance: float
    entries: list[ComparedEntry]
    compared: int
    disagreements: list[str]
    overall: dict[str, TargetOverall]
    significance: list[Significance]
    pairwise: PairwiseResult | None = Field(
        default=None, description="the judge's side-by-side comparisons (llmjudge_targets pairwise)"
    )

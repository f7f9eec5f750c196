"""The pairwise part of an A/B comparison, as the results file holds it."""

from __future__ import annotations

from pydantic import BaseModel, Field


class OrderVotes(BaseModel):
    """The runs of one order of a pair: the target shown first, its votes, their majority."""

    first: str = Field(description="the target whose answer was shown first (as A)")
    votes: dict[str, int] = Field(description="runs per verdict, by target name, and 'tie'")
    majority: str = Field(description="a target, or 'tie' (no majority, or ties most)")


class PairwiseEntry(BaseModel):
    """One entry, one pair of targets, one dimension."""

    key: str
    id: str | None = None
    a: str
    b: str
    dimension: str
    orders: list[OrderVotes] = Field(default_factory=list)
    verdict: str | None = Field(
        default=None,
        description="a target when it won in both orders; 'tie' when the orders disagree or "
        "the judge said tie; null when it could not be judged",
    )
    orders_agree: bool | None = None
    error: str | None = None


class PairwiseSummary(BaseModel):
    """A pair of targets on one dimension over every entry, from ``a``'s side."""

    a: str
    b: str
    dimension: str
    entries: int = Field(description="entries judged in both orders")
    wins: int
    losses: int
    ties: int
    win_rate: float | None = Field(description="a's wins plus half its ties, per entry")
    ci_low: float | None = Field(default=None, description="95% Wilson interval of win_rate")
    ci_high: float | None = None
    position_consistency: float | None = Field(
        default=None, description="share of entries whose two orders agreed"
    )
    first_shown_share: float | None = Field(
        default=None, description="share of decided runs won by the answer shown first"
    )
    unreliable: bool = Field(
        default=False,
        description="position consistency below 70%: the judge cannot tell "
        "these answers apart reliably",
    )
    statement: str


class PairwiseResult(BaseModel):
    """Every pairwise comparison of the session (``llmjudge_targets pairwise``)."""

    runs: int
    entries: list[PairwiseEntry]
    pairs: list[PairwiseSummary]

"""Pairwise judging at the end of a session: every entry's targets' answers judged side by
side, on the controller (an entry's answers may come from different xdist workers), through
the session's judge, cache and limits; counted like any judge request."""

from __future__ import annotations

from collections.abc import Coroutine, Sequence
from typing import Any

from ..analysis.pairwise import PairVotes, pairwise_result
from ..judges.base import Totals
from ..judging.pairwise import PairOutcome, judge_pairs, pair_requests
from ..judging.runs import RunExecutor
from ..schema.items import ItemResult
from ..schema.pairwise import PairwiseResult
from .state import SessionState


def judge_pairwise(
    state: SessionState, rows: Sequence[ItemResult], earlier: Totals
) -> tuple[PairwiseResult | None, Totals]:
    """The pairwise section of the comparison, and what its requests cost; ``earlier``: what
    the session's items sent and spent, which comes off ``llmjudge_budget``."""
    settings = state.settings
    usage = Totals()
    requests = pair_requests(rows, settings)
    if not requests:
        return None, usage
    runs = settings.runs
    state.adopt_learned(earlier.server.learned)  # on xdist's controller: what the workers learned

    def pairs(executor: RunExecutor) -> Coroutine[Any, Any, list[PairOutcome]]:
        executor.budget.count_earlier(earlier.billing)
        return judge_pairs(executor, requests, runs, usage.billing)

    try:
        outcomes = state.engine().on_loop(pairs)
    finally:
        # the items' engine closed before: this one asked only the pairs; what it learned of
        # the server (the profile both engines share) goes to the results with its usage
        total = state.close()
        usage.server.learned = total.server.learned if total is not None else {}
    votes = [_votes(outcome) for outcome in outcomes]
    return pairwise_result(votes, runs), usage


def _votes(outcome: PairOutcome) -> PairVotes:
    request = outcome.request
    return PairVotes(
        request.key,
        request.entry_id,
        request.a,
        request.b,
        request.dimension.name,
        outcome.a_first,
        outcome.b_first,
        outcome.error,
    )

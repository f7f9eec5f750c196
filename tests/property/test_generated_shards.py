"""Generated shardings: a suite judged once, its items cut into shards in any way that keeps an
entry's answers together (as ``-k`` slices or pytest-split by entry do), and the shards'
results merged: the merge states the one session's verdict, counts, label agreement, A/B and
pairwise comparison and gates, whatever the cut."""

from __future__ import annotations

import json
import textwrap
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_llmjudge.outputs.merge import SuiteGates, merge_results
from pytest_llmjudge.schema.results import ResultsFile

from helpers import read_results, run, write_evals

ENTRIES = 8
ADDED = ("calls", "judgments", "cached_runs", "unattributed_calls", "timeouts", "cut_off")
GATES = SuiteGates(min_pass_rate=0.5, min_agreement={"spearman": 0.1}, min_win_rate={"good": 0.5})


@pytest.fixture(scope="module")
def session() -> dict[str, Any]:
    """The one session's results, judged by the first example (pytester is the test's)."""
    return {}


def _one_session(pytester: pytest.Pytester) -> dict[str, Any]:
    """Two targets answering in Python (good and terse), labels, checks, pairwise; judged
    offline (no server): the whole suite in one session."""
    pytester.makeconftest(
        textwrap.dedent(
            """
            import pytest

            @pytest.fixture
            def llmjudge_response(eval_case, llmjudge_target):
                if llmjudge_target == "good":
                    return f"Restart the router, then reset the link for {eval_case.ticket}."
                return "Please contact support." if eval_case.id in ("e1", "e4") else "Restart it."
            """
        )
    )
    entries = [
        {
            "id": f"e{i}",
            "ticket": f"My router link drops every hour {i}",
            "expected": {"relevance": 1 + i % 5},
            "checks": [{"max_words": 20}],
        }
        for i in range(ENTRIES)
    ]
    write_evals(pytester, entries)
    targets = "llmjudge_targets=good terse\npairwise=true"
    run(pytester, "evals/", "-o", targets, "--judge-provider=heuristic").assert_outcomes(
        passed=ENTRIES + 6, failed=2
    )
    results = read_results(pytester)
    assert results["labels"]["relevance"]["n"] == 2 * ENTRIES  # something to agree on
    assert len(results["comparison"]["pairwise"]["entries"]) == 2 * ENTRIES  # x dimensions
    return results


def _sorted(comparison: dict[str, Any] | None) -> Any:
    if comparison is None or comparison.get("pairwise") is None:
        return comparison
    pairwise = comparison["pairwise"]
    order = {name: sorted(pairwise[name], key=json.dumps) for name in ("entries", "pairs")}
    return {**comparison, "pairwise": {**pairwise, **order}}


def _shard(whole: dict[str, Any], keys: set[str], first: bool) -> ResultsFile:
    """The part of the session that holds these entries (the first shard keeps the session's
    counts that no row holds: its invalid entries, and meta's counts; the others none)."""
    shard = json.loads(json.dumps(whole))
    shard["results"] = [r for r in whole["results"] if r["compare_key"] in keys]
    pairwise = (shard.get("comparison") or {}).get("pairwise")
    if pairwise is not None:
        pairwise["entries"] = [e for e in pairwise["entries"] if e["key"] in keys]
    if not first:
        shard["meta"] |= {name: 0 for name in ADDED}
        shard["meta"]["tokens"] = {"prompt": 0, "completion": 0, "total": 0, "unknown_calls": 0}
        shard["skipped"], shard["errors"], shard["invalid"] = [], [], []
    return ResultsFile.model_validate(shard)


@settings(
    max_examples=40, derandomize=True, database=None, deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)  # fmt: skip
@given(cut=st.lists(st.integers(0, 3), min_size=ENTRIES, max_size=ENTRIES))
def test_any_sharding_by_entry_merges_into_the_one_sessions_verdict(
    pytester: pytest.Pytester, session: dict[str, Any], cut: list[int]
) -> None:
    if not session:
        session.update(_one_session(pytester))
    whole = ResultsFile.model_validate(session)
    entries = sorted({row["compare_key"] for row in session["results"]})
    shards = [
        {key for key, shard in zip(entries, cut, strict=True) if shard == n}
        for n in sorted(set(cut))
    ]
    parts = [(f"shard-{n}.json", _shard(session, keys, n == 0)) for n, keys in enumerate(shards)]
    merged = merge_results(parts, GATES)
    alone = merge_results([("whole.json", whole)], GATES)  # the session, with the same gates
    assert merged.summary == whole.summary == alone.summary
    assert merged.labels == whole.labels
    assert _sorted(merged.model_dump()["comparison"]) == _sorted(whole.model_dump()["comparison"])
    assert [g.model_dump() for g in merged.gates] == [g.model_dump() for g in alone.gates]
    assert merged.meta.exit_status == alone.meta.exit_status
    for name in ADDED:
        assert getattr(merged.meta, name) == getattr(whole.meta, name)

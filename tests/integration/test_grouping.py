"""llmjudge_grouping=item: one request judges every dimension of an item, against the local
server (which answers grouped schemas with a scripted score per dimension)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from helpers import by_id, entry, read_results, run, write_evals
from judge_server import JudgeServer

CACHE = ("-p", "cacheprovider")


def _entries() -> list[dict[str, Any]]:
    return [
        entry("a", "Raise the heap. {{relevance=5,4,5 tone=4}}"),
        entry("b", "Whatever. {{relevance=2,3,2 tone=5,1,2}}", ticket="t2"),
        entry("c", "Restart it. {{relevance=4 tone=4}}", ticket="t3", thresholds={"tone": 4.5}),
    ]


def _outcomes(pytester: pytest.Pytester) -> dict[str, Any]:
    rows = by_id(read_results(pytester))
    return {
        id: (row["outcome"], {d: row[d]["runs"] for d in ("relevance", "tone")})
        for id, row in rows.items()
    }


def test_one_request_per_item_gives_the_scores_and_verdicts_of_per_dimension_requests(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, _entries())
    run(pytester, "evals/", "--judge-runs=3").assert_outcomes(passed=1, failed=2)
    per_dimension = _outcomes(pytester)
    assert judge_server.count() == 3 * 2  # one request (3 choices) per item and dimension
    judge_server.reset()

    result = run(pytester, "evals/", "--judge-runs=3", "-o", "llmjudge_grouping=item")
    result.assert_outcomes(passed=1, failed=2)
    assert _outcomes(pytester) == per_dimension  # the same runs, scores and outcomes
    # halved: one request per item, its 3 choices each scoring both dimensions
    assert judge_server.count() == 3
    assert {r.dimension for r in judge_server.requests} == {"relevance+tone"}
    assert {r.n for r in judge_server.requests} == {3}
    sent = judge_server.requests[0].body
    schema = sent["response_format"]["json_schema"]["schema"]
    assert schema["required"] == ["relevance", "tone"]
    assert schema["properties"]["tone"]["required"] == ["reasoning", "score"]
    system = sent["messages"][0]["content"]
    assert "Rubric for relevance" in system and "Rubric for tone" in system
    assert sent["max_completion_tokens"] == 2 * 256  # room for a reasoning per dimension

    results = read_results(pytester)
    meta = results["meta"]
    assert (meta["calls"], meta["judgments"]) == (3, 3 * 2 * 3)
    assert meta["tokens"]["prompt"] == 100 * 3  # the prompt is billed once per item
    assert meta["tokens"]["completion"] == 20 * 2 * 3 * 3  # a reply per dimension and run
    assert meta["judge"]["grouping"] == "item"
    rows = by_id(results)
    # the request is charged to the item's first dimension, its runs to each
    assert rows["b"]["usage"]["calls"] == 1 and rows["b"]["usage"]["judgments"] == 6
    assert rows["b"]["relevance"]["calls"] == 1 and rows["b"]["tone"]["calls"] == 0
    assert rows["b"]["tone"]["reasoning"].startswith("scripted tone")
    assert "tone 4.00 < 4.5" in result.stdout.str()  # an entry's own threshold still holds


def test_the_cache_keeps_grouped_and_separate_runs_apart_and_loses_neither(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, _entries())
    run(pytester, "evals/", "--judge-runs=2", *CACHE).assert_outcomes(passed=1, failed=2)
    assert judge_server.count() == 6
    judge_server.reset()
    # grouped runs are not taken from the per-dimension ones: asked anew, once per item
    run(pytester, "evals/", "--judge-runs=2", "-o", "llmjudge_grouping=item", *CACHE)
    assert judge_server.count() == 3
    judge_server.reset()
    # each mode finds its own runs again: nothing is asked
    run(pytester, "evals/", "--judge-runs=2", *CACHE).assert_outcomes(passed=1, failed=2)
    run(pytester, "evals/", "--judge-runs=2", "-o", "llmjudge_grouping=item", *CACHE)
    assert judge_server.count() == 0
    assert read_results(pytester)["meta"]["cached_runs"] == 3 * 2 * 2
    # more runs: only the missing run indexes are asked, one request for both dimensions
    run(pytester, "evals/", "--judge-runs=3", "-o", "llmjudge_grouping=item", *CACHE)
    assert judge_server.count() == 3 and {r.n for r in judge_server.requests} == {1}


def test_logprobs_weight_each_dimension_at_its_own_score_token(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, [entry("a", "Fine. {{relevance=4 tone=3 probs=3:0.5,4:0.5}}")])
    result = run(
        pytester, "evals/", "-o", "llmjudge_grouping=item", "-o", "llmjudge_scoring=logprobs",
        "--judge-threshold=relevance=1,tone=1",
    )  # fmt: skip
    result.assert_outcomes(passed=1)
    assert judge_server.count() == 1 and judge_server.requests[0].body["logprobs"] is True
    row = by_id(read_results(pytester))["a"]
    assert row["relevance"]["runs"] == [3.5] and row["tone"]["runs"] == [3.5]
    assert row["relevance"]["text_scores"] == [4] and row["tone"]["text_scores"] == [3]
    assert read_results(pytester)["meta"]["judge"]["scoring"] == "logprobs"


def test_a_reply_missing_a_dimension_is_asked_again(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    from judge_server import Reply

    def script(request: Any) -> Any:
        if request.nth == 0:  # the first grouped request: only relevance answered
            return Reply(content=json.dumps({"relevance": {"reasoning": "ok", "score": 4}}))
        return Reply(score=4, reasoning=f"scripted {request.dimension}")

    judge_server.script = script
    write_evals(pytester, [entry("a")])
    run(
        pytester, "evals/", "-o", "llmjudge_grouping=item", "-o", "llmjudge_retry_wait=0"
    ).assert_outcomes(passed=1)
    assert judge_server.count() == 2
    row = by_id(read_results(pytester))["a"]
    assert row["usage"]["calls"] == 2 and row["relevance"]["runs"] == [4]


def test_dry_run_counts_one_request_per_item(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, _entries())
    result = run(
        pytester, "evals/", "--judge-runs=3", "-o", "llmjudge_grouping=item", "--judge-dry-run"
    )
    result.stdout.fnmatch_lines(
        ["*3 eval items: 18 runs to judge, 0 in the judge cache, 18 to ask*", "*judge calls: 3,*"]
    )
    assert judge_server.count() == 0


def test_an_item_is_grouped_over_the_dimensions_that_apply_to_it(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    with_reference = entry("r", "Raise the heap. {{correctness=5}}", reference="Set -Xmx2g.")
    write_evals(pytester, [with_reference, entry("plain", ticket="t2")])
    args = (
        "-o",
        "llmjudge_dimensions=correctness",
        "-o",
        "llmjudge_grouping=item",
        "-o",
        "llmjudge_sampling=calls",
    )
    run(pytester, "evals/", "--judge-runs=2", *args).assert_outcomes(passed=2)
    # one request per run with llmjudge_sampling=calls, each judging the item's dimensions
    assert sorted(r.dimension for r in judge_server.requests) == [
        *["correctness+relevance+tone"] * 2,
        *["relevance+tone"] * 2,
    ]
    assert {r.n for r in judge_server.requests} == {1}
    grouped = [r for r in judge_server.requests if r.dimension.startswith("correctness")]
    assert grouped[0].block("reference") == "Set -Xmx2g."
    assert "for correctness only" in grouped[0].body["messages"][0]["content"]
    rows = by_id(read_results(pytester))
    assert rows["r"]["correctness"]["runs"] == [5, 5] and "correctness" not in rows["plain"]


def test_the_heuristic_judge_has_no_requests_to_group(pytester: pytest.Pytester) -> None:
    write_evals(pytester, _entries()[:1])
    run(pytester, "evals/", "--judge-provider=heuristic", "-o", "llmjudge_grouping=item")
    assert read_results(pytester)["meta"]["judge"]["grouping"] == "dimension"


def test_a_baseline_judged_per_dimension_is_another_judge(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, _entries()[:1])
    run(pytester, "evals/", "--judge-output=main.json").assert_outcomes(passed=1)
    args = (
        "-o",
        "llmjudge_grouping=item",
        "--judge-baseline=main.json",
        "-o",
        "llmjudge_strict=baseline",
    )
    result = run(pytester, "evals/", *args)
    assert result.ret != 0
    result.stderr.fnmatch_lines(["*judged by another judge (grouping dimension != item)*"])

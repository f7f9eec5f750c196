"""llmjudge_scoring=logprobs: G-Eval's probability-weighted score from the score token's
alternatives, as the local server returns them; the fallback when a server has none."""

from __future__ import annotations

import pytest

from helpers import by_id, entry, read_results, run, write_evals
from judge_server import JudgeRequest, JudgeServer, Reply, directive_script

LOGPROBS = "-o", "llmjudge_scoring=logprobs"


def test_the_weighted_score_is_the_mean_under_the_servers_distribution(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, [entry("a", "x {{probs=3:0.2,4:0.7,5:0.1}}")])
    run(pytester, "evals/", *LOGPROBS, "--judge-runs=2").assert_outcomes(passed=1)
    by_hand = 3 * 0.2 + 4 * 0.7 + 5 * 0.1  # 3.9
    relevance = by_id(read_results(pytester))["a"]["relevance"]
    assert relevance["runs"] == [pytest.approx(by_hand, abs=1e-4)] * 2
    assert relevance["text_scores"] == [4, 4]
    assert relevance["score"] == pytest.approx(by_hand, abs=1e-4)
    assert relevance["agreement"] == 1.0
    request = judge_server.requests[0]
    assert (request.body["logprobs"], request.body["top_logprobs"], request.n) == (True, 5, 2)
    meta = read_results(pytester)["meta"]
    assert meta["judge"]["scoring"] == "logprobs" and meta["notices"] == []
    assert meta["calls"] == judge_server.count() == 2  # the same requests as text scoring


def test_other_tokens_are_left_out_and_the_digits_renormalised(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    # 0.1 of the mass sits on a token that is not a score
    write_evals(pytester, [entry("a", "x {{tone=4 probs=2:0.3,4:0.6}}")])
    run(pytester, "evals/", *LOGPROBS).assert_outcomes(failed=1)
    tone = by_id(read_results(pytester))["a"]["tone"]
    assert tone["runs"] == [pytest.approx((2 * 0.3 + 4 * 0.6) / 0.9, abs=1e-4)]  # 3.3333
    assert tone["text_scores"] == [4]


def test_the_threshold_applies_to_the_weighted_score(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    # the model wrote 4, but nearly half its belief was on 3: 3.45 < 3.5
    write_evals(pytester, [entry("a", "x {{probs=3:0.55,4:0.45}}")])
    result = run(pytester, "evals/", *LOGPROBS)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*relevance 3.45 < 3.5 (1 run: 3.45)*"])
    judge_server.reset()
    run(pytester, "evals/").assert_outcomes(passed=1)  # text scoring: the written 4


def test_a_server_without_logprobs_falls_back_to_text_once(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    judge_server.logprobs_supported = False
    write_evals(pytester, [entry(f"e{i}", ticket=f"t{i}") for i in range(3)])
    args = ("evals/", *LOGPROBS, "--judge-concurrency=1", "-o", "llmjudge_log_dir=logs")
    result = run(pytester, *args)
    result.assert_outcomes(passed=3)
    rows = by_id(read_results(pytester))
    assert all(row["relevance"]["runs"] == [4] for row in rows.values())
    assert all(row["relevance"]["text_scores"] is None for row in rows.values())
    asked = [bool(r.body.get("logprobs")) for r in judge_server.requests]
    # the requests sent before the first reply came back asked; none after it
    assert asked[0] and not any(asked[asked.index(False) :]) and asked.count(True) <= 2
    meta = read_results(pytester)["meta"]
    assert meta["judge"]["scoring"] == "text"
    assert meta["notices"] == [
        "6 of 6 runs are scored by the integer the judge wrote, not by logprobs: the server "
        "returned no logprobs (6)"
    ]
    result.stdout.fnmatch_lines(["note: 6 of 6 runs are scored by the integer*"])
    log = next((pytester.path / "logs").glob("*.log")).read_text()
    assert log.count("returned no logprobs") == 1


def test_a_server_that_refuses_logprobs_falls_back_to_text_once(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    # a 400 naming the parameter (as Groq and some OpenAI models answer), not a reply
    judge_server.unsupported_params = {"logprobs", "top_logprobs"}
    write_evals(pytester, [entry(f"e{i}", ticket=f"t{i}") for i in range(2)])
    args = ("evals/", *LOGPROBS, "--judge-concurrency=1", "-o", "llmjudge_log_dir=logs")
    run(pytester, *args).assert_outcomes(passed=2)
    asked = [bool(r.body.get("logprobs")) for r in judge_server.requests]
    assert asked == [True] + [False] * 4  # refused once, then the runs without them
    meta = read_results(pytester)["meta"]
    assert (meta["calls"], meta["judgments"], meta["judge"]["scoring"]) == (5, 4, "text")
    assert meta["server"]["logprobs"] is False
    log = next((pytester.path / "logs").glob("*.log")).read_text()
    assert log.count("refused logprobs: llmjudge_scoring=logprobs falls back to text") == 1


def test_weighted_runs_are_cached_apart_from_text_runs(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, [entry("a", "x {{probs=4:0.5,5:0.5}}")])
    cache = ("-p", "cacheprovider")
    run(pytester, "evals/", *cache).assert_outcomes(passed=1)
    run(pytester, "evals/", *LOGPROBS, *cache).assert_outcomes(passed=1)
    assert judge_server.count() == 4  # a text run in the cache is not a weighted one
    judge_server.reset()
    run(pytester, "evals/", *LOGPROBS, *cache).assert_outcomes(passed=1)
    assert judge_server.count() == 0
    relevance = by_id(read_results(pytester))["a"]["relevance"]
    assert relevance["runs"] == [4.5] and relevance["text_scores"] == [4]
    assert relevance["cached_runs"] == 1


def test_a_fence_stripped_from_the_content_but_kept_in_the_tokens_is_walked_over(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    # llama.cpp strips a leading ```json fence from message.content, not from the logprobs
    judge_server.strip_fence = True
    write_evals(pytester, [entry("a", "x {{probs=3:0.5,4:0.5}}")])
    run(pytester, "evals/", *LOGPROBS, "--judge-runs=3").assert_outcomes(passed=1)
    relevance = by_id(read_results(pytester))["a"]["relevance"]
    assert relevance["runs"] == [pytest.approx(3.5)] * 3
    # no run fell back to the written integer (a loaded machine may add a server notice)
    notices = read_results(pytester)["meta"]["notices"]
    assert not any("not by logprobs" in notice for notice in notices), notices


def test_the_notice_counts_each_cause_apart(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    # "a": every digit's alternatives hold only that digit (the server was certain);
    # "b": weighted; "c": the score is not in the tokens (a reply that is not JSON at first)
    def script(request: JudgeRequest) -> Reply:
        if "{{c}}" in request.response:
            return Reply(content='Score: 4. {"score": 4, "reasoning": "r"}')
        return directive_script(request)

    judge_server.script = script
    write_evals(
        pytester,
        [entry("a", "x"), entry("b", "y {{probs=3:0.5,4:0.5}}"), entry("c", "z {{c}}")],
    )
    run(pytester, "evals/", *LOGPROBS).assert_outcomes(passed=3)
    meta = read_results(pytester)["meta"]
    assert meta["judge"]["scoring"] == "mixed"
    assert meta["notices"] == [
        "4 of 6 runs are scored by the integer the judge wrote, not by logprobs: the score "
        "digit's alternatives hold no other digit (4)"
    ]  # "c": 'Score: 4.' is prose; the JSON's "score": 4 is found after it

"""Pairwise (``pairwise=true`` in llmjudge_targets): the judge compares two targets' answers
side by side, in both orders; a win needs both orders, a position-biased judge yields ties,
the win rate has an interval and can gate the session; requests are counted as the server
counts them, cached, and the same under xdist."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from bot_server import BotServer
from helpers import read_results, run, run_subprocess, write_evals
from judge_server import JudgeServer

pytestmark = pytest.mark.usefixtures("judge_server")
ENTRIES = [{"id": f"t{i}", "ticket": f"Ticket {i}"} for i in range(10)]


@pytest.fixture
def bots() -> Iterator[Callable[[str, str], tuple[str, str]]]:
    """Two bots answering with the given directives; the targets table for them, pairwise."""
    started: list[BotServer] = []

    def start(better: str, worse: str) -> tuple[str, str]:
        for directive in (better, worse):
            started.append(BotServer(_answering(directive)))
        return "-o", f"llmjudge_targets=v2={started[-2].url} v1={started[-1].url} pairwise=true"

    yield start
    for bot in started:
        bot.stop()


def _answering(directive: str) -> Callable[[str], tuple[int, Any]]:
    return lambda ticket: (200, {"answer": f"Answer to {ticket} {{{{{directive}}}}}"})


def _pairs(pytester: pytest.Pytester) -> dict[str, dict[str, Any]]:
    pairwise = read_results(pytester)["comparison"]["pairwise"]
    return {p["dimension"]: p for p in pairwise["pairs"]}


def test_a_clearly_better_target_wins_with_an_interval_above_one_half(
    pytester: pytest.Pytester,
    judge_server: JudgeServer,
    bots: Callable[[str, str], tuple[str, str]],
) -> None:
    targets = bots("relevance=5 tone=5", "relevance=4 tone=4")
    write_evals(pytester, ENTRIES)
    result = run(pytester, "evals/", *targets, "--judge-runs=3")
    result.assert_outcomes(passed=20)
    result.stdout.fnmatch_lines(
        [
            "  pairwise (answers side by side, both orders, 3 runs each; a win needs both orders):",
            "    v2 vs v1 on relevance: v2's win rate 100% (95% CI 72%-100%; 10 wins, 0 losses, "
            "0 ties of 10); both orders agreed on 100%, the first-shown answer won 50% of runs",
        ]
    )
    relevance = _pairs(pytester)["relevance"]
    assert relevance["ci_low"] > 0.5 and relevance["position_consistency"] == 1.0
    entry = read_results(pytester)["comparison"]["pairwise"]["entries"][0]
    assert entry["verdict"] == "v2" and entry["orders_agree"] is True
    assert [o["first"] for o in entry["orders"]] == ["v2", "v1"]
    assert entry["orders"][1]["votes"] == {"v1": 0, "v2": 3, "tie": 0}
    # 20 items x 2 dimensions, then 10 entries x 2 dimensions x 2 orders (3 runs as choices)
    meta = read_results(pytester)["meta"]
    assert judge_server.count() == 40 + 40 == meta["calls"]
    assert meta["judgments"] == 20 * 2 * 3 + 10 * 2 * 2 * 3
    pair_requests = [r for r in judge_server.requests if r.pair is not None]
    assert len(pair_requests) == 40 and all(r.n == 3 for r in pair_requests)


def test_a_judge_biased_to_the_first_answer_yields_ties_not_a_winner(
    pytester: pytest.Pytester,
    judge_server: JudgeServer,
    bots: Callable[[str, str], tuple[str, str]],
) -> None:
    judge_server.favour_first = 0.9
    write_evals(pytester, ENTRIES)
    targets = bots("relevance=5 tone=5", "relevance=4 tone=4")
    run(pytester, "evals/", *targets, "--judge-runs=3").stdout.fnmatch_lines(
        ["    v2 vs v1 on relevance: *both orders agreed on *: the judge cannot tell these apart "
         "reliably"]
    )  # fmt: skip
    relevance = _pairs(pytester)["relevance"]
    assert relevance["unreliable"] and relevance["position_consistency"] < 0.7
    assert relevance["ties"] > relevance["wins"]  # no false winner from the position
    assert relevance["first_shown_share"] > 0.8
    assert relevance["ci_low"] < 0.5 < relevance["ci_high"]


def test_the_win_rate_gate(
    pytester: pytest.Pytester, bots: Callable[[str, str], tuple[str, str]]
) -> None:
    targets = bots("relevance=5 tone=5", "relevance=4 tone=4")
    write_evals(pytester, ENTRIES[:6])
    passing = run(pytester, "evals/", *targets, "-o", "llmjudge_gates=win_rate.v2=0.5")
    passing.assert_outcomes(passed=12)
    assert passing.ret == pytest.ExitCode.OK
    failing = run(pytester, "evals/", *targets, "-o", "llmjudge_gates=win_rate.v1=0.5")
    assert failing.ret == pytest.ExitCode.TESTS_FAILED  # every item passed: the gate failed
    failing.stdout.fnmatch_lines(
        [
            "gate FAILED: pairwise win rate of v1 >= 0.5: 0.00 over v2 on relevance (95% CI "
            "0.00-0.39); 0.00 over v2 on tone (95% CI 0.00-0.39)"
        ]
    )
    gate = read_results(pytester)["gates"][-1]
    assert (gate["name"], gate["passed"], gate["actual"]) == ("win_rate.v1", False, 0.0)
    # one target selected: nothing was compared, so the gate fails closed (never unsaid)
    one = run(pytester, "evals/", *targets, "-o", "llmjudge_gates=win_rate.v2=0.5", "-k", "v2")
    assert one.ret == pytest.ExitCode.TESTS_FAILED
    one.stdout.fnmatch_lines(["gate FAILED: pairwise win rate of v2 >= 0.5: no pairwise *"])
    alone = run(pytester, "evals/", "-o", "llmjudge_gates=win_rate.v1=0.5")
    assert alone.ret == pytest.ExitCode.USAGE_ERROR
    alone.stderr.fnmatch_lines(
        ["*llmjudge_gates win_rate needs pairwise=true in llmjudge_targets*"]
    )


def test_counts_and_verdicts_under_xdist_and_a_cached_rerun(
    pytester: pytest.Pytester,
    judge_server: JudgeServer,
    bots: Callable[[str, str], tuple[str, str]],
) -> None:
    targets = bots("relevance=5 tone=4", "relevance=4,5 tone=5")
    write_evals(pytester, ENTRIES[:6])
    options = ("evals/", *targets, "--judge-runs=2", "-o", "llmjudge_cache=c")
    run(pytester, *options, "--judge-no-cache", "-p", "no:xdist")
    plain = read_results(pytester)["comparison"]["pairwise"]
    judge_server.reset()
    distributed = run_subprocess(pytester, *options, "-n", "2")
    distributed.assert_outcomes(passed=12)
    results = read_results(pytester)
    assert results["comparison"]["pairwise"]["pairs"] == plain["pairs"]
    assert results["meta"]["calls"] == judge_server.count() == 12 * 2 + 6 * 2 * 2
    judge_server.reset()
    again = run(pytester, *options)
    # every score (12 items x 2 dimensions x 2 runs) and every vote (6 entries x 2 dimensions
    # x 2 orders x 2 runs) from the cache, and counted as such
    again.stdout.fnmatch_lines(["judge calls: 0 made, 96 runs from the cache*"])
    assert judge_server.count() == 0 and read_results(pytester)["meta"]["cached_runs"] == 96
    assert read_results(pytester)["comparison"]["pairwise"]["pairs"] == plain["pairs"]


def test_the_heuristic_judge_and_the_dry_run(
    pytester: pytest.Pytester, bots: Callable[[str, str], tuple[str, str]]
) -> None:
    targets = bots("x", "y")  # the same words but for the directive: the same heuristic scores
    write_evals(pytester, ENTRIES[:3])
    dry = run(pytester, "evals/", *targets, "--judge-dry-run")
    dry.stdout.fnmatch_lines(["pairwise judge calls (pairwise=true): 12, both orders *"])
    heuristic = run(pytester, "evals/", *targets, "--judge-provider=heuristic")
    heuristic.stdout.fnmatch_lines(["  pairwise (*", "    v2 vs v1 on relevance: *"])
    entry = read_results(pytester)["comparison"]["pairwise"]["entries"][0]
    assert entry["verdict"] == "tie"  # equal heuristic scores: a tie in both orders
    meta = read_results(pytester)["meta"]
    assert "offline heuristic judge" in str(meta["note"] or "") or meta["llm"] is False
    # judged in-process: no request, so none counted (nor left unattributed)
    assert (meta["calls"], meta["unattributed_calls"]) == (0, 0) and meta["judgments"] > 0


def test_pairwise_asks_no_more_choices_than_the_scoring_learned_the_server_takes(
    pytester: pytest.Pytester, judge_server: JudgeServer, bots: Callable[[str, str], str]
) -> None:
    # llama.cpp with 2 slots: the items' runs learn the cap; the pairs (another engine,
    # after the items) never send n=3 again, and every entry is judged side by side
    judge_server.max_choices = 2
    targets = bots("relevance=5 tone=5", "relevance=4 tone=4")
    write_evals(pytester, ENTRIES[:3])
    args = ("evals/", *targets, "--judge-runs=3", "--judge-concurrency=1")
    result = run(pytester, *args)
    result.assert_outcomes(passed=6)
    result.stdout.fnmatch_lines(["  pairwise (answers side by side, both orders, 3 runs each;*"])
    pairwise = read_results(pytester)["comparison"]["pairwise"]
    assert all(e["verdict"] == "v2" and e["error"] is None for e in pairwise["entries"])
    refused = [r for r in judge_server.requests if r.n == 3]
    assert len(refused) == 1 and refused[0].pair is None  # one refusal, from the items
    pairs = [r.n for r in judge_server.requests if r.pair is not None]
    assert sorted(pairs) == sorted([2, 1] * 3 * 2 * 2)  # entries x dimensions x orders
    meta = read_results(pytester)["meta"]
    assert meta["calls"] == judge_server.count()
    assert meta["server"]["choices_cap"] == 2


def test_pairwise_requests_spend_the_usd_budget(
    pytester: pytest.Pytester, judge_server: JudgeServer, bots: Callable[[str, str], str]
) -> None:
    # each request costs $0.14; the items' 4 spend $0.56 of $0.7, the first pair request
    # the rest: the other three pair requests are refused, not sent (before, all were)
    pytester.makeini("[pytest]\nllmjudge_prices =\n    my-judge=1000,2000\n")
    targets = bots("relevance=5 tone=5", "relevance=4 tone=4")
    write_evals(pytester, ENTRIES[:1])
    budget = ("-o", "llmjudge_budget=usd=0.7", "--judge-model=my-judge")
    result = run(pytester, "evals/", *targets, *budget, "--judge-concurrency=1")
    result.assert_outcomes(passed=2)
    assert judge_server.count() == 4 + 1 == read_results(pytester)["meta"]["calls"]
    relevance, tone = read_results(pytester)["comparison"]["pairwise"]["entries"]
    assert "judge cost budget exhausted" in str(relevance["error"]) + str(tone["error"])
    # the one order judged before the budget ran out is shown, not dropped: 1 run of 4
    assert [sum(o["votes"].values()) for o in relevance["orders"]] == [1]
    assert relevance["verdict"] is None and tone["orders"] == []
    result.stdout.fnmatch_lines(["  pairwise (*1 of 4 runs judged*"])


def test_entries_that_are_not_judged_are_not_judged_side_by_side(
    pytester: pytest.Pytester,
    judge_server: JudgeServer,
    bots: Callable[[str, str], tuple[str, str]],
) -> None:
    # "judge": false (checked only) and a failed check (not judged): no pairwise request either
    targets = bots("relevance=5", "relevance=4")
    checked_only = {"id": "c", "ticket": "T c", "judge": False, "checks": [{"contains": "T c"}]}
    failing = {"id": "f", "ticket": "T f", "checks": [{"contains": "absent"}]}
    write_evals(pytester, [checked_only, failing, {"id": "j", "ticket": "T j"}])
    dry = run(pytester, "evals/", *targets, "--judge-dry-run")  # live checks are not known yet
    dry.stdout.fnmatch_lines(["pairwise judge calls (pairwise=true): 8, both orders *"])
    run(pytester, "evals/", *targets).assert_outcomes(passed=4, failed=2)
    entries = read_results(pytester)["comparison"]["pairwise"]["entries"]
    assert {e["id"] for e in entries} == {"j"}
    assert judge_server.count() == 2 * 2 + 2 * 2  # j's two items and j's pair, per dimension


def test_a_pair_over_the_input_limit_is_not_sent(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    # each answer alone is within llmjudge_max_input_chars; the two side by side are not
    started = [BotServer(_padded(score)) for score in (5, 4)]
    try:
        option = f"llmjudge_targets=v2={started[0].url} v1={started[1].url} pairwise=true"
        write_evals(pytester, [{"id": "t0", "ticket": "Ticket 0"}])
        result = run(pytester, "evals/", "-o", option, "-o", "llmjudge_max_input_chars=250")
    finally:
        for bot in started:
            bot.stop()
    result.assert_outcomes(passed=2)
    assert judge_server.count() == 2 * 2  # the items' requests only
    errors = {e["error"] for e in read_results(pytester)["comparison"]["pairwise"]["entries"]}
    assert len(errors) == 1 and "over llmjudge_max_input_chars=250" in str(errors.pop())


def _padded(score: int) -> Callable[[str], tuple[int, Any]]:
    return lambda ticket: (200, {"answer": "word " * 30 + f"{{{{relevance={score}}}}}"})


def test_shards_merge_their_pairwise_verdicts_and_the_win_rate_gate_holds(
    pytester: pytest.Pytester, bots: Callable[[str, str], tuple[str, str]]
) -> None:
    """Two shards (-k slices of entries), each judging its entries' pairs: the merge holds
    every entry's pairwise verdict, the win rates over the union, and `--gates win_rate`
    is evaluated (it was dropped: the gate passed unsaid, the pairwise section was gone)."""
    targets = bots("relevance=5 tone=5", "relevance=4 tone=4")
    write_evals(pytester, ENTRIES[:4])
    for name, chosen in (("s1", "t0 or t1"), ("s2", "t2 or t3")):
        run(pytester, "evals/", *targets, "-k", chosen, f"--judge-output={name}.json")
    cli = [sys.executable, "-m", "pytest_llmjudge", "merge", "s1.json", "s2.json", "-o", "m.json"]
    green = subprocess.run([*cli, "--gates", "win_rate.v2=0.6"], cwd=pytester.path, check=True)
    assert green.returncode == 0
    pairwise = read_results(pytester, "m.json")["comparison"]["pairwise"]
    assert len(pairwise["entries"]) == 4 * 2  # entries x dimensions
    assert {(p["dimension"], p["wins"], p["entries"]) for p in pairwise["pairs"]} == {
        ("relevance", 4, 4),
        ("tone", 4, 4),
    }
    red = subprocess.run(
        [*cli, "--gates", "win_rate.v1=0.5"], cwd=pytester.path, capture_output=True, text=True
    )
    assert red.returncode == 1
    assert "gate FAILED: pairwise win rate of v1 >= 0.5: 0.00 over v2 on relevance" in red.stdout

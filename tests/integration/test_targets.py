"""Live bots as targets, fetch-once-judge-N, and the A/B comparison."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bot_server import BotServer
from helpers import read_results, run, write_evals
from judge_server import JudgeServer

pytestmark = pytest.mark.usefixtures("judge_server")
EXAMPLES = Path(__file__).parents[2] / "examples" / "ab"

TICKETS = [{"id": f"t{i}", "ticket": f"Ticket number {i}"} for i in range(3)]


@pytest.fixture
def bots() -> Iterator[Callable[[Callable[[str], tuple[int, Any]]], BotServer]]:
    started: list[BotServer] = []

    def start(reply: Callable[[str], tuple[int, Any]]) -> BotServer:
        started.append(BotServer(reply))
        return started[-1]

    yield start
    for bot in started:
        bot.stop()


def answering(directive: str) -> Callable[[str], tuple[int, Any]]:
    return lambda ticket: (200, {"answer": f"Answer to {ticket} {{{{{directive}}}}}"})


def targets(*settings: str, **bots: BotServer) -> tuple[str, str]:
    """``-o llmjudge_targets=...``: the bots by name, then the table's other lines."""
    names = " ".join(f"{name}={bot.url}" for name, bot in bots.items())
    return "-o", "\n".join(("llmjudge_targets=" + names, *settings))


def test_each_bot_is_asked_once_and_each_answer_judged_n_times(
    pytester: pytest.Pytester, judge_server: JudgeServer, bots: Any
) -> None:
    python, dotnet = bots(answering("relevance=5")), bots(answering("relevance=4"))
    write_evals(pytester, TICKETS)
    result = run(pytester, "evals/", *targets(python=python, dotnet=dotnet), "--judge-runs=3", "-v")
    result.assert_outcomes(passed=6)
    # ("?" for the brackets: fnmatch reads [..] as a character class)
    result.stdout.fnmatch_lines(
        ["evals/support.json::t0?python? PASSED*", "evals/support.json::t0?dotnet? PASSED*"]
    )
    assert len(python.requests) == 3 and len(dotnet.requests) == 3
    # asked concurrently (ahead of the item that needs the answer), so in any order
    assert sorted(r["body"]["message"] for r in python.requests) == [
        "Ticket number 0",
        "Ticket number 1",
        "Ticket number 2",
    ]
    # tickets x bots x dimensions requests, each of three runs
    assert judge_server.count() == 3 * 2 * 2 and judge_server.choices() == 3 * 2 * 2 * 3
    rows = read_results(pytester)["results"]
    answers = {(r["id"], r["target"]): r["answer"] for r in rows}
    assert answers[("t1", "python")] == "Answer to Ticket number 1 {{relevance=5}}"


def test_a_single_target_replaces_the_stored_response(
    pytester: pytest.Pytester, judge_server: JudgeServer, bots: Any
) -> None:
    bot = bots(answering("relevance=5"))
    write_evals(pytester, [{"id": "a", "ticket": "T", "response": "stored {{relevance=1}}"}])
    result = run(pytester, "evals/", *targets(live=bot), "-v")
    result.stdout.fnmatch_lines(["evals/support.json::a PASSED*"])
    assert {r.response for r in judge_server.requests} == {"Answer to T {{relevance=5}}"}


def test_winner_from_means_with_ties_and_overall_counts(
    pytester: pytest.Pytester, bots: Any
) -> None:
    def python_reply(ticket: str) -> tuple[int, Any]:
        return 200, {"answer": f"P {ticket} {{{{relevance={'5' if '0' in ticket else '4'}}}}}"}

    def dotnet_reply(ticket: str) -> tuple[int, Any]:
        return 200, {"answer": f"D {ticket} {{{{relevance={'3' if '1' in ticket else '4'}}}}}"}

    python, dotnet = bots(python_reply), bots(dotnet_reply)
    write_evals(pytester, TICKETS)
    result = run(pytester, "evals/", *targets(python=python, dotnet=dotnet), "--judge-runs=2")
    comparison = read_results(pytester)["comparison"]
    winners = {e["id"]: e["winner"] for e in comparison["entries"]}
    assert winners == {"t0": "python", "t1": "python", "t2": "tie"}
    python_overall = comparison["overall"]["python"]
    assert (python_overall["wins"], python_overall["losses"], python_overall["ties"]) == (2, 0, 1)
    assert python_overall["win_pct"] == pytest.approx(66.7)
    assert comparison["overall"]["dotnet"]["losses"] == 2
    result.stdout.fnmatch_lines(
        [
            "A/B comparison of python, dotnet on 3 entries (tie tolerance 0.01):",
            "  python: 2 wins (66.7%), 0 losses (0.0%), 1 ties (33.3%); "
            "mean relevance 4.33, tone 4.00",
            "  dotnet: 0 wins (0.0%), 2 losses (66.7%), 1 ties (33.3%); "
            "mean relevance 3.67, tone 4.00",
        ]
    )


def test_tie_tolerance_is_configurable(pytester: pytest.Pytester, bots: Any) -> None:
    python, dotnet = bots(answering("relevance=5")), bots(answering("relevance=4"))
    write_evals(pytester, TICKETS[:1])
    run(pytester, "evals/", *targets("tie_tolerance=0.5", python=python, dotnet=dotnet))
    assert read_results(pytester)["comparison"]["entries"][0]["winner"] == "tie"


def test_majority_of_runs_against_the_mean_is_recorded(
    pytester: pytest.Pytester, bots: Any
) -> None:
    # python: relevance 5, 5, 1 (mean 3.67); dotnet: 4, 4, 4. Means pick dotnet; two of the
    # three runs pick python.
    python, dotnet = bots(answering("relevance=5,5,1")), bots(answering("relevance=4"))
    write_evals(pytester, TICKETS[:1])
    result = run(pytester, "evals/", *targets(python=python, dotnet=dotnet), "--judge-runs=3")
    entry = read_results(pytester)["comparison"]["entries"][0]
    assert entry["winner"] == "dotnet"
    assert entry["majority_winner"] == "python"
    assert entry["agreement"] == pytest.approx(0.6667)
    assert entry["disagreement"] is True
    assert sorted(entry["run_winners"]) == ["dotnet", "python", "python"]
    assert sorted(entry["targets"]["python"]["relevance"]["runs"]) == [1, 5, 5]
    result.stdout.fnmatch_lines(
        [
            "  majority of runs disagrees with the mean-based winner (mean stands): "
            "evals/support.json::t0"
        ]
    )


def test_significance_over_the_suite(pytester: pytest.Pytester, bots: Any) -> None:
    python, dotnet = bots(answering("relevance=5")), bots(answering("relevance=3"))
    write_evals(pytester, [{"id": f"t{i}", "ticket": f"T {i}"} for i in range(5)])
    result = run(pytester, "evals/", *targets(python=python, dotnet=dotnet))
    result.stdout.fnmatch_lines(
        [
            "  python better than dotnet on relevance by 2.00 ± 0.00 (95% CI)",
            "  python vs dotnet on tone: no significant difference (+0.00 ± 0.00)",
        ]
    )


# correctness configured, or judged by default (an LLM judge, entries with a reference)
@pytest.mark.parametrize("configured", [("-o", "llmjudge_dimensions=correctness"), ()])
def test_entries_without_a_reference_are_compared_on_the_dimensions_that_apply(
    pytester: pytest.Pytester, judge_server: JudgeServer, bots: Any, configured: tuple[str, ...]
) -> None:
    python = bots(answering("relevance=5 tone=5 correctness=5"))
    dotnet = bots(answering("relevance=3 tone=4 correctness=2"))
    referenced = {**TICKETS[0], "reference": "The right answer."}
    write_evals(pytester, [referenced, *TICKETS[1:]])
    result = run(pytester, "evals/", *targets(python=python, dotnet=dotnet), *configured)
    result.assert_outcomes(passed=3, failed=3)
    result.stdout.fnmatch_lines(
        [
            "A/B comparison of python, dotnet on 3 entries (tie tolerance 0.01):",
            "  2 entries compared without a dimension that does not apply to them (no reference "
            "answer)",
            "  python: 3 wins (100.0%)*",
        ]
    )
    comparison = read_results(pytester)["comparison"]
    entries = {e["id"]: e for e in comparison["entries"]}
    assert entries["t0"]["dimensions"] == ["relevance", "tone", "correctness"]
    assert entries["t1"]["dimensions"] == ["relevance", "tone"]
    assert entries["t1"]["left_out"] == ["correctness"] and entries["t1"]["winner"] == "python"
    # the combined score of an entry is over the dimensions it was compared on
    assert entries["t1"]["targets"]["dotnet"]["combined"] == 3.5
    assert entries["t0"]["targets"]["dotnet"]["combined"] == 3.0
    assert comparison["compared"] == 3
    correctness = next(s for s in comparison["significance"] if s["dimension"] == "correctness")
    assert correctness["items"] == 1  # only the entry with a reference


def test_a_bot_that_is_down_is_an_error_never_judged(
    pytester: pytest.Pytester, judge_server: JudgeServer, bots: Any
) -> None:
    python = bots(answering("relevance=5"))
    write_evals(pytester, TICKETS[:1])
    result = run(
        pytester,
        "evals/",
        *targets("dotnet=http://127.0.0.1:9/chat", python=python),
        "-o",
        "llmjudge_max_retries=1",
        "--judge-report=r.md",
        "--judge-report=r.html",
    )
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*target dotnet: cannot reach http://127.0.0.1:9/chat: *Connection refused* "
            "(after 2 tries)*"
        ]
    )
    assert all(r.response.startswith("Answer") for r in judge_server.requests)
    errors = read_results(pytester)["errors"]
    assert len(errors) == 1 and "target dotnet" in errors[0]["reason"]
    comparison = read_results(pytester)["comparison"]
    (only,) = comparison["entries"]  # the entry is listed, with no winner and the reason
    assert only["winner"] is None and only["targets"]["dotnet"]["outcome"] == "error"
    assert only["note"] == (
        "fewer than two targets were judged on relevance, tone (not judged: dotnet): no winner"
    )
    assert comparison["compared"] == 0
    # the target with no judged entry says so and why, never None%, nan or an empty cell
    dotnet = comparison["overall"]["dotnet"]
    assert (dotnet["judged"], dotnet["entries"], dotnet["win_pct"]) == (0, 1, None)
    assert dotnet["not_judged"].startswith("target dotnet: cannot reach")
    result.stdout.fnmatch_lines(
        [
            "  python: no entry compared (no other target was judged on it); mean relevance 5.00*",
            "  dotnet: 0 of 1 judged: target dotnet: cannot reach *",
        ]
    )
    markdown = (pytester.path / "r.md").read_text()
    html = (pytester.path / "r.html").read_text()
    assert "| dotnet | 0 of 1: target dotnet: cannot reach" in markdown
    assert "none compared | none compared | none compared | not judged | not judged |" in markdown
    assert "dotnet: 0 of 1 judged: target dotnet: cannot reach" in html
    for text in (result.stdout.str(), markdown):
        assert "None" not in text and "nan" not in text and "| |" not in text


def test_a_bot_that_fails_then_recovers_is_retried(pytester: pytest.Pytester, bots: Any) -> None:
    calls: list[str] = []

    def flaky(ticket: str) -> tuple[int, Any]:
        calls.append(ticket)
        return (500, {"error": "boom"}) if len(calls) == 1 else (200, {"answer": "fine answer"})

    bot = bots(flaky)
    write_evals(pytester, TICKETS[:1])
    run(pytester, "evals/", *targets(live=bot)).assert_outcomes(passed=1)
    assert len(bot.requests) == 2


def test_a_reply_without_the_field_is_an_error(pytester: pytest.Pytester, bots: Any) -> None:
    bot = bots(lambda ticket: (200, {"reply": "the answer is elsewhere"}))
    write_evals(pytester, TICKETS[:1])
    result = run(pytester, "evals/", *targets(live=bot))
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["*target live: reply has no field 'answer' (missing 'answer'; its keys there: 'reply')*"]
    )
    bot2 = bots(lambda ticket: (200, {"choices": [{"message": {"content": "nested answer"}}]}))
    result = run(
        pytester,
        "evals/",
        *targets(
            "field=choices.0.message.content",
            'body = {"messages": [{"role": "user", "content": "{ticket}"}]}',
            live=bot2,
        ),
    )
    result.assert_outcomes(passed=1)
    assert bot2.requests[0]["body"] == {
        "messages": [{"role": "user", "content": "Ticket number 0"}]
    }


def test_auth_header_from_the_environment_never_reaches_the_results(
    pytester: pytest.Pytester, bots: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BOT_TOKEN", "bot-secret-token-42")
    bot = bots(answering("relevance=5"))
    write_evals(pytester, TICKETS[:1])
    result = run(
        pytester,
        "evals/",
        *targets("headers = Authorization: Bearer ${BOT_TOKEN}; X-Team: support", live=bot),
    )
    result.assert_outcomes(passed=1)
    headers = {k.lower(): v for k, v in bot.requests[0]["headers"].items()}
    assert headers["authorization"] == "Bearer bot-secret-token-42"
    assert headers["x-team"] == "support"
    text = (pytester.path / "results/output.json").read_text() + result.stdout.str()
    assert "bot-secret-token-42" not in text
    monkeypatch.delenv("BOT_TOKEN")
    failing = run(
        pytester,
        "evals/",
        *targets("headers = Authorization: Bearer ${BOT_TOKEN}", live=bot),
        "--judge-no-cache",
    )
    failing.assert_outcomes(errors=1)
    failing.stdout.fnmatch_lines(
        ["*header needs environment variable BOT_TOKEN, which is not set*"]
    )


def test_k_selects_a_target(pytester: pytest.Pytester, bots: Any) -> None:
    python, dotnet = bots(answering("relevance=5")), bots(answering("relevance=4"))
    write_evals(pytester, TICKETS)
    result = run(pytester, "evals/", *targets(python=python, dotnet=dotnet), "-k", "python")
    result.assert_outcomes(passed=3, deselected=3)
    assert len(python.requests) == 3 and dotnet.requests == []


def test_lf_reruns_only_the_targets_that_failed(pytester: pytest.Pytester, bots: Any) -> None:
    # an A/B item's name holds brackets: --lf must still find it among the last failures
    python, dotnet = bots(answering("relevance=5")), bots(answering("relevance=1"))
    write_evals(pytester, TICKETS)
    option = targets(python=python, dotnet=dotnet)
    run(pytester, "evals/", *option).assert_outcomes(passed=3, failed=3)
    result = run(pytester, "evals/", *option, "--lf")
    result.stdout.fnmatch_lines(["run-last-failure: rerun previous 3 failures*"])
    result.assert_outcomes(failed=3)  # the python items not run again


def test_n2_gives_the_same_comparison(pytester: pytest.Pytester, bots: Any) -> None:
    python, dotnet = bots(answering("relevance=5")), bots(answering("relevance=3 tone=5"))
    write_evals(pytester, [{"id": f"t{i}", "ticket": f"T {i}"} for i in range(6)])
    option = targets(python=python, dotnet=dotnet)
    run(pytester, "evals/", *option, "--judge-runs=2", "-p", "no:xdist")
    plain = read_results(pytester)["comparison"]
    run(pytester, "evals/", *option, "--judge-runs=2", "-n", "2", "--judge-no-cache")
    assert read_results(pytester)["comparison"] == plain
    assert len(python.requests) == 6 + 6  # once per entry per session, in each session


def test_saved_responses_replay_the_comparison(
    pytester: pytest.Pytester, judge_server: JudgeServer, bots: Any
) -> None:
    python, dotnet = bots(answering("relevance=5")), bots(answering("relevance=3"))
    write_evals(pytester, TICKETS)
    run(pytester, "evals/", *targets("save_responses=saved", python=python, dotnet=dotnet))
    live = read_results(pytester)["comparison"]
    saved = json.loads((pytester.path / "saved/python.json").read_text())
    assert saved[0]["metadata"].pop("latency_ms") > 0  # how long the bot took to answer
    assert saved[0] == {
        "id": "t0",
        "ticket": "Ticket number 0",
        "response": "Answer to Ticket number 0 {{relevance=5}}",
        "metadata": {"target": "python", "source": "evals/support.json::t0"},
    }
    python.stop()
    dotnet.stop()  # replay needs no bot
    result = run(pytester, "saved/python.json", "saved/dotnet.json")
    result.assert_outcomes(passed=3, failed=3)
    # each target's file holds the same ids: that is how its answers are paired, not a clash
    assert "is used in saved" not in result.stdout.str()
    replay = read_results(pytester)["comparison"]
    assert {e["key"]: e["winner"] for e in replay["entries"]} == {
        e["key"]: e["winner"] for e in live["entries"]
    }
    assert replay["overall"]["python"]["wins"] == 3


def test_a_replay_of_saved_responses_gives_the_live_outcomes(
    pytester: pytest.Pytester, judge_server: JudgeServer, bots: Any
) -> None:
    python = bots(answering("relevance=5 tone=5"))
    dotnet = bots(answering("relevance=3 tone=4"))
    suite = {
        "defaults": {"runs": 3, "metadata": {"area": "ci"}, "marks": ["slow"]},
        "examples": [
            {"id": "strict", "ticket": "Ticket strict", "thresholds": {"relevance": 4.5}},
            {"id": "known-bad", "ticket": "Ticket known-bad", "marks": ["xfail"]},
            {
                "id": "labelled",
                "ticket": "Ticket labelled",
                "runs": 2,
                "expected": {"relevance": 1},
            },
            {
                "id": "follow-up",
                "ticket": "Ticket follow-up",
                "conversation": [{"role": "user", "content": "Earlier question"}],
                "reference": "The known answer.",
            },
        ],
    }
    write_evals(pytester, suite)
    pytester.makeini("[pytest]\nmarkers =\n    slow: slow evals\n")
    live_run = run(
        pytester, "evals/", *targets("save_responses=saved", python=python, dotnet=dotnet)
    )
    live_run.assert_outcomes(passed=3, failed=3, xfailed=1, xpassed=1, errors=0)
    live = read_results(pytester)
    saved = {e["id"]: e for e in json.loads((pytester.path / "saved/dotnet.json").read_text())}
    assert saved["strict"]["thresholds"] == {"relevance": 4.5}
    assert saved["known-bad"]["marks"] == ["slow", "xfail"]
    assert (saved["labelled"]["runs"], saved["strict"]["runs"]) == (2, 3)
    assert saved["labelled"]["expected"] == {"relevance": 1}
    assert saved["follow-up"]["conversation"] == [{"role": "user", "content": "Earlier question"}]
    assert saved["follow-up"]["reference"] == "The known answer."
    assert saved["strict"]["metadata"].pop("latency_ms") > 0
    assert saved["strict"]["metadata"] == {
        "area": "ci",
        "target": "dotnet",
        "source": "evals/support.json::strict",
    }
    python.stop()
    dotnet.stop()  # replay needs no bot
    replay_run = run(pytester, "saved/python.json", "saved/dotnet.json")
    replay_run.assert_outcomes(passed=3, failed=3, xfailed=1, xpassed=1)
    replay = read_results(pytester)

    def verdicts(results: dict[str, Any]) -> dict[tuple[str, str], Any]:
        return {
            (r["id"], r["target"]): (
                r["outcome"],
                r["runs"],
                r["relevance"]["runs"],
                r["label_disagreement"],
            )
            for r in results["results"]
        }

    assert verdicts(replay) == verdicts(live)
    assert verdicts(live)[("labelled", "python")] == ("passed", 2, [5, 5], True)
    assert replay["comparison"]["entries"] == live["comparison"]["entries"]
    assert replay["comparison"]["overall"] == live["comparison"]["overall"]


def test_saved_responses_of_one_id_in_two_eval_files_all_replay(
    pytester: pytest.Pytester, judge_server: JudgeServer, bots: Any
) -> None:
    """Two eval files use the id t1 (a warning, not an error): both answers are saved in the
    target's one file, the later with an id that names its file, and both replay (one was a
    duplicate id there, an invalid entry, so the replay lost it)."""
    bot = bots(answering("relevance=5 tone=4"))
    write_evals(pytester, [{"id": "t1", "ticket": "Ticket A"}], name="a.json")
    strict = [{"id": "t1", "ticket": "Ticket B", "thresholds": {"relevance": 5}}]
    write_evals(pytester, strict, name="b.json")
    run(pytester, "evals/", *targets("save_responses=saved", bot=bot)).assert_outcomes(passed=2)
    saved = json.loads((pytester.path / "saved/bot.json").read_text())
    assert [e["id"] for e in saved] == ["t1", "t1 (b.json)"]
    assert saved[1]["metadata"]["source"] == "evals/b.json::t1"
    bot.stop()
    replay = run(pytester, "saved/bot.json")
    replay.assert_outcomes(passed=2)
    rows = {r["id"]: r for r in read_results(pytester)["results"]}
    assert rows["t1 (b.json)"]["relevance"]["threshold"] == 5


def test_the_ab_example_runs(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "JUDGE_PROVIDER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.syspath_prepend(str(EXAMPLES))
    import bots as example  # type: ignore[import-not-found]  # examples/ab/bots.py

    python = example.serve(example.precise_answer, 0)
    dotnet = example.serve(example.vague_answer, 0)
    (pytester.path / "tickets.json").write_text((EXAMPLES / "tickets.json").read_text())
    urls = [f"http://127.0.0.1:{s.server_address[1]}/chat" for s in (python, dotnet)]
    result = run(
        pytester,
        "tickets.json",
        "-o",
        f"llmjudge_targets=python={urls[0]} dotnet={urls[1]}",
        "--judge-runs=3",
    )
    result.assert_outcomes(passed=5, failed=5)
    comparison = read_results(pytester)["comparison"]
    assert comparison["overall"]["python"]["wins"] == 5
    for server in (python, dotnet):
        server.shutdown()
        server.server_close()
    sys.modules.pop("bots", None)


def test_markdown_report_shows_the_comparison(pytester: pytest.Pytester, bots: Any) -> None:
    python, dotnet = bots(answering("relevance=5")), bots(answering("relevance=3"))
    write_evals(pytester, TICKETS)
    run(pytester, "evals/", *targets(python=python, dotnet=dotnet), "--judge-report=report.md")
    report = (pytester.path / "report.md").read_text()
    assert "A/B comparison of python, dotnet on 3 entries (tie tolerance 0.01):" in report
    assert "| python | 3 of 3 | 3 (100.0%) | 0 (0.0%) | 0 (0.0%) | 5.00 | 4.00 |" in report
    assert "- python better than dotnet on relevance by 2.00 ± 0.00 (95% CI)" in report


def test_targets_answered_in_python(pytester: pytest.Pytester) -> None:
    write_evals(pytester, TICKETS[:2])
    no_url = run(pytester, "evals/", "-o", "llmjudge_targets=python dotnet")
    no_url.assert_outcomes(errors=4)
    no_url.stdout.fnmatch_lines(
        ["*target python: has no URL: give one (name=URL) or override llmjudge_response*"]
    )
    pytester.makeconftest("""
import pytest

@pytest.fixture
def llmjudge_response(eval_case, llmjudge_target):
    score = {"python": 5, "dotnet": 2}[llmjudge_target]
    return f"{llmjudge_target} says hi {{{{relevance={score}}}}}"
""")
    table = "llmjudge_targets=python dotnet\npairwise=true\nsave_responses=saved"
    result = run(pytester, "evals/", "-o", table)
    result.assert_outcomes(passed=2, failed=2)
    results = read_results(pytester)
    assert results["comparison"]["overall"]["python"]["wins"] == 2
    # the rows hold what was judged, so pairwise judging and saved answers have it (the
    # pairwise section was missing and nothing was saved: rows had no answer)
    row = {(r["id"], r["target"]): r for r in results["results"]}[("t0", "python")]
    assert row["response"] == row["answer"] == "python says hi {{relevance=5}}"
    assert [p["win_rate"] for p in results["comparison"]["pairwise"]["pairs"]] == [1.0, 0.5]
    saved = json.loads((pytester.path / "saved/dotnet.json").read_text())
    assert [e["response"] for e in saved] == ["dotnet says hi {{relevance=2}}"] * 2


def test_a_replay_is_the_run(pytester: pytest.Pytester, judge_server: JudgeServer) -> None:
    """Targets in the ini file, each failing somewhere: what each answered is saved, errors
    as errors, and the documented replay command gives the run back without a bot."""

    def python_bot(ticket: str) -> tuple[int, Any]:
        if ticket == "Ticket number 1":
            return 404, {"error": "no such route"}
        return 200, {"answer": f"Answer to {ticket} {{{{relevance=5}}}}"}

    def dotnet_bot(ticket: str) -> tuple[int, Any]:
        if ticket == "Stored ticket":
            return 404, {"error": "no such route"}
        if ticket == "Ticket number 2":
            return 200, {"answer": ""}  # an empty answer
        return 200, {"answer": f"Answer to {ticket} {{{{relevance=3}}}}"}

    python, dotnet = BotServer(python_bot), BotServer(dotnet_bot)
    stored = {"id": "stored", "ticket": "Stored ticket", "response": "Stored. {{relevance=5}}"}
    write_evals(pytester, [*TICKETS, stored])
    pytester.makepyprojecttoml(
        "[tool.pytest.ini_options]\n"
        f'llmjudge_targets = """\npython={python.url} dotnet={dotnet.url}\n'
        'save_responses=saved\n"""\n'
    )
    try:
        live_run = run(pytester, "evals/")
    finally:
        python.stop()
        dotnet.stop()
    live_run.assert_outcomes(passed=3, failed=2, errors=3)
    live = read_results(pytester)
    saved = {e["id"]: e for e in json.loads((pytester.path / "saved/dotnet.json").read_text())}
    # the target's error, not the entry's stored response under its name
    assert "response" not in saved["stored"]
    assert saved["stored"]["metadata"]["target_error"] == "target dotnet: HTTP 404 Not Found"
    assert "not a non-empty string: ''" in saved["t2"]["metadata"]["target_error"]
    assert len(json.loads((pytester.path / "saved/python.json").read_text())) == 4
    files = {p.name: p.read_text() for p in (pytester.path / "saved").iterdir()}
    # the documented replay, targets still in pyproject.toml, the bots gone
    replay_run = run(pytester, "saved/python.json", "saved/dotnet.json")
    replay_run.assert_outcomes(passed=3, failed=2, errors=3)
    assert "cannot reach" not in replay_run.stdout.str()
    replay = read_results(pytester)

    def outcomes(results: dict[str, Any]) -> dict[tuple[str, str], Any]:
        return {
            (r["id"], r["target"]): (
                r["outcome"],
                r.get("error"),
                r["relevance"]["runs"] if r.get("relevance") else None,
            )
            for r in results["results"]
        }

    assert outcomes(replay) == outcomes(live)
    assert outcomes(live)[("t1", "python")][:2] == ("error", "target python: HTTP 404 Not Found")
    assert replay["summary"] == live["summary"]
    assert replay["comparison"]["entries"] == live["comparison"]["entries"]
    assert replay["comparison"]["overall"] == live["comparison"]["overall"]
    # a saved file is replay-only: its own replay leaves it as it was
    assert {p.name: p.read_text() for p in (pytester.path / "saved").iterdir()} == files


def test_an_empty_answer_is_saved_empty_and_replays_as_the_same_error(
    pytester: pytest.Pytester,
) -> None:
    write_evals(pytester, TICKETS[:2])
    pytester.makeconftest("""
import pytest

@pytest.fixture
def llmjudge_response(eval_case, llmjudge_target):
    if llmjudge_target is None:  # a replay: the saved answer
        return eval_case.response
    return "" if eval_case.id == "t1" else "Restart the pod."
""")
    table = "llmjudge_targets=python\nsave_responses=saved"
    live = run(pytester, "evals/", "-o", table, "--judge-provider=heuristic")
    live.assert_outcomes(passed=1, errors=1)
    saved = json.loads((pytester.path / "saved/python.json").read_text())
    assert [e["response"] for e in saved] == ["Restart the pod.", ""]
    live_rows = {r["id"]: r for r in read_results(pytester)["results"]}
    replay = run(pytester, "saved/python.json", "-o", table, "--judge-provider=heuristic")
    replay.assert_outcomes(passed=1, errors=1)
    rows = {r["id"]: r for r in read_results(pytester)["results"]}
    assert rows["t1"]["error"] == live_rows["t1"]["error"]
    assert "must be a non-empty string, got str ''" in rows["t1"]["error"]

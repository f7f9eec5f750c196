"""Local model servers' limits, met as llama.cpp, Ollama and vLLM show them, against the
scripted server: fewer choices per request than runs, slots and a queue, replies cut off at
the token limit, and the token limit's name."""

from __future__ import annotations

from typing import Any

import pytest

from helpers import by_id, entry, read_results, run, write_evals
from judge_server import JudgeServer

RUNS3 = "--judge-runs=3"


def _slow_suite_on_slots(
    pytester: pytest.Pytester, judge_server: JudgeServer, slots: int, entries: int
) -> None:
    """A server with ``slots`` that says so at /props (as llama.cpp does); 0.2 s a reply."""
    judge_server.slots = slots
    judge_server.props = True
    write_evals(
        pytester, [entry(f"e{i}", "x {{delay=0.2}}", ticket=f"t{i}") for i in range(entries)]
    )


def _meta(pytester: pytest.Pytester) -> dict[str, Any]:
    meta: dict[str, Any] = read_results(pytester)["meta"]
    return meta


def test_runs_are_split_into_requests_the_server_takes(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    # llama.cpp with 2 slots: 400 "Field 'n': Value must be between 1 <= value <= 2"
    judge_server.max_choices = 2
    write_evals(pytester, [entry(f"e{i}", ticket=f"t{i}") for i in range(3)])
    args = ("evals/", RUNS3, "--judge-concurrency=1", "-o", "llmjudge_log_dir=logs")
    result = run(pytester, *args)
    result.assert_outcomes(passed=3)
    sizes = [r.n for r in judge_server.requests]
    # the first requests learn the cap (a 400: one, or one per dimension of the first item
    # when both were sent before the first refusal came back); every judgment is then asked
    # as 2 + 1
    refused = sizes.count(3)
    assert sizes[:refused] == [3] * refused and refused in (1, 2)
    assert sorted(sizes[refused:]) == sorted([2, 1] * 6)
    meta = _meta(pytester)
    assert meta["calls"] == judge_server.count() == 12 + refused and meta["judgments"] == 18
    notice = "the judge server takes at most 2 choices per request: 3 runs asked as 2 + 1"
    assert meta["notices"] == [notice]
    result.stdout.fnmatch_lines([f"note: {notice}"])
    # no item pays for the refused request with an error, and no traceback anywhere
    assert all(
        row["relevance"]["runs"] == [4, 4, 4] for row in by_id(read_results(pytester)).values()
    )
    log = next((pytester.path / "logs").glob("*.log")).read_text()
    assert log.count("takes at most 2 choices") == 1
    assert "Traceback" not in result.stdout.str() + log


def test_one_choice_per_request_when_the_server_has_one_slot(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    judge_server.max_choices = 1
    write_evals(pytester, [entry("a")])
    run(pytester, "evals/", RUNS3, "-o", "llmjudge_sampling=choices").assert_outcomes(passed=1)
    assert sorted(r.n for r in judge_server.requests) == [1] * 6 + [3, 3]
    assert _meta(pytester)["notices"] == [
        "the judge server takes at most 1 choice per request: 3 runs asked as 1 + 1 + 1"
    ]


def test_the_servers_slots_set_the_limits_before_any_request(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    # llama.cpp's GET /props says total_slots: no request is refused, none waits in its queue
    judge_server.max_choices = 2
    _slow_suite_on_slots(pytester, judge_server, slots=2, entries=4)
    run(pytester, "evals/", RUNS3).assert_outcomes(passed=4)
    assert {r.n for r in judge_server.requests} == {1, 2}
    assert judge_server.count() == 4 * 2 * 2 and judge_server.peak_in_flight == 2
    meta = _meta(pytester)
    assert meta["in_flight_limit"] == 2
    assert meta["notices"] == [
        "the judge server takes at most 2 choices per request: 3 runs asked as 2 + 1",
        "the judge server kept 2 requests in flight, not --judge-concurrency=8: it serves 2 "
        "at once",
    ]


def test_the_users_concurrency_is_a_ceiling_above_the_servers_slots(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    _slow_suite_on_slots(pytester, judge_server, slots=4, entries=4)
    run(pytester, "evals/", "--judge-concurrency=2").assert_outcomes(passed=4)
    assert judge_server.peak_in_flight == 2
    assert _meta(pytester)["in_flight_limit"] is None  # never below what the user asked


def test_a_busy_servers_queue_is_waited_out_not_held_against_items(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    # 2 slots, silent about them (as vLLM and Ollama are); 1 s a reply; 8 requests at once:
    # the last ones in its queue time out at 2.5 s while the first ones complete
    judge_server.slots = 2
    write_evals(pytester, [entry(f"e{i}", "x {{delay=1}}", ticket=f"t{i}") for i in range(6)])
    args = (
        "evals/",
        "-o",
        "llmjudge_timeout=2.5",
        "-o",
        "llmjudge_max_retries=0",
        "-o",
        "llmjudge_log_dir=logs",
    )
    result = run(pytester, *args)
    result.assert_outcomes(passed=6)  # no retries allowed, yet none failed: they were queued
    meta = _meta(pytester)
    assert meta["timeouts"] >= 1
    assert meta["calls"] == judge_server.count() == 12 + meta["timeouts"]
    notices = "\n".join(meta["notices"])
    assert f"{meta['timeouts']} judge request(s) timed out after 2.5s" in notices
    # sent again only because the limit came down after they were sent
    assert "waited in a busy server's queue and were sent again" in notices
    # whether it is still lower at the end depends on how fast the replies after it came
    # (a loaded machine lets it grow back); when it is, the summary names it
    kept = meta["in_flight_limit"]
    assert kept is None or (kept < 8 and f"the judge server kept {kept} request" in notices)


def test_a_cut_off_reply_is_asked_again_for_a_shorter_one(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, [entry("a", "x {{cutoff=1}}"), entry("b", "y {{cutoff=9}}", ticket="t")])
    result = run(pytester, "evals/", "-o", "llmjudge_max_retries=2")
    result.assert_outcomes(passed=1, errors=1)
    relevance = [r for r in judge_server.requests if r.dimension == "relevance"]
    a = [r for r in relevance if "{{cutoff=1}}" in r.response]
    firm = [("cut off" in r.body["messages"][-1]["content"]) for r in a]
    assert firm == [False, True]  # the retry asks for a shorter reply
    b = [r for r in relevance if "{{cutoff=9}}" in r.response]
    assert len(b) == 3  # always cut off: the retries the budget allows, then an error
    assert all(r.body["max_completion_tokens"] == 256 for r in judge_server.requests)
    meta = _meta(pytester)
    assert meta["cut_off"] == 2 + 6  # a: relevance and tone once; b: three times each
    assert (
        "8 judge replies were cut off at llmjudge_max_tokens=256 and asked again for a shorter "
        "one" in meta["notices"]
    )
    result.stdout.fnmatch_lines(
        ["*failed after 3 tries: judge reply was cut off*raise llmjudge_max_tokens (now 256)*"]
    )


def test_the_token_limit_is_configurable_and_its_older_name_used_where_needed(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, [entry("a")])
    run(pytester, "evals/", "-o", "llmjudge_max_tokens=0").assert_outcomes(passed=1)
    assert not any("max_completion_tokens" in r.body for r in judge_server.requests)
    judge_server.reset()
    judge_server.unsupported_params = {"max_completion_tokens"}
    write_evals(pytester, [entry("b", ticket="another ticket")])
    run(pytester, "evals/", "-o", "llmjudge_max_tokens=150").assert_outcomes(passed=1)
    bodies = [r.body for r in judge_server.requests]
    refused = [b["max_completion_tokens"] for b in bodies if "max_completion_tokens" in b]
    assert refused in ([150], [150, 150])  # the two dimensions' first requests may both go
    assert [b["max_tokens"] for b in bodies if "max_tokens" in b] == [150, 150]
    assert len(bodies) == len(refused) + 2
    assert _meta(pytester)["server"]["limit_param"] == "max_tokens"  # said, as learned


def test_xdist_workers_share_the_servers_slots(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    _slow_suite_on_slots(pytester, judge_server, slots=2, entries=6)
    run(pytester, "evals/", "-n", "2").assert_outcomes(passed=6)
    assert judge_server.peak_in_flight <= 2  # one slot each, not two each
    meta = _meta(pytester)
    assert meta["calls"] == judge_server.count() == 12 and meta["in_flight_limit"] == 2


def test_a_refused_request_is_one_line_with_its_cause_never_a_traceback(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    judge_server.context_chars = 3000  # the long entry's prompt is over it: a 400
    write_evals(pytester, [entry("short"), entry("long", "word " * 600, ticket="t")])
    args = ("evals/", "-o", "llmjudge_log_dir=logs", "-o", "log_file=pytest.log")
    result = run(pytester, *args, "-o", "log_file_level=WARNING")
    result.assert_outcomes(passed=1, errors=1)
    assert [r.response[:4] for r in judge_server.requests].count("word") == 2  # not retried
    shown = result.stdout.str()
    written = (pytester.path / "pytest.log").read_text()
    session_log = next((pytester.path / "logs").glob("*.log")).read_text()
    assert "maximum context length is 3000 characters" in shown
    assert "400 rejected" in written and "400 rejected" in session_log
    for text in (shown, written, session_log):
        assert "Traceback" not in text and 'File "' not in text and "tenacity" not in text


def test_each_xdist_worker_learns_the_server_and_the_results_say_what_was_learned(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    # each worker is its own process: it learns the cap (one refusal each at most, as many
    # as it had in flight); the results hold what they learned together
    judge_server.max_choices = 2
    judge_server.logprobs_supported = False
    write_evals(pytester, [entry(f"e{i}", ticket=f"t{i}") for i in range(6)])
    args = ("evals/", RUNS3, "-n", "2", "-o", "llmjudge_scoring=logprobs", "--judge-concurrency=2")
    run(pytester, *args).assert_outcomes(passed=6)
    refused = sum(1 for r in judge_server.requests if r.n == 3)
    assert refused <= 2 * 2  # per worker, at most its requests in flight
    meta = _meta(pytester)
    assert meta["calls"] == judge_server.count() and meta["judgments"] == 6 * 2 * 3
    assert meta["server"] == {
        "choices_cap": 2, "slots": 0, "logprobs": False, "json_schema": True,
        "json_object": None, "ignores_n": None, "limit_param": None,
    }  # fmt: skip

"""llmjudge_batch against the test server's Batch API: submit, poll, collect; a wait that ends
first and a rerun that collects without submitting again; an interrupted submission; failed
lines asked directly; the batch price; the dry run."""

from __future__ import annotations

import json
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from helpers import QUIET, by_id, entry, read_results, run, write_evals
from judge_server import JudgeServer

CACHE = ("-p", "cacheprovider")
BATCH = ("-o", "llmjudge_batch=true", *CACHE)


def _entries() -> list[dict[str, Any]]:
    return [
        entry("a", "Raise the heap. {{relevance=5,4,5 tone=4}}"),
        entry("b", "Whatever. {{relevance=2,3,2 tone=5}}", ticket="t2"),
        entry("c", "Restart it. {{relevance=4 tone=4}}", ticket="t3"),
    ]


def _records(pytester: pytest.Pytester) -> list[Path]:
    return list(pytester.path.glob(".pytest_cache/**/batches/*.json"))


def test_a_batch_is_submitted_polled_and_collected(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, _entries())
    judge_server.batches.delay = 0.5
    result = run(pytester, "evals/", "--judge-runs=3", *BATCH)
    result.assert_outcomes(passed=2, failed=1)
    batches = judge_server.batches
    assert (batches.uploads, batches.creations) == (1, 1)
    lines = batches.input_lines()
    # one request per judgment, its runs as the n choices, custom_id the first run's key
    assert len(lines) == 3 * 2 and {line["body"]["n"] for line in lines} == {3}
    assert all(line["url"] == "/v1/chat/completions" for line in lines)
    assert len({line["custom_id"] for line in lines}) == 6
    assert judge_server.count() == 0  # no item asked directly
    assert batches.retrievals >= 2  # polled until done
    out = result.stdout.str()
    assert "llmjudge: batch batch_" in out and "submitted: 6 requests for 18 runs" in out
    results = read_results(pytester)
    meta = results["meta"]
    assert meta["calls"] == 6 and meta["judgments"] == 18 and meta["cached_runs"] == 0
    batch = meta["batch"]
    assert (batch["calls"], batch["runs"]) == (6, 18)
    assert list(batch["batches"].values()) == [
        {"status": "completed", "requests": 6, "completed": 6, "failed": 0}
    ]
    assert batch["tokens"] == {"prompt": 600, "completion": 360, "total": 960, "unknown_calls": 0}
    rows = by_id(results)
    assert rows["b"]["relevance"]["runs"] == [2, 3, 2] and rows["b"]["outcome"] == "failed"
    assert rows["a"]["usage"]["calls"] == 2 and rows["a"]["relevance"]["calls"] == 1
    assert "judged via batch batch_" in out and "6 requests answered there, 18 runs" in out
    assert _records(pytester) == []  # collected: nothing left to resume
    # the batch filled the cache: a rerun asks nothing
    judge_server.reset()
    run(pytester, "evals/", "--judge-runs=3", *BATCH).assert_outcomes(passed=2, failed=1)
    assert judge_server.batches.uploads == 0 and judge_server.count() == 0


def test_batch_requests_are_billed_at_the_batch_price(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, _entries()[:1])
    pytester.makeini("[pytest]\nllmjudge_prices =\n    test-model=1.0,2.0,0.4,0.8\n")
    run(pytester, "evals/", "--judge-model=test-model", *BATCH).assert_outcomes(passed=1)
    meta = read_results(pytester)["meta"]
    # 2 requests in the batch at 0.4 and 0.8 per million tokens, nothing at the direct price
    batch_cost = (200 * 0.4 + 40 * 0.8) / 1e6
    assert meta["batch"]["cost_usd"] == pytest.approx(batch_cost)
    assert meta["cost_usd"] == pytest.approx(batch_cost)


def test_batch_lines_without_usage_have_unknown_tokens_not_zero(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, _entries()[:1])
    judge_server.usage_left_out = {"usage"}  # the batch's replies do not say their tokens
    result = run(pytester, "evals/", *BATCH)
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "judged via batch batch_* 2 requests answered there, 2 runs, tokens unknown for "
            "2 requests (the server did not say them)"
        ]
    )
    batch = read_results(pytester)["meta"]["batch"]
    assert batch["tokens"] == {"prompt": 0, "completion": 0, "total": 0, "unknown_calls": 2}


def test_a_wait_that_ends_first_leaves_errors_and_a_rerun_collects_without_resubmitting(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, _entries())
    judge_server.batches.delay = 30.0
    wait = ("-o", "llmjudge_batch=1", "-o", "llmjudge_progress=0.3")
    result = run(pytester, "evals/", "--judge-runs=3", *wait, *CACHE)
    result.assert_outcomes(errors=3)
    assert result.ret != 0
    out = result.stdout.str()
    # progress while it waits: requests done of the batch's, time since it was submitted
    result.stdout.fnmatch_lines(
        ["llmjudge: batch batch_* in_progress: 0 of 6 requests done, 0m0?s since it was submitted"]
    )
    assert "pending in batch batch_" in out and "run again to collect" in out
    assert len(_records(pytester)) == 1
    rows = by_id(read_results(pytester))
    assert "pending in batch" in rows["a"]["error"] and judge_server.count() == 0
    meta = read_results(pytester)["meta"]
    assert meta["calls"] == 0 and meta["batch"]["calls"] == 0
    assert [s["status"] for s in meta["batch"]["batches"].values()] == ["in_progress"]

    judge_server.batches.delay = 0.0  # done by now
    result = run(pytester, "evals/", "--judge-runs=3", *BATCH)
    result.assert_outcomes(passed=2, failed=1)
    assert (judge_server.batches.uploads, judge_server.batches.creations) == (1, 1)
    assert "completed (6 of 6 requests done): collected" in result.stdout.str()
    meta = read_results(pytester)["meta"]
    assert meta["batch"]["calls"] == 6 and meta["calls"] == 6 and judge_server.count() == 0
    assert _records(pytester) == []


def test_ctrl_c_while_waiting_keeps_the_batch_for_the_next_session(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    import gc

    write_evals(pytester, _entries())
    judge_server.batches.delay = 60.0

    session_over = threading.Event()  # no Ctrl-C for a later test if this one goes wrong

    def press_ctrl_c_once_submitted() -> None:
        deadline = time.monotonic() + 30
        while judge_server.batches.creations == 0 and time.monotonic() < deadline:
            if session_over.wait(0.05):
                return
        if not session_over.wait(2.0):  # the session is polling now
            # a real SIGINT to the main thread, as a terminal's Ctrl-C: it wakes a sleep
            signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)

    # Python's own handler, as in a terminal, whatever earlier tests in this worker left
    handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    threading.Thread(target=press_ctrl_c_once_submitted, daemon=True).start()
    try:
        result = pytester.runpytest(*QUIET, "evals/", *BATCH, no_reraise_ctrlc=True)
    finally:
        session_over.set()
        signal.signal(signal.SIGINT, handler)
    print(f"SIGINT handler this worker had: {handler!r}")  # shown if the test fails
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert "KeyboardInterrupt" in result.stdout.str()
    assert len(_records(pytester)) == 1
    assert gc.get_freeze_count() == 0  # the process's collector is left as it was found

    judge_server.batches.delay = 0.0
    run(pytester, "evals/", *BATCH).assert_outcomes(passed=2, failed=1)
    assert (judge_server.batches.uploads, judge_server.batches.creations) == (1, 1)
    assert judge_server.count() == 0


def test_wait_zero_submits_and_exits(pytester: pytest.Pytester, judge_server: JudgeServer) -> None:
    write_evals(pytester, _entries())
    result = run(pytester, "evals/", "-o", "llmjudge_batch=0", *CACHE)
    result.assert_outcomes(errors=3)
    assert judge_server.batches.creations == 1 and judge_server.batches.retrievals == 0
    run(pytester, "evals/", *BATCH).assert_outcomes(passed=2, failed=1)
    assert judge_server.batches.creations == 1


def test_a_server_without_a_batch_api_is_said_once_with_the_setting_that_helps(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    """llama.cpp, Ollama and vLLM answer /v1/files with a 404: running again cannot help."""
    judge_server.batches.absent = True
    write_evals(pytester, _entries())
    result = run(pytester, "evals/", *BATCH)
    result.assert_outcomes(errors=3)
    out = result.stdout.str()
    lines = out.splitlines()
    said = "the judge server has no Batch API (uploading the batch input failed: 404 File Not "
    assert sum(line.startswith(f"llmjudge: {said}") for line in lines) == 1
    assert sum(line.startswith(f"judge error: relevance, tone: {said}") for line in lines) == 3
    assert "set llmjudge_batch = false to judge it directly" in out and "run again" not in out
    assert _records(pytester) == [] and judge_server.count() == 0
    run(pytester, "evals/", *CACHE, "-o", "llmjudge_batch=false").assert_outcomes(
        passed=2, failed=1
    )


@pytest.mark.parametrize("how", ["refused", "answer lost"])
def test_an_interrupted_submission_goes_on_without_a_second_batch(
    pytester: pytest.Pytester, judge_server: JudgeServer, how: str
) -> None:
    write_evals(pytester, _entries())
    if how == "refused":
        judge_server.batches.fail_creates = 1
    else:  # created, but the answer never came back (a cut connection, Ctrl-C)
        judge_server.batches.lose_creates = 1
    result = run(pytester, "evals/", *BATCH)
    result.assert_outcomes(errors=3)
    out = result.stdout.str()
    assert "creating the batch failed" in out and "run again to go on" in out
    lines = out.splitlines()
    # said once for the session, and once in each item's error section
    assert sum(line.startswith("llmjudge: Batch API: creating") for line in lines) == 1
    item_error = "judge error: relevance, tone: Batch API"
    assert sum(line.startswith(item_error) for line in lines) == 3
    assert len(_records(pytester)) == 1

    result = run(pytester, "evals/", *BATCH)
    result.assert_outcomes(passed=2, failed=1)
    # the uploaded file is used again; a batch created before is found by its metadata
    assert judge_server.batches.uploads == 1 and judge_server.batches.creations == 1
    assert judge_server.count() == 0


def test_an_interrupted_upload_is_planned_again_by_the_next_session(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, _entries())
    judge_server.batches.fail_uploads = 1
    result = run(pytester, "evals/", *BATCH)
    result.assert_outcomes(errors=3)
    assert "uploading the batch input failed" in result.stdout.str()
    assert judge_server.batches.uploads == 0 and judge_server.batches.creations == 0
    assert len(_records(pytester)) == 1  # written before the upload: the next session knows
    # the input file (every ticket and answer) is not left behind in the cache folder
    assert list(pytester.path.rglob(".input-*")) == []

    run(pytester, "evals/", *BATCH).assert_outcomes(passed=2, failed=1)
    # nothing provider-side to go on from: the runs are planned and submitted once more
    assert judge_server.batches.uploads == 1 and judge_server.batches.creations == 1
    assert judge_server.count() == 0 and _records(pytester) == []


def test_a_failed_line_is_asked_directly_or_is_an_error_with_strict(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    flaky = entry("f", "Check the DNS. {{fail=500x1}}", ticket="t9")
    write_evals(pytester, [*_entries()[:1], flaky])
    result = run(pytester, "evals/", "-o", "llmjudge_strict=batch", *BATCH)
    result.assert_outcomes(passed=1, errors=1)
    rows = by_id(read_results(pytester))
    assert "batch batch_" in rows["f"]["error"] and "500 scripted 500" in rows["f"]["error"]
    assert judge_server.count() == 0

    judge_server.reset()
    run(pytester, "evals/", *BATCH).assert_outcomes(passed=2)
    # resubmitted (the lines that failed), and their failure asked directly
    assert judge_server.batches.creations == 1
    assert len(judge_server.batches.input_lines()) == 2  # f's two dimensions
    judge_server.reset()
    judge_server.batches.final_status = "failed"
    pytester.path.joinpath(".pytest_cache").rename(pytester.path / "old-cache")
    result = run(pytester, "evals/", *BATCH)
    result.assert_outcomes(passed=2)
    assert "failed: invalid_request: scripted validation failure" in result.stdout.str()
    # each judgment asked directly (f's first requests get their scripted 500 and are retried)
    assert judge_server.count() == 4 + 2
    meta = read_results(pytester)["meta"]
    assert meta["calls"] == 6 and meta["batch"]["calls"] == 0


def test_an_expired_batch_is_said_and_its_requests_are_submitted_again(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, _entries())
    judge_server.batches.final_status = "expired"
    result = run(pytester, "evals/", "-o", "llmjudge_strict=batch", *BATCH)
    result.assert_outcomes(passed=1, errors=2)  # half of 6 requests answered: a and c's first
    assert "expired (3 of 6 requests done)" in result.stdout.str()
    judge_server.batches.final_status = "completed"
    run(pytester, "evals/", *BATCH).assert_outcomes(passed=2, failed=1)
    assert judge_server.batches.creations == 2 and judge_server.count() == 0
    assert len(judge_server.batches.input_lines()) == 6 + 3


def test_dry_run_estimates_the_batch(pytester: pytest.Pytester, judge_server: JudgeServer) -> None:
    write_evals(pytester, _entries())
    pytester.makeini("[pytest]\nllmjudge_prices =\n    gpt-4o-mini=0.15,0.6\n")
    result = run(pytester, "evals/", "--judge-runs=3", "--judge-dry-run", *BATCH)
    result.stdout.fnmatch_lines(["*judge calls: 6,*in one batch*", "*batch price*"])
    assert judge_server.batches.uploads == 0 and judge_server.count() == 0


def test_grouping_by_item_in_a_batch(pytester: pytest.Pytester, judge_server: JudgeServer) -> None:
    write_evals(pytester, _entries())
    result = run(pytester, "evals/", "--judge-runs=3", "-o", "llmjudge_grouping=item", *BATCH)
    result.assert_outcomes(passed=2, failed=1)
    lines = judge_server.batches.input_lines()
    assert len(lines) == 3
    assert lines[0]["body"]["response_format"]["json_schema"]["name"] == "judge_group_reply"
    meta = read_results(pytester)["meta"]
    assert (meta["batch"]["calls"], meta["batch"]["runs"]) == (3, 18)


def test_each_xdist_worker_uses_the_one_batch(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, _entries())
    result = run(pytester, "evals/", "--judge-runs=3", "-n", "2", *BATCH)
    result.assert_outcomes(passed=2, failed=1)
    assert judge_server.batches.creations == 1 and judge_server.count() == 0
    meta = read_results(pytester)["meta"]
    assert (meta["calls"], meta["batch"]["calls"], meta["judgments"]) == (6, 6, 18)


def test_a_judgment_several_items_ask_for_is_in_one_row_under_xdist(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    """Four items ask for the same judgment (one ticket, one answer): the batch asks it once,
    and one row holds its requests and runs, whichever worker ran it; the others show its
    runs as from the cache (in two workers, two rows held it: unattributed_calls was -2)."""
    same = "Raise the heap. {{relevance=5 tone=4}}"
    write_evals(pytester, [entry(f"a{i}", same) for i in range(4)])
    run(pytester, "evals/", "--judge-runs=3", "-n", "2", *BATCH).assert_outcomes(passed=4)
    results = read_results(pytester)
    meta = results["meta"]
    assert judge_server.batches.input_lines() and judge_server.billed["batch_requests"] == 2
    assert (meta["calls"], meta["judgments"], meta["unattributed_calls"]) == (2, 6, 0)
    assert (meta["batch"]["calls"], meta["batch"]["runs"], meta["cached_runs"]) == (2, 6, 18)
    usage = {row["id"]: row["usage"] for row in results["results"]}
    assert usage["a0"]["calls"] == 2 and usage["a0"]["judgments"] == 6  # first in order
    assert sum(u["calls"] for u in usage.values()) == 2
    assert sum(u["prompt_tokens"] for u in usage.values()) == meta["tokens"]["prompt"]


def test_requests_the_batch_answered_count_when_their_items_never_run(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    """-x stops at the failing item b, before c; the batch had answered, and billed, all six
    requests."""
    write_evals(pytester, _entries())
    result = run(pytester, "evals/", "-x", "-p", "no:randomly", *BATCH)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    results = read_results(pytester)
    meta = results["meta"]
    billed = judge_server.billed
    assert billed["batch_requests"] == 6 and judge_server.count() == 0
    assert (meta["calls"], meta["batch"]["calls"]) == (6, 6)
    assert meta["tokens"]["prompt"] == billed["prompt"]
    assert meta["tokens"]["completion"] == billed["completion"]
    rows_calls = sum(row["usage"]["calls"] for row in results["results"])
    assert meta["unattributed_calls"] == 6 - rows_calls > 0
    result.stdout.fnmatch_lines(["judge calls: 6 made*"])


def test_batch_replies_with_no_usable_choice_are_counted_as_made_and_billed(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    """Cut off in the batch (and once more directly): every request billed is counted."""
    write_evals(pytester, [entry("a", "Fine. {{relevance=5 tone=5 cutoff=2}}")])
    result = run(pytester, "evals/", *BATCH)
    result.assert_outcomes(passed=1)
    meta = read_results(pytester)["meta"]
    billed = judge_server.billed
    assert meta["calls"] == judge_server.count() + billed["batch_requests"] == 6
    assert (meta["tokens"]["prompt"], meta["tokens"]["completion"]) == (
        billed["prompt"],
        billed["completion"],
    )
    assert meta["batch"]["calls"] == 2 and meta["batch"]["runs"] == 0


@pytest.mark.parametrize("how", ["text body", "huge tokens", "bytes 300", "nan", "gone"])
def test_a_bent_or_lost_batch_output_is_asked_directly_never_a_crash(
    pytester: pytest.Pytester, judge_server: JudgeServer, how: str
) -> None:
    """A line of the output bent beyond reading, or the output file gone (past its
    retention): the runs are asked directly, the item ends in a verdict, the next session too."""
    write_evals(pytester, [entry("a", "Raise the heap. {{relevance=5 tone=4}}")])
    logprobs = ("-o", "llmjudge_scoring=logprobs") if how in ("bytes 300", "nan") else ()
    run(pytester, "evals/", "-o", "llmjudge_batch=0", *CACHE, *logprobs)  # submit and exit
    api = judge_server.batches
    (batch,) = api.batches.values()
    api._advance(batch)
    output = batch.output_file_id
    assert output is not None
    lines = [json.loads(line) for line in api.files[output].decode().splitlines()]
    first = lines[0]["response"]
    if how == "text body":
        lines[0]["response"] = {"status_code": 500, "body": "Internal error"}
    elif how == "huge tokens":
        first["body"]["usage"]["prompt_tokens"] = 2**64
    elif how in ("bytes 300", "nan"):
        for token in first["body"]["choices"][0]["logprobs"]["content"]:
            for alternative in [token, *token["top_logprobs"]]:
                alternative.update({"bytes": [300]} if how == "bytes 300" else {"logprob": "NaN"})
    api.files[output] = "\n".join(json.dumps(line) for line in lines).encode()
    if how == "gone":
        del api.files[output]
    for _ in range(2):  # and the session after it: nothing left stuck
        result = run(pytester, "evals/", *BATCH, *logprobs)
        out = result.stdout.str()
        assert "INTERNALERROR" not in out and "Traceback" not in out, out
        result.assert_outcomes(passed=1)


def test_the_batch_needs_the_cache(pytester: pytest.Pytester, judge_server: JudgeServer) -> None:
    write_evals(pytester, _entries())
    result = run(pytester, "evals/", "-o", "llmjudge_batch=true", "--judge-no-cache")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["*llmjudge_batch keeps its batches*judge cache*"])
    assert json.dumps(judge_server.batches.uploads) == "0"
    # pytest's own cache turned off takes the judge's with it: that is what is named
    plain = run(pytester, "evals/", "-o", "llmjudge_batch=true", "-p", "no:cacheprovider")
    assert plain.ret == 4 and "--judge-no-cache" not in plain.stderr.str()
    plain.stderr.fnmatch_lines(["*judge cache, which -p no:cacheprovider turned off*"])


def test_lines_refused_for_too_many_choices_teach_the_direct_requests(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    # a server that takes 2 choices per request refuses the batch's n=3 lines; the items
    # then ask their runs directly as 2 + 1, never n=3 again
    judge_server.max_choices = 2
    write_evals(pytester, _entries())
    result = run(pytester, "evals/", "--judge-runs=3", *BATCH)
    result.assert_outcomes(passed=2, failed=1)
    assert len(judge_server.batches.input_lines()) == 6
    assert sorted(r.n for r in judge_server.requests) == sorted([2, 1] * 6)
    meta = read_results(pytester)["meta"]
    # the refused lines were requests too, answered with an error (and billed nothing)
    assert meta["calls"] == judge_server.count() + 6 and meta["batch"]["calls"] == 6
    assert meta["judgments"] == 18 and meta["batch"]["tokens"]["total"] == 0
    assert meta["server"]["choices_cap"] == 2

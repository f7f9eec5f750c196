"""Generated judge servers: a server with any mix of the quirks real ones have (a cap on choices,
no logprobs, no json_schema, no usage, n ignored, a refused parameter) answering each request
as a generated script says (a score, 429, 500, 503, a malformed or cut-off reply, a refusal),
judged with any mix of the modes a user combines (the Batch API too). Every session ends with
each entry passed, failed or an error in one line, never a pass without a run, and the requests
and tokens it counts are the ones the server received and billed."""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from helpers import QUIET, entry, read_results, write_evals
from judge_server import JudgeRequest, JudgeServer, Reply

settings.register_profile(
    "servers", max_examples=12, derandomize=True, database=None, deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)  # fmt: skip
settings.register_profile(
    "servers-hunt", max_examples=300, database=None, deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)  # fmt: skip
PROFILE = os.environ.get("LLMJUDGE_SERVERS_PROFILE", "servers")
ENTRIES = 3
EXAMPLES = itertools.count()

REPLIES: dict[str, Callable[[], Reply]] = {
    "score": lambda: Reply(score=4),
    "low": lambda: Reply(score=2),
    "429": lambda: Reply(status=429, headers={"retry-after-ms": "1"}),
    "500": lambda: Reply(status=500),
    "503": lambda: Reply(status=503),
    "malformed": lambda: Reply(content="I would rate this a four."),
    "out of range": lambda: Reply(score=7),
    "cut off": lambda: Reply(cut_off=True),
    "refusal": lambda: Reply(content=None, score=None),
    "not a completion": lambda: Reply(body={"error": {"message": "upstream overloaded"}}),
}
QUIRKS = st.fixed_dictionaries(
    {
        "max_choices": st.sampled_from([None, 1, 2]),
        "logprobs_supported": st.booleans(),
        "json_schema_supported": st.booleans(),
        "usage_left_out": st.sampled_from([set(), {"usage"}, {"completion_tokens"}]),
        "ignore_n": st.booleans(),
        "unsupported_params": st.sampled_from([set(), {"temperature"}, {"logprobs"}]),
    }
)
MODES = st.fixed_dictionaries(
    {
        "runs": st.sampled_from(["1", "2", "3", "2..3"]),
        "grouping": st.sampled_from(["dimension", "item"]),
        "scoring": st.sampled_from(["text", "logprobs"]),
        "sampling": st.sampled_from(["auto", "choices", "calls"]),
        "batch": st.sampled_from(["false", "true"]),
    }
)


class Scripted:
    """Each request's reply from the generated list, in the order requests arrive (the
    list cycles); grouped and pairwise requests get their parts as the server scripts them."""

    def __init__(self, replies: list[str]) -> None:
        self._next: Iterator[str] = itertools.cycle(replies)
        self._lock = threading.Lock()

    def __call__(self, request: JudgeRequest) -> Reply:
        with self._lock:
            name = next(self._next) if request.choice == 0 else "score"
        reply = REPLIES[name]()
        if request.parts and reply.status == 200 and reply.content is None and reply.body is None:
            reply.parts = {part: Reply(score=reply.score) for part in request.parts}
        return reply


@pytest.mark.timeout(900)
@settings(settings.get_profile(PROFILE))
@given(
    quirks=QUIRKS,
    modes=MODES,
    replies=st.lists(st.sampled_from(sorted(REPLIES)), min_size=1, max_size=8),
)
def test_any_server_and_modes_end_in_verdicts_counted_as_the_server_saw_them(
    pytester: pytest.Pytester,
    judge_server: JudgeServer,
    quirks: dict[str, Any],
    modes: dict[str, str],
    replies: list[str],
) -> None:
    judge_server.reset()
    for name, value in quirks.items():
        setattr(judge_server, name, value)
    judge_server.script = Scripted(replies)
    write_evals(pytester, [entry(f"e{i}", ticket=f"ticket {i}") for i in range(ENTRIES)])
    cache = f"cache-{next(EXAMPLES)}"  # the batch keeps its replies there; a fresh one each
    args = [
        f"--judge-runs={modes['runs']}",
        "--judge-concurrency=1",
        "-o",
        f"llmjudge_cache={cache}",
    ]
    for key in ("grouping", "scoring", "sampling", "batch"):
        args += ["-o", f"llmjudge_{key}={modes[key]}"]
    args += ["-o", "llmjudge_max_retries=2", "-o", "llmjudge_retry_wait=0"]
    result = pytester.runpytest_inprocess(*QUIET, *args, "evals/")
    output = "\n".join(result.stdout.lines + result.stderr.lines)
    assert "Traceback" not in output and "INTERNALERROR" not in output, output
    results = read_results(pytester)
    rows = results["results"]
    assert sorted(row["id"] for row in rows) == [f"e{i}" for i in range(ENTRIES)], output
    for row in rows:
        event(f"outcome {row['outcome']}")
        assert row["outcome"] in ("passed", "failed", "error"), (row, output)
        if row["outcome"] == "error":
            assert row["error"] and "\n" not in row["error"], row
        else:  # a verdict stands on runs the judge scored
            assert all(row[d]["runs"] for d in ("relevance", "tone")), row
    meta = results["meta"]
    sent = judge_server.count() + judge_server.batches.lines_answered
    assert meta["calls"] == sent, (meta["calls"], sent, output)
    if not quirks["usage_left_out"]:
        tokens = meta["tokens"]
        billed = judge_server.billed
        assert (tokens["prompt"], tokens["completion"]) == (billed["prompt"], billed["completion"])

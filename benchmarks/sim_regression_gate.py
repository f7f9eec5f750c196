"""How often the regression gate is red, measured over whole pytest sessions.

    python benchmarks/sim_regression_gate.py                       # 400 sessions a case
    python benchmarks/sim_regression_gate.py --sessions 100 --power-trials 50

A synthetic suite of 30 entries, each with a fixed true score per dimension (relevance,
tone), is judged through the plugin (3 runs, no cache) by the test suite's OpenAI-compatible
server, started here on 127.0.0.1: a run's score is the true score plus noise (normal, sd
0.8), rounded to a whole score 1-5, drawn afresh for every session from the session's own
seed. "Clustered" suites group the entries in 6 clusters of 5 (the eval file names them)
and every session adds a shift per cluster and dimension (sd 0.3), as a judge that reads a
template or a source differently from one session to the next; "unnamed" is that suite with
its clusters left out of the eval file.

Each case runs a chain of sessions: session i is judged with ``--judge-baseline`` on the
results of session i - 1 and ``llmjudge_gates=regression``; nothing changes between them,
so every red gate is a false alarm (neighbouring comparisons share a session, which leaves
the rate's estimate unbiased). The power case runs pairs: a baseline session, then one
whose true relevance is lower by the detectable difference the null sessions printed (their
mean), tone unchanged. Two sessions run at a time (the cases in parallel). Other pytest
plugins are not loaded (``PYTEST_DISABLE_PLUGIN_AUTOLOAD``, ``-p pytest_llmjudge.plugin``):
they would only slow each session's start. To measure a fixed copy of the package while
editing it, put the copy first on ``PYTHONPATH`` (the sessions inherit it):

    git archive HEAD pytest_llmjudge | tar x -C /tmp/pkg
    PYTHONPATH=/tmp/pkg python benchmarks/sim_regression_gate.py
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))

from judge_server import JudgeRequest, JudgeServer, Reply

ENTRIES, RUNS, CLUSTERS = 30, 3, 6
NOISE, CLUSTER_SHIFT = 0.8, 0.3
DIMENSIONS = ("relevance", "tone")
SIM = re.compile(r"\[\[sim e=(\d+) s=(\d+) d=([-\d.]+) c=(\d+) k=(\d)\]\]")


def true_score(entry: int, dimension: str) -> float:
    """Fixed per entry and dimension, spread over 2.2-4.2 (little is cut off at 1 or 5)."""
    offset = 0.0 if dimension == "relevance" else 0.37
    return 2.2 + 2.0 * ((entry * 0.618034 + offset) % 1.0)


def _normal(*key: object) -> float:
    seed = int.from_bytes(hashlib.sha256(repr(key).encode()).digest()[:8], "big")
    return random.Random(seed).gauss(0.0, 1.0)


def script(request: JudgeRequest) -> Reply:
    """A run's score: true score (less the drop, on relevance) + the session's cluster shift +
    this run's noise, rounded and kept within 1-5."""
    found = SIM.search(request.response)
    assert found, request.response[:80]
    entry, seed, drop, cluster, shifted = (
        int(found[1]), int(found[2]), float(found[3]), int(found[4]), found[5] == "1",
    )  # fmt: skip
    dim = request.dimension
    value = true_score(entry, dim) - (drop if dim == "relevance" else 0.0)
    if shifted:
        value += CLUSTER_SHIFT * _normal(seed, "cluster", cluster, dim)
    value += NOISE * _normal(seed, entry, dim, request.sample)
    score = min(5, max(1, round(value)))
    return Reply(score=score, reasoning=f"simulated {dim} {score}")


@dataclass
class Case:
    name: str
    clustered: bool  # the judge shifts clusters per session
    named: bool  # the eval file names the clusters
    records: list[dict[str, Any]] = field(default_factory=list)


def write_suite(folder: Path, seed: int, drop: float, case: Case) -> None:
    evals = folder / "evals"
    evals.mkdir(parents=True, exist_ok=True)
    entries = []
    for e in range(ENTRIES):
        cluster = e // (ENTRIES // CLUSTERS)
        tag = f"[[sim e={e} s={seed} d={drop} c={cluster} k={int(case.clustered)}]]"
        entry = {"id": f"e{e:02d}", "ticket": f"Question {e}?", "response": f"Answer {e} {tag}"}
        if case.named:
            entry["cluster"] = f"c{cluster}"
        entries.append(entry)
    (evals / "sim.json").write_text(json.dumps(entries), encoding="utf-8")


def session(
    folder: Path, url: str, seed: int, drop: float, case: Case, baseline: Path | None
) -> dict[str, Any]:
    """One pytest session as a subprocess; its results JSON's verdicts."""
    write_suite(folder, seed, drop, case)
    output = folder / f"results-{seed}.json"
    command = [
        sys.executable, "-m", "pytest", "evals/", "-q", "-p", "no:cacheprovider",
        "-p", "pytest_llmjudge.plugin", f"--judge-runs={RUNS}", "--judge-no-cache",
        f"--judge-output={output}", "-o", "llmjudge_thresholds=relevance=1 tone=1",
        "-o", "llmjudge_retry_wait=0", "--tb=no", "--no-header",
    ]  # fmt: skip
    if baseline is not None:
        command += [f"--judge-baseline={baseline}", "-o", "llmjudge_gates=regression"]
    env = {
        **os.environ,
        "OPENAI_BASE_URL": url,
        "OPENAI_API_KEY": "sk-sim",
        "JUDGE_PROVIDER": "openai",
    }
    env.pop("PYTEST_ADDOPTS", None)
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # this plugin alone: half the start-up
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, check=False)
    results = json.loads(output.read_text(encoding="utf-8"))
    record: dict[str, Any] = {"seed": seed, "exit": done.returncode, "output": output}
    gate = next((g for g in results["gates"] if g["name"] == "regression"), None)
    if gate is not None:
        suite = results["baseline"]["suite"]
        record |= {
            "red": not gate["passed"],
            "suite_red": {name: change["regressed"] for name, change in suite.items()},
            "items_red": sum(
                1 for c in results["baseline"]["changes"] if c["verdict"] == "regressed"
            ),
            "detectable": {name: change["detectable"] for name, change in suite.items()},
            "mean_delta": {name: change["mean_delta"] for name, change in suite.items()},
        }
    return record


def chain(case: Case, url: str, sessions: int, first_seed: int) -> Case:
    """sessions + 1 sessions, each against the one before: ``sessions`` comparisons."""
    with tempfile.TemporaryDirectory(prefix=f"sim-{case.name}-") as tmp:
        folder = Path(tmp)
        previous: Path | None = None
        for i in range(sessions + 1):
            record = session(folder, url, first_seed + i, 0.0, case, previous)
            if previous is not None:
                previous.unlink()
                case.records.append(record)
            previous = record["output"]
    return case


def pairs(case: Case, url: str, trials: int, first_seed: int, drop: float) -> Case:
    """``trials`` pairs: a baseline session, then one with relevance lower by ``drop``."""
    with tempfile.TemporaryDirectory(prefix=f"sim-{case.name}-") as tmp:
        folder = Path(tmp)
        for i in range(trials):
            before = session(folder, url, first_seed + 2 * i, 0.0, case, None)
            record = session(folder, url, first_seed + 2 * i + 1, drop, case, before["output"])
            case.records.append(record)
    return case


def rate(case: Case) -> str:
    red = sum(1 for r in case.records if r["red"])
    n = len(case.records)
    p = red / n
    se = (p * (1 - p) / n) ** 0.5
    suite = sum(1 for r in case.records if any(r["suite_red"].values()))
    items = sum(1 for r in case.records if r["items_red"])
    return (
        f"{case.name:<34} {n:>5} {red:>5} {100 * p:6.1f}% ± {100 * 1.96 * se:4.1f}%   "
        f"suite test red {suite:>4}, an item red {items:>4}"
    )


def mean_detectable(case: Case) -> float:
    values = [float(r["detectable"]["relevance"]) for r in case.records]
    return sum(values) / len(values)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=400, help="comparisons per null case")
    parser.add_argument("--power-trials", type=int, default=200, help="pairs at the printed MDE")
    parser.add_argument("--unnamed", type=int, default=0, help="comparisons, clusters unnamed")
    parser.add_argument("--drop", type=float, help="the drop of the power case (default: the "
                        "null sessions' printed detectable drop)")  # fmt: skip
    parser.add_argument("--clustered-power", action="store_true", help="a clustered power case")
    args = parser.parse_args()
    server = JudgeServer().start()
    server.script = script
    started = time.perf_counter()
    print(f"{'case':<34} {'runs':>5} {'red':>5} {'rate':>7}   (95% interval of the rate)")
    drop, drop_clustered = args.drop, None
    if args.sessions:
        plain = Case("no change, no clusters", clustered=False, named=False)
        clustered = Case("no change, 6 clusters named", clustered=True, named=True)
        jobs = [
            (chain, plain, args.sessions, 1_000_000),
            (chain, clustered, args.sessions, 2_000_000),
        ]
        _run_two(jobs, server.url, started)
        drop, drop_clustered = drop or mean_detectable(plain), mean_detectable(clustered)
        print(
            f"printed detectable drop of relevance (mean over the null sessions): "
            f"{mean_detectable(plain):.3f} (no clusters), {drop_clustered:.3f} (clusters)",
            flush=True,
        )
    jobs = []
    if args.power_trials and drop is not None:  # two halves side by side, told as one
        halves = [Case(f"relevance lower by {drop:.3f}", False, False) for _ in range(2)]
        half = args.power_trials // 2
        jobs += [
            (partial(pairs, drop=drop), case, count, seed)
            for case, count, seed in zip(
                halves, (half, args.power_trials - half), (3_000_000, 3_500_000), strict=True
            )
        ]
    if args.clustered_power and drop_clustered is not None:
        power_c = Case(f"relevance lower by {drop_clustered:.3f}, clusters", True, True)
        jobs.append((partial(pairs, drop=drop_clustered), power_c, args.power_trials, 4_000_000))
    if args.unnamed:
        unnamed = Case("no change, 6 clusters not named", clustered=True, named=False)
        jobs.append((chain, unnamed, args.unnamed, 5_000_000))
    _run_two(jobs, server.url, started)
    if args.power_trials and drop is not None:
        whole = Case(f"relevance lower by {drop:.3f}, no clusters", False, False)
        whole.records = [r for case in halves for r in case.records]
        print(f"{rate(whole)}  (both halves)", flush=True)
    server.stop()


def _run_two(
    jobs: list[tuple[Callable[..., Case], Case, int, int]], url: str, started: float
) -> None:
    """The jobs two at a time; each case's line as soon as it ends."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = [pool.submit(job, case, url, count, seed) for job, case, count, seed in jobs]
        for future in as_completed(futures):
            print(f"{rate(future.result())}  ({time.perf_counter() - started:.0f} s)", flush=True)


if __name__ == "__main__":
    main()

"""Memory and time per entry of pytest-llmjudge against pytest's own, at scale.

Run it by hand (it is not part of the test suite):

    python benchmarks/bench_scale.py                    # 10,000 entries, and the direct path
    python benchmarks/bench_scale.py 10000 100000       # the sizes given
    python benchmarks/bench_scale.py --direct-only      # only CPU per request
    python benchmarks/bench_scale.py --direct-only --in-flight 64 256   # at each concurrency
    python benchmarks/bench_scale.py 10000 --keep DIR   # keep the suites and results in DIR

The test suite's judge server (tests/support/judge_server.py) runs in its own process, so
that the figures are the pytest process's alone. For each size N it writes N entries (the
example suite's entries, each made unique) and runs, one after the other, never in parallel:

- the plugin: ``pytest evals/ -o llmjudge_batch=true --judge-runs=3`` (2 dimensions: 2N requests
  of 3 choices each through the server's Batch API, no batch delay), no xdist, no junitxml;
- pytest's own: ``pytest -p no:llmjudge`` over a test file that parametrizes one trivial
  test over the same N entries (read from the same JSON file).

It prints each run's peak RSS (``ru_maxrss`` of the pytest process) and wall time side by
side, and what the plugin adds per entry, against the issue's targets (peak within pytest's
+ 6 KB per entry, wall within pytest's + 1.2 ms per entry).

The direct path: 2,000 entries, 2 dimensions, 3 runs as the choices of one request, 20 ms
latency, ``--judge-concurrency=64``, an empty cache: CPU per request is the pytest
process's user + system time divided by the requests the server counted (target <= 2 ms).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import multiprocessing.connection
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "evals" / "support.json"
RUNS = 3
KB_PER_ENTRY, MS_PER_ENTRY, CPU_MS_PER_REQUEST = 6.0, 1.2, 2.0
DIRECT_ENTRIES, DIRECT_LATENCY, DIRECT_CONCURRENCY = 2_000, 0.02, 64

PLAIN_TEST = """\
import json
from pathlib import Path

import pytest

ENTRIES = json.loads((Path(__file__).parent / "evals" / "support.json").read_text())


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["id"] for e in ENTRIES])
def test_entry(entry):
    assert entry["ticket"] and entry["response"]
"""


def serve(conn: multiprocessing.connection.Connection) -> None:
    """The judge server, in its own process: ``latency``, ``count``, ``stop`` over ``conn``."""
    sys.path.insert(0, str(ROOT / "tests" / "support"))
    from judge_server import JudgeServer, Reply

    server = JudgeServer().start()
    latency = 0.0
    server.script = lambda request: Reply(score=4, delay=latency)
    conn.send(server.url)
    while True:
        command, value = conn.recv()
        if command == "latency":
            server.reset()
            latency = float(value)
            server.script = lambda request: Reply(score=4, delay=latency)  # noqa: B023 (read now)
            conn.send(None)
        elif command == "count":
            conn.send((server.count(), server.batches.lines_answered))
        else:
            server.stop()
            conn.send(None)
            return


class Server:
    def __init__(self) -> None:
        self.conn, child = multiprocessing.Pipe()
        self.process = multiprocessing.get_context("spawn").Process(
            target=serve, args=(child,), daemon=True
        )
        self.process.start()
        self.url: str = self.conn.recv()

    def ask(self, command: str, value: object = None) -> object:
        self.conn.send((command, value))
        return self.conn.recv()

    def stop(self) -> None:
        self.ask("stop")
        self.process.join(5)


@dataclass
class Measured:
    wall: float
    cpu: float
    rss_mb: float
    exit_status: int
    output: str


def run(folder: Path, args: list[str], env: dict[str, str]) -> Measured:
    """One pytest process: its wall time, CPU time and peak RSS (``wait4``)."""
    from bench_judge import run_process

    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:xdist"]
    # the test extra's Hypothesis plugin is not what a user installs: it imports Hypothesis at
    # each session's end, rewritten for asserts anew where pytest may not keep the bytecode
    # (PYTHONDONTWRITEBYTECODE): 1.4 s of CPU a process, 0.35 ms a request of the direct path
    command += ["-p", "no:hypothesispytest"]
    process = run_process([*command, "-p", "no:cacheprovider", *args], folder, env)
    return Measured(process.wall, process.cpu, process.rss_mb, process.exit_status, process.output)


def write_suite(folder: Path, entries: int) -> None:
    """``entries`` entries from the example suite, each unique (id, ticket and response)."""
    examples = json.loads(EXAMPLES.read_text())
    cases = []
    for i in range(entries):
        e = examples[i % len(examples)]
        case = {
            "id": f"{e['id']}-{i:06d}",
            "ticket": f"{e['ticket']} (case {i})",
            "response": f"{e['response']} (case {i})",
        }
        cases.append(case | {k: e[k] for k in ("metadata", "expected") if k in e})
    (folder / "evals").mkdir(parents=True, exist_ok=True)
    (folder / "evals" / "support.json").write_text(json.dumps(cases))
    (folder / "test_plain.py").write_text(PLAIN_TEST)


def environment(url: str) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "JUDGE_"))}
    keep.pop("PYTEST_ADDOPTS", None)
    return keep | {"OPENAI_BASE_URL": url, "OPENAI_API_KEY": "bench", "JUDGE_PROVIDER": "openai"}


def scale(server: Server, folder: Path, entries: int) -> tuple[Measured, Measured, str]:
    write_suite(folder, entries)
    env = environment(server.url)
    server.ask("latency", 0.0)
    plain = run(folder, ["-p", "no:llmjudge", "test_plain.py"], env)
    results = folder / "results.json"
    cache = folder / "cache"
    shutil.rmtree(cache, ignore_errors=True)
    args = [
        "evals/",
        f"--judge-runs={RUNS}",
        "-o",
        "llmjudge_batch=true",
        "-o",
        f"llmjudge_cache={cache}",
    ]
    plugin = run(folder, [*args, f"--judge-output={results}"], env)
    return plain, plugin, completeness(results, entries)


def completeness(results: Path, entries: int) -> str:
    """Whether the results file has every entry, each judged on both dimensions over every
    run, and the runs and requests counted (or what is missing)."""
    if not results.exists():
        return "no results file"
    data = json.loads(results.read_text())
    rows, meta = data["results"], data["meta"]
    ids = {row["id"] for row in rows}
    whole = [
        row
        for row in rows
        if row.get("judged", True)
        and all(
            len((row.get(name) or {}).get("runs", [])) == RUNS for name in ("relevance", "tone")
        )
    ]
    found = (
        f"{len(ids):,} of {entries:,} entries, {len(whole):,} judged on 2 x {RUNS} runs, "
        f"runs counted {meta.get('judgments'):,}, requests {meta.get('calls'):,}, "
        f"complete {meta.get('complete')}"
    )
    every = len(ids) == len(rows) == len(whole) == entries
    counted = meta.get("judgments") == entries * 2 * RUNS and meta.get("complete") is True
    return found if every and counted else f"INCOMPLETE: {found}"


def direct(server: Server, folder: Path, in_flight: int) -> tuple[Measured, int]:
    write_suite(folder, DIRECT_ENTRIES)
    env = environment(server.url)
    server.ask("latency", DIRECT_LATENCY)
    cache = folder / "cache-direct"
    shutil.rmtree(cache, ignore_errors=True)
    args = ["evals/", f"--judge-runs={RUNS}", f"--judge-concurrency={in_flight}"]
    args += ["-o", f"llmjudge_cache={cache}", f"--judge-output={folder / 'direct.json'}"]
    measured = run(folder, args, env)
    counted = server.ask("count")
    assert isinstance(counted, tuple)
    return measured, int(counted[0])


def cell(m: Measured) -> str:
    return f"{m.rss_mb:,.0f} MB / {m.wall:.1f} s ({m.cpu:.1f} s)"


def print_direct(server: Server, folder: Path, in_flight: int) -> None:
    measured, requests = direct(server, folder / "direct", in_flight)
    per = measured.cpu * 1000 / max(requests, 1)
    print(
        f"direct path ({DIRECT_ENTRIES:,} entries x 2 x {RUNS} runs, "
        f"{DIRECT_LATENCY * 1000:.0f} ms, {in_flight} in flight): "
        f"{requests:,} requests, wall {measured.wall:.2f} s, CPU "
        f"{measured.cpu:.2f} s = {per:.2f} ms per request "
        f"(target <= {CPU_MS_PER_REQUEST:g}: {verdict(per <= CPU_MS_PER_REQUEST)}), "
        f"exit {measured.exit_status}",
        flush=True,
    )


def verdict(met: bool) -> str:
    return "met" if met else "NOT met"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[10_000])
    parser.add_argument("--direct-only", action="store_true")
    parser.add_argument("--no-direct", action="store_true")
    parser.add_argument("--in-flight", type=int, nargs="+", default=[DIRECT_CONCURRENCY])
    parser.add_argument("--keep", type=Path, help="write the suites and results here")
    options = parser.parse_args()
    server = Server()
    folder = options.keep or Path(tempfile.mkdtemp(prefix="bench-scale-"))
    folder.mkdir(parents=True, exist_ok=True)
    print(f"{os.cpu_count()} cores, Python {sys.version.split()[0]}; server at {server.url}")
    try:
        if not options.direct_only:
            print(
                "| entries | pytest's own: RSS / wall (CPU) | plugin, batch: RSS / wall (CPU) "
                "| plugin adds per entry | target (+6 KB, +1.2 ms) | results |"
            )
            print("|---|---|---|---|---|---|")
            for entries in options.sizes:
                plain, plugin, complete = scale(server, folder / f"n{entries}", entries)
                kb = (plugin.rss_mb - plain.rss_mb) * 1024 / entries
                ms = (plugin.wall - plain.wall) * 1000 / entries
                met = kb <= KB_PER_ENTRY and ms <= MS_PER_ENTRY
                print(
                    f"| {entries:,} | {cell(plain)} | {cell(plugin)} "
                    f"| {kb:.1f} KB / {ms:.2f} ms | {verdict(met)} "
                    f"| {complete}; exit {plugin.exit_status} |",
                    flush=True,
                )
                if plugin.exit_status != 0:
                    print(plugin.output[-3000:])
        if not options.no_direct:
            for in_flight in options.in_flight:
                print_direct(server, folder, in_flight)
    finally:
        server.stop()
        if options.keep is None:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()

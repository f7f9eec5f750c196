"""Generated eval files at benchmark size: tests/property/ with 2,000 or more examples.

Run it by hand (it is not part of the test suite):

    python benchmarks/bench_generated_input.py                  # 2,000 examples, 2 shards
    python benchmarks/bench_generated_input.py --examples 4000 --shards 4 --seed 7

Shards run side by side; each runs chunks of ``--chunk`` examples one after the other, every
chunk one pytest process running tests/property/ under Hypothesis's ``benchmark`` profile
(random, not derandomized like CI's) with its own seed. A line is printed as each chunk
ends: its seed, the examples Hypothesis ran (its own statistics), the wall time and the
outcome; then the totals. A failing chunk prints its falsifying example; ``--hypothesis-seed``
with that seed reproduces it. Hypothesis keeps failing examples in ``.hypothesis/`` (git
ignores it), so a rerun tries them first.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Hypothesis's statistics: "- 500 passing, 0 failing, and 3 invalid test cases" per phase
EXAMPLES = re.compile(r"(\d+) passing, (\d+) failing, and (\d+) invalid")


class Totals:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.examples = self.discarded = self.failed_chunks = 0


def run_chunk(seed: int, examples: int, log: Path) -> tuple[int, int, int, float, str]:
    """One pytest process: (exit status, examples, discarded, seconds, its output)."""
    env = {
        **os.environ,
        "LLMJUDGE_HYPOTHESIS_PROFILE": "benchmark",
        "LLMJUDGE_HYPOTHESIS_EXAMPLES": str(examples),
    }
    command = [
        sys.executable, "-m", "pytest", "tests/property", "-p", "no:randomly", "-q",
        "-p", "no:cacheprovider", f"--hypothesis-seed={seed}", "--hypothesis-show-statistics",
    ]  # fmt: skip
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    text = done.stdout + done.stderr
    log.write_text(text)
    runs = [tuple(int(n) for n in m.groups()) for m in EXAMPLES.finditer(text)]
    ran = sum(r[0] + r[1] for r in runs)
    return done.returncode, ran, sum(r[2] for r in runs), seconds, text


def shard(number: int, chunks: list[tuple[int, int]], totals: Totals) -> None:
    for seed, examples in chunks:
        log = ROOT / f".hypothesis-seed-{seed}.log"
        status, ran, discarded, seconds, text = run_chunk(seed, examples, log)
        verdict = "passed" if status == 0 else f"FAILED (exit {status})"
        with totals.lock:
            totals.examples += ran
            totals.discarded += discarded
            print(
                f"shard {number} seed={seed}: {ran} examples ({discarded} discarded) in "
                f"{seconds:.0f} s: {verdict}; log {log.name}",
                flush=True,
            )
            if status != 0:
                totals.failed_chunks += 1
                found = text.find("Falsifying example")
                print(text[found : found + 3000] if found >= 0 else text[-3000:], flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--examples", type=int, default=2_000, help="in all shards together")
    parser.add_argument("--shards", type=int, default=2, help="pytest processes side by side")
    parser.add_argument("--chunk", type=int, default=250, help="examples per pytest process")
    parser.add_argument("--seed", type=int, default=int(time.time()) % 100_000)
    args = parser.parse_args()
    chunks: list[list[tuple[int, int]]] = [[] for _ in range(args.shards)]
    left, seed = args.examples, args.seed
    while left > 0:
        size = min(args.chunk, left)
        chunks[(seed - args.seed) % args.shards].append((seed, size))
        left, seed = left - size, seed + 1
    totals = Totals()
    started = time.perf_counter()
    threads = [
        threading.Thread(target=shard, args=(n, c, totals)) for n, c in enumerate(chunks) if c
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - started
    print(
        f"{totals.examples} examples ({totals.discarded} discarded) in {wall:.0f} s "
        f"({wall / max(totals.examples, 1):.2f} s per example, {args.shards} shards); "
        f"{totals.failed_chunks} chunk(s) failed"
    )
    return 1 if totals.failed_chunks else 0


if __name__ == "__main__":
    sys.exit(main())

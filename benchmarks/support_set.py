"""The support-answer set: plain correct answers that must pass and bad ones that must fail.

    python benchmarks/support_set.py           # judged through the plugin, per split and area

``data/support_answers.jsonl`` holds 3396 support tickets from 12 areas, each with a correct
answer and one bad answer (rude, dismissive, too casual, evasive, off-topic or filler),
written for this project (``data/README.md``). Its splits: ``development`` (fitted and tuned
on); ``held-out-1`` to ``held-out-45`` (each measured once untouched; all but
``held-out-32`` then used to find faults: development data since); ``held-out-46`` (written
before the next change, never tuned on): the measure.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data" / "support_answers.jsonl"
SPLITS = (
    "development",
    "held-out-1",
    "held-out-2",
    "held-out-3",
    "held-out-4",
    "held-out-5",
    "held-out-6",
    "held-out-7",
    "held-out-8",
    "held-out-9",
    "held-out-10",
    "held-out-11",
    "held-out-12",
    "held-out-13",
    "held-out-14",
    "held-out-15",
    "held-out-16",
    "held-out-17",
    "held-out-18",
    "held-out-19",
    "held-out-20",
    "held-out-21",
    "held-out-22",
    "held-out-23",
    "held-out-24",
    "held-out-25",
    "held-out-26",
    "held-out-27",
    "held-out-28",
    "held-out-29",
    "held-out-30",
    "held-out-31",
    "held-out-32",
    "held-out-33",
    "held-out-34",
    "held-out-35",
    "held-out-36",
    "held-out-37",
    "held-out-38",
    "held-out-39",
    "held-out-40",
    "held-out-41",
    "held-out-42",
    "held-out-43",
    "held-out-44",
    "held-out-45",
    "held-out-46",
)


@dataclass(frozen=True)
class Ticket:
    id: str
    area: str
    split: str
    ticket: str
    correct: str
    kind: str  # of the bad answer
    bad: str


def tickets() -> list[Ticket]:
    with DATA.open(encoding="utf-8") as lines:
        return [Ticket(**json.loads(line)) for line in lines if line.strip()]


def outcomes(rows: list[Ticket], workdir: Path) -> dict[str, str]:
    """pytest on an eval file of every answer with the heuristic judge and the default
    thresholds; entry id (``<ticket>/correct``, ``<ticket>/<kind>``) -> outcome."""
    evals = workdir / "evals"
    evals.mkdir(parents=True, exist_ok=True)
    entries = [
        {"id": f"{row.id}.{which}", "ticket": row.ticket, "response": text}
        for row in rows
        for which, text in (("correct", row.correct), (row.kind, row.bad))
    ]
    (evals / "support.json").write_text(json.dumps(entries), encoding="utf-8")
    output = workdir / "results.json"
    command = [
        sys.executable, "-m", "pytest", "evals/", "-q", "-p", "no:cacheprovider",
        "--judge-provider=heuristic", f"--judge-output={output}", "--tb=no", "--no-header",
    ]  # fmt: skip
    subprocess.run(command, cwd=workdir, capture_output=True, check=False)
    results = json.loads(output.read_text(encoding="utf-8"))["results"]
    return {item["id"]: item["outcome"] for item in results}


@dataclass
class Tally:
    correct: int = 0
    passed: int = 0
    bad: int = 0
    failed: int = 0

    def add(self, row: Ticket, found: dict[str, str]) -> None:
        self.correct += 1
        self.passed += found[f"{row.id}.correct"] == "passed"
        self.bad += 1
        self.failed += found[f"{row.id}.{row.kind}"] == "failed"

    def cells(self) -> str:
        return (
            f"{self.passed:>3}/{self.correct:<3} {self.passed / self.correct:>4.0%}   "
            f"{self.failed:>3}/{self.bad:<3} {self.failed / self.bad:>4.0%}"
        )


def report() -> list[str]:
    """The table: correct answers passed and bad answers failed, per split and per area."""
    rows = tickets()
    with tempfile.TemporaryDirectory() as tmp:
        found = outcomes(rows, Path(tmp))
    by_split: dict[str, Tally] = defaultdict(Tally)
    by_area: dict[str, dict[str, Tally]] = defaultdict(lambda: defaultdict(Tally))
    missed: dict[str, list[str]] = defaultdict(list)
    for row in rows:
        by_split[row.split].add(row, found)
        by_area[row.area][row.split].add(row, found)
        if found[f"{row.id}.correct"] != "passed":
            missed[row.split].append(f"{row.id} correct")
        if found[f"{row.id}.{row.kind}"] != "failed":
            missed[row.split].append(f"{row.id} {row.kind}")
    head = f"{'':14}{'correct passed':>16}   {'bad failed':>12}"
    lines = ["support answers, default thresholds, through the plugin (heuristic judge):", head]
    lines += [f"{split:14}{by_split[split].cells()}" for split in SPLITS]
    lines += ["", f"per area: {SPLITS[0]} | {SPLITS[-1]}"]
    for area, splits in by_area.items():
        lines.append(f"{area:14}{splits[SPLITS[0]].cells()} | {splits[SPLITS[-1]].cells()}")
    lines += ["", "missed: " + "; ".join(f"{s}: {', '.join(m)}" for s, m in missed.items())]
    return lines


if __name__ == "__main__":
    print("\n".join(report()))

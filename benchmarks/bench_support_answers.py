"""Pass rates of the offline heuristic judge on a set of support answers.

    python benchmarks/bench_support_answers.py benchmarks/data/support-answers/dev.json
    python benchmarks/bench_support_answers.py FILE --failures   # also list what went wrong

FILE is a JSON list of ``{id, area, register, kind: correct|bad, bad_class, ticket,
response}``, or the older JSONL set (``data/support_answers.jsonl``: a correct and a bad
answer per ticket line). Each answer is judged on relevance and tone at the default thresholds (3.5
each); an answer passes when both meet them. Prints, for correct answers, the share that
pass (the target: at least 97%) and, for bad ones, the share that fail (at least 85%), by
kind, area, register and bad class. Always exits 0: a measure, not a test.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from pytest_llmjudge.config.options import DEFAULT_THRESHOLD
from pytest_llmjudge.judges.heuristic import score_relevance, score_tone


def load(path: Path) -> list[dict[str, Any]]:
    """The rows of a set in either format."""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".jsonl":
        rows: list[dict[str, Any]] = json.loads(text)
        return rows
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    common = ("area", "ticket")
    return [
        {"id": f"{line['id']}.{kind}", "kind": kind, "register": "-", "response": line[field]}
        | {"bad_class": line["kind"] if kind == "bad" else None}
        | {key: line[key] for key in common}
        for line in lines
        for kind, field in (("correct", "correct"), ("bad", "bad"))
    ]


def judged(row: dict[str, Any]) -> tuple[bool, str]:
    """Whether the answer passes the default thresholds, and the failing reasons."""
    relevance = score_relevance(row["ticket"], row["response"])
    tone = score_tone(row["response"])
    failing = [
        f"{name} {score}: {reason}"
        for name, (score, reason) in (("relevance", relevance), ("tone", tone))
        if score < DEFAULT_THRESHOLD
    ]
    return not failing, "; ".join(failing)


def table(rows: list[dict[str, Any]], outcomes: dict[str, bool], key: str) -> list[str]:
    """One line per value of ``key``: correct answers passed, bad answers failed."""
    groups: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        groups[str(row.get(key) or "-")][row["kind"]].append(outcomes[row["id"]])
    lines = [f"by {key}:", f"  {'':16} {'correct passed':>18} {'bad failed':>14}"]
    for value in sorted(groups):
        correct, bad = groups[value]["correct"], groups[value]["bad"]
        lines.append(
            f"  {value:16} {_rate(sum(correct), len(correct)):>18} "
            f"{_rate(len(bad) - sum(bad), len(bad)):>14}"
        )
    return lines


def _rate(hits: int, total: int) -> str:
    return f"{hits}/{total} ({hits / total:.0%})" if total else "-"


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 0
    rows = load(Path(argv[0]))
    outcomes, reasons = {}, {}
    for row in rows:
        outcomes[row["id"]], reasons[row["id"]] = judged(row)
    print(f"{argv[0]}: {len(rows)} answers, thresholds relevance and tone {DEFAULT_THRESHOLD}")
    for key in ("kind", "area", "register", "bad_class"):
        print("\n".join(table(rows, outcomes, key)))
    if "--failures" in argv:
        print("wrong verdicts:")
        for row in rows:
            passed = outcomes[row["id"]]
            if passed != (row["kind"] == "correct"):
                why = reasons[row["id"]] or "passed"
                print(f"  {row['id']} ({row['kind']}, {row.get('bad_class') or '-'}): {why}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

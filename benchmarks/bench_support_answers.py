"""Verdicts of the offline heuristic judge on sets of support answers.

    python benchmarks/bench_support_answers.py FILE [FILE ...]
    python benchmarks/bench_support_answers.py FILE --failures   # also list the wrong verdicts

FILE is a JSON list of ``{id, area, register, kind: correct|bad, bad_class, ticket,
response}``, or writer A's JSONL set (``data/support-answers/dev-writer-A.jsonl``: a correct
and a bad response per ticket line, the bad one's class in ``kind``). Each response is judged
on relevance and tone at the default thresholds; it passes when both meet them. Prints, per
file, the correct responses that pass, by register, and the bad responses that fail, by
``bad_class``: first the classes the judge targets (empty, placeholder, profane, insulting,
shouting), then the others, which are reported, not targeted. Always exits 0: a measure, not
a test.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from pytest_llmjudge.config.options import DEFAULT_THRESHOLD
from pytest_llmjudge.judges.heuristic import score_relevance, score_tone

TARGETED = ("empty", "placeholder", "profane", "insulting", "shouting")


def load(path: Path) -> list[dict[str, Any]]:
    """The rows of a set in either format."""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".jsonl":
        rows: list[dict[str, Any]] = json.loads(text)
        return rows
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    return [
        {"id": f"{line['id']}.{kind}", "kind": kind, "register": "-", "response": line[field]}
        | {"bad_class": line["kind"] if kind == "bad" else None, "ticket": line["ticket"]}
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


def _rate(hits: int, total: int) -> str:
    return f"{hits}/{total} ({hits / total:.0%})" if total else "-"


def report(name: str, rows: list[dict[str, Any]], failures: bool) -> list[str]:
    """The file's tables: correct passed by register, bad failed by class."""
    passed, reasons = {}, {}
    for row in rows:
        passed[row["id"]], reasons[row["id"]] = judged(row)
    by_register: dict[str, list[bool]] = defaultdict(list)
    by_class: dict[str, list[bool]] = defaultdict(list)
    for row in rows:
        if row["kind"] == "correct":
            by_register[str(row.get("register") or "-")].append(passed[row["id"]])
        else:
            by_class[str(row.get("bad_class") or "-")].append(not passed[row["id"]])
    correct = [p for group in by_register.values() for p in group]
    lines = [f"{name}: {len(rows)} answers, thresholds relevance and tone {DEFAULT_THRESHOLD}"]
    lines.append(f"  correct passed: {_rate(sum(correct), len(correct))}")
    lines += [f"    {r:14} {_rate(sum(v), len(v))}" for r, v in sorted(by_register.items())]
    for title, classes in (
        ("targeted", [c for c in TARGETED if c in by_class]),
        ("others (reported, not targeted)", sorted(c for c in by_class if c not in TARGETED)),
    ):
        failed = [f for c in classes for f in by_class[c]]
        lines.append(f"  bad failed, {title}: {_rate(sum(failed), len(failed))}")
        lines += [f"    {c:14} {_rate(sum(by_class[c]), len(by_class[c]))}" for c in classes]
    if failures:
        lines.append("  wrong verdicts:")
        for row in rows:
            if passed[row["id"]] != (row["kind"] == "correct"):
                why = reasons[row["id"]] or "passed"
                lines.append(f"    {row['id']} ({row.get('bad_class') or row['kind']}): {why}")
    return lines


def main(argv: list[str]) -> int:
    files = [a for a in argv if not a.startswith("--")]
    if not files:
        print(__doc__)
        return 0
    for name in files:
        print("\n".join(report(name, load(Path(name)), "--failures" in argv)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

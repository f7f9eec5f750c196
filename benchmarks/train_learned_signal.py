"""Train the offline judge's learned signal and measure it leave-one-writer-out.

    python benchmarks/train_learned_signal.py            # the LOWO table, then write the weights
    python benchmarks/train_learned_signal.py --table    # the LOWO table only
    python benchmarks/train_learned_signal.py --write    # the weights only
    python benchmarks/train_learned_signal.py --check    # exit 1 if the shipped weights differ

The data are support answers by eleven independent writers, all in this repository: A
(``data/support_answers.jsonl``, a correct and a bad answer per ticket; a fixed sample of its
tickets, so that it does not outweigh the others), B (``support-answers/dev.json`` and
``heldout.json``), C (``heldout-2.json``), D (``heldout-3.json``), E (``probes-41e.json``), F
(``heldout-4.json``), G (``heldout-5.json``), H (``heldout-6.json``), I (``heldout-7.json``),
J (``heldout-8.json``), K (``heldout-9.json``).
Each writer weighs the same in training, and within a writer correct and bad answers weigh
the same. A word, pair of words or first word is a feature only when most training writers
used it, so no area's or writer's vocabulary is learned. The model is an L2-regularised
logistic regression, fitted by full-batch gradient descent in a fixed order: pure Python, the
same weights on every run.

Leave-one-writer-out: for each writer, a model is trained on the others and measured on it;
its threshold comes from the training writers alone (each of them left out in turn of an inner
fit, the threshold is the lowest probability that fails at most ``FALSE_FAIL`` of their correct
answers the judge passes). The shipped weights are fitted on all eleven writers, with the
threshold chosen the same way from the eleven leave-one-writer-out fits.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench_support_answers import load

from pytest_llmjudge.config.options import DEFAULT_THRESHOLD
from pytest_llmjudge.judges.heuristic import score_tone
from pytest_llmjudge.judges.heuristic.learned import features, probability
from pytest_llmjudge.judges.heuristic.relevance import relevance_signal, spared

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "benchmarks" / "data"
OUT = ROOT / "pytest_llmjudge" / "judges" / "heuristic" / "data" / "learned_weights.json"
A_SAMPLE = 7  # every 7th ticket of writer A's set (485 tickets, 970 answers)
MOST = 0.6  # a word is a feature when at least this share of the training writers used it
L2 = 0.02
STEPS = 150
FALSE_FAIL = 0.01  # the share of the correct answers the judge passes that the signal may fail
CLASSES = ("dismissive", "evasive", "off-topic", "rude", "filler", "empty", "casual", "-")
Row = dict[str, Any]


def writers() -> dict[str, list[Row]]:
    """Each writer's rows: ticket, response, bad (bool), bad_class."""
    sets = DATA / "support-answers"
    a = [r for i, r in enumerate(load(DATA / "support_answers.jsonl")) if (i // 2) % A_SAMPLE == 0]
    found = {
        "A": a,
        "B": load(sets / "dev.json") + load(sets / "heldout.json"),
        "C": load(sets / "heldout-2.json"),
        "D": load(sets / "heldout-3.json"),
        "E": load(sets / "probes-41e.json"),
        "F": load(sets / "heldout-4.json"),
        "G": load(sets / "heldout-5.json"),
        "H": load(sets / "heldout-6.json"),
        "I": load(sets / "heldout-7.json"),
        "J": load(sets / "heldout-8.json"),
        "K": load(sets / "heldout-9.json"),
    }
    for name, rows in found.items():
        for row in rows:
            row["writer"], row["bad"] = name, row["kind"] == "bad"
            row["features"] = features(row["ticket"], row["response"])
            row["main passes"] = _rules_pass(row)
            row["spared"] = spared(row["ticket"], row["response"])
    return found


def _rules_pass(row: Row) -> bool:
    """Whether the judge's rules, without the learned signal, pass the answer."""
    relevance = relevance_signal(row["ticket"], row["response"])
    low = relevance is not None and relevance[0] < DEFAULT_THRESHOLD
    return not low and score_tone(row["response"])[0] >= DEFAULT_THRESHOLD


def vocabulary(rows: Sequence[Row]) -> set[str]:
    """The word features that at least ``MOST`` of the rows' writers used."""
    by_writer: dict[str, set[str]] = {}
    for row in rows:
        by_writer.setdefault(row["writer"], set()).update(
            n for n in row["features"] if not n.startswith("f:")
        )
    needed = math.ceil(MOST * len(by_writer))
    counts: dict[str, int] = {}
    for names in by_writer.values():
        for name in names:
            counts[name] = counts.get(name, 0) + 1
    return {n for n, c in counts.items() if c >= needed}


def fit(rows: Sequence[Row]) -> dict[str, float]:
    """Logistic regression weights: every writer and, within it, each kind weighs the same."""
    kept = vocabulary(rows)
    names = sorted({n for r in rows for n in r["features"] if n.startswith("f:") or n in kept})
    index = {n: i for i, n in enumerate(names)}
    sizes: dict[tuple[str, bool], int] = {}
    for row in rows:
        sizes[row["writer"], row["bad"]] = sizes.get((row["writer"], row["bad"]), 0) + 1
    share = 1 / len({r["writer"] for r in rows}) / 2
    data = [
        (
            [(index[n], v) for n, v in r["features"].items() if n in index],
            float(r["bad"]),
            share / sizes[r["writer"], r["bad"]],
        )
        for r in rows
    ]
    weights = [0.0] * len(names)
    squares = [1e-8] * len(names)  # AdaGrad: each weight's own step
    for _ in range(STEPS):
        gradient = [L2 * w for w in weights]
        for active, label, weight in data:
            total = sum(weights[i] * v for i, v in active)
            error = weight * (1 / (1 + math.exp(-max(-30.0, min(30.0, total)))) - label)
            for i, v in active:
                gradient[i] += error * v
        for i, g in enumerate(gradient):
            squares[i] += g * g
            weights[i] -= 0.5 * g / math.sqrt(squares[i])
    return {n: round(w, 4) for n, w in zip(names, weights, strict=True) if round(w, 4)}


def threshold(scored: Sequence[tuple[Row, float]]) -> float:
    """The lowest probability that fails at most ``FALSE_FAIL`` of the correct answers the
    judge passes, of every writer alike (the largest share over writers counts)."""
    passed: dict[str, list[float]] = {}
    for row, p in scored:
        if not row["bad"] and row["main passes"]:  # (what it spares, it cannot fail)
            passed.setdefault(row["writer"], []).append(0.0 if row["spared"] else p)
    best = 0.5
    for candidate in sorted({round(p, 4) for _, p in scored} | {0.5, 0.999}, reverse=True):
        if candidate < 0.5:
            break
        worst = max(sum(p >= candidate for p in ps) / len(ps) for ps in passed.values())
        if worst > FALSE_FAIL:
            break
        best = candidate
    return best


def out_of_sample(every: dict[str, list[Row]], names: Sequence[str]) -> list[tuple[Row, float]]:
    """Each named writer's rows, scored by a model fitted on the other named writers."""
    scored = []
    for left in names:
        weights = fit([r for n in names if n != left for r in every[n]])
        scored += [(r, probability(weights, r["features"])) for r in every[left]]
    return scored


def lowo(every: dict[str, list[Row]]) -> list[str]:
    """The table: for each writer left out, main's judge and main's judge with the signal."""
    head = f"{'writer':7}{'judge':9}{'correct pass':>15}{'bad fail':>10}"
    lines = [head + "".join(f"{c:>12}" for c in CLASSES)]
    for left in every:
        training = [n for n in every if n != left]
        t = threshold(out_of_sample(every, training))
        weights = fit([r for n in training for r in every[n]])
        rows = every[left]
        fails = {id(r): not r["spared"] and probability(weights, r["features"]) >= t for r in rows}
        rules = [(r, r["main passes"]) for r in rows]
        lines.append(f"{left:7}{'rules':9}" + _rates(rules))
        both = [(r, ok and not fails[id(r)]) for r, ok in rules]
        lines.append(f"{left:7}{f'+ {t:.3f}':9}" + _rates(both))
    return lines


def _rates(verdicts: list[tuple[Row, bool]]) -> str:
    correct = [ok for r, ok in verdicts if not r["bad"]]
    bad = [not ok for r, ok in verdicts if r["bad"]]
    cells = [f"{sum(correct)}/{len(correct)}", f"{sum(bad)}/{len(bad)}"]
    for name in CLASSES:
        bad = [not ok for r, ok in verdicts if r["bad"] and (r.get("bad_class") or "-") == name]
        cells.append(f"{sum(bad)}/{len(bad)}" if bad else "")
    return f"{cells[0]:>15}{cells[1]:>10}" + "".join(f"{c:>12}" for c in cells[2:])


def shipped(every: dict[str, list[Row]]) -> str:
    """The weights file: fitted on every writer, the threshold from their LOWO fits."""
    t = threshold(out_of_sample(every, list(every)))
    weights = fit([r for rows in every.values() for r in rows])
    return json.dumps({"threshold": t, "weights": weights}, indent=0, sort_keys=True) + "\n"


def main(argv: list[str]) -> int:
    every = writers()
    if not {"--write", "--check"} & set(argv):
        print("\n".join(lowo(every)))
    if "--table" in argv:
        return 0
    text, name = shipped(every), OUT.relative_to(ROOT)
    if "--check" in argv:
        same = OUT.read_text(encoding="utf-8") == text
        print(f"{name}: {'reproduced byte for byte' if same else 'DIFFERS from the script'}")
        return 0 if same else 1
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {name}: {len(json.loads(text)['weights'])} weights")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

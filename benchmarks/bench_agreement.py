"""How well the heuristic judge agrees with people, measured through the plugin.

    python benchmarks/bench_agreement.py

Builds eval files from the development rows in ../shared/data/judge-dev/ (Topical-Chat
replies with their conversation's last turns as the ticket; Wikipedia talk-page requests),
runs ``pytest`` on them with the heuristic judge, reads the results JSON and prints
Spearman's rho between the judge's mean score and the human rating, per dimension, beside
trivial baselines computed on the same rows. Also per half of each file and the judge's time
per judgment. The offline judge is built to catch the blatant, not to rank answers: these
figures are reported, not targeted (``bench_support_answers.py`` measures what it is for).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from heuristic_data import Row, halves, relevance_rows, tone_rows

from pytest_llmjudge.analysis.agreement import spearman
from pytest_llmjudge.judges.heuristic import score_relevance, score_tone
from pytest_llmjudge.judges.heuristic.text import sentiment, words

TONE_TICKET = "A request left on a Wikipedia talk page."  # the eval format needs a ticket


def judged_by_plugin(rows: list[Row], workdir: Path) -> dict[str, dict[str, float]]:
    """pytest on an eval file of the rows; id -> {dimension: mean score} from the results."""
    evals = workdir / "evals"
    evals.mkdir(parents=True, exist_ok=True)
    entries = [
        {"id": r.id, "ticket": r.ticket or TONE_TICKET, "response": r.response} for r in rows
    ]
    (evals / "dev.json").write_text(json.dumps(entries), encoding="utf-8")
    output = workdir / "results.json"
    command = [
        sys.executable, "-m", "pytest", "evals/", "-q", "-p", "no:cacheprovider",
        "--judge-provider=heuristic", f"--judge-output={output}", "--tb=no", "--no-header",
    ]  # fmt: skip
    subprocess.run(command, cwd=workdir, capture_output=True, check=False)
    results = json.loads(output.read_text(encoding="utf-8"))["results"]
    return {
        item["id"]: {d: item[d]["score"] for d in ("relevance", "tone") if item.get(d)}
        for item in results
    }


def length(row: Row) -> float:
    return float(len(row.response))  # characters


def mean_valence(row: Row) -> float:
    lexicon = sentiment()
    found = [lexicon[w.lower()] for w in words(row.response) if w.lower() in lexicon]
    return sum(found) / len(found) if found else 0.0


def rho(rows: list[Row], measure: Callable[[Row], float]) -> float:
    return spearman([measure(r) for r in rows], [r.human for r in rows]) or 0.0


def per_judgment_ms(rows: list[Row]) -> float:
    started = time.perf_counter()
    for row in rows:
        score_relevance(row.ticket or TONE_TICKET, row.response)
        score_tone(row.response)
    return (time.perf_counter() - started) * 1000 / (2 * len(rows))


def main() -> None:
    cases = (
        ("relevance", "Topical-Chat coherence", relevance_rows()),
        ("tone", "Wikipedia politeness", tone_rows()),
    )
    print(f"{'dimension':10} {'human rating':24} {'rows':>5} {'judge':>6} {'half 1':>7}", end="")
    print(f" {'half 2':>7} {'length':>7} {'sentiment':>9}")
    with tempfile.TemporaryDirectory() as tmp:
        for dimension, label, rows in cases:
            scores = judged_by_plugin(rows, Path(tmp) / dimension)

            def judge(
                row: Row, scores: dict[str, dict[str, float]] = scores, dimension: str = dimension
            ) -> float:
                return scores[row.id][dimension]

            first, second = halves(rows)
            figures = [rho(rows, judge), rho(first, judge), rho(second, judge)]
            figures += [rho(rows, length), rho(rows, mean_valence)]
            shown = " ".join(f"{f:>7.3f}" for f in figures[:4]) + f" {figures[4]:>9.3f}"
            print(f"{dimension:10} {label:24} {len(rows):>5} {shown}")
    short = [r for r in relevance_rows() + tone_rows() if len(r.ticket + r.response) < 2000]
    print(f"time per judgment (in-process, {2 * len(short)} judgments of texts under 2,000")
    print(f"characters): {per_judgment_ms(short):.3f} ms")


if __name__ == "__main__":
    main()

"""Fit the heuristic judge's weights on the development data and write them to the package.

    python benchmarks/fit_heuristic.py            # fit, validate across halves, write weights
    python benchmarks/fit_heuristic.py --check    # fit and validate only

Writes ``pytest_llmjudge/judges/heuristic/data/weights.json`` (a ridge regression per
dimension over the measured signals, fitted in standardised units and stored in raw ones)
and ``data/document_frequency.tsv`` (how many development texts contain each word, for the
rarity weights). Signals the development data cannot teach (hedges in answers, filler,
concrete commands: the data has requests and chit-chat, not support answers) keep fixed
prior weights, written beside the fitted ones and marked as priors.

Validation: fit on one half of each file (split by conversation or request), score the other
half, and the other way round; the Spearman figures printed are on held-out rows.
"""

from __future__ import annotations

import argparse
import collections
import json
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from heuristic_data import DATA, Row, halves, relevance_rows, tone_rows

from pytest_llmjudge.analysis.agreement import spearman
from pytest_llmjudge.judges.heuristic import model, score_relevance, score_tone
from pytest_llmjudge.judges.heuristic.relevance import relevance_signals
from pytest_llmjudge.judges.heuristic.text import content_terms, normalise, rarity
from pytest_llmjudge.judges.heuristic.tone import tone_signals

PACKAGE_DATA = Path(model.__file__).resolve().parent / "data"
RIDGE = 30.0  # in standardised units; chosen by held-out Spearman, see --check

#: weights the data cannot teach, in the label's units (politeness z, coherence 1-3)
PRIORS: dict[str, dict[str, float]] = {
    # The politeness data holds requests: casual slang there reads as friendly, while the
    # tone rubric (professional and concise) marks it down in an answer.
    "tone": {
        "hedges in an answer": -0.35,
        "filler": -0.35,
        "insult": -0.8,
        "slang": -0.3,
        "slang in an answer": -0.3,
        # dismissing the problem or blaming the asker is rude in an answer (the requests of
        # the politeness data rarely do it): as strong as an insult
        "dismissal or blame": -0.8,
    },
    "relevance": {"concrete commands/settings": 0.15},
}
#: how a predicted label becomes a 1-5 score: which text scores the centre of the scale,
#: and how many points one standard deviation of the prediction is worth
CALIBRATION = {
    # A plain text, with no politeness strategy and no rudeness, is professional: a 4.
    # Thanks and apologies lift it, insults and shouting sink it.
    "tone": {"reference": "plain", "centre": 4.0, "points_per_sd": 1.0},
    # The average development reply is a 3.
    "relevance": {"reference": "average", "centre": 3.0, "points_per_sd": 1.1},
}
Extractor = Callable[[Row], dict[str, float]]
EXTRACTORS: dict[str, Extractor] = {
    "tone": lambda row: tone_signals(row.response).values(),
    "relevance": lambda row: relevance_signals(row.ticket, row.response).values(),
}
Scorer = Callable[[Row, model.DimensionModel], tuple[int, str]]
SCORERS: dict[str, Scorer] = {
    "tone": lambda row, fitted: score_tone(row.response, fitted),
    "relevance": lambda row, fitted: score_relevance(row.ticket, row.response, fitted),
}


def document_frequency() -> tuple[int, dict[str, int]]:
    texts = [row.response for row in tone_rows()]
    chat = json.loads((DATA / "topical_chat_coherence.json").read_text(encoding="utf-8"))
    for row in chat:
        texts += [*row["source"].split("\n"), row["system_output"], row["context"]]
    documents = list(dict.fromkeys(t.strip() for t in texts if t.strip()))
    counts: collections.Counter[str] = collections.Counter()
    for text in documents:
        counts.update(set(content_terms(normalise(text))))
    return len(documents), {t: c for t, c in sorted(counts.items()) if c >= 2}


def solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (the system is small and well-posed)."""
    n = len(vector)
    a = [[*row, vector[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        for r in range(n):
            if r != col and a[col][col]:
                factor = a[r][col] / a[col][col]
                a[r] = [x - factor * y for x, y in zip(a[r], a[col], strict=True)]
    return [a[i][n] / a[i][i] for i in range(n)]


def fit(dimension: str, rows: list[Row], features: list[dict[str, float]]) -> dict[str, object]:
    """Ridge regression on standardised signals; the priors are held fixed."""
    priors = PRIORS[dimension]
    names = [n for n in features[0] if n not in priors]
    targets = [
        row.human - sum(w * f[n] for n, w in priors.items())
        for row, f in zip(rows, features, strict=True)
    ]
    means = {n: statistics.fmean(f[n] for f in features) for n in features[0]}
    spreads = {n: statistics.pstdev(f[n] for f in features) or 1.0 for n in names}
    x = [[(f[n] - means[n]) / spreads[n] for n in names] for f in features]
    y_mean = statistics.fmean(targets)
    y = [t - y_mean for t in targets]
    gram = [
        [sum(r[i] * r[j] for r in x) + (RIDGE if i == j else 0.0) for j in range(len(names))]
        for i in range(len(names))
    ]
    moment = [sum(r[i] * t for r, t in zip(x, y, strict=True)) for i in range(len(names))]
    standardised = solve(gram, moment)
    weights = {n: w / spreads[n] for n, w in zip(names, standardised, strict=True)} | priors
    intercept = y_mean - sum(weights[n] * means[n] for n in names)
    predictions = [intercept + sum(weights[n] * f[n] for n in weights) for f in features]
    calibration = dict(CALIBRATION[dimension])
    if calibration.pop("reference") == "plain":
        # Nothing counted; only the length of an average text.
        reference = {n: 0.0 for n in means} | {"words": means["words"]}
    else:
        reference = means
    return {
        "intercept": round(intercept, 6),
        "weights": {n: round(w, 5) for n, w in weights.items()},
        "priors": sorted(priors),
        "reference": {n: round(m, 5) for n, m in reference.items()},
        "prediction_sd": round(statistics.pstdev(predictions), 6),
        **calibration,
    }


def held_out(dimension: str, rows: list[Row]) -> list[tuple[float, float]]:
    """Per half: Spearman of the 1-5 score and of the raw prediction, fitted on the other."""
    first, second = halves(rows)
    figures = []
    for train, test in ((second, first), (first, second)):
        fitted = model.DimensionModel.from_json(
            fit(dimension, train, [EXTRACTORS[dimension](r) for r in train])
        )
        humans = [row.human for row in test]
        scores = [float(SCORERS[dimension](row, fitted)[0]) for row in test]
        raw = [fitted.predict(EXTRACTORS[dimension](row)) for row in test]
        figures.append((spearman(scores, humans) or 0.0, spearman(raw, humans) or 0.0))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="validate only, write nothing")
    args = parser.parse_args()
    if not args.check:
        documents, frequency = document_frequency()
        lines = [f"#documents\t{documents}"] + [f"{t}\t{c}" for t, c in frequency.items()]
        (PACKAGE_DATA / "document_frequency.tsv").write_text("\n".join(lines) + "\n", "utf-8")
        rarity.cache_clear()
    out: dict[str, object] = {"fitted_on": "../shared/data/judge-dev", "ridge": RIDGE}
    for dimension, rows in (("relevance", relevance_rows()), ("tone", tone_rows())):
        figures = held_out(dimension, rows)
        shown = "; ".join(f"half {i}: {s:.3f} (raw {r:.3f})" for i, (s, r) in enumerate(figures, 1))
        print(f"{dimension:10} held-out Spearman of the 1-5 score, {shown}")
        out[dimension] = fit(dimension, rows, [EXTRACTORS[dimension](r) for r in rows])
    if not args.check:
        path = PACKAGE_DATA / "weights.json"
        path.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {path}")
    for dimension in ("relevance", "tone"):
        weights = out[dimension]["weights"]  # type: ignore[index]
        top = sorted(weights.items(), key=lambda kv: -abs(kv[1]))
        print(dimension, ", ".join(f"{n} {w:+.3f}" for n, w in top))


if __name__ == "__main__":
    main()

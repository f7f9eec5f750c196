"""The fitted linear model: signals in, a 1-5 score and the contributions that made it out.

Weights come from ``data/weights.json`` (written by ``benchmarks/fit_heuristic.py``). A
contribution is a signal's weight times how far this text is from the reference text (the
one that scores the centre of the scale), so the reasoning can name what moved the score.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any


@dataclass(frozen=True)
class DimensionModel:
    intercept: float
    weights: dict[str, float]
    reference: dict[str, float]  # the signals of a text that scores ``centre``
    prediction_sd: float
    centre: float
    points_per_sd: float

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DimensionModel:
        return cls(
            intercept=float(data["intercept"]),
            weights={k: float(v) for k, v in data["weights"].items()},
            reference={k: float(v) for k, v in data["reference"].items()},
            prediction_sd=float(data["prediction_sd"]) or 1.0,
            centre=float(data["centre"]),
            points_per_sd=float(data["points_per_sd"]),
        )

    def predict(self, signals: dict[str, float]) -> float:
        """The predicted human label (in the development data's units)."""
        return self.intercept + sum(w * signals[name] for name, w in self.weights.items())

    def continuous(self, signals: dict[str, float]) -> float:
        """The prediction on the 1-5 scale, before rounding."""
        spread = (self.predict(signals) - self.predict(self.reference)) / self.prediction_sd
        return self.centre + self.points_per_sd * spread

    def score(self, signals: dict[str, float]) -> int:
        # Halves round up (3.5 -> 4), not to the even neighbour as round() does.
        return max(1, min(5, math.floor(self.continuous(signals) + 0.5)))

    def contributions(self, signals: dict[str, float]) -> dict[str, float]:
        """Each signal's push in 1-5 points, measured from the reference text."""
        scale = self.points_per_sd / self.prediction_sd
        return {
            name: w * (signals[name] - self.reference[name]) * scale
            for name, w in self.weights.items()
        }


@cache
def fitted(dimension: str) -> DimensionModel:
    path = resources.files("pytest_llmjudge.judges.heuristic").joinpath("data/weights.json")
    return DimensionModel.from_json(json.loads(path.read_text("utf-8"))[dimension])

"""Prices of judge models, for the cost line of a run.

USD per million tokens (input, output), list prices at the time of writing. Teams with
other prices or models set ``llmjudge_prices`` in ini (``model=input,output`` per line).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

BUILTIN_PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "o4-mini": (1.10, 4.40),
    "gpt-5": (1.25, 10.00),
    "gpt-5-mini": (0.25, 2.00),
    "gpt-5-nano": (0.05, 0.40),
}


@dataclass(frozen=True)
class Price:
    input_per_million: float
    output_per_million: float
    source: str

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (
            prompt_tokens * self.input_per_million + completion_tokens * self.output_per_million
        ) / 1_000_000


def parse_price_lines(lines: Iterable[str]) -> dict[str, tuple[float, float]]:
    """``model=input,output`` lines (USD per million tokens); raise ValueError when malformed."""
    prices: dict[str, tuple[float, float]] = {}
    for line in lines:
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        model, _, numbers = line.partition("=")
        parts = numbers.split(",")
        if not model.strip() or len(parts) != 2:
            raise ValueError(f"expected 'model=input,output', got {line!r}")
        try:
            prompt, completion = float(parts[0]), float(parts[1])
        except ValueError:
            raise ValueError(f"prices must be numbers, got {line!r}") from None
        if prompt < 0 or completion < 0:
            raise ValueError(f"prices must be >= 0, got {line!r}")
        prices[model.strip()] = (prompt, completion)
    return prices


# A dated snapshot of a model: "gpt-4o-mini-2024-07-18" is "gpt-4o-mini" of that day.
_SNAPSHOT = re.compile(r"^(?P<family>.+)-\d{4}-\d{2}-\d{2}$")


def price_for(model: str | None, overrides: Mapping[str, tuple[float, float]]) -> Price | None:
    """The configured or built-in price of a model, or of the model a dated snapshot is of.

    Nothing else is guessed: "gpt-4o-mni" (a typo) or "gpt-4o-audio" is not priced as
    "gpt-4o"; its cost is unknown until llmjudge_prices names it.
    """
    if not model:
        return None
    snapshot = _SNAPSHOT.match(model)
    names = (model, snapshot["family"]) if snapshot else (model,)
    for table, source in ((overrides, "ini llmjudge_prices"), (BUILTIN_PRICES, "built-in")):
        for name in names:
            if name in table:
                return Price(*table[name], source=source)
    return None

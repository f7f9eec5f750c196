"""Prices of judge models, for the cost line of a session.

USD per million tokens (input, output), list prices at the time of writing. Teams with
other prices or models set ``llmjudge_prices`` in ini (``model=input,output`` per line, or
``model=input,output,batch_input,batch_output`` with the Batch API's prices). Requests judged
through the Batch API (``llmjudge_batch``) cost half the direct price unless a line says more.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

BATCH_DISCOUNT = 0.5  # OpenAI's Batch API: half the price of a direct request
Prices = tuple[float, ...]  # input, output[, batch input, batch output] per million tokens

BUILTIN_PRICES: dict[str, Prices] = {
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
    batch_input_per_million: float | None = None  # None: half the direct price
    batch_output_per_million: float | None = None

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (
            prompt_tokens * self.input_per_million + completion_tokens * self.output_per_million
        ) / 1_000_000

    def batch_cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        """Of tokens billed through the Batch API."""
        prompt = self.batch_input_per_million
        completion = self.batch_output_per_million
        if prompt is None or completion is None:
            return self.cost(prompt_tokens, completion_tokens) * BATCH_DISCOUNT
        return (prompt_tokens * prompt + completion_tokens * completion) / 1_000_000


# The provider's own hosts: the built-in table holds its list prices, and only its.
PROVIDER_HOSTS = ("api.openai.com",)


def provider_host(base_url: str | None) -> bool:
    """Whether the judge is the provider's own API (no base URL: the SDK's default)."""
    if not base_url:
        return True
    host = urlsplit(base_url).hostname or ""
    return host in PROVIDER_HOSTS


def configured_price(
    model: str | None, lines: Iterable[str] | None, llm: bool, base_url: str | None = None
) -> Price | None:
    """The price of the judge's model: ini ``llmjudge_prices`` first, then the built-in table
    where the judge is the provider's own host (a local, LAN or other server's model is not
    priced as its namesake); None for the heuristic judge; ValueError for a malformed line."""
    prices = parse_price_lines(lines or [])
    builtin = provider_host(base_url)
    return price_for(model, prices, builtin=builtin) if llm else None


def parse_price_lines(lines: Iterable[str]) -> dict[str, Prices]:
    """``model=input,output[,batch_input,batch_output]`` lines (USD per million tokens);
    raise ValueError when malformed."""
    prices: dict[str, Prices] = {}
    for line in lines:
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        model, _, numbers = line.partition("=")
        parts = numbers.split(",")
        if not model.strip() or len(parts) not in (2, 4):
            raise ValueError(
                f"expected 'model=input,output' or 'model=input,output,batch_input,"
                f"batch_output', got {line!r}"
            )
        try:
            values = tuple(float(part) for part in parts)
        except ValueError:
            raise ValueError(f"prices must be numbers, got {line!r}") from None
        if any(value < 0 for value in values):
            raise ValueError(f"prices must be >= 0, got {line!r}")
        prices[model.strip()] = values
    return prices


# A dated snapshot of a model: "gpt-4o-mini-2024-07-18" is "gpt-4o-mini" of that day.
_SNAPSHOT = re.compile(r"^(?P<family>.+)-\d{4}-\d{2}-\d{2}$")


def price_for(
    model: str | None, overrides: Mapping[str, Prices], *, builtin: bool = True
) -> Price | None:
    """The configured or built-in price of a model, or of the model a dated snapshot is of.

    Nothing else is guessed: "gpt-4o-mni" (a typo) or "gpt-4o-audio" is not priced as
    "gpt-4o"; its cost is unknown until llmjudge_prices names it.
    """
    if not model:
        return None
    snapshot = _SNAPSHOT.match(model)
    names = (model, snapshot["family"]) if snapshot else (model,)
    tables = [(overrides, "ini llmjudge_prices"), (BUILTIN_PRICES, "built-in")][: 1 + builtin]
    for table, source in tables:
        for name in names:
            if name in table:
                prompt, completion, *batch = table[name]
                return Price(prompt, completion, source, *batch)
    return None

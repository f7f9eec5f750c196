"""Session limits on judge calls: ``--judge-max-calls``, ``--judge-max-cost``, a fatal error."""

from __future__ import annotations

from dataclasses import dataclass

from .judges.base import FatalJudgeError, JudgeCallError, Usage
from .pricing import Price


class BudgetExhausted(JudgeCallError):
    """No new calls may be made: ``--judge-max-calls`` or ``--judge-max-cost`` was reached."""


@dataclass
class Budget:
    """Counts requests and spending; says no once a limit is reached or the judge is unusable."""

    max_calls: int | None = None
    max_cost: float | None = None
    price: Price | None = None
    requests: int = 0
    spent_usd: float = 0.0
    fatal: str | None = None  # a bad key or unknown model: every later call would fail too

    def take_request(self) -> None:
        """Count one request about to be sent; raise if none may be sent."""
        if self.fatal is not None:
            raise FatalJudgeError(self.fatal)
        if self.max_calls is not None and self.requests >= self.max_calls:
            raise BudgetExhausted(
                f"judge call budget exhausted: --judge-max-calls={self.max_calls} calls made; "
                "no new calls in this session"
            )
        if self.max_cost is not None and self.price is not None and self.spent_usd >= self.max_cost:
            raise BudgetExhausted(
                f"judge cost budget exhausted: ${self.spent_usd:.4f} spent of "
                f"--judge-max-cost={self.max_cost:g}; no new calls in this session"
            )
        self.requests += 1

    def spend(self, usage: Usage) -> None:
        if self.price is not None:
            self.spent_usd += self.price.cost(usage.prompt_tokens, usage.completion_tokens)

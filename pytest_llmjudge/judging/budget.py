"""Session limits on judge calls: ``--judge-max-calls``, ``--judge-max-cost``, a judge that
refused the session (401/403/404, no key), and a circuit breaker for an unreachable judge."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ..config.pricing import Price
from ..judges.base import FatalJudgeError, JudgeCallError, Usage

# The breaker opens after this many connection failures in a row, spread over at least this
# long: a judge that is down is given up at once, one that blinks for a moment is not.
BREAKER_FAILURES = 5
BREAKER_SECONDS = 1.0


class BudgetExhausted(JudgeCallError):
    """No new calls may be made: ``--judge-max-calls`` or ``--judge-max-cost`` was reached."""


@dataclass
class Budget:
    """Counts requests and spending; says no once a limit is reached or the judge is unusable."""

    max_calls: int | None = None
    max_cost: float | None = None
    price: Price | None = None
    calls: int = 0
    spent_usd: float = 0.0
    fatal: str | None = None  # a bad key or unknown model: every later call would fail too
    _failures_in_a_row: int = 0
    _first_failure: float = field(default=0.0)

    def take_request(self) -> None:
        """Count one request about to be sent; raise if none may be sent."""
        if self.fatal is not None:
            raise FatalJudgeError(self.fatal)
        if self.max_calls is not None and self.calls >= self.max_calls:
            raise BudgetExhausted(
                f"judge call budget exhausted: --judge-max-calls={self.max_calls} calls made; "
                "no new calls in this session"
            )
        if self.max_cost is not None and self.price is not None and self.spent_usd >= self.max_cost:
            raise BudgetExhausted(
                f"judge cost budget exhausted: ${self.spent_usd:.4f} spent of "
                f"--judge-max-cost={self.max_cost:g}; no new calls in this session"
            )
        self.calls += 1

    def connection_failed(self, reason: str) -> None:
        """One more request that could not reach the judge; opens the breaker when enough."""
        now = time.monotonic()
        if self._failures_in_a_row == 0:
            self._first_failure = now
        self._failures_in_a_row += 1
        lasting = now - self._first_failure >= BREAKER_SECONDS
        if self._failures_in_a_row >= BREAKER_FAILURES and lasting and self.fatal is None:
            self.fatal = (
                f"{reason} ({self._failures_in_a_row} connection attempts in a row failed: "
                "no more judge calls in this session)"
            )

    def connection_ok(self) -> None:
        """The judge answered (any HTTP reply): the breaker's count starts again."""
        self._failures_in_a_row = 0

    def spend(self, usage: Usage) -> None:
        if self.price is not None:
            self.spent_usd += self.price.cost(usage.prompt_tokens, usage.completion_tokens)

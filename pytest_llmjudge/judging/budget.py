"""Session limits on judge calls: ``llmjudge_budget calls``, ``llmjudge_budget usd``, a judge that
refused the session (401/403/404, no key), and a circuit breaker for an unreachable judge."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ..basics.redaction import redact
from ..config.pricing import Price
from ..judges.base import FatalJudgeError, JudgeCallError, Usage

# The breaker opens after this many connection failures in a row, spread over at least this
# long: a judge that is down is given up at once, one that blinks for a moment is not.
BREAKER_FAILURES = 5
BREAKER_SECONDS = 1.0


class BudgetExhausted(JudgeCallError):
    """No new calls may be made: ``llmjudge_budget``'s calls or usd was reached."""


NOT_JUDGED = "not judged"  # how a run refused after judging stopped begins


class JudgingStopped(JudgeCallError):
    """A session-wide judge error stopped judging earlier; this run was not sent."""


@dataclass
class Budget:
    """Counts requests and spending; says no once a limit is reached or the judge is unusable."""

    max_calls: int | None = None
    max_cost: float | None = None
    price: Price | None = None
    workers: int = 1  # xdist workers that split the session's budget: each keeps its share
    calls: int = 0
    spent_usd: float = 0.0
    cost_unknown: bool = False  # a reply did not say its tokens: what was spent is unknown
    fatal: str | None = None  # a bad key or unknown model: every later call would fail too
    stopped: str | None = None  # what a run refused afterwards says: where, and the cause
    stopped_fact: str = ""  # the session's summary of it: where, and the cause in short
    _told: bool = False  # whether a run's error has said the whole stopping message
    _failures_in_a_row: int = 0
    _first_failure: float = field(default=0.0)

    def take_request(self) -> None:
        """Count one request about to be sent; raise if none may be sent."""
        if self.stopped is not None:
            if not self._told and self.fatal is not None:
                self._told = True  # the breaker opened between runs: the first refused says it
                raise JudgingStopped(f"judge call failed: {self.fatal}")
            raise JudgingStopped(self.stopped)
        if self.max_calls is not None and self.calls >= self.max_calls:
            raise BudgetExhausted(
                f"judge call budget exhausted: {self._limit(f'calls={self.max_calls}')} made; "
                f"no new calls in {self._scope}"
            )
        spent = self.cost_so_far()
        if self.max_cost is not None and self.price is not None and spent is None:
            raise BudgetExhausted(
                f"judge cost budget cannot be kept: a reply did not say its tokens, so "
                f"{self._limit(f'usd={self.max_cost:g}')} cannot be counted; no new calls in "
                f"{self._scope} (llmjudge_budget calls=N limits requests)"
            )
        if self.max_cost is not None and spent is not None and spent >= self.max_cost:
            raise BudgetExhausted(
                f"judge cost budget exhausted: ${spent:.4f} spent of "
                f"{self._limit(f'usd={self.max_cost:g}')}; no new calls in {self._scope}"
            )
        self.calls += 1

    def _limit(self, share: str) -> str:
        """The limit as the user wrote it, or, under xdist, as this worker's share of it."""
        if self.workers <= 1:
            return f"llmjudge_budget {share}"
        return f"this xdist worker's share of llmjudge_budget ({share}, split over {self.workers})"

    @property
    def _scope(self) -> str:
        return "this session" if self.workers <= 1 else "this worker"

    def connection_failed(self, reason: str) -> None:
        """One more request that could not reach the judge; opens the breaker when enough."""
        now = time.monotonic()
        if self._failures_in_a_row == 0:
            self._first_failure = now
        self._failures_in_a_row += 1
        lasting = now - self._first_failure >= BREAKER_SECONDS
        if self._failures_in_a_row >= BREAKER_FAILURES and lasting and self.fatal is None:
            self.stop(
                FatalJudgeError(
                    f"{reason} ({self._failures_in_a_row} connection attempts in a row failed: "
                    "no more judge calls in this session)",
                    short="the judge could not be reached",
                ),
                where="",
                told=False,
            )

    def stop(self, error: FatalJudgeError, where: str, told: bool = True) -> bool:
        """No more requests in this session; True for the first stop. Its message is said
        once in full (by the run that met it, else by the first run refused: ``told``);
        every other run refused names ``where`` judging stopped and the cause in short."""
        if self.fatal is not None:
            return False
        self.fatal = redact(str(error))
        at = f" at {where}" if where else ""
        self.stopped = redact(f"{NOT_JUDGED}: judging stopped{at} ({error.short})")
        self.stopped_fact = redact(f"judging stopped{at} ({error.short})")
        self._told = told
        return True

    def connection_ok(self) -> None:
        """The judge answered (any HTTP reply): the breaker's count starts again."""
        self._failures_in_a_row = 0

    def cost_so_far(self) -> float | None:
        """What was spent, where the price and every reply's tokens are known."""
        return None if self.price is None or self.cost_unknown else self.spent_usd

    def count_earlier(self, earlier: Usage) -> None:
        """Requests sent and billed before this budget's engine started (the session's items,
        on this process or its xdist workers): the pairs judged after them get what is left."""
        self.calls += earlier.calls
        self.cost_unknown = self.cost_unknown or earlier.tokens_unknown > 0
        if self.price is not None:
            batch = (earlier.batch_prompt_tokens, earlier.batch_completion_tokens)
            direct = (earlier.prompt_tokens - batch[0], earlier.completion_tokens - batch[1])
            self.spent_usd += self.price.cost(*direct) + self.price.batch_cost(*batch)

    def spend(self, usage: Usage) -> None:
        self.cost_unknown = self.cost_unknown or usage.tokens_unknown > 0
        if self.price is not None:
            self.spent_usd += self.price.cost(usage.prompt_tokens, usage.completion_tokens)

"""Judge progress on long runs: what is done, in flight and waiting, what it cost so far,
and how long the rest will take at the pace so far (pure values; the hooks show them)."""

from __future__ import annotations

from dataclasses import dataclass

#: below this many runs a session is short: no progress is shown
FEW_RUNS = 10


@dataclass(frozen=True)
class Progress:
    planned: int  # runs planned or started in this session (cached ones too)
    done: int
    calls: int  # sent so far, retries included
    in_flight: int
    retrying: int  # runs waiting out a backoff or a Retry-After
    tokens: int
    cost_usd: float | None
    elapsed: float  # seconds since the first run started

    @property
    def worth_showing(self) -> bool:
        return self.planned > FEW_RUNS and self.done < self.planned

    def seconds_left(self) -> float | None:
        """At the pace so far; None before anything is done."""
        if self.done == 0 or self.elapsed <= 0:
            return None
        return (self.planned - self.done) * self.elapsed / self.done


def progress_text(p: Progress) -> str:
    """``llmjudge: 120/300 runs judged, 40 requests, 16 in flight, 2 waiting to retry, ...``"""
    parts = [
        f"llmjudge: {p.done}/{p.planned} runs judged",
        f"{p.calls} judge calls",
        f"{p.in_flight} in flight",
    ]
    if p.retrying:
        parts.append(f"{p.retrying} waiting to retry")
    if p.tokens:
        parts.append(f"{p.tokens:,} tokens")
    if p.cost_usd is not None:
        parts.append(f"${p.cost_usd:.4f}")
    left = p.seconds_left()
    if left is not None:
        parts.append(f"about {_duration(left)} left")
    return ", ".join(parts)


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    if seconds < 5400:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"

"""What a test sees of the judge: the ``llmjudge`` fixture and the per-dimension callables."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from ..analysis.judgment import JudgeError, Judgment, NotApplicable
from ..basics.rubrics import NO_CONTEXT, Context, Turn
from ..config.item_settings import ItemSettings
from ..evalfiles.injection import injection_snippets
from .engine import JudgeEngine
from .verdict import Attempt

#: generations per repetition of a test: its reruns stay below it
REPETITION_STRIDE = 1 << 16


class ItemJudge:
    """The ``llmjudge`` fixture: judge (ticket, response) pairs with this test's settings."""

    def __init__(
        self,
        engine: Callable[[], JudgeEngine],
        settings: ItemSettings,
        attempt: Attempt,
        owner: str = "",
        context: Context = NO_CONTEXT,
        repetition: int = 0,
    ) -> None:
        self._engine = engine
        self._repetition = repetition  # pytest-repeat's: each repetition judges afresh
        self.settings = settings
        self._attempt = attempt
        self._owner = owner  # the test's node id, for messages and traces
        self.context = context  # an eval item's earlier turns and reference answer
        self._scanned: tuple[str, str] | None = None  # the texts last flagged for injection

    def judge(
        self,
        dimension: str,
        ticket: str,
        response: str,
        *,
        runs: int | None = None,
        threshold: float | None = None,
        reference: str | None = None,
        conversation: Sequence[tuple[str, str]] | None = None,
    ) -> Judgment:
        """Score ``response`` to ``ticket`` on ``dimension`` over N runs (blocking).

        ``reference`` (a known-good answer, for ``correctness``) and ``conversation`` (the
        earlier (role, content) turns) stand in for an eval entry's. NotApplicable for a
        dimension judged against a reference answer when there is none.
        """
        if reference is not None or conversation is not None:
            given = tuple(Turn(role, content) for role, content in conversation or ())
            scoped = ItemJudge(
                self._engine, self.settings, self._attempt, self._owner, repetition=self._repetition
            )
            scoped.context = Context(given or self.context.conversation, reference)
            return scoped.judge(dimension, ticket, response, runs=runs, threshold=threshold)
        self._admit(dimension, ticket, response)
        limit = threshold if threshold is not None else self.settings.thresholds.get(dimension)
        try:
            judgment = self._engine().judge(
                dimension,
                ticket,
                response,
                runs or self.settings.runs,
                limit or 0.0,
                generation=self._generation(),
                paid=self._attempt.paid,
                owner=self._owner,
                context=self.context,
            )
        except JudgeError as exc:
            self._attempt.errors.append(str(exc))
            raise
        self._attempt.judgments[dimension] = judgment
        return judgment

    def _admit(self, dimension: str, ticket: str, response: str) -> None:
        """Check what is to be judged, and flag instruction-like text in it (never obeyed);
        NotApplicable for a dimension that needs a reference answer when there is none."""
        _validate_text("ticket", ticket)
        _validate_text("response", response)
        if not self._applies(dimension):
            raise NotApplicable(
                f"{dimension}: not applicable without a reference answer (an entry's "
                "'reference', or reference=... in a hand-written test)"
            )
        if self._scanned == (ticket, response):
            return  # the item's other dimensions judge the same texts: flagged already
        self._scanned = (ticket, response)
        turns = [t.content for t in self.context.conversation]
        for snippet in injection_snippets(*turns, ticket, response):
            self._attempt.suspect_injection(snippet)

    def relevance(self, ticket: str, response: str, **options: Any) -> Judgment:
        """Relevance of the response to the ticket, 1-5."""
        return self.judge("relevance", ticket, response, **options)

    def tone(self, ticket: str, response: str, **options: Any) -> Judgment:
        """Tone of the response, 1-5."""
        return self.judge("tone", ticket, response, **options)

    async def ajudge(
        self,
        dimension: str,
        ticket: str,
        response: str,
        *,
        runs: int | None = None,
        threshold: float | None = None,
    ) -> Judgment:
        """``judge`` for async tests: awaits the judgment without blocking their event loop."""
        return await asyncio.to_thread(
            self.judge, dimension, ticket, response, runs=runs, threshold=threshold
        )

    async def arelevance(self, ticket: str, response: str, **options: Any) -> Judgment:
        """Relevance of the response to the ticket, 1-5 (async)."""
        return await self.ajudge("relevance", ticket, response, **options)

    async def atone(self, ticket: str, response: str, **options: Any) -> Judgment:
        """Tone of the response, 1-5 (async)."""
        return await self.ajudge("tone", ticket, response, **options)

    def prefetch(self, dimensions: list[str], ticket: str, response: str) -> None:
        """Start judging now so that later ``judge`` calls overlap instead of queueing."""
        applicable = [name for name in dimensions if self._applies(name)]
        runs, attempt = self.settings.runs, self._generation()
        self._engine().prefetch(
            applicable, ticket, response, runs, attempt, self._owner, self.context
        )

    def _generation(self) -> int:
        """Which sample of its judgments this attempt is: 0 (the cache may serve it) for a
        test's first attempt; a rerun (pytest-rerunfailures) and a repetition after the first
        (pytest-repeat) each judge afresh, never served another's runs, even in memory."""
        return self._repetition * REPETITION_STRIDE + self._attempt.number

    def _applies(self, dimension: str) -> bool:
        known = self._engine().settings.dimensions.get(dimension)
        return known is None or known.applies(self.context)


class DimensionJudge:
    """``relevance_judge`` / ``tone_judge``: a callable (ticket, response) -> Judgment."""

    def __init__(self, judge: ItemJudge, dimension: str) -> None:
        self.item_judge = judge  # the test's: its dimensions are started together
        self.dimension = dimension

    def __call__(self, ticket: str, response: str) -> Judgment:
        return self.item_judge.judge(self.dimension, ticket, response)

    def prefetch(self, ticket: str, response: str) -> None:
        self.item_judge.prefetch([self.dimension], ticket, response)


def _validate_text(name: str, value: object) -> None:
    if not isinstance(value, str) or not value.strip():
        raise JudgeError(f"{name} to judge must be a non-empty string, got {value!r}")

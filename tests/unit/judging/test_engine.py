"""The engine carrying out a judgment's runs, with judges written for these tests: one run
per request, and the default path, the runs as the choices of one request."""

from __future__ import annotations

import asyncio
import threading

import pytest

from pytest_llmjudge.analysis.judgment import JudgeError, RunOutcome
from pytest_llmjudge.basics.rubrics import NO_CONTEXT, Context, Dimension
from pytest_llmjudge.judges.base import RetryableJudgeError, RunResult, TooManyChoices, Usage
from pytest_llmjudge.judging.engine import JudgeEngine

from helpers import default_settings


class ScriptedJudge:
    """Answers from a list per dimension; ``fail`` first raises that many retryable errors."""

    uses_llm = True

    def __init__(self, scores: dict[str, list[int]], fail: int = 0) -> None:
        self.scores = scores
        self.fail = fail
        self.calls: list[str] = []
        self.lock = threading.Lock()

    async def judge_once(
        self,
        dimension: Dimension,
        ticket: str,
        response: str,
        *,
        usage: Usage | None = None,
        context: Context = NO_CONTEXT,
    ) -> RunResult:
        await asyncio.sleep(0)
        with self.lock:
            self.calls.append(dimension.name)
            if usage is not None:
                usage.calls += 1
                usage.prompt_tokens += 10
                usage.completion_tokens += 2
            if self.fail:
                self.fail -= 1
                raise RetryableJudgeError("busy", retry_after=0)
            score = self.scores[dimension.name][(len(self.calls) - 1) % 3]
        return RunResult(score, "ok", 10, 2)

    async def aclose(self) -> None:
        pass


class ChoicesScriptedJudge(ScriptedJudge):
    """The default path: a judgment's runs as the ``n`` choices of one request, with a cap on
    the choices a request may hold (as llama.cpp's slots set it)."""

    def __init__(self, scores: dict[str, list[int]], server_cap: int | None = None) -> None:
        super().__init__(scores)
        self.server_cap = server_cap
        self.max_choices: int | None = None  # learned from a refusal, as the real judge does
        self.choices_asked: list[int] = []

    async def judge_choices(
        self,
        dimension: Dimension,
        ticket: str,
        response: str,
        n: int,
        *,
        usage: Usage | None = None,
        context: Context = NO_CONTEXT,
        firm: bool = False,
    ) -> list[RunResult | RetryableJudgeError]:
        await asyncio.sleep(0)
        with self.lock:
            self.choices_asked.append(n)
            if usage is not None:
                usage.calls += 1
            if self.server_cap is not None and n > self.server_cap:
                self.max_choices = self.server_cap
                raise TooManyChoices(self.server_cap, f"at most {self.server_cap} choices")
            first = sum(self.choices_asked[:-1])
        scores = self.scores[dimension.name]
        return [RunResult(scores[(first + i) % len(scores)], "ok", 10, 2) for i in range(n)]


def test_engine_asks_the_runs_of_a_judgment_as_the_choices_of_one_request() -> None:
    judge = ChoicesScriptedJudge({"relevance": [5, 4, 3]})
    engine = JudgeEngine(default_settings(), lambda s: judge)
    try:
        judgment = engine.judge("relevance", "ticket", "response", 3, 3.5)
    finally:
        engine.close()
    assert judge.choices_asked == [3] and judge.calls == []  # one request, no single runs
    assert judgment.runs == (5, 4, 3) and judgment.score == 4.0
    assert engine.totals().billing.calls == 1


def test_engine_splits_the_choices_to_what_the_server_takes() -> None:
    judge = ChoicesScriptedJudge({"relevance": [4, 4, 4, 4, 4]}, server_cap=2)
    engine = JudgeEngine(default_settings(), lambda s: judge)
    try:
        judgment = engine.judge("relevance", "ticket", "response", 5, 3.5)
    finally:
        engine.close()
    assert judge.choices_asked == [5, 2, 2, 1]  # refused once, then parts of at most 2
    assert judgment.runs == (4, 4, 4, 4, 4) and judgment.failed_runs == ()


def test_engine_aggregates_retries_and_counts_each_request() -> None:
    judge = ScriptedJudge({"relevance": [4, 4, 4], "tone": [2, 2, 2]}, fail=2)
    engine = JudgeEngine(default_settings(max_retries=3), lambda s: judge)
    try:
        relevance = engine.judge("relevance", "ticket", "response", 3, 3.5)
        again = engine.judge("relevance", "ticket", "response", 3, 3.5)
    finally:
        engine.close()
    assert relevance.runs == (4, 4, 4) and relevance.passed
    assert relevance.calls == 5 == len(judge.calls)  # 3 runs + 2 retried attempts
    assert (again.calls, again.cached_runs) == (0, 3)  # judged once per session
    totals = engine.totals().billing
    assert (totals.calls, totals.prompt_tokens) == (5, 50)  # failed attempts were billed too


def test_a_finished_run_keeps_its_outcome_not_its_future() -> None:
    # a future with its lock and condition is about 1 KB: the engine keeps every run of the
    # session (to judge each once), so a finished one keeps only its outcome
    judge = ChoicesScriptedJudge({"relevance": [5, 4, 3], "tone": [4, 4, 4]})
    engine = JudgeEngine(default_settings(), lambda s: judge)
    try:
        engine.prefetch(["relevance", "tone"], "ticket", "response", 3)
        first = engine.judge("relevance", "ticket", "response", 3, 3.5)
        engine.judge("tone", "ticket", "response", 3, 3.5)
        again = engine.judge("relevance", "ticket", "response", 3, 3.5)
        progress = engine.progress()
    finally:
        engine.close()
    slots = list(engine._runs.values())
    assert len(slots) == 6 and all(isinstance(slot, RunOutcome) for slot in slots)
    assert again.runs == first.runs == (5, 4, 3) and again.calls == 0
    assert (progress.planned, progress.done) == (6, 6) and judge.choices_asked == [3, 3]


def test_engine_charges_the_first_claimer_and_a_new_generation_judges_afresh() -> None:
    judge = ScriptedJudge({"relevance": [4, 4, 4]})
    engine = JudgeEngine(default_settings(), lambda s: judge)
    first: list[Usage] = []
    second: list[Usage] = []
    rerun: list[Usage] = []
    try:
        engine.judge("relevance", "t", "r", 2, 3.5, paid=first)
        engine.judge("relevance", "t", "r", 2, 3.5, paid=second)  # identical: reused
        engine.judge("relevance", "t", "r", 2, 3.5, generation=1, paid=rerun)
    finally:
        engine.close()
    assert [u.calls for u in first] == [1, 1] and second == []
    assert [u.calls for u in rerun] == [1, 1]
    assert len(judge.calls) == 4 == engine.totals().billing.calls


def test_engine_budget_stops_new_calls() -> None:
    judge = ScriptedJudge({"relevance": [5, 5, 5]})
    engine = JudgeEngine(default_settings(max_calls=2), lambda s: judge)
    try:
        judgment = engine.judge("relevance", "t", "r", 3, 3.5)
        with pytest.raises(JudgeError, match="budget exhausted"):
            engine.judge("relevance", "t2", "r", 1, 3.5)
    finally:
        engine.close()
    assert len(judge.calls) == 2 and len(judgment.runs) == 2
    assert "llmjudge_budget calls=2" in judgment.failed_runs[0]

"""Concurrency across items, the judge cache, budgets, tokens and cost."""

from __future__ import annotations

import hashlib
import importlib
import json
import threading
from pathlib import Path

import pytest

from pytest_llmjudge.basics.rubrics import (
    CORRECTNESS,
    NO_CONTEXT,
    RELEVANCE,
    TONE,
    Context,
    Dimension,
    Turn,
    grouped,
)
from pytest_llmjudge.judges import RunResult
from pytest_llmjudge.judging.cache import CACHE_FORMAT, JudgeCache


def _put_repeatedly(cache: JudgeCache, key: str, result: RunResult) -> None:
    for _ in range(30):
        cache.put(key, result)


def test_concurrent_cache_writers_never_leave_a_broken_entry(tmp_path: Path) -> None:
    cache = JudgeCache(lambda: tmp_path, {"model": "m"})
    key = cache.key(RELEVANCE, "t", "r", 0)
    results = [RunResult(score=i % 5 + 1, reasoning="x" * 5000 * (i % 3 + 1)) for i in range(8)]
    threads = [threading.Thread(target=_put_repeatedly, args=(cache, key, r)) for r in results]
    for thread in threads:
        thread.start()
    seen = []
    while any(t.is_alive() for t in threads):
        got = cache.get(key)
        if got is not None:
            seen.append(got)
    for thread in threads:
        thread.join()
    assert all(s in results for s in seen)
    assert cache.get(key) in results
    assert not list(tmp_path.rglob("*.tmp"))


def test_cache_key_covers_everything_that_changes_a_judgment(tmp_path: Path) -> None:
    cache = JudgeCache(lambda: tmp_path, {"model": "m", "base_url": None, "temperature": None})
    other_model = JudgeCache(
        lambda: tmp_path, {"model": "n", "base_url": None, "temperature": None}
    )
    reworded = Dimension("relevance", RELEVANCE.rubric + " Be strict.")
    base = cache.key(RELEVANCE, "t", "r", 0)
    assert (
        len(
            {
                base,
                cache.key(reworded, "t", "r", 0),
                cache.key(RELEVANCE, "t2", "r", 0),
                cache.key(RELEVANCE, "t", "r2", 0),
                cache.key(RELEVANCE, "t", "r", 1),
                other_model.key(RELEVANCE, "t", "r", 0),
            }
        )
        == 6
    )
    assert cache.get(base) is None
    (tmp_path / base[:2]).mkdir()
    (tmp_path / base[:2] / f"{base}.json").write_text('{"score": 9, "reasoning": "x"}')
    assert cache.get(base) is None  # invalid entries are misses


def test_cache_keys_stay_the_hash_of_their_whole_material(tmp_path: Path) -> None:
    """Keys made run after run from a kept prefix are the keys of the whole material, so
    that caches written before still read (contexts, references and groups interleaved)."""
    identity = {"model": "m", "base_url": None, "temperature": 0.0}
    cache = JudgeCache(lambda: tmp_path, identity)
    talk = Context((Turn("user", "hi"), Turn("assistant", "hello")), reference="the answer")
    pair = grouped([RELEVANCE, TONE])

    def whole(
        dim: Dimension, ticket: str, run: int, context: Context, group: Dimension | None
    ) -> str:
        scope = context.for_dimension(group or dim).key()
        extra = ["group", group.version] if group is not None else []
        material = [CACHE_FORMAT, identity, dim.name, dim.version, ticket, "r", run, *scope, *extra]
        return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()

    cases = [
        (dim, ticket, run, context, group)
        for ticket in ("t", 'a "quoted" t\u00e9')
        for context in (NO_CONTEXT, talk)
        for dim, group in ((RELEVANCE, None), (CORRECTNESS, None), (TONE, pair))
        for run in (0, 1, 2)
    ]
    for dim, ticket, run, context, group in [*cases, *reversed(cases)]:
        made = cache.key(dim, ticket, "r", run, context, group)
        assert made == whole(dim, ticket, run, context, group)


def test_the_benchmarks_engine_probe_keeps_up_with_the_judge_protocol(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # benchmarks/bench_judge.py drives the engine with a judge of its own (an instant one);
    # the script is run by people, so only this test notices when the protocol moves on
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[3] / "benchmarks"))
    bench_judge = importlib.import_module("bench_judge")
    assert bench_judge.engine_cpu_per_run(runs=60) > 0  # it ran; its figure is for people

"""The table of the runs a batch judged: what items take instead of reading the cache back,
and the cache keys it is looked up by."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from pytest_llmjudge.basics.rubrics import RELEVANCE, TONE, Context, Turn, grouped
from pytest_llmjudge.judges import RunResult
from pytest_llmjudge.judging.batch_served import Served
from pytest_llmjudge.judging.cache import CACHE_FORMAT, JudgeCache


def _key(i: int) -> str:
    return hashlib.sha256(str(i).encode()).hexdigest()


def _result(i: int) -> RunResult:
    weighted = i % 3 == 0
    return RunResult(
        score=3.25 if weighted else i % 5 + 1,
        reasoning=f"run {i}: é \ud800 " * (i % 4),  # empty, non-ASCII, a lone surrogate
        prompt_tokens=i,
        completion_tokens=2 * i + 2**33,  # more than 32 bits hold
        text_score=3 if weighted else None,
        tokens_unknown=i % 7 == 0,
        unweighted="no logprobs" if i % 11 == 0 else None,
    )


def _result_of(served: Served, key: str) -> RunResult | None:
    row = served.look(key)
    return None if row is None else served.result(row)


def _take(served: Served, key: str) -> tuple[bool, bool] | None:
    row = served.look(key)
    return None if row is None else served.take(row)


def test_runs_read_back_as_the_batch_gave_them(tmp_path: Path) -> None:
    served = Served(folder=tmp_path)
    for i in range(3_000):
        served.add(_key(i), _result(i), first=i % 3 == 0)
    served.index()
    assert len(served) == 3_000
    for i in range(3_000):
        result = _result_of(served, _key(i))
        assert result == _result(i)
        assert type(result.score) is type(_result(i).score)  # 4, not 4.0, in the results
    assert _result_of(served, _key(3_000)) is None and served.look(_key(3_001)) is None
    assert list(tmp_path.iterdir()) == []  # the reasonings' file is never seen on disk
    served.close()


def test_a_run_is_charged_once_and_taken_once(tmp_path: Path) -> None:
    served = Served(folder=tmp_path)
    served.add(_key(1), _result(1), first=True)
    served.add(_key(2), _result(2), first=False)
    served.index()
    assert _take(served, _key(1)) == (True, False)
    assert _take(served, _key(1)) == (True, True)  # taken already: not charged again
    assert _take(served, _key(2)) == (False, False)
    assert _take(served, _key(3)) is None


def test_a_later_batch_adds_runs_and_its_run_of_the_same_key_wins(tmp_path: Path) -> None:
    served = Served(folder=tmp_path)
    for i in range(100):
        served.add(_key(i), _result(i), first=True)
    served.index()
    again = RunResult(score=5, reasoning="the later batch")
    for i in range(90, 200):
        served.add(_key(i), again, first=False)
    served.index()
    assert len(served) == 200
    assert _result_of(served, _key(5)) == _result(5)
    assert _result_of(served, _key(95)) == again and _take(served, _key(95)) == (False, False)
    assert _result_of(served, _key(150)) == again


def test_an_empty_table_finds_nothing() -> None:
    served = Served()
    assert not served and served.look(_key(0)) is None and _take(served, _key(0)) is None


def _old_key(
    cache: JudgeCache,
    name: str,
    version: str,
    texts: tuple[str, str],
    run: int,
    after: list[object],
) -> str:
    """The key as the cache made it before its head was hashed once per dimension."""
    head = [CACHE_FORMAT, cache.identity, name, version, *texts]
    before = json.dumps(head, sort_keys=True)
    tail = "]" if not after else ", " + json.dumps(after, sort_keys=True)[1:]
    return hashlib.sha256(f"{before[:-1]}, {run}{tail}".encode()).hexdigest()


def test_cache_keys_are_the_keys_of_earlier_versions(tmp_path: Path) -> None:
    identity = {"provider": "openai-compatible", "base_url": "http://x", "model": "mé"}
    cache = JudgeCache(lambda: tmp_path, identity | {"temperature": 0.0})
    texts = ["plain", 'ünï "quoted" \\ \n 😀', "\ud800 lone", ""]
    contexts = [
        Context(),
        Context((Turn("user", "hi é"), Turn("assistant", "yo"))),
        Context((), "a reference"),
    ]
    group = grouped([RELEVANCE, TONE])
    checked = 0
    for dimension in (RELEVANCE, TONE):
        for ticket in texts:
            for response in texts:
                for context in contexts:
                    for together in (None, group):
                        scope = context.for_dimension(together or dimension).key()
                        after = [*scope, *(["group", group.version] if together else [])]
                        for run in range(2):
                            old = _old_key(
                                cache, dimension.name, dimension.version,
                                (ticket, response), run, after,
                            )  # fmt: skip
                            new = cache.key(dimension, ticket, response, run, context, together)
                            assert new == old
                            checked += 1
    assert checked == 2 * 4 * 4 * 3 * 2 * 2


def test_runs_read_back_without_pread_as_on_windows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where ``os.pread`` is missing, a seek and a read: a later batch's runs still go at
    the end, and every run reads back as given."""
    monkeypatch.delattr(os, "pread")
    served = Served(folder=tmp_path)
    for batch in (range(0, 50), range(50, 120)):  # a read between two batches' writes
        for i in batch:
            served.add(_key(i), _result(i), first=True)
        served.index()
        assert _result_of(served, _key(batch[0])) == _result(batch[0])
    assert all(_result_of(served, _key(i)) == _result(i) for i in range(120))

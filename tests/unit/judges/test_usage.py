"""What judging was billed (``Usage``) and what a session learned of its server
(``ServerFacts``) are summed field by field: a field left out of the sum fails here."""

from __future__ import annotations

import json
from dataclasses import asdict, fields
from typing import Any

import pytest

from pytest_llmjudge.judges.base import TRACE, ServerFacts, Totals, Usage

#: a value unlike the default for each type a field may have; a field of a new type fails
#: the tests below until it has one here (and a rule for its sum)
SAMPLES: dict[str, Any] = {
    "int": 3,
    "str": "judging stopped at a.json (401 unauthorized)",
    "dict[str, int]": {"no logprobs": 2},
    "dict[str, Any]": {"slots": 4, "logprobs": False},
    "dict[str, dict[str, Any]]": {"batch_1": {"status": "completed", "requests": 2}},
    "dict[str, list[int]]": {"batch_1": [2, 300, 40, 0]},
}


def every_field_given(cls: type[Any]) -> Any:
    """An instance of ``cls`` with every field but the trace's set apart from its default."""
    given = {}
    for f in fields(cls):
        if f.metadata.get(TRACE):
            continue
        assert str(f.type) in SAMPLES, f"{cls.__name__}.{f.name}: add a sample for {f.type}"
        given[f.name] = SAMPLES[str(f.type)]
    return cls(**given)


@pytest.mark.parametrize("cls", [Usage, ServerFacts])
def test_every_field_reaches_the_sum(cls: type[Any]) -> None:
    other = every_field_given(cls)
    total = cls()
    total.add(other)
    assert asdict(total) == asdict(other)


def test_usage_sums_its_counts_and_only_the_trace_is_left_out() -> None:
    other = every_field_given(Usage)
    other.exchanges = [{"messages": None, "reply": None}]
    total = Usage()
    total.add(other)
    total.add(other)
    counts = {f.name for f in fields(Usage)} - {"unweighted", "exchanges"}
    assert {name: getattr(total, name) for name in counts} == dict.fromkeys(counts, 6)
    assert total.unweighted == {"no logprobs": 4}
    assert total.exchanges is None
    assert [f.name for f in fields(Usage) if f.metadata.get(TRACE)] == ["exchanges"]


def test_server_facts_of_two_workers_become_one_by_each_fields_rule() -> None:
    one = ServerFacts(choices_cap=4, kept_in_flight=2, server_slots=4, stopped="",
                      learned={"slots": 4, "logprobs": True}, batches={"b1": {"status": "a"}},
                      collected={"b1": [1, 100, 10, 0]})  # fmt: skip
    other = ServerFacts(choices_cap=0, kept_in_flight=3, server_slots=8, stopped="stopped",
                        learned={"slots": 8, "logprobs": False}, batches={"b2": {"status": "b"}},
                        collected={"b1": [2, 200, 20, 0], "b2": [1, 5, 5, 1]})  # fmt: skip
    one.add(other)
    assert one == ServerFacts(
        choices_cap=4,  # the smaller known cap (0: none known)
        kept_in_flight=5,
        server_slots=8,
        stopped="stopped",
        learned={"slots": 8, "logprobs": False},
        batches={"b1": {"status": "a"}, "b2": {"status": "b"}},
        collected={"b1": [2, 200, 20, 0], "b2": [1, 5, 5, 1]},  # each batch's fuller reading
    )


def test_totals_travel_from_an_xdist_worker_as_json_whole() -> None:
    totals = Totals(every_field_given(Usage), every_field_given(ServerFacts))
    arrived = Totals.from_json(json.loads(json.dumps(asdict(totals))))
    assert arrived == totals


def test_billed_counts_each_batch_as_collected_not_as_its_items_took_it() -> None:
    taken = Usage(calls=3, prompt_tokens=300, completion_tokens=30, batch_calls=1,
                  batch_prompt_tokens=100, batch_completion_tokens=10)  # fmt: skip
    totals = Totals(taken, ServerFacts(collected={"b1": [2, 200, 20, 1]}))
    billed = totals.billed()
    assert (billed.calls, billed.prompt_tokens, billed.completion_tokens) == (4, 400, 40)
    assert (billed.batch_calls, billed.batch_prompt_tokens, billed.tokens_unknown) == (2, 200, 1)

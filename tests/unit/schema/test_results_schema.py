"""The results models: a row built once, and files written before a rename still read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_llmjudge.__main__ import main
from pytest_llmjudge.analysis.judgment import RunOutcome, build_judgment
from pytest_llmjudge.judges.base import RunResult
from pytest_llmjudge.outputs.merge import load_results
from pytest_llmjudge.outputs.session_results import SessionResults
from pytest_llmjudge.outputs.writers import dump
from pytest_llmjudge.schema.results import ItemResult, JudgedItem

from helpers import default_settings, session_facts


def _results_file(tmp_path: Path) -> Path:
    """A results file with one undecided dimension (confident verdict) and one cached run."""
    outcomes = [RunOutcome(RunResult(s, f"r{s}"), None, 1) for s in (5, 2, 5)]
    outcomes[2] = RunOutcome(outcomes[2].result, None, 0, cached=True)
    judgment = build_judgment("relevance", outcomes, 3.5, mode="confident")
    assert judgment.decision == "undecided"
    judged = JudgedItem(nodeid="e.json::a", file="e.json", id="a", runs=3)
    judged.relevance = judgment.result
    results = SessionResults()
    results.add(ItemResult.arrived(judged.model_dump(mode="json"), "failed", None, 0.5))
    facts = session_facts(1)
    end = results.finish(default_settings(verdict="confident", runs=3), {}, facts)
    path = tmp_path / "new.json"
    path.write_text(dump(end.results), encoding="utf-8")
    return path


def _as_before_0_2(path: Path) -> Path:
    """The same file in the words used before 0.2."""
    data = json.loads(path.read_text(encoding="utf-8"))
    data["meta"]["cached_calls"] = data["meta"].pop("cached_runs")
    data["results"][0]["relevance"]["decision"] = "unstable"
    old = path.with_name("old.json")
    old.write_text(json.dumps(data), encoding="utf-8")
    return old


def test_a_file_written_before_0_2_reads_as_one_written_now(tmp_path: Path) -> None:
    new = _results_file(tmp_path)
    written = json.loads(new.read_text(encoding="utf-8"))
    assert written["meta"]["cached_runs"] == 1 and "cached_calls" not in written["meta"]
    assert written["results"][0]["relevance"]["decision"] == "undecided"
    old = _as_before_0_2(new)
    assert load_results(old) == load_results(new)


def test_report_and_merge_read_a_file_written_before_0_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = _as_before_0_2(_results_file(tmp_path))
    assert main(["report", str(old), "--md", str(tmp_path / "r.md")]) == 0
    assert (
        "judge calls: none (0 runs judged in-process by the offline judge, 1 run from the cache)"
        in capsys.readouterr().out
    )
    assert main(["merge", str(old), "-o", str(tmp_path / "merged.json")]) == 1  # it failed
    merged = json.loads((tmp_path / "merged.json").read_text(encoding="utf-8"))
    assert merged["meta"]["cached_runs"] == 1
    assert merged["results"][0]["relevance"]["decision"] == "undecided"


def test_a_row_keeps_configured_dimensions_and_round_trips() -> None:
    outcomes = [RunOutcome(RunResult(4, "fine"), None, 1)]
    judged = JudgedItem.model_validate(
        {
            "nodeid": "e.json::b",
            "file": "e.json",
            "id": "b",
            "empathy": build_judgment("empathy", outcomes, 3.5).result.model_dump(),
        }
    )
    timeout = "Timeout (>5.0s) from pytest-timeout"
    row = ItemResult.arrived(judged.model_dump(mode="json"), "error", timeout, 5.01234)
    assert (row.error, row.duration_s) == ("Timeout (>5.0s) from pytest-timeout", 5.0123)
    assert list(row.dimensions) == ["empathy"] and row.dimensions["empathy"].score == 4
    assert ItemResult.model_validate(row.model_dump(mode="json")) == row

"""Rows spilled to disk while the session runs: the results file is the same, byte for byte,
as when every row stays in memory; memory keeps each row's kept record."""

from __future__ import annotations

import errno
from pathlib import Path
from typing import Any

import pytest

from pytest_llmjudge.analysis.judgment import RunOutcome, build_judgment
from pytest_llmjudge.basics.fileio import write_chunks_atomically
from pytest_llmjudge.judges.base import RunResult
from pytest_llmjudge.outputs.kept_row import KeptRow
from pytest_llmjudge.outputs.row_spill import RowSpill
from pytest_llmjudge.outputs.session_results import SessionResults
from pytest_llmjudge.outputs.writers import dump, write_outputs
from pytest_llmjudge.reports.markdown import github_annotations, summary_markdown
from pytest_llmjudge.reports.terminal import terminal_summary
from pytest_llmjudge.schema.results import (
    ErrorEntry,
    ItemResult,
    JudgedItem,
    Outcome,
    ResultsFile,
    SkippedEntry,
)
from pytest_llmjudge.schema.sections import BaselineResult, Gate, LabelAgreement, TargetComparison

from helpers import default_settings, session_facts


def _row(i: int, outcome: Outcome) -> ItemResult:
    runs = [RunOutcome(RunResult(s, f'reason {i}.{s} "quoted"\nline'), None, 1) for s in (4, 2)]
    judged = JudgedItem(nodeid=f"e.json::c{i}", file="e.json", id=f"c{i}", line=10 - i, runs=2)
    judged.relevance = build_judgment("relevance", runs, 3.5).result
    judged.ticket, judged.response = f"ticket {i}", f"answer {i}\twith a tab"
    judged.metadata, judged.expected = {"n": i}, {"relevance": 4}
    return ItemResult.arrived(judged.model_dump(mode="json"), outcome, None, 0.25)


def test_spilled_rows_write_the_same_results_file(tmp_path: Path) -> None:
    rows = [_row(i, "passed" if i % 2 else "failed") for i in range(5)]
    rerun = _row(3, "error")  # a rerun's row replaces the earlier one
    settings = default_settings(runs=2, output=tmp_path / "spilled.json")
    kept, spilled = SessionResults(), SessionResults(spill=RowSpill())
    for results in (kept, spilled):
        for row in [*rows, rerun]:
            results.add(row.model_copy(deep=True))
    assert all(isinstance(r, KeptRow) for r in spilled._items.values())
    facts = session_facts(1)
    expected = dump(kept.finish(settings, {}, facts).results)
    end = spilled.finish(settings, {}, facts)
    whole = kept.finish(settings, {}, facts).results
    assert terminal_summary(end.results, None) == terminal_summary(whole, None)
    assert github_annotations(end.results) == github_annotations(whole)
    assert summary_markdown(end.results) == summary_markdown(whole)  # the step summary
    _, failures = write_outputs(end.results, settings, {}, None, spilled.spill)
    assert failures == []
    assert settings.output.read_text(encoding="utf-8") == expected
    assert [r.ticket for r in spilled.rows()] == [r.ticket for r in kept.rows()]


def test_no_rows_write_the_same_results_file(tmp_path: Path) -> None:
    settings = default_settings(output=tmp_path / "empty.json")
    spilled = SessionResults(spill=RowSpill())
    end = spilled.finish(settings, {}, session_facts(0))
    write_outputs(end.results, settings, {}, None, spilled.spill)
    expected = dump(SessionResults().finish(settings, {}, session_facts(0)).results)
    assert settings.output.read_text(encoding="utf-8") == expected


class _FullDisk:
    """The spill's own file, whose writes fail with ENOSPC once ``room`` bytes are used: a
    temporary folder that fills up during the session."""

    def __init__(self, file: Any, room: int) -> None:
        self._file, self.room = file, room

    def write(self, data: bytes) -> int:
        if self._file.tell() + len(data) > self.room:
            raise OSError(errno.ENOSPC, "No space left on device")
        return int(self._file.write(data))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._file, name)


def test_rows_stay_whole_in_memory_once_the_spill_cannot_be_written(tmp_path: Path) -> None:
    rows = [_row(i, "passed" if i % 2 else "failed") for i in range(5)]
    settings = default_settings(runs=2, output=tmp_path / "full.json")
    spill = RowSpill()
    first = len(rows[0].model_dump_json(indent=2)) + len(rows[1].model_dump_json(indent=2))
    spill._file = _FullDisk(spill._file, room=first)  # type: ignore[assignment]
    kept, spilled = SessionResults(), SessionResults(spill=spill)
    for results in (kept, spilled):
        for row in [*rows, _row(0, "error")]:  # the rerun of a spilled row stays whole too
            results.add(row.model_copy(deep=True))
    assert [isinstance(r, KeptRow) for r in spilled._items.values()] == [0, 1, 0, 0, 0]
    facts = session_facts(1)
    end = spilled.finish(settings, {}, facts)
    _, failures = write_outputs(end.results, settings, {}, None, spill)
    assert failures == []
    expected = dump(kept.finish(settings, {}, facts).results)
    assert settings.output.read_text(encoding="utf-8") == expected


def _every_field(results: ResultsFile) -> ResultsFile:
    """The results with a value in each of its other fields (odd floats, text beyond ASCII)."""
    skipped = SkippedEntry(file="ü.json", index=0, id="ß", reason='a "quoted" reason\nline')
    data = {
        "skipped": [skipped],
        "errors": [ErrorEntry(file="e.json", reason="no such file: é")],
        "invalid": [skipped],
        "unstable": ["e.json::c1"],
        "gates": [Gate(name="pass_rate", passed=False, actual=0.1 + 0.2, required=1e-7,
                        message="✗")],
        "labels": {"relevance": LabelAgreement(n=5, spearman=None, kappa=1e16, exact=0.0,
                                               within_one=1.0, bias=-0.5)},
        "baseline": BaselineResult.model_validate({"source": "before.json", "comparable": True}),
        "comparison": TargetComparison(targets=["a", "b"], tie_tolerance=0.25, entries=[],
                                       compared=0, disagreements=[], overall={}, significance=[]),
    }  # fmt: skip
    filled = results.model_copy(update=data)
    assert all(getattr(filled, name) for name in ResultsFile.model_fields if name != "results")
    return filled


@pytest.mark.parametrize("rows", [0, 1, 3])
def test_the_streamed_file_is_pydantics_dump_of_the_same_data(tmp_path: Path, rows: int) -> None:
    spill, kept = RowSpill(), SessionResults()
    records = {i: spill.put(_row(i, "passed")) for i in range(rows)}
    for i in range(rows):
        kept.add(_row(i, "passed"))
    facts = session_facts(rows)
    whole = _every_field(kept.finish(default_settings(runs=2), {}, facts).results)
    streamed = whole.model_copy(update={"results": []})
    streamed.keep_rows([records[int(row.id[1:])] for row in whole.results])  # results' order
    path = tmp_path / "results.json"
    write_chunks_atomically(path, spill.dump(streamed))
    text = path.read_text(encoding="utf-8")
    assert text == whole.model_dump_json(indent=2) + "\n"
    assert ResultsFile.model_validate_json(text) == whole


def test_a_replayed_files_targets_are_compared_when_rows_are_spilled(tmp_path: Path) -> None:
    """A replay of saved responses configures no targets (its rows are spilled), yet its rows
    carry them: the comparison of targets is the same as with every row in memory."""
    rows = []
    for i in range(4):
        row = _row(i, "passed")
        row.target, row.compare_key, row.answer = "ab"[i % 2], f"e.json::k{i // 2}", f"a {i}"
        rows.append(row)
    settings = default_settings(runs=2, output=tmp_path / "replay.json")
    kept, spilled = SessionResults(), SessionResults(spill=RowSpill())
    for results in (kept, spilled):
        for row in rows:
            results.add(row.model_copy(deep=True))
    facts = session_facts(0)
    whole = kept.finish(settings, {}, facts).results
    end = spilled.finish(settings, {}, facts)
    assert whole.comparison is not None
    assert end.results.comparison == whole.comparison
    write_outputs(end.results, settings, {}, None, spilled.spill)
    assert settings.output.read_text(encoding="utf-8") == dump(whole)

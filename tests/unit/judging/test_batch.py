"""A batch's record as a later session reads it back."""

from __future__ import annotations

import json
from pathlib import Path

from pytest_llmjudge.judging.batch import BatchRecord, BatchRecords
from pytest_llmjudge.judging.batch_served import LineRuns


def test_a_saved_record_is_read_back_whole_and_only_for_its_judge(tmp_path: Path) -> None:
    records = BatchRecords(tmp_path)
    lines = {
        "k1": LineRuns(parts=["relevance"], keys=[["k1"], ["k2"]]),
        "k3": LineRuns(parts=["relevance", "tone"], keys=[["k3", "k4"]]),
    }
    record = BatchRecord(judge="gpt-4o-mini@x", fingerprint="f" * 32, lines=lines)
    records.save(record)
    record.input_file_id, record.batch_id = "file_1", "batch_1"
    records.save(record)  # the same record after the upload and the creation: one file
    assert records.load("gpt-4o-mini@x") == [record]
    # its lines made JSON at the first save: the file is what json.dumps makes of it all
    whole = {"format": 1, "judge": record.judge, "fingerprint": record.fingerprint}
    whole |= {"submitted": record.submitted, "input_file_id": "file_1", "batch_id": "batch_1"}
    whole["lines"] = {cid: {"parts": r.parts, "keys": r.keys} for cid, r in lines.items()}
    assert (tmp_path / "batches" / f"{'f' * 32}.json").read_text() == json.dumps(whole)
    assert records.load("another judge") == []
    assert record.run_keys() == {"k1", "k2", "k3", "k4"}
    records.drop(record)
    assert records.load("gpt-4o-mini@x") == []

"""The results file: content, schema, atomic writing, interruption, and writing nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pytest_llmjudge.basics.fileio import write_atomically


def test_atomic_write_replaces_and_leaves_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "out.json"
    write_atomically(target, "first")
    write_atomically(target, "second")
    assert target.read_text() == "second"
    assert os.listdir(target.parent) == ["out.json"]


def test_failed_atomic_write_keeps_the_previous_file(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    write_atomically(target, "good")
    with pytest.raises(UnicodeEncodeError):
        write_atomically(target, "bad \udcff")
    assert target.read_text() == "good"
    assert os.listdir(tmp_path) == ["out.json"]

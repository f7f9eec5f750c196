"""The results file: content, schema, atomic writing, interruption, and writing nothing."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from pytest_llmjudge.basics.fileio import write_atomically


def test_atomic_write_replaces_and_leaves_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "out.json"
    write_atomically(target, "first")
    write_atomically(target, "second")
    assert target.read_text() == "second"
    assert os.listdir(target.parent) == ["out.json"]


def test_atomic_write_replaces_a_crashed_writers_temp_file_and_follows_no_link(
    tmp_path: Path,
) -> None:
    target = tmp_path / "out.json"
    temp = tmp_path / f".out.json.{os.getpid()}.{threading.get_ident()}.tmp"
    temp.write_text("left by a writer that crashed")
    write_atomically(target, "fresh")
    assert target.read_text() == "fresh"
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("not to be written through a link")
    temp.symlink_to(elsewhere)
    write_atomically(target, b"bytes too")
    assert target.read_bytes() == b"bytes too"
    assert elsewhere.read_text() == "not to be written through a link"
    assert sorted(os.listdir(tmp_path)) == ["elsewhere.txt", "out.json"]


def test_failed_atomic_write_keeps_the_previous_file(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    write_atomically(target, "good")
    with pytest.raises(UnicodeEncodeError):
        write_atomically(target, "bad \udcff")
    assert target.read_text() == "good"
    assert os.listdir(tmp_path) == ["out.json"]

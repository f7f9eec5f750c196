"""Results rows on disk while the session runs: each item's row is written to a spill file
as it arrives, and memory keeps only a lean copy (scores, outcome, counts: what the summary,
the gates and the label agreement read), without the texts (ticket, answer, reasoning...)
that make up most of a row. At the end the rows stream from the spill into the results JSON
in results order, never all in memory.
"""

from __future__ import annotations

import functools
import tempfile
from collections.abc import Iterator
from typing import IO, Any

from pydantic import TypeAdapter

from ..config.settings import Settings
from ..schema.results import ItemResult, ResultsFile

#: a row's fields that hold texts: kept on disk, not in the lean copy
TEXTS = ("ticket", "response", "answer", "reference")


def open_spill() -> RowSpill | None:
    """A spill file, or None where the temporary folder cannot hold one (the rows then stay
    in memory, as without a spill: the results are the same)."""
    try:
        return RowSpill()
    except OSError:
        return None


class RowSpill:
    """The rows of a session's items, by node id (a rerun's row replaces the earlier one).
    Should writing fail (a full disk), the rows from then on stay whole in memory."""

    def __init__(self) -> None:
        # open for the session, closed by close() (a file with no name: gone with the process)
        self._file: IO[bytes] = tempfile.TemporaryFile(prefix="llmjudge-rows-")  # noqa: SIM115
        self._where: dict[str, tuple[int, int]] = {}  # node id -> offset, length
        self._writable = True

    def put(self, row: ItemResult) -> ItemResult:
        """Write the row; its lean copy, to keep (or the row itself, once writing failed)."""
        self._where.pop(row.nodeid, None)
        if not self._writable:
            return row
        data = row.model_dump_json(indent=2).encode()
        try:
            offset = self._file.seek(0, 2)
            self._file.write(data)
            self._file.flush()  # a full disk is found here, not when the rows are read back
        except OSError:
            self._writable = False
            return row
        self._where[row.nodeid] = (offset, len(data))
        return lean(row)

    def row(self, nodeid: str) -> bytes:
        """A row as written (the results file's JSON of it)."""
        offset, length = self._where[nodeid]
        self._file.seek(offset)
        return self._file.read(length)

    def full(self, row: ItemResult) -> ItemResult:
        """The row as it was before it was made lean."""
        if row.nodeid not in self._where:  # kept whole
            return row
        return ItemResult.model_validate_json(self.row(row.nodeid))

    def _text(self, row: ItemResult) -> bytes:
        if row.nodeid not in self._where:
            return row.model_dump_json(indent=2).encode()
        return self.row(row.nodeid)

    def dump(self, results: ResultsFile) -> Iterator[bytes]:
        """The results file's text (as ``writers.dump`` makes it), its rows read from the
        spill in the order of ``results.results`` (the lean rows).

        The file is written field by field, each value by pydantic as the file's model
        serialises it, in the layout of ``model_dump_json(indent=2)``: one key a line, two
        spaces in, each nested value's lines two more; the rows one by one from the spill.
        """
        yield b"{"
        for i, (name, adapter) in enumerate(_fields().items()):
            yield f'{"," if i else ""}\n  "{name}": '.encode()
            if name == "results":
                yield from self._rows(results.results)
            else:
                yield _nested(adapter.dump_json(getattr(results, name), indent=2), 1)
        yield b"\n}\n"

    def _rows(self, rows: list[ItemResult]) -> Iterator[bytes]:
        if not rows:
            yield b"[]"
            return
        yield b"["
        for i, row in enumerate(rows):
            yield b"," if i else b""
            yield b"\n    " + _nested(self._text(row), 2)
        yield b"\n  ]"

    def close(self) -> None:
        self._file.close()


@functools.cache
def _fields() -> dict[str, TypeAdapter[Any]]:
    """pydantic's serializer of each of the results file's fields, as the file's model uses
    it (made when a spilled file is first written, not at every session's start)."""
    fields = ResultsFile.model_fields.items()
    return {name: TypeAdapter(field.rebuild_annotation()) for name, field in fields}


def _nested(text: bytes, depth: int) -> bytes:
    """A value's JSON as it reads ``depth`` levels in: two spaces a level on each line after
    its first (a JSON string holds no raw newline: every newline is the layout's)."""
    return text.replace(b"\n", b"\n" + b"  " * depth)


def lean(row: ItemResult) -> ItemResult:
    """The row without its texts (the spill has them), made so in place: the session's row
    is its own (read from the report's data). A target's row stays whole: the comparison of
    targets reads its ticket and answer (also from a replayed file)."""
    if row.target is not None:
        return row
    for name in TEXTS:
        if getattr(row, name) is not None:  # (only those given: pydantic records each set)
            setattr(row, name, None)
    if row.conversation:
        row.conversation = []
    if row.metadata:
        row.metadata = {}
    if row.injection_snippets:
        row.injection_snippets = []
    for dimension in row.dimensions.values():
        dimension.reasoning = ""
        if dimension.run_reasonings:
            dimension.run_reasonings = []
    return row


def streams_rows(settings: Settings) -> bool:
    """Whether the rows can wait on disk: nothing at the end reads their texts (reports,
    saved answers, pairwise judging and target comparisons do)."""
    return not (settings.reports or settings.save_responses or settings.pairwise) and (
        settings.targets is None
    )

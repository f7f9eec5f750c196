"""Results rows on disk while the session runs: each item's row is written to a spill file
as it arrives, and memory keeps only its kept record (``kept_row``: scores, outcome, counts:
what the summary, the gates, the label agreement and the terminal read), without the texts
(ticket, answer, reasoning...) and pydantic's bookkeeping. At the end the rows stream from
the spill into the results JSON in results order, never all in memory.
"""

from __future__ import annotations

import functools
import tempfile
from collections.abc import Iterator, Sequence
from typing import IO, Any

from pydantic import TypeAdapter

from ..config.settings import Settings
from ..schema.results import ItemResult, ResultsFile, Row
from .kept_row import KeptRow, kept


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

    def put(self, row: ItemResult) -> ItemResult | KeptRow:
        """Write the row; its kept record, to keep (or the row itself: a target's, or once
        writing failed)."""
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
        # a target's row stays whole: the comparison of targets reads its ticket and answer
        # (also a replayed file's, whose session has no targets configured)
        return row if row.target is not None else kept(row)

    def row(self, nodeid: str) -> bytes:
        """A row as written (the results file's JSON of it)."""
        offset, length = self._where[nodeid]
        self._file.seek(offset)
        return self._file.read(length)

    def full(self, row: ItemResult | KeptRow) -> ItemResult:
        """The whole row of a kept one."""
        if isinstance(row, ItemResult):  # kept whole
            return row
        return ItemResult.model_validate_json(self.row(row.nodeid))

    def _text(self, row: Row) -> bytes:
        if isinstance(row, ItemResult):  # kept whole (an item's lost row too)
            return row.model_dump_json(indent=2).encode()
        return self.row(row.nodeid)

    def dump(self, results: ResultsFile) -> Iterator[bytes]:
        """The results file's text (as ``writers.dump`` makes it), its rows read from the
        spill in the order of ``results.rows()`` (the kept records).

        The file is written field by field, each value by pydantic as the file's model
        serialises it, in the layout of ``model_dump_json(indent=2)``: one key a line, two
        spaces in, each nested value's lines two more; the rows one by one from the spill.
        """
        yield b"{"
        for i, (name, adapter) in enumerate(_fields().items()):
            yield f'{"," if i else ""}\n  "{name}": '.encode()
            if name == "results":
                yield from self._rows(results.rows())
            else:
                yield _nested(adapter.dump_json(getattr(results, name), indent=2), 1)
        yield b"\n}\n"

    def _rows(self, rows: Sequence[Row]) -> Iterator[bytes]:
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


def streams_rows(settings: Settings) -> bool:
    """Whether the rows can wait on disk: nothing at the end reads their texts (reports,
    saved answers, pairwise judging and target comparisons do)."""
    return not (settings.reports or settings.save_responses or settings.pairwise) and (
        settings.targets is None
    )

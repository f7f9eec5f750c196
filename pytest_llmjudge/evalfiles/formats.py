"""Eval files in the formats people keep: JSON Lines, CSV and YAML, read into the entries a
JSON eval file has (validation is the same for all, in ``eval_file``).

- JSONL: one entry per line; a line that is not JSON is an invalid entry naming its line.
- CSV: a header row with ``id``, ``ticket``, ``response``; ``cluster``; ``runs``;
  ``thresholds.<dim>`` and ``expected.<dim>`` (numbers); ``marks`` (separated by
  semicolons); ``metadata.<key>``; ``checks`` and ``conversation`` (JSON lists); ``judge``
  (true or false); ``reference``.
  Empty cells are absent fields. Rows are named by the line where their record starts (the
  header is line 1).
- YAML (with PyYAML): the same shapes as JSON, a list or ``{examples: [...], defaults: {}}``.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .json_entries import Unreadable, loads, read_entry, trailing_comma

CSV_SECTIONS = ("thresholds", "expected", "metadata")
CSV_FIELDS: tuple[str, ...] = ("id", "ticket", "response", "cluster", "runs", "marks", "checks")
CSV_FIELDS += ("judge", "reference", "conversation")
YAML_MISSING = "YAML eval files need PyYAML: pip install 'pytest-llmjudge[yaml]' (or pyyaml)"


class FormatError(Exception):
    """The file as a whole cannot be read in its format."""


@dataclass
class RawEntries:
    """A file's entries before validation, where each starts, and what was ignored."""

    entries: list[Any]
    lines: list[int | None]
    warnings: list[tuple[str, int | None]] = field(default_factory=list)


def read_jsonl(text: str) -> RawEntries:
    raw = RawEntries([], [])
    # Only \n, \r\n and \r end a line (str.splitlines would also split at U+2028, U+0085
    # and other characters a JSON string may hold unescaped, and cut the entry in two).
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            entry: Any = loads(line)  # numbers of thousands of digits kept, not refused
        except RecursionError:  # nested too deep for the parser: the field at fault named
            entry = read_entry(line)
        except json.JSONDecodeError as exc:
            comma = trailing_comma(exc)
            entry = Unreadable(
                f"not JSON ({exc.msg} at column {exc.colno})"
                if comma is None
                else f"not JSON: a trailing comma after {comma[2]} at column {comma[1]}; "
                "JSON allows none there: remove it"
            )
        raw.entries.append(entry)
        raw.lines.append(number)
    return raw


CSV_COLUMNS = (
    "id, ticket, response, cluster, runs, marks, thresholds.<dimension>, expected.<dimension>, "
    "metadata.<key>, checks, judge, reference, conversation"
)
OTHER_SEPARATORS = {";": "semicolons", "\t": "tabs", "|": "vertical bars"}


def read_csv(text: str, path: Path) -> RawEntries:
    # The csv module refuses a cell over 131,072 characters (a process-wide setting): lifted
    # while this file is read, so that a long response is an over-long entry, not a broken file.
    limit = csv.field_size_limit()
    csv.field_size_limit(max(limit, len(text) + 1))
    try:
        return _read_csv(text, path)
    except csv.Error as exc:  # e.g. a NUL character on Python 3.10
        raise FormatError(f"{path}: not readable as CSV: {exc}") from None
    finally:
        csv.field_size_limit(limit)


def _read_csv(text: str, path: Path) -> RawEntries:
    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = reader.fieldnames or []
    if "ticket" not in header:
        raise FormatError(f"{path}: the header row has no 'ticket' column{_read_as(header)}")
    raw = RawEntries([], [])
    ignored = [name for name in header if not _known_column(name)]
    if ignored:  # each named: one warning for the header
        names = ", ".join(f"'{name}'" for name in ignored)
        keep = ", ".join(f"metadata.{name}" for name in ignored)
        what, it = ("column", "it") if len(ignored) == 1 else ("columns", "them")
        raw.warnings.append((f"{path}: {what} {names} ignored (use {keep} to keep {it})", 1))
    row_start = reader.line_num + 1
    for row in reader:
        raw.entries.append(_csv_entry(row))
        raw.lines.append(row_start)
        row_start = reader.line_num + 1
    return raw


def _read_as(header: Sequence[str]) -> str:
    """What the header was read as, and the separator it seems to use instead of commas."""
    read = ", ".join(f"'{name}'" for name in header) or "nothing"
    text = f": read with commas as separators, it holds {read}"
    for separator, name in OTHER_SEPARATORS.items():
        cells = [cell.strip() for cell in ",".join(header).split(separator)]
        if len(header) <= 2 and "ticket" in cells:
            return (
                f"{text}; the file seems separated by {name} ({', '.join(cells)}): save it "
                "with commas as separators"
            )
    return f"{text} (the columns: {CSV_COLUMNS})"


def _known_column(name: str) -> bool:
    section, _, key = name.partition(".")
    return name in CSV_FIELDS or (section in CSV_SECTIONS and bool(key))


def _csv_entry(row: dict[str | Any, Any]) -> Any:
    if None in row:  # more cells than the header names
        return Unreadable(f"{len(row[None])} cell(s) more than the header has")
    entry: dict[str, Any] = {}
    for name, cell in row.items():
        if cell is None or cell.strip() == "" or not _known_column(name):
            continue
        section, _, key = name.partition(".")
        if name == "marks":
            entry["marks"] = [m.strip() for m in cell.split(";") if m.strip()]
        elif name == "runs":
            entry["runs"] = _number(cell)
        elif name in ("checks", "conversation"):  # a JSON list, as in a JSON eval file
            try:
                entry[name] = json.loads(cell)
            except json.JSONDecodeError as exc:
                return Unreadable(f"'{name}' is not JSON ({exc.msg} at column {exc.colno})")
        elif name == "judge":
            entry["judge"] = {"true": True, "false": False}.get(cell.strip().lower(), cell)
        elif section in ("thresholds", "expected"):
            entry.setdefault(section, {})[key] = _number(cell)
        elif section == "metadata":
            entry.setdefault("metadata", {})[key] = cell
        else:
            entry[name] = cell
    return entry


def _number(cell: str) -> Any:
    """An int or float when the cell is one; else the text (validation names the field)."""
    text = cell.strip()
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            continue
    return text


def read_yaml(text: str, path: Path) -> tuple[Any, list[int | None]]:
    """The document, and the line of each entry of its list (or of its 'examples' list)."""
    try:
        import yaml
    except ImportError:
        raise FormatError(f"{path}: {YAML_MISSING}") from None
    try:
        data = yaml.safe_load(text)
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise FormatError(f"{path}: invalid YAML{where}: {problem}") from None
    except RecursionError:  # PyYAML builds nodes recursively: hundreds of levels end it
        raise FormatError(
            f"{path}: invalid YAML: lists or mappings nested too deeply to read (hundreds of "
            "levels)"
        ) from None
    return data, _yaml_lines(node)


def _yaml_lines(node: Any) -> list[int | None]:
    if node is not None and node.tag.endswith(":map"):
        node = next((v for k, v in node.value if k.value == "examples"), None)
    if node is None or not node.tag.endswith(":seq"):
        return []
    return [item.start_mark.line + 1 for item in node.value]

"""Eval files: loading, validation and the messages a person reads when an entry is wrong."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..basics.wording import entry_place
from ..checks.parse import CheckSpec
from .entry_model import EvalCase, MarkSpec, TurnSpec
from .entry_rules import describe_error, oversize_reason, too_deep, validate_id, validate_mark
from .formats import FormatError, RawEntries, read_csv, read_jsonl, read_yaml
from .json_entries import Unreadable, loads, loads_by_entry, members, trailing_comma

__all__ = ["EvalCase", "EvalFile", "EvalFileError", "MarkSpec", "TurnSpec", "load_eval_file"]


class EvalFileError(Exception):
    """The file as a whole cannot be read as an eval file (a collection error)."""


@dataclass(frozen=True)
class InvalidEntry:
    """An entry that could not be used; it becomes an item that errors (the session is red),
    or a skipped one when the user marked it ``skip``."""

    index: int
    name: str
    reason: str
    line: int | None
    place: str = ""  # "evals/a.csv:5 (ticket-001)": file, line and name
    marked_skip: bool = False  # its marks (or its file's) hold "skip": left out, not red


@dataclass(frozen=True)
class ValidEntry:
    """An entry that validated: where it is in its file, the entry itself, its item's name
    and its checks."""

    index: int
    entry: EvalCase  # the entry, validated
    line: int | None
    name: str  # its item's name: the id, unless an entry before took it as its "#3" name
    checks: tuple[CheckSpec, ...] = ()  # the entry's checks, as read when it was validated


@dataclass
class EvalFile:
    """The entries of one file, in file order, valid and invalid."""

    path: Path
    entries: list[ValidEntry | InvalidEntry] = field(default_factory=list)
    warnings: list[tuple[str, int | None]] = field(default_factory=list)  # message, line


def read_entry(
    raw: Any, dimensions: Sequence[str], live: bool = False, rootdir: Path | None = None
) -> tuple[EvalCase, tuple[CheckSpec, ...]]:
    """One entry validated, and its checks as read; ValueError with a one-line reason
    naming the field.

    ``live``: responses come from targets (bots), so a stored ``response`` is optional.
    ``rootdir``: where ``python`` checks are imported from (as conftest modules are).
    """
    if isinstance(raw, Unreadable):
        raise ValueError(raw.reason)
    if not isinstance(raw, dict):
        raise ValueError(f"entry must be an object, got {type(raw).__name__}")
    if isinstance(raw.get("id"), str):
        validate_id(raw["id"])
    deep = too_deep(raw)
    if deep:
        raise ValueError(deep)
    # a saved empty response stays empty: replayed, it is the error it was live
    empty = _saved_empty_response(raw)
    try:
        entry = EvalCase.model_validate(
            {k: v for k, v in raw.items() if not (empty and k == "response")}
        )
        if empty:
            entry = entry.model_copy(update={"response": ""})
    except ValidationError as exc:
        errors = exc.errors()
        # A mark that is neither a name nor an object yields one error per union member.
        first = errors[0]
        if first["loc"][:1] == ("marks",) and len(first["loc"]) > 1:
            raise ValueError(
                f"'marks.{first['loc'][1]}' must be a mark name or an object with 'name'"
            ) from None
        raise ValueError(describe_error(first)) from None
    for position, spec in enumerate(entry.mark_specs()):
        validate_mark(position, spec.name)
    checks = entry.check_specs(rootdir)  # a check that cannot work makes the entry invalid
    if not entry.judge and not entry.checks:
        raise ValueError("'judge': false needs 'checks': nothing else would decide the outcome")
    if not live and entry.response is None and entry.saved_error is None:
        raise ValueError("Missing 'response' field")
    for section in ("thresholds", "expected"):
        unknown = sorted(set(getattr(entry, section)) - set(dimensions))
        if unknown:
            raise ValueError(
                f"'{section}.{unknown[0]}' is not a known dimension "
                f"(known: {', '.join(dimensions)})"
            )
    return entry, checks


def _saved_empty_response(raw: dict[str, Any]) -> bool:
    """An entry of a saved responses file whose target answered an empty text."""
    metadata = raw.get("metadata")
    return raw.get("response") == "" and isinstance(metadata, dict) and "target" in metadata


def _entry_lines(text: str, is_list: bool, count: int) -> list[int | None]:
    """Line number of each entry, for reports that point into the file."""
    try:
        start = len(text) - len(text.lstrip())
        if not is_list:
            start = next(off for key, off, _ in members(text, start) if key == "examples")
        offsets = [off for _, off, _ in members(text, start)]
    except (ValueError, IndexError, StopIteration):  # pragma: no cover - text parsed as JSON
        return [None] * count
    # Count newlines between consecutive entries only: linear in the file size.
    lines: list[int | None] = []
    line, previous = 1, 0
    for offset in offsets:
        line += text.count("\n", previous, offset)
        previous = offset
        lines.append(line)
    return lines


def _entry_name(raw: Any, index: int, seen: set[str]) -> str:
    """A unique, stable item name for an entry, valid or not."""
    raw_id = raw.get("id") if isinstance(raw, dict) else None
    name = raw_id if isinstance(raw_id, str) and raw_id.strip() else f"#{index}"
    try:
        validate_id(name)
    except ValueError:
        name = f"#{index}"  # the entry is invalid for this very reason; its index names it
    if name in seen:
        name = f"{name}#{index}"
    return name


def parse_eval_text(
    text: str,
    path: Path,
    dimensions: Sequence[str],
    live: bool = False,
    max_input_chars: int | None = None,
    rootdir: Path | None = None,
) -> EvalFile:
    """Parse an eval file's text (its format by its suffix); raise EvalFileError for a file
    that is not an eval file."""
    suffix = path.suffix.lower()
    defaults: dict[str, Any] = {}
    empty = f"{path}: the file is empty: write its entries, or move it out of the eval folder"
    if suffix != ".jsonl" and not text.strip():  # (JSON Lines: no line, no entry)
        raise EvalFileError(empty)
    try:
        if suffix == ".jsonl":
            raw = read_jsonl(text)
        elif suffix == ".csv":
            raw = read_csv(text, path)
        elif suffix in (".yaml", ".yml"):
            data, lines = read_yaml(text, path)
            if data is None:  # only comments or a document marker: nothing written yet
                raise EvalFileError(empty)
            raw, defaults = _shaped(data, path, lines)
        else:
            data = _json(text, path)
            raw, defaults = _shaped(data, path, [])
            raw.lines = _entry_lines(text, isinstance(data, list), len(raw.entries))
    except FormatError as exc:
        raise EvalFileError(str(exc)) from None
    result = EvalFile(path=path, warnings=list(raw.warnings))
    _validate_all(result, raw, defaults, dimensions, live, max_input_chars, rootdir)
    return result


def _json(text: str, path: Path) -> Any:
    try:
        try:
            return loads(text)
        except RecursionError:  # nested too deep for the parser: read entry by entry
            return loads_by_entry(text)
    except json.JSONDecodeError as exc:
        raise EvalFileError(f"{path}: {_json_problem(exc)}") from None


def _json_problem(exc: json.JSONDecodeError) -> str:
    comma = trailing_comma(exc)
    if comma is not None:
        line, column, after = comma
        return (
            f"invalid JSON: a trailing comma after {after} at line {line}, column {column}; "
            "JSON allows none there: remove it"
        )
    return f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"


def _shaped(data: Any, path: Path, lines: list[int | None]) -> tuple[RawEntries, dict[str, Any]]:
    """The entries of a JSON or YAML document: a list, or an object with 'examples' (and
    'defaults' for every entry)."""
    if isinstance(data, list):
        return RawEntries(data, lines), {}
    if not (isinstance(data, dict) and isinstance(data.get("examples"), list)):
        raise EvalFileError(
            f"{path}: expected a list of entries or an object with an 'examples' list, "
            f"got {type(data).__name__}"
            + (" without an 'examples' list" if isinstance(data, dict) else "")
        )
    raw = RawEntries(data["examples"], lines)
    defaults = data.get("defaults", {})
    if not isinstance(defaults, dict):
        kind = "unreadable" if isinstance(defaults, Unreadable) else type(defaults).__name__
        raise EvalFileError(f"{path}: 'defaults' must be an object, got {kind}")
    unknown = sorted(set(defaults) - {"thresholds", "marks", "runs", "metadata", "checks"})
    if unknown:
        raise EvalFileError(
            f"{path}: unknown key 'defaults.{unknown[0]}' "
            "(allowed: thresholds, marks, runs, metadata, checks)"
        )
    extra_keys = sorted(set(data) - {"defaults", "examples"})
    if extra_keys:
        raw.warnings.append((f"{path}: ignored top-level key '{extra_keys[0]}'", None))
    return raw, defaults


def _validate_all(
    result: EvalFile,
    raw: RawEntries,
    defaults: dict[str, Any],
    dimensions: Sequence[str],
    live: bool,
    max_input_chars: int | None,
    rootdir: Path | None = None,
) -> None:
    """Every entry validated, in file order: valid ones, and invalid ones with the reason."""
    path = result.path
    # id: the line of the first entry that has it, valid or not (an id names one entry; a
    # later entry with it is a duplicate even when the first is invalid)
    first_line: dict[str, int | None] = {}
    names: set[str] = set()
    for index, raw_entry in enumerate(raw.entries):
        line = raw.lines[index] if index < len(raw.lines) else None
        name = _entry_name(raw_entry, index, names)
        names.add(name)
        where = entry_place(path, line, name)
        raw_id = raw_entry.get("id") if isinstance(raw_entry, dict) else None
        claimed = isinstance(raw_id, str) and raw_id in first_line
        if isinstance(raw_id, str) and not claimed:
            first_line[raw_id] = line
        merged = _with_defaults(raw_entry, defaults)
        skip = marked_skip(merged)
        try:
            entry, checks = read_entry(merged, dimensions, live, rootdir)
        except ValueError as exc:
            result.entries.append(InvalidEntry(index, name, str(exc), line, where, skip))
            continue
        if claimed:
            first = first_line[entry.id]
            earlier = f"the entry at line {first}" if first else "an earlier entry"
            reason = f"Duplicate id '{entry.id}' (already used by {earlier})"
            result.entries.append(InvalidEntry(index, name, reason, line, where, skip))
            continue
        unknown_fields = sorted(set(raw_entry) - set(EvalCase.model_fields))
        if unknown_fields:
            warning = f"{where}: unknown field '{unknown_fields[0]}' ignored"
            result.warnings.append((f"{warning} (put free-form data under 'metadata')", line))
        too_large = _too_large(entry, max_input_chars)
        if too_large:
            result.entries.append(InvalidEntry(index, name, too_large, line, where, skip))
            continue
        result.entries.append(ValidEntry(index, entry, line, name, checks))


def marked_skip(raw: Any) -> bool:
    """Whether an entry (file defaults merged) carries a ``skip`` mark, read from its raw
    data: an invalid entry the user set aside is left out without turning the session red."""
    marks = raw.get("marks") if isinstance(raw, dict) else None
    if not isinstance(marks, list):
        return False
    return any(m == "skip" or (isinstance(m, dict) and m.get("name") == "skip") for m in marks)


def _too_large(entry: EvalCase, max_input_chars: int | None) -> str | None:
    """Why the entry is too large to judge (None when it fits)."""
    return oversize_reason(entry.ticket, entry.response or "", max_input_chars, entry.context)


def _with_defaults(raw: Any, defaults: dict[str, Any]) -> Any:
    """Merge file-level defaults under an entry (the entry wins; marks add up)."""
    if not defaults or not isinstance(raw, dict):
        return raw
    merged = dict(raw)
    for key in ("runs",):
        if key in defaults and key not in merged:
            merged[key] = defaults[key]
    for key in ("thresholds", "metadata"):
        if isinstance(defaults.get(key), dict):
            entry_value = raw.get(key, {})
            merged[key] = (
                {**defaults[key], **entry_value} if isinstance(entry_value, dict) else entry_value
            )
    for key in ("marks", "checks"):  # these add up: the file's first
        if isinstance(defaults.get(key), list):
            entry_value = raw.get(key, [])
            merged[key] = (
                defaults[key] + entry_value if isinstance(entry_value, list) else entry_value
            )
    return merged


def load_eval_file(
    path: Path,
    dimensions: Iterable[str],
    live: bool = False,
    shown_as: Path | None = None,
    max_input_chars: int | None = None,
    rootdir: Path | None = None,
) -> EvalFile:
    """Read and parse one eval file; messages name it as ``shown_as`` (e.g. relative);
    ``python`` checks import from ``rootdir``."""
    shown = shown_as or path
    try:
        text = path.read_text(encoding="utf-8-sig")  # a BOM (Excel, Notepad) is not content
    except UnicodeDecodeError as exc:
        raise EvalFileError(f"{shown}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise EvalFileError(f"{shown}: cannot be read ({exc.strerror or exc})") from None
    return parse_eval_text(text, shown, tuple(dimensions), live, max_input_chars, rootdir)

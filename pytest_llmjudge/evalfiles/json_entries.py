"""Reading JSON text defensively: where each member of an array or object starts and ends
(without recursion, so depth costs nothing), and numbers too long to convert.

Used to give entries their line numbers and to read the entries of a file one by one when
the whole file cannot be read at once (nesting too deep for Python's parser): then only the
entry (and field) at fault is reported, and the others still become items.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

_WHITESPACE = " \t\r\n"
_CLOSING = {"[": "]", "{": "}"}
MAX_DIGITS = 100  # longer integers are kept as HugeNumber, not converted


@dataclass(frozen=True)
class HugeNumber:
    """An integer literal too long to be a sensible value (Python refuses past 4300 digits)."""

    digits: int


@dataclass(frozen=True)
class Unreadable:
    """An entry (or field) that could not be read, and why."""

    reason: str


def _int(text: str) -> int | HugeNumber:
    return HugeNumber(len(text)) if len(text.lstrip("-")) > MAX_DIGITS else int(text)


def loads(text: str) -> Any:
    """``json.loads`` that keeps overlong integers as HugeNumber instead of failing."""
    return json.loads(text, parse_int=_int)


def trailing_comma(exc: json.JSONDecodeError) -> tuple[int, int, str] | None:
    """Line, column and what it follows, of a comma right before a closing bracket: the
    parser reports it at the bracket ('Expecting value'), often a line after the mistake,
    or from Python 3.13 at the comma ('Illegal trailing comma before end of array')."""
    text = exc.doc
    if exc.msg.startswith("Illegal trailing comma"):
        comma, closing = exc.pos, text[_skip_space(text, exc.pos + 1) :][:1]
    else:
        before = text[: exc.pos].rstrip()
        comma, closing = len(before) - 1, text[exc.pos : exc.pos + 1]
    if text[comma : comma + 1] != "," or closing not in ("]", "}"):
        return None
    line = text.count("\n", 0, comma) + 1
    column = comma - (text.rfind("\n", 0, comma) + 1) + 1
    return line, column, "the last entry" if closing == "]" else "the last key of an object"


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in _WHITESPACE:
        pos += 1
    return pos


def _string_end(text: str, pos: int) -> int:
    """The index after the string literal starting at ``pos``."""
    pos += 1
    while True:
        pos = text.index('"', pos)  # ValueError: unterminated
        backslashes = 0
        while text[pos - 1 - backslashes] == "\\":
            backslashes += 1
        pos += 1
        if backslashes % 2 == 0:
            return pos


def value_end(text: str, pos: int) -> int:
    """The index after the JSON value starting at ``pos`` (iterative: any depth)."""
    if text[pos] == '"':
        return _string_end(text, pos)
    if text[pos] not in _CLOSING:
        while pos < len(text) and text[pos] not in ",]}" + _WHITESPACE:
            pos += 1
        return pos
    depth = 0
    while True:
        char = text[pos]
        if char == '"':
            pos = _string_end(text, pos)
            continue
        if char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
            if depth == 0:
                return pos + 1
        pos += 1


def members(text: str, start: int) -> Iterator[tuple[str | None, int, int]]:
    """(key, value start, value end) of each member of the array or object at ``start``.

    The commas between members are checked as JSON's parser checks them (this reads files
    too deep for that parser, whose other mistakes must not pass unseen); a file that ends
    early raises ``json.JSONDecodeError`` too."""
    closing = _CLOSING[text[start]]
    pos, first = start + 1, True
    try:
        while True:
            pos = _skip_space(text, pos)
            if text[pos] == closing and first:
                return
            if not first:
                if text[pos] == closing:
                    return
                if text[pos] != ",":
                    raise json.JSONDecodeError("Expecting ',' delimiter", text, pos)
                pos = _skip_space(text, pos + 1)
                if text[pos] == closing:  # a trailing comma: named as the parser names it
                    raise json.JSONDecodeError("Expecting value", text, pos)
            first = False
            key = None
            if closing == "}":
                key_end = _string_end(text, pos)
                key = json.loads(text[pos:key_end])
                pos = _skip_space(text, key_end)
                pos = _skip_space(text, pos + 1)  # the colon
            end = value_end(text, pos)
            yield key, pos, end
            pos = end
    except (IndexError, ValueError) as exc:
        if isinstance(exc, json.JSONDecodeError):
            raise
        raise json.JSONDecodeError("Unexpected end of the file", text, len(text)) from None


def loads_by_entry(text: str) -> Any:
    """The document with each entry read on its own; entries that cannot be read at all (too
    deep for Python's parser) become Unreadable, naming the field at fault. Broken JSON
    around or inside the entries raises ``json.JSONDecodeError``, as ``loads`` would."""
    start = _skip_space(text, 0)
    document: Any
    if text[start] == "[":
        document = [_entry(text, a, b) for _, a, b in members(text, start)]
    else:
        document = {}
        for key, a, b in members(text, start):
            assert key is not None
            if key == "examples" and text[a] == "[":
                document[key] = [_entry(text, x, y) for _, x, y in members(text, a)]
            else:
                document[key] = _read(text, a, b, f"'{key}' is nested too deeply to read")
    end = _skip_space(text, value_end(text, start))
    if end < len(text):
        raise json.JSONDecodeError("Extra data", text, end)
    return document


def _read(text: str, start: int, end: int, reason: str) -> Any:
    try:
        return loads(text[start:end])
    except RecursionError:
        return Unreadable(reason)
    except json.JSONDecodeError as exc:  # located in the file, not in the entry's text
        raise json.JSONDecodeError(exc.msg, text, start + exc.pos) from None


def read_entry(text: str) -> Any:
    """One entry's text (a JSON Lines line) read as ``loads_by_entry`` reads an entry."""
    start = _skip_space(text, 0)
    return _entry(text, start, value_end(text, start))


def _entry(text: str, start: int, end: int) -> Any:
    value = _read(text, start, end, "entry is nested too deeply to read")
    if isinstance(value, Unreadable) and text[start] == "{":
        for key, a, b in members(text, start):
            field = _read(text, a, b, f"'{key}' is nested too deeply to read")
            if isinstance(field, Unreadable):
                return field
    return value

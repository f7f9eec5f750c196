"""Deterministic checks of an answer, as eval files write them: read and validated.

An entry's ``checks`` is a list of objects, one check each: its kind as the key, what it
expects as the value, an optional ``name`` for messages and, for text checks, an optional
``"case": "insensitive"``. A check that cannot work (an unknown kind, a regex that does not
compile, a JSON Schema that is not one, a ``python`` check that cannot be imported) makes the
entry invalid, with a message naming the check. Running checks is ``analysis/checks``.
"""

from __future__ import annotations

import difflib
import importlib
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TEXT_KINDS = ("contains", "not_contains", "contains_any", "contains_all", "equals", "starts_with")
PATTERN_KINDS = ("regex", "not_regex")
COUNT_KINDS = ("min_words", "max_words", "max_chars", "max_latency_ms")
KINDS = (*TEXT_KINDS, *PATTERN_KINDS, *COUNT_KINDS, "is_json", "json_schema", "python")
_OPTIONS = ("name", "case")
_SINGLE_TEXT = ("equals", "starts_with")  # one string, not a list


@dataclass(frozen=True)
class CheckSpec:
    """One check: its kind, what it expects, the name messages use, and text case."""

    kind: str
    expected: Any  # a string, strings, a count, True, a JSON Schema, "module:function"
    name: str
    insensitive: bool = False

    @property
    def texts(self) -> list[str]:
        """The expected strings of a text check (one or several)."""
        return [self.expected] if isinstance(self.expected, str) else list(self.expected)


def parse_checks(raw: Any, rootdir: Path | None = None) -> tuple[CheckSpec, ...]:
    """The checks of an entry (or of the ini option); ValueError naming ``checks.N``."""
    if not isinstance(raw, list):
        raise ValueError(f"'checks' must be a list of check objects, got {type(raw).__name__}")
    return tuple(_parse(item, position, rootdir) for position, item in enumerate(raw))


def _parse(raw: Any, position: int, rootdir: Path | None) -> CheckSpec:
    where = f"checks.{position}"
    if not isinstance(raw, dict):
        raise ValueError(f'{where}: a check is an object such as {{"contains": "..."}}')
    kinds = [key for key in raw if key in KINDS]
    unknown = [key for key in raw if key not in KINDS and key not in _OPTIONS]
    if unknown:
        close = difflib.get_close_matches(unknown[0], KINDS, n=1)
        hint = f"did you mean '{close[0]}'? " if close else ""
        raise ValueError(f"{where}: unknown check '{unknown[0]}' ({hint}known: {', '.join(KINDS)})")
    if len(kinds) != 1:
        found = ", ".join(kinds) or "none"
        raise ValueError(f"{where}: a check has exactly one kind (found: {found})")
    kind = kinds[0]
    value = raw[kind]
    name = raw.get("name")
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise ValueError(f"{where}: 'name' must be a non-empty string")
    case = raw.get("case", "sensitive")
    if case not in ("sensitive", "insensitive"):
        raise ValueError(f"{where}: 'case' must be 'insensitive' or 'sensitive', got {case!r}")
    if case == "insensitive" and kind not in (*TEXT_KINDS, *PATTERN_KINDS):
        raise ValueError(f"{where}: 'case' applies to text and regex checks, not to {kind}")
    _VALIDATORS[_family(kind)](where, kind, value, rootdir)
    return CheckSpec(kind, value, name or default_name(kind, value), case == "insensitive")


def _family(kind: str) -> str:
    for family, members in (
        ("text", TEXT_KINDS),
        ("pattern", PATTERN_KINDS),
        ("count", COUNT_KINDS),
    ):
        if kind in members:
            return family
    return kind


def default_name(kind: str, value: Any) -> str:
    """``contains "reset link"``, ``max_words 120``, ``python checks:no_apology``."""
    if kind in TEXT_KINDS or kind in PATTERN_KINDS:
        shown = value if isinstance(value, str) else ", ".join(value)
        return f'{kind} "{shown}"'
    if kind in COUNT_KINDS or kind == "python":
        return f"{kind} {value}"
    return kind


def _text(where: str, kind: str, value: Any, rootdir: Path | None) -> None:
    strings = [value] if isinstance(value, str) else value
    single = kind in _SINGLE_TEXT
    if (
        (single and not isinstance(value, str))
        or not isinstance(strings, list)
        or not strings
        or not all(isinstance(s, str) and s for s in strings)
    ):
        wanted = "a non-empty string" if single else "a non-empty string or list of strings"
        raise ValueError(f"{where}: {kind} must be {wanted}, got {value!r:.60}")


def _pattern(where: str, kind: str, value: Any, rootdir: Path | None) -> None:
    if not isinstance(value, str) or not value:
        raise ValueError(f"{where}: {kind} must be a regular expression (a string)")
    try:
        re.compile(value)  # Python's syntax is the contract; the regex package runs it
    except re.error as exc:
        raise ValueError(f"{where}: {kind} {value!r:.60} is not a valid regex: {exc}") from None


def _count(where: str, kind: str, value: Any, rootdir: Path | None) -> None:
    if type(value) is not int or value < 0:
        raise ValueError(f"{where}: {kind} must be a whole number >= 0, got {value!r:.40}")


def _is_json(where: str, kind: str, value: Any, rootdir: Path | None) -> None:
    if value is not True:
        raise ValueError(f'{where}: is_json takes true ({{"is_json": true}}), got {value!r:.40}')


def _json_schema(where: str, kind: str, value: Any, rootdir: Path | None) -> None:
    if not isinstance(value, dict):
        raise ValueError(f"{where}: json_schema must be a JSON Schema (an object)")
    from jsonschema import SchemaError, validators

    try:
        validators.validator_for(value).check_schema(value)
    except SchemaError as exc:
        path = "/".join(str(p) for p in exc.path) or "the schema"
        raise ValueError(
            f"{where}: json_schema is not a valid JSON Schema ({path}: {exc.message})"
        ) from None


def _python(where: str, kind: str, value: Any, rootdir: Path | None) -> None:
    if not isinstance(value, str) or value.count(":") != 1:
        raise ValueError(f"{where}: python must be 'module:function', got {value!r:.60}")
    try:
        python_check(value, rootdir)
    except (ImportError, AttributeError, TypeError) as exc:
        raise ValueError(f"{where}: python check {value!r} cannot be used: {exc}") from None


_VALIDATORS: dict[str, Callable[[str, str, Any, Path | None], None]] = {
    "text": _text,
    "pattern": _pattern,
    "count": _count,
    "is_json": _is_json,
    "json_schema": _json_schema,
    "python": _python,
}


def python_check(reference: str, rootdir: Path | None) -> Callable[..., Any]:
    """The function ``module:function`` names, imported as conftest modules are (the rootdir
    on the path); TypeError when it is not callable."""
    module_name, _, function_name = reference.partition(":")
    if rootdir is not None and str(rootdir) not in sys.path:
        sys.path.insert(0, str(rootdir))
    module = importlib.import_module(module_name.strip())
    function = getattr(module, function_name.strip())
    if not callable(function):
        raise TypeError(f"{function_name} is not a function")
    return function  # type: ignore[no-any-return]


def combined(*layers: Sequence[CheckSpec]) -> tuple[CheckSpec, ...]:
    """Checks of several layers (the ini's, a file's defaults, the entry's), in that order."""
    return tuple(check for layer in layers for check in layer)

"""Deterministic checks of a response, as eval files write them: read and validated.

An entry's ``checks`` is a list of objects, one check each: its kind as the key, what it
expects as the value, an optional ``name`` for messages, for text checks an optional
``"case": "insensitive"`` and for a ``python`` check an optional ``threshold``. Values mean
what they mean in promptfoo's assertions of the same name (their forms are read at the end
of this module). A check that cannot work (an unknown kind, a regex that does not compile, a
JSON Schema that is not one or names a format that cannot be checked, a ``python`` check that
cannot be imported) makes the entry invalid, with a message naming the check. Applying them
is ``checks/apply``.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .python_checks import PythonCheck, python_check

CONTAINS_KINDS = (
    "contains", "not_contains", "contains_any", "contains_all", "not_contains_any",
    "not_contains_all",
)  # fmt: skip
SPLIT_KINDS = CONTAINS_KINDS[2:]  # a comma-separated string is several texts, as in promptfoo
PREFIX_KINDS = ("equals", "not_equals", "starts_with", "not_starts_with")
TEXT_KINDS = (*CONTAINS_KINDS, *PREFIX_KINDS)
PATTERN_KINDS = ("regex", "not_regex")
LIMIT_KINDS = ("min_words", "max_words", "min_chars", "max_chars", "max_latency_ms")
RANGE_KINDS = ("words", "not_words", "chars", "not_chars")  # a count or {min, max}
JSON_KINDS = ("is_json", "not_is_json", "json_schema", "contains_json")
REFUSAL_KINDS = ("is_refusal", "not_is_refusal")
KINDS = (
    *TEXT_KINDS, *PATTERN_KINDS, *LIMIT_KINDS, *RANGE_KINDS, *JSON_KINDS, *REFUSAL_KINDS,
    "python",
)  # fmt: skip
_OPTIONS = ("name", "case", "threshold")


@dataclass(frozen=True)
class CheckSpec:
    """One check: its kind, what it expects (as written and as read), the name messages use,
    text case and a python check's threshold."""

    kind: str
    expected: Any  # as the eval file wrote it (the results show it)
    name: str
    insensitive: bool = False
    value: Any = None  # as read: texts, a (min, max) range, a count, a schema, a reference
    threshold: float | None = None

    @property
    def texts(self) -> list[str]:
        """The expected strings of a text check (one or several)."""
        return list(self.value)


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
        hint = _hint(unknown[0])
        raise ValueError(f"{where}: unknown check '{unknown[0]}' ({hint}known: {', '.join(KINDS)})")
    if len(kinds) != 1:
        found = ", ".join(kinds) or "none"
        raise ValueError(f"{where}: a check has exactly one kind (found: {found})")
    kind = kinds[0]
    written = raw[kind]
    name = raw.get("name")
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise ValueError(f"{where}: 'name' must be a non-empty string")
    case = raw.get("case", "sensitive")
    if case not in ("sensitive", "insensitive"):
        raise ValueError(f"{where}: 'case' must be 'insensitive' or 'sensitive', got {case!r}")
    if case == "insensitive" and kind not in (*TEXT_KINDS, *PATTERN_KINDS):
        raise ValueError(f"{where}: 'case' applies to text and regex checks, not to {kind}")
    threshold = raw.get("threshold")
    if threshold is not None and (kind != "python" or not _finite(threshold)):
        raise ValueError(f"{where}: 'threshold' is a number, for python checks (their score)")
    try:
        value = _READERS[_family(kind)](kind, written, rootdir)
    except ValueError as exc:
        raise ValueError(f"{where}: {kind} {exc}") from None
    return CheckSpec(
        kind, written, name or default_name(kind, written), case == "insensitive", value, threshold
    )


def _hint(unknown: str) -> str:
    """``did you mean 'not_words'? `` for a near miss or a promptfoo name."""
    name = unknown.replace("-", "_")
    base = name.removeprefix("not_")
    if base.startswith("icontains"):  # promptfoo's case-insensitive forms
        plain = name.replace("icontains", "contains")
        return f'did you mean \'{plain}\' with "case": "insensitive"? '
    renamed = {"word_count": "words", "character_count": "chars"}.get(base)
    if renamed:
        return f"did you mean '{name.replace(base, renamed)}'? "
    close = difflib.get_close_matches(name, KINDS, n=1)
    return f"did you mean '{close[0]}'? " if close else ""


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _family(kind: str) -> str:
    for family, members in (
        ("contains", CONTAINS_KINDS),
        ("prefix", PREFIX_KINDS),
        ("pattern", PATTERN_KINDS),
        ("limit", LIMIT_KINDS),
        ("range", RANGE_KINDS),
        ("json", JSON_KINDS),
        ("flag", REFUSAL_KINDS),
    ):
        if kind in members:
            return family
    return kind


def default_name(kind: str, value: Any) -> str:
    """``contains "reset link"``, ``max_words 120``, ``words 3-7``, ``python checks:no_apology``."""
    if kind in TEXT_KINDS or kind in PATTERN_KINDS:
        if kind in SPLIT_KINDS and isinstance(value, str):
            value = split_texts(value)  # valid by now
        if isinstance(value, list):
            shown = ", ".join(str(as_text(v) or v) for v in value)
        elif isinstance(value, dict):
            shown = _compact(value)
        else:
            shown = as_text(value) or str(value)
        return f'{kind} "{shown}"'
    if kind in RANGE_KINDS and isinstance(value, dict):
        low, high = value.get("min"), value.get("max")
        shown = (
            f"{low}-{high}"
            if low is not None and high is not None
            else (f">= {low}" if low is not None else f"<= {high}")
        )
        return f"{kind} {shown}"
    if kind in (*LIMIT_KINDS, *RANGE_KINDS, "python"):
        return f"{kind} {value}"
    if kind in JSON_KINDS and isinstance(value, dict) and kind != "json_schema":
        return f"{kind} (schema)"
    return kind


def _compact(value: Any, limit: int = 60) -> str:
    import json

    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _text(value: Any) -> str:
    text = as_text(value)
    if text is None or text == "":
        raise ValueError(f"must be a non-empty string or a number, got {value!r:.60}")
    return text


def _contains(kind: str, value: Any, rootdir: Path | None) -> tuple[str, ...]:
    if isinstance(value, list):
        if not value:
            raise ValueError("must name at least one text, got []")
        return tuple(_text(v) for v in value)
    if kind in SPLIT_KINDS and isinstance(value, str):
        try:
            texts = split_texts(value)
        except ValueError as exc:
            raise ValueError(f"{value!r:.60}: {exc}") from None
        if not texts:
            raise ValueError(f"{value!r:.60} names no text (texts are separated by commas)")
        return tuple(texts)
    return (_text(value),)


def _prefix(kind: str, value: Any, rootdir: Path | None) -> Any:
    if kind in ("equals", "not_equals") and isinstance(value, dict | list):
        return value  # a JSON value: the response must be JSON equal to it
    return (_text(value),)


def _pattern(kind: str, value: Any, rootdir: Path | None) -> str:
    import regex

    if not isinstance(value, str) or not value:
        raise ValueError("must be a regular expression (a string)")
    try:
        regex.compile(value)  # the engine that runs it
    except regex.error as exc:
        raise ValueError(f"{value!r:.60} is not a valid regex: {exc}") from None
    return value


def _limit(kind: str, value: Any, rootdir: Path | None) -> int:
    count = as_count(value)
    if count is None:
        raise ValueError(f"must be a whole number >= 0, got {value!r:.40}")
    return count


def _range(kind: str, value: Any, rootdir: Path | None) -> tuple[int | None, int | None]:
    return as_range(value)


def _json(kind: str, value: Any, rootdir: Path | None) -> dict[str, Any] | None:
    if value is True and kind != "json_schema":
        return None
    if kind == "not_is_json" or not isinstance(value, dict):
        wanted = (
            "true"
            if kind == "not_is_json"
            else ("a JSON Schema (an object)" if kind == "json_schema" else "true or a JSON Schema")
        )
        raise ValueError(f"takes {wanted}, got {value!r:.40}")
    from jsonschema import SchemaError, validators

    checker = validators.validator_for(value)
    try:
        checker.check_schema(value)
    except SchemaError as exc:
        path = "/".join(str(p) for p in exc.path) or "the schema"
        raise ValueError(f"is not a valid JSON Schema ({path}: {exc.message})") from None
    for name in schema_formats(value):
        if name not in checker.FORMAT_CHECKER.checkers:  # never passed unchecked
            why = (
                "needs jsonschema's optional format checkers: pip install "
                "'pytest-llmjudge[formats]'"
                if name in FORMATS_WITH_EXTRAS
                else "is not a format jsonschema knows"
            )
            raise ValueError(f"schema: format '{name}' cannot be checked here ({why})")
    return value


def _flag(kind: str, value: Any, rootdir: Path | None) -> None:
    if value is not True:
        raise ValueError(f"takes true, got {value!r:.40}")


def _python(kind: str, value: Any, rootdir: Path | None) -> PythonCheck:
    if not isinstance(value, str) or not value.strip() or value.strip().endswith(":"):
        raise ValueError(
            f"must be 'module:function' (or a module with get_assert), got {value!r:.60}"
        )
    try:
        return python_check(value, rootdir)
    except (ImportError, AttributeError, TypeError, OSError) as exc:
        raise ValueError(f"check {value!r} cannot be used: {exc}") from None


_READERS: dict[str, Callable[[str, Any, Path | None], Any]] = {
    "contains": _contains,
    "prefix": _prefix,
    "pattern": _pattern,
    "limit": _limit,
    "range": _range,
    "json": _json,
    "flag": _flag,
    "python": _python,
}


# Check values as promptfoo writes them: a comma-separated string of texts, a number where a
# text is expected, a count or a ``{min, max}`` range, and the JSON Schema formats that can be
# checked here.

# Formats jsonschema checks only with its optional format packages (``jsonschema[format-nongpl]``)
FORMATS_WITH_EXTRAS = (
    "date-time", "time", "duration", "uri", "uri-reference", "iri", "iri-reference",
    "hostname", "uri-template", "json-pointer", "relative-json-pointer", "color",
)  # fmt: skip


def split_texts(value: str) -> list[str]:
    """``'a, "b, c",d'`` -> ``["a", "b, c", "d"]``: fields split at commas and trimmed; a
    field in double quotes keeps its commas and spaces (``""`` and ``\\"`` are a quote, ``\\\\``
    a backslash); empty unquoted fields are dropped. ValueError for a quote left open or text
    after a closing quote."""
    texts: list[str] = []
    position, end = 0, len(value)
    while position <= end:
        while position < end and value[position].isspace():
            position += 1
        if position < end and value[position] == '"':
            text, position = _quoted(value, position + 1)
            texts.append(text)
            while position < end and value[position].isspace():
                position += 1
            if position < end and value[position] != ",":
                raise ValueError(f"a comma must follow the quoted text {text!r}")
        else:
            comma = value.find(",", position)
            comma = end if comma < 0 else comma
            field = value[position:comma].strip()
            if field:
                texts.append(field)
            position = comma
        position += 1  # past the comma (or the end)
    return texts


def _quoted(value: str, position: int) -> tuple[str, int]:
    """The quoted field that starts at ``position`` and the index after its closing quote."""
    chars: list[str] = []
    while position < len(value):
        char = value[position]
        if char == "\\" and value[position + 1 : position + 2] in ('"', "\\"):
            chars.append(value[position + 1])
            position += 2
        elif char == '"' and value[position + 1 : position + 2] == '"':
            chars.append('"')
            position += 2
        elif char == '"':
            return "".join(chars), position + 1
        else:
            chars.append(char)
            position += 1
    raise ValueError("a quote is left open")


def as_text(value: Any) -> str | None:
    """A string as it is, a number as JavaScript writes it (``0``, ``2.5``, ``Infinity``);
    None for anything else (NaN, true, null, objects)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        return None
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return str(int(value)) if float(value).is_integer() else repr(value)


def as_count(value: Any) -> int | None:
    """A whole number >= 0 (``3``, ``3.0`` or ``"3"``); None for anything else."""
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        return int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if not math.isfinite(value) or value < 0 or not float(value).is_integer():
        return None
    return int(value)


def as_range(value: Any) -> tuple[int | None, int | None]:
    """A count (exact) or ``{"min": m, "max": n}`` (either may be left out) as (min, max);
    ValueError saying what is wrong."""
    exact = as_count(value)
    if exact is not None:
        return exact, exact
    if not isinstance(value, dict):
        raise ValueError("must be a whole number >= 0 or {'min': ..., 'max': ...}")
    unknown = set(value) - {"min", "max"}
    if unknown or not value:
        raise ValueError("takes an object with 'min' and/or 'max' (whole numbers >= 0)")
    bounds = {key: as_count(value[key]) for key in value}
    bad = [key for key, bound in bounds.items() if bound is None]
    if bad:
        raise ValueError(f"{bad[0]} must be a whole number >= 0, got {value[bad[0]]!r:.40}")
    low, high = bounds.get("min"), bounds.get("max")
    if low is not None and high is not None and low > high:
        raise ValueError(f"min ({low}) is above max ({high})")
    return low, high


def schema_formats(schema: Any) -> Iterator[str]:
    """Every ``format`` a JSON Schema names, at any depth."""
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "format" and isinstance(value, str):
                yield value
            else:
                yield from schema_formats(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from schema_formats(value)

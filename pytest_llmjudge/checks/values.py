"""Check values written as promptfoo writes them: a comma-separated string of texts, a number
where a text is expected, a count or a ``{min, max}`` range, and the JSON Schema formats that
can be checked here.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

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

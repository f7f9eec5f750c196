"""Rules an eval entry must follow beyond its types: ids that fit in a node id, mark names
pytest can apply, and a size the judge can take (plus the excerpt kept of a longer text)."""

from __future__ import annotations

import unicodedata
from typing import Any, overload

from ..basics.rubrics import NO_CONTEXT, Context
from .json_entries import HugeNumber

# What a node id cannot hold: pytest splits on "::", "[...]" marks parameters, "/" and
# line breaks would make -k, --lf and copying the printed id miss the item.
_ID_BREAKERS = (
    ("::", "'::'"),
    ("[", "'['"),
    ("]", "']'"),
    ("/", "'/'"),
    ("\\", "a backslash"),
    ("\n", "a line break"),
    ("\r", "a line break"),
    ("\x00", "a NUL character"),
)


def validate_id(entry_id: str) -> None:
    """Refuse an id that cannot be part of a pytest node id (ValueError saying what is in it)."""
    for text, name in _ID_BREAKERS:
        if text in entry_id:
            raise ValueError(
                f"'id' {entry_id!r} cannot be part of a pytest node id: it contains {name}"
            )
    # Controls (\x1e, \x85) and Unicode line separators: tools and terminals break lines at
    # some of them or show nothing, so the printed node id would not select the entry.
    unseen = next((c for c in entry_id if unicodedata.category(c) in ("Cc", "Zl", "Zp")), None)
    if unseen is not None:
        raise ValueError(
            f"'id' {entry_id!r} cannot be part of a pytest node id: it contains the control "
            f"character U+{ord(unseen):04X}"
        )
    if entry_id.strip() and entry_id != entry_id.strip():
        raise ValueError(f"'id' {entry_id!r} has leading or trailing spaces")


def oversize_reason(
    ticket: str, response: str, limit: int | None, context: Context = NO_CONTEXT
) -> str | None:
    """Why a ticket and response cannot go to the judge (too long together), or None; the
    earlier turns and the reference count against the same limit as the ticket."""
    size = len(ticket) + sum(map(len, context.texts())) + len(response)
    if limit is None or size <= limit:
        return None
    return (
        f"ticket + response are {size:,} characters, over llmjudge_max_input_chars={limit}: "
        "not sent to the judge"
    )


MAX_DEPTH = 50  # levels of lists and objects in an entry's field; real entries use a few


def too_deep(raw: dict[Any, Any]) -> str | None:
    """Why a field is nested too deeply to keep (results, reports and xdist's messages
    recurse into it and would break), or None. Iterative: any depth costs nothing."""
    for key, value in raw.items():
        stack = [(value, 1)]
        while stack:
            node, depth = stack.pop()
            if depth > MAX_DEPTH:
                return f"'{key}' is nested more than {MAX_DEPTH} levels deep"
            if isinstance(node, dict):
                stack.extend((child, depth + 1) for child in node.values())
            elif isinstance(node, list):
                stack.extend((child, depth + 1) for child in node)
    return None


EXCERPT_CHARS = 2_000


@overload
def bounded(text: str, limit: int) -> str: ...
@overload
def bounded(text: None, limit: int) -> None: ...
@overload
def bounded(text: str | None, limit: int) -> str | None: ...
def bounded(text: str | None, limit: int) -> str | None:
    """A text as stored in results and saved files: whole up to ``limit``, else an excerpt."""
    if text is None or len(text) <= limit:
        return text
    return f"{text[:EXCERPT_CHARS]}... [{len(text):,} characters, cut: over {limit}]"


def validate_mark(position: int, name: str) -> None:
    if not name.isidentifier() or name.startswith("_"):
        raise ValueError(f"'marks.{position}': {name!r} is not a mark name")
    if name == "usefixtures":
        # pytest resolves an item's fixtures before an eval file's marks reach it.
        raise ValueError(
            f"'marks.{position}': usefixtures cannot be given in an eval file: use an autouse "
            "fixture or add the mark in a conftest (pytest_collection_modifyitems)"
        )


def describe_error(error: Any) -> str:
    """Turn one pydantic error into a sentence that names the field."""
    name = ".".join(str(part) for part in error["loc"]) or "entry"
    kind = error["type"]
    if kind == "missing":
        return f"Missing '{name}' field"
    if kind in ("string_too_short",):
        return f"'{name}' must be a non-empty string"
    if kind == "literal_error" and name.startswith("conversation."):
        return f"'{name}' must be 'user' or 'assistant', got {error['input']!r}"
    if kind == "extra_forbidden" and name.startswith("conversation."):
        return f"'{name}' is not a field of a turn (turns have 'role' and 'content')"
    if kind in ("string_type",):
        return f"'{name}' must be a string, got {type(error['input']).__name__}"
    if kind in ("greater_than_equal", "less_than_equal") and name.startswith(
        ("thresholds", "expected")
    ):
        return f"'{name}' must be between 1 and 5, got {error['input']!r}"
    if kind == "greater_than_equal":
        return f"'{name}' must be >= {error['ctx']['ge']}, got {error['input']!r}"
    if kind == "less_than_equal":
        return f"'{name}' must be at most {error['ctx']['le']}, got {error['input']!r}"
    if isinstance(error.get("input"), HugeNumber):
        return f"'{name}' must be a sensible number, got one with {error['input'].digits} digits"
    if kind in ("int_type", "float_type", "dict_type", "list_type", "model_type"):
        expected = {
            "int_type": "an integer",
            "float_type": "a number",
            "dict_type": "an object",
            "list_type": "a list",
            "model_type": "an object",
        }[kind]
        return f"'{name}' must be {expected}, got {type(error['input']).__name__}"
    return f"'{name}': {error['msg']}"

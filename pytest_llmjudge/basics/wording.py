"""Small rules of the texts people read: a count with its noun in the right number."""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``1 eval item``, ``3 eval items``, ``2 entries`` (``plural`` where adding s is wrong)."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"


def entry_place(file: object, line: int | None, name: str) -> str:
    """Where an eval entry is, the same in every format: ``evals/a.csv:5 (ticket-001)``, the
    1-based line where the entry (or CSV record) starts and its name (its id, or ``#N``)."""
    return f"{file}:{line} ({name})" if line else f"{file} ({name})"

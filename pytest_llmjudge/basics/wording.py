"""Small rules of the texts people read: a count with its noun in the right number."""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``1 eval item``, ``3 eval items``, ``2 entries`` (``plural`` where adding s is wrong)."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"

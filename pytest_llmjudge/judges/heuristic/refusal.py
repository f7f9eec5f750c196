"""The refusal signal the offline judge and the ``is_refusal`` check share: an answer that
declines, shrugs or sends the asker elsewhere instead of answering."""

from __future__ import annotations

from .relevance_words import EVASIVE
from .signals import phrases


def find_refusal(text: str) -> str | None:
    """A short description of the refusal found in the text (``says "can't help"``), or None."""
    if not text.strip():
        return "an empty answer"
    found = phrases(text, EVASIVE)
    return f'says "{found[0]}"' if found else None

"""What the offline heuristic judge leaves unjudged: every dimension but relevance and tone
(correctness, where an entry carries a reference; a dimension of ``llmjudge_dimensions``).
Said once before the items, and left out of each item's verdict as "not judged offline"
(``llmjudge_strict = offline``: an error of each such item instead)."""

from __future__ import annotations

from ..config.settings import Settings
from ..judges.heuristic import JUDGED

STRICT_KIND = "offline"
_CORRECTNESS = "correctness"


def not_judged_offline(settings: Settings, has_reference: bool) -> list[str]:
    """The dimensions an item would be judged on that the offline judge does not score."""
    if settings.uses_llm:
        return []
    names = [
        name
        for name, dimension in settings.dimensions.items()
        if name not in JUDGED and (has_reference or not dimension.uses_reference)
    ]
    if has_reference and _CORRECTNESS not in names:  # a reference asks for it by itself
        names.append(_CORRECTNESS)
    return names


def offline_notice(settings: Settings, referenced: int) -> list[str]:
    """The lines said once before the items (none with an LLM judge, or nothing unjudged)."""
    if settings.uses_llm:
        return []
    lines = [f"correctness not judged offline: {referenced} entries carry a reference"]
    lines = lines if referenced else []
    lines += [
        f"{name} not judged offline (a dimension of llmjudge_dimensions)"
        for name in not_judged_offline(settings, has_reference=False)
    ]
    if not lines:
        return []
    if STRICT_KIND in settings.strict:
        tail = f"each such item is an error (llmjudge_strict = {STRICT_KIND})"
    else:
        tail = (
            f"left unjudged: they neither pass nor fail an item (-o llmjudge_strict={STRICT_KIND} "
            "makes them errors; an LLM judge scores them)"
        )
    return [*lines[:-1], f"{lines[-1]}; {tail}"]


def strict_error(unjudged: list[str]) -> str:
    """An item's error under ``llmjudge_strict = offline``."""
    return (
        f"{', '.join(unjudged)} not judged offline (llmjudge_strict = {STRICT_KIND}): the offline "
        "heuristic judge scores relevance and tone only; use an LLM judge"
    )

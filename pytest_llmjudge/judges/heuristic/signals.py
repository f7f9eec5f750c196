"""A measured signal: its value and the words in the text that produced it."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache


@dataclass(frozen=True)
class Signal:
    value: float
    evidence: tuple[str, ...] = ()
    shown: str | None = None  # how the reasoning names the value, when words do not
    part_of: str | None = None  # named together with this signal (it measures the same)

    def describe(self, name: str) -> str:
        if self.shown is not None:
            return self.shown
        if self.evidence:
            examples = ", ".join(dict.fromkeys(e.lower() for e in self.evidence))
            return f'{name} ("{_shorten(examples)}")'
        return name


@dataclass
class Signals:
    """Signals by name, in the order they were measured."""

    by_name: dict[str, Signal] = field(default_factory=dict)

    def add(
        self,
        name: str,
        evidence: Sequence[str],
        *,
        cap: int | None = None,
        value: float | None = None,
        shown: str | None = None,
        part_of: str | None = None,
    ) -> None:
        """Record a signal: by default the number of hits, capped (the tenth "thanks" adds
        nothing), or an explicit value."""
        measured = float(len(evidence)) if value is None else value
        if cap is not None:
            measured = min(measured, float(cap))
        self.by_name[name] = Signal(measured, tuple(evidence), shown, part_of)

    def __getitem__(self, name: str) -> float:
        return self.by_name[name].value

    def values(self) -> dict[str, float]:
        return {name: signal.value for name, signal in self.by_name.items()}


@cache
def _phrase_pattern(options: tuple[str, ...]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(o) for o in sorted(options, key=len, reverse=True))
    # not after a hyphen: "-u" in "journalctl -u docker" is a flag, not "u" for "you"
    return re.compile(rf"(?<![\w'-])(?:{alternatives})(?![\w'])", re.IGNORECASE)


def phrases(text: str, options: tuple[str, ...]) -> list[str]:
    """Every whole-word occurrence of any of the phrases, longest first."""
    return _phrase_pattern(options).findall(text)


def starts_with(sentences: Iterable[str], options: tuple[str, ...]) -> list[str]:
    """The opening phrase of each sentence that opens with one of the options."""
    pattern = _phrase_pattern(options)
    hits = []
    for sentence in sentences:
        match = pattern.match(sentence.lstrip(" \"'(*-"))
        if match:
            hits.append(match.group(0))
    return hits


def _shorten(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 3].rstrip(", ") + "..."

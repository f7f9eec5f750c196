"""The dimensions a session judges: the built-in ones and those configured with a rubric file
(``llmjudge_dimensions``). Errors are ValueErrors naming the option's source."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ..basics.rubrics import DEFAULT_ASSISTANT, OPTIONAL_DIMENSIONS, Dimension
from ..basics.rubrics import DIMENSIONS as BUILTIN_DIMENSIONS


def read_rubrics(
    pairs: tuple[tuple[str, str], ...], folder: Path, source: str
) -> dict[str, Dimension]:
    dimensions = dict(BUILTIN_DIMENSIONS)
    if pairs:
        # The schema (and pydantic) only for sessions that configure dimensions.
        from ..schema.results import RESERVED_NAMES

        taken = sorted(RESERVED_NAMES.intersection(name for name, _ in pairs))
        if taken:
            raise ValueError(
                f"{source} dimension names are lowercase identifiers, not {taken[0]!r} "
                "(a key of every results row)"
            )
    named: set[str] = set()
    for name, file in pairs:
        if name in named:
            raise ValueError(f"{source}: dimension {name!r} is defined twice")
        named.add(name)  # a built-in one (relevance, tone) named with a file: its rubric replaced
        if name in OPTIONAL_DIMENSIONS and not file:
            dimensions[name] = OPTIONAL_DIMENSIONS[name]  # built in: its own rubric
            continue
        path = Path(file) if Path(file).is_absolute() else folder / file
        try:
            rubric = path.read_text(encoding="utf-8").strip()
        except OSError:
            raise ValueError(f"{source}: rubric file {path} not found") from None
        if not rubric:
            raise ValueError(f"{source}: rubric file {path} is empty")
        built_in = OPTIONAL_DIMENSIONS.get(name)  # correctness with a rubric of one's own
        dimensions[name] = Dimension(name, rubric, built_in is not None and built_in.uses_reference)
    return dimensions


def ignored_offline(dimensions: Mapping[str, Dimension]) -> str:
    """What of the judge's domain the heuristic judge cannot read: the role line
    (``llmjudge_assistant``), built-in rubrics replaced by files; "" when nothing."""
    ignored = []
    if any(d.assistant != DEFAULT_ASSISTANT for d in dimensions.values()):
        ignored.append("llmjudge_assistant")
    replaced = [
        name
        for name, built_in in BUILTIN_DIMENSIONS.items()
        if name in dimensions and dimensions[name].rubric != built_in.rubric
    ]
    if replaced:
        ignored.append(f"the rubric files of {', '.join(replaced)}")
    return " and ".join(ignored)

"""Where a session's outputs go, checked before any judging: the results file, reports,
saved answers and the GitHub step summary must be writable (kept apart from ``writers``,
whose report modules are only needed at the session's end)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from ..config.settings import Settings


def unwritable_outputs(settings: Settings, environ: Mapping[str, str]) -> list[str]:
    """The configured outputs that cannot be written (checked at start, nothing created)."""
    wanted: list[tuple[str, Path, bool]] = [("--judge-output", settings.output, False)]
    wanted += [("--judge-report", report, False) for report in settings.reports]
    if settings.save_responses is not None:
        wanted.append(("llmjudge_targets save_responses", settings.save_responses, True))
    if environ.get("GITHUB_STEP_SUMMARY"):
        wanted.append(("GITHUB_STEP_SUMMARY", Path(environ["GITHUB_STEP_SUMMARY"]), False))
    problems = []
    for name, path, is_dir in wanted:
        problem = _unwritable(path, is_dir)
        if problem:
            problems.append(f"{name} {path}: {problem}")
    return problems


def _unwritable(path: Path, is_dir: bool) -> str | None:
    if path.exists():
        if path.is_dir() != is_dir:
            return "is a directory" if path.is_dir() else "is not a directory"
        return None if os.access(path, os.W_OK) else "not writable"
    parent = path.parent
    while not parent.exists():  # the folders that would be created
        parent = parent.parent
    if not parent.is_dir():
        return f"{parent} is a file, not a directory"
    return None if os.access(parent, os.W_OK | os.X_OK) else f"{parent} is not writable"

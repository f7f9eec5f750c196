"""Which files and folders are eval files: paths, patterns, shape, symlinks, node ids.

Asked for every file pytest looks at, so it is cheap and imports nothing heavy; a JSON file
in an eval folder that is not shaped like an eval file is left alone with a warning.
"""

from __future__ import annotations

import fnmatch
import functools
import warnings
from collections.abc import Sequence
from pathlib import Path

import pytest

from ..basics.fileio import EVAL_SUFFIXES, shown

EVAL_FILES_KEY = pytest.StashKey[set[Path]]()  # real paths of the eval files collected so far


class LLMJudgeWarning(UserWarning):
    """Something in or about an eval file was ignored."""


def is_eval_file(
    file_path: Path, config: pytest.Config, explicit: bool, own: Sequence[Path] = ()
) -> bool:
    """Inside ``llmjudge_paths``, matching ``llmjudge_file_patterns`` and shaped like an eval
    file, or named on the command line. A JSON file of another kind in an eval folder is left
    alone, with a warning; what the plugin writes (``own``: this session's outputs, and any
    results file or trace by its content) is left alone silently.
    """
    if file_path.suffix.lower() not in EVAL_SUFFIXES:
        return False
    if explicit:
        return True
    patterns: Sequence[str] = config.getini("llmjudge_file_patterns")
    if not any(fnmatch.fnmatch(file_path.name, p) for p in patterns):
        return False
    if is_own_output(file_path, own):
        return False
    roots = _eval_roots(config)
    if not any(file_path.is_relative_to(root) for root in roots):
        _note_if_eval_shaped(file_path, config)
        return False
    if file_path.suffix.lower() != ".json":  # a pattern matched: no other kind of JSONL/CSV
        return not _seen_before(file_path, config)
    from ..evalfiles.json_shape import HOW_TO, eval_shaped

    try:
        text = file_path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return True  # unreadable: the eval file's own error says why
    if eval_shaped(text):
        return not _seen_before(file_path, config)
    warnings.warn_explicit(
        LLMJudgeWarning(
            f"{shown(file_path)} is not collected: not shaped like an eval file ({HOW_TO})"
        ),
        category=None,
        filename=str(file_path),
        lineno=1,
    )
    return False


def is_own_output(file_path: Path, own: Sequence[Path]) -> bool:
    """A file this plugin writes: one of this session's outputs (or inside its folders of
    saved answers and logs), or a results file or trace of any session, by its first line."""
    real = file_path.resolve()
    if any(real == path or real.is_relative_to(path) for path in _resolved(tuple(own))):
        return True
    if file_path.suffix.lower() not in (".json", ".jsonl"):
        return False
    from ..evalfiles.json_shape import plugin_output

    try:
        with file_path.open(encoding="utf-8-sig") as handle:
            head = handle.read(4096)
    except (OSError, UnicodeDecodeError):
        return False
    return plugin_output(head)


@functools.lru_cache(maxsize=8)  # one session's outputs, asked for every file
def _resolved(paths: tuple[Path, ...]) -> tuple[Path, ...]:
    return tuple(path.resolve() for path in paths)


OUTSIDE_KEY = pytest.StashKey[list[Path]]()  # eval-shaped files outside llmjudge_paths


def _note_if_eval_shaped(file_path: Path, config: pytest.Config) -> None:
    """Remember a file the arguments reached that looks like an eval file but lies outside
    ``llmjudge_paths``: the session says why it was not collected."""
    from ..evalfiles.json_shape import SNIFFED_CHARS, holds_evals, saved_responses

    try:
        with file_path.open(encoding="utf-8-sig") as handle:
            text = handle.read(SNIFFED_CHARS)
    except (OSError, UnicodeDecodeError):
        return
    if holds_evals(text, file_path.suffix.lower()) and not saved_responses(text):
        config.stash.setdefault(OUTSIDE_KEY, []).append(file_path)


def warn_of_files_outside_paths(config: pytest.Config, written: Sequence[Path] = ()) -> None:
    """One warning for the eval-shaped files that were not collected, with what to do: the
    files under the session's arguments (pytest also hands its collection hook the files
    beside each folder on the way to an argument), not the ``written`` outputs of a run."""
    reached = [config.invocation_params.dir / arg.split("::", 1)[0] for arg in config.args]
    outside = [
        path
        for path in config.stash.get(OUTSIDE_KEY, [])
        if any(path.is_relative_to(arg) for arg in reached) and not is_own_output(path, written)
    ]
    if not outside:
        return
    paths = " ".join(config.getini("llmjudge_paths")) or "(none)"
    folders = sorted({shown(path.parent) for path in outside})
    others = f" and {len(outside) - 1} more" if len(outside) > 1 else ""
    warnings.warn_explicit(
        LLMJudgeWarning(
            f"{shown(outside[0])}{others} look like eval files but are not collected: they lie "
            f"outside llmjudge_paths ({paths}). Add their folder under [tool.pytest.ini_options] "
            f"(llmjudge_paths = {paths} {' '.join(folders)}) or name a file on the command line."
        ),
        category=None,
        filename=str(outside[0]),
        lineno=1,
    )


def is_eval_nodeid(nodeid: str) -> bool:
    """An eval file's node id, or one of its items' (``evals/support.json::ticket-001``)."""
    return nodeid.split("::", 1)[0].lower().endswith(EVAL_SUFFIXES)


def may_collect_evals(config: pytest.Config) -> bool:
    """Whether this session's arguments reach an eval folder or name a JSON file.

    Decides the header line before collection; a session of ordinary tests gets none.
    """
    roots = _eval_roots(config)
    roots = [root for root in roots if root.exists()]
    for arg in config.args:
        path = Path(arg.split("::", 1)[0])
        if not path.is_absolute():
            path = config.invocation_params.dir / path
        if path.suffix.lower() in EVAL_SUFFIXES:
            return True
        if any(path.is_relative_to(root) or root.is_relative_to(path) for root in roots):
            return True
    return False


def _eval_roots(config: pytest.Config) -> list[Path]:
    return [config.rootpath / p for p in config.getini("llmjudge_paths")]


def is_symlink_loop(path: Path, config: pytest.Config) -> bool:
    """A symlinked folder in an eval folder that points back up into its own ancestors."""
    if not path.is_symlink() or not any(path.is_relative_to(r) for r in _eval_roots(config)):
        return False
    target = path.resolve()
    return target.is_dir() and path.parent.resolve().is_relative_to(target)


def _seen_before(file_path: Path, config: pytest.Config) -> bool:
    """The same file reached again through a symlink: collected once."""
    seen = config.stash.setdefault(EVAL_FILES_KEY, set())
    real = file_path.resolve()
    if real in seen:
        return True
    seen.add(real)
    return False

"""The option surface checked at start: removed flags and ini keys are usage errors naming
their replacement, an unknown ``llmjudge_*`` key names the close matches, a removed ``JUDGE_*``
variable that is set is a warning. The removal table is read only when a name may be in it."""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest

from ..basics.fileio import shown
from ..config.options import INI_KEYS
from ..config.settings import SettingsError
from .pytest_internals import unknown_ini_keys


def refuse_removed_flags(args: list[str]) -> None:
    """UsageError naming the replacement of each removed ``--judge-*`` flag on the command line
    (the table is read only when a ``--judge-`` argument is there)."""
    if any(arg.startswith("--judge-") for arg in args):
        from ..config.removed import removed_flag_errors

        lines = removed_flag_errors(args)
        if lines:
            raise pytest.UsageError("pytest-llmjudge: " + "; ".join(lines))


def warn_of_removed_variables(config: pytest.Config) -> None:
    """One warning line for each ``JUDGE_*`` variable that is set and no longer read (shared
    environments: a warning, not an error)."""
    if any(name.startswith("JUDGE_") for name in os.environ):
        from ..config.removed import removed_env_warnings

        for line in removed_env_warnings(os.environ):
            config.issue_config_time_warning(pytest.PytestConfigWarning(line), stacklevel=2)


def overridden_ini_keys(config: pytest.Config) -> set[str]:
    """The ini keys given with ``-o`` (on the command line, in PYTEST_ADDOPTS or addopts)."""
    return {str(o).split("=", 1)[0].strip() for o in config.option.override_ini or ()}


def validate_ini_keys(config: pytest.Config) -> None:
    """SettingsError for an ``llmjudge_*`` ini key the plugin does not know (a typo would
    quietly leave its default in force), naming the close matches, or, for a removed key,
    what replaces it."""
    # keys given with -o too: pytest 8 counts only the ini file's keys as unknown
    given = overridden_ini_keys(config)
    unknown = sorted(
        {k for k in unknown_ini_keys(config) if k.startswith("llmjudge_")}
        | {k for k in given if k.startswith("llmjudge_") and k not in INI_KEYS}
    )
    if not unknown:
        return

    from ..config.removed import REMOVED_INI_KEYS

    prefix = "llmjudge_"  # shared by every key: compared without it
    known = [key.removeprefix(prefix) for key in INI_KEYS]
    lines = []
    for key in unknown:
        if key in REMOVED_INI_KEYS:
            lines.append(REMOVED_INI_KEYS[key].ini_error())
            continue
        close = difflib.get_close_matches(key.removeprefix(prefix), known, n=3, cutoff=0.6)
        names = [prefix + name for name in close]
        hint = f"did you mean {' or '.join(names)}?" if close else "see docs/configuration.md"
        lines.append(f"unknown ini option {key} in {shown(config.inipath or Path('.'))} ({hint})")
    raise SettingsError("; ".join(lines))

"""The installed version, read from the package metadata (pyproject.toml is its one source)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version


def plugin_version() -> str:
    try:
        return version("pytest-llmjudge")
    except PackageNotFoundError:  # imported from a checkout that was never installed
        return "0+unknown"

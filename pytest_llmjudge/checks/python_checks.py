"""A ``python`` check's function, imported from the user's project as conftest modules are,
leaving the process as it was: ``sys.path`` restored, and no module left in ``sys.modules``
that only the rootdir entry found or that has a name made up to import a file."""

from __future__ import annotations

import functools
import importlib
import importlib.util
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any


@dataclass(frozen=True)
class PythonCheck:
    """A ``python`` check as read: the reference written and the function it names."""

    reference: str
    function: Callable[..., Any]


def python_check(reference: str, rootdir: Path | None) -> PythonCheck:
    """The function a reference names: ``module:function``, a module alone (its
    ``get_assert``, as promptfoo calls), or a file (``checks/mine.py:fn``, ``file://...``),
    imported as conftest modules are (from the rootdir); TypeError when not callable."""
    return PythonCheck(reference, _imported(reference.strip().removeprefix("file://"), rootdir))


@functools.cache  # each module imported once a process, as Python's own import does
def _imported(target: str, rootdir: Path | None) -> Callable[..., Any]:
    """Import with the rootdir on ``sys.path`` for the import only; afterwards ``sys.path``
    is as it was, and ``sys.modules`` holds no module that only that entry found, nor a
    file's module under the name it was imported by (the function keeps what it needs)."""
    where, _, function_name = target.rpartition(":") if ":" in target else (target, "", "")
    function_name = function_name.strip() or "get_assert"
    path_before, modules_before = list(sys.path), set(sys.modules)
    added = rootdir is not None and str(rootdir) not in sys.path
    if added:
        sys.path.insert(0, str(rootdir))
    try:
        module = _module(where.strip(), rootdir)
    finally:
        sys.path[:] = path_before
        for name in set(sys.modules) - modules_before:
            if name.startswith(FILE_MODULE) or (added and _found_in(sys.modules[name], rootdir)):
                del sys.modules[name]
    function = getattr(module, function_name)
    if not callable(function):
        raise TypeError(f"{function_name} is not a function")
    return function  # type: ignore[no-any-return]


FILE_MODULE = "llmjudge_check_"  # a check file's module while it runs


def _module(where: str, rootdir: Path | None) -> ModuleType:
    if not where.endswith(".py"):
        return importlib.import_module(where)
    path = Path(where)
    path = path if path.is_absolute() or rootdir is None else rootdir / path
    spec = importlib.util.spec_from_file_location(f"{FILE_MODULE}{path.stem}", path)
    if spec is None or spec.loader is None or not path.is_file():
        raise ImportError(f"no Python file {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # while it runs, as an import has it (dataclasses ask)
    spec.loader.exec_module(module)
    return module


def _found_in(module: ModuleType, rootdir: Path | None) -> bool:
    """Whether the module was found through the rootdir entry: its file is under the rootdir
    and under no other entry of ``sys.path`` inside it (a virtual environment's)."""
    file = getattr(module, "__file__", None)
    if rootdir is None or not isinstance(file, str):
        return False
    where = Path(file).resolve()
    inside = [Path(entry).resolve() for entry in sys.path if entry]
    others = [e for e in inside if e != rootdir.resolve() and e.is_relative_to(rootdir.resolve())]
    return where.is_relative_to(rootdir.resolve()) and not any(
        where.is_relative_to(e) for e in others
    )

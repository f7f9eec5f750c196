"""The rooms of ARCHITECTURE.md, checked against the package's imports (read with ``ast``)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parents[2] / "pytest_llmjudge"
ARCHITECTURE = Path(__file__).parents[2] / "ARCHITECTURE.md"

# room (a folder of the package, or a module at its top) -> layer, as ARCHITECTURE.md gives
# them; a module imports only from its own room's layer or lower ones.
LAYERS: dict[str, int] = {
    "basics": 0,
    "schema": 0,
    "config": 1,
    "checks": 2,
    "evalfiles": 2,
    "judges": 2,
    "analysis": 3,
    "reports": 4,
    "judging": 5,
    "outputs": 6,
    "session": 7,
    "plugin": 8,
    "__main__": 8,
}
KNOWS_PYTEST = {"session", "plugin"}  # the only rooms that import pytest
FACE = "__init__"  # the package's public face: imported by users, never by its own modules


def module_name(path: Path) -> str:
    """The dotted name of a source file under the package: ``config.settings``."""
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" and len(parts) > 1 else parts)


def room(module: str) -> str:
    return module.split(".")[0]


def imports_of(path: Path, source: str | None = None) -> list[tuple[str, int]]:
    """(module of pytest_llmjudge imported, line) for each import, lazy ones too; pytest
    and _pytest appear as ``pytest``, the package's face as ``__init__``.

    ``source`` stands in for the file's text (to test the checker itself).
    """
    tree = ast.parse(source if source is not None else path.read_text(encoding="utf-8"))
    package_parts = path.relative_to(PACKAGE.parent).parent.parts
    found: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(package_parts[: len(package_parts) - node.level + 1])
                target = [*base, *(node.module.split(".") if node.module else [])]
            else:
                target = (node.module or "").split(".")
            if target[0] in ("pytest", "_pytest"):
                found.append(("pytest", node.lineno))
            elif target[:1] == ["pytest_llmjudge"]:
                found += [(_resolve(target[1:], alias.name), node.lineno) for alias in node.names]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] in ("pytest", "_pytest"):
                    found.append(("pytest", node.lineno))
                elif parts[0] == "pytest_llmjudge":
                    found.append((".".join(parts[1:]) or FACE, node.lineno))
    return found


def _resolve(module: list[str], name: str) -> str:
    """``from pytest_llmjudge.<module> import <name>``: the module it reads from."""
    as_module = PACKAGE.joinpath(*module, name)
    if as_module.with_suffix(".py").exists() or (as_module / "__init__.py").exists():
        return ".".join([*module, name])
    return ".".join(module) or FACE


SOURCES = sorted(PACKAGE.rglob("*.py"))
MODULES = {module_name(p): p for p in SOURCES if module_name(p) != FACE}


def _graph() -> dict[str, set[str]]:
    return {
        name: {imported for imported, _ in imports_of(path) if imported in MODULES} - {name}
        for name, path in MODULES.items()
    }


def _circles(graph: dict[str, set[str]]) -> list[str]:
    circles = []
    for start in graph:  # a path back to the start through the import graph
        stack, seen = [(start, [start])], set()
        while stack:
            node, trail = stack.pop()
            for nxt in graph[node]:
                if nxt == start:
                    circles.append(" -> ".join([*trail, start]))
                elif nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, [*trail, nxt]))
    return circles


def test_every_room_has_a_layer_and_is_in_the_architecture_document() -> None:
    rooms = {room(name) for name in MODULES}
    assert rooms == set(LAYERS), "give a new room a layer here and a row in ARCHITECTURE.md"
    documented = set(re.findall(r"`(\w+)/?`", ARCHITECTURE.read_text(encoding="utf-8")))
    assert set(LAYERS) - documented == set()


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_go_down_or_sideways_never_up(path: Path) -> None:
    own = module_name(path)
    wrong = []
    for imported, line in imports_of(path):
        if imported == "pytest":
            if room(own) not in KNOWS_PYTEST:
                wrong.append(f"line {line}: {own} imports pytest (only plugin and session/ do)")
        elif imported == FACE:
            wrong.append(f"line {line}: {own} imports the package's face (__init__)")
        elif own != FACE and LAYERS[room(imported)] > LAYERS[room(own)]:
            wrong.append(
                f"line {line}: {own} (layer {LAYERS[room(own)]}) imports {imported} "
                f"(layer {LAYERS[room(imported)]})"
            )
    assert wrong == []


def test_no_import_circles_between_modules_or_between_rooms() -> None:
    modules = _graph()
    assert _circles(modules) == []
    rooms: dict[str, set[str]] = {name: set() for name in LAYERS}
    for name, imported in modules.items():
        rooms[room(name)] |= {room(other) for other in imported} - {room(name)}
    assert _circles(rooms) == []


def test_the_checker_sees_imports_that_run_up_circles_and_the_face() -> None:
    """The rules can fail: lazy imports of a higher layer, of pytest and of the face are found."""
    source = "def f():\n    from ..judging.engine import JudgeEngine\n    import pytest\n"
    found = imports_of(PACKAGE / "analysis" / "stats.py", source)
    assert found == [("judging.engine", 2), ("pytest", 3)]
    assert imports_of(PACKAGE / "judges" / "base.py", "from .. import Judgment\n") == [(FACE, 1)]
    assert imports_of(PACKAGE / "plugin.py", "from .session import hooks\n") == [
        ("session.hooks", 1)
    ]
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [
        "a -> b -> c -> a",
        "b -> c -> a -> b",
        "c -> a -> b -> c",
    ]

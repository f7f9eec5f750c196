"""The layers of ARCHITECTURE.md, checked against the package's imports (read with ``ast``)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parent.parent / "pytest_llmjudge"
ARCHITECTURE = Path(__file__).parent.parent / "ARCHITECTURE.md"

# module -> layer, as ARCHITECTURE.md's table gives them; a module imports only its own layer
# or lower ones. Layers below PYTEST_LAYER never import pytest.
LAYERS: dict[str, int] = {
    **dict.fromkeys(
        [
            "schema",
            "schema_sections",
            "stats",
            "rubrics",
            "targets",
            "pricing",
            "redaction",
            "fileio",
            "sniff",
            "jsonscan",
            "injection",
        ],
        0,
    ),
    **dict.fromkeys(
        ["options", "settings", "item_settings", "dataset", "entry_rules", "formats"], 1
    ),
    **dict.fromkeys(["judgment", "judges", "cache"], 2),
    **dict.fromkeys(
        [
            "engine",
            "runs",
            "planned",
            "capacity",
            "loop",
            "retry",
            "budget",
            "bots",
            "limiter",
            "trace",
            "progress",
        ],
        3,
    ),
    **dict.fromkeys(["gates", "baseline", "comparison", "agreement", "dry_run"], 4),
    **dict.fromkeys(["report", "markdown", "html_report", "html_parts"], 5),
    **dict.fromkeys(["session_results", "writers", "attempt", "facade", "merge"], 6),
    **dict.fromkeys(["runtime", "discovery", "collect", "item_records", "planning", "live"], 7),
    **dict.fromkeys(["plugin", "session_hooks", "__main__"], 8),
}
PYTEST_LAYER = 7
LARGEST_MODULE = 350  # lines; the option table (options.py) is exempt


def room(path: Path) -> str:
    """The layer name of a source file: its module, or its package under the top package."""
    relative = path.relative_to(PACKAGE)
    return relative.parts[0] if len(relative.parts) > 1 else relative.stem


def imports_of(path: Path, source: str | None = None) -> list[tuple[str, int]]:
    """(module or package of pytest_llmjudge imported, line) for each import, lazy ones too.

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
            if target[:1] != ["pytest_llmjudge"]:
                found += [(target[0], node.lineno)] if target[0] in ("pytest", "_pytest") else []
                continue
            if len(target) == 1:  # from . import name: each name is a module
                found += [(alias.name, node.lineno) for alias in node.names]
            else:
                found.append((target[1], node.lineno))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "pytest_llmjudge" and len(parts) > 1:
                    found.append((parts[1], node.lineno))
                elif parts[0] in ("pytest", "_pytest"):
                    found.append((parts[0], node.lineno))
    return found


SOURCES = sorted(p for p in PACKAGE.rglob("*.py") if room(p) != "__init__")


def test_every_module_has_a_layer_and_is_in_the_architecture_document() -> None:
    rooms = {room(p) for p in SOURCES}
    assert rooms == set(LAYERS), "give new modules a layer here and a row in ARCHITECTURE.md"
    documented = set(re.findall(r"`(\w+)/?`", ARCHITECTURE.read_text(encoding="utf-8")))
    assert set(LAYERS) - documented == set()


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_go_down_or_sideways_never_up(path: Path) -> None:
    own = room(path)
    wrong = []
    for imported, line in imports_of(path):
        if imported in ("pytest", "_pytest"):
            if LAYERS[own] < PYTEST_LAYER:
                wrong.append(f"line {line}: {own} (layer {LAYERS[own]}) imports pytest")
        elif imported != own and LAYERS.get(imported, -1) > LAYERS[own]:
            wrong.append(
                f"line {line}: {own} (layer {LAYERS[own]}) imports {imported} "
                f"(layer {LAYERS[imported]})"
            )
    assert wrong == []


def test_no_import_circles() -> None:
    graph: dict[str, set[str]] = {name: set() for name in LAYERS}
    for path in SOURCES:
        graph[room(path)] |= {
            name for name, _ in imports_of(path) if name in LAYERS and name != room(path)
        }
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
    assert circles == []


def test_modules_stay_small() -> None:
    sizes = {
        str(p.relative_to(PACKAGE)): len(p.read_text(encoding="utf-8").splitlines())
        for p in SOURCES
    }
    too_large = {name: n for name, n in sizes.items() if n >= LARGEST_MODULE}
    assert too_large.keys() <= {"options.py"}


def test_the_checker_sees_imports_that_run_up() -> None:
    """The rule can fail: lazy imports of a higher layer and of pytest are found."""
    source = "def f():\n    from .engine import JudgeEngine\n    import pytest\n"
    found = imports_of(PACKAGE / "stats.py", source)
    assert found == [("engine", 2), ("pytest", 3)]
    assert imports_of(PACKAGE / "judges" / "base.py", "from ..settings import Settings\n") == [
        ("settings", 1)
    ]

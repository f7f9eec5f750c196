"""No function of the package is over 50 lines (its signature, docstring and body): a longer
one is cut where its steps part, so that each step can be read, named and tested alone."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).parents[2] / "pytest_llmjudge"
LONGEST = 50  # lines, from the ``def`` (decorators aside) to the function's last line


def long_functions(package: Path = PACKAGE, longest: int = LONGEST) -> list[str]:
    """``module:line function (N lines)`` for every function longer than ``longest``."""
    found = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > longest:
                    module = path.relative_to(package).as_posix()
                    found.append(f"{module}:{node.lineno} {node.name} ({lines} lines)")
    return found


def test_no_function_is_over_50_lines() -> None:
    assert long_functions() == []


def test_the_count_reads_a_function_whole(tmp_path: Path) -> None:
    body = "\n".join(f"    x{n} = {n}" for n in range(49))
    (tmp_path / "m.py").write_text(f"def fits():\n{body}\n\n\ndef over():\n{body}\n    return 1\n")
    assert long_functions(tmp_path) == ["m.py:53 over (51 lines)"]

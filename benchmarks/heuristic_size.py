"""How big the offline heuristic judge is: lines of code, hand-written list entries, regexes.

    python benchmarks/heuristic_size.py [FOLDER]   # default: pytest_llmjudge/judges/heuristic

- lines of code: lines of the folder's ``*.py`` files that are neither blank nor a comment
  (docstrings count; the figure without them is printed beside it);
- list entries: the string entries of every tuple, list or set display of two or
  more strings, every word of a text literal that is ``.split()`` into a list, every
  entry of a regex alternation (each ``|`` in a regex literal, one that holds ``\\b`` or
  ``(?:``, adds one), and every entry of a hand-written data file
  (``*.txt`` in ``data/``: comma- or line-separated, ``#`` lines aside). Third-party data
  shipped with its licence (a ``LICENSE-*`` file beside it names it) and tables a script
  generates are not hand-written and are listed apart;
- regexes: every pattern passed to a ``re`` function (a pattern joined from a list counts
  once per entry), and every entry of a ``*PATTERNS*`` tuple.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT / "pytest_llmjudge" / "judges" / "heuristic"
_RE_FUNCTIONS = {"compile", "search", "match", "fullmatch", "findall", "finditer", "sub", "split"}


def _strings(node: ast.AST) -> list[str] | None:
    """The strings of a display of two or more string constants, else None."""
    if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "split":
        owner = node.func.value  # type: ignore[attr-defined]
        if isinstance(owner, ast.Constant) and isinstance(owner.value, str) and not node.args:
            return owner.value.split()
    if (
        isinstance(node, (ast.Tuple, ast.List, ast.Set))
        and len(node.elts) >= 2
        and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts)
    ):
        return [e.value for e in node.elts]  # type: ignore[attr-defined]
    return None


def measure_python(path: Path) -> dict[str, int]:
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    docstring_lines: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            first = body[0]
            if isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                docstring_lines.update(range(first.lineno, (first.end_lineno or 0) + 1))
    code = [
        i
        for i, line in enumerate(source.splitlines(), 1)
        if line.strip() and not line.strip().startswith("#")
    ]
    entries = regexes = alternatives = 0
    pattern_lists: set[int] = set()
    # __all__ and the like name the module's parts, not words
    dunder_lists = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        and any(getattr(t, "id", "").startswith("__") for t in node.targets)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(
            "PATTERN" in getattr(t, "id", "") for t in node.targets
        ):
            found = _strings(node.value) or []
            regexes += len(found)
            entries += len(found)
            pattern_lists.add(id(node.value))
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and getattr(node.func.value, "id", "") == "re"
            and node.func.attr in _RE_FUNCTIONS
            and node.args
        ):
            pattern = node.args[0]
            if isinstance(pattern, ast.Name) and "PATTERN" in pattern.id:
                continue  # counted with its list
            if isinstance(pattern, ast.Call) and getattr(pattern.func, "attr", "") == "join":
                continue  # "|".join(NAME_PATTERNS): counted with its list
            regexes += 1
    for node in ast.walk(tree):
        listed = None if id(node) in pattern_lists | dunder_lists else _strings(node)
        entries += len(listed or [])
        text = node.value if isinstance(node, ast.Constant) else None
        if isinstance(text, str) and ("\\b" in text or "(?:" in text):
            alternatives += text.count("|")
    return {
        "lines": len(code),
        "lines without docstrings": len([i for i in code if i not in docstring_lines]),
        "list entries": entries + alternatives,
        "regexes": regexes,
    }


def measure_data(folder: Path) -> tuple[int, list[str]]:
    """Entries of hand-written data files, and the names of the third-party or generated ones."""
    entries, apart = 0, []
    readme = (
        (folder / "README.md").read_text(encoding="utf-8")
        if (folder / "README.md").exists()
        else ""
    )
    for path in sorted(folder.iterdir()):
        if path.name.startswith("LICENSE") or path.name == "README.md":
            continue
        row = next((line for line in readme.splitlines() if f"`{path.name}`" in line), "")
        if path.suffix != ".txt" or "LICENSE" in row:
            apart.append(path.name)
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.startswith("#"):
                entries += len([w for w in re.split(r"[,\n]", line) if w.strip()])
    return entries, apart


def main() -> int:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    totals = {"lines": 0, "lines without docstrings": 0, "list entries": 0, "regexes": 0}
    for path in sorted(folder.glob("*.py")):
        for key, value in measure_python(path).items():
            totals[key] += value
    data_entries, apart = (
        (0, []) if not (folder / "data").is_dir() else measure_data(folder / "data")
    )
    print(f"folder: {folder.relative_to(ROOT) if folder.is_relative_to(ROOT) else folder}")
    print(f"lines of code (no blank or comment lines): {totals['lines']}")
    print(f"  of which not docstrings: {totals['lines without docstrings']}")
    print(f"hand-written list entries in code: {totals['list entries']}")
    print(f"hand-written entries in data files: {data_entries}")
    print(f"list entries in all: {totals['list entries'] + data_entries}")
    print(f"regexes: {totals['regexes']}")
    print(
        f"data not counted (third-party with its licence, or generated): {', '.join(apart) or '-'}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

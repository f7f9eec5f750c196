"""The plugin never parses its own display text back: data flows one way, from the record
where an item is judged to the text people read.

The scan reads the package's syntax trees. Text is *display text* when it comes from a
message builder (a function of the text room, ``reports/``, that returns ``str``, or any
function named like one: ``*_sentence``, ``*_line``, ``*_report``, ...), from an exception
turned into text (``str(exc)``, ``str(excinfo.value)``, an f-string of it), or from pytest's
rendering of a report (``longrepr``, ``longreprtext``); a name assigned from such text is
display text too. A *parse* is a string method that takes text apart or reads
its content (``split``, ``partition``, ``removeprefix``, ``startswith``, ``find``, ...), a
``re``/``regex`` call given it, or ``"constant" in text``. A parse of display text fails the
test unless it is listed in ``ALLOWED`` with the reason the text is not the plugin's own.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

PACKAGE = Path(__file__).parents[2] / "pytest_llmjudge"
TEXT_ROOMS = ("reports/",)
BUILDER_SUFFIXES = ("_sentence", "_line", "_lines", "_report", "_text", "_message", "_verdict")
PARSE_METHODS = {
    "split", "rsplit", "splitlines", "partition", "rpartition", "removeprefix",
    "removesuffix", "startswith", "endswith", "find", "rfind", "index", "rindex", "count",
}  # fmt: skip
# what these return is still display text (its pieces are)
KEEPS_TEXT = {"strip", "lstrip", "rstrip", "lower", "upper", "casefold", "format"} | (
    PARSE_METHODS - {"startswith", "endswith", "find", "rfind", "index", "rindex", "count"}
)
REPORT_TEXT = {"longrepr", "longreprtext", "wasxfail", "reprcrash"}
# (module, function) -> why that text is not the plugin's own
ALLOWED = {
    ("session/result_rows.py", "report_outcome"): "pytest's rendering of a user's skip reason",
    ("session/result_rows.py", "lost_reason"): (
        "pytest's rendering of an error the plugin did not raise (a fixture's, a timeout, a "
        "crashed xdist worker's; the plugin's own errors come from the row)"
    ),
    ("session/result_rows.py", "_first_line"): "a hand-written test's own assertion message",
    ("judging/cache_db.py", "_busy"): (
        "SQLite's own message, the only sign of a lock before Python 3.11 gives its code"
    ),
    ("config/settings.py", "_parsed"): "Python's own message of int() or float() on a bad value",
}


@dataclass(frozen=True)
class Parse:
    module: str
    function: str
    line: int
    code: str


def builders(package: Path = PACKAGE) -> set[str]:
    """The names of the package's message builders."""
    names = set()
    for path in package.rglob("*.py"):
        module = path.relative_to(package).as_posix()
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            returns = ast.unparse(node.returns) if node.returns else ""
            in_text_room = module.startswith(TEXT_ROOMS) and returns == "str"
            if in_text_room or node.name.endswith(BUILDER_SUFFIXES):
                names.add(node.name)
    return names


class _Function(ast.NodeVisitor):
    """The parses of display text in one function (nested functions are their own)."""

    def __init__(self, names: set[str], exceptions: set[str]) -> None:
        self.builders = names
        self.tainted = set(exceptions)  # names holding display text or an exception
        self.exceptions = set(exceptions)
        self.found: list[ast.AST] = []

    def is_text(self, node: ast.AST) -> bool:
        """Whether the expression is display text (or an exception, for ``str()``)."""
        if isinstance(node, ast.Name):
            return node.id in self.tainted and node.id not in self.exceptions
        if isinstance(node, ast.Attribute):
            return node.attr in REPORT_TEXT or (
                node.attr == "value" and isinstance(node.value, ast.Name) and "exc" in node.value.id
            )
        if isinstance(node, ast.JoinedStr):
            return any(
                isinstance(v, ast.FormattedValue) and self._exception_or_text(v.value)
                for v in node.values
            )
        if isinstance(node, ast.Subscript):
            return self.is_text(node.value)
        if not isinstance(node, ast.Call):
            return False
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        if name in ("str", "repr") and node.args:
            return self._exception_or_text(node.args[0])
        if isinstance(func, ast.Attribute) and func.attr in KEEPS_TEXT:
            return self.is_text(func.value)
        return name in self.builders

    def _exception_or_text(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Name) and node.id in self.exceptions:
            return True
        return self.is_text(node)

    def taint(self, body: list[ast.stmt]) -> None:
        """Names assigned from display text, until no more are found."""
        assigned = [found for stmt in body for node in ast.walk(stmt) for found in _assigned(node)]
        while True:
            before = len(self.tainted)
            for targets, value in assigned:
                if self.is_text(value):
                    self.tainted |= targets
            if len(self.tainted) == before:
                return

    def check(self, body: list[ast.stmt]) -> None:
        for node in (n for stmt in body for n in ast.walk(stmt)):
            if self._parses(node):
                self.found.append(node)

    def _parses(self, node: ast.AST) -> bool:
        """Whether the node takes display text apart or reads its content."""
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            receiver = node.func.value
            if node.func.attr in PARSE_METHODS and self.is_text(receiver):
                return True
            pattern_call = isinstance(receiver, ast.Name) and receiver.id in ("re", "regex")
            return pattern_call and any(self.is_text(arg) for arg in node.args)
        if isinstance(node, ast.Compare) and isinstance(node.left, ast.Constant):
            membership = any(isinstance(op, ast.In | ast.NotIn) for op in node.ops)
            return membership and any(self.is_text(c) for c in node.comparators)
        return False


def _assigned(node: ast.AST) -> list[tuple[set[str], ast.expr]]:
    """The names an assignment binds and what it binds them to (none for another node)."""
    if isinstance(node, ast.Assign):
        targets, value = node.targets, node.value
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        targets, value = [node.target], node.value
    else:
        return []
    return [({n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}, value)]


def _exception_names(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Names bound to exceptions: ``except ... as exc`` and parameters typed as one."""
    names = {n.name for n in ast.walk(function) if isinstance(n, ast.ExceptHandler) and n.name}
    for arg in (*function.args.args, *function.args.kwonlyargs):
        annotation = ast.unparse(arg.annotation) if arg.annotation else ""
        if annotation.endswith(("Exception", "Error")) or "ExceptionInfo" in annotation:
            names.add(arg.arg)
    return names


def parses_in(source: str, module: str, names: set[str]) -> Iterator[Parse]:
    """Every parse of display text in a module's source."""
    for function in ast.walk(ast.parse(source)):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        visitor = _Function(names, _exception_names(function))
        visitor.taint(function.body)
        visitor.check(function.body)
        for node in visitor.found:  # found once per function
            yield Parse(module, function.name, getattr(node, "lineno", 0), ast.unparse(node))


def package_parses() -> list[Parse]:
    names = builders()
    found: set[Parse] = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        module = path.relative_to(PACKAGE).as_posix()
        found |= set(parses_in(path.read_text(), module, names))
    return sorted(found, key=lambda p: (p.module, p.line))


def test_the_package_never_parses_its_own_display_text() -> None:
    found = [p for p in package_parses() if (p.module, p.function) not in ALLOWED]
    assert found == [], "\n".join(f"{p.module}:{p.line} {p.function}: {p.code}" for p in found)


def test_every_allowed_parse_is_still_there() -> None:
    """An entry of ALLOWED whose parse is gone is removed, so that the list stays short."""
    seen = {(p.module, p.function) for p in package_parses()}
    assert set(ALLOWED) <= seen


# What the plugin once did (before issue 43), and forms of it: each must be found.
ONCE = {
    "failure text split on blank lines": """
def verdict_repr(self, excinfo):
    text = str(excinfo.value)
    verdict, _, rest = text.partition("\\n\\n")
    table = rest.partition("\\n\\n")[0]
""",
    "an interval's words cut off again": """
def table(j):
    interval = _ci(j).removeprefix("95% CI ")
""",
    "a sentence's lead cut off again": """
def cell(item):
    failed = checks_sentence(item.checks).removeprefix("check failed: ")
""",
    "the first line of a failure": """
def flaky(item, exc: BaseException):
    first_line = str(exc).strip().splitlines()[0]
""",
    "an error read for its words": """
def outcome(report):
    if "judge error" in report.longreprtext:
        return "error"
""",
    "a message searched by a pattern": """
def score_of(judgment):
    line = verdict_line([judgment])
    return re.search(r"([0-9.]+) <", line)
""",
    "a message in an f-string, then split": """
def reason(exc):
    try:
        pass
    except ValueError as problem:
        said = f"bad: {problem}"
        return said.split(": ", 1)[1]
""",
}


def test_the_scan_finds_each_way_display_text_was_parsed_back() -> None:
    names = {"_ci", "checks_sentence", "verdict_line"}
    missed = [what for what, source in ONCE.items() if not list(parses_in(source, "x", names))]
    assert missed == []


def test_the_scan_leaves_data_and_foreign_text_alone() -> None:
    source = """
def fine(nodeid, row, text):
    path = nodeid.split("::", 1)[0]          # a node id is an address, not a message
    parts = [p.strip() for p in text.split(",")]  # an option's value as the user wrote it
    return row.verdict, checks_verdict(row.checks)
"""
    assert list(parses_in(source, "x", {"checks_sentence"})) == []


def test_the_builders_are_found_where_text_is_made() -> None:
    names = builders()
    assert {
        "checks_sentence",
        "failure_report",
        "dimension_sentence",
        "_interval",
        "scores_line",
    } <= names

"""Generated eval files, all four formats, run through pytest: whatever people write ends in a
verdict or in one line that names the file, the line, the entry and the cause.

Profiles: ``ci`` (the default; derandomized, so a CI run cannot flake, and no example
database) and ``benchmark`` (2,000 examples, random, for ``benchmarks/bench_generated_input.py``).
``LLMJUDGE_HYPOTHESIS_PROFILE`` chooses.
"""

from __future__ import annotations

import itertools
import os
import re
import shutil
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml
from generated_evals import EvalFileSpec, Written, eval_folders, expanded, write
from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st

from helpers import QUIET, read_results

SLOW_OK = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large]
settings.register_profile(
    "ci", max_examples=30, derandomize=True, database=None, deadline=None,
    suppress_health_check=SLOW_OK, print_blob=True,
)  # fmt: skip
settings.register_profile(
    "benchmark",
    max_examples=int(os.environ.get("LLMJUDGE_HYPOTHESIS_EXAMPLES", "2000")),
    deadline=None,
    suppress_health_check=SLOW_OK,
    print_blob=True,
)
# while fixing: many examples, no shrinking (the first failure as generated)
settings.register_profile(
    "dev", max_examples=200, deadline=None, suppress_health_check=SLOW_OK, database=None,
    phases=(Phase.generate,),
)  # fmt: skip
PROFILE = os.environ.get("LLMJUDGE_HYPOTHESIS_PROFILE", "ci")

# What a user must never see for their own file or server (the plugin's bugs aside).
# A traceback in pytest's short style names a source line: ``eval_file.py:148: in parse``.
TRACEBACK = re.compile(r"Traceback|INTERNALERROR|/_pytest/|/pluggy/|\.py:\d+: in ")
INI = "[pytest]\nmarkers =\n    slow: slow evals\n"


def _normalised(value: Any) -> Any:
    """A value as the plugin reads it from YAML text: line breaks as Python reads a file."""
    if isinstance(value, str):
        return expanded(value).replace("\r\n", "\n").replace("\r", "\n")
    if isinstance(value, list):
        return [_normalised(v) for v in value]
    if isinstance(value, dict):
        return {_normalised(k): _normalised(v) for k, v in value.items()}
    return value


def _yaml_reads_back(data: bytes, written: Written) -> bool:
    """PyYAML reads back what it wrote (else the plan, not the plugin, would be wrong)."""
    text = data.decode("utf-8-sig").replace("\r\n", "\n").replace("\r", "\n")
    try:
        loaded = yaml.safe_load(text)
    except (yaml.YAMLError, RecursionError):
        return False
    planned = [p.value for p in written.entries if p.kind != "anchored"]
    return isinstance(loaded, list) and loaded[: len(planned)] == _normalised(planned)


def _run(pytester: pytest.Pytester, files: list[EvalFileSpec], strict: bool) -> tuple[
    pytest.RunResult, list[Written]
]:  # fmt: skip
    for folder in ("evals", "results"):
        shutil.rmtree(pytester.path / folder, ignore_errors=True)
    (pytester.path / "evals").mkdir()
    written = []
    for spec in files:
        data, done = write(spec)
        if spec.name.endswith(".yaml") and not spec.broken:
            assume(_yaml_reads_back(data, done))
        (pytester.path / "evals" / spec.name).write_bytes(data)
        written.append(done)
    args = ["-p", "no:cacheprovider", "-rs", "--judge-provider=heuristic"]
    args += ["--junitxml=results/junit.xml", "--judge-report=results/report.md"]
    args += [*(["--judge-strict"] if strict else []), "evals/"]
    return pytester.runpytest_inprocess(*QUIET, *args), written


@pytest.mark.timeout(600 if PROFILE == "ci" else 0)  # the suite's 300 s is per example here
@settings(settings.get_profile(PROFILE))
@given(files=eval_folders(), strict=st.booleans())
def test_generated_eval_files_end_in_verdicts_or_one_line_causes(
    pytester: pytest.Pytester, files: list[EvalFileSpec], strict: bool
) -> None:
    pytester.makeini(INI)
    result, written = _run(pytester, files, strict)
    output = result.stdout.lines + result.stderr.lines
    shown = [line for line in output if TRACEBACK.search(line)]
    assert not shown, "\n".join(output)
    broken = [w for w in written if w.broken]
    if broken:  # a file that cannot be read at all: a collection error, one line
        assert result.ret == pytest.ExitCode.INTERRUPTED, "\n".join(output)
        for w in broken:
            message = w.broken or ""
            assert any(f"evals/{w.name}: " in line and message in line for line in output), (
                "\n".join(output)
            )
        return
    _check_items(pytester, result, written, strict)


def _check_items(
    pytester: pytest.Pytester, result: pytest.RunResult, written: list[Written], strict: bool
) -> None:
    output = "\n".join(result.stdout.lines)
    results = read_results(pytester)
    valid = {(f"evals/{w.name}", p.value["id"]): p for w in written for p in w.entries if p.valid}
    rows = Counter((r["file"], r["id"]) for r in results["results"])
    assert rows == Counter(valid.keys()), output  # every valid entry collected and judged, once
    # the markdown report's table has a row of its own for each, whatever its id holds
    shown = _markdown_item_ids(pytester.path / "results" / "report.md")
    assert Counter(shown) == Counter(r["nodeid"] for r in results["results"]), shown
    for row in results["results"]:
        planned = valid[(row["file"], row["id"])]
        assert row["outcome"] in ("passed", "failed"), (row, output)
        if planned.outcome is not None:
            assert row["outcome"] == planned.outcome, (row, output)

    invalid = [
        (f"evals/{w.name}", line, p)
        for w in written
        for line, p in zip(w.lines, w.entries, strict=True)
        if not p.valid
    ]
    reported = Counter((e["file"], e["line"]) for e in results["invalid"])
    assert reported == Counter((f, line) for f, line, _ in invalid), output
    by_place = {(e["file"], e["line"]): e for e in results["invalid"]}
    for file, line, planned in invalid:
        entry = by_place[(file, line)]
        assert re.search(planned.cause or "", entry["reason"]), (planned.kind, entry, output)
        place = f"invalid eval entry: {file}:{line} ("
        told = [x for x in result.stdout.lines if place in x]
        assert len(told) == 1, (place, output)  # once, on one line, with its cause
        assert entry["reason"] in told[0], (entry, told)

    errors = len(invalid)  # every invalid entry is an error: nothing measured it (issue 56)
    skipped = 0
    failed = sum(1 for r in results["results"] if r["outcome"] == "failed")
    expected = {
        "passed": len(valid) - failed,
        "failed": failed,
        "skipped": skipped,
        "errors": errors,
    }
    terminal = {k: result.parseoutcomes().get(k, 0) for k in expected}
    summary = {k: results["summary"][k] for k in expected}
    suite = ET.parse(pytester.path / "results" / "junit.xml").find("testsuite")
    assert suite is not None
    junit = {
        "passed": int(suite.get("tests", 0))
        - sum(int(suite.get(k, 0)) for k in ("failures", "errors", "skipped")),
        "failed": int(suite.get("failures", 0)),
        "skipped": int(suite.get("skipped", 0)),
        "errors": int(suite.get("errors", 0)),
    }
    assert terminal == summary == junit == expected, (terminal, summary, junit, expected, output)
    # nothing judged at all fails closed (docs/ci.md), as a failure or an error does
    bad = failed or errors or not valid
    status = pytest.ExitCode.TESTS_FAILED if bad else pytest.ExitCode.OK
    assert result.ret == status, output


CELL_BORDER = re.compile(r"(?<!\\)\|")  # GitHub splits a table row on every unescaped pipe


def _markdown_item_ids(report: Path) -> list[str]:
    """The node ids of the markdown report's item table, read as GitHub reads its rows."""
    lines = report.read_text(encoding="utf-8").splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("| item |")), None)
    if start is None:
        return []
    width = len(CELL_BORDER.split(lines[start]))
    ids = []
    for row in itertools.takewhile(str.strip, lines[start + 2 :]):
        cells = CELL_BORDER.split(row)
        assert len(cells) == width, row
        span = re.fullmatch(r" (`+)(.+)\1 ", cells[1])
        assert span is not None, row
        code = span[2]
        if code.startswith(" ") and code.endswith(" ") and code.strip():
            code = code[1:-1]  # the space a fence is kept apart from a backtick by
        ids.append(code.replace("\\|", "|"))
    return ids

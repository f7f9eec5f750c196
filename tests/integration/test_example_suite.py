"""The shipped evals/ suite: green on a fresh machine, with the judge catching weak answers."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from helpers import read_results, run

EVALS = Path(__file__).parents[2] / "evals"


def _entries(data: Any) -> list[dict[str, object]]:
    """The entries of an eval file of either shape."""
    entries = data["examples"] if isinstance(data, dict) else data
    assert isinstance(entries, list)
    return entries


def _marks(entry: dict[str, object]) -> list[object]:
    marks = entry.get("marks", [])
    return marks if isinstance(marks, list) else []


def test_example_suite_is_green_offline_and_catches_every_weak_answer(
    pytester: pytest.Pytester,
) -> None:
    shutil.copytree(EVALS, pytester.path / "evals")
    weak = [
        e["id"]
        for name in ("support.json", "conversations.json")
        for e in _entries(json.loads((EVALS / name).read_text()))
        if any(isinstance(m, dict) and m["name"] == "xfail" for m in _marks(e))
    ]
    assert len(weak) >= 6
    # as the repository's pyproject.toml configures it
    result = run(pytester, "evals/", "--judge-runs=3", "-o", "llmjudge_dimensions=correctness")
    assert result.ret == pytest.ExitCode.OK
    outcomes = result.parseoutcomes()
    assert outcomes["xfailed"] == len(weak)
    assert "xpassed" not in outcomes and "failed" not in outcomes
    readme = (EVALS.parent / "README.md").read_text(encoding="utf-8")
    assert f"ends `{outcomes['passed']} passed, {outcomes['xfailed']} xfailed`" in readme
    results = read_results(pytester)
    assert {r["id"] for r in results["results"] if r["outcome"] == "xfailed"} == set(weak)
    assert results["meta"]["provider"] == "heuristic"
    # offline, entries with a reference are not judged on correctness (said once, before
    # the items); the others are not applicable
    referenced = {r["id"] for r in results["results"] if r["reference"]}
    assert len(referenced) >= 3 and any(r["conversation"] for r in results["results"])
    assert not any("correctness" in r for r in results["results"])
    unjudged = {r["id"] for r in results["results"] if r["not_judged_offline"] == ["correctness"]}
    assert unjudged == referenced
    result.stdout.fnmatch_lines(
        [f"llmjudge: correctness not judged offline: {len(referenced)} entries carry a reference*"]
    )
    assert results["summary"]["not_applicable"] == len(results["results"]) - len(referenced)


def test_the_weak_answers_that_need_a_model_pass_the_offline_judge(
    pytester: pytest.Pytester,
) -> None:
    """examples/needs-a-model/ holds weak answers that are not blatant: the README says the
    offline judge passes them and a model is needed to fail them."""
    source = EVALS.parent / "examples" / "needs-a-model" / "weak_answers.json"
    shutil.copy(source, pytester.path / "weak_answers.json")
    result = run(pytester, "weak_answers.json", "--judge-provider=heuristic")
    result.assert_outcomes(passed=len(json.loads(source.read_text())))
    readme = (EVALS.parent / "README.md").read_text(encoding="utf-8")
    assert "examples/needs-a-model/weak_answers.json" in readme

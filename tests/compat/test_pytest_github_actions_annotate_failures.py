"""pytest-github-actions-annotate-failures: one annotation per failing eval, with paths GitHub
resolves from GITHUB_WORKSPACE. Skipped where the plugin is not installed (the compatibility
job installs it; the main suite's environment must not: it changes every pytest run)."""

from __future__ import annotations

import pytest

from helpers import entry, read_results, run, write_evals
from judge_server import JudgeServer

LOAD_PLUGINS = (
    "pytest_github_actions_annotate_failures",
)  # where plugins do not load themselves (tests/compat/conftest.py)

pytest.importorskip(
    "pytest_github_actions_annotate_failures",
    reason="pytest-github-actions-annotate-failures is not installed",
)
PLUGIN = "pytest_github_actions_annotate_failures"


def _annotations(result: pytest.RunResult) -> list[str]:
    lines = result.stdout.lines + result.stderr.lines
    return [line[line.index("::error") :] for line in lines if "::error" in line]


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["plain", "xdist"])
def test_one_annotation_per_failing_eval_resolved_from_the_workspace(
    pytester: pytest.Pytester,
    judge_server: JudgeServer,
    monkeypatch: pytest.MonkeyPatch,
    workers: list[str],
) -> None:
    write_evals(
        pytester,
        [
            entry("fine"),
            entry("weak", "answer {{relevance=2}}", ticket="t"),  # failed: in the call
            {"id": "broken", "ticket": "t"},  # invalid: an error in setup
        ],
    )
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_WORKSPACE", str(pytester.path.parent))  # rootdir: a subfolder
    result = run(pytester, "evals/", *workers)
    result.assert_outcomes(passed=1, failed=1, errors=1)
    annotations = _annotations(result)
    where = f"::error file={pytester.path.name}/evals/support.json"
    # the failure: the other plugin's (it annotates failures in the call); the setup error
    # (which it leaves out): ours, each once, each resolved from the repository's root
    assert len(annotations) == 2, annotations
    assert [a for a in annotations if a.startswith(f"{where},line=") and "weak" in a]
    assert [a for a in annotations if a.startswith(f"{where},line=") and "broken" in a]
    assert read_results(pytester)["summary"]["failed"] == 1


def test_without_the_plugin_the_failure_is_annotated_once_by_llmjudge(
    pytester: pytest.Pytester, judge_server: JudgeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_evals(pytester, [entry("weak", "answer {{relevance=2}}", ticket="t")])
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_WORKSPACE", str(pytester.path))
    result = run(pytester, "evals/", "-p", f"no:{PLUGIN}")
    result.assert_outcomes(failed=1)
    [annotation] = _annotations(result)
    assert annotation.startswith("::error file=evals/support.json,line=")
    assert "llmjudge failed%3A weak" in annotation

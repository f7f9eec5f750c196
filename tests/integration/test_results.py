"""The results file: content, schema, atomic writing, interruption, and writing nothing."""

from __future__ import annotations

import json
import signal
import subprocess
import sys

import pytest

from pytest_llmjudge.judges.heuristic import ABOUT
from pytest_llmjudge.schema.results import ResultsFile

from helpers import by_id, entry, read_results, run, run_subprocess, run_until, write_evals
from judge_server import JudgeServer


def test_results_superset_of_the_harness_format(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(
        pytester,
        [
            entry("ticket-001", metadata={"area": "ci"}, expected={"relevance": 5}),
            entry("ticket-002", "bad {{relevance=2}}"),
            {"id": "ticket-003", "response": "r"},
        ],
    )
    run(pytester, "evals/", "--judge-runs=2")
    results = read_results(pytester)
    ResultsFile.model_validate(results)
    first = results["results"][0]
    assert first["id"] == "ticket-001" and first["file"] == "evals/support.json"
    assert first["relevance"]["score"] == 4 and first["relevance"]["reasoning"]
    assert first["metadata"] == {"area": "ci"} and first["expected"] == {"relevance": 5}
    assert results["skipped"][0]["index"] == 2
    # as the harness writes it: FILE:LINE (id): cause; and an error, as pytest counts it
    reason = "evals/support.json:18 (ticket-003): Missing 'ticket' field"
    assert results["skipped"][0]["reason"] == reason
    assert results["errors"] == [
        {"id": "ticket-003", "file": "evals/support.json", "reason": reason}
    ]
    assert results["summary"] == {
        "total": 3,
        "passed": 1,
        "failed": 1,
        "errors": 1,
        "skipped": 0,
        "invalid": 1,
        "xfailed": 0,
        "xpassed": 0,
        "passed_on_rerun": 0,
        "flaky": 0,
        "flaky_failed": 0,
        "unstable": 0,
        "injection_suspected": 0,
        "partial_runs": 0,
        "not_applicable": 0,
        "not_judged_offline": 0,
        "judged": 2,
        "pass_rate": 0.5,
    }
    meta = results["meta"]
    assert meta["complete"] is True and meta["runs"] == 2 and meta["llm"] is True
    # correctness: judged with an LLM where an entry has a reference (none has here)
    assert meta["thresholds"] == {"relevance": 3.5, "tone": 3.5, "correctness": 3.5}
    assert meta["exit_status"] == 1


def test_schema_command_prints_the_json_schema() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "pytest_llmjudge", "schema"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    schema = json.loads(out)
    assert schema["title"] == "ResultsFile"
    assert set(schema["required"]) == {"meta", "results", "skipped", "errors", "summary"}
    assert "DimensionResult" in schema["$defs"]
    bad = subprocess.run(
        [sys.executable, "-m", "pytest_llmjudge", "nope"], capture_output=True, text=True
    )
    assert (
        bad.returncode == 2
        and "invalid choice: 'nope' (choose from 'schema', 'report', 'merge', 'plan')" in bad.stderr
    )


def test_output_path_from_option_and_ini(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, [entry("a")])
    run(pytester, "evals/", "--judge-output=out/custom.json")
    assert json.loads((pytester.path / "out/custom.json").read_text())["results"]
    pytester.makeini("[pytest]\nllmjudge_output = reports/evals.json\n")
    run(pytester, "evals/").stdout.fnmatch_lines(["results: reports/evals.json"])
    assert (pytester.path / "reports/evals.json").exists()


def test_an_ordinary_session_writes_nothing_and_imports_no_sdk(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    pytester.makepyfile(
        test_plain="""
import sys

def test_plain():
    assert "openai" not in sys.modules
    assert "pytest_llmjudge.judging.engine" not in sys.modules
    assert "pydantic" not in sys.modules
"""
    )
    before = sorted(p.name for p in pytester.path.iterdir())
    result = run_subprocess(
        pytester, "-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:rerunfailures"
    )
    result.assert_outcomes(passed=1)
    after = sorted(
        p.name
        for p in pytester.path.iterdir()
        # pytest's own bytecode cache comes with or without the plugin
        if "runpytest" not in p.name and p.name not in ("stdout", "stderr", "__pycache__")
    )
    assert after == before
    assert judge_server.count() == 0


def test_interrupted_session_writes_what_was_judged(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    pytester.makeconftest("""
def pytest_runtest_logfinish(nodeid):
    if nodeid.endswith("::b"):
        raise KeyboardInterrupt
""")
    write_evals(pytester, [entry("a"), entry("b"), entry("c")])
    result = run_subprocess(pytester, "evals/")  # in-process, the interrupt would reach us
    assert result.ret == pytest.ExitCode.INTERRUPTED
    results = read_results(pytester)
    assert results["meta"]["complete"] is False
    assert [r["id"] for r in results["results"]] == ["a", "b"]
    assert not list((pytester.path / "results").glob("*.tmp"))


def test_maxfail_marks_the_results_incomplete(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, [entry("a", "bad {{relevance=1}}"), entry("b")])
    run(pytester, "evals/", "-x").assert_outcomes(failed=1)
    results = read_results(pytester)
    assert results["meta"]["complete"] is False
    assert [r["id"] for r in results["results"]] == ["a"]


def test_sigterm_still_writes_results(pytester: pytest.Pytester, judge_server: JudgeServer) -> None:
    write_evals(pytester, [entry("fast"), entry("slow", "answer {{delay=30}}")])
    proc, seen = run_until(pytester, "::fast PASSED", "-v", "evals/")
    assert any("::fast PASSED" in s for s in seen), "".join(seen)
    proc.send_signal(signal.SIGTERM)
    output, _ = proc.communicate(timeout=30)
    assert proc.returncode == pytest.ExitCode.INTERRUPTED, "".join(seen) + output
    results = read_results(pytester)
    assert results["meta"]["complete"] is False
    assert by_id(results)["fast"]["outcome"] == "passed"


def test_heuristic_results_say_no_llm_was_used(pytester: pytest.Pytester) -> None:
    write_evals(pytester, [entry("a")])
    result = run(pytester, "evals/")
    result.stdout.fnmatch_lines(
        [
            "llmjudge: provider=heuristic (auto: no OPENAI_API_KEY or OPENAI_BASE_URL) "
            "model=none (no LLM) runs=1 thresholds: relevance>=3.5 tone>=3.5 concurrency=8 "
            "cache=off output=results/output.json",
        ]
    )
    meta = read_results(pytester)["meta"]
    assert meta["llm"] is False and meta["model"] is None
    assert meta["note"] == ABOUT


def test_interrupted_before_any_verdict_still_writes_results(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    pytester.makeconftest("""
def pytest_runtest_logstart(nodeid):
    raise KeyboardInterrupt
""")
    write_evals(pytester, [entry("a")])
    result = run_subprocess(pytester, "evals/", "-p", "no:xdist")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    results = read_results(pytester)
    assert results["meta"]["complete"] is False
    assert results["results"] == [] and results["summary"]["total"] == 0


def test_each_row_holds_the_judged_text_and_every_runs_reasoning(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    write_evals(pytester, [entry("a", "answer {{relevance=5,3,4}}")])
    run(pytester, "evals/", "--judge-runs=3").assert_outcomes(passed=1)
    row = read_results(pytester)["results"][0]
    assert row["ticket"] == "Maven build fails with OOM in Jenkins"
    assert row["response"] == "answer {{relevance=5,3,4}}"
    relevance = row["relevance"]
    assert sorted(relevance["runs"]) == [3, 4, 5]
    assert relevance["run_reasonings"] == [f"scripted relevance {s}" for s in relevance["runs"]]

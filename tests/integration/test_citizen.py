"""The plugin as a pytest citizen: sessions that judge nothing, and projects that do not use it."""

from __future__ import annotations

import json
import signal

import pytest

from helpers import entry, read_results, run, run_subprocess, run_until, write_evals
from judge_server import JudgeServer

EARLIER = '{"earlier": "results"}'


def _earlier_results(pytester: pytest.Pytester) -> None:
    (pytester.path / "results").mkdir()
    (pytester.path / "results" / "output.json").write_text(EARLIER)


@pytest.mark.parametrize(
    ("args", "exit_code"),
    [
        (["--collect-only"], pytest.ExitCode.OK),
        (["--co", "-q"], pytest.ExitCode.OK),
        (["--co", "-k", "a"], pytest.ExitCode.OK),
        (["-k", "nomatch"], pytest.ExitCode.NO_TESTS_COLLECTED),
        (["-m", "nomark"], pytest.ExitCode.NO_TESTS_COLLECTED),
    ],
)
def test_sessions_that_judge_nothing_exit_as_pytest_and_write_nothing(
    pytester: pytest.Pytester,
    judge_server: JudgeServer,
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    exit_code: pytest.ExitCode,
) -> None:
    summary = pytester.path / "step-summary.md"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    write_evals(pytester, [entry("a"), entry("b")])
    _earlier_results(pytester)
    result = run(pytester, "evals/", *args, "--judge-report=report.md")
    assert result.ret == exit_code
    assert "gate FAILED" not in result.stdout.str()
    assert "::error" not in result.stdout.str()
    assert (pytester.path / "results" / "output.json").read_text() == EARLIER
    assert not (pytester.path / "report.md").exists()
    assert not summary.exists()
    assert judge_server.count() == 0
    without = run(pytester, "evals/", *args, "-p", "no:llmjudge")
    assert without.ret == pytest.ExitCode.NO_TESTS_COLLECTED  # eval files are not tests then


def test_a_session_that_ran_eval_items_and_judged_none_fails_closed(
    pytester: pytest.Pytester,
) -> None:
    write_evals(pytester, [entry("a", marks=["skip"])])
    result = run(pytester, "evals/")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["gate FAILED: no eval item was judged*"])


PLAIN_TEST = """
def test_plain():
    assert 1 + 1 == 2
"""

IMPORT_PROBE = """
import json, sys

def pytest_unconfigure(config):
    loaded = sorted(m for m in sys.modules if m.split(".")[0] in (
        "pytest_llmjudge", "pydantic", "tenacity", "openai", "httpx2", "httpcore2"))
    with open("loaded.json", "w") as handle:
        json.dump(loaded, handle)
"""

# The plugin module and the stdlib-only modules it needs to register options and read
# settings; nothing of the judging machinery, no third-party package.
LIGHT_MODULES = {
    "pytest_llmjudge",
    "pytest_llmjudge.plugin",
    "pytest_llmjudge.session.hooks",
    "pytest_llmjudge.config.options",
    "pytest_llmjudge.config.settings",
    "pytest_llmjudge.config.picked",  # settings resolve from it (was part of settings)
    "pytest_llmjudge.config.rubric_files",
    "pytest_llmjudge.session.state",
    "pytest_llmjudge.session.option_checks",
    "pytest_llmjudge.config.pricing",
    "pytest_llmjudge.basics.rubrics",
    "pytest_llmjudge.config.targets",
    "pytest_llmjudge.basics.redaction",
    "pytest_llmjudge.basics.fileio",
    "pytest_llmjudge.session.discovery",
    "pytest_llmjudge.session.pytest_internals",
    # the folders themselves (empty __init__ files)
    "pytest_llmjudge.basics",
    "pytest_llmjudge.config",
    "pytest_llmjudge.session",
}


def test_a_project_that_does_not_use_the_plugin_does_not_notice_it(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_plain=PLAIN_TEST)
    pytester.makeconftest(IMPORT_PROBE)
    metrics = pytester.path / "evals" / "metrics.json"
    metrics.parent.mkdir()
    metrics.write_text('{"accuracy": 0.91}')
    common = ("-p", "no:cacheprovider", "-p", "no:randomly", "test_plain.py")
    with_plugin = run_subprocess(pytester, *common)
    loaded = set(json.loads((pytester.path / "loaded.json").read_text()))
    without = run_subprocess(pytester, *common, "-p", "no:llmjudge")
    with_plugin.assert_outcomes(passed=1)
    assert loaded <= LIGHT_MODULES, loaded - LIGHT_MODULES
    assert "llmjudge" not in with_plugin.stdout.str().replace("plugins: llmjudge", "")

    def lines(result: pytest.RunResult) -> list[str]:  # the same output, timings aside
        return [
            line
            for line in result.stdout.lines
            if not line.startswith(("plugins:", "=")) and "passed in" not in line
        ]

    assert lines(with_plugin) == lines(without)
    written = {p.name for p in pytester.path.iterdir() if not p.name.startswith("runpytest")}
    # pytest's own bytecode cache (with or without the plugin, where bytecode may be written)
    assert written - {"stdout", "stderr", "__pycache__"} == {
        "conftest.py",
        "evals",
        "loaded.json",
        "test_plain.py",
    }


def test_a_plain_test_killed_with_sigterm_dies_as_without_the_plugin(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        test_slow="""
import time

def test_slow():
    print("started", flush=True)
    time.sleep(30)
"""
    )

    def killed(*extra: str) -> int:
        proc, _ = run_until(pytester, "started", "-s", *extra)
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)
        return proc.returncode

    assert killed() == killed("-p", "no:llmjudge") == -signal.SIGTERM


def test_a_json_file_not_shaped_like_evals_is_left_alone_with_one_warning(
    pytester: pytest.Pytester,
) -> None:
    folder = pytester.path / "evals"
    folder.mkdir()
    (folder / "metrics.json").write_text('{"accuracy": 0.91}')
    (folder / "numbers.json").write_text("[1, 2, 3]")
    write_evals(pytester, [entry("a")])
    result = run(pytester, "evals/", "-W", "default")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "*evals/metrics.json:1: LLMJudgeWarning: evals/metrics.json is not collected: "
            "not shaped like an eval file (an eval file is a list of entries*",
            "*evals/numbers.json:1: LLMJudgeWarning: evals/numbers.json is not collected*",
        ]
    )
    assert result.stdout.str().count("metrics.json is not collected") == 1
    assert [r["id"] for r in read_results(pytester)["results"]] == ["a"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[{"id": "a", "ticket": "t"', "*broken.json: invalid JSON at line 1*"),
        ('{"examples": {"id": "a"}}', "*broken.json: expected a list of entries*"),
    ],
)
def test_files_shaped_like_eval_files_keep_their_strict_messages(
    pytester: pytest.Pytester, text: str, message: str
) -> None:
    folder = pytester.path / "evals"
    folder.mkdir()
    (folder / "broken.json").write_text(text)
    result = run(pytester, "evals/")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines([message])


def test_the_collector_is_given_back_as_it_was_found(pytester: pytest.Pytester) -> None:
    # judging sets start-up's objects aside from the garbage collector (gc.freeze); a caller
    # that runs pytest in-process, as here, gets its collector back when pytest is done
    import gc

    pytester.makeconftest(
        """
        import gc, json
        def pytest_runtest_teardown(item):
            with open("frozen.jsonl", "a") as f:
                f.write(json.dumps(gc.get_freeze_count()) + "\\n")
        """
    )
    write_evals(pytester, [entry("a"), entry("b")])
    assert gc.get_freeze_count() == 0
    run(pytester, "evals/", "--judge-provider=heuristic").assert_outcomes(passed=2)
    during = [int(line) for line in (pytester.path / "frozen.jsonl").read_text().split()]
    assert len(during) == 2 and min(during) > 10_000  # modules, classes, items: set aside
    assert gc.get_freeze_count() == 0

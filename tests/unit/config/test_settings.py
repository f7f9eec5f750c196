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
    ini = {"llmjudge_runs": "2", "llmjudge_thresholds": "tone=3"}
    assert resolve(ini=ini).runs == 2
    assert resolve(env={"JUDGE_RUNS": "4"}, ini=ini).runs == 4
    assert resolve(cli={"runs": "5"}, env={"JUDGE_RUNS": "4"}, ini=ini).runs == 5
    assert resolve(ini=ini).thresholds["tone"] == 3.0


def test_output_relative_to_invocation_dir_or_ini_dir() -> None:
    assert resolve(cli={"output": "a.json"}).output == BASE / "a.json"
    assert resolve(ini={"llmjudge_output": "b.json"}).output == BASE / "ini" / "b.json"


def test_a_report_named_twice_is_written_once() -> None:
    cli = {"reports": ["r.md", "r.html", "./r.md"]}
    assert resolve(cli=cli).reports == (BASE / "r.md", BASE / "r.html")


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
    s = resolve(cli={"provider": "http://x/v1", "model": "m"}, env={"OLLAMA_HOST": "ignored"})
    assert (s.provider, s.base_url, s.model) == ("openai", "http://x/v1", "m")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"cli": {"runs": "0"}}, "--judge-runs must be between 1 and 100, got 0"),
        (
            {"env": {"JUDGE_RUNS": "three"}},
            "environment variable JUDGE_RUNS must be a number, got 'three'",
        ),
        (
            {"ini": {"llmjudge_thresholds": "relevance=6"}},
            "ini option llmjudge_thresholds must be between 1 and 5, got 6",
        ),
        (
            {"cli": {"provider": "claude"}},
            "--judge-provider must be one of auto, openai, ollama, heuristic, got 'claude'",
        ),
        ({"ini": {"llmjudge_timeout": "0"}}, "ini option llmjudge_timeout must be > 0, got 0"),
        (
            {"ini": {"llmjudge_strict": "maybe"}},
            "ini option llmjudge_strict must be true, false or some of injection, flaky, "
            "baseline, batch, fallback, offline, got 'maybe'",
        ),
        (  # retired through the table of removed names: invalid entries are always red
            {"ini": {"llmjudge_strict": "entries baseline"}},
            "ini option llmjudge_strict 'entries' was removed: an invalid entry always ends the "
            "session red now; for suspected prompt injection, use llmjudge_strict = injection",
        ),
        (
            {"ini": {"llmjudge_verdict": "confident"}},
            "ini option llmjudge_verdict confident needs --judge-runs >= 2 "
            "(one run has no confidence interval)",
        ),
        (
            {"ini": {"llmjudge_gates": "mean.clarity=4"}},
            "ini option llmjudge_gates names unknown dimension 'clarity' (known: relevance, tone)",
        ),
        (
            {"ini": {"llmjudge_gates": "pass_rate=1.5"}},
            "ini option llmjudge_gates must be between 0 and 1, got 1.5",
        ),
        (
            {"ini": {"llmjudge_gates": "pass_rate=0.9 median=3"}},
            "ini option llmjudge_gates must look like pass_rate=0.9 mean.relevance=4 "
            "spearman=0.6 win_rate.python=0.5 regression, got 'median'",
        ),
        (
            {"ini": {"llmjudge_gates": "regression", "llmjudge_strict": "baseline"}},
            "ini option llmjudge_strict (baseline): the regression gate has no baseline to "
            "compare with: give --judge-baseline (or leave baseline out of llmjudge_strict "
            "where none exists yet)",
        ),
        (
            {"cli": {"runs": "3..2"}},
            "--judge-runs N..M needs M > N (at most M runs for uncertain items), got '3..2'",
        ),
        (
            {"ini": {"llmjudge_targets": "a=http://a timeout=0"}},
            "ini option llmjudge_targets timeout must be a number > 0, got '0'",
        ),
        (
            {"ini": {"llmjudge_targets": "pairwise=true"}},
            "ini option llmjudge_targets names no target (name=URL), only pairwise",
        ),
        (
            {"ini": {"llmjudge_budget": "calls=5 tokens=3"}},
            "ini option llmjudge_budget must look like calls=500 usd=2.5, got 'tokens'",
        ),
        (
            {"ini": {"llmjudge_verdict": "mean undecided=pass"}},
            "ini option llmjudge_verdict must be mean, confident "
            "[undecided=fail|pass|xfail], or k_of_n k=K, got 'mean undecided=pass'",
        ),
        (
            {"ini": {"llmjudge_verdict": "k_of_n k=0"}},
            "ini option llmjudge_verdict must be >= 1, got 0",
        ),
    ],
)
def test_bad_values_name_their_source(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(SettingsError) as excinfo:
        resolve(**kwargs)
    assert str(excinfo.value) == message


# Options that are no Settings field of their own: the fields they become.
CONSUMED_OPTIONS = {
    "budget": "max_calls, max_cost",
    "gates": "min_pass_rate, min_mean, min_agreement, min_win_rate, fail_on_regression",
    "assistant": "dimensions",
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
    ini = {
        "llmjudge_verdict": "confident undecided=xfail",
        "llmjudge_label_margin": "0.25",
        "llmjudge_max_tokens": "64",
    }
    resolved = resolve_settings({"runs": "7"}, {}, ini, Path("."), Path("."))
    assert (resolved.runs, resolved.undecided, resolved.label_margin) == (7, "xfail", 0.25)
    assert resolved.max_tokens == 64


def test_one_setting_per_concept() -> None:
    s = resolve(
        cli={"runs": "3..7", "thresholds": ["relevance=4", "tone=3"], "strict": True},
        ini={
            "llmjudge_gates": "pass_rate=0.9, mean.tone=3\nspearman=0.6 win_rate.a=0.5",
            "llmjudge_budget": "calls=50 usd=2",
            "llmjudge_batch": "30",
            "llmjudge_cache": ".judge-cache",
            "llmjudge_targets": "a=http://a b=http://b pairwise=true tie_tolerance=0.2\n"
            'body = {"q": "{ticket}"}\nheaders = X-A: 1; X-B: 2',
            "llmjudge_prices": ["gpt-4o-mini=1,2"],
        },
        env={"OPENAI_API_KEY": "k"},
    )
    assert (s.runs, s.adaptive, s.max_runs) == (3, True, 7)
    # with an LLM judge, correctness where an entry has a reference
    assert dict(s.thresholds) == {"relevance": 4.0, "tone": 3.0, "correctness": 3.5}
    assert s.strict == {"injection", "flaky", "baseline", "batch", "fallback", "offline"}
    assert (s.min_pass_rate, s.min_mean, s.min_agreement) == (0.9, {"tone": 3}, {"spearman": 0.6})
    assert (s.min_win_rate, s.fail_on_regression) == ({"a": 0.5}, False)
    assert (s.max_calls, s.max_cost, s.batch, s.batch_wait) == (50, 2.0, True, 30.0)
    assert (s.cache, s.cache_dir) == (True, BASE / "ini" / ".judge-cache")
    assert s.targets is not None and [t.name for t in s.targets.targets] == ["a", "b"]
    assert (s.targets.body, s.targets.headers) == (
        '{"q": "{ticket}"}',
        (("X-A", "1"), ("X-B", "2")),
    )
    assert (s.pairwise, s.tie_tolerance) == (True, 0.2)
    kinds = resolve(ini={"llmjudge_strict": "injection baseline"}).strict
    assert (
        kinds == {"injection", "baseline"}
        and resolve(ini={"llmjudge_strict": "false"}).strict == set()
    )
    assert (resolve(cli={"runs": "4"}).max_runs, resolve(cli={"runs": "4"}).adaptive) == (4, False)
    assert resolve(cli={"cache": False}, env={"OPENAI_API_KEY": "k"}).cache is False
    assert resolve(ini={"llmjudge_batch": "true"}).batch_wait is None


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

"""Configuration: one table of options, resolved once into a frozen ``Settings``.

Precedence for every option: command line > environment > ini (``[tool.pytest.ini_options]``)
> default. Per-entry values and the ``llmjudge`` marker override the result per item
(see ``ItemSettings``). Bad values raise ``SettingsError`` naming the source they came from.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .pricing import Price, parse_price_lines, price_for
from .rubrics import DIMENSIONS as BUILTIN_DIMENSIONS
from .rubrics import Dimension
from .targets import (
    DEFAULT_BODY,
    DEFAULT_FIELD,
    Target,
    TargetConfig,
    check_body_template,
    parse_headers,
    parse_targets,
)

PROVIDERS = ("auto", "openai", "ollama", "heuristic")
DEFAULT_MODEL = "gpt-4o-mini"
DEFAULT_OLLAMA_MODEL = "llama3.1"
DEFAULT_OLLAMA_HOST = "http://localhost:11434"
DEFAULT_THRESHOLD = 3.5


class SettingsError(ValueError):
    """A configuration value is invalid; the message names its source."""


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise ValueError(f"must be >= 1, got {value}")
    return value


def _non_negative_int(text: str) -> int:
    value = int(text)
    if value < 0:
        raise ValueError(f"must be >= 0, got {value}")
    return value


def _positive_float(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise ValueError(f"must be > 0, got {text}")
    return value


def _non_negative_float(text: str) -> float:
    value = float(text)
    if not value >= 0:
        raise ValueError(f"must be >= 0, got {text}")
    return value


def score_threshold(text: str) -> float:
    """Parse a threshold on the 1-5 rubric scale."""
    value = float(text)
    if not 1 <= value <= 5:
        raise ValueError(f"must be between 1 and 5, got {text}")
    return value


def _boolean(text: str) -> bool:
    value = text.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off", ""):
        return False
    raise ValueError(f"must be true or false, got {text!r}")


def _text(text: str) -> str:
    return text.strip()


def _choice(*choices: str) -> Callable[[str], str]:
    def parse(text: str) -> str:
        value = text.strip().lower()
        if value not in choices:
            raise ValueError(f"must be one of {', '.join(choices)}, got {text!r}")
        return value

    return parse


_provider = _choice(*PROVIDERS)


def _fraction(text: str) -> float:
    value = float(text)
    if not 0 <= value <= 1:
        raise ValueError(f"must be between 0 and 1, got {text}")
    return value


def _targets(text: str) -> tuple[Target, ...] | None:
    return parse_targets(text) or None


def _body_template(text: str) -> str:
    check_body_template(text)
    return text


_DIMENSION_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
# Names a dimension cannot take: they are keys of a result row already.
RESERVED_NAMES = frozenset(
    {
        "id",
        "file",
        "nodeid",
        "line",
        "outcome",
        "error",
        "reason",
        "runs",
        "expected",
        "metadata",
        "duration_s",
        "flaky",
        "target",
        "target_order",
        "compare_key",
        "ticket",
        "answer",
        "combined",
        "kind",
        "dimensions",
        "flaky_failed",
    }
)


def _dimension_files(text: str) -> tuple[tuple[str, str], ...]:
    """``empathy=rubrics/empathy.md,clarity=rubrics/clarity.md`` -> name/path pairs."""
    pairs = []
    for part in text.replace(",", " ").split():
        name, sep, path = part.partition("=")
        if not sep or not path:
            raise ValueError(f"must look like empathy=rubrics/empathy.md, got {part!r}")
        if not _DIMENSION_NAME.match(name) or name in RESERVED_NAMES:
            raise ValueError(f"dimension names are lowercase identifiers, not {name!r}")
        pairs.append((name, path))
    return tuple(pairs)


def _read_rubrics(
    pairs: tuple[tuple[str, str], ...], folder: Path, source: str
) -> dict[str, Dimension]:
    dimensions = dict(BUILTIN_DIMENSIONS)
    for name, file in pairs:
        if name in dimensions:
            raise SettingsError(f"{source}: dimension {name!r} is defined twice (or built in)")
        path = Path(file) if Path(file).is_absolute() else folder / file
        try:
            rubric = path.read_text(encoding="utf-8").strip()
        except OSError:
            raise SettingsError(f"{source}: rubric file {path} not found") from None
        if not rubric:
            raise SettingsError(f"{source}: rubric file {path} is empty")
        dimensions[name] = Dimension(name, rubric)
    return dimensions


def _dimension_scores(text: str) -> dict[str, float]:
    """``relevance=4.0,tone=3.5`` -> {"relevance": 4.0, "tone": 3.5}."""
    scores: dict[str, float] = {}
    for part in text.split(","):
        name, sep, value = part.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"must look like relevance=4.0,tone=3.5, got {text!r}")
        scores[name.strip()] = score_threshold(value.strip())
    return scores


@dataclass(frozen=True)
class OptionSpec:
    """One option as the command line, the environment and the ini file know it."""

    dest: str
    flag: str
    ini: str
    help: str
    parse: Callable[[str], Any]
    default: Any
    env: tuple[str, ...] = ()
    metavar: str | None = None
    is_flag: bool = False
    negative_flag: str | None = None  # e.g. --judge-no-cache for --judge-cache


# The single table of options; plugin.py registers these, tests and the README refer to them.
OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "runs",
        "--judge-runs",
        "llmjudge_runs",
        "judge runs per dimension (default 1)",
        _positive_int,
        1,
        env=("JUDGE_RUNS",),
        metavar="N",
    ),
    OptionSpec(
        "provider",
        "--judge-provider",
        "llmjudge_provider",
        "judge provider: auto, openai, ollama or heuristic (default auto)",
        _provider,
        "auto",
        env=("JUDGE_PROVIDER",),
        metavar="NAME",
    ),
    OptionSpec(
        "model",
        "--judge-model",
        "llmjudge_model",
        f"judge model (default {DEFAULT_MODEL}; {DEFAULT_OLLAMA_MODEL} for ollama)",
        _text,
        None,
        env=("OPENAI_MODEL",),
        metavar="MODEL",
    ),
    OptionSpec(
        "base_url",
        "--judge-base-url",
        "llmjudge_base_url",
        "base URL of an OpenAI-compatible server",
        _text,
        None,
        env=("OPENAI_BASE_URL",),
        metavar="URL",
    ),
    OptionSpec(
        "min_relevance",
        "--judge-min-relevance",
        "llmjudge_min_relevance",
        "minimum mean relevance score, 1-5 (default 3.5)",
        score_threshold,
        3.5,
        env=("JUDGE_MIN_RELEVANCE",),
        metavar="SCORE",
    ),
    OptionSpec(
        "min_tone",
        "--judge-min-tone",
        "llmjudge_min_tone",
        "minimum mean tone score, 1-5 (default 3.5)",
        score_threshold,
        3.5,
        env=("JUDGE_MIN_TONE",),
        metavar="SCORE",
    ),
    OptionSpec(
        "output",
        "--judge-output",
        "llmjudge_output",
        "results JSON path (default results/output.json)",
        _text,
        "results/output.json",
        env=("JUDGE_OUTPUT",),
        metavar="PATH",
    ),
    OptionSpec(
        "concurrency",
        "--judge-concurrency",
        "llmjudge_concurrency",
        "judge calls in flight at once (default 8)",
        _positive_int,
        8,
        env=("JUDGE_CONCURRENCY",),
        metavar="N",
    ),
    OptionSpec(
        "timeout",
        "--judge-timeout",
        "llmjudge_timeout",
        "seconds one judge call may take (default 60)",
        _positive_float,
        60.0,
        env=("JUDGE_TIMEOUT",),
        metavar="SECONDS",
    ),
    OptionSpec(
        "max_retries",
        "--judge-max-retries",
        "llmjudge_max_retries",
        "retries of a failed judge call (default 4)",
        _non_negative_int,
        4,
        env=("JUDGE_MAX_RETRIES",),
        metavar="N",
    ),
    OptionSpec(
        "strict",
        "--judge-strict",
        "llmjudge_strict",
        "invalid eval entries are errors instead of skips",
        _boolean,
        False,
        env=("JUDGE_STRICT",),
        is_flag=True,
    ),
    OptionSpec(
        "cache",
        "--judge-cache",
        "llmjudge_cache",
        "reuse judgments of unchanged cases from the judge cache (default: on for LLM providers)",
        _boolean,
        None,
        env=("JUDGE_CACHE",),
        is_flag=True,
        negative_flag="--judge-no-cache",
    ),
    OptionSpec(
        "cache_dir",
        "--judge-cache-dir",
        "llmjudge_cache_dir",
        "judge cache directory (default: llmjudge inside pytest's cache dir)",
        _text,
        None,
        env=("JUDGE_CACHE_DIR",),
        metavar="DIR",
    ),
    OptionSpec(
        "max_calls",
        "--judge-max-calls",
        "llmjudge_max_calls",
        "make no new judge calls once this many were made",
        _positive_int,
        None,
        env=("JUDGE_MAX_CALLS",),
        metavar="N",
    ),
    OptionSpec(
        "max_cost",
        "--judge-max-cost",
        "llmjudge_max_cost",
        "make no new judge calls once this many USD were spent",
        _positive_float,
        None,
        env=("JUDGE_MAX_COST",),
        metavar="USD",
    ),
    OptionSpec(
        "temperature",
        "--judge-temperature",
        "llmjudge_temperature",
        "sampling temperature of the judge (default: the server's)",
        _non_negative_float,
        None,
        env=("JUDGE_TEMPERATURE",),
        metavar="T",
    ),
    OptionSpec(
        "retry_wait",
        "--judge-retry-wait",
        "llmjudge_retry_wait",
        "first backoff between retries in seconds, doubling (default 1)",
        _non_negative_float,
        1.0,
        env=("JUDGE_RETRY_WAIT",),
        metavar="SECONDS",
    ),
)


# CI gating (flaky evals, adaptive runs, verdicts, suite gates, baselines, reports).
OPTIONS += (
    OptionSpec(
        "strict_flaky",
        "--judge-strict-flaky",
        "llmjudge_strict_flaky",
        "flaky evals gate like any other",
        _boolean,
        False,
        env=("JUDGE_STRICT_FLAKY",),
        is_flag=True,
    ),
    OptionSpec(
        "adaptive",
        "--judge-adaptive",
        "llmjudge_adaptive",
        "give extra runs to items whose verdict is uncertain",
        _boolean,
        False,
        env=("JUDGE_ADAPTIVE",),
        is_flag=True,
    ),
    OptionSpec(
        "max_runs",
        "--judge-max-runs",
        "llmjudge_max_runs",
        "most runs per dimension with --judge-adaptive (default max(5, runs))",
        _positive_int,
        None,
        env=("JUDGE_MAX_RUNS",),
        metavar="N",
    ),
    OptionSpec(
        "adaptive_margin",
        "--judge-adaptive-margin",
        "llmjudge_adaptive_margin",
        "a mean this close to its threshold is uncertain (default 0.5)",
        _non_negative_float,
        0.5,
        env=("JUDGE_ADAPTIVE_MARGIN",),
        metavar="SCORE",
    ),
    OptionSpec(
        "verdict",
        "--judge-verdict",
        "llmjudge_verdict",
        "mean: pass when mean >= threshold; confident: when the 95 percent confidence "
        "interval clears it (default mean)",
        _choice("mean", "confident"),
        "mean",
        env=("JUDGE_VERDICT",),
        metavar="MODE",
    ),
    OptionSpec(
        "unstable",
        "--judge-unstable",
        "llmjudge_unstable",
        "outcome of an item the confident verdict cannot decide: fail, pass or xfail "
        "(default fail)",
        _choice("fail", "pass", "xfail"),
        "fail",
        env=("JUDGE_UNSTABLE",),
        metavar="OUTCOME",
    ),
    OptionSpec(
        "min_pass_rate",
        "--judge-min-pass-rate",
        "llmjudge_min_pass_rate",
        "fail the session when fewer judged items pass (0-1)",
        _fraction,
        None,
        env=("JUDGE_MIN_PASS_RATE",),
        metavar="RATE",
    ),
    OptionSpec(
        "min_mean",
        "--judge-min-mean",
        "llmjudge_min_mean",
        "fail the session when a dimension's suite mean is lower (relevance=4.0,tone=3.5)",
        _dimension_scores,
        None,
        env=("JUDGE_MIN_MEAN",),
        metavar="DIM=SCORE,...",
    ),
    OptionSpec(
        "baseline",
        "--judge-baseline",
        "llmjudge_baseline",
        "compare with an earlier results JSON",
        _text,
        None,
        env=("JUDGE_BASELINE",),
        metavar="PATH",
    ),
    OptionSpec(
        "fail_on_regression",
        "--judge-fail-on-regression",
        "llmjudge_fail_on_regression",
        "items that regressed significantly against the baseline fail",
        _boolean,
        False,
        env=("JUDGE_FAIL_ON_REGRESSION",),
        is_flag=True,
    ),
    OptionSpec(
        "report",
        "--judge-report",
        "llmjudge_report",
        "write a markdown report",
        _text,
        None,
        env=("JUDGE_REPORT",),
        metavar="PATH",
    ),
)


# Live bots and A/B comparison.
OPTIONS += (
    OptionSpec(
        "targets",
        "--judge-targets",
        "llmjudge_targets",
        "live bots to judge instead of stored responses: name=URL ...",
        _targets,
        None,
        env=("JUDGE_TARGETS",),
        metavar="NAME=URL ...",
    ),
    OptionSpec(
        "target_body",
        "--judge-target-body",
        "llmjudge_target_body",
        'JSON request template with {ticket} (default {"message": "{ticket}"})',
        _body_template,
        DEFAULT_BODY,
        env=("JUDGE_TARGET_BODY",),
        metavar="JSON",
    ),
    OptionSpec(
        "target_field",
        "--judge-target-field",
        "llmjudge_target_field",
        "dotted path of the answer in the reply (default answer)",
        _text,
        DEFAULT_FIELD,
        env=("JUDGE_TARGET_FIELD",),
        metavar="PATH",
    ),
    OptionSpec(
        "target_headers",
        "--judge-target-headers",
        "llmjudge_target_headers",
        "request headers 'Name: value; ...'; ${VAR} reads the environment",
        parse_headers,
        (),
        env=("JUDGE_TARGET_HEADERS",),
        metavar="HEADERS",
    ),
    OptionSpec(
        "target_timeout",
        "--judge-target-timeout",
        "llmjudge_target_timeout",
        "seconds a bot may take to answer (default 30)",
        _positive_float,
        30.0,
        env=("JUDGE_TARGET_TIMEOUT",),
        metavar="SECONDS",
    ),
    OptionSpec(
        "tie_tolerance",
        "--judge-tie-tolerance",
        "llmjudge_tie_tolerance",
        "combined scores closer than this are a tie (default 0.01)",
        _non_negative_float,
        0.01,
        env=("JUDGE_TIE_TOLERANCE",),
        metavar="SCORE",
    ),
    OptionSpec(
        "save_responses",
        "--judge-save-responses",
        "llmjudge_save_responses",
        "write the bots' answers as static eval files into this directory",
        _text,
        None,
        env=("JUDGE_SAVE_RESPONSES",),
        metavar="DIR",
    ),
)


# User-defined dimensions (DESIGN: name + rubric in configuration).
OPTIONS += (
    OptionSpec(
        "dimensions",
        "--judge-dimensions",
        "llmjudge_dimensions",
        "extra dimensions judged on every item: name=rubric-file,...",
        _dimension_files,
        (),
        env=("JUDGE_DIMENSIONS",),
        metavar="NAME=FILE,...",
    ),
    OptionSpec(
        "thresholds",
        "--judge-thresholds",
        "llmjudge_thresholds",
        "minimum mean score per dimension: relevance=4,empathy=3.5 (default 3.5)",
        _dimension_scores,
        None,
        env=("JUDGE_THRESHOLDS",),
        metavar="DIM=SCORE,...",
    ),
)

OPTIONS_BY_DEST = {spec.dest: spec for spec in OPTIONS}


@dataclass(frozen=True)
class Settings:
    """Session-wide judge configuration after precedence has been applied."""

    provider: str  # resolved: openai, ollama or heuristic (never auto)
    provider_reason: str
    model: str | None
    base_url: str | None
    runs: int
    thresholds: Mapping[str, float]
    output: Path
    concurrency: int
    timeout: float
    max_retries: int
    strict: bool
    temperature: float | None
    retry_wait: float
    cache: bool = False
    cache_dir: Path | None = None
    max_calls: int | None = None
    max_cost: float | None = None
    price: Price | None = None
    strict_flaky: bool = False
    adaptive: bool = False
    max_runs: int = 5
    adaptive_margin: float = 0.5
    verdict: str = "mean"
    unstable: str = "fail"
    min_pass_rate: float | None = None
    min_mean: Mapping[str, float] | None = None
    baseline: Path | None = None
    fail_on_regression: bool = False
    report: Path | None = None
    targets: TargetConfig | None = None
    dimensions: Mapping[str, Dimension] = field(default_factory=lambda: dict(BUILTIN_DIMENSIONS))
    tie_tolerance: float = 0.01
    save_responses: Path | None = None

    @property
    def uses_llm(self) -> bool:
        return self.provider != "heuristic"

    def header(self) -> str:
        """The one line that makes a run's judge setup reproducible."""
        model = self.model if self.uses_llm else "none (no LLM)"
        limits = " ".join(f"{name}>={value:g}" for name, value in self.thresholds.items())
        base = f" base_url={self.base_url}" if self.base_url else ""
        try:
            output = os.path.relpath(self.output)
        except ValueError:  # pragma: no cover - another drive on Windows
            output = str(self.output)
        budget = "".join(
            f" {name}={value:g}"
            for name, value in (("max_calls", self.max_calls), ("max_cost_usd", self.max_cost))
            if value is not None
        )
        return (
            f"llmjudge: provider={self.provider} ({self.provider_reason}) model={model}{base} "
            f"runs={self.runs} thresholds: {limits} concurrency={self.concurrency} "
            f"cache={'on' if self.cache else 'off'}{budget} output={output}"
        )


def _pick(
    spec: OptionSpec, cli: Mapping[str, Any], env: Mapping[str, str], ini: Mapping[str, Any]
) -> tuple[Any, str]:
    """Return (value, source) for one option, parsed and validated."""
    candidates: list[tuple[Any, str]] = []
    cli_value = cli.get(spec.dest)
    if cli_value is not None:
        candidates.append((cli_value, spec.flag))
    for name in spec.env:
        if env.get(name, "").strip():
            candidates.append((env[name], f"environment variable {name}"))
            break
    ini_value = ini.get(spec.ini)
    if ini_value not in (None, ""):
        candidates.append((ini_value, f"ini option {spec.ini}"))
    if not candidates:
        return spec.default, "default"
    raw, source = candidates[0]
    if isinstance(raw, bool) and spec.is_flag:
        return raw, source
    try:
        return spec.parse(str(raw)), source
    except ValueError as exc:
        reason = str(exc)
        if "invalid literal" in reason or "could not convert" in reason:
            reason = f"must be a number, got {raw!r}"
        raise SettingsError(f"{source} {reason}") from None


def resolve_settings(
    cli: Mapping[str, Any],
    env: Mapping[str, str],
    ini: Mapping[str, Any],
    base_dir: Path,
    ini_dir: Path,
) -> Settings:
    """Apply precedence to every option and decide the provider."""
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for spec in OPTIONS:
        values[spec.dest], sources[spec.dest] = _pick(spec, cli, env, ini)

    provider: str = values["provider"]
    api_key_set = bool(env.get("OPENAI_API_KEY", "").strip())
    base_url: str | None = values["base_url"] or None
    model: str | None = values["model"] or None
    if provider == "auto":
        if api_key_set:
            provider, reason = "openai", "auto: OPENAI_API_KEY is set"
        elif base_url:
            provider, reason = "openai", f"auto: base URL from {sources['base_url']}"
        else:
            provider, reason = "heuristic", "auto: no OPENAI_API_KEY or OPENAI_BASE_URL"
    else:
        reason = f"from {sources['provider']}"
    if provider == "ollama":
        # The alias reads OLLAMA_HOST / OLLAMA_MODEL where openai reads OPENAI_BASE_URL / _MODEL.
        host_spec = replace(
            OPTIONS_BY_DEST["base_url"], env=("OLLAMA_HOST",), default=DEFAULT_OLLAMA_HOST
        )
        host = str(_pick(host_spec, cli, env, ini)[0])
        if not host.startswith(("http://", "https://")):
            host = f"http://{host}"
        base_url = host if host.rstrip("/").endswith("/v1") else host.rstrip("/") + "/v1"
        model_spec = replace(
            OPTIONS_BY_DEST["model"], env=("OLLAMA_MODEL",), default=DEFAULT_OLLAMA_MODEL
        )
        model = str(_pick(model_spec, cli, env, ini)[0])
    elif provider == "openai":
        model = model or DEFAULT_MODEL
    else:
        model, base_url = None, None

    def path(name: str) -> Path | None:
        if values[name] is None:
            return None
        value = Path(values[name]).expanduser()
        return (
            value
            if value.is_absolute()
            else ((ini_dir if sources[name].startswith("ini") else base_dir) / value)
        )

    try:
        prices = parse_price_lines(ini.get("llmjudge_prices") or [])
    except ValueError as exc:
        raise SettingsError(f"ini option llmjudge_prices: {exc}") from None
    price = price_for(model, prices) if provider != "heuristic" else None
    if values["max_cost"] is not None and price is None and provider != "heuristic":
        raise SettingsError(
            f"{sources['max_cost']} needs the price of model {model!r}: "
            f"add a line '{model}=<input>,<output>' (USD per million tokens) to llmjudge_prices"
        )
    cache = values["cache"] if values["cache"] is not None else provider != "heuristic"
    folder = ini_dir if sources["dimensions"].startswith("ini") else base_dir
    dimensions = _read_rubrics(values["dimensions"], folder, sources["dimensions"])
    for name in ("min_mean", "thresholds"):
        unknown = sorted(set(values[name] or {}) - set(dimensions))
        if unknown:
            raise SettingsError(
                f"{sources[name]} names unknown dimension {unknown[0]!r} "
                f"(known: {', '.join(dimensions)})"
            )
    thresholds = {
        **{name: DEFAULT_THRESHOLD for name in dimensions},
        "relevance": values["min_relevance"],
        "tone": values["min_tone"],
        **(values["thresholds"] or {}),
    }
    if values["verdict"] == "confident" and values["runs"] < 2:
        raise SettingsError(
            f"{sources['verdict']} confident needs --judge-runs >= 2 "
            "(one run has no confidence interval)"
        )
    if values["verdict"] == "confident" and values["runs"] < 2:
        raise SettingsError(
            f"{sources['verdict']} confident needs --judge-runs >= 2 "
            "(one run has no confidence interval)"
        )
    if values["fail_on_regression"] and values["baseline"] is None:
        raise SettingsError(f"{sources['fail_on_regression']} needs --judge-baseline")
    output = path("output")
    assert output is not None
    return Settings(
        provider=provider,
        provider_reason=reason,
        model=model,
        base_url=base_url,
        runs=values["runs"],
        thresholds=thresholds,
        dimensions=dimensions,
        output=output,
        concurrency=values["concurrency"],
        timeout=values["timeout"],
        max_retries=values["max_retries"],
        strict=values["strict"],
        temperature=values["temperature"],
        retry_wait=values["retry_wait"],
        cache=cache,
        cache_dir=path("cache_dir"),
        max_calls=values["max_calls"],
        max_cost=values["max_cost"],
        price=price,
        strict_flaky=values["strict_flaky"],
        adaptive=values["adaptive"],
        max_runs=max(values["max_runs"] or 5, values["runs"]),
        adaptive_margin=values["adaptive_margin"],
        verdict=values["verdict"],
        unstable=values["unstable"],
        min_pass_rate=values["min_pass_rate"],
        min_mean=values["min_mean"],
        baseline=path("baseline"),
        fail_on_regression=values["fail_on_regression"],
        report=path("report"),
        targets=None
        if values["targets"] is None
        else TargetConfig(
            targets=values["targets"],
            body=values["target_body"],
            field=values["target_field"],
            headers=tuple(values["target_headers"]),
            timeout=values["target_timeout"],
        ),
        tie_tolerance=values["tie_tolerance"],
        save_responses=path("save_responses"),
    )


@dataclass(frozen=True)
class ItemSettings:
    """What one item is judged with: runs and a threshold per dimension."""

    runs: int
    thresholds: Mapping[str, float]

    def overridden(
        self, runs: int | None = None, thresholds: Mapping[str, float] | None = None
    ) -> ItemSettings:
        merged = dict(self.thresholds)
        merged.update(thresholds or {})
        return replace(self, runs=runs or self.runs, thresholds=merged)


def worker_share(settings: Settings, workers: int, index: int) -> Settings:
    """An xdist worker's part of the session limits, so that all workers together keep them.

    Concurrency is divided rounding up (every worker can make progress); call and cost
    budgets are divided exactly, the remainder of calls going to the first workers.
    """
    if workers <= 1:
        return settings
    max_calls = settings.max_calls
    if max_calls is not None:
        max_calls = max_calls // workers + (1 if index < max_calls % workers else 0)
    return replace(
        settings,
        concurrency=max(1, -(-settings.concurrency // workers)),
        max_calls=max_calls,
        max_cost=None if settings.max_cost is None else settings.max_cost / workers,
    )

"""Configuration resolved once into a frozen ``Settings``.

Precedence for every option: command line > environment (the few variables CI scripts
already set) > ini (``[tool.pytest.ini_options]``, or ``-o`` for one run) > default. Per-item
values (an eval entry, the ``llmjudge`` marker) are applied on top by ``item_settings``. Bad
values raise ``SettingsError`` naming the source they came from.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from ..basics.redaction import register_url, safe_url
from ..basics.rubrics import DIMENSIONS as BUILTIN_DIMENSIONS
from ..basics.rubrics import Dimension
from .options import (
    DEFAULT_MAX_INPUT_CHARS,
    DEFAULT_MODEL,
    DEFAULT_OLLAMA_HOST,
    DEFAULT_OLLAMA_MODEL,
    DEFAULT_THRESHOLD,
    OPTIONS,
    OPTIONS_BY_DEST,
    BatchChoice,
    CacheChoice,
    Gates,
    OptionSpec,
    RunPlan,
)
from .pricing import Price, configured_price
from .rubric_files import read_rubrics
from .targets import TargetConfig


class SettingsError(ValueError):
    """A configuration value is invalid; the message names its source."""


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
    # What turns from a warning into an error: entries, flaky, baseline, batch, fallback.
    strict: frozenset[str]
    temperature: float | None
    retry_wait: float
    cache: bool = False
    cache_dir: Path | None = None
    max_calls: int | None = None
    max_cost: float | None = None
    price: Price | None = None
    adaptive: bool = False
    max_runs: int = 5
    adaptive_margin: float = 0.5
    verdict: str = "mean"
    undecided: str = "fail"  # what an undecided confident verdict does: fail, pass or xfail
    sampling: str = "auto"  # auto | choices | calls: how the runs of one judgment are asked
    scoring: str = "text"  # text | logprobs (G-Eval's probability-weighted score)
    grouping: str = "dimension"  # dimension | item: an item's dimensions in one request
    batch: bool = False  # judge through the provider's Batch API
    batch_wait: float | None = None  # seconds to wait for a batch; None: until done
    dry_run: bool = False  # plan and estimate, send nothing
    progress: float = 10.0  # seconds between progress lines in a log; 0: no progress
    min_pass_rate: float | None = None
    min_mean: Mapping[str, float] | None = None
    baseline: Path | None = None
    fail_on_regression: bool = False
    reports: tuple[Path, ...] = ()  # --judge-report: HTML by suffix, else markdown
    targets: TargetConfig | None = None
    dimensions: Mapping[str, Dimension] = field(default_factory=lambda: dict(BUILTIN_DIMENSIONS))
    tie_tolerance: float = 0.01
    save_responses: Path | None = None
    max_input_chars: int = DEFAULT_MAX_INPUT_CHARS
    min_agreement: Mapping[str, float] | None = None
    label_margin: float = 1.0
    trace: Path | None = None
    log_dir: Path | None = None
    max_tokens: int = 256  # completion tokens per judge reply (0: no limit sent)
    checks_mode: str = "first"  # first: a failed check spares the judge; always: judge too
    pairwise: bool = False  # targets' answers also compared side by side, in both orders
    min_win_rate: Mapping[str, float] | None = None  # target -> least pairwise win rate
    workers: int = 1  # xdist workers sharing the judge (each has its part of the limits)

    @property
    def uses_llm(self) -> bool:
        return self.provider != "heuristic"

    @property
    def written_files(self) -> tuple[Path, ...]:
        """The files a session writes that could pass for eval files (JSON, JSONL)."""
        return (self.output, *self.reports, *((self.trace,) if self.trace else ()))

    @property
    def needs_api_key(self) -> bool:
        """OpenAI itself needs OPENAI_API_KEY; a local server (a base URL, Ollama) takes any."""
        return self.uses_llm and self.provider != "ollama" and self.base_url is None

    def header(self) -> str:
        """The one line that makes a run's judge setup reproducible."""
        model = self.model if self.uses_llm else "none (no LLM)"
        thresholds = " ".join(f"{name}>={value:g}" for name, value in self.thresholds.items())
        base = f" base_url={safe_url(self.base_url)}" if self.base_url else ""
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
            f"runs={self.runs} thresholds: {thresholds} concurrency={self.concurrency} "
            f"cache={'on' if self.cache else 'off'}{budget} output={output}"
        )


def _pick(
    spec: OptionSpec, cli: Mapping[str, Any], env: Mapping[str, str], ini: Mapping[str, Any]
) -> tuple[Any, str]:
    """Return (value, source) for one option, parsed and validated."""
    candidates: list[tuple[Any, str]] = []
    cli_value = cli.get(spec.dest)
    if isinstance(cli_value, list):  # a repeatable flag given several times
        cli_value = ",".join(cli_value)
    if cli_value is not None:
        candidates.append((cli_value, spec.flag or spec.dest))
    for name in spec.env:
        if env.get(name, "").strip():
            candidates.append((env[name], f"environment variable {name}"))
            break
    ini_value = ini.get(spec.ini) if spec.ini else None
    if ini_value not in (None, ""):
        candidates.append((ini_value, f"ini option {spec.ini}"))
    if not candidates:
        return spec.default, "default"
    raw, source = candidates[0]
    if isinstance(raw, bool) and spec.is_flag:  # a switch given: the setting's on (or off)
        raw = "true" if raw else "false"
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
    base_url: str | None = env.get("OPENAI_BASE_URL", "").strip() or None
    base_source = "environment variable OPENAI_BASE_URL"
    model: str | None = values["model"] or None
    if provider.startswith(("http://", "https://")):  # an OpenAI-compatible server by its URL
        provider, base_url, base_source = "openai", provider, sources["provider"]
        reason = f"a server's URL from {sources['provider']}"
    elif provider == "auto":
        if api_key_set:
            provider, reason = "openai", "auto: OPENAI_API_KEY is set"
        elif base_url:
            provider, reason = "openai", f"auto: base URL from {base_source}"
        else:
            provider, reason = "heuristic", "auto: no OPENAI_API_KEY or OPENAI_BASE_URL"
    else:
        reason = f"from {sources['provider']}"
    strict: frozenset[str] = values["strict"]
    if "fallback" in strict and provider == "heuristic" and values["provider"] == "auto":
        raise SettingsError(
            f"{sources['strict']} (fallback): no LLM judge is configured ({reason}): set "
            "OPENAI_API_KEY, or OPENAI_BASE_URL for an OpenAI-compatible server"
        )
    if provider == "ollama":
        # The alias reads OLLAMA_HOST / OLLAMA_MODEL where openai reads OPENAI_BASE_URL / _MODEL.
        host = env.get("OLLAMA_HOST", "").strip() or DEFAULT_OLLAMA_HOST
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

    def where(text: str, name: str) -> Path:
        """A path as given: relative to the rootdir from ini, else to the invocation."""
        value = Path(text).expanduser()
        if value.is_absolute():
            return value
        return (ini_dir if sources[name].startswith("ini") else base_dir) / value

    def path(name: str) -> Path | None:
        return None if values[name] is None else where(values[name], name)

    register_url(base_url)  # its credentials never appear in any output
    try:
        llm = provider != "heuristic"
        price = configured_price(model, ini.get("llmjudge_prices"), llm, base_url)
    except ValueError as exc:
        raise SettingsError(f"ini option llmjudge_prices: {exc}") from None
    budget: Mapping[str, float] = values["budget"]
    if "usd" in budget and price is None and provider != "heuristic":
        raise SettingsError(
            f"{sources['budget']} usd= needs the price of model {model!r}: "
            f"add a line '{model}=<input>,<output>' (USD per million tokens) to llmjudge_prices"
        )
    chosen: CacheChoice = values["cache"]
    cache = chosen.on if chosen.on is not None else provider != "heuristic"
    folder = ini_dir if sources["dimensions"].startswith("ini") else base_dir
    try:
        dimensions = read_rubrics(values["dimensions"], folder, sources["dimensions"])
    except ValueError as exc:
        raise SettingsError(str(exc)) from None
    gates: Gates = values["gates"]
    for name, named in (("gates", gates.mean), ("thresholds", values["thresholds"])):
        unknown = sorted(set(named or {}) - set(dimensions))
        if unknown:
            raise SettingsError(
                f"{sources[name]} names unknown dimension {unknown[0]!r} "
                f"(known: {', '.join(dimensions)})"
            )
    thresholds = {
        **{name: DEFAULT_THRESHOLD for name in dimensions},
        **(values["thresholds"] or {}),
    }
    plan: RunPlan = values["runs"]
    verdict, undecided = values["verdict"]
    if verdict == "confident" and plan.runs < 2:
        raise SettingsError(
            f"{sources['verdict']} confident needs --judge-runs >= 2 "
            "(one run has no confidence interval)"
        )
    if gates.regression and values["baseline"] is None:
        raise SettingsError(f"{sources['gates']} regression needs --judge-baseline")
    batch: BatchChoice | None = values["batch"]
    table = values["targets"]
    # An option's value is the Settings field of its name, unless resolved further here.
    from_table: dict[str, Any] = {name: values[name] for name in OPTION_FIELDS}
    from_table.update((name, path(name)) for name in PATH_FIELDS)
    return Settings(
        **from_table,
        provider=provider,
        provider_reason=reason,
        model=model,
        base_url=base_url,
        thresholds=thresholds,
        dimensions=dimensions,
        cache=cache,
        cache_dir=None if chosen.folder is None else where(chosen.folder, "cache"),
        price=price,
        runs=plan.runs,
        adaptive=plan.most is not None,
        max_runs=plan.most or plan.runs,
        verdict=verdict,
        undecided=undecided,
        batch=batch is not None,
        batch_wait=None if batch is None else batch.wait,
        max_calls=None if "calls" not in budget else int(budget["calls"]),
        max_cost=budget.get("usd"),
        min_pass_rate=gates.pass_rate,
        min_mean=gates.mean,
        min_agreement=gates.agreement,
        min_win_rate=gates.win_rate,
        fail_on_regression=gates.regression,
        reports=tuple(where(p, "reports") for p in values["reports"]),
        targets=None if table is None else table.config,
        pairwise=False if table is None else table.pairwise,
        tie_tolerance=0.01 if table is None else table.tie_tolerance,
        save_responses=None
        if table is None or table.save_responses is None
        else where(table.save_responses, "targets"),
    )


# Settings fields resolved from more than their option's value (or from no option).
RESOLVED_FIELDS = frozenset(
    {"provider", "provider_reason", "model", "base_url", "thresholds", "dimensions", "cache"}
    | {"cache_dir", "price", "runs", "adaptive", "max_runs", "verdict", "undecided", "batch"}
    | {"batch_wait", "max_calls", "max_cost", "min_pass_rate", "min_mean", "min_agreement"}
    | {"min_win_rate", "fail_on_regression", "reports", "targets", "pairwise", "tie_tolerance"}
    | {"save_responses", "workers"}  # workers: set per xdist worker
)
PATH_FIELDS = ("output", "baseline", "trace", "log_dir")
OPTION_FIELDS = tuple(
    f.name
    for f in fields(Settings)
    if f.name in OPTIONS_BY_DEST and f.name not in RESOLVED_FIELDS and f.name not in PATH_FIELDS
)


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
        workers=workers,
        concurrency=max(1, -(-settings.concurrency // workers)),
        max_calls=max_calls,
        max_cost=None if settings.max_cost is None else settings.max_cost / workers,
    )

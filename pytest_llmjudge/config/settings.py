"""Configuration resolved once into a frozen ``Settings``.

Precedence for every option: command line > environment (the few variables CI scripts
already set) > ini (``[tool.pytest.ini_options]``, or ``-o`` for one session) > default. Per-item
values (an eval entry, the ``llmjudge`` marker) are applied on top by ``item_settings``. Bad
values raise ``SettingsError`` naming the source they came from.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from ..basics.redaction import register_url, safe_url
from ..basics.rubrics import CORRECTNESS, DEFAULT_ASSISTANT, Dimension
from ..basics.rubrics import DIMENSIONS as BUILTIN_DIMENSIONS
from .options import (
    DEFAULT_MAX_INPUT_CHARS,
    DEFAULT_MODEL,
    DEFAULT_OLLAMA_HOST,
    DEFAULT_OLLAMA_MODEL,
    DEFAULT_THRESHOLD,
    OPTIONS,
    OPTIONS_BY_DEST,
    CacheChoice,
    OptionSpec,
)
from .pricing import Price, configured_price
from .rubric_files import ignored_offline, read_rubrics
from .targets import TargetConfig

NO_BASELINE = "regression: not checked (no baseline)"


class SettingsError(ValueError):
    """A configuration value is invalid; the message names its source."""


@dataclass(frozen=True)
class OptionValues:
    """Every option's parsed value by precedence and its source (``--judge-runs``,
    ``environment variable JUDGE_RUNS``, ``ini option llmjudge_runs``, ``default``), and the
    folders its relative paths are read from."""

    base_dir: Path  # where the session was invoked
    ini_dir: Path  # the rootdir, for paths from ini
    values: dict[str, Any] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(
        cls,
        cli: Mapping[str, Any],
        env: Mapping[str, str],
        ini: Mapping[str, Any],
        base_dir: Path,
        ini_dir: Path,
    ) -> OptionValues:
        given = cls(base_dir, ini_dir)
        for spec in OPTIONS:
            given.values[spec.dest], given.sources[spec.dest] = by_precedence(spec, cli, env, ini)
        return given

    def folder(self, name: str) -> Path:
        """The folder an option's relative path is read from: the rootdir from ini, else the
        invocation."""
        return self.ini_dir if self.sources[name].startswith("ini") else self.base_dir

    def where(self, text: str, name: str) -> Path:
        """A path as given for option ``name``."""
        value = Path(text).expanduser()
        return value if value.is_absolute() else self.folder(name) / value

    def path(self, name: str) -> Path | None:
        """Option ``name``'s path (None when not given)."""
        return None if self.values[name] is None else self.where(self.values[name], name)

    def fail(self, name: str, problem: str) -> SettingsError:
        """The error of option ``name``, its source named."""
        return SettingsError(f"{self.sources[name]} {problem}")


def by_precedence(
    spec: OptionSpec, cli: Mapping[str, Any], env: Mapping[str, str], ini: Mapping[str, Any]
) -> tuple[Any, str]:
    """Return (value, source) for one option, parsed and validated."""
    candidates: list[tuple[Any, str]] = []
    cli_value = cli.get(spec.dest)
    if isinstance(cli_value, list):  # a repeatable flag given several times
        cli_value = ",".join(cli_value)
    if cli_value is not None:  # (an ini key's value given with -o, for a per-name option)
        candidates.append((cli_value, spec.flag or f"-o {spec.ini}"))
    for name in spec.env:
        if env.get(name, "").strip():
            candidates.append((env[name], f"environment variable {name}"))
            break
    ini_value = ini.get(spec.ini) if spec.ini else None
    if ini_value not in (None, ""):
        candidates.append((ini_value, f"ini option {spec.ini}"))
    if not candidates:
        return spec.default, "default"
    if spec.merge is None:
        return _parsed(spec, *candidates[0]), candidates[0][1]
    # a per-name option: the lower sources' names stay, each source its own errors
    value = _parsed(spec, *candidates[-1])
    for raw, source in reversed(candidates[:-1]):
        value = spec.merge(value, _parsed(spec, raw, source))
    return value, " and ".join(source for _, source in reversed(candidates))


def _parsed(spec: OptionSpec, raw: Any, source: str) -> Any:
    if isinstance(raw, bool) and spec.is_flag:  # a switch given: the setting's on (or off)
        raw = "true" if raw else "false"
    try:
        return spec.parse(str(raw))
    except ValueError as exc:
        reason = str(exc)
        if "invalid literal" in reason or "could not convert" in reason:
            reason = f"must be a number, got {raw!r}"
        raise SettingsError(f"{source} {reason}") from None


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
    verdict_k: int | None = None  # k_of_n: the runs that must pass
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
    gate_undecided: str = "point"  # how a gate whose interval holds its bound counts
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
    pairwise: bool = False  # targets' responses also compared side by side, in both orders
    min_win_rate: Mapping[str, float] | None = None  # target -> least pairwise win rate
    workers: int = 1  # xdist workers sharing the judge (each has its part of the limits)

    @property
    def uses_llm(self) -> bool:
        return self.provider != "heuristic"

    @property
    def written_files(self) -> tuple[Path, ...]:
        """The files and folders a session writes into that could pass for eval files: the
        results, reports, trace, saved responses and logs (never collected, never hinted at)."""
        folders = (self.trace, self.save_responses, self.log_dir)
        return (self.output, *self.reports, *(path for path in folders if path is not None))

    @property
    def needs_api_key(self) -> bool:
        """OpenAI itself needs OPENAI_API_KEY; a local server (a base URL, Ollama) takes any."""
        return self.uses_llm and self.provider != "ollama" and self.base_url is None

    def notices(self) -> list[str]:
        """What the settings leave undone, said in the summary: a regression gate without a
        baseline, the judge's domain where the offline judge cannot read it."""
        notices = [NO_BASELINE] if self.fail_on_regression and self.baseline is None else []
        if not self.uses_llm and (ignored := ignored_offline(self.dimensions)):
            notices.append(f"the offline judge ignores {ignored}: it scores by its own signals")
        return notices

    def header(self) -> str:
        """The one line that makes a session's judge setup reproducible."""
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


def resolve_settings(
    cli: Mapping[str, Any],
    env: Mapping[str, str],
    ini: Mapping[str, Any],
    base_dir: Path,
    ini_dir: Path,
) -> Settings:
    """Apply precedence to every option, decide the judge, and derive each setting that is
    more than its option's value (``_DERIVED``); refuse what cannot work together."""
    given = OptionValues.of(cli, env, ini, base_dir, ini_dir)
    judge = _judge(given, cli, env, ini)
    register_url(judge["base_url"])  # its credentials never appear in any output
    resolved = {**judge, **_costs(given, judge, ini), **_dimensions(given, judge)}
    for name, refused, problem in _REFUSED:
        if refused(given.values):
            raise given.fail(name, problem)
    # An option's value is the Settings field of its name, unless resolved further here.
    resolved.update((name, given.values[name]) for name in OPTION_FIELDS)
    resolved.update((name, given.path(name)) for name in PATH_FIELDS)
    resolved.update((name, how(given.values[option])) for name, (option, how) in _DERIVED.items())
    table, chosen = given.values["targets"], given.values["cache"]
    return Settings(
        **resolved,
        cache_dir=None if chosen.folder is None else given.where(chosen.folder, "cache"),
        # one report per path, however often it is named
        reports=tuple(dict.fromkeys(given.where(p, "reports") for p in given.values["reports"])),
        save_responses=None
        if table is None or table.save_responses is None
        else given.where(table.save_responses, "targets"),
    )


def _judge(
    given: OptionValues, cli: Mapping[str, Any], env: Mapping[str, str], ini: Mapping[str, Any]
) -> dict[str, Any]:
    """The provider (and why it was chosen), its model and base URL."""
    provider, reason, base_url = _provider(given, env)
    model: str | None = given.values["model"] or None
    asked_for_any = given.values["provider"] == "auto"
    if "fallback" in given.values["strict"] and provider == "heuristic" and asked_for_any:
        raise given.fail(
            "strict",
            f"(fallback): no LLM judge is configured ({reason}): set "
            "OPENAI_API_KEY, or OPENAI_BASE_URL for an OpenAI-compatible server",
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
        model = str(by_precedence(model_spec, cli, env, ini)[0])
    elif provider == "openai":
        model = model or DEFAULT_MODEL
    else:
        model, base_url = None, None
    return {"provider": provider, "provider_reason": reason, "model": model, "base_url": base_url}


def _provider(given: OptionValues, env: Mapping[str, str]) -> tuple[str, str, str | None]:
    """The provider asked for (``auto``: openai with a key or a base URL, else the
    heuristic judge), why, and the base URL from the environment or the provider's value."""
    provider: str = given.values["provider"]
    base_url = env.get("OPENAI_BASE_URL", "").strip() or None
    if provider.startswith(("http://", "https://")):  # an OpenAI-compatible server by its URL
        return "openai", f"a server's URL from {given.sources['provider']}", provider
    if provider != "auto":
        return provider, f"from {given.sources['provider']}", base_url
    if env.get("OPENAI_API_KEY", "").strip():
        return "openai", "auto: OPENAI_API_KEY is set", base_url
    if base_url:
        return "openai", "auto: base URL from environment variable OPENAI_BASE_URL", base_url
    return "heuristic", "auto: no OPENAI_API_KEY or OPENAI_BASE_URL", base_url


def _costs(given: OptionValues, judge: Mapping[str, Any], ini: Mapping[str, Any]) -> dict[str, Any]:
    """The model's price (a USD budget needs one) and whether the cache is on."""
    provider, model = judge["provider"], judge["model"]
    try:
        llm = provider != "heuristic"
        price = configured_price(model, ini.get("llmjudge_prices"), llm, judge["base_url"])
    except ValueError as exc:
        raise SettingsError(f"ini option llmjudge_prices: {exc}") from None
    if "usd" in given.values["budget"] and price is None and provider != "heuristic":
        raise given.fail(
            "budget",
            f"usd= needs the price of model {model!r}: add a line "
            f"'{model}=<input>,<output>' (USD per million tokens) to llmjudge_prices",
        )
    chosen: CacheChoice = given.values["cache"]
    return {"price": price, "cache": chosen.on if chosen.on is not None else llm}


def _dimensions(given: OptionValues, judge: Mapping[str, Any]) -> dict[str, Any]:
    """The dimensions judged (built-in and from rubric files) and their thresholds; with an
    LLM judge, correctness where an entry has a reference, configured or not."""
    values, source = given.values, given.sources["dimensions"]
    try:
        dimensions = read_rubrics(values["dimensions"], given.folder("dimensions"), source)
    except ValueError as exc:
        raise SettingsError(str(exc)) from None
    if judge["provider"] != "heuristic" and CORRECTNESS.name not in dimensions:
        dimensions[CORRECTNESS.name] = replace(CORRECTNESS, by_default=True)
    if values["assistant"] != DEFAULT_ASSISTANT:  # part of every rubric's version
        dimensions = {n: replace(d, assistant=values["assistant"]) for n, d in dimensions.items()}
    for name, named in (("gates", values["gates"].mean), ("thresholds", values["thresholds"])):
        unknown = sorted(set(named or {}) - set(dimensions))
        if unknown:
            raise given.fail(
                name,
                f"names unknown dimension {unknown[0]!r} (known: {', '.join(dimensions)})",
            )
    thresholds = {name: DEFAULT_THRESHOLD for name in dimensions}
    return {"dimensions": dimensions, "thresholds": {**thresholds, **(values["thresholds"] or {})}}


# Options that cannot work together: the option named, when, and what it needs.
_REFUSED: tuple[tuple[str, Callable[[Mapping[str, Any]], bool], str], ...] = (
    (
        "verdict",
        lambda v: v["verdict"][0] == "confident" and v["runs"].runs < 2,
        "confident needs --judge-runs >= 2 (one run has no confidence interval)",
    ),
    (
        "verdict",
        lambda v: v["verdict"][0] == "k_of_n" and v["verdict"][2] > v["runs"].runs,
        "k_of_n: k is more than the runs every item gets (N of --judge-runs N or N..M), so an "
        "item judged on N runs could never pass",
    ),
    (  # without it, regression is not checked, and the summary says so (first session on main)
        "strict",
        lambda v: "baseline" in v["strict"] and v["gates"].regression and v["baseline"] is None,
        "(baseline): the regression gate has no baseline to compare with: give "
        "--judge-baseline (or leave baseline out of llmjudge_strict where none exists yet)",
    ),
)
# Settings fields read from one option's parsed value: field -> (option, how).
_DERIVED: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "runs": ("runs", lambda plan: plan.runs),
    "adaptive": ("runs", lambda plan: plan.most is not None),
    "max_runs": ("runs", lambda plan: plan.most or plan.runs),
    "verdict": ("verdict", lambda chosen: chosen[0]),
    "undecided": ("verdict", lambda chosen: chosen[1]),
    "verdict_k": ("verdict", lambda chosen: chosen[2]),
    "batch": ("batch", lambda batch: batch is not None),
    "batch_wait": ("batch", lambda batch: None if batch is None else batch.wait),
    "max_calls": ("budget", lambda budget: int(budget["calls"]) if "calls" in budget else None),
    "max_cost": ("budget", lambda budget: budget.get("usd")),
    "min_pass_rate": ("gates", lambda gates: gates.pass_rate),
    "min_mean": ("gates", lambda gates: gates.mean),
    "min_agreement": ("gates", lambda gates: gates.agreement),
    "min_win_rate": ("gates", lambda gates: gates.win_rate),
    "fail_on_regression": ("gates", lambda gates: gates.regression),
    "gate_undecided": ("gates", lambda gates: gates.undecided or "point"),
    "targets": ("targets", lambda table: None if table is None else table.config),
    "pairwise": ("targets", lambda table: False if table is None else table.pairwise),
    "tie_tolerance": ("targets", lambda table: 0.01 if table is None else table.tie_tolerance),
}


# Settings fields resolved from more than their option's value (or from no option).
RESOLVED_FIELDS = frozenset(
    {"provider", "provider_reason", "model", "base_url", "thresholds", "dimensions", "cache"}
    | {"cache_dir", "price", "runs", "adaptive", "max_runs", "verdict", "undecided", "batch"}
    | {"verdict_k"}
    | {"batch_wait", "max_calls", "max_cost", "min_pass_rate", "min_mean", "min_agreement"}
    | {"min_win_rate", "fail_on_regression", "reports", "targets", "pairwise", "tie_tolerance"}
    | {"gate_undecided", "save_responses", "workers"}  # workers: set per xdist worker
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

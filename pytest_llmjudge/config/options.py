"""The option table: every option as the command line, the environment and the ini file know it.

plugin.py registers these, ``settings.resolve_settings`` resolves them, and the tests and
the README's options table are checked against them. Each parser turns one raw text into a
value or raises ValueError with a reason; the resolver adds where the text came from.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..basics.rubrics import OPTIONAL_DIMENSIONS
from .targets import (
    DEFAULT_BODY,
    DEFAULT_FIELD,
    Target,
    check_body_template,
    parse_headers,
    parse_targets,
)

PROVIDERS = ("auto", "openai", "ollama", "heuristic")
DEFAULT_MODEL = "gpt-4o-mini"
DEFAULT_OLLAMA_MODEL = "llama3.1"
DEFAULT_OLLAMA_HOST = "http://localhost:11434"
DEFAULT_THRESHOLD = 3.5


def _text_list(text: str) -> tuple[str, ...]:
    """Comma-separated values (a repeated flag's values arrive joined by commas)."""
    return tuple(part.strip() for part in text.split(",") if part.strip())


@dataclass(frozen=True)
class Number:
    """A number within bounds, declared once per option: the one range check of the table.

    (Not pydantic: settings are resolved in every pytest session, also those without evals,
    and those import no pydantic; see tests/integration/test_citizen.py.)
    """

    kind: type[int] | type[float]
    at_least: float | None = None
    at_most: float | None = None
    above: float | None = None  # an exclusive lower bound

    def __call__(self, text: str | int | float) -> Any:
        if isinstance(text, bool) or (self.kind is int and isinstance(text, float)):
            raise ValueError(f"must be an integer, got {text!r}")
        try:
            value = self.kind(text)
        except (TypeError, ValueError):
            raise ValueError(f"must be a number, got {text!r}") from None
        if not math.isfinite(value):
            raise ValueError(f"must be a finite number, got {text}")
        if self.above is not None and not value > self.above:
            raise ValueError(f"must be > {self.above:g}, got {text}")
        low, high = self.at_least, self.at_most
        if low is not None and high is not None and not low <= value <= high:
            raise ValueError(f"must be between {low:g} and {high:g}, got {text}")
        if low is not None and not value >= low:
            raise ValueError(f"must be >= {low:g}, got {text}")
        if high is not None and not value <= high:
            raise ValueError(f"must be at most {high:g}, got {text}")
        return value


MAX_RUNS = 100  # more runs per dimension than this is a typo, not a plan
_positive_int = Number(int, at_least=1)
_non_negative_int = Number(int, at_least=0)
_positive_float = Number(float, above=0)
_non_negative_float = Number(float, at_least=0)
_fraction = Number(float, at_least=0, at_most=1)
# The one rule for a number of runs: flag, environment, ini, eval entry and marker.
run_count = Number(int, at_least=1, at_most=MAX_RUNS)
# A threshold on the 1-5 rubric scale.
score_threshold = Number(float, at_least=1, at_most=5)


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


def _targets(text: str) -> tuple[Target, ...] | None:
    return parse_targets(text) or None


def _body_template(text: str) -> str:
    check_body_template(text)
    return text


_DIMENSION_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


def _dimension_files(text: str) -> tuple[tuple[str, str], ...]:
    """``empathy=rubrics/empathy.md,clarity=rubrics/clarity.md`` -> name/path pairs; a
    built-in optional dimension by its name alone (``correctness``: path "")."""
    pairs = []
    for part in text.replace(",", " ").split():
        name, sep, path = part.partition("=")
        if name in OPTIONAL_DIMENSIONS and not sep:
            pairs.append((name, ""))
            continue
        if not sep or not path:
            raise ValueError(f"must look like empathy=rubrics/empathy.md, got {part!r}")
        if not _DIMENSION_NAME.match(name):
            raise ValueError(f"dimension names are lowercase identifiers, not {name!r}")
        pairs.append((name, path))
    return tuple(pairs)


def _named(parse: Callable[[str], float], example: str) -> Callable[[str], dict[str, float]]:
    """A parser of ``name=value,name=value`` pairs, each value read by ``parse``."""

    def named(text: str) -> dict[str, float]:
        values: dict[str, float] = {}
        for part in text.split(","):
            name, sep, value = part.partition("=")
            if not sep or not name.strip():
                raise ValueError(f"must look like {example}, got {text!r}")
            values[name.strip()] = parse(value.strip())
        return values

    return named


# ``relevance=4.0,tone=3.5`` -> {"relevance": 4.0, "tone": 3.5}
_dimension_scores = _named(score_threshold, "relevance=4.0,tone=3.5")


# ``python=0.5,dotnet=0.4``: the least pairwise win rate of targets
_win_rates = _named(_fraction, "python=0.5 (a target and a share)")


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
    repeatable: bool = False  # the flag may be given several times (values joined by commas)
    # The flag and ini name before a rename: still read, so that a configuration keeps working.
    old_flag: str | None = None
    old_ini: str | None = None


# The single table of options; plugin.py registers these, tests and the README refer to them.
OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "runs",
        "--judge-runs",
        "llmjudge_runs",
        "judge runs per dimension (default 1)",
        run_count,
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
        "sampling",
        "--judge-sampling",
        "llmjudge_sampling",
        "how N runs are asked for: choices (N choices in one request), calls (one request "
        "per run) or auto (choices where the server returns them; default)",
        _choice("auto", "choices", "calls"),
        "auto",
        env=("JUDGE_SAMPLING",),
        metavar="MODE",
    ),
    OptionSpec(
        "batch",
        "--judge-batch",
        "llmjudge_batch",
        "judge through the provider's Batch API: every request the session needs in one "
        "batch (about half the price, outside the per-minute limits), kept in the judge "
        "cache so that a later run collects it",
        _boolean,
        False,
        env=("JUDGE_BATCH",),
        is_flag=True,
    ),
    OptionSpec(
        "batch_wait",
        "--judge-batch-wait",
        "llmjudge_batch_wait",
        "seconds to wait for a batch (default: until it is done; 0: submit and exit); "
        "items still pending are errors, and running again collects the batch",
        _non_negative_float,
        None,
        env=("JUDGE_BATCH_WAIT",),
        metavar="SECONDS",
    ),
    OptionSpec(
        "batch_strict",
        "--judge-batch-strict",
        "llmjudge_batch_strict",
        "a request that failed in the batch is its item's error (default: asked directly)",
        _boolean,
        False,
        env=("JUDGE_BATCH_STRICT",),
        is_flag=True,
    ),
    OptionSpec(
        "grouping",
        "--judge-grouping",
        "llmjudge_grouping",
        "dimension: one request per dimension of an item (default); item: one request "
        "judges every dimension of an item at once (fewer requests and tokens; the "
        "dimensions may influence each other)",
        _choice("dimension", "item"),
        "dimension",
        env=("JUDGE_GROUPING",),
        metavar="MODE",
    ),
    OptionSpec(
        "scoring",
        "--judge-scoring",
        "llmjudge_scoring",
        "text: the score the judge wrote; logprobs: the probability-weighted mean of the "
        "score token's alternatives (G-Eval; servers without logprobs fall back to text)",
        _choice("text", "logprobs"),
        "text",
        env=("JUDGE_SCORING",),
        metavar="MODE",
    ),
    OptionSpec(
        "dry_run",
        "--judge-dry-run",
        "llmjudge_dry_run",
        "plan the session and print the requests, tokens and cost it would take; send nothing",
        _boolean,
        False,
        env=("JUDGE_DRY_RUN",),
        is_flag=True,
    ),
    OptionSpec(
        "progress",
        "--judge-progress",
        "llmjudge_progress",
        "judge progress while items wait: in place on a terminal; in a log one line at most "
        "every this many seconds (default 10; 0: off)",
        _non_negative_float,
        10.0,
        env=("JUDGE_PROGRESS",),
        metavar="SECONDS",
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
        "max_tokens",
        "--judge-max-tokens",
        "llmjudge_max_tokens",
        "completion tokens one judge reply may use: a score and a short reasoning fit "
        "(default 256; 0: no limit sent; reasoning models need more)",
        _non_negative_int,
        256,
        env=("JUDGE_MAX_TOKENS",),
        metavar="N",
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
        "invalid eval entries and entries with suspected prompt injection are errors "
        "instead of skips and flags",
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
        run_count,
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
        "undecided",
        "--judge-undecided",
        "llmjudge_undecided",
        "outcome of an item the confident verdict cannot decide (its interval holds the "
        "threshold): fail, pass or xfail (default fail)",
        _choice("fail", "pass", "xfail"),
        "fail",
        env=("JUDGE_UNDECIDED", "JUDGE_UNSTABLE"),
        metavar="OUTCOME",
        old_flag="--judge-unstable",
        old_ini="llmjudge_unstable",
    ),
    OptionSpec(
        "checks_mode",
        "--judge-checks",
        "llmjudge_checks_mode",
        "first: an item whose deterministic checks fail is failed and not judged (no request, "
        "no cost); always: it is judged too (default first)",
        _choice("first", "always"),
        "first",
        env=("JUDGE_CHECKS",),
        metavar="WHEN",
    ),
    OptionSpec(
        "pairwise",
        "--judge-pairwise",
        "llmjudge_pairwise",
        "with two or more targets: the judge also compares each pair of answers side by "
        "side, in both orders, per dimension (a win rate with its interval per pair)",
        _boolean,
        False,
        env=("JUDGE_PAIRWISE",),
        is_flag=True,
    ),
    OptionSpec(
        "min_win_rate",
        "--judge-min-win-rate",
        "llmjudge_min_win_rate",
        "with --judge-pairwise: fail the session when a target's win rate over every other "
        "target is lower: NAME=0.5 (may be given several times; env and ini: comma-separated)",
        _win_rates,
        None,
        env=("JUDGE_MIN_WIN_RATE",),
        metavar="TARGET=RATE",
        repeatable=True,
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
        "reports",
        "--judge-report",
        "llmjudge_report",
        "write a report: HTML for a .html/.htm path, markdown otherwise; may be given "
        "several times (env and ini: comma-separated)",
        _text_list,
        (),
        env=("JUDGE_REPORT",),
        metavar="PATH",
        repeatable=True,
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
        "seconds a target may take to answer (default 30)",
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
        "write the targets' answers as static eval files into this directory",
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
        "extra dimensions judged on every item: name=rubric-file,..., or correctness (built "
        "in: against each entry's reference answer)",
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

# Hostile inputs.
DEFAULT_MAX_INPUT_CHARS = 100_000  # ticket + response: fits common context windows

OPTIONS += (
    OptionSpec(
        "max_input_chars",
        "--judge-max-input-chars",
        "llmjudge_max_input_chars",
        "longest ticket + response sent to the judge, in characters; longer ones are errors "
        f"(default {DEFAULT_MAX_INPUT_CHARS})",
        _positive_int,
        DEFAULT_MAX_INPUT_CHARS,
        env=("JUDGE_MAX_INPUT_CHARS",),
        metavar="N",
    ),
)

# Judge identity.
OPTIONS += (
    OptionSpec(
        "baseline_strict",
        "--judge-baseline-strict",
        "llmjudge_baseline_strict",
        "a baseline made by another judge (provider, model, rubric...) is an error",
        _boolean,
        False,
        env=("JUDGE_BASELINE_STRICT",),
        is_flag=True,
    ),
    OptionSpec(
        "require_llm",
        "--judge-require-llm",
        "llmjudge_require_llm",
        "no automatic fallback to the heuristic judge: without a model, stop at start",
        _boolean,
        False,
        env=("JUDGE_REQUIRE_LLM",),
        is_flag=True,
    ),
)

AGREEMENT_METRICS = ("spearman", "kappa", "exact", "within_one")


def _agreement_minimums(text: str) -> dict[str, float]:
    """``spearman=0.6,kappa=0.5`` -> {"spearman": 0.6, "kappa": 0.5}."""
    minimums: dict[str, float] = {}
    for part in text.split(","):
        name, sep, value = part.partition("=")
        if not sep or name.strip() not in AGREEMENT_METRICS:
            raise ValueError(
                f"must look like spearman=0.6,kappa=0.5 (metrics: {', '.join(AGREEMENT_METRICS)}),"
                f" got {part.strip()!r}"
            )
        number = float(value)
        if not -1 <= number <= 1:
            raise ValueError(f"{name.strip()} must be between -1 and 1, got {value.strip()}")
        minimums[name.strip()] = number
    return minimums


# Agreement with human labels.
OPTIONS += (
    OptionSpec(
        "min_agreement",
        "--judge-min-agreement",
        "llmjudge_min_agreement",
        "fail the session when the judge agrees less with the human labels (spearman=0.6,...)",
        _agreement_minimums,
        None,
        env=("JUDGE_MIN_AGREEMENT",),
        metavar="METRIC=VALUE,...",
    ),
    OptionSpec(
        "label_margin",
        "--judge-label-margin",
        "llmjudge_label_margin",
        "flag items whose judged mean is further than this from their label (default 1)",
        _non_negative_float,
        1.0,
        env=("JUDGE_LABEL_MARGIN",),
        metavar="SCORE",
    ),
)

# Traces and logs.
OPTIONS += (
    OptionSpec(
        "trace",
        "--judge-trace",
        "llmjudge_trace",
        "write one JSON line per judge request (messages, raw reply, score, latency, tokens)",
        _text,
        None,
        env=("JUDGE_TRACE",),
        metavar="PATH",
    ),
    OptionSpec(
        "log_dir",
        "--judge-log-dir",
        "llmjudge_log_dir",
        "write a timestamped log of the session (warnings, errors, retries) into this folder",
        _text,
        None,
        env=("JUDGE_LOG_DIR",),
        metavar="DIR",
    ),
)

OPTIONS_BY_DEST = {spec.dest: spec for spec in OPTIONS}

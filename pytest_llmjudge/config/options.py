"""The option table: every setting as the ini file knows it, and the few that are also a
``--judge-*`` flag (what a person changes from one session to the next) or an environment
variable.

plugin.py registers these, ``settings.resolve_settings`` resolves them, and the tests and
docs/configuration.md are compared with them. Each parser turns one raw text into a value
or raises ValueError with a reason; the resolver adds where the text came from. The names
that were cut live in ``removed``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

from ..basics.rubrics import DEFAULT_ASSISTANT, OPTIONAL_DIMENSIONS
from .targets import TargetTable, parse_target_table

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
    """A number within bounds, declared once per option: the table's one range validation.

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


def _pairs(text: str) -> list[tuple[str, str]]:
    """``a=1, b=2`` or ``a=1 b=2`` (or one a line) -> [("a", "1"), ("b", "2")]; a word
    without ``=`` comes back with an empty value."""
    pairs = []
    for part in re.sub(r"\s*=\s*", "=", text).replace(",", " ").split():
        name, _, value = part.partition("=")
        pairs.append((name, value))
    return pairs


def dimension_scores(text: str) -> dict[str, float]:
    """``relevance=4 tone=3.5`` (commas or spaces) -> {"relevance": 4.0, "tone": 3.5}."""
    scores: dict[str, float] = {}
    for name, value in _pairs(text):
        if not name or not value:
            raise ValueError(f"must look like relevance=4 tone=3.5, got {text.strip()!r}")
        scores[name] = score_threshold(value)
    return scores


@dataclass(frozen=True)
class RunPlan:
    """``--judge-runs``: runs per dimension, and with ``N..M`` up to M for uncertain items."""

    runs: int
    most: int | None = None  # adaptive: extra runs, up to this many, where a verdict is close


def run_plan(text: str) -> RunPlan:
    """``3`` -> 3 runs; ``3..7`` -> 3 runs, up to 7 for an item whose verdict is uncertain."""
    first, sep, last = str(text).strip().partition("..")
    runs = run_count(first)
    if not sep:
        return RunPlan(runs)
    most = run_count(last)
    if most <= runs:
        raise ValueError(f"N..M needs M > N (at most M runs for uncertain items), got {text!r}")
    return RunPlan(runs, most)


def _provider(text: str) -> str:
    """A provider's name, or the URL of an OpenAI-compatible server (its base URL)."""
    value = text.strip()
    if value.startswith(("http://", "https://")):
        return value
    return _choice(*PROVIDERS)(value)


@dataclass(frozen=True)
class CacheChoice:
    on: bool | None  # None: the default (on for LLM judges)
    folder: str | None = None


def _cache(text: str) -> CacheChoice:
    """``true``/``false``, or a folder (on, kept there)."""
    try:
        return CacheChoice(_boolean(text))
    except ValueError:
        return CacheChoice(True, text.strip())


# What ``strict`` turns from a warning (and going on) into an error.
STRICT_KINDS = {
    "injection": "an item whose judged text holds suspected prompt injection (else flagged)",
    "flaky": "a flaky_eval test below its threshold (else xfail)",
    "baseline": "a baseline judged by another judge (provider, model, rubric...)",
    "batch": "a request that failed in a batch (else asked directly)",
    "fallback": "no LLM judge configured (else the offline heuristic judge)",
    "offline": "a dimension the offline judge does not score (else left unjudged and said once)",
}


def strict_kinds(text: str) -> frozenset[str]:
    """``true`` -> every kind; ``false`` -> none; else the kinds named (``entries baseline``)."""
    try:
        return frozenset(STRICT_KINDS) if _boolean(text) else frozenset()
    except ValueError:
        pass
    kinds = [name for name, _ in _pairs(text)]
    from .removed import REMOVED_WORDS  # (a session that sets no strict word never reads it)

    for kind in kinds:
        if (word := REMOVED_WORDS.get(("strict", kind))) is not None:
            raise ValueError(word.error())
    unknown = [kind for kind in kinds if kind not in STRICT_KINDS]
    if unknown:
        raise ValueError(
            f"must be true, false or some of {', '.join(STRICT_KINDS)}, got {unknown[0]!r}"
        )
    return frozenset(kinds)


@dataclass(frozen=True)
class BatchChoice:
    wait: float | None = None  # seconds to wait for the batch; None: until it is done


def _batch(text: str) -> BatchChoice | None:
    """``false`` -> no batch; ``true`` -> wait until done; a number -> wait that many seconds
    (``0``: submit and exit), so a number is never read as a switch."""
    try:
        return BatchChoice(_non_negative_float(text))
    except ValueError:
        pass
    if text.strip().lower() in ("true", "yes", "on", "false", "no", "off", ""):
        return BatchChoice() if _boolean(text) else None
    raise ValueError(f"must be true, false or seconds to wait, got {text!r}")


def _budget(text: str) -> dict[str, float]:
    """``calls=500 usd=2.5``: no new judge calls once either is reached."""
    budget: dict[str, float] = {}
    for name, value in _pairs(text):
        if name == "calls":
            budget[name] = _positive_int(value)
        elif name == "usd":
            budget[name] = _positive_float(value)
        else:
            raise ValueError(f"must look like calls=500 usd=2.5, got {name!r}")
    return budget


def _verdict(text: str) -> tuple[str, str, int | None]:
    """``mean``, ``confident``, ``confident undecided=xfail`` or ``k_of_n k=2`` ->
    (verdict, undecided, k)."""
    words = _pairs(text)
    verdict = _choice("mean", "confident", "k_of_n")(words[0][0] if words else "")
    undecided, k = "fail", None
    for name, value in words[1:]:
        if (name, verdict) == ("undecided", "confident"):
            undecided = _choice("fail", "pass", "xfail")(value)
        elif (name, verdict) == ("k", "k_of_n"):
            k = _positive_int(value)
        else:
            raise ValueError(f"must be {VERDICT_EXAMPLE}, got {text!r}")
    if verdict == "k_of_n" and k is None:
        raise ValueError(f"k_of_n needs k=K (the runs that must pass), got {text!r}")
    return verdict, undecided, k


VERDICT_EXAMPLE = "mean, confident [undecided=fail|pass|xfail], or k_of_n k=K"


AGREEMENT_METRICS = ("spearman", "kappa", "exact", "within_one")


@dataclass(frozen=True)
class Gates:
    """The suite gates: any one that fails fails the session."""

    pass_rate: float | None = None
    mean: dict[str, float] | None = None  # dimension -> least suite mean
    agreement: dict[str, float] | None = None  # metric -> least agreement with labels
    win_rate: dict[str, float] | None = None  # target -> least pairwise win rate
    regression: bool = False  # a significant drop against the baseline (suite or an item)
    # how a gate whose interval holds its bound counts: point|fail|pass (None: not said, point)
    undecided: str | None = None


GATES_EXAMPLE = "pass_rate=0.9 mean.relevance=4 spearman=0.6 win_rate.python=0.5 regression"


def gates(text: str) -> Gates:
    """``pass_rate=0.9 mean.relevance=4 spearman=0.6 win_rate.python=0.5 regression``."""
    found: dict[str, Any] = {}
    for name, value in _pairs(text):
        kind, _, which = name.partition(".")
        if name == "regression" and not value:
            found["regression"] = True
        elif name == "pass_rate" and value:
            found["pass_rate"] = _fraction(value)
        elif kind == "mean" and which and value:
            found.setdefault("mean", {})[which] = score_threshold(value)
        elif kind == "win_rate" and which and value:
            found.setdefault("win_rate", {})[which] = _fraction(value)
        elif name == "undecided" and value:
            found["undecided"] = _choice("point", "fail", "pass")(value)
        elif name in AGREEMENT_METRICS and value:
            number = Number(float, at_least=-1, at_most=1)(value)
            found.setdefault("agreement", {})[name] = number
        else:
            raise ValueError(f"must look like {GATES_EXAMPLE}, got {name!r}")
    return Gates(**found)


def added(low: Any, high: Any) -> Any:
    """Two values of a per-name option (gates, thresholds) as one: every name of either, the
    higher source's value where both name it."""
    if isinstance(low, dict):
        return {**low, **high}
    merged = {}
    for name in (f.name for f in fields(low)):
        a, b = getattr(low, name), getattr(high, name)
        if isinstance(a, bool):
            merged[name] = a or b
        elif isinstance(a, dict) or isinstance(b, dict):
            merged[name] = {**(a or {}), **(b or {})}
        else:
            merged[name] = a if b is None else b
    return type(low)(**merged)


def _target_table(text: str) -> TargetTable | None:
    return parse_target_table(text) or None


@dataclass(frozen=True)
class OptionSpec:
    """One setting: its ini key, and its flag and environment variables where it has them."""

    dest: str
    ini: str | None
    help: str
    parse: Callable[[str], Any]
    default: Any
    flag: str | None = None  # only for what a person changes from one session to the next
    env: tuple[str, ...] = ()  # only the names CI scripts already set (docs/configuration.md)
    metavar: str | None = None
    is_flag: bool = False  # a switch: store_true (store_false with ``negated``)
    negated: bool = False  # --judge-no-cache turns the setting off
    flag_help: str | None = None  # the flag's own help where it does not take the ini's values
    repeatable: bool = False  # the flag may be given several times (values joined by commas)
    # a per-name option (gates, thresholds): each source adds its names to the lower ones'
    merge: Callable[[Any, Any], Any] | None = None


DEFAULT_MAX_INPUT_CHARS = 100_000  # ticket + response: fits common context windows

# The single table of options; plugin.py registers these, tests and the docs refer to them.
# First the flags, then the ini keys alone.
OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "runs",
        "llmjudge_runs",
        "judge runs per dimension (default 1); N..M: N runs, and up to M for an item whose "
        "verdict is uncertain (adaptive runs)",
        run_plan,
        RunPlan(1),
        flag="--judge-runs",
        env=("JUDGE_RUNS",),
        metavar="N[..M]",
    ),
    OptionSpec(
        "provider",
        "llmjudge_provider",
        "judge provider: auto, openai, ollama, heuristic, or the URL of an OpenAI-compatible "
        "server (default auto)",
        _provider,
        "auto",
        flag="--judge-provider",
        env=("JUDGE_PROVIDER",),
        metavar="NAME|URL",
    ),
    OptionSpec(
        "model",
        "llmjudge_model",
        f"judge model (default {DEFAULT_MODEL}; {DEFAULT_OLLAMA_MODEL} for ollama)",
        _text,
        None,
        flag="--judge-model",
        env=("OPENAI_MODEL",),
        metavar="MODEL",
    ),
    OptionSpec(
        "thresholds",
        "llmjudge_thresholds",
        f"minimum mean score of a dimension, 1-5 (default {DEFAULT_THRESHOLD:g}); may be "
        "given several times (ini: relevance=4 tone=3.5)",
        dimension_scores,
        None,
        flag="--judge-threshold",
        metavar="DIM=SCORE",
        repeatable=True,
        merge=added,
    ),
    OptionSpec(
        "output",
        "llmjudge_output",
        "results JSON path (default results/output.json)",
        _text,
        "results/output.json",
        flag="--judge-output",
        metavar="PATH",
    ),
    OptionSpec(
        "reports",
        "llmjudge_report",
        "write a report: HTML for a .html/.htm path, markdown otherwise; may be given "
        "several times (ini: comma-separated)",
        _text_list,
        (),
        flag="--judge-report",
        metavar="PATH",
        repeatable=True,
    ),
    OptionSpec(
        "baseline",
        "llmjudge_baseline",
        "compare with an earlier results JSON",
        _text,
        None,
        flag="--judge-baseline",
        metavar="PATH",
    ),
    OptionSpec(
        "dry_run",
        None,
        "plan the session and print the requests, tokens and cost it would take; send nothing",
        _boolean,
        False,
        flag="--judge-dry-run",
        is_flag=True,
    ),
    OptionSpec(
        "cache",
        "llmjudge_cache",
        "reuse judgments of unchanged cases: true, false, or the cache folder (default: on for "
        "LLM judges, in pytest's cache dir)",
        _cache,
        CacheChoice(None),
        flag="--judge-no-cache",
        is_flag=True,
        negated=True,
        flag_help="judge every run afresh: read nothing from the judge cache and write nothing "
        "to it (ini llmjudge_cache: true, false, or the cache folder)",
    ),
    OptionSpec(
        "concurrency",
        "llmjudge_concurrency",
        "judge calls in flight at once (default 8)",
        _positive_int,
        8,
        flag="--judge-concurrency",
        metavar="N",
    ),
    OptionSpec(
        "strict",
        "llmjudge_strict",
        "turn every warning that lets a session go on into an error (ini: true, or some of "
        f"{', '.join(STRICT_KINDS)})",
        strict_kinds,
        frozenset(),
        flag="--judge-strict",
        is_flag=True,
    ),
    # ini keys only (one session: -o llmjudge_<name>=<value>)
    OptionSpec(
        "sampling",
        "llmjudge_sampling",
        "how N runs are asked for: choices (N choices in one request), calls (one request "
        "per run) or auto (choices where the server returns them; default)",
        _choice("auto", "choices", "calls"),
        "auto",
    ),
    OptionSpec(
        "batch",
        "llmjudge_batch",
        "judge through the provider's Batch API (about half the price): true (wait until it is "
        "done), seconds to wait (0: submit and exit; a later run collects it) or false (default)",
        _batch,
        None,
    ),
    OptionSpec(
        "grouping",
        "llmjudge_grouping",
        "dimension: one request per dimension of an item (default); item: one request "
        "judges every dimension of an item at once",
        _choice("dimension", "item"),
        "dimension",
    ),
    OptionSpec(
        "scoring",
        "llmjudge_scoring",
        "text: the score the judge wrote (default); logprobs: the probability-weighted mean of "
        "the score token's alternatives (G-Eval; servers without logprobs fall back to text)",
        _choice("text", "logprobs"),
        "text",
    ),
    OptionSpec(
        "progress",
        "llmjudge_progress",
        "judge progress while items wait: in place on a terminal; in a log one line at most "
        "every this many seconds (default 10; 0: off)",
        _non_negative_float,
        10.0,
    ),
    OptionSpec(
        "timeout",
        "llmjudge_timeout",
        "seconds one judge call may take (default 60)",
        _positive_float,
        60.0,
    ),
    OptionSpec(
        "max_tokens",
        "llmjudge_max_tokens",
        "completion tokens one judge reply may use (default 256; 0: no limit sent)",
        _non_negative_int,
        256,
    ),
    OptionSpec(
        "max_retries",
        "llmjudge_max_retries",
        "retries of a failed judge call (default 4)",
        _non_negative_int,
        4,
    ),
    OptionSpec(
        "retry_wait",
        "llmjudge_retry_wait",
        "first backoff between retries in seconds, doubling (default 1)",
        _non_negative_float,
        1.0,
    ),
    OptionSpec(
        "temperature",
        "llmjudge_temperature",
        "sampling temperature of the judge (default: the server's)",
        _non_negative_float,
        None,
    ),
    OptionSpec(
        "budget",
        "llmjudge_budget",
        "make no new judge calls once this many were made or USD spent: calls=500 usd=2.5",
        _budget,
        {},
    ),
    OptionSpec(
        "verdict",
        "llmjudge_verdict",
        "mean: pass when mean >= threshold (default); confident: when the 95 percent "
        "confidence interval clears it, with undecided=fail|pass|xfail for the rest; "
        "k_of_n k=2: when at least 2 of the runs judged are at or above it",
        _verdict,
        ("mean", "fail", None),
    ),
    OptionSpec(
        "adaptive_margin",
        "llmjudge_adaptive_margin",
        "with runs N..M (adaptive): a mean this close to its threshold is uncertain (default 0.5)",
        _non_negative_float,
        0.5,
    ),
    OptionSpec(
        "checks_mode",
        "llmjudge_checks_mode",
        "first: an item whose deterministic checks fail is failed and not judged (default); "
        "always: it is judged too",
        _choice("first", "always"),
        "first",
    ),
    OptionSpec(
        "gates",
        "llmjudge_gates",
        f"suite gates that fail the session: {GATES_EXAMPLE}",
        gates,
        Gates(),
        merge=added,
    ),
    OptionSpec(
        "label_margin",
        "llmjudge_label_margin",
        "flag items whose judged mean is further than this from their label (default 1)",
        _non_negative_float,
        1.0,
    ),
    OptionSpec(
        "targets",
        "llmjudge_targets",
        "live bots to judge instead of stored responses, one table: name=URL ..., and lines "
        "body=, field=, headers=, timeout=, pairwise=, tie_tolerance=, save_responses=",
        _target_table,
        None,
    ),
    OptionSpec(
        "dimensions",
        "llmjudge_dimensions",
        "dimensions judged on every item: name=rubric-file ..., or correctness; "
        "relevance= or tone= with a file replaces that built-in rubric",
        _dimension_files,
        (),
    ),
    OptionSpec(
        "assistant",
        "llmjudge_assistant",
        "whose replies the LLM judge judges, as its role line says it "
        f"(default: {DEFAULT_ASSISTANT}): a ferry operator's help desk",
        _text,
        DEFAULT_ASSISTANT,
    ),
    OptionSpec(
        "max_input_chars",
        "llmjudge_max_input_chars",
        "longest ticket + response sent to the judge, in characters; longer ones are errors "
        f"(default {DEFAULT_MAX_INPUT_CHARS})",
        _positive_int,
        DEFAULT_MAX_INPUT_CHARS,
    ),
    OptionSpec(
        "trace",
        "llmjudge_trace",
        "write one JSON line per judge request (messages, raw reply, score, latency, tokens)",
        _text,
        None,
    ),
    OptionSpec(
        "log_dir",
        "llmjudge_log_dir",
        "write a timestamped log of the session (warnings, errors, retries) into this folder",
        _text,
        None,
    ),
)

OPTIONS_BY_DEST = {spec.dest: spec for spec in OPTIONS}
# Registered by plugin.py with their own types (lists), read by the modules that use them.
EXTRA_INI_KEYS = ("llmjudge_paths", "llmjudge_file_patterns", "llmjudge_prices", "llmjudge_checks")
INI_KEYS = (*(spec.ini for spec in OPTIONS if spec.ini), *EXTRA_INI_KEYS)
FLAGS = tuple(spec.flag for spec in OPTIONS if spec.flag)

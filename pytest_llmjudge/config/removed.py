"""The names cut from the option surface (issue 42), each with what replaces it.

One table feeds the command line's validation (a removed flag is a usage error naming its
replacement), the ini file's (the same for a removed key), the warning for a ``JUDGE_*``
variable that is set but no longer read, and the table in docs/configuration.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Cut:
    """A removed flag, ini key and/or environment variable, and what to write instead."""

    flag: str | None
    ini: str | None
    env: str | None
    command_line: str  # the replacement on the command line (or in PYTEST_ADDOPTS)
    ini_file: str  # the replacement in the ini file

    def flag_error(self) -> str:
        return f"{self.flag} was removed: use {self.command_line}"

    def ini_error(self) -> str:
        return f"ini option {self.ini} was removed: use {self.ini_file}"

    def env_warning(self) -> str:
        return (
            f"{self.env} is no longer read: use {self.ini_file} in the ini file, or "
            f"{self.command_line} in PYTEST_ADDOPTS"
        )


def _key(key: str, value: str, flag: str | None = None, env: str | None = None) -> Cut:
    """A flag whose setting is now an ini key of the same name only."""
    ini = f"llmjudge_{key}"
    return Cut(flag, None, env, f"-o {ini}={value}", f"{ini} = {value}")


def _into(flag: str | None, ini: str | None, env: str | None, key: str, value: str) -> Cut:
    """A setting merged into another key: ``key = value`` says it there."""
    quoted = f"'llmjudge_{key}={value}'" if " " in value else f"llmjudge_{key}={value}"
    return Cut(flag, ini, env, f"-o {quoted}", f"llmjudge_{key} = {value}")


def _merged(name: str, key: str, value: str) -> Cut:
    """``--judge-<name>``, ``llmjudge_<name>`` and ``JUDGE_<NAME>``, merged into ``key``."""
    snake = name.replace("-", "_")
    return _into(f"--judge-{name}", f"llmjudge_{snake}", f"JUDGE_{snake.upper()}", key, value)


def _runs(name: str, note: str) -> Cut:
    """Adaptive runs, now part of how runs are asked: ``--judge-runs N..M``."""
    snake = name.replace("-", "_")
    flag, ini, env = f"--judge-{name}", f"llmjudge_{snake}", f"JUDGE_{snake.upper()}"
    return Cut(flag, ini, env, f"--judge-runs=N..M ({note})", "llmjudge_runs = N..M")


def _flag(flag: str, env: str, ini_key: str, value: str) -> Cut:
    """A flag that stays, whose environment variable is gone."""
    return Cut(None, None, env, f"{flag}={value}", f"llmjudge_{ini_key} = {value}")


def _table(flag: str, ini: str, env: str, setting: str) -> Cut:
    """A target setting, now a line or word of the ``llmjudge_targets`` table."""
    where = f"{setting} in llmjudge_targets"
    if " = " in setting:  # a value with spaces: a line of its own, in the ini file
        return Cut(flag, ini, env, f"a line {where} (ini file)", f"a line {where}")
    return Cut(flag, ini, env, f"-o 'llmjudge_targets=NAME=URL ... {setting}'", where)


def _strict(flag: str, ini: str, env: str, kind: str) -> Cut:
    """One kind of strict, now a word of ``llmjudge_strict`` (the flag turns on every kind)."""
    instead = f"--judge-strict (every kind), or -o llmjudge_strict={kind}"
    return Cut(flag, ini, env, instead, f"llmjudge_strict = {kind}")


CUTS: tuple[Cut, ...] = (
    Cut(
        "--judge-base-url",
        "llmjudge_base_url",
        None,
        "--judge-provider=URL (or OPENAI_BASE_URL)",
        "llmjudge_provider = URL",
    ),
    Cut(
        "--judge-min-relevance",
        "llmjudge_min_relevance",
        "JUDGE_MIN_RELEVANCE",
        "--judge-threshold relevance=SCORE",
        "llmjudge_thresholds = relevance=SCORE",
    ),
    Cut(
        "--judge-min-tone",
        "llmjudge_min_tone",
        "JUDGE_MIN_TONE",
        "--judge-threshold tone=SCORE",
        "llmjudge_thresholds = tone=SCORE",
    ),
    Cut(
        "--judge-thresholds",
        None,
        "JUDGE_THRESHOLDS",
        "--judge-threshold DIM=SCORE (once per dimension)",
        "llmjudge_thresholds = DIM=SCORE ...",
    ),
    _key("sampling", "MODE", "--judge-sampling", "JUDGE_SAMPLING"),
    _key("batch", "true", "--judge-batch", "JUDGE_BATCH"),
    _merged("batch-wait", "batch", "SECONDS"),
    _strict("--judge-batch-strict", "llmjudge_batch_strict", "JUDGE_BATCH_STRICT", "batch"),
    _key("grouping", "MODE", "--judge-grouping", "JUDGE_GROUPING"),
    _key("scoring", "MODE", "--judge-scoring", "JUDGE_SCORING"),
    _key("progress", "SECONDS", "--judge-progress", "JUDGE_PROGRESS"),
    _key("timeout", "SECONDS", "--judge-timeout", "JUDGE_TIMEOUT"),
    _key("max_tokens", "N", "--judge-max-tokens", "JUDGE_MAX_TOKENS"),
    _key("max_retries", "N", "--judge-max-retries", "JUDGE_MAX_RETRIES"),
    _key("retry_wait", "SECONDS", "--judge-retry-wait", "JUDGE_RETRY_WAIT"),
    _key("temperature", "T", "--judge-temperature", "JUDGE_TEMPERATURE"),
    _key("cache", "true", "--judge-cache", "JUDGE_CACHE"),
    _merged("cache-dir", "cache", "DIR"),
    _merged("max-calls", "budget", "calls=N"),
    _merged("max-cost", "budget", "usd=USD"),
    _strict("--judge-strict-flaky", "llmjudge_strict_flaky", "JUDGE_STRICT_FLAKY", "flaky"),
    _runs("adaptive", "N runs, up to M where uncertain"),
    _runs("max-runs", "M: the most runs"),
    _key("adaptive_margin", "SCORE", "--judge-adaptive-margin", "JUDGE_ADAPTIVE_MARGIN"),
    _key("verdict", "MODE", "--judge-verdict", "JUDGE_VERDICT"),
    _merged("undecided", "verdict", "confident undecided=OUTCOME"),
    _merged("unstable", "verdict", "confident undecided=OUTCOME"),
    _key("checks_mode", "WHEN", "--judge-checks", "JUDGE_CHECKS"),
    _table("--judge-pairwise", "llmjudge_pairwise", "JUDGE_PAIRWISE", "pairwise=true"),
    _merged("min-win-rate", "gates", "win_rate.TARGET=RATE"),
    _merged("min-pass-rate", "gates", "pass_rate=RATE"),
    _merged("min-mean", "gates", "mean.DIM=SCORE"),
    _merged("min-agreement", "gates", "METRIC=VALUE (spearman=0.6)"),
    _merged("fail-on-regression", "gates", "regression"),
    _into("--judge-targets", None, "JUDGE_TARGETS", "targets", "NAME=URL ..."),
    _table("--judge-target-body", "llmjudge_target_body", "JUDGE_TARGET_BODY", "body = JSON"),
    _table("--judge-target-field", "llmjudge_target_field", "JUDGE_TARGET_FIELD", "field=PATH"),
    _table(
        "--judge-target-headers",
        "llmjudge_target_headers",
        "JUDGE_TARGET_HEADERS",
        "headers = NAME: VALUE; ...",
    ),
    _table(
        "--judge-target-timeout",
        "llmjudge_target_timeout",
        "JUDGE_TARGET_TIMEOUT",
        "timeout=SECONDS",
    ),
    _table(
        "--judge-tie-tolerance",
        "llmjudge_tie_tolerance",
        "JUDGE_TIE_TOLERANCE",
        "tie_tolerance=SCORE",
    ),
    _table(
        "--judge-save-responses",
        "llmjudge_save_responses",
        "JUDGE_SAVE_RESPONSES",
        "save_responses=DIR",
    ),
    _key("dimensions", "NAME=FILE", "--judge-dimensions", "JUDGE_DIMENSIONS"),
    _key("max_input_chars", "N", "--judge-max-input-chars", "JUDGE_MAX_INPUT_CHARS"),
    _strict(
        "--judge-baseline-strict", "llmjudge_baseline_strict", "JUDGE_BASELINE_STRICT", "baseline"
    ),
    _strict("--judge-require-llm", "llmjudge_require_llm", "JUDGE_REQUIRE_LLM", "fallback"),
    _key("label_margin", "SCORE", "--judge-label-margin", "JUDGE_LABEL_MARGIN"),
    _key("trace", "PATH", "--judge-trace", "JUDGE_TRACE"),
    _key("log_dir", "DIR", "--judge-log-dir", "JUDGE_LOG_DIR"),
    # The flags that stay lose their environment variables (PYTEST_ADDOPTS carries flags).
    _flag("--judge-output", "JUDGE_OUTPUT", "output", "PATH"),
    _flag("--judge-report", "JUDGE_REPORT", "report", "PATH"),
    _flag("--judge-baseline", "JUDGE_BASELINE", "baseline", "PATH"),
    _flag("--judge-concurrency", "JUDGE_CONCURRENCY", "concurrency", "N"),
    Cut(None, None, "JUDGE_STRICT", "--judge-strict", "llmjudge_strict = true"),
    Cut(
        None,
        "llmjudge_dry_run",
        "JUDGE_DRY_RUN",
        "--judge-dry-run",
        "--judge-dry-run on the command line (a plan is asked for one run)",
    ),
)


@dataclass(frozen=True)
class CutWord:
    """A word removed from the values an ini key (or its flag) takes, and what replaced it."""

    key: str  # the setting, as in llmjudge_<key>
    word: str
    instead: str

    def error(self) -> str:
        return f"{self.word!r} was removed: {self.instead}"


CUT_WORDS: tuple[CutWord, ...] = (
    CutWord(
        "strict",
        "entries",
        "an invalid entry always ends the session red now; for suspected prompt "
        "injection, use llmjudge_strict = injection",
    ),
)

REMOVED_WORDS = {(cut.key, cut.word): cut for cut in CUT_WORDS}
REMOVED_FLAGS = {cut.flag: cut for cut in CUTS if cut.flag}
REMOVED_INI_KEYS = {cut.ini: cut for cut in CUTS if cut.ini}
REMOVED_ENV = {cut.env: cut for cut in CUTS if cut.env}


def removed_flag_errors(args: Iterable[str]) -> list[str]:
    """One line for each removed flag on a command line (``--flag`` or ``--flag=value``)."""
    lines = []
    for arg in args:
        if arg == "--":
            break
        cut = REMOVED_FLAGS.get(arg.partition("=")[0])
        if cut is not None and cut.flag_error() not in lines:
            lines.append(cut.flag_error())
    return lines


def removed_env_warnings(env: Mapping[str, str]) -> list[str]:
    """One line for each ``JUDGE_*`` variable that is set and no longer read."""
    return [REMOVED_ENV[name].env_warning() for name in sorted(REMOVED_ENV) if name in env]

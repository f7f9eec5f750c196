"""Deterministic checks run on an answer: exact, free and instant, before any judge call.

``run_checks`` gives one ``CheckResult`` per check; ``checks_sentence`` the line a failed item
shows (``check failed: contains "reset link": not found; max_words 120: got 187``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..evalfiles.checks import CheckSpec, python_check
from ..schema.items import CheckResult

REGEX_SECONDS = 1.0  # a pattern that backtracks past this on an answer is a check error


def run_checks(
    checks: Sequence[CheckSpec],
    answer: str,
    entry: Mapping[str, Any],
    latency_ms: float | None = None,
    rootdir: Path | None = None,
) -> list[CheckResult]:
    """Every check of the answer, in order (none stops the others)."""
    return [_run(check, answer, entry, latency_ms, rootdir) for check in checks]


def _run(
    check: CheckSpec,
    answer: str,
    entry: Mapping[str, Any],
    latency_ms: float | None,
    rootdir: Path | None,
) -> CheckResult:
    result = CheckResult(name=check.name, kind=check.kind, expected=check.expected, passed=True)
    try:
        passed, detail = _evaluate(check, answer, entry, latency_ms, rootdir)
    except CheckError as exc:
        return result.model_copy(update={"passed": False, "error": True, "detail": str(exc)})
    return result.model_copy(update={"passed": passed, "detail": detail})


class CheckError(Exception):
    """The check could not run on this answer."""


def _evaluate(
    check: CheckSpec,
    answer: str,
    entry: Mapping[str, Any],
    latency_ms: float | None,
    rootdir: Path | None,
) -> tuple[bool | None, str]:
    kind = check.kind
    if kind in ("contains", "not_contains", "contains_any", "contains_all"):
        return _contains(check, answer)
    if kind in ("equals", "starts_with"):
        text, wanted = _cased(check, answer.strip()), _cased(check, check.expected.strip())
        ok = text == wanted if kind == "equals" else text.startswith(wanted)
        return ok, "" if ok else f'got "{_excerpt(answer.strip())}"'
    if kind in ("regex", "not_regex"):
        return _regex(check, answer)
    if kind in ("min_words", "max_words", "max_chars"):
        count = len(answer) if kind == "max_chars" else len(answer.split())
        ok = count >= check.expected if kind == "min_words" else count <= check.expected
        return ok, f"got {count}"
    if kind == "max_latency_ms":
        if latency_ms is None:
            return None, "not applicable: a stored answer has no latency (a target's has)"
        return latency_ms <= check.expected, f"took {latency_ms:.0f} ms"
    if kind in ("is_json", "json_schema"):
        return _json(check, answer)
    return _python(check, answer, entry, rootdir)


def _cased(check: CheckSpec, text: str) -> str:
    return text.casefold() if check.insensitive else text


def _excerpt(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _contains(check: CheckSpec, answer: str) -> tuple[bool, str]:
    text = _cased(check, answer)
    found = [t for t in check.texts if _cased(check, t) in text]
    missing = [t for t in check.texts if t not in found]
    if check.kind == "not_contains":
        return not found, f'found "{found[0]}"' if found else ""
    if check.kind == "contains_any":
        return bool(found), "" if found else "none found"
    return not missing, f'not found: "{missing[0]}"' if missing else ""  # contains(_all)


def _regex(check: CheckSpec, answer: str) -> tuple[bool, str]:
    import regex

    flags = regex.IGNORECASE if check.insensitive else 0
    try:
        match = regex.search(check.expected, answer, flags=flags, timeout=REGEX_SECONDS)
    except TimeoutError:
        raise CheckError(
            f"the regex took over {REGEX_SECONDS:g} s on a {len(answer):,}-character answer "
            "(it backtracks catastrophically): simplify it"
        ) from None
    if check.kind == "regex":
        return match is not None, "" if match else "no match"
    return match is None, f'matched "{_excerpt(match.group(0))}"' if match else ""


def _json(check: CheckSpec, answer: str) -> tuple[bool, str]:
    try:
        document = json.loads(answer)
    except json.JSONDecodeError as exc:
        return False, f"not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})"
    if check.kind == "is_json":
        return True, ""
    from jsonschema import validators
    from jsonschema.exceptions import best_match

    validator = validators.validator_for(check.expected)(check.expected)
    error = best_match(validator.iter_errors(document))
    if error is None:
        return True, ""
    return False, f"{error.json_path}: {_excerpt(error.message, 120)}"


def _python(
    check: CheckSpec, answer: str, entry: Mapping[str, Any], rootdir: Path | None
) -> tuple[bool, str]:
    try:
        verdict = python_check(check.expected, rootdir)(answer, dict(entry))
    except Exception as exc:  # the user's function: any failure is the check's error
        raise CheckError(f"{check.expected} raised {type(exc).__name__}: {exc}") from None
    reason = ""
    if isinstance(verdict, tuple) and len(verdict) == 2:
        verdict, reason = verdict
    if not isinstance(verdict, bool):
        raise CheckError(
            f"{check.expected} must return a bool or (bool, reason), got {verdict!r:.40}"
        )
    return verdict, str(reason)


def checks_sentence(results: Sequence[CheckResult]) -> str:
    """``check failed: contains "reset link": not found; max_words 120: got 187`` (and check
    errors); empty when every check passed."""
    failed = [r for r in results if r.passed is False]
    if not failed:
        return ""
    parts = [f"{r.name}: {r.detail}" if r.detail else r.name for r in failed]
    word = "check error" if all(r.error for r in failed) else "check failed"
    return f"{word}: {'; '.join(parts)}"

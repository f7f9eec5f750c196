"""Deterministic checks applied to a response: exact, free and instant, before any judge call.

``apply_checks`` gives one ``CheckResult`` per check (``reports/checks_text`` says them). A check
that cannot be decided on a response (no latency measured, a python check that raised) is a
check error, never a pass.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from ..schema.items import CheckResult
from .parse import CONTAINS_KINDS, CheckSpec

REGEX_SECONDS = 1.0  # a pattern that backtracks past this on a response is a check error
_SHOWN_WHEN_PASSED = ("words", "chars", "is_refusal")  # the count, the refusal found


def apply_checks(
    checks: Sequence[CheckSpec],
    response: str,
    entry: Mapping[str, Any],
    latency_ms: float | None = None,
) -> list[CheckResult]:
    """Every check of the response, in order (none stops the others)."""
    return [_apply_one(check, response, entry, latency_ms) for check in checks]


def _apply_one(
    check: CheckSpec,
    response: str,
    entry: Mapping[str, Any],
    latency_ms: float | None,
) -> CheckResult:
    result = CheckResult(name=check.name, kind=check.kind, expected=check.expected, passed=True)
    try:
        passed, detail = _evaluate(check, response, entry, latency_ms)
    except CheckError as exc:
        return result.model_copy(update={"passed": False, "error": True, "detail": str(exc)})
    return result.model_copy(update={"passed": passed, "detail": detail})


class CheckError(Exception):
    """The check could not be applied to this response."""


def _evaluate(
    check: CheckSpec,
    response: str,
    entry: Mapping[str, Any],
    latency_ms: float | None,
) -> tuple[bool, str]:
    kind = check.kind
    negated = kind.startswith("not_")
    if kind in CONTAINS_KINDS:
        return _contains(check, response)
    if kind in ("equals", "not_equals", "starts_with", "not_starts_with"):
        passed, detail = _equals(check, response)
    elif kind in ("regex", "not_regex"):
        passed, detail = _regex(check, response)
    elif kind in ("min_words", "max_words", "min_chars", "max_chars"):
        count = len(response) if kind.endswith("chars") else len(response.split())
        low, high = (check.value, None) if kind.startswith("min") else (None, check.value)
        return _within(count, low, high), f"got {count}"
    elif kind in ("words", "not_words", "chars", "not_chars"):
        count = len(response) if kind.endswith("chars") else len(response.split())
        passed, detail = _within(count, *check.value), f"got {count}"
    elif kind == "max_latency_ms":
        if latency_ms is None:
            raise CheckError(
                "no latency was measured: a stored answer has none (a live target's answer "
                "has its own; llmjudge_targets)"
            )
        return latency_ms <= check.value, f"took {latency_ms:.0f} ms"
    elif kind in ("is_json", "not_is_json", "json_schema"):
        passed, detail = _json(check, response)
    elif kind == "contains_json":
        return _contains_json(check, response)
    elif kind in ("is_refusal", "not_is_refusal"):
        from .refusal import refusal_in

        found = refusal_in(response)
        passed, detail = found is not None, found or "no refusal found"
    else:
        return _python(check, response, entry)
    if negated:  # what the positive check found is why its negation fails
        return not passed, detail if passed else ""
    return passed, detail if not passed or kind in _SHOWN_WHEN_PASSED else ""


def _within(count: int, low: int | None, high: int | None) -> bool:
    return (low is None or count >= low) and (high is None or count <= high)


def _cased(check: CheckSpec, text: str) -> str:
    return text.casefold() if check.insensitive else text


def _excerpt(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _contains(check: CheckSpec, response: str) -> tuple[bool, str]:
    text = _cased(check, response)
    found = [t for t in check.texts if _cased(check, t) in text]
    missing = [t for t in check.texts if t not in found]
    if check.kind in ("not_contains", "not_contains_any"):
        return not found, f'found "{found[0]}"' if found else ""
    if check.kind == "not_contains_all":
        return bool(missing), "" if missing else "found every one"
    if check.kind == "contains_any":
        return bool(found), "" if found else "none found"
    return not missing, f'not found: "{missing[0]}"' if missing else ""  # contains(_all)


def _equals(check: CheckSpec, response: str) -> tuple[bool, str]:
    """Whether the response equals (starts with) the text, surrounding white space aside; or,
    for a JSON value, whether the response is JSON equal to it."""
    if not isinstance(check.value, tuple):
        try:
            document = _loads(response)
        except json.JSONDecodeError:
            return False, "not JSON"
        same = _same_json(document, check.value)
        return same, "" if same else f"got {_excerpt(response.strip())}"
    if "equals" in check.kind:
        ok = _cased(check, response.strip()) == _cased(check, check.value[0].strip())
    else:  # the response's leading white space aside; the expected text as written
        ok = _cased(check, response.lstrip()).startswith(_cased(check, check.value[0]))
    return ok, f'got "{_excerpt(response.strip())}"'


def _loads(text: str) -> Any:
    return _deep_guard(json.loads, text)


def _deep_guard(parse: Callable[..., Any], *args: Any) -> Any:
    """A JSON parse that a bot's response nested past Python's recursion limit, or holding a
    number past its digit limit, turns into a check error naming why, not a traceback."""
    try:
        return parse(*args)
    except RecursionError:
        raise CheckError("the answer's JSON is nested too deeply to read") from None
    except ValueError as exc:
        if isinstance(exc, json.JSONDecodeError):
            raise
        raise CheckError(f"the answer's JSON cannot be read: {exc}") from None


def _same_json(a: Any, b: Any) -> bool:
    """JSON equality: as Python's ``==``, but true is not 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_json(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(map(_same_json, a, b))
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    return type(a) is type(b) and a == b


def _regex(check: CheckSpec, response: str) -> tuple[bool, str]:
    import regex

    flags = regex.IGNORECASE if check.insensitive else 0
    try:
        match = regex.search(check.value, response, flags=flags, timeout=REGEX_SECONDS)
    except TimeoutError:
        raise CheckError(
            f"the regex took over {REGEX_SECONDS:g} s on a {len(response):,}-character answer "
            "(it backtracks catastrophically): simplify it"
        ) from None
    if match is None:
        return False, "no match"
    return True, f'matched "{_excerpt(match.group(0))}"'


def _json(check: CheckSpec, response: str) -> tuple[bool, str]:
    try:
        document = _loads(response)
    except json.JSONDecodeError as exc:
        return False, f"not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})"
    if check.value is None:
        return True, "is JSON"
    problem = _schema_problem(check.value, document)
    return problem is None, problem or ""


def _schema_problem(schema: dict[str, Any], document: Any) -> str | None:
    """Where the document breaks the schema (formats checked too); None when it follows it."""
    from jsonschema import validators
    from jsonschema.exceptions import best_match

    cls = validators.validator_for(schema)
    validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
    error = best_match(validator.iter_errors(document))
    return None if error is None else f"{error.json_path}: {_excerpt(error.message, 120)}"


def _json_values(text: str) -> Iterator[Any]:
    """Each JSON object or array in the text, outermost first: in prose, in a Markdown code
    fence, or alone."""
    decoder = json.JSONDecoder()
    position = 0
    while True:
        starts = [i for i in (text.find("{", position), text.find("[", position)) if i >= 0]
        if not starts:
            return
        start = min(starts)
        try:
            value, end = _deep_guard(decoder.raw_decode, text, start)
        except json.JSONDecodeError:
            position = start + 1
            continue
        yield value
        position = end


def _contains_json(check: CheckSpec, response: str) -> tuple[bool, str]:
    problems = []
    for value in _json_values(response):
        if check.value is None:
            return True, "found JSON"
        problem = _schema_problem(check.value, value)
        if problem is None:
            return True, "found JSON that follows the schema"
        problems.append(problem)
    if not problems:
        return False, "no JSON object or array found"
    return False, f"no JSON found follows the schema ({problems[0]})"


def _python(check: CheckSpec, response: str, entry: Mapping[str, Any]) -> tuple[bool, str]:
    try:
        verdict = check.value.function(response, dict(entry))
    except Exception as exc:  # the user's function: any failure is the check's error
        raise CheckError(f"{check.expected} raised {type(exc).__name__}: {exc}") from None
    try:
        return python_verdict(verdict, check.threshold)
    except ValueError as exc:
        raise CheckError(f"{check.expected} {exc}") from None


def python_verdict(verdict: Any, threshold: float | None = None) -> tuple[bool, str]:
    """What a python check's return means, as in promptfoo: a bool, ``(bool, reason)``, a
    score (passing above 0, or at or above the threshold), ``{"pass", "score", "reason"}``, or
    the strings "true"/"false" or a number; ValueError for anything else."""
    if isinstance(verdict, tuple) and len(verdict) == 2 and isinstance(verdict[0], bool):
        return verdict[0], str(verdict[1])
    if isinstance(verdict, str):
        verdict = _from_text(verdict)
    if isinstance(verdict, bool):
        return verdict, "" if verdict else "returned false"
    if isinstance(verdict, int | float):
        return _score(float(verdict), threshold)
    if isinstance(verdict, dict):
        score = verdict.get("score")
        score = float(score) if isinstance(score, int | float) and score is not True else None
        reason = str(verdict.get("reason") or "")
        if isinstance(verdict.get("pass"), bool):
            passed = verdict["pass"]
            if passed and threshold is not None and score is not None and score < threshold:
                return False, f"score {score:g} is below the threshold {threshold:g}"
            return passed, reason or ("" if passed else "returned pass: false")
        if score is not None:
            passed, detail = _score(score, threshold)
            return passed, reason or detail
    raise ValueError(
        "must return a bool, (bool, reason), a score, {'pass', 'score', 'reason'}, or "
        f'"true"/"false", got {verdict!r:.40}'
    )


def _from_text(text: str) -> Any:
    word = text.strip().lower()
    if word in ("true", "false"):
        return word == "true"
    try:
        return float(word)
    except ValueError:
        pass
    if word.startswith("{"):
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            pass
    return text


def _score(score: float, threshold: float | None) -> tuple[bool, str]:
    if threshold is None:
        return score > 0, f"score {score:g}"
    passed = score >= threshold
    return passed, f"score {score:g}" + ("" if passed else f" is below the threshold {threshold:g}")


def distinct_names(checks: Sequence[CheckResult]) -> list[str]:
    """Each check's name, told apart where two share one (the ini's check and the entry's):
    a repeat gets the next number no check is named, ``x``, ``x (2)``; stable, by the checks'
    order (JUnit properties and baseline keys are these)."""
    given, names = {check.name for check in checks}, []
    for check in checks:
        name, count = check.name, 1
        while name in names or (count > 1 and name in given):  # (given: another's own name)
            count += 1
            name = f"{check.name} ({count})"
        names.append(name)
    return names

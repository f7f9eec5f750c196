"""Deterministic checks said to people: the sentence of a failed item (or of checks that could
not be applied) and the checks' table."""

from __future__ import annotations

from collections.abc import Sequence

from ..schema.items import CheckResult


def checks_verdict(results: Sequence[CheckResult]) -> tuple[str, list[str]]:
    """``("check failed", ['contains "reset link": not found', 'max_words 120: got 187'])``:
    the word for what went wrong (``check error`` when none could be applied) and each
    check that did not pass; no parts when every check passed."""
    failed = [r for r in results if r.passed is False]
    parts = [f"{r.name}: {r.detail}" if r.detail else r.name for r in failed]
    word = "check error" if failed and all(r.error for r in failed) else "check failed"
    return word, parts


def checks_sentence(results: Sequence[CheckResult]) -> str:
    """``check failed: contains "reset link": not found; max_words 120: got 187`` (and check
    errors); empty when every check passed."""
    word, parts = checks_verdict(results)
    return f"{word}: {'; '.join(parts)}" if parts else ""


def checks_table(checks: Sequence[CheckResult]) -> str:
    """One row per deterministic check: its name, result and what was found."""
    rows = [("check", "result", "detail")]
    for check in checks:
        result = "n/a" if check.passed is None else "ok" if check.passed else "FAIL"
        rows.append((check.name, "ERROR" if check.error else result, check.detail))
    widths = [max(len(row[c]) for row in rows) for c in range(3)]
    return "\n".join(
        "  ".join(cell.ljust(widths[c]) for c, cell in enumerate(row)).rstrip() for row in rows
    )

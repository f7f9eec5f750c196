"""The deterministic checks of an eval item: the suite's (ini ``llmjudge_checks``), its
file's defaults and its own, run on the answer before any judge request.

With ``llmjudge_checks_mode=first`` (the default) an item whose checks fail is failed and not
judged; with ``always`` it is judged too. An entry with ``"judge": false`` is checked only.
"""

from __future__ import annotations

import json

import pytest

from ..analysis.checks import run_checks
from ..basics.wording import counted
from ..evalfiles.cases import EvalCase
from ..evalfiles.checks import CheckSpec, combined, parse_checks
from ..schema.items import CheckResult
from .state import STATE_KEY

CHECKS_KEY = pytest.StashKey[tuple[CheckSpec, ...]]()
STORED_RESULTS_KEY = pytest.StashKey[tuple[str, list[CheckResult]]]()
SUITE_CHECKS_KEY = pytest.StashKey[tuple[CheckSpec, ...]]()
INI = "llmjudge_checks"


def suite_checks(config: pytest.Config) -> tuple[CheckSpec, ...]:
    """The ini option's checks, read once; ValueError naming the option when they are bad."""
    found = config.stash.get(SUITE_CHECKS_KEY, None)
    if found is None:
        text = str(config.getini(INI) or "").strip()
        try:
            found = parse_checks(json.loads(text), config.rootpath) if text else ()
        except json.JSONDecodeError as exc:
            raise ValueError(f"ini option {INI} is not JSON: {exc.msg} (a JSON list)") from None
        except ValueError as exc:
            raise ValueError(f"ini option {INI}: {exc}") from None
        config.stash[SUITE_CHECKS_KEY] = found
    return found


def _case(item: pytest.Item) -> EvalCase | None:
    """The entry of an eval item (None for a hand-written test)."""
    case = getattr(item, "case", None)
    return case if isinstance(case, EvalCase) else None


def checks_for(item: pytest.Item) -> tuple[CheckSpec, ...]:
    """The suite's checks, then the entry's (its file's defaults first); none for a test."""
    case = _case(item)
    if case is None:
        return ()
    found = item.stash.get(CHECKS_KEY, None)
    if found is None:
        found = combined(suite_checks(item.config), case.check_specs(item.config.rootpath))
        item.stash[CHECKS_KEY] = found
    return found


def check_answer(item: pytest.Item, answer: str, latency_ms: float | None) -> list[CheckResult]:
    """The item's checks run on its answer (empty without checks). A stored answer's results
    are kept: the planner asked already, and a python check need not run twice."""
    checks, case = checks_for(item), _case(item)
    if not checks or case is None:
        return []
    cached = item.stash.get(STORED_RESULTS_KEY, None)
    if latency_ms is None and cached is not None and cached[0] == answer:
        return cached[1]
    entry = case.model_dump(mode="json", exclude_defaults=True)
    results = run_checks(checks, answer, entry, latency_ms, item.config.rootpath)
    if latency_ms is None:
        item.stash[STORED_RESULTS_KEY] = (answer, results)
    return results


def skips_the_judge(item: pytest.Item, results: list[CheckResult]) -> bool:
    """No judge request for this item: checked only, or a check failed (``first``)."""
    case = _case(item)
    if case is not None and not case.judge:
        return True
    failed = any(result.passed is False for result in results)
    return failed and item.config.stash[STATE_KEY].settings.checks_mode == "first"


def judged_in_advance(item: pytest.Item) -> bool:
    """Whether the item's judge runs may start before it runs: when its answer is stored,
    its checks (those decidable without a target's latency) are run now; a live target's
    answer is checked once it is there, so its runs wait for the item."""
    case = _case(item)
    if case is None or not case.judge:
        return False
    if not checks_for(item):
        return True
    if getattr(item, "target", None) is not None or case.response is None:
        return False
    return not skips_the_judge(item, check_answer(item, case.response, None))


def say_latency_without_target(session: pytest.Session) -> None:
    """Said once before the items: some have a latency check but the session has no live
    target to measure one (each such item is then an error that says why)."""
    line = latency_without_target(session.items)
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if line and reporter is not None:
        reporter.ensure_newline()
        reporter.write_line(f"llmjudge: {line}")


def latency_without_target(items: list[pytest.Item]) -> str | None:
    """That line, or None (no such item, or a live target answers)."""
    if not items or items[0].config.stash[STATE_KEY].settings.targets is not None:
        return None
    timed = [
        item for item in items if any(c.kind == "max_latency_ms" for c in _checks_or_none(item))
    ]
    if not timed:
        return None
    return (
        f"{counted(len(timed), 'item')} {'has' if len(timed) == 1 else 'have'} a latency check "
        "(max_latency_ms) but this session has no live target (llmjudge_targets): a stored "
        "answer has no latency, so those items are errors"
    )


def _checks_or_none(item: pytest.Item) -> tuple[CheckSpec, ...]:
    try:
        return checks_for(item)
    except ValueError:  # a bad ini option is said by the item itself
        return ()

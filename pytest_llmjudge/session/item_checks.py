"""The deterministic checks of an eval item as pytest holds them: the suite's (ini
``llmjudge_checks``, read once), fixed on the item at collection, and the item's one call
into ``checks/`` (``check_item``) with its response and, from a live target, its latency.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from ..basics.wording import counted
from ..checks.item import NOT_CHECKED, Checked, ItemChecks, check_item
from ..checks.parse import CheckSpec, parse_checks
from ..evalfiles.eval_file import EvalCase, ValidEntry
from .state import STATE_KEY

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


def item_checks(config: pytest.Config, valid_entry: ValidEntry) -> ItemChecks:
    """What an entry's item is checked with: the suite's checks, then the entry's (its
    file's defaults first)."""
    checks, entry = (*suite_checks(config), *valid_entry.checks), valid_entry.entry
    if not checks and entry.judge:
        return NOT_CHECKED
    first = config.stash[STATE_KEY].settings.checks_mode == "first"
    return ItemChecks(checks, entry.judge, first, entry.saved_latency_ms)


def checks_of(item: pytest.Item) -> ItemChecks:
    """The item's checks (none for a hand-written test)."""
    plan = getattr(item, "checks", NOT_CHECKED)
    return plan if isinstance(plan, ItemChecks) else NOT_CHECKED


def checked(item: pytest.Item, response: str, plan: ItemChecks | None = None) -> Checked:
    """The item's checks (or ``plan``, some of them) applied to its response."""
    plan = checks_of(item) if plan is None else plan
    latency = response_latency(item) if plan.timed else None
    return check_item(plan, response, _entry(item) if plan.checks else {}, latency)


def _entry(item: pytest.Item) -> dict[str, Any]:
    """The entry as a python check receives it (what the eval file set, defaults applied)."""
    entry: EvalCase = item.entry  # type: ignore[attr-defined]  # an item with checks has one
    return entry.model_dump(mode="json", exclude_defaults=True)


def response_latency(item: pytest.Item) -> float | None:
    """How long the item's live target took to answer, in ms: measured now, or when a
    replayed response was saved (None for any other stored response)."""
    target = getattr(item, "target", None)
    if target is None:
        return checks_of(item).saved_latency_ms
    entry = item.entry  # type: ignore[attr-defined]  # an eval item with a target
    engine = item.config.stash[STATE_KEY].engine()
    return engine.response_latency(target, entry.ticket, entry.context)


def judged_in_advance(item: pytest.Item) -> bool:
    """Whether the item's judge runs may start before it runs: when its answer is stored,
    its built-in checks are run now (the user's ``python`` checks run in the item, and may
    still spare the judge there: the runs made ahead are then spent, and cached); a live
    target's answer is checked once it is there, so its runs wait for the item."""
    entry = getattr(item, "entry", None)
    if not isinstance(entry, EvalCase) or not entry.judge:
        return False
    plan = checks_of(item)
    if not plan.checks:
        return True
    if getattr(item, "target", None) is not None or entry.response is None:
        return False
    return not checked(item, entry.response, plan.built_in).skips_judge


def say_latency_without_target(config: pytest.Config, timed: int, status: bool = False) -> None:
    """Said once before the items: ``timed`` of them have a latency check but the session
    has no live target to measure one (each such item is then an error that says why).
    ``status``: over xdist's status line, which a terminal rewrites in place, unended."""
    line = latency_without_target(config, timed)
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if not line or reporter is None:
        return
    if status and getattr(reporter, "isatty", False):
        reporter.rewrite(f"llmjudge: {line}", erase=True)  # xdist's next status: a new line
        reporter.write("\n")
    else:
        reporter.ensure_newline()
        reporter.write_line(f"llmjudge: {line}")


def timed_items(items: list[pytest.Item]) -> int:
    """How many of these items have a latency check that no measured latency serves."""
    return sum(1 for item in items if checks_of(item).unmeasured)


def latency_without_target(config: pytest.Config, timed: int) -> str | None:
    """That line, or None (no such item, or a live target answers)."""
    if not timed or config.stash[STATE_KEY].settings.targets is not None:
        return None
    return latency_line(timed)


def latency_line(timed: int) -> str:
    """The words, for ``timed`` items (one or more)."""
    one = timed == 1
    return (
        f"{counted(timed, 'item')} {'has' if one else 'have'} a latency check "
        "(max_latency_ms) but this session has no live target (llmjudge_targets): a stored "
        f"answer has no latency, so {'that item is an error' if one else 'those items are errors'}"
    )

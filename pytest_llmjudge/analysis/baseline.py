"""This run against an earlier results file: per item (noise-aware) and over the suite."""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pydantic import ValidationError

from ..basics.rubrics import PROMPT_VERSION
from ..checks.report import distinct_names
from ..config.settings import Settings
from ..schema.results import (
    BaselineResult,
    Change,
    CheckResult,
    ItemResult,
    JudgeIdentity,
    ScoreSummary,
    SuiteChange,
    dimension_keys,
)
from .gates import measured
from .stats import interval_fields, paired_difference

# A drop is a regression only beyond this many points and beyond twice its standard error.
REGRESSION_FLOOR = 0.5
NOISE_FACTOR = 2.0
# Differences of means within this are a tie when deciding which run is better.
TIE_TOLERANCE = 0.01

Verdict = Literal["improved", "regressed", "unchanged"]
# node id -> dimension -> its scores in the baseline run
Baseline = Mapping[str, Mapping[str, ScoreSummary]]


@dataclass
class LoadedBaseline:
    """An earlier results file: its items' scores and the judge that gave them (if recorded)."""

    items: dict[str, dict[str, ScoreSummary]] = field(default_factory=dict)
    judge: JudgeIdentity | None = None


def judge_identity(settings: Settings) -> JudgeIdentity:
    """The identity of this session's judge."""
    return JudgeIdentity(
        provider=settings.provider,
        llm=settings.uses_llm,
        model=settings.model,
        base_url_host=urlsplit(settings.base_url).hostname if settings.base_url else None,
        temperature=settings.temperature,
        prompt_version=PROMPT_VERSION,
        rubrics={name: d.version for name, d in settings.dimensions.items()},
        scoring=settings.scoring if settings.uses_llm else "text",
        grouping=settings.grouping if settings.uses_llm else "dimension",
    )


def identity_mismatch(before: JudgeIdentity | None, now: JudgeIdentity) -> str | None:
    """What differs between two judges ("model gpt-4o != gpt-4o-mini"), or None."""
    if before is None:
        return None  # an older results file: compared as it is (the summary says so)
    differences = [
        f"{name} {getattr(before, name)} != {getattr(now, name)}"
        for name in (
            "provider",
            "model",
            "base_url_host",
            "temperature",
            "prompt_version",
            "scoring",
            "grouping",
        )
        if getattr(before, name) != getattr(now, name)
    ]
    differences += [
        f"rubric of {name} changed"
        for name in sorted(set(before.rubrics) & set(now.rubrics))
        if before.rubrics[name] != now.rubrics[name]
    ]
    return "; ".join(differences) or None


def load_baseline(path: Path) -> LoadedBaseline:
    """The judged dimensions of each item of a results JSON; ValueError if it is not one."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"{path}: file not found") from None
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: not a readable results JSON ({exc})") from None
    rows = data.get("results") if isinstance(data, dict) else None
    if not isinstance(rows, list):
        raise ValueError(f"{path}: not a pytest-llmjudge results file (no 'results' list)")
    loaded = LoadedBaseline()
    judge = (data.get("meta") or {}).get("judge")
    if isinstance(judge, dict):
        with contextlib.suppress(ValidationError):
            loaded.judge = JudgeIdentity.model_validate(judge)
    index = loaded.items
    for position, row in enumerate(rows):
        if not isinstance(row, dict):
            continue
        key = row.get("nodeid") or f"{row.get('file')}::{row.get('id')}"
        try:
            dims = {name: ScoreSummary.model_validate(row[name]) for name in dimension_keys(row)}
            checks = [CheckResult.model_validate(check) for check in row.get("checks") or []]
        except ValidationError as exc:
            reason = f"results[{position}] has an unreadable score or check"
            raise ValueError(f"{path}: {reason} ({exc.errors()[0]['msg']})") from None
        dims |= _as_scores(checks)
        if dims:
            index[str(key)] = dims
    return loaded


CHECK = "check: "  # a deterministic check compared as a score of 1 (passed) or 0 (failed)


def _as_scores(checks: Sequence[CheckResult]) -> dict[str, ScoreSummary]:
    """Checks that decided, as scores: one that passed before and fails now has dropped by a
    whole point, a regression whatever the noise. A name given twice (the ini's check and
    the entry's) is told apart by its place among them (``distinct_names``)."""
    return {
        f"{CHECK}{name}": ScoreSummary(score=float(check.passed), runs=[], std=0.0)
        for check, name in zip(checks, distinct_names(checks), strict=True)
        if check.passed is not None and not check.error
    }


def compare_dimension(nodeid: str, name: str, before: ScoreSummary, after: ScoreSummary) -> Change:
    """A change counts when it exceeds REGRESSION_FLOOR and NOISE_FACTOR standard errors."""
    b_n, a_n = max(len(before.runs), 1), max(len(after.runs), 1)
    se = math.sqrt(before.std**2 / b_n + after.std**2 / a_n)
    noise = max(REGRESSION_FLOOR, NOISE_FACTOR * se)
    delta = after.score - before.score
    verdict: Verdict = (
        "regressed" if delta < -noise else "improved" if delta > noise else "unchanged"
    )
    return Change(
        nodeid=nodeid,
        dimension=name,
        before=round(before.score, 4),
        after=round(after.score, 4),
        delta=round(delta, 4),
        noise=round(noise, 4),
        verdict=verdict,
    )


def compare_with_baseline(
    items: Sequence[ItemResult],
    baseline: Baseline,
    source: str,
    collected: Collection[str] | None = None,
) -> BaselineResult:
    """Every judged item against its baseline row, and the mean change per dimension.

    ``collected``: the eval node ids this session collected (deselected ones too). A baseline
    item is *removed* only when its file was collected and it was not in it; any other
    baseline item not judged now is *not in this run*. Unknown (None): all of them are.
    """
    current = {item.nodeid: item for item in measured(items)}
    changes: list[Change] = []
    compared = sorted(set(current) & set(baseline))
    deltas: dict[str, list[float]] = {}
    for nodeid in compared:
        item = current[nodeid]
        for name, after in {**item.dimensions, **_as_scores(item.checks)}.items():
            before = baseline[nodeid].get(name)
            if before is None:
                continue
            change = compare_dimension(nodeid, name, before, after)
            changes.append(change)
            if not name.startswith(CHECK):  # checks have no suite mean
                deltas.setdefault(name, []).append(change.delta)
    missing = sorted(set(baseline) - set(current))
    collected = set(collected or ())
    files = {nodeid.partition("::")[0] for nodeid in collected}
    removed = [n for n in missing if n not in collected and n.partition("::")[0] in files]
    regressed = {c.nodeid for c in changes if c.verdict == "regressed"}
    improved = {c.nodeid for c in changes if c.verdict == "improved"} - regressed
    return BaselineResult(
        source=source,
        compared=len(compared),
        new=sorted(set(current) - set(baseline)),
        removed=removed,
        not_in_run=[n for n in missing if n not in removed],
        regressed=len(regressed),
        improved=len(improved),
        regressed_dimensions=sum(1 for c in changes if c.verdict == "regressed"),
        improved_dimensions=sum(1 for c in changes if c.verdict == "improved"),
        suite={name: _suite_change(name, values) for name, values in deltas.items()},
        changes=[c for c in changes if c.verdict != "unchanged"],
    )


def _suite_change(name: str, deltas: list[float]) -> SuiteChange:
    mean, low, high = paired_difference(deltas)
    significant = not math.isinf(low) and (high < 0 or low > 0)
    interval = "one item: no interval" if math.isinf(low) else f"95% CI {low:+.2f} to {high:+.2f}"
    if significant and abs(mean) > TIE_TOLERANCE:
        direction = "better" if mean > 0 else "worse"
        statement = f"{name}: {direction} than the baseline by {abs(mean):.2f} ({interval})"
    else:
        statement = (
            f"{name}: no significant difference from the baseline "
            f"(mean change {round(mean, 2) + 0.0:+.2f}, {interval})"
        )
    return SuiteChange(
        items=len(deltas),
        mean_delta=round(mean, 4),
        **interval_fields(low, high),
        significant=significant,
        statement=statement,
    )


def regression_messages(
    nodeid: str, after: Mapping[str, ScoreSummary], baseline: Baseline
) -> list[str]:
    """One line per dimension of this item that regressed against the baseline."""
    before = baseline.get(nodeid, {})
    lines = []
    for name, now in after.items():
        if name in before:
            change = compare_dimension(nodeid, name, before[name], now)
            if change.verdict == "regressed":
                lines.append(
                    f"{name} regressed {change.before:.2f} -> {change.after:.2f} "
                    f"({change.delta:+.2f}, noise level {change.noise:.2f})"
                )
    return lines

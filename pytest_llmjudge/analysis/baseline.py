"""This run against an earlier results file: per item and over the suite (tested in
``regression``)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from pydantic import ValidationError

from ..basics.rubrics import PROMPT_VERSION
from ..checks.apply import distinct_names
from ..config.settings import Settings
from ..schema.results import (
    BaselineResult,
    CheckResult,
    JudgeIdentity,
    Row,
    Scores,
    ScoreSummary,
    dimension_keys,
)
from .gates import interval_note, judged
from .regression import CHECK, item_changes, suite_changes
from .stats import mean_estimate

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


def _as_scores(checks: Sequence[CheckResult]) -> dict[str, ScoreSummary]:
    """Checks that decided, as scores: one that passed before and fails now has dropped by a
    whole point, a regression whatever the noise. A name given twice (the ini's check and
    the entry's) is told apart by its place among them (``distinct_names``)."""
    return {
        f"{CHECK}{name}": ScoreSummary(score=float(check.passed), runs=[], std=0.0)
        for check, name in zip(checks, distinct_names(checks), strict=True)
        if check.passed is not None and not check.error
    }


def _compared(item: Row) -> dict[str, Scores]:
    return {**item.dimensions, **_as_scores(item.checks)}


def compare_with_baseline(
    items: Sequence[Row],
    baseline: Baseline,
    source: str,
    collected: Collection[str] | None = None,
) -> BaselineResult:
    """Every judged item against its baseline row, and the mean change per dimension.

    ``collected``: the eval node ids this session collected (deselected ones too). A baseline
    item is *removed* only when its file was collected and it was not in it; any other
    baseline item not judged now is *not in this session* (``not_in_run``). Unknown (None):
    all of them are.
    """
    current = {item.nodeid: item for item in judged(items)}
    compared = sorted(set(current) & set(baseline))
    pairs = [
        (nodeid, name, before, after)
        for nodeid in compared
        for name, after in _compared(current[nodeid]).items()
        if (before := baseline[nodeid].get(name)) is not None
    ]
    changes = item_changes(pairs)
    deltas: dict[str, tuple[list[float], list[str | None]]] = {}
    for nodeid, name, before, after in pairs:
        if not name.startswith(CHECK):  # checks have no suite mean
            values, clusters = deltas.setdefault(name, ([], []))
            values.append(after.score - before.score)
            clusters.append(current[nodeid].cluster)
    missing = sorted(set(baseline) - set(current))
    collected = set(collected or ())
    files = {nodeid.partition("::")[0] for nodeid in collected}
    removed = [n for n in missing if n not in collected and n.partition("::")[0] in files]
    regressed = {c.nodeid for c in changes if c.verdict == "regressed"}
    possible = {c.nodeid for c in changes if c.verdict == "possible regression"} - regressed
    improved = {c.nodeid for c in changes if c.verdict == "improved"} - regressed - possible
    return BaselineResult(
        source=source,
        compared=len(compared),
        new=sorted(set(current) - set(baseline)),
        removed=removed,
        not_in_run=[n for n in missing if n not in removed],
        regressed=len(regressed),
        possible=len(possible),
        improved=len(improved),
        regressed_dimensions=sum(1 for c in changes if c.verdict == "regressed"),
        improved_dimensions=sum(1 for c in changes if c.verdict == "improved"),
        suite=suite_changes({name: mean_estimate(*pair) for name, pair in deltas.items()}),
        changes=[c for c in changes if c.verdict != "unchanged"],
        note=interval_note(current[nodeid] for nodeid in compared),
    )

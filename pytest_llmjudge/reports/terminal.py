"""Text a person reads at the end of a session: the summary under the ``llmjudge`` heading."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ..analysis.agreement import agreement_line, interval_lines
from ..analysis.comparison import comparison_lines
from ..analysis.gates import judged, suite_scores
from ..basics.wording import counted, entry_place
from ..config.pricing import provider_host
from ..judges.heuristic import LABEL

if TYPE_CHECKING:
    from ..schema.results import BaselineResult, Meta, ResultsFile, Row, Summary


def outcome_counts(s: Summary) -> str:
    """``27 passed, 6 xfailed``: the outcomes that happened, in pytest's order."""
    rerun = f" ({s.passed_on_rerun} only on a rerun)" if s.passed_on_rerun else ""
    counts = [
        f"{getattr(s, name)} {label}" + (rerun if name == "passed" else "")
        for name, label in (
            ("passed", "passed"),
            ("failed", "failed"),
            ("errors", "error" if s.errors == 1 else "errors"),
            ("skipped", "skipped"),
            ("xfailed", "xfailed"),
            ("xpassed", "xpassed"),
            ("flaky_failed", "flaky failed (not gating)"),
        )
        if getattr(s, name)
    ]
    return ", ".join(counts) or "none run"


def items_counted(results: ResultsFile) -> tuple[Summary, str]:
    """The summary's counts of eval items (without the eval files that could not be read:
    counted in its errors, as pytest counts them, they hold no item), and those files said:
    ``; 1 eval file could not be read`` (empty when every file was)."""
    s = results.summary
    unread = sum(1 for error in results.errors if error.id is None)  # (an item's has its id)
    if not unread:
        return s, ""
    items = s.model_copy(update={"total": s.total - unread, "errors": s.errors - unread})
    return items, f"; {counted(unread, 'eval file')} could not be read"


INVALID_SHOWN = 5  # invalid entries named in the summary; the results file has them all
INVALID_HEAD = "not measured, so the session is red: fix them, or mark them skip"


def invalid_places(results: ResultsFile) -> list[str]:
    """``evals/a.json:5 (t-1): 'response' must be a non-empty string``: each invalid entry."""
    places = []
    for e in results.invalid:
        place = entry_place(e.file, e.line, e.id or f"#{e.index}")
        # (a results file written before 0.2 has the cause alone)
        places.append(e.reason if e.reason.startswith(place) else f"{place}: {e.reason}")
    return places


def error_places(results: ResultsFile) -> list[str]:
    """``evals/a.json::t-1: worker 'gw0' crashed ...``: each errored item, and each eval file
    that could not be read, with why."""
    items = [f"{i.nodeid}: {i.error or 'error'}" for i in results.rows() if i.outcome == "error"]
    return items + [f"{e.file}: {e.reason}" for e in results.errors if e.id is None]


def named(results: ResultsFile, baseline: bool = True) -> list[tuple[str, list[str]]]:
    """What every report names, not only counts: invalid entries, errors, and (``baseline``)
    the baseline's removed and new items; (heading, names) for those that hold any."""
    lists = [
        (f"invalid entries ({INVALID_HEAD})", invalid_places(results)),
        ("errors", error_places(results)),
    ]
    if baseline and results.baseline is not None:
        lists += named_of_baseline(results.baseline)
    return [(head, names) for head, names in lists if names]


def named_of_baseline(baseline: BaselineResult) -> list[tuple[str, list[str]]]:
    """The baseline's removed and new items, by node id (those it holds any of)."""
    if not baseline.comparable:
        return []
    lists = [
        ("removed since the baseline (no longer in their eval file)", baseline.removed),
        ("new since the baseline", baseline.new),
    ]
    return [(head, names) for head, names in lists if names]


def capped(names: list[str], shown: int = 10) -> tuple[list[str], str]:
    """The first ``shown`` names, and ``and N more`` (empty when none is left out)."""
    more = len(names) - shown
    return names[:shown], (
        f"and {more:,} more (the results JSON names them all)" if more > 0 else ""
    )


def invalid_lines(results: ResultsFile) -> list[str]:
    """``2 invalid entries (not measured, ...):`` and the first few, each with file, entry
    and why."""
    places = invalid_places(results)
    if not places:
        return []
    lines = [f"{counted(len(places), 'invalid entry', 'invalid entries')} ({INVALID_HEAD}):"]
    lines += [f"  {place}" for place in places[:INVALID_SHOWN]]
    if len(places) > INVALID_SHOWN:
        lines.append(f"  and {len(places) - INVALID_SHOWN} more (all in the results file)")
    return lines


SKIPPED_SHOWN = 5  # skipped items named in the summary; ``-rs`` lists them all


def skipped_lines(results: ResultsFile) -> list[str]:
    """``2 skipped:`` and the first few items with their reasons (pytest shows them only
    under ``-rs``; a skip whose reason nobody reads hides a gap in the suite)."""
    skipped = [item for item in results.rows() if item.outcome == "skipped"]
    if not skipped:
        return []
    lines = [f"{counted(len(skipped), 'item')} skipped:"]
    lines += [
        f"  {item.nodeid}: {item.reason or 'no reason given'}" for item in skipped[:SKIPPED_SHOWN]
    ]
    if len(skipped) > SKIPPED_SHOWN:
        lines.append(f"  and {len(skipped) - SKIPPED_SHOWN} more (-rs lists them all)")
    return lines


def means_lines(items: Sequence[Row]) -> list[str]:
    """The suite's mean per dimension, saying over how many items (and which are left out:
    an xfail's low score is expected, so it does not pull the mean down)."""
    scores = suite_scores(items)
    if not scores:
        return []
    aside = sum(1 for item in items if item.dimensions and item.outcome == "xfailed")
    base = len(judged(items))  # the judged items every gate counts
    head = f"mean scores over {counted(base, 'item')}" + (
        f" ({aside} xfailed aside)" if aside else ""
    )
    means = [
        f"{name} {math.fsum(values) / len(values):.2f}"
        + ("" if len(values) == base else f" ({counted(len(values), 'item')})")
        for name, values in scores.items()
    ]
    return [f"{head}: " + ", ".join(means)]


def terminal_summary(results: ResultsFile, output: str | None) -> list[str]:
    """The lines shown under the ``llmjudge`` heading at the end of a session."""
    meta = results.meta
    judge = meta.provider if not meta.model else f"{meta.provider} {meta.model}"
    if not meta.llm:
        judge = f"{LABEL} (no LLM)"
    s, unread = items_counted(results)
    lines = [
        f"{counted(s.total, 'eval item')}: {outcome_counts(s)}{unread}; judge: {judge}, "
        f"runs={meta.runs}"
    ]
    lines += invalid_lines(results)
    lines += skipped_lines(results)
    lines += means_lines(results.rows())
    lines.append(_usage_line(meta))
    lines += batch_lines(meta)
    lines += [f"note: {notice}" for notice in [*([meta.note] if meta.note else []), *meta.notices]]
    lines += _attention_lines(results)
    lines += _listed("errors", error_places(results), INVALID_SHOWN)
    if results.baseline:
        lines += _baseline_summary(results.baseline)
    if results.comparison:
        lines += comparison_lines(results.comparison)
    if not meta.complete:
        lines.append("session did not complete: the results cover only what ran")
    if output:
        lines.append(f"results: {output}")
    return lines


def _listed(head: str, names: list[str], shown: int, indent: str = "") -> list[str]:
    """``errors:`` and the first names, one a line, and how many more (none: no line)."""
    if not names:
        return []
    first, more = capped(names, shown)
    return [
        f"{indent}{head}:",
        *(f"{indent}  {name}" for name in first),
        *([f"{indent}  {more}"] if more else []),
    ]


def _usage_line(meta: Meta) -> str:
    """``judge calls: 12, 3400 tokens (...), $0.0021 (openai price)``: what judging cost."""
    usage = f"judge calls: {meta.calls_text()}"
    if meta.tokens.total:
        usage += (
            f", {meta.tokens.total} tokens ({meta.tokens.prompt} prompt, "
            f"{meta.tokens.completion} completion)"
        )
    if unknown := meta.tokens.unknown_calls:
        usage += f", tokens unknown for {counted(unknown, 'call')} (the server did not say them)"
    # the offline judge calls nothing but judges runs: "every run" only when it judged none
    if meta.calls == 0 and meta.judgments == 0 and meta.cached_runs:
        usage += ", $0" * (meta.cost_usd is not None) + ": every run from the cache"
    elif meta.cost_usd is not None:
        usage += f", ${meta.cost_usd:.4f} ({meta.price_source} price)"
        if meta.timeouts:  # a server may finish, and bill, a request the plugin gave up on
            usage += (
                f" for the replies received; {counted(meta.timeouts, 'timed-out request')} "
                "may be billed too"
            )
    elif unknown and meta.price_source:
        usage += ", cost unknown"
    elif meta.llm and meta.calls and provider_host(meta.base_url):
        # another server (local, LAN, a proxy): tokens only, its price is not ours to guess
        usage += f", price unknown: add {meta.model or 'the model'} to llmjudge_prices"
    return usage


# items named in the summary: what is said before their node ids, and which they are
_NAMED: tuple[tuple[str, Callable[[Row], bool]], ...] = (
    ("judged far from their human label (not a verdict): ", lambda i: i.label_disagreement),
    (
        "injection suspected (text aimed at the judge; scores unchanged): ",
        lambda i: i.injection_suspected,
    ),
    (
        "judged on fewer runs than requested (runs failed or not sent; the results say why): ",
        lambda i: bool(i.partial_runs),
    ),
    ("flaky evals below threshold (not gating): ", lambda i: i.outcome == "flaky_failed"),
)


#: node ids named on one summary line at most; a large suite's line stays readable
NAMED_AT_MOST = 10


def _some(nodeids: list[str]) -> str:
    """The first node ids, and how many more the results JSON names."""
    more = len(nodeids) - NAMED_AT_MOST
    shown = ", ".join(nodeids[:NAMED_AT_MOST])
    return shown + (f" and {more:,} more (the results JSON names them all)" if more > 0 else "")


def not_judged_offline_line(results: ResultsFile) -> str | None:
    """The dimensions the offline judge left unjudged, and on how many items each."""
    if not results.summary.not_judged_offline:
        return None
    unjudged: dict[str, int] = {}
    for item in results.rows():
        for name in item.not_judged_offline:
            unjudged[name] = unjudged.get(name, 0) + 1
    shown = ", ".join(f"{name} ({counted(count, 'item')})" for name, count in unjudged.items())
    return f"not judged offline: {shown}; neither pass nor fail on it"


def _attention_lines(results: ResultsFile) -> list[str]:
    """What deserves a look beyond the outcomes: dimensions not applicable, unstable items,
    agreement with labels, items named for a cause, and the suite's gates."""
    lines = []
    if results.summary.not_applicable:
        lines.append(
            f"not applicable: {results.summary.not_applicable} items have no reference answer "
            "(not judged on correctness; neither pass nor fail on it)"
        )
    unjudged = not_judged_offline_line(results)
    if unjudged:
        lines.append(unjudged)
    if results.unstable:
        lines.append(
            "unstable (runs straddle the threshold; add runs or mark them flaky): "
            + _some(results.unstable)
        )
    if results.labels:
        lines.append("agreement with human labels:")
        lines += [f"  {agreement_line(name, a)}" for name, a in results.labels.items()]
        lines += [
            f"  {line}" for name, a in results.labels.items() for line in interval_lines(name, a)
        ]
    for lead, chosen in _NAMED:
        named = [item.nodeid for item in results.rows() if chosen(item)]
        if named:
            lines.append(lead + _some(named))
    lines += [
        f"gate {'passed' if gate.passed else 'FAILED'}: {gate.message}"
        for gate in results.gates
        if not (gate.name == "judged" and gate.passed)
    ]
    return lines


def _baseline_summary(baseline: BaselineResult) -> list[str]:
    if not baseline.comparable:
        return [
            f"baseline {baseline.source} not compared: another judge made it "
            f"({baseline.mismatch}); no regression gate"
        ]
    lines = [f"baseline {baseline.source}: {baseline.counts_text()}"]
    lines += [f"  {entry.statement}" for entry in baseline.suite.values()]
    lines += [
        f"  {c.verdict}: {c.nodeid} {c.dimension} {c.before:.2f} -> {c.after:.2f} "
        f"({c.delta:+.2f}" + ("" if c.p_value is None else f", p = {c.p_value:.2g}") + ")"
        for c in baseline.changes
        if c.verdict in ("regressed", "possible regression")
    ]
    if baseline.note:
        lines.append(f"  note: {baseline.note}")
    for head, names in named_of_baseline(baseline):
        lines += _listed(head, names, NAMED_AT_MOST, indent="  ")
    return lines


def batch_lines(meta: Meta) -> list[str]:
    """``judged via batch batch_1 (completed, 100 requests): ...``, with ``llmjudge_batch``."""
    batch = meta.batch
    if batch is None:
        return []
    states = ", ".join(
        f"{batch_id} ({state.status}, {state.completed:,} of {state.requests:,} requests done)"
        for batch_id, state in batch.batches.items()
    )
    cost = "" if batch.cost_usd is None else f", ${batch.cost_usd:.4f} (batch price)"
    unknown = batch.tokens.unknown_calls
    tokens = f"{batch.tokens.total:,} tokens" if batch.tokens.total or not unknown else ""
    if unknown:  # never a 0 for tokens the server did not say
        tokens += ", " * bool(tokens) + (
            f"tokens unknown for {counted(unknown, 'request')} (the server did not say them)"
        )
    return [
        f"judged via batch {states or '(collected earlier)'}: {batch.calls:,} requests "
        f"answered there, {batch.runs:,} runs, {tokens}{cost}"
    ]

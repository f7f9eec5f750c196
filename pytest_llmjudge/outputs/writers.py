"""Every file the session writes at its end: results JSON, HTML and markdown reports, GitHub step
summary, saved bot answers. Results and reports are written atomically.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..basics.fileio import shown, write_atomically, write_chunks_atomically
from ..basics.redaction import redact
from ..config.settings import Settings
from ..evalfiles.entry_model import SAVED_ERROR
from ..evalfiles.entry_rules import validate_id
from ..reports.html import html_report
from ..reports.markdown import markdown_report, summary_markdown
from ..schema.results import ResultsFile
from .row_spill import RowSpill


def dump(results: ResultsFile) -> str:
    """The results file's text, serialised by pydantic straight to JSON (no tree of dicts
    beside the models)."""
    return results.model_dump_json(indent=2) + "\n"


def write_outputs(
    results: ResultsFile,
    settings: Settings,
    environ: Mapping[str, str],
    entries: Mapping[str, Mapping[str, Any]] | None = None,
    spill: RowSpill | None = None,
) -> tuple[list[str], list[str]]:
    """The results JSON, the reports, saved answers and the GitHub step summary, as configured.
    With ``spill``, the rows wait in it (``results.rows()``: their kept records) and the file's
    rows come from it.

    Each is written on its own: one that fails does not keep the others from being written.
    Returns a line per file written beside the results (``HTML report: report.html``), and
    a line per failed write.
    """
    written: list[str] = []
    failures: list[str] = []

    def attempt(what: str, path: Path | str, write: Callable[[], None], said: str = "") -> None:
        try:
            write()
        except OSError as exc:
            failures.append(f"could not write the {what} {path}: {exc.strerror or exc}")
        else:
            if said:
                written.append(f"{said}: {shown(Path(path))}")

    for report in settings.reports:
        kind = "HTML report" if _is_html(report) else "markdown report"
        attempt("report", report, functools.partial(write_report, report, results), kind)
    folder = settings.save_responses
    if folder is not None and entries:  # live answers (a replay saves none: its files stay)
        saved = "answers saved for replay in"
        write = functools.partial(save_responses, results, folder, entries or {})
        attempt("saved responses in", folder, write, saved)
    step_summary = environ.get("GITHUB_STEP_SUMMARY")
    if step_summary:
        append = functools.partial(_append, step_summary, results)
        attempt("GitHub step summary", step_summary, append, "GitHub step summary")
    # The results last: a file not written fails the run (exit 1), and the results say so.
    if failures and results.meta.exit_status == 0:
        results.meta.exit_status = 1
    if spill is not None:
        write = functools.partial(write_chunks_atomically, settings.output, spill.dump(results))
    else:
        write = functools.partial(write_atomically, settings.output, dump(results))
    before = len(written)
    attempt("results", settings.output, write, "results")
    return written[before:] + written[:before], failures  # the results' line first


def write_results_only(results: ResultsFile, settings: Settings) -> list[str]:
    """The results JSON alone (at the session's start; or at its end when no eval item was
    selected: no report, no step summary); a line per failed write."""
    try:
        write_atomically(settings.output, dump(results))
    except OSError as exc:
        return [f"could not write the results {settings.output}: {exc.strerror or exc}"]
    return []


def _is_html(path: Path) -> bool:
    return path.suffix.lower() in (".html", ".htm")


def write_report(path: Path, results: ResultsFile) -> None:
    """HTML for a .html/.htm path, markdown for any other."""
    if _is_html(path):
        write_atomically(path, html_report(results))
    else:
        write_atomically(path, markdown_report(results))


def _append(path: str, results: ResultsFile) -> None:
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(summary_markdown(results) + "\n")


def save_responses(
    results: ResultsFile, folder: Path, entries: Mapping[str, Mapping[str, Any]]
) -> None:
    """One static eval file per target, to replay a run without the bots: each entry with
    every field that decides its outcome (``entries``, of the live items: thresholds, marks,
    runs, labels, the conversation and reference, file defaults applied) and what the target
    answered: its answer (an empty one too), or the error it gave instead."""
    per_target: dict[str, list[dict[str, Any]]] = {}
    for row in results.results:
        entry = dict(entries.get(row.nodeid) or {})
        if not (entry and row.target and row.ticket):
            continue
        metadata = {**entry.pop("metadata", row.metadata), "target": row.target}
        metadata["source"] = row.compare_key
        if row.answer is not None:
            entry["response"] = row.answer
        else:  # the target failed: its item's error, replayed as the same error
            metadata[SAVED_ERROR] = row.error or row.reason or "the target gave no answer"
        per_target.setdefault(row.target, []).append({**entry, "metadata": metadata})
    for target, saved in per_target.items():
        _one_of_each_id(saved)
        # secrets out, as in the trace: a key in a ticket is not saved for replay
        text = redact(json.dumps(saved, indent=2))
        write_atomically(folder / f"{target}.json", text + "\n")


def _one_of_each_id(saved: list[dict[str, Any]]) -> None:
    """An id that two eval files share (a warning there) is in one saved file twice, where a
    second would be an invalid entry: the later ones name their eval file, ``t1 (b.json)``,
    or a number (the answers are paired by ``metadata.source``, not by id)."""
    seen: set[str] = set()
    for entry in saved:
        name, count = entry["id"], 1
        file = Path(str(entry["metadata"]["source"]).rpartition("::")[0]).name
        while entry["id"] in seen or not _valid_id(entry["id"]):
            count += 1
            entry["id"] = f"{name} ({file})" if count == 2 else f"{name} ({count})"
        seen.add(entry["id"])


def _valid_id(entry_id: str) -> bool:
    try:
        validate_id(entry_id)
    except ValueError:
        return False
    return True

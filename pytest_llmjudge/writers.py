"""Every file the session writes at its end: results JSON, markdown report, GitHub step
summary, saved bot answers. Results and reports are written atomically.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .fileio import write_atomically
from .markdown import markdown_report, summary_markdown
from .schema import ResultsFile
from .settings import Settings


def dump(results: ResultsFile) -> str:
    """The results file's text."""
    return json.dumps(results.model_dump(mode="json", exclude_none=False), indent=2) + "\n"


def write_outputs(results: ResultsFile, settings: Settings, environ: Mapping[str, str]) -> None:
    """The results JSON, the markdown report and the GitHub step summary, as configured."""
    write_atomically(settings.output, dump(results))
    if settings.report is not None:
        write_atomically(settings.report, markdown_report(results))
    if settings.save_responses is not None:
        save_responses(results, settings.save_responses)
    step_summary = environ.get("GITHUB_STEP_SUMMARY")
    if step_summary:
        with open(step_summary, "a", encoding="utf-8") as handle:
            handle.write(summary_markdown(results) + "\n")


def save_responses(results: ResultsFile, folder: Path) -> None:
    """One static eval file per target, to replay a comparison without the bots."""
    per_target: dict[str, list[dict[str, Any]]] = {}
    for row in results.results:
        if row.target and row.answer and row.ticket:
            per_target.setdefault(row.target, []).append(
                {
                    "id": row.id,
                    "ticket": row.ticket,
                    "response": row.answer,
                    "metadata": {**row.metadata, "target": row.target, "source": row.compare_key},
                }
            )
    for target, entries in per_target.items():
        write_atomically(folder / f"{target}.json", json.dumps(entries, indent=2) + "\n")

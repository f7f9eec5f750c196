"""``python -m pytest_llmjudge``: the results file's schema, reports from results files, and
the results of several shards merged into one verdict.

    python -m pytest_llmjudge schema
    python -m pytest_llmjudge report RESULTS.json [MORE.json ...] [--html F] [--md F]
    python -m pytest_llmjudge merge shard-*.json -o merged.json [suite gate options]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

# The suite gates a merge evaluates, parsed as the pytest options of the same names are.
GATE_OPTIONS = (
    "--judge-min-pass-rate",
    "--judge-min-mean",
    "--judge-min-agreement",
    "--judge-label-margin",
    "--judge-baseline",
    "--judge-tie-tolerance",
)


def _parser() -> argparse.ArgumentParser:
    from .config.options import OPTIONS

    parser = argparse.ArgumentParser(prog="python -m pytest_llmjudge")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("schema", help="print the JSON Schema of the results file")
    report = commands.add_parser("report", help="write reports from results files")
    report.add_argument("results", nargs="+", type=Path, help="results JSON (several: merged)")
    report.add_argument("--html", type=Path, help="write the HTML report here")
    report.add_argument("--md", type=Path, help="write the markdown report here")
    merge = commands.add_parser("merge", help="merge the results of shards of one suite")
    merge.add_argument("results", nargs="+", type=Path, help="results JSON of each shard")
    merge.add_argument("-o", "--output", type=Path, required=True, help="merged results JSON")
    specs = {spec.flag: spec for spec in OPTIONS}
    for flag in GATE_OPTIONS:
        spec = specs[flag]
        merge.add_argument(flag, dest=spec.dest, metavar=spec.metavar, help=spec.help)
    merge.add_argument(
        "--judge-fail-on-regression",
        dest="fail_on_regression",
        action="store_true",
        help=specs["--judge-fail-on-regression"].help,
    )
    return parser


def _gates(args: argparse.Namespace) -> Any:
    from .config.options import OPTIONS
    from .outputs.merge import SuiteGates

    values: dict[str, Any] = {}
    for spec in OPTIONS:
        raw = getattr(args, spec.dest, None) if spec.flag in GATE_OPTIONS else None
        if raw is not None:
            try:
                values[spec.dest] = spec.parse(raw)
            except ValueError as exc:
                raise SystemExit(f"error: {spec.flag} {exc}") from None
    if "baseline" in values:
        values["baseline"] = Path(values["baseline"])
    return SuiteGates(**values, fail_on_regression=args.fail_on_regression)


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    if args.command == "schema":
        from .schema.results import json_schema

        print(json.dumps(json_schema(), indent=2))
        return 0
    from .basics.fileio import write_atomically
    from .outputs.merge import MergeError, SuiteGates, load_results, merge_results
    from .outputs.writers import dump
    from .reports.html import html_report
    from .reports.markdown import markdown_report
    from .reports.terminal import terminal_summary

    try:
        shards = [(str(path), load_results(path)) for path in args.results]
        if args.command == "merge":
            merged = merge_results(shards, _gates(args))
        else:
            merged = shards[0][1] if len(shards) == 1 else merge_results(shards, SuiteGates())
    except MergeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.command == "merge":
        write_atomically(args.output, dump(merged))
        shown = str(args.output)
    else:
        shown = None
        for path, render in ((args.html, html_report), (args.md, markdown_report)):
            if path is not None:
                write_atomically(path, render(merged))
                print(f"report: {path}")
    for line in terminal_summary(merged, shown):
        print(line)
    if args.command == "merge" and merged.meta.exit_status:
        return 1  # a gate failed over the union (or a shard's session failed)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

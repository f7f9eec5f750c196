"""``python -m pytest_llmjudge``: the results file's schema, reports from results files, the
results of several shards merged into one verdict, and the entries and runs a regression gate
needs.

    python -m pytest_llmjudge schema
    python -m pytest_llmjudge report RESULTS.json [MORE.json ...] [--html F] [--md F]
    python -m pytest_llmjudge merge shard-*.json -o merged.json [--gates GATES] [--baseline F]
    python -m pytest_llmjudge plan RESULTS.json [--drop D] [--baseline F]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

# The merge's options before the option surface was cut, and what replaces each.
_OLD_MERGE_OPTIONS = {
    "--judge-min-pass-rate": "--gates pass_rate=RATE",
    "--judge-min-mean": "--gates mean.DIM=SCORE",
    "--judge-min-agreement": "--gates METRIC=VALUE (spearman=0.6)",
    "--judge-fail-on-regression": "--gates regression",
    "--judge-baseline": "--baseline PATH",
    "--judge-label-margin": "--label-margin SCORE",
    "--judge-tie-tolerance": "--tie-tolerance SCORE",
}


def _parser() -> argparse.ArgumentParser:
    from .config.options import GATES_EXAMPLE

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
    merge.add_argument(
        "--gates", metavar="GATES", help=f"suite gates, as llmjudge_gates: {GATES_EXAMPLE}"
    )
    merge.add_argument("--baseline", type=Path, help="compare with an earlier results JSON")
    for name in ("label_margin", "tie_tolerance"):
        merge.add_argument(f"--{name.replace('_', '-')}", metavar="SCORE", help=_help(name))
    plan = commands.add_parser(
        "plan", help="entries and runs per entry a regression gate needs (Miller Eq. 9)"
    )
    plan.add_argument("results", type=Path, help="results JSON of an earlier session")
    plan.add_argument(
        "--drop", type=_positive, default=0.3, metavar="D",
        help="the drop in a dimension's mean to detect at 80%% power (default 0.3)",
    )  # fmt: skip
    plan.add_argument(
        "--baseline",
        type=Path,
        help="an earlier session's results: the spread of per-entry changes",
    )
    return parser


def _positive(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be above 0, got {text}")
    return value


def _help(name: str) -> str:
    from .config.options import OPTIONS_BY_DEST

    if name == "tie_tolerance":
        return "combined scores closer than this are a tie (default 0.01)"
    return OPTIONS_BY_DEST[name].help


def _gates(args: argparse.Namespace) -> Any:
    from .config.options import Number, gates
    from .outputs.merge import SuiteGates

    try:
        chosen = gates(args.gates or "")
    except ValueError as exc:
        raise SystemExit(f"error: --gates {exc}") from None
    margins = {}
    for name in ("label_margin", "tie_tolerance"):
        if (value := getattr(args, name)) is not None:
            try:
                margins[name] = Number(float, at_least=0)(value)
            except ValueError as exc:
                raise SystemExit(f"error: --{name.replace('_', '-')} {exc}") from None
    return SuiteGates(
        min_pass_rate=chosen.pass_rate,
        min_mean=chosen.mean,
        min_agreement=chosen.agreement,
        fail_on_regression=chosen.regression,
        undecided=chosen.undecided or "point",
        min_win_rate=chosen.win_rate,
        baseline=args.baseline,
        **margins,
    )


def _say(line: str) -> None:
    """A line on stdout. A reader that stopped early (``| head``) is no error of the command:
    the rest goes to devnull (as Python's docs advise for SIGPIPE), and the command ends
    quietly with its own status (a merge's verdict stays its verdict)."""
    try:
        print(line, flush=True)
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # (the interpreter's last flush goes there too)
        os.close(devnull)


def main(argv: list[str]) -> int:
    for arg in argv:
        instead = _OLD_MERGE_OPTIONS.get(arg.partition("=")[0])
        if instead:
            print(f"error: {arg.partition('=')[0]} was removed: use {instead}", file=sys.stderr)
            return 2
    args = _parser().parse_args(argv)
    if args.command == "schema":
        return _schema()
    from .basics.fileio import write_atomically
    from .outputs.merge import MergeError, SuiteGates, load_results, merge_results
    from .outputs.writers import dump
    from .reports.html import html_report
    from .reports.markdown import markdown_report
    from .reports.terminal import terminal_summary

    if args.command == "plan":
        return _plan(args)
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
        outputs = [(args.output, dump)]
    else:
        wanted = [(args.html, html_report), (args.md, markdown_report)]
        outputs = [(path, render) for path, render in wanted if path is not None]
    for path, render in outputs:
        try:
            write_atomically(path, render(merged))
        except OSError as exc:  # a folder that takes no file (/proc), a file where one must be
            other = exc.filename and Path(exc.filename).parent != path.parent  # not its temp
            where = f" ({exc.filename})" if other else ""
            print(f"error: could not write {path}: {exc.strerror}{where}", file=sys.stderr)
            return 2
        if args.command == "report":
            _say(f"report: {path}")
    shown = str(args.output) if args.command == "merge" else None
    for line in terminal_summary(merged, shown):
        _say(line)
    if args.command == "merge" and merged.meta.exit_status:
        return 1  # a gate failed over the union (or a shard's session failed)
    return 0


def _schema() -> int:
    from .schema.results import json_schema

    _say(json.dumps(json_schema(), indent=2))
    return 0


def _plan(args: argparse.Namespace) -> int:
    from .analysis.planner import plan_lines
    from .outputs.merge import MergeError, load_results

    try:
        results = load_results(args.results)
        baseline = load_results(args.baseline) if args.baseline else None
    except MergeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for line in plan_lines(results, args.drop, baseline):
        _say(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

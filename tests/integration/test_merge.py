"""``python -m pytest_llmjudge merge`` and ``report``: shards of one suite (here ``-k``
slices) merged into one results file, the suite gates evaluated over the union."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from helpers import entry, run, write_evals
from judge_server import JudgeServer

# ids no directory or file name contains: -k matches the names of parents too
SHARDS = {"shard-1": "qa or qb", "shard-2": "qc or qd", "shard-3": "qe or qf"}


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest_llmjudge", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )


def _shards(pytester: pytest.Pytester) -> list[str]:
    scores = {"qa": 5, "qb": 5, "qc": 4, "qd": 4, "qe": 4, "qf": 3}
    write_evals(
        pytester,
        [
            entry(
                k,
                # two entries have a reply cut off once: the merge counts them all
                f"answer {k} {{{{relevance={v}{' cutoff=1' * (k in ('qa', 'qd'))}}}}}",
                ticket=f"t-{k}",
                marks=["xfail"] if v == 3 else [],
            )
            for k, v in scores.items()
        ],
    )
    for name, selection in SHARDS.items():
        # each shard's session is green: the suite gate is the merge's, over the union
        assert run(pytester, "evals/", "-k", selection, f"--judge-output={name}.json").ret == 0
    return [f"{name}.json" for name in SHARDS]


def _read(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def test_three_shards_merge_into_one_verdict(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    files = _shards(pytester)
    shards = [_read(pytester.path / f) for f in files]
    assert [s["summary"]["total"] for s in shards] == [2, 2, 2]
    # the mean relevance over the union's items that gate (not the xfail) is 4.4
    red = _cli(pytester.path, "merge", *files, "-o", "merged.json", "--gates=mean.relevance=4.5")
    assert red.returncode == 1, red.stderr
    merged = _read(pytester.path / "merged.json")
    assert merged["summary"]["total"] == 6 and merged["summary"]["xfailed"] == 1
    assert [r["id"] for r in merged["results"]] == [f"q{x}" for x in "abcdef"]
    gate = next(g for g in merged["gates"] if g["name"] == "mean.relevance")
    assert (gate["passed"], gate["actual"]) == (False, pytest.approx(4.4))
    assert (
        merged["meta"]["calls"] == judge_server.count() == sum(s["meta"]["calls"] for s in shards)
    )
    assert merged["meta"]["tokens"]["total"] == sum(s["meta"]["tokens"]["total"] for s in shards)
    assert merged["meta"]["cut_off"] == sum(s["meta"]["cut_off"] for s in shards) == 2 * 2
    assert "gate FAILED: mean relevance 4.40 < 4.5 (over 5 items; 95% CI" in red.stdout
    green = _cli(pytester.path, "merge", *files, "-o", "merged.json", "--gates=mean.relevance=4.3")
    assert green.returncode == 0, green.stdout + green.stderr
    assert "6 eval items: 5 passed, 1 xfailed" in green.stdout


def test_merge_refuses_a_duplicated_item_and_another_judge(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    files = _shards(pytester)
    twice = _cli(pytester.path, "merge", files[0], files[1], files[0], "-o", "m.json")
    assert twice.returncode == 2 and not (pytester.path / "m.json").exists()
    assert "evals/support.json::qa is in shard-1.json and in shard-1.json" in twice.stderr
    other = _read(pytester.path / files[2])
    other["meta"]["judge"]["model"] = "gpt-4o"
    (pytester.path / "other.json").write_text(json.dumps(other))
    mixed = _cli(pytester.path, "merge", files[0], "other.json", "-o", "m.json")
    assert mixed.returncode == 2
    assert "shard-1.json and other.json were judged by different judges: model" in mixed.stderr
    other = _read(pytester.path / files[2])
    other["meta"]["runs"] = 3
    (pytester.path / "other.json").write_text(json.dumps(other))
    settings = _cli(pytester.path, "merge", files[0], "other.json", "-o", "m.json")
    assert settings.returncode == 2 and not (pytester.path / "m.json").exists()
    assert "shard-1.json and other.json were run with different settings: runs 1 != 3" in (
        settings.stderr
    )
    bad = _cli(pytester.path, "merge", files[0], "nothing.json", "-o", "m.json")
    assert bad.returncode == 2 and "nothing.json: file not found" in bad.stderr
    wrong = _cli(pytester.path, "merge", *files, "-o", "m.json", "--gates=pass_rate=2")
    assert wrong.returncode != 0 and "--gates must be between 0 and 1" in wrong.stderr
    # where nothing can be written: one line naming the path, no traceback
    where = _cli(pytester.path, "merge", *files, "-o", f"{files[0]}/m.json")
    assert where.returncode == 2 and "Traceback" not in where.stderr
    assert where.stderr == f"error: could not write {files[0]}/m.json: File exists ({files[0]})\n"
    proc = _cli(pytester.path, "report", files[0], "--md", "/proc/r.md")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("error: could not write /proc/r.md: "), proc.stderr


def test_report_renders_html_and_markdown_from_results_files(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    files = _shards(pytester)
    done = _cli(pytester.path, "report", *files, "--html", "r.html", "--md", "r.md")
    assert done.returncode == 0, done.stderr
    html = (pytester.path / "r.html").read_text()
    assert html.count('<tr data-outcome="') == 6
    assert (pytester.path / "r.md").read_text().startswith("#")
    assert "6 eval items" in done.stdout
    one = _cli(pytester.path, "report", files[0], "--html", "one.html")
    assert (pytester.path / "one.html").read_text().count('<tr data-outcome="') == 2
    assert one.returncode == 0


def test_shards_judged_in_batches_without_usage_merge_their_batches_and_unknown_tokens(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    judge_server.usage_left_out = {"usage"}  # no reply says its tokens
    write_evals(pytester, [entry(k, f"answer {k}", ticket=f"t-{k}") for k in ("qa", "qb")])
    batch = ("-o", "llmjudge_batch=true", "-p", "cacheprovider")
    for name in ("qa", "qb"):
        assert run(pytester, "evals/", "-k", name, f"--judge-output={name}.json", *batch).ret == 0
    merged = _cli(pytester.path, "merge", "qa.json", "qb.json", "-o", "merged.json")
    assert merged.returncode == 0, merged.stderr
    meta = _read(pytester.path / "merged.json")["meta"]
    assert meta["calls"] == 4 and meta["tokens"]["unknown_calls"] == 4  # none known
    assert "tokens unknown for 4 calls (the server did not say them)" in merged.stdout
    # both shards' batches, not the first shard's alone
    assert len(meta["batch"]["batches"]) == 2
    assert (meta["batch"]["calls"], meta["batch"]["runs"]) == (4, 4)
    assert meta["batch"]["tokens"]["unknown_calls"] == 4


def test_invalid_entries_of_the_shards_are_in_the_merged_results(
    pytester: pytest.Pytester,
) -> None:
    write_evals(pytester, [entry("qa"), entry("qb", ticket="t-qb"), {"id": "qbad", "ticket": "t"}])
    offline = "--judge-provider=heuristic"
    assert run(pytester, "evals/", offline, "-k", "qa or qbad", "--judge-output=a.json").ret == 1
    assert (
        run(pytester, "evals/", offline, "-k", "qb and not qbad", "--judge-output=b.json").ret == 0
    )
    merged = _cli(pytester.path, "merge", "a.json", "b.json", "-o", "merged.json")
    assert merged.returncode == 1, merged.stderr  # red for it, as the shard was
    results = _read(pytester.path / "merged.json")
    summary = results["summary"]
    assert (summary["invalid"], summary["errors"], summary["skipped"]) == (1, 1, 0)
    assert [e["id"] for e in results["invalid"]] == ["qbad"]
    assert "1 invalid entry (not measured, so the session is red" in merged.stdout
    assert re.search(r"evals/support.json:\d+ \(qbad\): Missing 'response' field", merged.stdout)


def _closed_pipe(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The command with its output into a pipe nobody reads any more (``| head`` gone)."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run(
            [sys.executable, "-m", "pytest_llmjudge", *args],
            cwd=cwd,
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
        )
    finally:
        os.close(write)


def test_a_reader_that_stops_early_ends_the_commands_quietly(pytester: pytest.Pytester) -> None:
    """``report ... | head``: the output's reader is gone; no BrokenPipeError traceback, and
    the command's own status (a merge's verdict) is kept."""
    write_evals(pytester, [entry(f"e{i}", f"Answer {i}: restart it.") for i in range(3)])
    run(pytester, "evals/", "--judge-output=one.json").assert_outcomes(passed=3)
    for args, status in (
        (("report", "one.json"), 0),
        (("schema",), 0),
        (("merge", "one.json", "-o", "m.json", "--gates", "pass_rate=1.0"), 0),
        (("merge", "one.json", "-o", "m.json", "--gates", "mean.relevance=5"), 1),
    ):
        done = _closed_pipe(pytester.path, *args)
        assert (done.stderr, done.returncode) == ("", status), args
    assert json.loads((pytester.path / "m.json").read_text())["summary"]["passed"] == 3


def test_a_shard_that_did_not_complete_keeps_the_merge_red(pytester: pytest.Pytester) -> None:
    """Ctrl-C stopped one shard after its first item: the merge of its results cannot be green
    (it was exit 0 with every item that ran passed), and says the suite did not complete."""
    write_evals(pytester, [entry(f"q{i}", f"Answer {i}: restart it.") for i in range(4)])
    pytester.makeconftest(
        "import pytest\n"
        "def pytest_runtest_setup(item):\n"
        "    if item.name == 'q3' and item.config.getoption('-k') == 'q2 or q3':\n"
        "        raise KeyboardInterrupt\n"
    )
    run(pytester, "evals/", "-k", "q0 or q1", "--judge-output=s1.json").assert_outcomes(passed=2)
    with pytest.raises(KeyboardInterrupt):  # (pytester raises what stopped the session)
        run(pytester, "evals/", "-k", "q2 or q3", "--judge-output=s2.json")
    assert _read(pytester.path / "s2.json")["meta"]["complete"] is False
    merged = _cli(pytester.path, "merge", "s1.json", "s2.json", "-o", "m.json")
    assert merged.returncode == 1, merged.stdout
    meta = _read(pytester.path / "m.json")["meta"]
    assert (meta["complete"], meta["exit_status"]) == (False, 1)
    assert "3 eval items: 3 passed" in merged.stdout
    assert "session did not complete: the results cover only what ran" in merged.stdout

"""Live judge progress: lines in a log (pytester), in place on a real pseudo-terminal."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys

import pytest

from helpers import API_KEY, SUBPROCESS, entry, run, write_evals
from judge_server import JudgeServer

LINE = re.compile(
    r"llmjudge: (\d+)/(\d+) runs judged, (\d+) judge calls, (\d+) in flight"
    r"(, \d+ waiting to retry)?"
)


def _slow_suite(pytester: pytest.Pytester, items: int = 12) -> None:
    write_evals(
        pytester, [entry(f"e{i}", f"r{i} {{{{delay=0.15}}}}", ticket=f"t{i}") for i in range(items)]
    )


def test_a_log_gets_a_progress_line_at_most_every_interval(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    _slow_suite(pytester)
    args = ("evals/", "--judge-runs=2", "--judge-concurrency=1", "-o", "llmjudge_progress=0.4")
    result = run(pytester, *args)
    result.assert_outcomes(passed=12)
    found = [LINE.search(line) for line in result.outlines]
    lines = [m for m in found if m is not None]
    assert len(lines) >= 2
    done = [int(m.group(1)) for m in lines]
    assert done == sorted(done) and all(d < 48 for d in done)  # a session under way
    assert {int(m.group(2)) for m in lines} == {48}  # 12 items x 2 dimensions x 2 runs
    assert all(int(m.group(3)) <= judge_server.count() for m in lines)
    assert all(0 <= int(m.group(4)) <= 1 for m in lines)  # --judge-concurrency=1
    # with -qq, with llmjudge_progress=0, and for a short session: nothing
    for quiet in (
        ("-qq",),
        (
            "-o",
            "llmjudge_progress=0",
        ),
    ):
        judge_server.reset()
        assert not any(LINE.search(x) for x in run(pytester, *args, *quiet).outlines)
    _slow_suite(pytester, items=2)  # 8 runs: a handful
    assert not any(LINE.search(x) for x in run(pytester, *args).outlines)


def test_a_terminal_gets_the_status_in_place(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    _slow_suite(pytester)
    # a terminal that takes escape sequences (whatever the machine running the tests says)
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "PY_COLORS")},
        "OPENAI_BASE_URL": judge_server.url,
        "OPENAI_API_KEY": API_KEY,
        "JUDGE_PROVIDER": "openai",
        "COLUMNS": "150",
        "TERM": "xterm-256color",
    }
    leader, follower = pty.openpty()
    command = [sys.executable, "-m", "pytest", *SUBPROCESS, "evals/", "-p", "no:randomly"]
    process = subprocess.Popen(
        [*command, "--judge-runs=2", "--judge-concurrency=1", "-p", "no:cacheprovider"],
        cwd=pytester.path,
        env=env,
        stdin=follower,
        stdout=follower,
        stderr=follower,
    )
    os.close(follower)
    output = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closed: pytest has ended
            break
        if not chunk:
            break
        output += chunk
    os.close(leader)
    assert process.wait(timeout=60) == 0
    text = output.decode()
    shown = re.findall(r"\x1b7 (llmjudge: [^\x1b]*)\x1b8", text)
    assert shown and all(LINE.match(s) for s in shown), text[-800:]
    # every status is taken away before pytest writes again: the progress line stays whole
    assert text.count("\x1b7") <= text.count("\x1b[K")
    plain = re.sub(r"\x1b7[^\x1b]*\x1b8|\x1b\[K|\x1b\[[0-9;]*m", "", text)
    assert re.search(r"evals/support\.json \.{12} +\[100%\]", plain), plain[-600:]
    assert API_KEY not in text

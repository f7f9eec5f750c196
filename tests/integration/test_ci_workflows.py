"""The two workflows of docs/ci.md, as the page shows them, run against a branch that
regressed and holds a broken entry: each must end red and name both.

The scripts of their ``run:`` steps are taken from the page and run by bash as GitHub's
runner runs them (``-eo pipefail``); the steps GitHub does itself (checkout, caches,
artifacts) are done here by copying files. The judge is the suite's test server, reached
through the key and base URL the workflows' environment carries.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from docs_blocks import block, run_steps
from helpers import API_KEY, entry, write_evals
from judge_server import JudgeServer

pytestmark = pytest.mark.timeout(600)

# pytest-shard's two options, as a conftest of the project: an item goes to the shard its node
# id's sha256 names, as pytest-shard does (whatever order other plugins such as pytest-randomly
# give the items)
SHARDS_STAND_IN = """
import hashlib


def pytest_addoption(parser):
    parser.addoption("--shard-id", type=int, default=0)
    parser.addoption("--num-shards", type=int, default=1)


def pytest_collection_modifyitems(config, items):
    shard, shards = config.getoption("shard_id"), config.getoption("num_shards")
    def owner(item):
        return int(hashlib.sha256(item.nodeid.encode()).hexdigest(), 16) % shards

    kept = [item for item in items if owner(item) == shard]
    config.hook.pytest_deselected(items=[item for item in items if item not in kept])
    items[:] = kept
"""


def _main(pytester: pytest.Pytester) -> None:
    """Main's suite: ten good answers."""
    pytester.makepyprojecttoml("[tool.pytest.ini_options]\n")
    pytester.makeconftest(SHARDS_STAND_IN)
    write_evals(
        pytester,
        [entry(f"t{i}", "Raise the heap. {{relevance=5}}", ticket=f"OOM {i}") for i in range(10)],
    )


def _branch(pytester: pytest.Pytester) -> None:
    """The branch: t3's answer fell from 5 to 4 (above its threshold: only the baseline sees
    it), and an entry lost its response."""
    score = {i: 4 if i == 3 else 5 for i in range(10)}
    entries = [
        entry(f"t{i}", f"Raise the heap. {{{{relevance={score[i]}}}}}", ticket=f"OOM {i}")
        for i in range(10)
    ]
    write_evals(pytester, [*entries, {"id": "broken", "ticket": "OOM 10"}])


def _step(pytester: pytest.Pytester, server: JudgeServer, script: str) -> tuple[int, str]:
    """One ``run:`` step in bash as the runner runs it: (exit status, output)."""
    env = {
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "HOME": str(pytester.path),
        "OPENAI_API_KEY": API_KEY,
        "OPENAI_BASE_URL": server.url,
    }
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
        cwd=pytester.path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return done.returncode, done.stdout + done.stderr


def _script(name: str, holds: str) -> str:
    (found,) = [script for script in run_steps(block(name)) if holds in script]
    return found


def test_the_single_job_workflow_fails_a_regression_and_names_it(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    evals = _script("ci_workflow", "pytest evals/")
    keep = _script("ci_workflow", "cp results/evals.json")
    _main(pytester)
    # the first run on main: no baseline yet, green, and says what it did not check
    status, output = _step(pytester, judge_server, evals)
    assert status == 0, output
    assert "regression: not checked (no baseline)" in output
    assert _step(pytester, judge_server, keep)[0] == 0
    _branch(pytester)
    status, output = _step(pytester, judge_server, evals)
    assert status != 0, output
    assert "regressed: evals/support.json::t3 relevance 5.00 -> 4.00" in output
    assert "broken" in output and "Missing 'response' field" in output


def test_the_sharded_workflow_fails_a_regression_and_names_it(
    pytester: pytest.Pytester, judge_server: JudgeServer
) -> None:
    shard = _script("ci_sharded", "pytest evals/")
    verdict = _script("ci_sharded", "pytest_llmjudge merge")
    keep = _script("ci_sharded", "cp merged.json")

    def run_shards() -> None:
        for number in range(3):
            script = shard.replace("${{ matrix.shard }}", str(number))
            assert _step(pytester, judge_server, script)[0] == 0  # `|| true`
        shutil.rmtree(pytester.path / "shards", ignore_errors=True)
        shutil.copytree(pytester.path / "results", pytester.path / "shards")  # the artifacts

    _main(pytester)
    run_shards()
    status, output = _step(pytester, judge_server, verdict)
    assert status == 0, output
    assert "regression: not checked (no baseline)" in output
    assert _step(pytester, judge_server, keep)[0] == 0
    _branch(pytester)
    run_shards()
    status, output = _step(pytester, judge_server, verdict)
    assert status != 0, output
    assert "regressed: evals/support.json::t3 relevance 5.00 -> 4.00" in output
    assert "broken" in output and "Missing 'response' field" in output

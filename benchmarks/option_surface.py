"""The option surface in three numbers: ``--judge-`` lines and ``llmjudge_`` ini keys in
``pytest --help``, and the environment variables the plugin reads in a session.

    python benchmarks/option_surface.py

The variables are counted as read (``os.environ[...]`` / ``.get``) by the plugin's own code
during ``pytest --collect-only evals/`` and ``--judge-provider=ollama`` (which reads the Ollama
variables), so names kept only to warn about their removal
(tested with ``in``) are not counted.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = str(ROOT / "pytest_llmjudge")

_PROBE = r"""
import os, sys
read = set()
original = type(os.environ).__getitem__
def recording(self, key):
    frame = sys._getframe(1)
    while frame.f_code.co_filename.endswith(("_collections_abc>", "_collections_abc.py", "os.py")):
        frame = frame.f_back  # .get() and friends: the caller is the one that reads
    if frame.f_code.co_filename.startswith(PACKAGE):
        read.add(key)
    return original(self, key)
type(os.environ).__getitem__ = recording
import pytest
for provider in ("auto", "ollama"):
    args = ["--collect-only", "-q", "-p", "no:randomly", "evals/"]
    pytest.main([*args, "--judge-provider=" + provider])
print("READ", " ".join(sorted(read)))
"""


def main() -> None:
    shown = subprocess.run(
        [sys.executable, "-m", "pytest", "--help", "-p", "no:randomly"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    flag_lines = [line for line in shown.splitlines() if "--judge-" in line]
    ini_lines = [line for line in shown.splitlines() if re.match(r"\s+llmjudge_\w+ ", line)]
    # every variable a judge might read is set, so that each lookup is made
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_", "OLLAMA_"))
    }
    probe = subprocess.run(
        [sys.executable, "-c", f"PACKAGE = {PACKAGE!r}\n" + _PROBE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    ).stdout
    read = next(line for line in probe.splitlines() if line.startswith("READ")).split()[1:]
    print(f"--judge- lines in pytest --help: {len(flag_lines)}")
    print(f"llmjudge_ ini keys in pytest --help: {len(ini_lines)}")
    print(f"environment variables the plugin reads: {len(read)} ({' '.join(read)})")


if __name__ == "__main__":
    main()

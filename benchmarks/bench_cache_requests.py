"""CPU of the judge cache around one request judged directly, without pytest or a server.

Run it by hand (it is not part of the test suite), with the package to measure first on
``PYTHONPATH`` (another commit's: ``git archive REF pytest_llmjudge | tar x -C DIR``):

    python benchmarks/bench_cache_requests.py              # 4,000 requests of 3 runs
    PYTHONPATH=DIR python benchmarks/bench_cache_requests.py

It does what the direct path does around each request of 3 runs into an empty cache folder:
the runs' keys, the look-up before the request (a miss), the keys again and the runs kept
after its reply, and prints this process's CPU time (``time.process_time``: system calls
included) per request. A package from before the cache kept a request's runs in its
database (no ``JudgeCache.put_runs``) is driven the way it was: a look-up and a file per run.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

import pytest_llmjudge
from pytest_llmjudge.basics.rubrics import RELEVANCE, TONE
from pytest_llmjudge.judges import RunResult
from pytest_llmjudge.judging.cache import JudgeCache

IDENTITY = {
    "provider": "openai-compatible",
    "base_url": "http://127.0.0.1:8000/v1",
    "model": "gpt-4o-mini",
    "temperature": 0.0,
}
RESULT = RunResult(4, "scripted relevance 4: the answer addresses the ticket accurately.", 150, 40)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("requests", nargs="?", type=int, default=4_000)
    requests = parser.parse_args().requests
    folder = Path(tempfile.mkdtemp(prefix="bench-cache-"))
    cache = JudgeCache(lambda: folder, IDENTITY)
    batched = hasattr(JudgeCache, "put_runs")
    asked = [
        (
            (RELEVANCE, TONE)[i % 2],
            f"Build {i // 2} fails with OOM (case {i // 2})",
            f"Raise the heap {i // 2}",
        )
        for i in range(requests)
    ]
    started = time.process_time()
    for dimension, ticket, response in asked:
        keys = [cache.key(dimension, ticket, response, run) for run in range(3)]
        if batched:
            cache.get_runs(keys)
        else:
            for key in keys:
                cache.get(key)
        keys = [cache.key(dimension, ticket, response, run) for run in range(3)]
        if batched:
            cache.put_runs([(key, RESULT) for key in keys])
        else:
            for key in keys:
                cache.put(key, RESULT)
    cpu = time.process_time() - started
    cache.close()
    shutil.rmtree(folder, ignore_errors=True)
    where = Path(pytest_llmjudge.__file__).parent.parent
    print(
        f"{where}: {cpu / requests * 1e6:.0f} us of CPU a request "
        f"({requests:,} requests, 3 runs each)"
    )


if __name__ == "__main__":
    main()

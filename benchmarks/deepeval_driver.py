"""DeepEval judging the benchmark's suite, for the side-by-side of ``bench_judge.py grouping
--deepeval PYTHON``: run by an interpreter that has ``deepeval`` installed (not a dependency
of this project), against the same test server (``OPENAI_BASE_URL``).

Each entry gets 2 dimensions x RUNS runs as G-Eval metrics (DeepEval has no runs: a run is a
metric of its own) with their evaluation steps given, so that no request goes to writing
steps; ``evaluate`` runs them asynchronously with ``max_concurrent`` as given, no cache, no
display. Prints one JSON line: the wall time of the process from its start (imports
included, as the plugin's run is timed from pytest's start) and the metrics scored.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

started = time.perf_counter()

from deepeval import evaluate  # noqa: E402
from deepeval.evaluate.configs import AsyncConfig, CacheConfig, DisplayConfig  # noqa: E402
from deepeval.metrics import GEval  # noqa: E402
from deepeval.models import GPTModel  # noqa: E402
from deepeval.test_case import LLMTestCase, LLMTestCaseParams  # noqa: E402

STEPS = {
    "relevance": ["Check whether the response addresses the ticket's problem."],
    "tone": ["Check whether the response is professional: not rude, not too casual."],
}


def main() -> None:
    suite, runs, concurrency = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    entries = json.loads(Path(suite).read_text(encoding="utf-8"))
    model = GPTModel(model="gpt-4o-mini", base_url=os.environ["OPENAI_BASE_URL"], api_key="bench")
    params = [LLMTestCaseParams.INPUT, LLMTestCaseParams.ACTUAL_OUTPUT]
    metrics = [
        GEval(name=f"{name}-{run}", evaluation_params=params, evaluation_steps=steps,
              model=model, threshold=0.5)
        for name, steps in STEPS.items()
        for run in range(runs)
    ]  # fmt: skip
    cases = [LLMTestCase(input=e["ticket"], actual_output=e["response"]) for e in entries]
    result = evaluate(
        cases,
        metrics,
        async_config=AsyncConfig(run_async=True, max_concurrent=concurrency),
        display_config=DisplayConfig(show_indicator=False, print_results=False),
        cache_config=CacheConfig(write_cache=False, use_cache=False),
    )
    scored = sum(
        1 for test in result.test_results for m in test.metrics_data or [] if m.score is not None
    )
    print(json.dumps({"wall": time.perf_counter() - started, "scored": scored}))


if __name__ == "__main__":
    main()

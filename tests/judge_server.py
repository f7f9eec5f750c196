"""A small OpenAI-compatible chat completions server for the test suite and the benchmark.

It stands in for the model over real HTTP on 127.0.0.1: the plugin talks to it through
the real ``openai`` client. Replies are scripted, either by a Python callable or by a
directive embedded in the judged response text, which works from eval files and across
xdist workers because the server counts requests itself:

    "Restart the pod. {{relevance=2,3,2 tone=4 fail=429x2 delay=0.2}}"

- ``<dimension>=a,b,c``: the n-th request for this (dimension, ticket, response) gets the
  n-th score, cycling.
- ``fail=<status>x<count>``: the first <count> requests of each dimension get <status>
  (429 carries ``retry-after-ms: 1``).
- ``malformed=<count>`` / ``outofrange=<count>``: the first <count> replies are not JSON /
  score 7.
- ``delay=<seconds>``: every reply is that late.

``context_chars`` makes longer prompts a 400 ``context_length_exceeded``, as a model would.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DIRECTIVE = re.compile(r"\{\{(.*?)\}\}")
DIMENSION = re.compile(r"You grade exactly one dimension: (\w+)")
TICKET = re.compile(r"<ticket-(\w+)>\n(.*?)\n</ticket-\1>", re.DOTALL)
RESPONSE = re.compile(r"<response-(\w+)>\n(.*?)\n</response-\1>", re.DOTALL)


@dataclass
class JudgeRequest:
    """One chat completion request as the server understood it."""

    dimension: str
    ticket: str
    response: str
    body: dict[str, Any]
    headers: dict[str, str]
    nth: int  # 0 for the first request of this (dimension, ticket, response)

    @property
    def response_format(self) -> str | None:
        fmt = self.body.get("response_format")
        return fmt.get("type") if isinstance(fmt, dict) else None


@dataclass
class Reply:
    """What the server answers: a score, or an error, or raw content."""

    score: int | None = 4
    reasoning: str = "scripted reasoning"
    status: int = 200
    content: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    error_message: str = "scripted error"


def _directive(text: str) -> dict[str, str]:
    found = DIRECTIVE.search(text)
    if not found:
        return {}
    return dict(part.split("=", 1) for part in found.group(1).split() if "=" in part)


def directive_script(request: JudgeRequest) -> Reply:
    """Default script: follow the ``{{...}}`` directive in the response, else score 4."""
    spec = _directive(request.response)
    delay = float(spec.get("delay", 0))
    if "fail" in spec:
        status, count = spec["fail"].split("x")
        if request.nth < int(count):
            headers = {"retry-after-ms": "1"} if status == "429" else {}
            return Reply(
                status=int(status), headers=headers, delay=delay, error_message=f"scripted {status}"
            )
        request.nth -= int(count)
    if request.nth < int(spec.get("malformed", 0)):
        return Reply(content="Sure! I would rate this a four.", delay=delay)
    if request.nth < int(spec.get("outofrange", 0)):
        return Reply(score=7, delay=delay)
    scores = [int(s) for s in spec.get(request.dimension, "4").split(",")]
    score = scores[request.nth % len(scores)]
    return Reply(score=score, reasoning=f"scripted {request.dimension} {score}", delay=delay)


class _Server(ThreadingHTTPServer):
    # socketserver's default backlog of 5 drops bursts of new connections, and the client
    # then waits a second for a SYN retry: a latency the plugin did not cause.
    request_queue_size = 256


class JudgeServer:
    """Threaded HTTP server; ``script`` decides each reply. Counts and peak concurrency."""

    def __init__(self) -> None:
        self.script: Callable[[JudgeRequest], Reply] = directive_script
        self.json_schema_supported = True
        self.context_chars: int | None = None  # longer prompts get 400 context_length_exceeded
        self.requests: list[JudgeRequest] = []
        self._seen: Counter[tuple[str, str, str]] = Counter()
        self._lock = threading.Lock()
        self.in_flight = 0
        self.peak_in_flight = 0
        self._httpd = _Server(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def start(self) -> JudgeServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def reset(self) -> None:
        with self._lock:
            self.script = directive_script
            self.json_schema_supported = True
            self.context_chars = None
            self.requests.clear()
            self._seen.clear()
            self.in_flight = 0
            self.peak_in_flight = 0

    def count(self, dimension: str | None = None) -> int:
        return sum(1 for r in self.requests if dimension in (None, r.dimension))

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    server.in_flight += 1
                    server.peak_in_flight = max(server.peak_in_flight, server.in_flight)
                try:
                    self._answer(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout): nothing to answer
                finally:
                    with server._lock:
                        server.in_flight -= 1

            def _answer(self, body: dict[str, Any]) -> None:
                request = server._understand(body, {k.lower(): v for k, v in self.headers.items()})
                if request.response_format == "json_schema" and not server.json_schema_supported:
                    self._send(
                        400,
                        {
                            "error": {
                                "message": "response_format json_schema is not "
                                "supported by this server",
                                "type": "invalid",
                            }
                        },
                    )
                    return
                prompt = sum(len(str(m.get("content", ""))) for m in body.get("messages", []))
                if server.context_chars is not None and prompt > server.context_chars:
                    message = (
                        f"This model's maximum context length is {server.context_chars} "
                        f"characters; your messages have {prompt}."
                    )
                    error = {"message": message, "code": "context_length_exceeded"}
                    self._send(400, {"error": error})
                    return
                reply = server.script(request)
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.status != 200:
                    payload = {"error": {"message": reply.error_message, "type": "scripted"}}
                    self._send(reply.status, payload, reply.headers)
                    return
                content = reply.content
                if content is None:
                    content = json.dumps({"score": reply.score, "reasoning": reply.reasoning})
                self._send(
                    200, _completion(body.get("model", "test-model"), content), reply.headers
                )

            def _send(
                self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None
            ) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

        return Handler

    def _understand(self, body: dict[str, Any], headers: dict[str, str]) -> JudgeRequest:
        text = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
        dimension = DIMENSION.search(text)
        ticket = TICKET.search(text)
        response = RESPONSE.search(text)
        key = (
            dimension.group(1).lower() if dimension else "?",
            ticket.group(2) if ticket else "",
            response.group(2) if response else "",
        )
        with self._lock:
            nth = self._seen[key]
            self._seen[key] += 1
            request = JudgeRequest(*key, body=body, headers=headers, nth=nth)
            self.requests.append(request)
        return request


def _completion(model: str, content: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": None},
                "finish_reason": "stop",
                "logprobs": None,
            }
        ],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
    }


if __name__ == "__main__":  # pragma: no cover - for trying the plugin by hand
    srv = JudgeServer().start()
    print(f"OPENAI_BASE_URL={srv.url}", flush=True)
    threading.Event().wait()

"""A small OpenAI-compatible chat completions server for the test suite and the benchmark.

It stands in for the model over real HTTP on 127.0.0.1: the plugin talks to it through
the real ``openai`` client. Replies are scripted, either by a Python callable or by a
directive embedded in the judged response text, which works from eval files and across
xdist workers because the server counts requests itself:

    "Restart the pod. {{relevance=2,3,2 tone=4 fail=429x2 delay=0.2}}"

- ``<dimension>=a,b,c``: the n-th sample (choice) for this (dimension, ticket, response)
  gets the n-th score, cycling; a request for ``n`` choices gets the next ``n`` samples.
- ``fail=<status>x<count>``: the first <count> requests of each dimension get <status>
  (429 carries ``retry-after-ms: 1``).
- ``malformed=<count>`` / ``outofrange=<count>``: the first <count> samples are not JSON /
  score 7.
- ``probs=3:0.2,4:0.7,5:0.1``: with ``logprobs`` asked, the score token's alternatives carry
  these probabilities (a share left over goes to a non-digit token); else the written score
  has probability 1.
- ``delay=<seconds>``: every reply is that late.
- ``cutoff=<count>``: the first <count> samples end with ``finish_reason: length``.

As OpenAI does: ``models`` (when set) are the models it serves: ``GET /v1/models/{model}``
answers 200 for them and any other model gets a 404 ``model_not_found``, there and on chat
completions (unset, every model is served); ``api_key`` (when set) answers any other bearer
with a 401 ``invalid_api_key``; ``forbidden_models`` get a 403; ``models_endpoint`` False
answers ``GET /v1/models/...`` with a plain 404, as servers without it do (vLLM, llama.cpp).
``drop_requests`` closes the connection of every chat request without a reply (counted as
received), as a server that crashes after the session has started.

Pairwise prompts (two answers, A shown first) are answered by ``pair_script``: the answer
whose directive scores it higher wins, equal is a tie; ``favour_first`` makes that share of
the replies pick the answer shown first (a judge biased by position).

Grouped prompts (``llmjudge_grouping=item``: every dimension of an item in one request) are
answered with one object per dimension, each part scripted as a request of that dimension
alone would be; requests and samples are counted under ``"relevance+tone"``.

``context_chars`` makes longer prompts a 400 ``context_length_exceeded``, as a model would;
``ignore_n`` answers one choice whatever ``n`` asks (as Ollama does); ``logprobs_supported``
False answers ``logprobs: null``. Prompt tokens are billed once per request (100), completion
tokens per choice (20 each; 20 per dimension of a grouped reply).

The Batch API (``/v1/files``, ``/v1/batches``) is ``batches`` (``batch_api.BatchAPI``): its
lines are answered by the same scripts, counted apart from chat ``requests``.

As llama.cpp's server does: ``max_choices`` answers a request for more choices with its 400
``Field 'n': Value must be between 1 <= value <= K``; ``slots`` serves that many requests at
once (the others wait their turn: a queue) and, with ``props``, says so at ``GET /props``
(``total_slots``); ``strip_fence`` writes the reply after a code fence (```` ```json ````) that
it strips from ``content`` but keeps in the logprobs' tokens; ``unsupported_params`` answers
a request naming one of them with a 400. A request whose client gave up (a timeout) leaves
the queue or its slot, as llama.cpp cancels it.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import selectors
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from batch_api import BatchAPI

DIRECTIVE = re.compile(r"\{\{(.*?)\}\}")
DIMENSION = re.compile(r"You (?:grade|compare) exactly one dimension: (\w+)")
GROUPED = re.compile(r"You grade \d+ dimensions, each on its own by its own rubric: ([\w, ]+)\.")
ANSWER = re.compile(r"<answer-([ab])-(\w+)>\n(.*?)\n</answer-\1-\2>", re.DOTALL)
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
    sample: int = 0  # 0 for the first choice ever answered for it; counts choices, not requests
    choice: int = 0  # which of the request's choices this reply is
    pair: tuple[str, str] | None = None  # a pairwise request: the answers shown as A and B
    parts: tuple[str, ...] = ()  # a grouped request (grouping by item): its dimensions

    @property
    def n(self) -> int:
        """Choices asked for."""
        return int(self.body.get("n") or 1)

    def block(self, name: str) -> str | None:
        """The text of a delimited block of the prompt (conversation, reference), if sent."""
        text = "\n".join(str(m.get("content", "")) for m in self.body.get("messages", []))
        found = re.search(rf"<{name}-(\w+)>\n(.*?)\n</{name}-\1>", text, re.DOTALL)
        return found.group(2) if found else None

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
    probs: dict[int, float] | None = None  # the score token's alternatives (logprobs)
    cut_off: bool = False  # finish_reason "length": the reply ran out of tokens
    parts: dict[str, Reply] | None = None  # a grouped reply: each dimension's
    body: Any = None  # sent as the whole reply's JSON instead of a chat completion


def scripted_score(text: str, dimension: str, sample: int = 0) -> int:
    """The score a directive gives ``text`` on a dimension (4 without one)."""
    scores = [int(s) for s in _directive(text).get(dimension, "4").split(",")]
    return scores[sample % len(scores)]


def pair_script(request: JudgeRequest, favour_first: float = 0.0) -> Reply:
    """A pairwise reply: the answer whose scripted score is higher wins, equal scores tie;
    with ``favour_first`` (0-1) that share of replies picks the answer shown first instead
    (a judge with a position bias), decided by a hash so runs are repeatable."""
    assert request.pair is not None
    first, second = request.pair
    a = scripted_score(first, request.dimension, request.sample)
    b = scripted_score(second, request.dimension, request.sample)
    winner = "A" if a > b else "B" if b > a else "tie"
    seed = f"{request.dimension}|{first}|{second}|{request.sample}".encode()
    if int.from_bytes(hashlib.sha256(seed).digest()[:4], "big") / 2**32 < favour_first:
        winner = "A"
    content = json.dumps({"reasoning": f"scripted: A {a}, B {b}", "winner": winner})
    return Reply(content=content)


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
    if request.sample < int(spec.get("malformed", 0)):
        return Reply(content="Sure! I would rate this a four.", delay=delay)
    if request.sample < int(spec.get("outofrange", 0)):
        return Reply(score=7, delay=delay)
    if request.sample < int(spec.get("cutoff", 0)):
        cut = '{"score": 4, "reasoning": "and so on and so on'
        return Reply(content=cut, delay=delay, cut_off=True)
    scores = [int(s) for s in spec.get(request.dimension, "4").split(",")]
    score = scores[request.sample % len(scores)]
    probs = None
    if "probs" in spec:
        pairs = (pair.split(":") for pair in spec["probs"].split(","))
        probs = {int(digit): float(p) for digit, p in pairs}
    return Reply(
        score=score, reasoning=f"scripted {request.dimension} {score}", delay=delay, probs=probs
    )


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
        self.ignore_n = False  # one choice whatever n asks, as Ollama does
        self.logprobs_supported = True
        self.max_choices: int | None = None  # more choices per request: llama.cpp's 400
        self.slots: int | None = None  # requests served at once; the others queue
        self.props = False  # GET /props says total_slots (as llama.cpp does)
        self.strip_fence = False
        #: what a reply's usage leaves out: "usage" (no usage at all) or counts in it
        self.usage_left_out: set[str] = set()
        self.unsupported_params: set[str] = set()
        self.models: set[str] | None = None  # None: every model is served
        self.forbidden_models: set[str] = set()
        self.api_key: str | None = None  # None: any key is taken
        self.models_endpoint = True
        self.drop_requests = False
        self.favour_first = 0.0  # share of pairwise replies that pick the answer shown first
        self.lookups: list[str] = []  # the models looked up (GET /v1/models/{model})
        self.batches = BatchAPI(self._batch_answer)  # /v1/files and /v1/batches
        self._queue: threading.Semaphore | None = None
        self.requests: list[JudgeRequest] = []
        #: tokens billed, as the usage of every completion answered says (chat and batch)
        self.billed: Counter[str] = Counter()
        self._seen: Counter[tuple[str, str, str]] = Counter()
        self._samples: Counter[tuple[str, str, str]] = Counter()
        self._lock = threading.Lock()
        self.in_flight = 0
        self.peak_in_flight = 0
        self.connections = 0  # TCP connections accepted
        self._httpd = _Server(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

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
            self.ignore_n = False
            self.logprobs_supported = True
            self.max_choices = None
            self.slots = None
            self.props = False
            self.strip_fence = False
            self.usage_left_out = set()
            self.unsupported_params = set()
            self.models = None
            self.forbidden_models = set()
            self.api_key = None
            self.models_endpoint = True
            self.drop_requests = False
            self.favour_first = 0.0
            self.lookups.clear()
            self.batches.reset()
            self._queue = None
            self.requests.clear()
            self.billed.clear()
            self._seen.clear()
            self._samples.clear()
            self.in_flight = 0
            self.peak_in_flight = 0
            self.connections = 0

    def count(self, dimension: str | None = None) -> int:
        """Requests received (for one dimension, or all)."""
        return sum(1 for r in self.requests if dimension in (None, r.dimension))

    def choices(self, dimension: str | None = None) -> int:
        """Choices answered (samples): a request for n choices answered in full counts n."""
        with self._lock:
            return sum(n for key, n in self._samples.items() if dimension in (None, key[0]))

    def _replies(self, request: JudgeRequest) -> list[Reply]:
        """The script's reply for each choice; the first decides status, delay and headers."""
        choices = 1 if self.ignore_n else max(1, request.n)
        key = (request.dimension, request.ticket, request.response)
        with self._lock:
            start = self._samples[key]
            replies = [
                self._reply(replace(request, sample=start + c, choice=c)) for c in range(choices)
            ]
            if replies[0].status == 200:
                self._samples[key] += choices
        return replies

    def _reply(self, request: JudgeRequest) -> Reply:
        """One choice's reply: scripted, pairwise, or for a grouped request one scripted reply
        per dimension (the first that is not a score decides the whole reply)."""
        if request.pair is not None:
            return pair_script(request, self.favour_first)
        if not request.parts:
            return self.script(request)
        parts = {name: self.script(replace(request, dimension=name)) for name in request.parts}
        odd = next((r for r in parts.values() if r.status != 200 or r.content is not None), None)
        delay = max(r.delay for r in parts.values())
        return odd or Reply(delay=delay, parts=parts, headers=next(iter(parts.values())).headers)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def setup(self) -> None:
                with server._lock:
                    server.connections += 1
                super().setup()

            def do_GET(self) -> None:
                path = self.path.rstrip("/")
                if self._batch_api("GET", b""):
                    return
                if path == "/props" and server.props and server.slots:
                    self._send(200, {"total_slots": server.slots, "n_ctx": 2048})
                elif path.startswith("/v1/models/") and server.models_endpoint:
                    model = path.removeprefix("/v1/models/")
                    with server._lock:
                        server.lookups.append(model)
                    if not self._refused(model):
                        self._send(200, {"id": model, "object": "model", "owned_by": "test"})
                else:
                    self._send(404, {"error": {"message": "File Not Found", "code": 404}})

            def _refused(self, model: str) -> bool:
                """Answer 401, 403 or 404 as OpenAI does when the key or the model is refused."""
                bearer = self.headers.get("authorization", "").removeprefix("Bearer ")
                if server.api_key is not None and bearer != server.api_key:
                    error = {"message": "Incorrect API key provided.", "code": "invalid_api_key"}
                    self._send(401, {"error": {**error, "type": "invalid_request_error"}})
                elif model and model in server.forbidden_models:
                    error = {"message": f"You have no access to model {model}.", "code": ""}
                    self._send(403, {"error": {**error, "type": "invalid_request_error"}})
                elif model and server.models is not None and model not in server.models:
                    message = f"The model `{model}` does not exist or you do not have access to it."
                    error = {"message": message, "code": "model_not_found"}
                    self._send(404, {"error": {**error, "type": "invalid_request_error"}})
                else:
                    return False
                return True

            def _batch_api(self, method: str, raw: bytes) -> bool:
                """Answer a Batch API request (files, batches); False for any other."""
                path = self.path.split("?")[0]
                if not path.startswith(("/v1/files", "/v1/batches")):
                    return False
                if self._refused(""):
                    return True
                content_type = self.headers.get("content-type", "")
                answer = server.batches.handle(method, path, raw, content_type)
                if answer is None:
                    self._send(404, {"error": {"message": "File Not Found", "code": 404}})
                    return True
                status, payload, drop = answer
                if drop:  # the work is done, the answer is lost on the way back
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                elif isinstance(payload, bytes):
                    self.send_response(status)
                    self.send_header("content-type", "application/octet-stream")
                    self.send_header("content-length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                else:
                    self._send(status, payload)
                return True

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                raw = self.rfile.read(length)
                if self._batch_api("POST", raw):
                    return
                body = json.loads(raw or b"{}")
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
                if server.drop_requests:
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                if self._refused(str(body.get("model", ""))):
                    return
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
                refused = sorted(server.unsupported_params & set(body))
                if refused:
                    message = f"Unsupported parameter: '{refused[0]}' is not supported here."
                    self._send(400, {"error": {"message": message, "param": refused[0]}})
                    return
                if server.max_choices is not None and request.n > server.max_choices:
                    message = (
                        f"Field 'n': Value must be between 1 <= value <= {server.max_choices}, "
                        f"but got {request.n}"
                    )
                    self._send(
                        400, {"code": 400, "message": message, "type": "invalid_request_error"}
                    )
                    return
                replies = server._replies(request)
                reply = replies[0]
                if not self._served_in_turn(reply.delay):
                    return  # the client gave up waiting: nothing to answer
                if reply.status != 200:
                    payload = {"error": {"message": reply.error_message, "type": "scripted"}}
                    self._send(reply.status, payload, reply.headers)
                    return
                if reply.body is not None:  # a proxy's or a broken server's 200
                    self._send(200, reply.body, reply.headers)
                    return
                top = int(body.get("top_logprobs") or 0)
                logprobs = bool(body.get("logprobs")) and server.logprobs_supported
                completion = _completion(
                    body.get("model", "test-model"),
                    replies,
                    top if logprobs else None,
                    server.strip_fence,
                )
                server._bill(completion, "chat")
                self._send(200, server._as_said(completion), reply.headers)

            def _served_in_turn(self, delay: float) -> bool:
                """Wait for a slot (with ``slots``), then ``delay``; False as soon as the
                client has closed the connection."""
                queue = server._queue_for_slots()
                while queue is not None and not queue.acquire(timeout=0.02):
                    if self._client_gone():
                        return False
                try:
                    deadline = time.monotonic() + delay
                    while time.monotonic() < deadline:
                        time.sleep(min(0.02, max(0.0, deadline - time.monotonic())))
                        if self._client_gone():
                            return False
                    return True
                finally:
                    if queue is not None:
                        queue.release()

            def _client_gone(self) -> bool:
                # selectors, not select(): a process with more than 1024 descriptors open
                # (a long in-process suite) would make select() refuse this connection
                with selectors.DefaultSelector() as selector:
                    selector.register(self.connection, selectors.EVENT_READ)
                    if not selector.select(timeout=0):
                        return False
                try:
                    return bool(self.connection.recv(1, socket.MSG_PEEK) == b"")
                except OSError:
                    return True

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

    def _queue_for_slots(self) -> threading.Semaphore | None:
        """With ``slots``: the semaphore a reply holds while it is made (the others queue)."""
        with self._lock:
            if self.slots and self._queue is None:
                self._queue = threading.Semaphore(self.slots)
            return self._queue

    def _batch_answer(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """A batch line answered as the chat endpoint answers it (not counted in requests)."""
        request = self._understand(body, {}, record=False)
        if self.max_choices is not None and request.n > self.max_choices:
            message = f"Field 'n': Value must be between 1 <= value <= {self.max_choices}"
            return 400, {"error": {"message": f"{message}, but got {request.n}", "param": "n"}}
        replies = self._replies(request)
        if replies[0].status != 200:
            return replies[0].status, {"error": {"message": replies[0].error_message}}
        top = int(body.get("top_logprobs") or 0)
        logprobs = bool(body.get("logprobs")) and self.logprobs_supported
        completion = _completion(
            body.get("model", "test-model"), replies, top if logprobs else None
        )
        self._bill(completion, "batch")
        return 200, self._as_said(completion)

    def _bill(self, completion: dict[str, Any], how: str) -> None:
        usage = completion["usage"]
        with self._lock:
            self.billed[f"{how}_requests"] += 1
            self.billed["prompt"] += usage["prompt_tokens"]
            self.billed["completion"] += usage["completion_tokens"]

    def _as_said(self, completion: dict[str, Any]) -> dict[str, Any]:
        """The completion as the server sends it: without what ``usage_left_out`` names (the
        server still billed it)."""
        if "usage" in self.usage_left_out:
            return {k: v for k, v in completion.items() if k != "usage"}
        usage = {k: v for k, v in completion["usage"].items() if k not in self.usage_left_out}
        return {**completion, "usage": usage}

    def _understand(
        self, body: dict[str, Any], headers: dict[str, str], record: bool = True
    ) -> JudgeRequest:
        text = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
        dimension = DIMENSION.search(text)
        group = GROUPED.search(text)
        parts = tuple(name.strip().lower() for name in group.group(1).split(",")) if group else ()
        ticket = TICKET.search(text)
        response = RESPONSE.search(text)
        answers = {found.group(1): found.group(3) for found in ANSWER.finditer(text)}
        pair = (answers["a"], answers["b"]) if {"a", "b"} <= set(answers) else None
        key = (
            "+".join(parts) if parts else dimension.group(1).lower() if dimension else "?",
            ticket.group(2) if ticket else "",
            response.group(2) if response else "\n---\n".join(pair or ()),
        )
        with self._lock:
            nth = self._seen[key]
            self._seen[key] += 1
            request = JudgeRequest(
                *key, body=body, headers=headers, nth=nth, pair=pair, parts=parts
            )
            if record:  # a chat request (a batch's lines are counted by the batch API)
                self.requests.append(request)
        return request


FENCE = "```json\n"


def _completion(
    model: str, replies: list[Reply], top_logprobs: int | None, strip_fence: bool = False
) -> dict[str, Any]:
    """A chat completion of one choice per reply; with ``top_logprobs`` (logprobs asked and
    supported) every token carries its alternatives. ``strip_fence``: the model wrote a code
    fence first; the content has it stripped, the tokens keep it (as llama.cpp does)."""
    choices = []
    for index, reply in enumerate(replies):
        content = reply.content
        if content is None and reply.parts is not None:
            content = json.dumps(
                {n: {"reasoning": r.reasoning, "score": r.score} for n, r in reply.parts.items()}
            )
        elif content is None:
            content = json.dumps({"score": reply.score, "reasoning": reply.reasoning})
        generated = FENCE + content + "\n```" if strip_fence else content
        choices.append(
            {
                "index": index,
                "message": {"role": "assistant", "content": content, "refusal": None},
                "finish_reason": "length" if reply.cut_off else "stop",
                "logprobs": None
                if top_logprobs is None
                else {
                    "content": _token_logprobs(generated, reply, top_logprobs),
                    "refusal": None,
                },
            }
        )
    completion_tokens = sum(20 * len(reply.parts or [reply]) for reply in replies)
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": choices,
        "usage": {
            "prompt_tokens": 100,
            "completion_tokens": completion_tokens,
            "total_tokens": 100 + completion_tokens,
        },
    }


TOKEN = re.compile(r"\d|\w+|\s+|[^\w\s]+")


def _token_logprobs(content: str, reply: Reply, top: int) -> list[dict[str, Any]]:
    """Content split into tokens (each digit its own, as tokenizers do); the score's digit
    carries ``reply.probs`` as its alternatives (in a grouped reply each dimension's score
    its own part's), every other token is certain."""
    scored = list(reply.parts.values()) if reply.parts else [reply]
    score_at = {
        found.start(1): part.probs
        for found, part in zip(re.finditer(r'"score":\s*(\d)', content), scored, strict=False)
    }
    tokens = []
    for found in TOKEN.finditer(content):
        text = found.group()
        alternatives = {text: 1.0}
        if found.start() in score_at:
            probs = score_at[found.start()] or {int(text): 1.0}
            alternatives = {str(digit): p for digit, p in probs.items()}
            if sum(probs.values()) < 0.999:  # the rest on a token that is not a score
                alternatives[" "] = 1 - sum(probs.values())
        ranked = sorted(alternatives.items(), key=lambda kv: -kv[1])[: max(top, 1)]
        tokens.append(
            {
                "token": text,
                "logprob": _log(alternatives.get(text, 1e-9)),
                "bytes": list(text.encode()),
                "top_logprobs": [
                    {"token": t, "logprob": _log(p), "bytes": list(t.encode())} for t, p in ranked
                ],
            }
        )
    return tokens


def _log(p: float) -> float:
    return math.log(p) if p > 0 else -9999.0


if __name__ == "__main__":  # pragma: no cover - for trying the plugin by hand
    srv = JudgeServer().start()
    print(f"OPENAI_BASE_URL={srv.url}", flush=True)
    threading.Event().wait()

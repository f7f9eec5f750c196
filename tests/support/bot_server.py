"""Small HTTP chat bots for the live-target tests: each answers POST {"message": ticket}."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class BotServer:
    """A bot on 127.0.0.1 whose reply is ``reply(ticket) -> (status, json body)``."""

    def __init__(
        self,
        reply: Callable[[str], tuple[int, Any]],
        route: Callable[[str, dict[str, str], str], tuple[int, Any, dict[str, str]]] | None = None,
    ) -> None:
        self.reply = reply
        # route(ticket, request headers, path) -> (status, payload, reply headers), when given
        self.route = route
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        bot = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
                with bot._lock:
                    bot.requests.append({"body": body, "headers": dict(self.headers)})
                message = str(body.get("message", ""))
                extra: dict[str, str] = {}
                if bot.route is not None:
                    status, payload, extra = bot.route(message, dict(self.headers), self.path)
                else:
                    status, payload = bot.reply(message)
                # bytes are sent as they are (not JSON); "__reason__" sets the reason phrase
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                self.send_response(status, extra.pop("__reason__", None))
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for name, value in extra.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        # a short poll: shutdown() at teardown returns within 50 ms, not half a second
        threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/chat"

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

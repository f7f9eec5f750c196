"""Two tiny support bots that answer the same tickets differently, for an A/B comparison.

    python examples/ab/bots.py          # python bot on :8001, dotnet bot on :8002

Both answer ``POST /chat {"message": "<ticket>"}`` with ``{"answer": "..."}``. The "python"
bot gives a direct technical fix; the "dotnet" bot is friendly and only points to support.
Standard library only.
"""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FIXES = {
    "oom": "The Maven build in the Jenkins pipeline runs out of heap (OOM): set "
    "MAVEN_OPTS=-Xmx2g in the pipeline environment and give the agent pod a 3Gi limit.",
    "crashloopbackoff": "The pod is in CrashLoopBackOff because its container keeps exiting "
    "after the deploy: run kubectl logs <pod> --previous, fix the config, "
    "or roll back the latest deploy with kubectl rollout undo.",
    "401": "The API returns 401 Unauthorized when the SSO token's aud or iss claim does not "
    "match the API configuration: compare them, and check clock skew after logging in.",
    "too many clients": "PostgreSQL has too many clients: the connections are exhausted. Put "
    "PgBouncer in transaction pooling mode and lower each pool below "
    "max_connections.",
    "certificate": "The TLS handshake fails because the certificate of the internal API has "
    "expired: renew it (check with openssl s_client -connect host:443).",
}


def precise_answer(ticket: str) -> str:
    lowered = ticket.lower()
    for keyword, fix in FIXES.items():
        if keyword in lowered:
            return fix
    return f"Please share the logs of the failing step so we can pin down: {ticket}"


def vague_answer(ticket: str) -> str:
    return (
        "Hi there!! Thanks so much for reaching out, we really appreciate it. Please contact "
        "our support team and they will sort it out!"
    )


def serve(answer: Any, port: int) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
            data = json.dumps({"answer": answer(str(body.get("message", "")))}).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


if __name__ == "__main__":
    # port 0: the system picks a free one; the lines below say which
    python_port, dotnet_port = (int(p) for p in (sys.argv[1:3] or ("8001", "8002")))
    python = serve(precise_answer, python_port)
    dotnet = serve(vague_answer, dotnet_port)
    print(f"python bot: http://127.0.0.1:{python.server_address[1]}/chat", flush=True)
    print(f"dotnet bot: http://127.0.0.1:{dotnet.server_address[1]}/chat", flush=True)
    threading.Event().wait()

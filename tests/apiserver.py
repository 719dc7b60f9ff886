"""A real HTTP server on 127.0.0.1 that plays a remote API: embeddings, rerankers, chat.

Each test gives a `respond(path, body, headers)` function that returns the JSON the real API
would, and may queue scripted misbehaviour first (a status with headers, a slow answer, a
dropped connection). Every request is recorded so tests can assert what was sent.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Responder = Callable[[str, Any, dict[str, str]], Any]


@dataclass
class Trouble:
    """One scripted misbehaviour, used for the next request."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    drop: bool = False  # close the connection without answering


@dataclass
class Request:
    path: str
    body: Any
    headers: dict[str, str]


class ApiServer:
    """The server and its script; `url` is its base address."""

    def __init__(self, respond: Responder) -> None:
        self.respond = respond
        self.troubles: list[Trouble] = []
        self.files: dict[str, bytes] = {}  # GET path -> body (JSON or bytes)
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                server.requests.append(Request(self.path, None, dict(self.headers.items())))
                data = server.files.get(self.path)
                if data is None:
                    self._send(404, {"error": "Repository not found"}, {})
                    return
                self.send_response(200)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length", 0)))
                body = json.loads(raw) if raw else None
                headers = {k.lower(): v for k, v in self.headers.items()}
                with server._lock:
                    server.requests.append(Request(self.path, body, headers))
                    trouble = server.troubles.pop(0) if server.troubles else None
                if trouble and trouble.delay:
                    time.sleep(trouble.delay)  # the server is slow, not the test
                if trouble and trouble.drop:
                    self.close_connection = True
                    self.connection.close()
                    return
                if trouble and trouble.status != 200:
                    self._send(trouble.status, trouble.body or {"error": {"message": "scripted"}}, trouble.headers)
                    return
                answer = server.respond(self.path, body, headers)
                if isinstance(answer, Trouble):  # the responder's own refusal (a 413 past a limit)
                    self._send(answer.status, answer.body, answer.headers)
                    return
                self._send(200, answer, {})

            def _send(self, status: int, payload: Any, extra: dict[str, str]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for key, value in extra.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def paths(self) -> list[str]:
        return [r.path for r in self.requests]


def word_vector(text: str, dims: int = 16) -> list[float]:
    """A deterministic bag-of-words vector: texts sharing words point the same way."""
    vec = [0.0] * dims
    for word in re.findall(r"[a-z]{3,}", text.lower()):
        vec[int(hashlib.md5(word.encode()).hexdigest(), 16) % dims] += 1.0
    vec[0] += 0.01  # never all zeros
    return vec


def serve(respond: Responder) -> Iterator[ApiServer]:
    """Run a server for the duration of a fixture."""
    server = ApiServer(respond)
    try:
        yield server
    finally:
        server.close()

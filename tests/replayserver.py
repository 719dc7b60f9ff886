"""A real HTTP server on 127.0.0.1 that replays recorded answers byte for byte: status,
headers (absolute URLs in them rewritten to this server) and body, plus scripted trouble
(a slow answer, a dropped connection, a truncated body, an endless one). Routes are keyed by path and query;
every request is kept so tests can check what was sent (e.g. If-None-Match)."""

from __future__ import annotations

import ast
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


@dataclass
class Reply:
    status: int = 200
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""
    delay: float = 0.0
    drop: bool = False  # close the connection without answering
    truncate: bool = False  # promise the whole body, send half of it, close
    endless: bool = False  # after the body, bytes without end (no length; until the client leaves)
    trickle: float = 0.0  # seconds between bytes: the whole answer (status line, headers, body), one at a time
    trickle_body: bool = False  # trickle only the body; the headers come at once


@dataclass
class Seen:
    path: str
    headers: dict[str, str]


Route = Callable[[Seen], Reply]
SKIPPED_HEADERS = {"transfer-encoding", "content-length", "connection", "content-encoding", "status"}


class ReplayServer:
    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.seen: list[Seen] = []
        self.endless_sent: list[int] = []  # bytes of each endless answer written before the client left
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                seen = Seen(self.path, {k.lower(): v for k, v in self.headers.items()})
                server.seen.append(seen)
                route = server.routes.get(self.path) or server.routes.get(self.path.split("?")[0])
                reply = route(seen) if route else Reply(404, [("Content-Type", "application/json")],
                                                        b'{"message":"Not Found"}')
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.drop:
                    self.close_connection = True
                    self.connection.close()
                    return
                body = reply.body.replace(b"https://api.github.com", server.url.encode())
                if reply.trickle:
                    self._trickle(reply, body)
                    return
                self.send_response(reply.status)
                for name, value in reply.headers:
                    if name.lower() not in SKIPPED_HEADERS:
                        self.send_header(name, value.replace("https://api.github.com", server.url))
                if reply.endless:
                    self.send_header("Connection", "close")
                    self.end_headers()
                    self.close_connection = True
                    sent = 0
                    try:
                        self.wfile.write(body)
                        for _ in range(4096):  # 256 MiB at most, should a client read on and on
                            self.wfile.write(b"<item>" + b"x" * 65530)
                            sent += 65536
                    except OSError:  # the client stopped reading and left
                        pass
                    server.endless_sent.append(sent)
                    return
                self.send_header("Content-Length", str(len(body)))
                if reply.truncate:
                    self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(body[: len(body) // 2] if reply.truncate else body)
                if reply.truncate:
                    self.close_connection = True

            def _trickle(self, reply: Reply, body: bytes) -> None:
                """Send the answer a byte every `reply.trickle` seconds, until it is sent or
                the client leaves (a server that is slow without end, never silent long
                enough for a per-read timeout)."""
                head = (f"HTTP/1.1 {reply.status} OK\r\nContent-Length: {len(body) * 1000}\r\n"
                        "Connection: close\r\n\r\n").encode()
                self.close_connection = True
                try:
                    if reply.trickle_body:
                        self.wfile.write(head)
                        self.wfile.flush()
                        head = b""
                    for byte in head + body * 1000:
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                        time.sleep(reply.trickle)
                except OSError:  # the client gave up
                    pass

        class Server(ThreadingHTTPServer):
            def handle_error(self, request: Any, client_address: Any) -> None:
                pass  # a client that gave up (timeouts are tested) is not a server error

        self.httpd = Server(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def route(self, path: str, *replies: Reply | Route) -> None:
        """Serve these replies in turn for `path` (the last one again after that)."""
        queue = list(replies)

        def answer(seen: Seen) -> Reply:
            item = queue.pop(0) if len(queue) > 1 else queue[0]
            return item(seen) if callable(item) else item

        self.routes[path] = answer

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@contextmanager
def replay() -> Iterator[ReplayServer]:
    server = ReplayServer()
    try:
        yield server
    finally:
        server.close()


def pygithub_exchanges(path: Path) -> list[tuple[str, Reply]]:
    """(request path, reply) of each exchange in a PyGithub ReplayData file (10 lines each:
    scheme, method, host, port, path, request headers, request body, status, response headers,
    response body)."""
    lines = path.read_text(encoding="utf-8").split("\n")
    out = []
    i = 0
    while i + 9 < len(lines):
        if lines[i] not in ("http", "https"):
            i += 1
            continue
        headers = [(str(k), str(v)) for k, v in ast.literal_eval(lines[i + 8])]
        out.append((lines[i + 4], Reply(int(lines[i + 7]), headers, lines[i + 9].encode("utf-8"))))
        i += 10
    return out

"""The web UI's server: a Starlette app on the HTTP stack mindex already ships, pages
rendered on the server (Jinja2, everything escaped), a little vendored JavaScript (htmx,
Cytoscape.js), nothing fetched at run time.

Guards, every request: the Host header must name this server (a page on another site cannot
reach it through DNS rebinding); off loopback a token is required (given once as `?token=`,
kept in an HttpOnly SameSite=Strict cookie, or as a bearer header); every write is a POST
carrying the page's CSRF token from an allowed Origin; answers carry a strict
Content-Security-Policy (scripts and styles from this server only, no inline script, no
frames).
"""

from __future__ import annotations

import hmac
import secrets
import sys
import threading
import time
from collections.abc import Callable
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode

from mindex.config import Settings
from mindex.errors import ConfigError
from mindex.serve.web.core import Core

LOOPBACK = {"127.0.0.1", "localhost", "::1"}
MAX_BODY = 1 << 20  # a form is small; a bigger body is refused before it is read whole
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
HEADERS = [(b"content-security-policy", CSP.encode()), (b"x-content-type-options", b"nosniff"),
           (b"referrer-policy", b"same-origin"), (b"x-frame-options", b"DENY"),
           (b"cache-control", b"no-store")]


class Guard:
    """ASGI middleware: Host check (on loopback), token (off loopback), security headers on
    every answer, and a bound on request bodies."""

    def __init__(self, app: Any, hosts: set[str], token: str | None) -> None:
        self.app, self.hosts, self.token = app, hosts, token

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers") or []}
        if self.hosts and headers.get("host", "").lower() not in self.hosts:
            await _plain(send, 421, "this server answers only to its own address (Host header refused)")
            return
        if self.token is not None and not self._allowed(scope, headers):
            await _plain(send, 401, "open the URL mindex printed (it carries the token), or send "
                                    "Authorization: Bearer <token>")
            return
        if self.token is not None and "token" in dict(parse_qsl(scope.get("query_string", b"").decode())):
            # The token came in the URL: keep it in a cookie and show a URL without it.
            rest = [(k, v) for k, v in parse_qsl(scope["query_string"].decode()) if k != "token"]
            cookie = SimpleCookie()
            cookie["mindex_token"] = self.token
            cookie["mindex_token"]["httponly"] = True
            cookie["mindex_token"]["samesite"] = "Strict"
            cookie["mindex_token"]["path"] = "/"
            location = scope["path"] + ("?" + urlencode(rest) if rest else "")
            await send({"type": "http.response.start", "status": 303, "headers": [
                *HEADERS, (b"location", location.encode()),
                (b"set-cookie", cookie["mindex_token"].OutputString().encode())]})
            await send({"type": "http.response.body", "body": b""})
            return
        length = headers.get("content-length", "0")
        if not length.isdigit() or int(length) > MAX_BODY:
            await _plain(send, 413, "request body too large (or without a length)")
            return

        started = time.perf_counter()

        async def sending(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                took = f"app;dur={(time.perf_counter() - started) * 1000:.1f}".encode()
                message = {**message, "headers": [*message.get("headers", []), *HEADERS, (b"server-timing", took)]}
            await send(message)

        await self.app(scope, receive, sending)

    def _allowed(self, scope: Any, headers: dict[str, str]) -> bool:
        assert self.token is not None
        expected = self.token.encode()
        query = dict(parse_qsl(scope.get("query_string", b"").decode()))
        cookie = SimpleCookie()
        try:
            cookie.load(headers.get("cookie", ""))
        except Exception:
            cookie = SimpleCookie()
        scheme, _, bearer = headers.get("authorization", "").strip().partition(" ")
        for given in (query.get("token", ""), cookie["mindex_token"].value if "mindex_token" in cookie else "",
                      bearer.strip() if scheme.lower() == "bearer" else ""):
            if given and hmac.compare_digest(given.encode(), expected):
                return True
        return False


async def _plain(send: Any, status: int, text: str) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [*HEADERS, (b"content-type", b"text/plain; charset=utf-8")]})
    await send({"type": "http.response.body", "body": (text + "\n").encode()})


def allowed_hosts(host: str, port: int) -> set[str]:
    """The Host headers a loopback server answers to (empty off loopback: the token guards)."""
    if host not in LOOPBACK:
        return set()
    return {f"{name}:{port}" for name in ("127.0.0.1", "localhost", "[::1]")}


def web_app(db: Path | str, settings: Settings, host: str, port: int, token: str | None,
            read_only: bool = False) -> Any:
    """The UI's ASGI app for a server at host:port.

    Raises:
        ConfigError: a non-loopback address without a token.
    """
    from mindex.serve.web.pages import routes

    if host not in LOOPBACK and not token:
        raise ConfigError(f"serving the UI on {host} would show the index to the network without a password; "
                          "set a token with --token or MINDEX_TOKEN, or bind 127.0.0.1")
    from contextlib import asynccontextmanager

    from starlette.applications import Starlette

    core = Core(db, settings)

    @asynccontextmanager
    async def lifespan(_: Any) -> Any:
        try:
            yield
        finally:
            core.close()

    origins = {f"http://{h}" for h in allowed_hosts(host, port)} or None
    app = Starlette(routes=routes(core, csrf=secrets.token_urlsafe(32), origins=origins, read_only=read_only),
                    lifespan=lifespan)
    return Guard(app, allowed_hosts(host, port), token)


def run_ui(db: Path | str, settings: Settings, host: str, port: int, token: str | None, open_browser: bool,
           read_only: bool = False, out: Callable[[str], None] | None = None) -> None:
    """Serve the UI on host:port (0: a free port) until interrupted; print its URL (on
    stderr, and to `out`), and open it in a browser when asked and one is there."""
    import uvicorn

    from mindex.serve.listen import bound_socket

    shown = f"[{host}]" if ":" in host else host
    listening = bound_socket(host, port, shown)
    port = listening.getsockname()[1]
    app = web_app(db, settings, host, port, token, read_only)
    url = f"http://{shown}:{port}/" + (f"?token={token}" if token else "")

    class Server(uvicorn.Server):
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets)
            if self.started:
                print(f"mindex: the UI is at {url}", file=sys.stderr, flush=True)
                if out is not None:
                    out(url)
                if open_browser:
                    import webbrowser

                    threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()

    Server(uvicorn.Config(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=5)).run(
        sockets=[listening])


__all__ = ["CSP", "Guard", "allowed_hosts", "run_ui", "web_app"]

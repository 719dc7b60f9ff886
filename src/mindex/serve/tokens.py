"""Named tokens for a shared HTTP server (`mindex serve --http --tokens tokens.toml`).

A tokens file holds one `[[token]]` table per client:

    [[token]]
    name = "ci-bot"                 # shown in the access log, never the secret
    sha256 = "9f86d0..."            # sha256 (hex) of the secret; `mindex new-token` writes this block
    access = "read"                 # read: search and look up; write: also save memory, workflows
    sources = ["api", "docs"]       # optional: only these sources

The gate in front of the MCP app checks the bearer secret against the digests, refuses a tool
the token may not use with a tool error that names the token (the client sees why), adds the
source to a call of a token limited to one, logs one line per request (time, token name, what
was called, status, milliseconds, and for a tool call how many results it gave; never a secret), and answers `GET /healthz` without a token.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import re
import secrets
import sys
import time
import tomllib
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mindex.errors import ConfigError



@functools.cache
def write_tools() -> frozenset[str]:
    """Tools that change what the index or the project holds (their operations are declared
    with `writes`), under every name an agent may call them by; everything else only reads."""
    from mindex.ops import operations

    return frozenset(name for op in operations().values() if op.writes and "mcp" in op.faces
                     for name in (op.tool, *op.aliases))


ACCESS = ("read", "write")


@dataclass(frozen=True)
class Token:
    """One client's right to use the server."""

    name: str
    digest: str
    access: str
    sources: tuple[str, ...] = ()


MAX_BODY = 8 << 20  # bytes of a request body the gate reads; more is refused with 413
ANSWER_KEPT = 1 << 22  # bytes of a response read for the access log's result count
PLAIN_METHODS = frozenset({"initialize", "ping", "-"})  # MCP methods without a slash; tool names have none

def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def load_tokens(path: Path) -> list[Token]:
    """Read and check a tokens file.

    Raises:
        ConfigError: unreadable, not TOML, or a token without a name or digest, with an unknown
            access, a malformed digest, or a name used twice; the message names the token.
    """
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read the tokens file {path}: {exc}; check the path given to --tokens") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"the tokens file {path} is not valid TOML ({exc}); fix it and start again") from None
    tables = data.get("token")
    if not isinstance(tables, list) or not tables:
        raise ConfigError(f"the tokens file {path} holds no [[token]] table; add one with `mindex new-token NAME`")
    tokens: list[Token] = []
    for number, table in enumerate(tables, start=1):
        where = f"{path}: token {number}"
        if not isinstance(table, dict):
            raise ConfigError(f"{where} is not a table; write each as [[token]] with name, sha256 and access")
        name, sha, access = table.get("name"), table.get("sha256"), table.get("access", "read")
        sources = table.get("sources", [])
        if not isinstance(name, str) or not name.strip():
            raise ConfigError(f"{where} has no name; give each token a name for the access log")
        where = f"{path}: token {name!r}"
        if not isinstance(sha, str) or len(sha) != 64 or any(c not in "0123456789abcdef" for c in sha.lower()):
            raise ConfigError(f"{where} needs sha256 = the 64 hex digits of its secret's SHA-256 "
                              "(`mindex new-token` prints the block); a secret itself never goes in the file")
        if access not in ACCESS:
            raise ConfigError(f"{where} has access = {access!r}; use \"read\" or \"write\"")
        if not isinstance(sources, list) or not all(isinstance(s, str) and s for s in sources):
            raise ConfigError(f"{where} has sources that are not a list of source names")
        if any(t.name == name for t in tokens):
            raise ConfigError(f"{where} is named twice; names must be unique (they identify clients in the log)")
        tokens.append(Token(name, sha.lower(), access, tuple(sources)))
    return tokens


def new_token(name: str, write: bool = False, sources: Collection[str] = ()) -> tuple[str, str]:
    """(secret, the TOML block to add to a tokens file) for a new client."""
    secret = "mdx_" + secrets.token_urlsafe(32)
    lines = ["[[token]]", f"name = {json.dumps(name)}", f'sha256 = "{digest(secret)}"',
             f'access = "{"write" if write else "read"}"']
    if sources:
        lines.append("sources = [" + ", ".join(json.dumps(s) for s in sources) + "]")
    return secret, "\n".join(lines) + "\n"


def check_call(token: Token, tool: str, arguments: dict[str, Any], source_tools: Collection[str]) -> str | None:
    """Why `token` may not make this tool call (None: it may). A token limited to one source
    gets it filled in where the call names none (`arguments` is changed)."""
    if tool in write_tools() and token.access != "write":
        return (f"the token {token.name!r} is read-only and {tool} writes; ask for a token with access = \"write\"")
    if token.sources:
        allowed = ", ".join(token.sources)
        if tool not in source_tools:
            return (f"the token {token.name!r} reads only the sources {allowed}, and {tool} is not limited to a "
                    "source; use a search or lookup tool with a source")
        source = arguments.get("source")
        if source is None:
            if len(token.sources) > 1:
                return f"the token {token.name!r} reads the sources {allowed}: name one in `source`"
            arguments["source"] = token.sources[0]
        elif source not in token.sources:
            return f"the token {token.name!r} may not read the source {source!r}; it reads {allowed}"
    return None


def _tool_error(message_id: Any, text: str) -> dict[str, Any]:
    """A JSON-RPC answer holding a tool error, in the SDK's own form of a tool result."""
    from mcp_types import CallToolResult, TextContent

    result = CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)
    return {"jsonrpc": "2.0", "id": message_id, "result": result.model_dump(by_alias=True, mode="json", exclude_none=True)}


class TokenGate:
    """ASGI middleware: named tokens, per-tool rights, the access log and `/healthz`."""

    def __init__(self, app: Any, tokens: list[Token], source_tools: Collection[str],
                 log: Callable[[str], None] | None = None, health: Callable[[], dict[str, Any]] | None = None) -> None:
        self.app, self.tokens, self.source_tools = app, tokens, frozenset(source_tools)
        self.log = log or (lambda line: print(line, file=sys.stderr, flush=True))
        self.health = health or (lambda: {"status": "ok"})

    def _who(self, scope: dict[str, Any]) -> Token | None:
        given = dict(scope.get("headers") or []).get(b"authorization", b"")
        scheme, _, credentials = given.strip().partition(b" ")
        if scheme.lower() != b"bearer" or not credentials.strip():
            return None
        seen = digest(credentials.strip().decode("utf-8", "replace"))
        found = None
        for token in self.tokens:  # compare with every digest, in constant time each
            if hmac.compare_digest(seen, token.digest):
                found = token
        return found

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = [0]
        answer: list[bytes] = []  # a tool call's response body, kept (up to a bound) to count results
        room = [0]  # bytes of it still to keep: set once the request is known to call a tool

        async def sending(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            elif message["type"] == "http.response.body" and room[0] > 0:
                answer.append(message.get("body", b""))
                room[0] -= len(answer[-1])
            await send(message)

        if scope["path"] == "/healthz" and scope["method"] in ("GET", "HEAD"):
            await _json(sending, 200, self.health())
            self._line(None, scope, "health", status[0], started)
            return
        token = self._who(scope)
        if token is None:
            await _json(sending, 401, {"error": "missing or unknown bearer token"}, [(b"www-authenticate", b"Bearer")])
            self._line(None, scope, "-", status[0], started)
            return
        what, called = "-", False
        if scope["method"] == "POST":
            read = await _body(receive)
            if read is None:
                await _json(sending, 413, {"error": f"request body over {MAX_BODY >> 20} MiB; no MCP call needs that"})
                self._line(token, scope, "(too large)", status[0], started)
                return
            what, denied, body = self._inspect(token, read)
            called = any("/" not in name and name not in PLAIN_METHODS for name in what.split(","))
            room[0] = ANSWER_KEPT if called else 0
            if denied is not None:
                await _json(sending, 200, denied)
                self._line(token, scope, what + " (refused)", status[0], started)
                return
            receive = _replay(body, receive)
        await self.app(scope, receive, sending)
        self._line(token, scope, what, status[0], started, outcome(b"".join(answer)) if called else "")

    def _inspect(self, token: Token, body: bytes) -> tuple[str, Any, bytes]:
        """(what the request calls, a refusal to send instead, the body to pass on)."""
        try:
            data = json.loads(body)
        except ValueError:
            return "-", None, body  # the MCP app answers malformed JSON itself
        messages = data if isinstance(data, list) else [data]
        names, changed = [], False
        for message in messages:
            if not isinstance(message, dict):
                continue
            method = message.get("method")
            if method != "tools/call":
                names.append(_printable(str(method)) if method else "-")
                continue
            params = message.get("params")
            params = params if isinstance(params, dict) else {}
            tool = str(params.get("name"))
            names.append(_printable(tool))
            arguments = params.get("arguments")
            arguments = arguments if isinstance(arguments, dict) else {}
            before = dict(arguments)
            why = check_call(token, tool, arguments, self.source_tools)
            if why is not None:
                return ",".join(names), _tool_error(message.get("id"), why), body
            if arguments != before:
                params["arguments"], changed = arguments, True
        return ",".join(names) or "-", None, json.dumps(data).encode() if changed else body

    def _line(self, token: Token | None, scope: dict[str, Any], what: str, status: int, started: float,
              counted: str = "") -> None:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        ms = (time.perf_counter() - started) * 1000
        tail = f" {counted}" if counted else ""
        self.log(f"{stamp} {token.name if token else '-'} {scope['method']} {_printable(scope['path'])} "
                 f"{what} {status} {ms:.1f} ms{tail}")


def _printable(text: str, limit: int = 200) -> str:
    """A client's words for the log, on one line and one field: spaces, controls and
    non-ASCII as backslash escapes (no forged lines or fields), at most `limit` characters."""
    shown = re.sub(r"[^\x21-\x7e]", lambda m: m.group().encode("unicode_escape").decode("ascii")
                   if m.group() != " " else "\\x20", text)
    return shown if len(shown) <= limit else shown[:limit] + "..."


def outcome(answer: bytes) -> str:
    """What a tool call answered, for the access log: `results=N` (the length of the first list
    in its structured content: results, files, matches, sources ...), `error` for a tool error,
    or "" when the body is not a readable MCP answer. JSON or server-sent events alike; never
    any of the text itself."""
    text = answer.decode("utf-8", "replace")
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        payloads = [stripped]
    else:  # server-sent events: the JSON messages are on `data:` lines
        payloads = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
    counts = []
    for payload in payloads:
        try:
            data = json.loads(payload)
        except ValueError:
            continue
        for message in data if isinstance(data, list) else [data]:
            result = message.get("result") if isinstance(message, dict) else None
            if not isinstance(result, dict):
                continue
            if result.get("isError"):
                counts.append("error")
                continue
            structured = result.get("structuredContent")
            found = next((len(v) for v in structured.values() if isinstance(v, list)), None) \
                if isinstance(structured, dict) else None
            counts.append(f"results={found}" if found is not None else "results=1")
    return ",".join(counts)


async def _body(receive: Any) -> bytes | None:
    """The request's body, or None past `MAX_BODY` (not read further: a client cannot make
    the server hold more than that)."""
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY:
            return None
        chunks.append(chunk)
        if not message.get("more_body"):
            break
    return b"".join(chunks)


def _replay(body: bytes, receive: Any) -> Any:
    """A receive that hands the app the body already read, then the client's own messages
    (a disconnect)."""
    sent = [False]

    async def replay() -> dict[str, Any]:
        if not sent[0]:
            sent[0] = True
            return {"type": "http.request", "body": body, "more_body": False}
        message: dict[str, Any] = await receive()
        return message

    return replay


async def _json(send: Any, status: int, payload: Any, headers: list[tuple[bytes, bytes]] | None = None) -> None:
    body = json.dumps(payload).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            *(headers or [])]})
    await send({"type": "http.response.body", "body": body})

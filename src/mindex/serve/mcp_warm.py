"""MCP over stdio with a warm start: the handshake is answered before the MCP SDK has loaded.

Importing the SDK takes about 0.6 s (its protocol types), most of a server's start-up. A
client's first messages ask only for things that never change between runs of one mindex
version: `initialize` (capabilities, server info, instructions; the protocol version is
negotiated as the SDK does) and the tool, prompt and resource lists. Those answers are
recorded from the real SDK server in `mcp_manifest.json`, shipped beside this file; a test
compares them with the live SDK's on every run, so they cannot drift.

From the start a thread opens the index and loads what a first search needs (`Engine.warm`).
A read-only tool call that comes before the SDK is needed is answered from the operation's
declaration as the SDK would answer it (`mcp_fast`); the SDK then loads in a thread, which
also starts 2 s after start if no such call came. At the first message neither can answer (a
write, a value the SDK would convert, an error), the SDK server takes over: it is handed the
client's `initialize` and `initialized` again (its answer to the repeated `initialize` is
dropped), then every message as it comes. If the manifest does not match the installed mindex
and MCP SDK, or `MINDEX_MCP_COLD=1`, the SDK serves from the start.

Refresh the manifest after changing a tool: `python -m mindex.serve.mcp_warm --write`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any

from mindex import __version__
from mindex.config import Settings

MANIFEST = Path(__file__).with_name("mcp_manifest.json")
# Requests answered from the manifest (without a cursor: one page holds everything).
LISTS = ("tools/list", "prompts/list", "resources/list", "resources/templates/list")
# Seconds after start when the SDK starts loading if no read came to be answered without it.
SDK_AFTER = 2.0


def load_manifest() -> dict[str, Any] | None:
    """The recorded answers, when they were recorded for the installed mindex and MCP SDK."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        data: dict[str, Any] = json.loads(MANIFEST.read_text(encoding="utf-8"))
        sdk = version("mcp")
    except (OSError, ValueError, PackageNotFoundError):
        return None
    return data if data.get("mindex") == __version__ and data.get("mcp") == sdk else None


def run_stdio(db: Path | str, settings: Settings) -> None:
    """Serve MCP over stdin/stdout until the client disconnects (see the module docstring)."""
    manifest = None if os.environ.get("MINDEX_MCP_COLD") == "1" else load_manifest()
    if manifest is None:
        from mindex.serve import mcp_server

        mcp_server.run_stdio(db, settings)  # the SDK from the first byte
        return
    # The protocol writes to a private copy of stdout; fd 1 itself points at stderr, so a
    # stray print can never corrupt the wire.
    wire = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8", newline="\n")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    loaded: dict[str, Any] = {}
    # The index and its model open on the other core at once; the SDK loads once a first read
    # has been answered without it (`mcp_fast`), or after a quiet moment, or when needed.
    warmed: list[Any] = []
    warmer = threading.Thread(target=_warm, args=(db, settings, warmed), name="mindex-mcp-warm", daemon=True)
    warmer.start()
    loader = _Loader(db, settings, loaded, warmer, warmed)
    quiet = threading.Timer(SDK_AFTER, loader.start)
    quiet.daemon = True
    quiet.start()
    stdin = sys.stdin.buffer
    replay: list[bytes] = []
    swallow: set[Any] = set()
    pending: list[bytes] = []
    ready = False  # the client said `initialized`: tool calls may come
    while not pending:
        line = stdin.readline()
        if not line:
            return  # the client left during the handshake
        answer = _answer(manifest, line, initialized=bool(swallow))
        answered_fast = False
        if answer is None:
            reply = _read_fast(line, warmer, warmed, settings.serve.token_budget) if ready else None
            if reply is None:
                pending.append(line)  # the SDK answers this one, and everything after it
                continue
            answered_fast = True
        else:
            reply, replayed = answer
            if replayed:
                replay.append(line)
                message = json.loads(line)
                if "id" in message:
                    swallow.add(message["id"])
                else:
                    ready = True
        if reply is not None:
            wire.write(json.dumps(reply, ensure_ascii=False, separators=(",", ":")) + "\n")
            wire.flush()
        if answered_fast:  # the SDK's import, on the other core, after the answer is out
            loader.start()
    quiet.cancel()
    loader.start()
    loader.thread.join()
    if "error" in loaded:
        raise loaded["error"]
    import anyio

    anyio.run(_hand_over, loaded["server"], [*replay, *pending], swallow, stdin, wire)


class _Loader:
    """The thread that imports the SDK and builds its server, started once."""

    def __init__(self, *args: Any) -> None:
        self.thread = threading.Thread(target=_load, args=args, name="mindex-mcp-load", daemon=True)
        self._lock = threading.Lock()

    def start(self) -> None:
        with self._lock:
            if not self.thread.is_alive() and self.thread.ident is None:
                self.thread.start()


def _read_fast(line: bytes, warmer: threading.Thread, warmed: list[Any], budget: int) -> dict[str, Any] | None:
    """The answer to a read-only tool call, made without the SDK (`mcp_fast`), or None."""
    from mindex.serve.mcp_fast import answer, reads

    try:
        message = json.loads(line)
    except ValueError:
        return None
    ident = message.get("id") if isinstance(message, dict) and message.get("jsonrpc") == "2.0" else None
    picked = reads(message) if isinstance(ident, (str, int)) and not isinstance(ident, bool) else None
    if picked is None:
        return None
    warmer.join()
    if not warmed:
        return None  # no index open: the SDK path says why
    try:
        reply = {"jsonrpc": "2.0", "id": ident, "result": answer(*picked, warmed[0], budget)}
    except Exception:  # any error is the SDK's to report, as always
        return None
    from mindex.logs import get_logger

    get_logger(__name__).debug("answered %s before the MCP SDK loaded", picked[0].tool)
    return reply


def _load(db: Path, settings: Settings, loaded: dict[str, Any], warmer: threading.Thread, warmed: list[Any]) -> None:
    try:
        from mindex.serve.mcp_server import build_server

        warmer.join()
        loaded["server"] = build_server(db, settings, warmed)
    except BaseException as exc:  # re-raised in the serving thread
        loaded["error"] = exc


def _warm(db: Path | str, settings: Settings, warmed: list[Any]) -> None:
    """Open the index and load what its first search needs (`Engine.warm`); anything that
    fails is left for the first tool call to report, as without a warm start."""
    if not isinstance(db, str) and not Path(db).exists():
        return  # no index yet: the first call says so, or a memory save makes it
    from mindex.index import Index

    index = None
    try:
        index = Index.with_settings(db, settings)
        index.warm()
    except Exception:
        if index is not None:
            index.close()
        return
    warmed.append(index)


def _answer(manifest: dict[str, Any], line: bytes, initialized: bool) -> tuple[dict[str, Any] | None, bool] | None:
    """(the reply, or None for a notification; whether the SDK must see the message again),
    or None when only the SDK can answer (anything but ping before `initialize`, as the SDK
    refuses lists then)."""
    try:
        message = json.loads(line)
    except ValueError:
        return None
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return None
    method, params, ident = message.get("method"), message.get("params") or {}, message.get("id")
    if not isinstance(params, dict):
        return None
    if method == "notifications/initialized" and ident is None:
        return None, True
    if ident is None or not isinstance(ident, (str, int)) or isinstance(ident, bool):
        return None
    if method == "initialize":
        requested = params.get("protocolVersion")
        versions = manifest["handshake_versions"]
        result = {**manifest["initialize"], "protocolVersion": requested if requested in versions
                  else manifest["latest_handshake"]}
        return {"jsonrpc": "2.0", "id": ident, "result": result}, True
    if method in LISTS and "cursor" not in params and initialized:
        return {"jsonrpc": "2.0", "id": ident, "result": manifest["lists"][method]}, False
    if method == "ping":
        return {"jsonrpc": "2.0", "id": ident, "result": {}}, False
    return None


async def _hand_over(server: Any, first: list[bytes], swallow: set[Any], stdin: IO[bytes], wire: IO[str]) -> None:
    """Run the SDK server on the lines given, then on stdin; drop its answers to `swallow`."""
    import anyio
    from mcp.server.stdio import stdio_server

    class Lines:
        def __aiter__(self) -> Any:
            return self._lines()

        async def _lines(self) -> Any:
            for line in first:
                yield line.decode("utf-8", "replace")
            while line := await anyio.to_thread.run_sync(stdin.readline):
                yield line.decode("utf-8", "replace")

    class Wire:
        async def write(self, text: str) -> None:
            try:
                ident = json.loads(text).get("id")
            except (ValueError, AttributeError):
                ident = None
            if ident is not None and ident in swallow:
                swallow.discard(ident)  # the SDK's answer to the repeated initialize
                return
            wire.write(text)

        async def flush(self) -> None:
            wire.flush()

    lowlevel = server._lowlevel_server
    async with stdio_server(stdin=Lines(), stdout=Wire()) as (read, write):  # type: ignore[arg-type]
        await lowlevel.run(read, write, lowlevel.create_initialization_options())


def record() -> dict[str, Any]:
    """The manifest, recorded from the SDK server itself (a real `mindex serve` process)."""
    import tempfile
    from importlib.metadata import version

    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION

    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "MINDEX_MCP_COLD": "1", "MINDEX_DB": str(Path(tmp) / "none.db")}
        requests: list[dict[str, Any]] = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
                     "params": {"protocolVersion": LATEST_HANDSHAKE_VERSION, "capabilities": {},
                                "clientInfo": {"name": "mindex-manifest", "version": __version__}}},
                    {"jsonrpc": "2.0", "method": "notifications/initialized"},
                    *({"jsonrpc": "2.0", "id": n, "method": method} for n, method in enumerate(LISTS, 2))]
        # One request at a time, each answered before the next: the SDK drops what is in
        # flight when stdin closes.
        proc = subprocess.Popen([sys.executable, "-P", "-m", "mindex", "serve"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True, env=env)
        assert proc.stdin is not None and proc.stdout is not None
        answers: dict[int, Any] = {}
        for request in requests:
            proc.stdin.write(json.dumps(request) + "\n")
            proc.stdin.flush()
            if "id" in request:
                message = json.loads(proc.stdout.readline())
                answers[message["id"]] = message["result"]
        proc.stdin.close()
        proc.wait(timeout=60)
    initialize = {k: v for k, v in answers[1].items() if k != "protocolVersion"}
    return {"mindex": __version__, "mcp": version("mcp"), "handshake_versions": list(HANDSHAKE_PROTOCOL_VERSIONS),
            "latest_handshake": LATEST_HANDSHAKE_VERSION, "initialize": initialize,
            "lists": {method: answers[n] for n, method in enumerate(LISTS, 2)}}


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        raise SystemExit("usage: python -m mindex.serve.mcp_warm --write")
    MANIFEST.write_text(json.dumps(record(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {MANIFEST}")

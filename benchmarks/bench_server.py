"""Throughput of a shared server: `mindex serve --http --tokens` over a PostgreSQL index, with
1, 4 and 16 MCP clients calling `search_docs` at once (each its own session over streamable
HTTP, as agents connect), for a fixed time each.

    python benchmarks/bench_server.py [--corpus DIR] [--seconds 20] [--servers 1]

Corpus: the PostgreSQL 15 HTML manual (Debian postgresql-doc-15), embedded with the packaged
model (the README's first command adds it); queries are section titles. The clients run in
this process beside the server on the same 2 cores, so the figures are a floor. `--servers N`
starts N server processes on the same database, the clients spread over them (what a reverse
proxy in front of several does).
"""

from __future__ import annotations

import argparse
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent.parent / "tests"))

from tables import pct, print_table  # noqa: E402

DEFAULT_CORPUS = Path("/usr/share/doc/postgresql-doc-15/html")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])



async def load(ports: list[int], secret: str, clients: int, seconds: float, queries: list[str]) -> tuple[int, list[float]]:
    import anyio
    import httpx2
    from mcp.client.client import Client
    from mcp.client.streamable_http import streamable_http_client

    times: list[float] = []
    done = [0]
    stop = time.monotonic() + seconds

    async def one(n: int) -> None:
        rng = random.Random(n)
        async with httpx2.AsyncClient(headers={"authorization": f"Bearer {secret}"}, timeout=60) as http:
            transport = streamable_http_client(f"http://127.0.0.1:{ports[n % len(ports)]}/mcp", http_client=http)
            async with Client(transport) as client:
                while time.monotonic() < stop:
                    started = time.perf_counter()
                    result: Any = await client.call_tool("search_docs", {"query": rng.choice(queries), "limit": 10})
                    assert not result.is_error
                    times.append((time.perf_counter() - started) * 1000)
                    done[0] += 1

    async with anyio.create_task_group() as group:
        for n in range(clients):
            group.start_soon(one, n)
    return done[0], times


def main() -> None:
    import anyio
    import pgserver

    from mindex import Index
    from mindex.config import EmbedSettings, IndexSettings
    from mindex.serve.tokens import new_token

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--servers", type=int, default=1)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="mindex-bench-server-"))
    server = pgserver.PgServer()
    procs: list[subprocess.Popen[str]] = []
    rows: list[tuple[str, str]] = []
    try:
        url = server.create("shared")
        with Index(url, IndexSettings(), embed=EmbedSettings()) as ix:
            ix.add_source(args.corpus, name="manual", kind="docs")
            ix.index()
            chunks = ix.status()["chunks"]
            titles = [h.title for h in ix.search("the", mode="keyword", limit=200).hits]
        queries = [t for t in titles if len(t) > 8][:100]
        secret, block = new_token("bench")
        (work / "tokens.toml").write_text(block)
        ports = []
        for n in range(args.servers):
            port = free_port()
            log = work / f"access-{n}.log"  # the access log goes to a file: a pipe left unread would fill
            with log.open("w") as sink:
                procs.append(subprocess.Popen(
                    [sys.executable, "-m", "mindex", "--db", url, "serve", "--http", "--port", str(port), "--tokens",
                     str(work / "tokens.toml")], stderr=sink, stdout=subprocess.DEVNULL, text=True))
            deadline = time.monotonic() + 60
            while "listening" not in log.read_text() and time.monotonic() < deadline:
                time.sleep(0.1)
            ports.append(port)
        anyio.run(load, ports, secret, 1, 3.0, queries)  # warm-up: model loaded, vectors read
        for clients in (1, 4, 16):
            count, times = anyio.run(load, ports, secret, clients, args.seconds, queries)
            rows.append((f"{clients} client{'s' if clients > 1 else ''}, {args.servers} server process"
                         f"{'es' if args.servers > 1 else ''}: calls/s, p50 / p95",
                         f"{count / args.seconds:.1f}/s, {pct(times, 50):.0f} / {pct(times, 95):.0f} ms"))
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(timeout=30)
        server.stop()
    print(f"search_docs (hybrid) over {chunks:,} chunks in PostgreSQL, named-token server, clients on the same host")
    print_table(rows)


if __name__ == "__main__":
    main()

"""The MCP server through the SDK's own client: in-process, then over real stdio and HTTP."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from mindex import Index
from mindex.config import Settings
from mindex.serve.mcp_server import build_server


def call(server: Any, work: Callable[[Client], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        async with Client(server) as client:
            return await work(client)

    return anyio.run(main)


def text_of(result: Any) -> str:
    return "\n".join(block.text for block in result.content)


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest) -> str:
    """Every test here runs on both backends (the index and the server over it)."""
    return str(request.param)


@pytest.fixture
def server(indexed: Index) -> Any:
    return build_server(indexed.location, Settings())


def test_tools_are_listed_with_agent_docstrings_and_schemas(server: Any) -> None:
    tools = call(server, lambda c: c.list_tools()).tools
    by_name = {t.name: t for t in tools}
    assert set(by_name) == {"search_docs", "search", "get_chunk", "list_sources", "search_code", "grep", "find_symbol",
                            "callers", "callees", "subclasses", "implementations", "impact", "research_code", "file_outline", "locate_files", "memory_save",
                            "memory_search", "memory_list", "memory_edit", "memory_forget", "knowledge_add", "knowledge_query",
                            "get_context", "context_save", "context_search", "workflow_create", "workflow_find",
                            "workflow_set_phase", "workflow_log_action", "workflow_log_commit", "workflow_set_status",
                            "workflow_list", "workflow_rollback_plan", "milestone_create", "milestone_show",
                            "milestone_list", "changelog_search", "changelog_since", "changelog_entity",
                            "changelog_release", "changelog_products", "changelog_synergies", "changelog_synergy"}
    for name, tool in by_name.items():  # docstrings written for an agent: when to use it, what comes back
        assert tool.description and len(tool.description) > 120, name
    assert "Use it first" in by_name["search_docs"].description
    assert set(by_name["search_docs"].input_schema["properties"]) == {"query", "limit", "mode", "source", "path", "rerank", "merge_adjacent"}
    assert "results" in by_name["search_docs"].output_schema["properties"]


CLIENT_CODE = '''def test_client(app):
    """How do I test my app with the test client: connection pool retries and backoff."""
    return app.test_client()


def retry_pool(pool):
    """Retry the connection pool with backoff."""
    return pool
'''


def test_search_docs_finds_docs_search_code_finds_code_and_search_finds_both(indexed: Index, tmp_path: Path) -> None:
    """With code indexed beside the docs, a how-to question over search_docs returns docs
    only (it said so and returned code); search_code returns code only; the mixed search is
    `search`, with a kind filter."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "client.py").write_text(CLIENT_CODE)
    (repo / "GUIDE.md").write_text("# Pooling\n\nRetry the connection pool with backoff from the test client.\n")
    indexed.add_source(repo, name="repo", kind="code")
    indexed.index()
    server = build_server(indexed.location, Settings())
    question = "connection pool retries backoff test client"

    def results(tool: str, **arguments: Any) -> list[dict[str, Any]]:
        found = call(server, lambda c: c.call_tool(tool, {"query": question, "limit": 50, **arguments}))
        return list(found.structured_content["results"])

    docs, code, both = results("search_docs"), results("search_code"), results("search")
    # the repository's own markdown is docs too (it found nothing of a repository added whole)
    assert docs and {(r["kind"], r.get("language")) for r in docs} == {("docs", None), ("code", "markdown")}
    assert [r["context"] for r in docs if r["kind"] == "code"] == ["GUIDE.md › Pooling"]
    assert code and {(r["kind"], r["language"]) for r in code} == {("code", "python")}
    assert {r["kind"] for r in both} == {"docs", "code"}
    assert {r["id"] for r in results("search", kind="code")} == {r["id"] for r in code}
    assert results("search_code", source="docs") == []  # the docs source holds no code
    assert [r["path"] for r in results("search_docs", source="repo")] == ["GUIDE.md"]


def test_search_docs_returns_markdown_and_structured_results(server: Any) -> None:
    result = call(server, lambda c: c.call_tool("search_docs", {"query": "connection pool", "limit": 3}))
    assert not result.is_error
    data = result.structured_content
    assert data["mode"] == "keyword" and data["results"][0]["path"] == "guide/pooling.md"
    text = text_of(result)
    assert "guide/pooling.md:1-4" in text and data["results"][0]["id"] in text


def test_search_docs_filters_by_source_and_path(server: Any) -> None:
    result = call(server, lambda c: c.call_tool("search_docs", {"query": "retries", "path": "reference/**"}))
    assert {r["path"] for r in result.structured_content["results"]} <= {
        "reference/changelog.txt", "reference/cli.rst", "reference/api.html", "reference/manual.pdf"
    }
    # A misspelt source is an error naming the registered ones, not an empty answer.
    result = call(server, lambda c: c.call_tool("search_docs", {"query": "retries", "source": "nope"}))
    assert result.is_error and "no source named 'nope'" in text_of(result) and "mindex sources" in text_of(result)


def test_answers_stay_within_the_token_budget(indexed: Index) -> None:
    settings = Settings(serve={"token_budget": 200})
    result = call(build_server(indexed.location, settings), lambda c: c.call_tool("search_docs", {"query": "the", "limit": 10}))
    text = text_of(result)
    assert len(text) / 4 < 200 + 150  # the budget plus the one-line-per-hit overflow list
    assert "More results" in text and len(result.structured_content["results"]) == 10


def test_get_chunk_and_list_sources(server: Any) -> None:
    found = call(server, lambda c: c.call_tool("search_docs", {"query": "PoolTimeout"}))
    chunk_id = found.structured_content["results"][0]["id"]
    chunk = call(server, lambda c: c.call_tool("get_chunk", {"chunk_id": chunk_id}))
    assert "PoolTimeout" in text_of(chunk) and chunk.structured_content["id"] == chunk_id
    listed = call(server, lambda c: c.call_tool("list_sources", {}))
    assert listed.structured_content["sources"][0]["documents"] == 7
    assert "| docs | docs | 7 |" in text_of(listed)


def test_unavailable_modes_and_unknown_ids_are_tool_errors(server: Any) -> None:
    semantic = call(server, lambda c: c.call_tool("search_docs", {"query": "x", "mode": "semantic"}))
    assert semantic.is_error and 'mode="keyword"' in text_of(semantic) and "--mode" not in text_of(semantic)
    missing = call(server, lambda c: c.call_tool("get_chunk", {"chunk_id": "ffffffffffffffff"}))
    assert missing.is_error and "matches no chunk" in text_of(missing)
    # a hint the agent can act on, not a shell command
    assert "use an id from a result of search_docs" in text_of(missing) and "mindex search" not in text_of(missing)
    unknown = call(server, lambda c: c.call_tool("callers", {"symbol": "no_such_definition"}))
    assert unknown.is_error and "find_symbol" in text_of(unknown) and "mindex symbols" not in text_of(unknown)


def test_missing_index_is_a_tool_error_not_a_crash(tmp_path: Path) -> None:
    server = build_server(tmp_path / "none.db", Settings())
    result = call(server, lambda c: c.call_tool("list_sources", {}))
    assert result.is_error and "mindex add" in text_of(result)


def test_stdio_server_speaks_only_protocol_on_stdout(indexed: Index) -> None:
    env = {**os.environ, "MINDEX_DB": str(indexed.location)}
    params = StdioServerParameters(command=sys.executable, args=["-m", "mindex", "serve"], env=env)
    result = call(params, lambda c: c.call_tool("search_docs", {"query": "backoff"}))
    assert result.structured_content["results"][0]["title"] == "Backoff"


def converse(db: Path | str, messages: list[dict[str, Any] | str], cold: bool, verbose: bool = False) -> Any:
    """Each message's answer from a real `mindex serve` process, one at a time (the warm
    start, or with MINDEX_MCP_COLD=1 the MCP SDK from the first byte); `verbose`: with the
    server's debug log too."""
    env = {**os.environ, "MINDEX_DB": str(db), "MINDEX_MCP_COLD": "1" if cold else "0"}
    proc = subprocess.Popen([sys.executable, "-m", "mindex", *(["-vv"] if verbose else []), "serve"], env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            stderr=subprocess.PIPE if verbose else None)
    assert proc.stdin is not None and proc.stdout is not None
    answers = []
    for message in messages:
        proc.stdin.write((message if isinstance(message, str) else json.dumps(message)) + "\n")
        proc.stdin.flush()
        if isinstance(message, dict) and "id" in message:  # a line that is not JSON gets no answer
            answers.append(json.loads(proc.stdout.readline()))
    proc.stdin.close()
    logged = ""
    if proc.stderr is not None:
        logged = proc.stderr.read()
        proc.stderr.close()
    assert proc.wait(timeout=30) == 0
    assert proc.stdout.read() == ""  # nothing else on the wire
    proc.stdout.close()
    # Timings differ from run to run; everything else must not.
    text = re.sub(r'"took_ms":\s*[0-9.e-]+', '"took_ms": 0', re.sub(r"\d+ ms\)", "N ms)", json.dumps(answers)))
    return (list(json.loads(text)), logged) if verbose else list(json.loads(text))


def test_the_warm_start_answers_exactly_as_the_sdk_server_does(indexed: Index) -> None:
    """The handshake comes from the recorded manifest while the SDK loads; every answer,
    before and after the SDK takes over, equals the SDK server's own."""
    hello = {"capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}
    messages: list[dict[str, Any] | str] = [
        {"jsonrpc": "2.0", "id": "early", "method": "ping"},
        "{not json",
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", **hello}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": "p", "method": "prompts/list"},
        {"jsonrpc": "2.0", "id": 2, "method": "resources/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "resources/templates/list"},
        {"jsonrpc": "2.0", "id": 4, "method": "ping"},
        {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "search_docs", "arguments": {"query": "backoff"}}},
        {"jsonrpc": "2.0", "id": 6, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "no_such_tool", "arguments": {}}},
    ]
    warm, cold = converse(indexed.location, messages, cold=False), converse(indexed.location, messages, cold=True)
    assert warm == cold
    assert warm[0] == {"jsonrpc": "2.0", "id": "early", "result": {}}
    assert warm[1]["result"]["protocolVersion"] == "2025-06-18" and warm[1]["result"]["serverInfo"]["name"] == "mindex"
    assert "Backoff" in json.dumps(warm[7]["result"])
    # Lists before any initialize: the SDK refuses them, and so does the warm start.
    early: list[dict[str, Any] | str] = [{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, *messages[2:4]]
    refused = converse(indexed.location, early, cold=False)
    assert refused == converse(indexed.location, early, cold=True) and "error" in refused[0]
    old = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "1999-01-01", **hello}}]
    assert converse(indexed.location, old, cold=False) == converse(indexed.location, old, cold=True)


def test_the_warm_start_loads_the_model_while_the_client_is_in_its_handshake(tmp_path: Path, added_minilm: Path) -> None:
    """With vectors in the index, `mindex serve` opens it and loads the model while the SDK
    imports, before any tool call asks (agents call their first tool seconds after they
    connect); the first search is then hybrid and answers as usual. Without vectors the model
    is never loaded."""
    from mindex.config import EmbedSettings

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "retry.md").write_text("# Retries\n\nRequests back off exponentially, capped at thirty seconds.\n")
    hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    for vectors in (True, False):
        db = tmp_path / f"{vectors}.db"
        embed = EmbedSettings(provider="onnx" if vectors else "none", models_dir=added_minilm)
        with Index(db, embed=embed) as index:
            index.add_source(docs, name="docs")
            index.index()
        env = {**os.environ, "MINDEX_DB": str(db), "MINDEX_EMBED__MODELS_DIR": str(added_minilm),
               "MINDEX_EMBED__PROVIDER": "onnx", "MINDEX_MCP_COLD": "0"}
        proc = subprocess.Popen([sys.executable, "-m", "mindex", "serve"], env=env, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True)
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(json.dumps(hello) + "\n")
            proc.stdin.flush()
            assert json.loads(proc.stdout.readline())["result"]["serverInfo"]["name"] == "mindex"

            def loaded() -> bool:
                return "onnxruntime" in Path(f"/proc/{proc.pid}/maps").read_text()

            deadline = time.monotonic() + 60
            while vectors and not loaded() and time.monotonic() < deadline:
                time.sleep(0.1)
            assert loaded() == vectors  # no tool call yet
            call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                    "params": {"name": "search_docs", "arguments": {"query": "how long do retries wait"}}}
            proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
            proc.stdin.write(json.dumps(call) + "\n")
            proc.stdin.flush()
            answer = json.loads(proc.stdout.readline())["result"]
            assert "thirty seconds" in json.dumps(answer)
            assert answer["structuredContent"]["mode"] == ("hybrid" if vectors else "keyword")
            assert loaded() == vectors
        finally:
            proc.stdin.close()
            proc.wait(timeout=30)
            proc.stdout.close()


def test_read_only_calls_are_answered_before_the_sdk_loads_exactly_as_it_would(indexed: Index) -> None:
    """A search sent at once after the handshake is answered from the operation's
    declaration, as the SDK server answers it; a write, a value the SDK would convert and an
    error go to the SDK as before."""
    hello = {"capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}
    messages: list[dict[str, Any] | str] = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", **hello}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
         "params": {"name": "search_docs", "arguments": {"query": "backoff", "limit": 3}}},
        {"jsonrpc": "2.0", "id": "m", "method": "tools/call",
         "params": {"name": "memory_search", "arguments": {"query": "backoff", "type": ["decision"]}}},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "get_chunk", "arguments": {"chunk_id": "zz"}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
         "params": {"name": "search", "arguments": {"query": "retry", "limit": "2"}}},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "list_sources", "arguments": {}}},
    ]
    fast, logged = converse(indexed.location, messages, cold=False, verbose=True)
    assert fast == converse(indexed.location, messages, cold=True)
    assert "Backoff" in json.dumps(fast[1]) and fast[3]["result"]["isError"] is True
    assert "answered search_docs before the MCP SDK loaded" in logged
    assert "answered memory_search before the MCP SDK loaded" in logged
    assert "answered get_chunk" not in logged and "answered search before" not in logged  # an error; "2" converted


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_http(db: Path | str, *args: str) -> tuple[subprocess.Popen[str], int]:
    port = free_port()
    env = {**os.environ, "MINDEX_DB": str(db)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "mindex", "serve", "--http", "--port", str(port), *args],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, port
        except OSError:
            if proc.poll() is not None:
                break
            time.sleep(0.05)
    proc.kill()
    raise AssertionError(proc.communicate()[1])


def post(port: int, headers: dict[str, str]) -> int:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/mcp", data=body, method="POST",
        headers={"content-type": "application/json", "accept": "application/json, text/event-stream", **headers},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        exc.close()
        return int(exc.code)


def test_http_off_loopback_requires_the_bearer_token(indexed: Index) -> None:
    proc, port = start_http(indexed.location, "--host", "0.0.0.0", "--token", "s3cret")
    try:
        assert proc.stderr is not None
        assert proc.stderr.readline().strip() == f"mindex: listening on http://0.0.0.0:{port}/mcp (bearer token required)"
        assert post(port, {}) == 401
        assert post(port, {"authorization": "Bearer wrong"}) == 401
        assert post(port, {"authorization": "s3cret"}) == 401
        assert post(port, {"authorization": "bearer s3cret"}) != 401  # RFC 7235: any case (past auth)
        assert post(port, {"authorization": "BEARER  s3cret "}) != 401

        async def work() -> Any:
            headers = {"authorization": "Bearer s3cret"}
            async with httpx2.AsyncClient(headers=headers) as http:
                transport = streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http)
                async with Client(transport) as client:
                    return await client.call_tool("search_docs", {"query": "Retry-After"})

        result = anyio.run(work)
        assert result.structured_content["results"][0]["path"] == "guide/retries.md"
    finally:
        proc.terminate()
        proc.communicate(timeout=10)


def test_http_refuses_to_bind_off_loopback_without_a_token(indexed: Index) -> None:
    env = {**os.environ, "MINDEX_DB": str(indexed.location)}
    env.pop("MINDEX_TOKEN", None)
    done = subprocess.run(
        [sys.executable, "-m", "mindex", "serve", "--http", "--host", "0.0.0.0", "--port", str(free_port())],
        env=env, capture_output=True, text=True, timeout=30,
    )
    assert done.returncode == 1 and "bearer token" in done.stderr


def test_empty_queries_are_tool_errors_and_hints_name_tool_parameters(server: Any) -> None:
    for tool in ("search_docs", "search_code"):
        empty = call(server, lambda c: c.call_tool(tool, {"query": "  "}))
        assert empty.is_error and "query is empty" in text_of(empty)
    bad = call(server, lambda c: c.call_tool("grep", {"pattern": "retry("}))
    assert bad.is_error and "fixed=true" in text_of(bad) and "-F" not in text_of(bad)


def test_the_documented_http_client_example_runs_against_a_real_server(indexed: Index) -> None:
    """docs/mcp.md's first Python example, as written, with the test server's port."""
    docs = (Path(__file__).parent.parent / "docs" / "mcp.md").read_text()
    example = docs.split("```python\n", 1)[1].split("```", 1)[0]
    proc, port = start_http(indexed.location)
    try:
        done = subprocess.run([sys.executable, "-c", example.replace(":8765/", f":{port}/")],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines()[0].startswith("guide/retries.md")
    finally:
        proc.terminate()
        proc.communicate(timeout=10)


def test_a_manifest_recorded_for_another_sdk_or_mindex_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mindex.serve import mcp_warm

    current = json.loads(mcp_warm.MANIFEST.read_text(encoding="utf-8"))
    assert mcp_warm.load_manifest() == current
    for field, value in (("mcp", "0.0.1"), ("mindex", "9.9.9")):
        stale = tmp_path / f"{field}.json"
        stale.write_text(json.dumps({**current, field: value}), encoding="utf-8")
        monkeypatch.setattr(mcp_warm, "MANIFEST", stale)
        assert mcp_warm.load_manifest() is None
    monkeypatch.setattr(mcp_warm, "MANIFEST", tmp_path / "missing.json")
    assert mcp_warm.load_manifest() is None


def test_calls_overlap_on_postgres_and_take_turns_on_sqlite(indexed: Index, backend: str) -> None:
    """Two tool calls at once: on PostgreSQL both run together, each on an index of its own
    (a barrier both must reach); on SQLite the one index answers them one after the other."""
    import threading

    from mindex.serve.mcp_core import Core

    core = Core(indexed.location, Settings(serve={"concurrency": 2}))
    meeting = threading.Barrier(2, timeout=20)
    spans: list[tuple[float, float, int]] = []

    def work(ix: Index) -> None:
        started = time.monotonic()
        assert ix.search("Retry-After", mode="keyword").hits
        if backend == "postgres":
            meeting.wait()  # broken (an error) unless the other call runs at the same time
        else:
            time.sleep(0.3)
        spans.append((started, time.monotonic(), id(ix)))

    async def both() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(core.call, work)
            group.start_soon(core.call, work)

    try:
        anyio.run(both)
        (a_start, a_end, a_ix), (b_start, b_end, b_ix) = sorted(spans)
        if backend == "postgres":
            assert a_ix != b_ix and b_start < a_end  # two indexes, at once
        else:
            assert a_ix == b_ix and b_start >= a_end  # one index, in turn
        anyio.run(core.call, lambda ix: spans.append((0.0, 0.0, id(ix))))  # an index is reused, not opened again
        assert len({ix for _, _, ix in spans}) == (2 if backend == "postgres" else 1)
    finally:
        core.close()


def test_a_tokens_server_refuses_a_body_too_large_and_logs_clients_words_on_one_line(indexed: Index,
                                                                                      tmp_path: Path) -> None:
    from mindex.serve.tokens import MAX_BODY, new_token

    secret, block = new_token("ci")
    (tmp_path / "tokens.toml").write_text(block)
    proc, port = start_http(indexed.location, "--tokens", str(tmp_path / "tokens.toml"))
    try:
        request = urllib.request.Request(f"http://127.0.0.1:{port}/mcp", data=b" " * (MAX_BODY + 1), method="POST",
                                         headers={"authorization": f"Bearer {secret}", "content-type": "application/json"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=30)
        assert refused.value.code == 413 and b"MiB" in refused.value.read()
        assert post(port, {"authorization": f"Bearer {secret}"}) not in (401, 413)  # the next request is served
        forged = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                  "params": {"name": "x 200 1.0 ms\n2026-01-01T00:00:00Z admin POST /mcp memory_forget", "arguments": {}}}
        hostile = urllib.request.Request(
            f"http://127.0.0.1:{port}/mcp", data=json.dumps(forged).encode(), method="POST",
            headers={"authorization": f"Bearer {secret}", "content-type": "application/json",
                     "accept": "application/json, text/event-stream"})
        try:
            urllib.request.urlopen(hostile, timeout=30).close()
        except urllib.error.HTTPError as exc:  # whatever the MCP app answers, the log is what is tested
            exc.close()
    finally:
        proc.terminate()
        _, log = proc.communicate(timeout=10)
    assert " ci POST /mcp (too large) 413 " in log and secret not in log
    assert not any(line.startswith("2026-01-01T00:00:00Z admin") for line in log.splitlines())  # no forged line
    assert " ci POST /mcp x\\x20200\\x201.0\\x20ms\\n2026-01-01T00:00:00Z\\x20admin" in log

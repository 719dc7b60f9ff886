"""The MCP server: search_docs, get_chunk and list_sources over stdio or streamable HTTP.

Each tool answers with compact markdown for the model (within a token budget) and the same
data as structured content for programs. In stdio mode nothing but protocol reaches stdout:
logs go to stderr.
"""

from __future__ import annotations

import hmac
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent
from pydantic import BaseModel, Field

from mindex import __version__
from mindex.config import Settings
from mindex.errors import ConfigError, MindexError
from mindex.index import Index
from mindex.serve import render

T = TypeVar("T")
LOOPBACK = {"127.0.0.1", "localhost", "::1"}

INSTRUCTIONS = """mindex indexes this project's documentation on the user's machine.
Use search_docs before answering questions about how a library, tool or this project works;
then get_chunk to read a result in full. list_sources shows what is indexed."""


class HitOut(BaseModel):
    """One search result."""

    id: str
    source: str
    kind: str
    path: str
    title: str
    context: str = Field(description="breadcrumb: path › heading › subheading")
    start_line: int | None = Field(description="1-based first line in the original file")
    end_line: int | None = Field(description="1-based last line, inclusive")
    page: int | None = Field(None, description="PDF page, where the document has pages")
    score: float
    snippet: str
    text: str


class SearchOut(BaseModel):
    """Ranked results of a search."""

    query: str
    mode: str
    took_ms: float
    results: list[HitOut]


class ChunkOut(BaseModel):
    """One chunk in full."""

    id: str
    source: str
    kind: str
    path: str
    title: str
    context: str
    start_line: int | None
    end_line: int | None
    page: int | None = None
    text: str


class SourceOut(BaseModel):
    """A registered source."""

    name: str
    kind: str
    root: str
    documents: int
    chunks: int
    indexed_at: float | None


class SourcesOut(BaseModel):
    """Every registered source."""

    sources: list[SourceOut]


class _Core:
    """One `Index` for the server's life; calls are serialized (one SQLite connection)."""

    def __init__(self, db: Path, settings: Settings) -> None:
        self.db, self.settings = db, settings
        self._index: Index | None = None
        self._lock = threading.Lock()

    def _open(self) -> Index:
        if self._index is None:
            self._index = Index(self.db, self.settings.index, create=False, embed=self.settings.embed,
                                search=self.settings.search)
        return self._index

    async def call(self, work: Callable[[Index], T]) -> T:
        """Run `work(index)` in a worker thread; a `MindexError` becomes a tool error."""

        def run() -> T:
            with self._lock:
                return work(self._open())

        try:
            return await anyio.to_thread.run_sync(run)
        except MindexError as exc:
            raise ToolError(str(exc)) from None

    def close(self) -> None:
        if self._index is not None:
            self._index.close()
            self._index = None


def _result(text: str, structured: BaseModel) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=structured.model_dump(mode="json"),
    )


def build_server(db: Path, settings: Settings) -> MCPServer:
    """Create the MCP server over the index at `db` (opened on first use)."""
    core = _Core(db, settings)
    budget = settings.serve.token_budget

    @asynccontextmanager
    async def lifespan(_: MCPServer) -> AsyncIterator[None]:
        try:
            yield
        finally:
            core.close()

    server: MCPServer = MCPServer("mindex", version=__version__, instructions=INSTRUCTIONS, lifespan=lifespan)

    @server.tool()
    async def search_docs(
        query: Annotated[str, Field(description="words, a question, or \"a quoted phrase\"")],
        limit: Annotated[int, Field(ge=1, le=100, description="how many results")] = 10,
        mode: Annotated[
            Literal["keyword", "semantic", "hybrid"] | None,
            Field(description="omit for the best mode available"),
        ] = None,
        source: Annotated[str | None, Field(description="only this source (see list_sources)")] = None,
        path: Annotated[str | None, Field(description="only files matching this glob, e.g. 'guide/**'")] = None,
        rerank: Annotated[bool | None, Field(description="rerank the top results (omit: as configured)")] = None,
        merge_adjacent: Annotated[bool | None, Field(description="join neighbouring chunks of a file into one result")] = None,
    ) -> Annotated[CallToolResult, SearchOut]:
        """Search the indexed documentation. Use it first for any question about how a
        library, tool or this project works, its configuration, APIs or behaviour.

        Returns the best-matching chunks, best first: each with its breadcrumb
        (file › heading), file path and line span, chunk id and full text while the token
        budget lasts; further hits are listed by id. Read one in full with get_chunk.
        Any text is a valid query; quote words to match them as a phrase.
        """
        result = await core.call(
            lambda ix: ix.search(query, limit, 0, mode, source, None, path, rerank=rerank, merge=merge_adjacent)
        )
        return _result(render.search_markdown(result, budget), SearchOut.model_validate(result.to_dict()))

    @server.tool()
    async def get_chunk(
        chunk_id: Annotated[str, Field(description="an id from search_docs results")],
    ) -> Annotated[CallToolResult, ChunkOut]:
        """Read one chunk in full by its id (from search_docs), with its file path, line
        span and heading breadcrumb. Use it when a search result looks relevant but was
        listed without its text or cut short.
        """
        hit = await core.call(lambda ix: ix.get(chunk_id))
        data = hit.to_dict()
        return _result(render.chunk_markdown(hit, budget), ChunkOut.model_validate(data))

    @server.tool()
    async def list_sources() -> Annotated[CallToolResult, SourcesOut]:
        """List the documentation sources in the index (name, kind, folder, document and
        chunk counts). Use it to learn what can be searched, or to pick a `source` filter.
        """
        listed = await core.call(lambda ix: ix.sources())
        out = SourcesOut(sources=[SourceOut.model_validate(s.to_dict()) for s in listed])
        return _result(render.sources_markdown(listed), out)

    return server


def run_stdio(db: Path, settings: Settings) -> None:
    """Serve MCP over stdin/stdout until the client disconnects."""
    build_server(db, settings).run("stdio")


class BearerAuth:
    """ASGI middleware: every HTTP request must carry `Authorization: Bearer <token>`."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                await send({
                    "type": "http.response.start", "status": 401,
                    "headers": [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")],
                })
                await send({"type": "http.response.body", "body": b'{"error": "missing or wrong bearer token"}'})
                return
        await self.app(scope, receive, send)


def http_app(db: Path, settings: Settings, host: str, token: str | None) -> Any:
    """The ASGI app for streamable HTTP at `/mcp`, behind a bearer token when one is set.

    Raises:
        ConfigError: a non-loopback address without a token.
    """
    from mcp.server.transport_security import TransportSecuritySettings

    if host not in LOOPBACK and not token:
        raise ConfigError(
            f"serving on {host} would expose the index to the network without a password; "
            "set a bearer token with --token or MINDEX_TOKEN, or bind 127.0.0.1"
        )
    security = None
    if host not in LOOPBACK:
        # Off loopback the bearer token is the guard; Host checks would refuse real clients.
        security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    app = build_server(db, settings).streamable_http_app(host=host, transport_security=security)
    return BearerAuth(app, token) if token else app


def run_http(db: Path, settings: Settings, host: str, port: int, token: str | None) -> None:
    """Serve MCP over streamable HTTP on host:port until interrupted."""
    import uvicorn

    app = http_app(db, settings, host, token)
    uvicorn.run(app, host=host, port=port, log_level="warning")

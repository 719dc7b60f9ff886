"""The MCP server over stdio or streamable HTTP: search_docs, get_chunk, list_sources, and
for code search_code, grep, find_symbol, callers, callees, impact and file_outline.

Each tool answers with compact markdown for the model (within a token budget) and the same
data as structured content for programs. In stdio mode nothing but protocol reaches stdout:
logs go to stderr.
"""

from __future__ import annotations

import hmac
import json
import sys
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
from mindex.modes import DEFAULT_MIN_CONFIDENCE
from mindex.serve import render

T = TypeVar("T")
LOOPBACK = {"127.0.0.1", "localhost", "::1"}

INSTRUCTIONS = """mindex indexes this project's documentation and code on the user's machine.
Use search_docs before answering questions about how a library, tool or this project works;
then get_chunk to read a result in full. list_sources shows what is indexed; search looks
through everything at once (docs, code, memory, knowledge, changelogs).
For code: locate_files names the files an issue or stack trace is about; search_code finds
code by meaning, grep by regex with exact lines, find_symbol
definitions by name; callers, callees and impact walk the call graph; file_outline lists
a file's definitions. Every code result carries a chunk id for get_chunk.
Memory: get_context at the start of a task (what was learned about the files you will
touch); memory_save whenever you decide, learn or finish something worth keeping;
memory_search to recall; knowledge_add for lasting learnings, patterns and mistakes."""


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
    language: str | None = Field(None, description="code only: the file's language")
    symbol: str | None = Field(None, description="code only: the definition the chunk holds, e.g. Session.send")
    symbol_kind: str | None = Field(None, description="code only: function, method, class, ...")


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


class LocatedChunkOut(BaseModel):
    """One of a located file's best chunks."""

    id: str
    start_line: int | None
    end_line: int | None
    context: str
    symbol: str | None
    score: float


class LocatedFileOut(BaseModel):
    """A file the question is likely about."""

    source: str
    path: str
    language: str | None
    score: float
    symbols: list[str] = Field(description="definitions in the file whose names the question holds")
    chunks: list[LocatedChunkOut]


class LocateOut(BaseModel):
    """Files best first."""

    query: str
    mode: str
    took_ms: float
    files: list[LocatedFileOut]


class GrepMatchOut(BaseModel):
    """One matching line (or, for multiline patterns, one match's lines)."""

    source: str
    path: str
    line: int = Field(description="1-based")
    column: int = Field(description="1-based, in characters")
    end_line: int
    text: str
    chunk_id: str | None = Field(description="the chunk holding the line: read it with get_chunk")
    symbol: str | None = Field(description="the innermost definition around the line")


class GrepOut(BaseModel):
    """Regex matches in path order."""

    pattern: str
    matches: list[GrepMatchOut]
    files_searched: int
    truncated: bool
    note: str | None = Field(None, description="why matches may be missing, and what to run")


class SymbolOut(BaseModel):
    """A definition."""

    name: str = Field(description="qualified: Class.method")
    kind: str
    source: str
    path: str
    language: str | None
    start_line: int
    end_line: int
    signature: str
    exported: bool
    chunk_id: str | None
    match: str | None = Field(None, description="find_symbol only: exact, prefix or fuzzy")


class SymbolsOut(BaseModel):
    """Definitions."""

    symbols: list[SymbolOut]


class EdgeOut(BaseModel):
    """A call: where it is, what it reaches, how sure the resolution is and why."""

    source: str
    path: str
    line: int
    scope: str | None = Field(description="the calling definition; null at module level")
    call: str = Field(description="as written, receiver.name")
    target: SymbolOut | None = Field(description="null: unresolved (outside the index)")
    confidence: float
    reason: str
    chunk_id: str | None


class EdgesOut(BaseModel):
    """Call edges per definition the name matched."""

    results: list[dict[str, Any]]


class _Core:
    """The server's indexes, opened on first use. On SQLite one `Index` answers one call at a
    time (one connection). On PostgreSQL up to `serve.concurrency` calls run at once, each on
    an `Index` of its own (its own connections; nothing shared between threads): the database
    does the waiting, so calls overlap instead of queueing behind one another."""

    def __init__(self, db: Path | str, settings: Settings) -> None:
        self.db, self.settings = db, settings
        self.size = settings.serve.concurrency if isinstance(db, str) else 1
        self._free: list[Index] = []
        self._all: list[Index] = []
        self._slots = threading.BoundedSemaphore(self.size)
        self._lock = threading.Lock()

    def _open(self, create: bool = False) -> Index:
        return Index(self.db, self.settings.index, create=create, embed=self.settings.embed,
                     search=self.settings.search, memory=self.settings.memory, agents=self.settings.agents)

    def _take(self, create: bool) -> Index:
        with self._lock:
            if self._free:
                return self._free.pop()
        index = self._open(create)
        with self._lock:
            self._all.append(index)
        return index

    async def call(self, work: Callable[[Index], T], create: bool = False) -> T:
        """Run `work(index)` in a worker thread; a `MindexError` becomes a tool error.
        `create` lets a tool that writes (memory_save) make the index on first use."""

        def run() -> T:
            with self._slots:
                index = self._take(create)
                try:
                    return work(index)
                finally:
                    with self._lock:
                        self._free.append(index)

        try:
            return await anyio.to_thread.run_sync(run)
        except MindexError as exc:
            raise ToolError(for_agent(str(exc))) from None

    def close(self) -> None:
        with self._lock:
            opened, self._all, self._free = self._all, [], []
        for index in opened:
            index.close()


# Hints written for a shell user, said the way an agent calls the tools.
_AGENT_WORDS = (
    ("use -F to search for the text as it is", "set fixed=true to search for the text as it is"),
    ("--limit and --max-count 1 or more", "limit 1 or more"),
    ("add --source or more of the path", "pass source or more of the path"),
    ("search with `--mode keyword`", 'search with mode="keyword"'),
    ("--rerank with no reranker configured", "rerank=true with no reranker configured"),
    ("copy an id from `mindex search --json`", "use an id from a result of search_docs, search_code or search"),
    ("(see `mindex symbols find`)", "(find_symbol finds definitions by part of their name)"),
    ("(see `mindex grep -l` or `mindex sources`)", "(file paths are relative to their source; see list_sources)"),
    ("list them with `mindex workflow list`", "list them with workflow_list"),
    ("list them with `mindex milestone list`", "list them with milestone_list"),
    ("(`mindex workflow resume` sets a paused or failed one running again)",
     "(workflow_set_status with status running sets a paused or failed one running again)"),
    ("see `mindex sources`", "see list_sources"),
)


def for_agent(message: str) -> str:
    """An error message with its command-line hints turned into tool parameters."""
    for shell, tool in _AGENT_WORDS:
        message = message.replace(shell, tool)
    return message


def _query_given(query: str) -> None:
    """Refuse an empty query: it would match nothing in particular and return arbitrary text."""
    if not query.strip():
        raise ToolError("query is empty; pass the words, question or identifier to search for")


def _result(text: str, structured: BaseModel) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=structured.model_dump(mode="json"),
    )


_MinConfidence = Annotated[float, Field(
    ge=0, le=1, description="leave out calls resolved with less confidence; 0 lists every guess")]


def build_server(db: Path | str, settings: Settings) -> MCPServer:
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
        """Search the indexed documentation (docs sources only: no code, memory or
        changelogs). Use it first for any question about how a library, tool or this project
        works, its configuration, APIs or behaviour.

        Returns the best-matching chunks, best first: each with its breadcrumb
        (file › heading), file path and line span, chunk id and full text while the token
        budget lasts; further hits are listed by id. Read one in full with get_chunk.
        Any text is a valid query; quote words to match them as a phrase.
        """
        _query_given(query)
        result = await core.call(
            lambda ix: ix.search(query, limit, 0, mode, source, "docs", path, rerank=rerank, merge=merge_adjacent)
        )
        return _result(render.search_markdown(result, budget), SearchOut.model_validate(result.to_dict()))

    @server.tool()
    async def search(
        query: Annotated[str, Field(description="words, a question, identifiers, or \"a quoted phrase\"")],
        limit: Annotated[int, Field(ge=1, le=100, description="how many results")] = 10,
        kind: Annotated[
            Literal["docs", "code", "memory", "knowledge", "changelog"] | None,
            Field(description="only sources of this kind; omit for all"),
        ] = None,
        mode: Annotated[
            Literal["keyword", "semantic", "hybrid"] | None,
            Field(description="omit for the best mode available"),
        ] = None,
        source: Annotated[str | None, Field(description="only this source (see list_sources)")] = None,
        path: Annotated[str | None, Field(description="only files matching this glob, e.g. 'src/**'")] = None,
    ) -> Annotated[CallToolResult, SearchOut]:
        """Search everything indexed at once: documentation, code, memory, knowledge and
        changelogs, ranked together. Use it when the answer could be in any of them; prefer
        search_docs for documentation and search_code for code, which rank within one kind.

        Returns chunks best first, each with its source, kind, breadcrumb, path and line
        span, chunk id and text while the token budget lasts.
        """
        _query_given(query)
        result = await core.call(lambda ix: ix.search(query, limit, 0, mode, source, kind, path))
        return _result(render.search_markdown(result, budget), SearchOut.model_validate(result.to_dict()))

    @server.tool()
    async def get_chunk(
        chunk_id: Annotated[str, Field(description="an id from a search result")],
    ) -> Annotated[CallToolResult, ChunkOut]:
        """Read one chunk in full by its id (from any search tool), with its file path, line
        span and heading breadcrumb. Use it when a search result looks relevant but was
        listed without its text or cut short.
        """
        hit = await core.call(lambda ix: ix.get(chunk_id))
        data = hit.to_dict()
        return _result(render.chunk_markdown(hit, budget), ChunkOut.model_validate(data))

    @server.tool()
    async def list_sources() -> Annotated[CallToolResult, SourcesOut]:
        """List the sources in the index (name, kind, folder, document and
        chunk counts). Use it to learn what can be searched, or to pick a `source` filter.
        """
        listed = await core.call(lambda ix: ix.sources())
        out = SourcesOut(sources=[SourceOut.model_validate(s.to_dict()) for s in listed])
        return _result(render.sources_markdown(listed), out)

    @server.tool()
    async def search_code(
        query: Annotated[str, Field(description="what the code does, in words, or identifiers")],
        limit: Annotated[int, Field(ge=1, le=100, description="how many results")] = 10,
        language: Annotated[str | None, Field(description="only this language: python, go, typescript, ...")] = None,
        symbol_kind: Annotated[str | None, Field(description="only chunks with a definition of this kind: function, method, class, ...")] = None,
        path: Annotated[str | None, Field(description="only files matching this glob, e.g. 'src/**'")] = None,
        source: Annotated[str | None, Field(description="only this source (see list_sources)")] = None,
    ) -> Annotated[CallToolResult, SearchOut]:
        """Search indexed source code by meaning and keywords ("where are retries with
        backoff configured", "parse config file"). Use it to find where something is
        implemented when you do not know the exact identifier; use grep for exact text or
        regexes and find_symbol for a known name.

        Returns chunks (whole functions or classes where they fit) best first, each with path,
        exact line span, language, the symbol it holds and its text while the token budget
        lasts.
        """
        _query_given(query)
        result = await core.call(lambda ix: ix.search(query, limit, 0, None, source, "code", path,
                                                      language=language, symbol_kind=symbol_kind))
        return _result(render.search_markdown(result, budget), SearchOut.model_validate(result.to_dict()))

    @server.tool()
    async def locate_files(
        issue: Annotated[str, Field(description="an issue's text, a bug report, an error message or a stack trace")],
        limit: Annotated[int, Field(ge=1, le=50, description="how many files")] = 10,
        path: Annotated[str | None, Field(description="only files matching this glob, e.g. 'src/**'")] = None,
        source: Annotated[str | None, Field(description="only this source (see list_sources)")] = None,
        language: Annotated[str | None, Field(description="only this language")] = None,
    ) -> Annotated[CallToolResult, LocateOut]:
        """Which files is this issue about? Give the whole text of a bug report, a feature
        request or a stack trace; get the files most likely to need reading or changing, best
        first, each with its best chunks (line spans, the definition they hold, chunk ids for
        get_chunk) and the definitions in it that the text names. Use it at the start of a
        task, before reading code.
        """
        _query_given(issue)
        result = await core.call(lambda ix: ix.locate(issue, limit, None, source, path, language))
        return _result(render.locate_markdown(result, budget), LocateOut.model_validate(result.to_dict()))

    @server.tool()
    async def grep(
        pattern: Annotated[str, Field(description="a Python regex (or plain text with fixed=true)")],
        path: Annotated[str | None, Field(description="only files matching this glob, e.g. 'src/**/*.py'")] = None,
        ignore_case: Annotated[bool, Field(description="match case-insensitively")] = False,
        fixed: Annotated[bool, Field(description="the pattern is plain text, not a regex")] = False,
        multiline: Annotated[bool, Field(description="let matches span lines")] = False,
        context: Annotated[int, Field(ge=0, le=20, description="lines of context before and after")] = 0,
        language: Annotated[str | None, Field(description="only this language")] = None,
        limit: Annotated[int, Field(ge=1, le=1000, description="at most this many matches")] = 100,
    ) -> Annotated[CallToolResult, GrepOut]:
        """Regex search over indexed code with exact line numbers, like ripgrep: every line
        that matches, in path order. Use it for exact identifiers, strings, error messages or
        patterns (`def \\w+_handler\\(`); use search_code when you only know what the code does.

        Each match has path:line:column, the line, the chunk id holding it (read more with
        get_chunk) and the innermost definition around it.
        """
        result = await core.call(lambda ix: ix.grep(pattern, ignore_case=ignore_case, fixed=fixed,
                                                    multiline=multiline, path=path, language=language,
                                                    before=context, after=context, limit=limit))
        data = result.to_dict()
        return _result(render.grep_markdown(result, budget), GrepOut.model_validate(data))

    @server.tool()
    async def find_symbol(
        name: Annotated[str, Field(description="a definition's name: Session.send, send, or part of one")],
        kind: Annotated[str | None, Field(description="only this kind: function, method, class, interface, type, constant")] = None,
        path: Annotated[str | None, Field(description="only files matching this glob")] = None,
        limit: Annotated[int, Field(ge=1, le=200)] = 20,
    ) -> Annotated[CallToolResult, SymbolsOut]:
        """Find where functions, methods, classes, types and constants are defined, by name:
        exact matches first (qualified `Class.method` or the bare name), then prefix, then
        fuzzy (misspellings, substrings). Each has file, line span, signature, whether it is
        exported, and a chunk id for get_chunk.
        """
        found = await core.call(lambda ix: ix.graph().find(name, kind, path, limit))
        symbols = [SymbolOut.model_validate({**s.to_dict(), "match": how}) for how, s in found]
        return _result(render.symbols_markdown(symbols), SymbolsOut(symbols=symbols))

    def _edges(kind: str, symbol: str, path: str | None, least: float) -> Callable[[Index], list[dict[str, Any]]]:
        def work(ix: Index) -> list[dict[str, Any]]:
            return [calls.to_dict() for calls in ix.graph().calls(symbol, kind, path, least)]
        return work

    @server.tool()
    async def callers(
        symbol: Annotated[str, Field(description="Class.method or a function name")],
        path: Annotated[str | None, Field(description="only definitions in files matching this glob")] = None,
        min_confidence: _MinConfidence = DEFAULT_MIN_CONFIDENCE,
    ) -> Annotated[CallToolResult, EdgesOut]:
        """Who calls this function or method: every call site (file, line, calling
        definition), most certain first. Each edge has a confidence and the reason
        (`defined in this file`, `imported from pkg.models`, `ambiguous: 2 definitions named
        get`). Calls resolved only by a name 3+ definitions share are left out (and counted)
        unless min_confidence is lowered. Use it before changing a signature.
        """
        results = await core.call(_edges("callers", symbol, path, min_confidence))
        return _result(render.edges_markdown("callers", results), EdgesOut(results=results))

    @server.tool()
    async def callees(
        symbol: Annotated[str, Field(description="Class.method or a function name")],
        path: Annotated[str | None, Field(description="only definitions in files matching this glob")] = None,
        min_confidence: _MinConfidence = DEFAULT_MIN_CONFIDENCE,
    ) -> Annotated[CallToolResult, EdgesOut]:
        """What this function or method calls, in order, each call once, resolved to its
        definition with a confidence; calls into libraries outside the index are listed as
        unresolved, and a call whose name too many definitions share as one line saying how
        many it might reach.
        """
        results = await core.call(_edges("callees", symbol, path, min_confidence))
        return _result(render.edges_markdown("callees", results), EdgesOut(results=results))

    @server.tool()
    async def impact(
        symbol: Annotated[str, Field(description="Class.method or a function name")],
        depth: Annotated[int, Field(ge=1, le=6, description="levels of callers to follow")] = 2,
        path: Annotated[str | None, Field(description="only definitions in files matching this glob")] = None,
        min_confidence: Annotated[float, Field(ge=0, le=1, description="follow only calls resolved at least this surely")] = 0.5,
    ) -> Annotated[CallToolResult, EdgesOut]:
        """What may break if this definition changes: its callers, their callers up to
        `depth`, and files importing it, grouped by file (each once) with the depth each is
        reached at. Use it to plan a refactor and pick the tests to run.
        """
        def work(ix: Index) -> list[dict[str, Any]]:
            graph = ix.graph()
            return [{"target": t.to_dict(), "files": graph.impact(t, depth, min_confidence)}
                    for t in graph.targets(symbol, path)]

        results = await core.call(work)
        return _result(render.impact_markdown(results), EdgesOut(results=results))

    @server.tool()
    async def file_outline(
        path: Annotated[str, Field(description="a file's path within its source, e.g. src/pkg/api.py")],
        source: Annotated[str | None, Field(description="the source, when several hold that path")] = None,
    ) -> Annotated[CallToolResult, SymbolsOut]:
        """Every definition in one file, in order, with line spans, signatures and whether
        each is exported: a map of the file before reading it.
        """
        def work(ix: Index) -> list[dict[str, Any]]:
            graph = ix.graph()
            return [s.to_dict() for s in graph.outline(graph.document(path, source))]

        symbols = [SymbolOut.model_validate(s) for s in await core.call(work)]
        return _result(render.symbols_markdown(symbols), SymbolsOut(symbols=symbols))

    _register_memory_tools(server, core, budget)
    _register_workflow_tools(server, core)
    _register_changelog_tools(server, core, budget)
    return server


class EntriesOut(BaseModel):
    """Memory entries or knowledge entities, best or newest first."""

    results: list[dict[str, Any]]


class ContextOut(BaseModel):
    """Markdown for the agent's context, within the token budget."""

    markdown: str
    tokens: int
    budget: int
    included: int
    left_out: dict[str, int]


def _entries_markdown(items: list[dict[str, Any]], budget: int, empty: str) -> str:
    if not items:
        return empty
    lines, used = [], 0
    for n, item in enumerate(items):
        tags = f" [{', '.join(item.get('tags') or [])}]" if item.get("tags") else ""
        head = f"**{item['id']}** · {str(item.get('at', ''))[:10]} · {item.get('type', '')}{tags}"
        body = item.get("text") or item.get("title") or ""
        block = f"{head}\n{body}\n"
        if used + len(block) > budget * 4:
            lines.append(f"({len(items) - n} more: ask with a smaller limit or read them with memory_search filters)")
            break
        lines.append(block)
        used += len(block)
    return "\n".join(lines)


# Parameter types of the memory tools (module level: the MCP library reads annotations here).
_Text = Annotated[str, Field(description="the memory, in a few sentences")]
_Type = Annotated[str, Field(description="decision, progress, issue, handoff, insight or reference")]
_Tags = Annotated[list[str] | None, Field(description="tags, e.g. ['http']")]
_Files = Annotated[list[str] | None, Field(description="project files it concerns")]
_Query = Annotated[str, Field(description="what to recall, in words")]
_Limit = Annotated[int, Field(ge=1, le=100, description="how many results")]
_OneType = Annotated[str | None, Field(description="only this type")]
_Tag = Annotated[str | None, Field(description="only entries with this tag")]
_Days = Annotated[float | None, Field(ge=0, description="only the last N days")]
_File = Annotated[str | None, Field(description="only entries about this file, folder or glob")]
_Decay = Annotated[bool, Field(description="rank newer entries up a little and restated decisions above "
                                                 "the ones they replace")]


def _register_memory_tools(server: MCPServer, core: _Core, budget: int) -> None:
    """memory_save, memory_search, memory_list, memory_forget, knowledge_add,
    knowledge_query and get_context (context_save and context_search are aliases)."""
    from mindex.memory.book import entry_of, parse_since

    async def save(text: str, type: str, tags: list[str] | None, files: list[str] | None) -> CallToolResult:
        saved = await core.call(lambda ix: ix.memory.save(text, type, tags or (), files or ()), create=True)
        data = saved.to_dict()
        return _result(saved.said(), EntriesOut(results=[data]))

    async def search(query: str, limit: int, type: str | None, tag: str | None, days: float | None,
                     file: str | None, decay: bool) -> CallToolResult:
        _query_given(query)
        result = await core.call(lambda ix: ix.memory.search(
            query, limit, (type,) if type else (), (tag,) if tag else (), parse_since(None, days),
            (file,) if file else (), decay=decay), create=True)
        items = [entry_of(hit) for hit in result.hits]
        text = _entries_markdown(items, budget, "no memory matches")
        return _result(f"_{result.note}_\n\n{text}" if result.note else text, EntriesOut(results=items))

    save_doc = """Save a memory for later sessions: a decision and its reason, what you learned,
        what you finished or left for next time. Appended to the project's markdown journal
        (.mindex/memory), searchable at once. Types: decision, progress, issue, handoff,
        insight, reference. Name the files it concerns so get_context finds it."""
    search_doc = """Search saved memories by keywords and meaning, relevance first with newer
        entries ranked up a little, and a newer decision above the older ones it restates
        (decay=false turns both off). Filters apply before ranking; a time the query names
        ("last week", "in May", "on 2026-03-04") filters by date unless days is given."""

    for name in ("memory_save", "context_save"):
        async def save_tool(text: _Text, type: _Type = "progress", tags: _Tags = None, files: _Files = None
                            ) -> Annotated[CallToolResult, EntriesOut]:
            return await save(text, type, tags, files)
        server.tool(name=name, description=save_doc + ("" if name == "memory_save" else " (alias of memory_save)"))(save_tool)

    for name in ("memory_search", "context_search"):
        async def search_tool(query: _Query, limit: _Limit = 10, type: _OneType = None, tag: _Tag = None,
                              days: _Days = None, file: _File = None, decay: _Decay = True
                              ) -> Annotated[CallToolResult, EntriesOut]:
            return await search(query, limit, type, tag, days, file, decay)
        server.tool(name=name, description=search_doc + ("" if name == "memory_search" else " (alias of memory_search)"))(search_tool)

    @server.tool()
    async def memory_list(limit: _Limit = 20, type: _OneType = None, tag: _Tag = None, days: _Days = None,
                          file: _File = None) -> Annotated[CallToolResult, EntriesOut]:
        """The latest memories, newest first, optionally filtered by type, tag, age or file:
        what happened recently in this project (each with its id, time, type, tags and text).
        Use memory_search instead to recall something by its content."""
        hits = await core.call(lambda ix: ix.memory.recent(limit, (type,) if type else (), (tag,) if tag else (),
                                                           parse_since(None, days), (file,) if file else ()),
                               create=True)
        items = [entry_of(hit) for hit in hits]
        return _result(_entries_markdown(items, budget, "no memories yet"), EntriesOut(results=items))

    @server.tool()
    async def memory_forget(
        id: Annotated[str, Field(description="the memory's id, e.g. m-20261123-044512-7f3a")],
    ) -> Annotated[CallToolResult, EntriesOut]:
        """Remove one memory (or knowledge entity) that is wrong or obsolete, by its id (from
        memory_search or memory_list). Only that entry's block leaves its journal file; for
        knowledge that is outdated rather than wrong, prefer knowledge_add with supersedes."""
        item = await core.call(lambda ix: ix.memory.forget(id))
        return _result(f"forgot {item['id']}", EntriesOut(results=[item]))

    @server.tool()
    async def knowledge_add(
        type: Annotated[Literal["learning", "pattern", "mistake", "topic"], Field(description="what kind of knowledge")],
        text: Annotated[str, Field(description="the learning, pattern or mistake, in a few sentences")],
        title: Annotated[str | None, Field(description="a short title (default: the first line)")] = None,
        areas: Annotated[list[str] | None, Field(description="code areas, e.g. ['src/api']")] = None,
        files: _Files = None,
        confidence: Annotated[float, Field(ge=0, le=1, description="how sure, 0-1")] = 0.7,
        supersedes: Annotated[list[str] | None, Field(description="ids of entities this replaces")] = None,
        led_to: Annotated[list[str] | None, Field(description="ids of entities this led to (mistake → learning)")] = None,
    ) -> Annotated[CallToolResult, EntriesOut]:
        """Record lasting knowledge about the code: a learning, a pattern to follow, a
        mistake not to repeat. Stored as a reviewable markdown file in .mindex/knowledge and
        linked to its code areas and files."""
        item = await core.call(lambda ix: ix.memory.add_knowledge(
            type, text, title, tuple(areas or ()), tuple(files or ()), confidence, tuple(supersedes or ()),
            tuple(led_to or ())), create=True)
        return _result(f"added {item['id']} ({item['file']})", EntriesOut(results=[item]))

    @server.tool()
    async def knowledge_query(
        area: Annotated[str | None, Field(description="a code area")] = None,
        file: Annotated[str | None, Field(description="a file; its area's knowledge comes too")] = None,
        issue: Annotated[str | None, Field(description="an issue number")] = None,
        text: Annotated[str | None, Field(description="a question about the entities' text")] = None,
        depth: Annotated[int, Field(ge=1, le=3, description="hops through the graph")] = 2,
        all: Annotated[bool, Field(description="also superseded entities")] = False,
        limit: _Limit = 20,
    ) -> Annotated[CallToolResult, EntriesOut]:
        """Learnings, patterns and mistakes about an area, a file, an issue or a question,
        ranked by relevance, confidence and recency (superseded ones hidden)."""
        items = await core.call(lambda ix: ix.memory.query(area, file, issue, text, depth, all, limit), create=True)
        return _result(_entries_markdown(items, budget, "no knowledge matches"), EntriesOut(results=items))

    @server.tool()
    async def get_context(
        files: Annotated[list[str] | None, Field(description="files you are about to work on")] = None,
        issue: Annotated[str | None, Field(description="the issue being worked on")] = None,
        query: Annotated[str | None, Field(description="what you are about to do")] = None,
        budget: Annotated[int, Field(ge=50, le=50_000, description="tokens (characters / 4)")] = 2000,
    ) -> Annotated[CallToolResult, ContextOut]:
        """Start a task with this: the project's learnings, patterns, mistakes and recent
        memory for the files, issue and task, grouped by code area, within the budget."""
        data = await core.call(lambda ix: ix.memory.context(tuple(files or ()), issue, query, budget), create=True)
        return _result(data["markdown"], ContextOut.model_validate(data))


class WorkflowOut(BaseModel):
    """A workflow checkpoint: issue, branch, phase, status, retries, actions and commits."""

    workflow: dict[str, Any] | None


class WorkflowsOut(BaseModel):
    """Workflows or milestones, most recently changed first (rollback: git revert commands)."""

    results: list[dict[str, Any]]


def _workflow_markdown(wf: dict[str, Any] | None) -> str:
    if wf is None:
        return "no workflow"
    lines = [f"**{wf['id']}** · issue #{wf['issue']} · {wf['branch']} · phase **{wf['phase']}** · {wf['status']}"
             + (f" · {wf['retries']} retries" if wf["retries"] else "") + (" · resumed" if wf.get("resumed") else "")]
    lines += [f"- {a['at'][:16]} {a['action']} → {a['result']}" for a in wf["actions"][-10:]]
    lines += [f"- commit {c['sha'][:12]} {c['message'].splitlines()[0] if c['message'] else ''}" for c in wf["commits"]]
    return "\n".join(lines)


_Phase = Annotated[Literal["research", "planning", "implement", "review", "finalize", "execute", "merge", "cleanup"],
                   Field(description="the workflow phase")]
_WorkflowId = Annotated[str, Field(description="the workflow's id (or a unique prefix), e.g. wf-123-3fa2c1")]


def _register_workflow_tools(server: MCPServer, core: _Core) -> None:
    """workflow_create, workflow_find, workflow_set_phase, workflow_log_action,
    workflow_log_commit, workflow_list, workflow_set_status, workflow_rollback_plan,
    milestone_create, milestone_show, milestone_list. Baselines run shell commands, so
    they stay on the command line (`mindex milestone baseline`), not over MCP."""
    from mindex.store.workflows import Checkpoints

    def cp(ix: Index) -> Checkpoints:
        return Checkpoints(ix.store)  # type: ignore[arg-type]

    def one(wf: Any) -> CallToolResult:
        data = wf.to_dict() if wf is not None else None
        return _result(_workflow_markdown(data), WorkflowOut(workflow=data))

    @server.tool()
    async def workflow_create(
        issue: Annotated[int, Field(ge=0, description="the issue number")],
        branch: Annotated[str, Field(description="the branch the work happens on")],
        worktree: Annotated[str | None, Field(description="the git worktree, if not the main one")] = None,
        phase: _Phase = "research",
    ) -> Annotated[CallToolResult, WorkflowOut]:
        """Start tracking work on an issue, or get back the running or paused workflow for
        that issue and branch (then `resumed` is true): call it first when you take an issue."""
        return one(await core.call(lambda ix: cp(ix).create(issue, branch, worktree, phase), create=True))

    @server.tool()
    async def workflow_find(
        issue: Annotated[int, Field(ge=0, description="the issue number")],
    ) -> Annotated[CallToolResult, WorkflowOut]:
        """The workflow to resume for an issue (the latest running or paused one, else the
        latest) with its phase, last actions and commits; workflow null when there is none."""
        return one(await core.call(lambda ix: cp(ix).find(issue), create=True))

    @server.tool()
    async def workflow_set_phase(id: _WorkflowId, phase: _Phase) -> Annotated[CallToolResult, WorkflowOut]:
        """Move a workflow to its next phase (research, planning, implement, review, finalize,
        execute, merge, cleanup), so a compacted or restarted session resumes there."""
        return one(await core.call(lambda ix: cp(ix).set_phase(id, phase), create=True))

    @server.tool()
    async def workflow_log_action(
        id: _WorkflowId,
        action: Annotated[str, Field(description="what was done, e.g. 'ran tests'")],
        result: Annotated[Literal["success", "failed", "pending"], Field(description="how it went")],
        metadata: Annotated[dict[str, Any] | None, Field(description="any details, as an object")] = None,
    ) -> Annotated[CallToolResult, WorkflowOut]:
        """Add an action to the workflow's audit log (what you did and how it went, with any
        details as an object), so a later session sees what was already tried and its result."""
        return one(await core.call(lambda ix: cp(ix).log_action(id, action, result, metadata), create=True))

    @server.tool()
    async def workflow_log_commit(
        id: _WorkflowId,
        sha: Annotated[str, Field(description="the commit id")],
        message: Annotated[str, Field(description="the commit message")],
    ) -> Annotated[CallToolResult, WorkflowOut]:
        """Record a commit the workflow made, right after you make it, so the next session
        sees what is already done and the work can be rolled back (workflow_rollback_plan)."""
        return one(await core.call(lambda ix: cp(ix).log_commit(id, sha, message), create=True))

    @server.tool()
    async def workflow_set_status(
        id: _WorkflowId,
        status: Annotated[Literal["running", "paused", "completed", "failed"],
                          Field(description="completed or failed when done; running resumes (a failed one counts a retry)")],
    ) -> Annotated[CallToolResult, WorkflowOut]:
        """Complete a workflow when its issue is done, fail it when it cannot go on, pause it,
        or set a paused or failed one running again (a failed one then counts a retry)."""
        return one(await core.call(lambda ix: cp(ix).set_status(id, status), create=True))

    @server.tool()
    async def workflow_list(
        status: Annotated[Literal["running", "paused", "completed", "failed"] | None,
                          Field(description="only workflows with this status")] = None,
        limit: _Limit = 20,
    ) -> Annotated[CallToolResult, WorkflowsOut]:
        """Workflows, most recently changed first, optionally only those with a status
        (running ones are the work in progress): id, issue, branch, phase, status, retries."""
        found = [wf.to_dict() for wf in await core.call(lambda ix: cp(ix).workflows(status, None, limit), create=True)]
        return _result("\n".join(_workflow_markdown(wf).split("\n")[0] for wf in found) or "no workflows",
                       WorkflowsOut(results=found))

    @server.tool()
    async def workflow_rollback_plan(id: _WorkflowId) -> Annotated[CallToolResult, WorkflowsOut]:
        """The git revert commands that undo the workflow's commits, newest first. Nothing is
        run: review them, then run them yourself."""
        plan = await core.call(lambda ix: cp(ix).rollback_plan(id), create=True)
        return _result("\n".join(plan) or "the workflow logged no commits",
                       WorkflowsOut(results=[{"command": line} for line in plan]))

    @server.tool()
    async def milestone_create(
        name: Annotated[str, Field(description="the milestone's name")],
        issues: Annotated[list[int], Field(description="its issues, in order")],
        waves: Annotated[int, Field(ge=1, description="split the issues, in order, into this many waves")] = 1,
    ) -> Annotated[CallToolResult, WorkflowsOut]:
        """Group issues into a milestone worked in waves: the issues, in order, are split into
        that many waves; each issue's workflow is linked when it exists or is created."""
        ms = await core.call(lambda ix: cp(ix).create_milestone(name, issues, waves).to_dict(), create=True)
        return _result(f"created {ms['id']}: " + "; ".join(
            f"wave {w['wave']}: " + ", ".join(f"#{i['issue']}" for i in w["issues"]) for w in ms["waves"]),
            WorkflowsOut(results=[ms]))

    @server.tool()
    async def milestone_show(
        id: Annotated[str, Field(description="the milestone's id, unique prefix or name")],
    ) -> Annotated[CallToolResult, WorkflowsOut]:
        """A milestone's waves, the workflow of each issue (phase and status), and its lint and
        typecheck baselines (exit codes, error and warning counts) to compare your changes with."""
        ms = await core.call(lambda ix: cp(ix).milestone(id).to_dict(), create=True)
        return _result(json.dumps(ms, indent=1), WorkflowsOut(results=[ms]))

    @server.tool()
    async def milestone_list(
        status: Annotated[Literal["running", "paused", "completed", "failed"] | None,
                          Field(description="only milestones with this status")] = None,
    ) -> Annotated[CallToolResult, WorkflowsOut]:
        """Milestones, most recently changed first, optionally only those with a status: each
        with its waves of issues, the workflows linked to them, and its baselines."""
        found = await core.call(lambda ix: [m.to_dict() for m in cp(ix).milestones(status)], create=True)
        return _result("\n".join(f"{m['id']} · {m['name']} · {m['phase']} · {m['status']}" for m in found)
                       or "no milestones", WorkflowsOut(results=found))


class ChangesOut(BaseModel):
    """Changes from release notes (product, version, date, kind, text, entities), or products
    or synergies."""

    results: list[dict[str, Any]]


def _changes_markdown(items: list[dict[str, Any]], budget: int, empty: str) -> str:
    if not items:
        return empty
    lines, used, last = [], 0, None
    for n, item in enumerate(items):
        head = (item["product"], item["version"])
        block = ""
        if head != last:
            block = f"**{item['product']} {item['version']}**" + (f" ({item['date']})" if item.get("date") else "") + "\n"
            last = head
        block += f"- [{item['kind']}] {' '.join(item['text'].split())} `{item['id']}`\n"
        if used + len(block) > budget * 4:
            lines.append(f"({len(items) - n} more: narrow with product, kind or version filters)")
            break
        lines.append(block)
        used += len(block)
    return "".join(lines)


_Product = Annotated[str, Field(description="a product name from changelog_products, e.g. claude-code")]
_Kinds = Annotated[list[Literal["added", "changed", "fixed", "breaking", "deprecated", "security", "removed",
                                "performance", "docs"]] | None, Field(description="only changes of these kinds")]


def _register_changelog_tools(server: MCPServer, core: _Core, budget: int) -> None:
    """changelog_search, changelog_since, changelog_entity, changelog_products,
    changelog_release, changelog_synergies, changelog_synergy."""
    from mindex.changelog.book import bound, change_of

    @server.tool()
    async def changelog_search(
        query: Annotated[str, Field(description="what changed, in words, e.g. 'prompt caching'")],
        product: Annotated[str | None, Field(description="only this product")] = None,
        kinds: _Kinds = None,
        since: Annotated[str | None, Field(description="releases after this version, or on/after this date")] = None,
        until: Annotated[str | None, Field(description="releases up to this version, or before this date")] = None,
        limit: _Limit = 10,
    ) -> Annotated[CallToolResult, ChangesOut]:
        """Search the release notes of the tools this project depends on (SDKs, CLIs, MCP
        servers): single changes with their kind, version and date, newest releases ranked up.
        Use it before writing code against an SDK or CLI feature that may have changed."""
        result = await core.call(lambda ix: ix.changelog.search(
            query, limit, (product,) if product else (), tuple(kinds or ()), bound(since, "since"),
            bound(until, "until")), create=True)
        items = [change_of(h) for h in result.hits]
        return _result(_changes_markdown(items, budget, "no change matches"), ChangesOut(results=items))

    @server.tool()
    async def changelog_since(
        product: _Product,
        version: Annotated[str, Field(description="the version you use, e.g. 0.40 or v2.1.200")],
        kinds: _Kinds = None,
    ) -> Annotated[CallToolResult, ChangesOut]:
        """Everything that changed in a product after the version you use, oldest first:
        what an upgrade brings, and with kinds=['breaking'] what it may break."""
        hits = await core.call(lambda ix: ix.changelog.since(product, version, tuple(kinds or ())), create=True)
        items = [change_of(h) for h in hits]
        return _result(_changes_markdown(items, budget, f"nothing in {product} after {version}"), ChangesOut(results=items))

    @server.tool()
    async def changelog_entity(
        name: Annotated[str, Field(description="an environment variable, slash command, CLI flag, model id, "
                                               "config key or CVE, e.g. ANTHROPIC_MODEL")],
        product: Annotated[str | None, Field(description="only this product")] = None,
    ) -> Annotated[CallToolResult, ChangesOut]:
        """Every change that names an entity, oldest first: the first is the release that
        introduced it, the later ones what changed about it since."""
        hits = await core.call(lambda ix: ix.changelog.entity(name, (product,) if product else ()), create=True)
        items = [change_of(h) for h in hits]
        return _result(_changes_markdown(items, budget, f"no change names {name}"), ChangesOut(results=items))

    @server.tool()
    async def changelog_release(
        product: _Product,
        version: Annotated[str, Field(description="the release's version")],
    ) -> Annotated[CallToolResult, ChangesOut]:
        """One release of a product: its date, link and every change in it, in order, each
        with its kind and the entities it names."""
        data = await core.call(lambda ix: ix.changelog.release(product, version), create=True)
        return _result(_changes_markdown(data["changes"], budget, "no changes"), ChangesOut(results=data["changes"]))

    @server.tool()
    async def changelog_products() -> Annotated[CallToolResult, ChangesOut]:
        """Every product mindex knows (shipped and the project's own), each with what is
        stored of it: release count, latest version and date, or "not fetched". Use it to
        know what changelog_search and changelog_since can answer now, and what the user
        could fetch."""
        items = await core.call(lambda ix: ix.changelog.catalog(), create=True)
        stored = [i for i in items if i["releases"]]
        lines = [f"- {i['name']}: {i['releases']} releases, latest {i['latest']}"
                 + (f" ({i['latest_date']})" if i.get("latest_date") else "") for i in stored]
        waiting = [i["name"] for i in items if not i["releases"]]
        if waiting:
            lines.append(f"Known but not fetched ({len(waiting)}; the user fetches them with `mindex changelog fetch "
                         f"NAME`): {', '.join(waiting)}")
        return _result("\n".join(lines), ChangesOut(results=items))

    @server.tool()
    async def changelog_synergies() -> Annotated[CallToolResult, ChangesOut]:
        """Curated notes on using the products together (which versions to combine, in what
        order), each backed by the changes that made it possible; read one with changelog_synergy."""
        def work(ix: Index) -> list[dict[str, Any]]:
            from mindex.changelog.synergies import list_synergies

            ix.changelog.ingest()
            return list_synergies(ix)

        items = await core.call(work, create=True)
        return _result("\n".join(f"- {s['name']}: {s['title']} ({', '.join(s['products'])})" for s in items)
                       or "no synergies", ChangesOut(results=items))

    @server.tool()
    async def changelog_synergy(
        name: Annotated[str, Field(description="a synergy's name from changelog_synergies")],
    ) -> Annotated[CallToolResult, ChangesOut]:
        """One synergy: its steps, its notes and the ids of the changes that back it (look them
        up with changelog_search or the release they belong to)."""
        def work(ix: Index) -> dict[str, Any]:
            from mindex.changelog.synergies import get_synergy
            from mindex.errors import NotFoundError

            item = get_synergy(ix, name)
            if item is None:
                raise NotFoundError(f"no synergy {name!r}; list them with changelog_synergies")
            return item

        item = await core.call(work, create=True)
        text = f"**{item['title']}**\n" + "\n".join(f"{n}. {s}" for n, s in enumerate(item["steps"], 1)) + \
            f"\n\n{item['body']}\n\nevidence: {', '.join(item['evidence'])}"
        return _result(text, ChangesOut(results=[item]))


def run_stdio(db: Path | str, settings: Settings) -> None:
    """Serve MCP over stdin/stdout until the client disconnects."""
    build_server(db, settings).run("stdio")


class BearerAuth:
    """ASGI middleware: every HTTP request must carry `Authorization: Bearer <token>`."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.expected = token.encode()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            scheme, _, credentials = given.strip().partition(b" ")
            # RFC 7235: the scheme is case-insensitive (`bearer` is as good as `Bearer`).
            if scheme.lower() != b"bearer" or not hmac.compare_digest(credentials.strip(), self.expected):
                await send({
                    "type": "http.response.start", "status": 401,
                    "headers": [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")],
                })
                await send({"type": "http.response.body", "body": b'{"error": "missing or wrong bearer token"}'})
                return
        await self.app(scope, receive, send)


def http_app(db: Path | str, settings: Settings, host: str, token: str | None, tokens: Path | None = None,
             log: Callable[[str], None] | None = None) -> Any:
    """The ASGI app for streamable HTTP at `/mcp`, behind a bearer token when one is set, or
    behind named tokens from a file (rights per token, an access log, `/healthz`).

    Raises:
        ConfigError: a non-loopback address without a token, or a bad tokens file.
    """
    from mcp.server.transport_security import TransportSecuritySettings

    if token and tokens:
        raise ConfigError("give either --token (one secret) or --tokens (a file of named tokens), not both")
    named = None
    if tokens is not None:
        from mindex.serve.tokens import load_tokens

        named = load_tokens(tokens)
    if host not in LOOPBACK and not token and not named:
        raise ConfigError(
            f"serving on {host} would expose the index to the network without a password; "
            "set a bearer token with --token or MINDEX_TOKEN, named tokens with --tokens, or bind 127.0.0.1"
        )
    security = None
    if host not in LOOPBACK:
        # Off loopback the bearer token is the guard; Host checks would refuse real clients.
        security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    server = build_server(db, settings)
    app = server.streamable_http_app(host=host, transport_security=security)
    if named is not None:
        import anyio

        from mindex.serve.tokens import TokenGate

        tools = anyio.run(server.list_tools)
        by_source = [t.name for t in tools if "source" in (t.input_schema or {}).get("properties", {})]
        return TokenGate(app, named, by_source, log=log, health=lambda: {"status": "ok", "version": __version__})
    return BearerAuth(app, token) if token else app


def run_http(db: Path | str, settings: Settings, host: str, port: int, token: str | None,
             tokens: Path | None = None) -> None:
    """Serve MCP over streamable HTTP on host:port until interrupted; SIGTERM or Ctrl-C stops
    taking requests and lets those under way finish (up to 10 s) before the index closes."""
    import uvicorn

    shown = f"[{host}]" if ":" in host else host
    guard = " (bearer token required)" if token else f" (named tokens from {tokens})" if tokens else ""
    line = f"mindex: listening on http://{shown}:{port}/mcp{guard}"

    class Server(uvicorn.Server):
        """uvicorn's server, saying where it listens once the socket is bound (on stderr)."""

        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets)
            if self.started:
                print(line, file=sys.stderr, flush=True)

        async def shutdown(self, sockets: Any = None) -> None:
            print("mindex: stopping: no new requests, finishing those under way", file=sys.stderr, flush=True)
            await super().shutdown(sockets)
            print("mindex: stopped", file=sys.stderr, flush=True)

    app = http_app(db, settings, host, token, tokens)
    listening = _bound(host, port, shown)
    # After a graceful stop uvicorn raises the signal it caught again: a SIGTERM'd server
    # exits as terminated by SIGTERM (which systemd counts as a clean stop).
    Server(uvicorn.Config(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=10)).run(
        sockets=[listening])


def _bound(host: str, port: int, shown: str) -> Any:
    """A socket bound to host:port for the server, or a ConfigError saying why not (uvicorn's
    own attempt logs the errno and exits with 3, with no JSON for `--json`)."""
    import socket

    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except socket.gaierror as exc:
        raise ConfigError(f"cannot listen on {shown}: {exc.strerror}; give --host an address or a name this "
                          "machine resolves") from None
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        raise ConfigError(f"cannot listen on {shown}:{port}: {exc.strerror}; pick another --port, or stop "
                          "what holds that one") from None
    return sock

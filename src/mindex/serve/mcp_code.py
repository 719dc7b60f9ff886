"""MCP tools over code: search_code, locate_files, grep, find_symbol, callers, callees,
impact and file_outline."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult
from pydantic import Field

from mindex.index import Index
from mindex.modes import DEFAULT_MIN_CONFIDENCE
from mindex.serve import render
from mindex.serve.mcp_core import _Core, _MinConfidence, _query_given, _result
from mindex.serve.mcp_models import EdgesOut, GrepOut, LocateOut, SearchOut, SymbolOut, SymbolsOut


def register_code_tools(server: MCPServer, core: _Core, budget: int) -> None:
    """search_code, locate_files, grep, find_symbol, callers, callees, impact, file_outline."""
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

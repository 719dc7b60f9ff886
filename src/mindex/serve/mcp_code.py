"""MCP tools over code: search_code and locate_files (grep, find_symbol, callers, callees,
impact and file_outline are declared in `mindex.ops.code`)."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult
from pydantic import Field

from mindex.serve import render
from mindex.serve.mcp_core import _Core, _query_given, _result
from mindex.serve.mcp_models import LocateOut, SearchOut


def register_code_tools(server: MCPServer, core: _Core, budget: int) -> None:
    """search_code, locate_files."""
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

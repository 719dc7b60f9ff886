"""MCP tools over documentation and everything at once: search_docs, search, get_chunk."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult
from pydantic import Field

from mindex.serve import render
from mindex.serve.mcp_core import _Core, _query_given, _result
from mindex.serve.mcp_models import ChunkOut, SearchOut


def register_docs_tools(server: MCPServer, core: _Core, budget: int) -> None:
    """search_docs, search and get_chunk."""
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

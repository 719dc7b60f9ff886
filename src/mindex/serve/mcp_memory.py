"""MCP tools over agent memory and knowledge: memory_save, memory_search, memory_list,
memory_forget, knowledge_add, knowledge_query and get_context."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult
from pydantic import BaseModel, Field
from mindex.serve.mcp_core import _Core, _Limit, _query_given, _result


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
_OneType = Annotated[str | None, Field(description="only this type")]
_Tag = Annotated[str | None, Field(description="only entries with this tag")]
_Days = Annotated[float | None, Field(ge=0, description="only the last N days")]
_File = Annotated[str | None, Field(description="only entries about this file, folder or glob")]
_Decay = Annotated[bool, Field(description="rank newer entries up a little and restated decisions above "
                                                 "the ones they replace")]


def register_memory_tools(server: MCPServer, core: _Core, budget: int) -> None:
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

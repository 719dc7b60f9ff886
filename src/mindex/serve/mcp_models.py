"""The shapes of the MCP tools' structured answers that several domains share."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


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


class FileOut(BaseModel):
    """One indexed file of a source."""

    path: str = Field(description="relative to the source's folder")
    language: str | None = Field(None, description="code only: the file's language")
    size: int = Field(description="bytes")
    chunks: int


class SourceOut(BaseModel):
    """A registered source."""

    name: str
    kind: str
    root: str
    documents: int
    chunks: int
    indexed_at: float | None
    files: list[FileOut] | None = Field(None, description="files=true only: the source's indexed files")


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
    frames: list[int] = Field(description="lines of the file a stack trace in the question names, innermost first")
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


class ChangesOut(BaseModel):
    """Changes from release notes (product, version, date, kind, text, entities), or products
    or synergies."""

    results: list[dict[str, Any]]


class WorkflowOut(BaseModel):
    """A workflow checkpoint: issue, branch, phase, status, retries, actions and commits."""

    workflow: dict[str, Any] | None


class WorkflowsOut(BaseModel):
    """Workflows or milestones, most recently changed first (rollback: git revert commands)."""

    results: list[dict[str, Any]]


class EntriesOut(BaseModel):
    """Memory entries or knowledge entities, best or newest first."""

    results: list[dict[str, Any]]


class ResearchOut(BaseModel):
    """A research run: the answer (with a model), its checked citations, and the evidence."""

    question: str
    answer: str | None
    citations: list[str]
    dropped_citations: list[str]
    stopped: str | None
    model: str | None
    took_ms: float
    steps: list[dict[str, Any]]
    evidence: list[dict[str, Any]]


class SynapticSaveOut(BaseModel):
    """What Synaptic's context_save answers: the new entry's id, date and time."""

    success: bool
    id: str
    date: str
    time: str
    duplicate: bool | None = None
    pending: str | None = None


class SynapticSearchOut(BaseModel):
    """What Synaptic's context_search answers: entries with their content, and how many."""

    results: list[dict[str, Any]]
    total: int


class ContextOut(BaseModel):
    """Markdown for the agent's context, within the token budget."""

    markdown: str
    tokens: int
    budget: int
    included: int
    left_out: dict[str, int]

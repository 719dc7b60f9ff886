"""What every MCP tool uses: the server's indexes (`Core`), error messages said the way an
agent calls the tools, and a tool result of text and structured content."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import anyio
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent
from pydantic import BaseModel

from mindex.config import Settings
from mindex.errors import MindexError
from mindex.index import Index


T = TypeVar("T")


class Core:
    """The server's indexes, opened on first use. On SQLite one `Index` answers one call at a
    time (one connection). On PostgreSQL up to `serve.concurrency` calls run at once, each on
    an `Index` of its own (its own connections; nothing shared between threads): the database
    does the waiting, so calls overlap instead of queueing behind one another."""

    def __init__(self, db: Path | str, settings: Settings, opened: list[Index] | None = None) -> None:
        """`opened`: indexes already open (and warm) on `db`, used first."""
        self.db, self.settings = db, settings
        self.size = settings.serve.concurrency if isinstance(db, str) else 1
        self._free: list[Index] = list(opened or [])
        self._all: list[Index] = list(opened or [])
        self._slots = threading.BoundedSemaphore(self.size)
        self._lock = threading.Lock()

    def _open(self, create: bool = False) -> Index:
        return Index.with_settings(self.db, self.settings, create)

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
    ("list them with `mindex changelog synergies`", "list them with changelog_synergies"),
)


def for_agent(message: str) -> str:
    """An error message with its command-line hints turned into tool parameters."""
    for shell, tool in _AGENT_WORDS:
        message = message.replace(shell, tool)
    return message


def tool_result(text: str, structured: BaseModel) -> CallToolResult:
    """A tool's answer: markdown for the model, the same data as structured content."""
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=structured.model_dump(mode="json"),
    )

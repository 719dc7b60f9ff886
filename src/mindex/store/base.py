"""The store contract every backend implements (SQLite now, PostgreSQL later)."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

from mindex.models import Document, Hit, SkippedFile, Source, SourceStats

# Every backend marks matches in snippets with these; search turns them into `**`.
SNIPPET_OPEN, SNIPPET_CLOSE = "\x01", "\x02"


class Store(Protocol):
    """The only place with SQL. Methods appear in the same order in every backend."""

    def close(self) -> None: ...
    def schema_version(self) -> int: ...
    def transaction(self) -> AbstractContextManager[Any]: ...
    def add_source(self, source: Source) -> Source: ...
    def remove_source(self, source_id: int) -> None: ...
    def list_sources(self) -> list[SourceStats]: ...
    def document_markers(self, source_id: int) -> dict[str, tuple[int, int, str]]: ...
    def write_batch(
        self,
        source_id: int,
        upserts: Sequence[Document] = (),
        touches: Sequence[tuple[str, int, int]] = (),
        deletes: Sequence[str] = (),
    ) -> None: ...
    def finish_run(self, source_id: int, skipped: Sequence[SkippedFile]) -> None: ...
    def keyword_search(
        self,
        match: str,
        limit: int,
        offset: int = 0,
        source: str | None = None,
        kind: str | None = None,
        path: str | None = None,
    ) -> list[Hit]: ...
    def get_chunk(self, chunk_id: str) -> Hit: ...
    def stats(self) -> dict[str, Any]: ...

"""The `Index`: the one object the CLI, the MCP server and Python users talk to."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType
from typing import Any

from mindex.config import IndexSettings
from mindex.errors import (
    ConfigError,
    SourceNotFoundError,
    SourcePathError,
    UnsupportedModeError,
)
from mindex.ingest import Progress, index_source
from mindex.models import Hit, IndexReport, SearchResult, Source, SourceStats
from mindex.search import lexical_search
from mindex.sources import SOURCE_KINDS
from mindex.store import SQLiteStore, Store

MODES = ("keyword", "semantic", "hybrid")
_NAME = re.compile(r"^[\w.@+-]+$")


class Index:
    """A mindex index on disk: register sources, index them, search and fetch chunks.

    `create=False` refuses to make a new database (for read-only front doors such as
    `search`), so a typo in `--db` gives a clear error instead of an empty index.
    """

    def __init__(
        self, db_path: Path | str, settings: IndexSettings | None = None, create: bool = True
    ) -> None:
        self.settings = settings or IndexSettings()
        self.db_path = Path(db_path)
        self.store: Store = SQLiteStore(self.db_path, self.settings.lock_timeout, create=create)

    def close(self) -> None:
        """Release the database."""
        self.store.close()

    def __enter__(self) -> Index:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    # -- sources ---------------------------------------------------------------------------

    def add_source(
        self,
        path: Path | str,
        name: str | None = None,
        kind: str = "docs",
        include: Iterable[str] = (),
        exclude: Iterable[str] = (),
    ) -> Source:
        """Register a folder as a source (indexing happens in `index`).

        Raises:
            SourcePathError: the folder does not exist or is not a folder.
            SourceExistsError: the name or folder is already registered.
            ConfigError: unknown kind or unusable name.
        """
        if kind not in SOURCE_KINDS:
            raise ConfigError(f"unknown source kind {kind!r}; choose one of: {', '.join(SOURCE_KINDS)}")
        root = Path(path).expanduser().resolve()
        if not root.is_dir():
            raise SourcePathError(f"{path} is not a folder; pass the folder that holds the docs")
        if not os.access(root, os.R_OK | os.X_OK):
            raise SourcePathError(f"{root} is not readable; fix its permissions and retry")
        taken = {stats.source.name for stats in self.sources()}
        if name is None:
            name = self._free_name(root.name or "root", taken)
        elif not _NAME.match(name):
            raise ConfigError(f"source name {name!r} may use letters, digits and . _ - @ + only")
        return self.store.add_source(Source(name, kind, str(root), tuple(include), tuple(exclude)))

    @staticmethod
    def _free_name(base: str, taken: set[str]) -> str:
        base = re.sub(r"[^\w.@+-]", "-", base) or "source"
        name, n = base, 2
        while name in taken:
            name, n = f"{base}-{n}", n + 1
        return name

    def remove_source(self, name_or_path: str) -> Source:
        """Unregister a source and drop everything indexed from it.

        Raises:
            SourceNotFoundError: nothing matches.
        """
        source = self.source(name_or_path)
        assert source.id is not None
        self.store.remove_source(source.id)
        return source

    def source(self, name_or_path: str) -> Source:
        """Find a source by name, or by its folder.

        Raises:
            SourceNotFoundError: nothing matches.
        """
        registered = [stats.source for stats in self.sources()]
        for source in registered:
            if source.name == name_or_path:
                return source
        resolved = str(Path(name_or_path).expanduser().resolve())
        for source in registered:
            if source.root == resolved:
                return source
        names = ", ".join(s.name for s in registered) or "none yet"
        raise SourceNotFoundError(
            f"no source named {name_or_path!r} (registered: {names}); see `mindex sources`"
        )

    def sources(self) -> list[SourceStats]:
        """All sources with their document and chunk counts."""
        return self.store.list_sources()

    # -- indexing --------------------------------------------------------------------------

    def index(self, names: Iterable[str] = (), progress: Progress | None = None) -> dict[str, IndexReport]:
        """Bring sources (all, or those named) up to date; return a report per source.

        A source whose folder vanished is reported as an error and the others still run.
        """
        wanted = list(names)
        chosen = [self.source(n) for n in wanted] if wanted else [s.source for s in self.sources()]
        reports: dict[str, IndexReport] = {}
        for source in chosen:
            try:
                reports[source.name] = index_source(self.store, source, self.settings, progress)
            except SourcePathError as exc:
                reports[source.name] = IndexReport(errors=[str(exc)])
        return reports

    # -- reading ---------------------------------------------------------------------------

    def search(
        self,
        query: str,
        limit: int = 10,
        offset: int = 0,
        mode: str | None = None,
        source: str | None = None,
        kind: str | None = None,
        path: str | None = None,
    ) -> SearchResult:
        """Search the index; `mode=None` picks the best mode available (keyword for now).

        Raises:
            UnsupportedModeError: semantic or hybrid asked for before a model is set up.
            ConfigError: unknown mode or bad limit.
        """
        if mode is not None and mode not in MODES:
            raise ConfigError(f"unknown search mode {mode!r}; use one of: {', '.join(MODES)}")
        if mode in ("semantic", "hybrid"):
            raise UnsupportedModeError(
                f"{mode} search needs an embedding model, and this index has none yet; "
                "search with mode 'keyword' (`--mode keyword`)"
            )
        if not 1 <= limit <= 1000 or offset < 0:
            raise ConfigError("limit must be between 1 and 1000 and offset at least 0")
        return lexical_search(self.store, query, limit, offset, source, kind, path)

    def get(self, chunk_id: str) -> Hit:
        """Fetch one chunk by id (or unique prefix).

        Raises:
            NotFoundError: no such chunk.
        """
        return self.store.get_chunk(chunk_id.strip())

    def status(self) -> dict[str, Any]:
        """Database path, schema, counts, size and the files skipped by the last runs."""
        stats = self.store.stats()
        stats["sources_detail"] = [s.to_dict() for s in self.sources()]
        return stats

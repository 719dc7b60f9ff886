"""The `Index`: the one object the CLI, the MCP server and Python users talk to."""

from __future__ import annotations

import os
import re
from dataclasses import replace
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType
from typing import Any

from mindex.config import EmbedSettings, IndexSettings
from mindex.embed import EMBEDDERS, Embedder
from mindex.embed.models import HOW_TO_ADD, find_model
from mindex.errors import (
    ConfigError,
    EmbeddingMismatchError,
    SourceNotFoundError,
    SourcePathError,
    UnsupportedModeError,
)
from mindex.ingest import Progress, embed_pending, index_source
from mindex.models import Hit, IndexReport, SearchResult, Source, SourceStats
from mindex.search import VectorIndex, hybrid_search, lexical_search, semantic_search
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
        self,
        db_path: Path | str,
        settings: IndexSettings | None = None,
        create: bool = True,
        embed: EmbedSettings | None = None,
    ) -> None:
        self.settings = settings or IndexSettings()
        self.embed_settings = embed or EmbedSettings()
        self.db_path = Path(db_path)
        self.store: Store = SQLiteStore(self.db_path, self.settings.lock_timeout, create=create)
        self._embedder: Embedder | None = None
        self._embedder_note: str | None = None
        self._vectors: VectorIndex | None = None

    # -- embeddings ------------------------------------------------------------------------

    def embedder(self) -> Embedder | None:
        """The configured embedder, loaded on first use; None when none is available
        (`embedder_note` then says why and how to add one).

        Raises:
            ConfigError: an unknown provider, or a model folder missing its files.
        """
        if self._embedder is not None or self._embedder_note is not None:
            return self._embedder
        conf = self.embed_settings
        if conf.provider == "none":
            self._embedder_note = "semantic search is off (embed.provider = none)"
            return None
        if conf.provider not in EMBEDDERS:
            raise ConfigError(
                f"unknown embed.provider {conf.provider!r}; choose one of: {', '.join(EMBEDDERS)}, none"
            )
        if conf.provider != "onnx":
            factory = getattr(EMBEDDERS[conf.provider], "from_settings", None)
            self._embedder = factory(conf) if factory else EMBEDDERS[conf.provider]()
            return self._embedder
        model = find_model(conf.model, conf.models_dir)
        if model is None:
            self._embedder_note = HOW_TO_ADD
            return None
        from mindex.embed.onnx import OnnxEmbedder

        self._embedder = OnnxEmbedder(model, conf.batch_size or 16, conf.threads)
        return self._embedder

    @property
    def embedder_note(self) -> str | None:
        """Why there is no embedder, once `embedder()` found none."""
        return self._embedder_note

    def embed(self, force: bool = False, progress: Progress | None = None) -> int:
        """Embed chunks without a vector for the configured model; returns how many.

        Raises:
            UnsupportedModeError: no embedding model is available.
            EmbeddingMismatchError: the index holds another model's vectors (use force).
        """
        embedder = self.embedder()
        if embedder is None:
            raise UnsupportedModeError(self._embedder_note or HOW_TO_ADD)
        count = embed_pending(self.store, embedder, progress, force)
        if self._vectors is not None:
            self._vectors.invalidate()
        return count

    def _vector_index(self, embedder: Embedder) -> VectorIndex:
        if self._vectors is None or self._vectors.model != embedder.identity:
            self._vectors = VectorIndex(self.store, embedder.identity)
        return self._vectors

    def _pinned_embedder(self) -> Embedder | None:
        """The embedder, if the index's vectors were made by it (else an error, never a mix)."""
        embedder = self.embedder()
        pinned = self.store.get_meta("embed_model")
        if embedder is None or pinned is None:
            return None
        dims = self.store.get_meta("embed_dim")
        # An HTTP embedder learns its dimensions from its first answer; until then the
        # vector index checks the query's length instead.
        if pinned != embedder.identity or (embedder.dimensions and dims != str(embedder.dimensions)):
            raise EmbeddingMismatchError(
                f"the index was embedded with {pinned} but the configured model is "
                f"{embedder.identity}; re-embed with `mindex embed --force`, or set embed.model back"
            )
        return embedder

    def close(self) -> None:
        """Release the database and the embedder's connections."""
        if self._embedder is not None:
            self._embedder.close()
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

    def index(
        self, names: Iterable[str] = (), progress: Progress | None = None, embed: bool = True
    ) -> dict[str, IndexReport]:
        """Bring sources (all, or those named) up to date; return a report per source.

        A source whose folder vanished is reported as an error and the others still run.
        With `embed` and a model available, new and changed chunks are embedded afterwards.
        """
        wanted = list(names)
        chosen = [self.source(n) for n in wanted] if wanted else [s.source for s in self.sources()]
        reports: dict[str, IndexReport] = {}
        for source in chosen:
            try:
                reports[source.name] = index_source(self.store, source, self.settings, progress)
            except SourcePathError as exc:
                reports[source.name] = IndexReport(errors=[str(exc)])
        if embed and self.embedder() is not None:
            self.embed(progress=progress)
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
        """Search the index. `mode=None` picks hybrid when vectors exist, else keyword
        (the result's `note` says why).

        Raises:
            UnsupportedModeError: semantic or hybrid asked for with no model or no vectors.
            EmbeddingMismatchError: the vectors belong to another model.
            ConfigError: unknown mode or bad limit.
        """
        if mode is not None and mode not in MODES:
            raise ConfigError(f"unknown search mode {mode!r}; use one of: {', '.join(MODES)}")
        if not 1 <= limit <= 1000 or offset < 0:
            raise ConfigError("limit must be between 1 and 1000 and offset at least 0")
        filters = {"source": source, "kind": kind, "path": path}
        if mode == "keyword":
            return lexical_search(self.store, query, limit, offset, **filters)
        embedder = self._pinned_embedder()
        vectors = self._vector_index(embedder) if embedder is not None else None
        if embedder is None or vectors is None or not len(vectors):
            why = self._embedder_note or "no vectors yet; run `mindex embed`"
            if mode is not None:
                raise UnsupportedModeError(f"{mode} search is unavailable: {why}; or search with `--mode keyword`")
            return replace(lexical_search(self.store, query, limit, offset, **filters), note=why)
        if mode == "semantic":
            return semantic_search(self.store, vectors, embedder, query, limit, offset, **filters)
        return hybrid_search(self.store, vectors, embedder, query, limit, offset, source, kind, path)

    def get(self, chunk_id: str) -> Hit:
        """Fetch one chunk by id (or unique prefix).

        Raises:
            NotFoundError: no such chunk.
        """
        return self.store.get_chunk(chunk_id.strip())

    def status(self) -> dict[str, Any]:
        """Database path, schema, counts, size and the files skipped by the last runs."""
        stats = self.store.stats()
        stats["embed_model"] = self.store.get_meta("embed_model")
        stats["embed_dim"] = self.store.get_meta("embed_dim")
        stats["sources_detail"] = [s.to_dict() for s in self.sources()]
        return stats

"""The embedding side of an engine: its model, loaded on first use, and the stored vectors
it searches (kept while the model stays the same). A part of `mindex.engine.Engine`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mindex.errors import ConfigError, DependencyMissingError, UnsupportedModeError
from mindex.models import Hit
from mindex.terms import EMBED_FORMAT

if TYPE_CHECKING:
    from pathlib import Path

    from mindex.config import EmbedSettings
    from mindex.embed import Embedder
    from mindex.ingest import Progress
    from mindex.store.base import Store
    from mindex.vectors import VectorIndex


class Embeddings:
    """The model and the vectors of one index (the engine sets the attributes)."""

    embed_settings: EmbedSettings
    store: Store
    url: str | None
    db_path: Path
    _embedder: Embedder | None
    _embedder_note: str | None
    _vectors: VectorIndex | None

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
        from mindex.embed import EMBEDDERS
        from mindex.embed.models import HOW_TO_ADD, find_model

        if conf.provider not in EMBEDDERS:
            raise ConfigError(
                f"unknown embed.provider {conf.provider!r}; choose one of: {', '.join(EMBEDDERS)}, none"
            )
        if conf.provider != "onnx":
            provider = EMBEDDERS.load(conf.provider)
            factory = getattr(provider, "from_settings", None)
            self._embedder = factory(conf) if factory else provider()
        else:
            model = find_model(conf.model, conf.models_dir)
            if model is None:
                self._embedder_note = HOW_TO_ADD
                return None
            from mindex.embed.onnx import OnnxEmbedder

            try:
                self._embedder = OnnxEmbedder(model, conf.batch_size or 16, conf.threads, conf.chunk_tokens,
                                              prepared=conf.models_dir)
            except DependencyMissingError as exc:  # a core install: keyword search, and say how to add meaning
                self._embedder_note = str(exc)
                return None
        if conf.context.provider == "llm":
            from mindex.embed.context import ContextualEmbedder, LlmContextWriter

            self._embedder = ContextualEmbedder(self._embedder, LlmContextWriter(conf.context), self.store)
        elif conf.context.provider != "none":
            raise ConfigError(f"unknown embed.context.provider {conf.context.provider!r}; use llm or none")
        return self._embedder

    def warm(self) -> None:
        """Load ahead what a first search needs: the keyword path's modules (numpy among them,
        0.2 s) and, when the index has vectors and a local model, the model (ONNX Runtime
        allocates at its first run) and the stored vectors. Nothing is written (no query log).
        The MCP server calls it while the client is in its handshake."""
        from mindex.search import lexical_search

        lexical_search(self.store, "mindex", 1)
        embedder = self._pinned_embedder()  # what a search asks first (None without vectors)
        if embedder is not None and getattr(embedder, "provider", None) == "onnx":  # never a remote call
            embedder.embed_batch(["warm"])
            len(self._vector_index(embedder))

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
        from mindex.embed.models import HOW_TO_ADD
        from mindex.ingest import embed_pending

        self.store.ensure_writable()
        embedder = self.embedder()
        if embedder is None:
            raise UnsupportedModeError(self._embedder_note or HOW_TO_ADD)
        with self.store.embedding():
            count = embed_pending(self.store, embedder, progress, force)
        if force:
            self._vectors = None  # every vector was replaced: read them all again
        elif self._vectors is not None:
            self._vectors.invalidate()
        return count

    def embed_chunks(self, hashes: list[str]) -> int:
        """Embed just these chunk texts, if they have no vector (a memory save's); 0 when no
        model is available."""
        from mindex.ingest import embed_hashes

        embedder = self.embedder()
        if embedder is None or not hashes:
            return 0
        count = embed_hashes(self.store, embedder, hashes)
        if count and self._vectors is not None:
            self._vectors.invalidate()
        return count

    def _vector_index(self, embedder: Embedder) -> VectorIndex:
        return self._vectors_of(embedder.identity)

    def _vectors_of(self, model: str) -> VectorIndex:
        """The stored vectors of one model (`provider:model`), kept while it stays the same."""
        from mindex.vectors import VectorIndex

        if self._vectors is None or self._vectors.model != model:
            if self.url is not None:  # PostgreSQL: a large index is searched by its HNSW index, in the server
                from mindex.store.postgres import ANN_FROM, ServerVectors

                if self.store.vector_count(model) >= ANN_FROM:  # type: ignore[attr-defined]
                    served: Any = ServerVectors(self.store, model)  # type: ignore[arg-type]
                    self._vectors = served  # the same interface as VectorIndex
                    return served  # type: ignore[no-any-return]
            self._vectors = VectorIndex(self.store, model)
        return self._vectors

    def stored_vectors(self, hits: list[Hit]) -> dict[int, Any]:
        """The stored vectors of `hits`, by row key, from the model the index is pinned to
        (no model is loaded to read them); empty when the index has no vectors."""
        pinned = self.store.get_meta("embed_model")
        if pinned is None:
            return {}
        vectors = self._vectors_of(pinned)
        found = {hit.seq: vectors.vector(hit.seq) for hit in hits if hit.seq is not None}
        return {seq: vector for seq, vector in found.items() if vector is not None}

    def _loadable(self) -> bool:
        """Whether the configured embedder would load, found without loading it: a remote
        provider, or a local model whose files and runtime are there. When not, `embedder()`
        fails fast and its note says how to add one."""
        conf = self.embed_settings
        if conf.provider == "none":
            return False
        if conf.provider != "onnx":
            return True
        import importlib.util

        from mindex.embed.models import find_model

        try:
            runtime = importlib.util.find_spec("onnxruntime") is not None
        except ValueError:  # imported as None (blocked)
            runtime = False
        return runtime and find_model(conf.model, conf.models_dir) is not None

    def _pinned_embedder(self) -> Embedder | None:
        """The embedder, if the index's vectors were made by it (else an error, never a mix)."""
        pinned = self.store.get_meta("embed_model")
        if pinned is None and self._loadable():
            return None  # no vectors: no model to load (it cost a keyword-only index's first search 0.4 s)
        embedder = self.embedder()
        if embedder is None or pinned is None:
            return None
        dims = self.store.get_meta("embed_dim")
        # An HTTP embedder learns its dimensions from its first answer; until then the
        # vector index checks the query's length instead.
        if pinned != embedder.identity or (embedder.dimensions and dims != str(embedder.dimensions)):
            from mindex.ingest import mismatch

            raise mismatch(pinned, dims, embedder.identity, embedder.dimensions)
        if self.store.get_meta("embed_format") != EMBED_FORMAT:
            self._embedder_note = "the vectors were made by an older mindex; run `mindex index` (or `mindex embed`)"
            return None
        return embedder

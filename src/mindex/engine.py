"""The engine: sources, indexing, search, locate, grep and the code graph over one store.

The products built on it (memory and knowledge, changelogs) take an engine and are never
imported here; `mindex.index.Index` is the engine with them attached, the object the CLI,
the MCP server and Python users talk to."""

from __future__ import annotations

import os
import re
import time
from contextlib import suppress
from dataclasses import replace
from functools import partial
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self

from mindex.config import (
    DB_NAME,
    STATE_DIR,
    make_state_dir,
    AgentSettings,
    EmbedSettings,
    IndexSettings,
    MemorySettings,
    SearchSettings,
    Settings,
    db_target,
    find_project_root,
    load_settings,
)
from mindex.errors import (
    ConfigError,
    ReadOnlyIndexError,
    SourceExistsError,
    SourceNotFoundError,
    SourcePathError,
    UnsupportedModeError,
)
from mindex.modes import MODES
from mindex.models import Facets, Hit, IndexReport, LocateResult, SearchResult, Source, SourceStats
from mindex.locate import located
from mindex.search import (DEEPEST, collapse_sections, decay, expand, group_by_file, hybrid_search,
                           lexical_search, merge_adjacent, one_term, page_size, semantic_search, with_snippets,
                           with_texts)
from mindex.embedding import Embeddings
from mindex.store import SQLiteStore, Store
from mindex.store.base import SpanCache, written_key
from mindex.testfiles import tests_last
from mindex.textsafe import escape_surrogates

if TYPE_CHECKING:
    # The rest loads when a command needs it: a keyword search never imports the embedders,
    # numpy, the parsers or the graph.
    from mindex.embed import Embedder
    from mindex.graph import CodeGraph
    from mindex.grep import GrepResult
    from mindex.ingest import Progress
    from mindex.rerank import Reranker
    from mindex.vectors import VectorIndex

_NAME = re.compile(r"^[\w.@+-]+$")
# schema_meta flag set by the v8 migration: code files lost their stored text until re-read.
CODE_TEXT_MISSING = "code_text_missing"


class Engine(Embeddings):
    """A mindex index on disk: register sources, index them, search and fetch chunks.

    Settings are resolved as the CLI resolves them: the project's `.mindex/config.toml` (the
    project that holds the index, when it sits in a `.mindex` folder, else the current
    directory's), the user file, then `MINDEX_*` variables. A `config` given (from
    `load_settings` or `Settings(...)`) is used as it is instead, and `settings`, `embed` and
    `search` replace one part each.

    `create=False` refuses to make a new database (for read-only front doors such as
    `search`), so a typo in `--db` gives a clear error instead of an empty index.

    Raises:
        ConfigError: a config file or variable holds an invalid value.
    """

    def __init__(
        self,
        db_path: Path | str,
        settings: IndexSettings | None = None,
        create: bool = True,
        embed: EmbedSettings | None = None,
        search: SearchSettings | None = None,
        config: Settings | None = None,
        memory: MemorySettings | None = None,
        agents: AgentSettings | None = None,
    ) -> None:
        if config is None and None in (settings, embed, search, memory):
            home = Path(db_path).expanduser().resolve().parent if isinstance(db_target(db_path), Path) else Path.cwd()
            config = load_settings(cwd=home.parent if home.name == STATE_DIR else None)
        self.settings = settings or (config.index if config else IndexSettings())
        self.embed_settings = embed or (config.embed if config else EmbedSettings())
        self.search_settings = search or (config.search if config else SearchSettings())
        self.memory_settings = memory or (config.memory if config else MemorySettings())
        self.agent_settings = agents or (config.agents if config else AgentSettings())
        self._reranker_obj: Reranker | None = None
        self._graph_cache: tuple[tuple[int, int | None], CodeGraph] | None = None
        self._grep_spans = SpanCache()
        target = db_target(db_path)
        self.store: Store
        if isinstance(target, str):  # postgresql://...: the files (memory, changelogs) stay in the project
            from mindex.store.postgres import PostgresStore

            self.url: str | None = target
            self.db_path = find_project_root(Path.cwd()) / STATE_DIR / DB_NAME
            self.store = PostgresStore(target, self.settings.lock_timeout, create=create)
        else:
            self.url = None
            self.db_path = target
            if create and not target.exists():
                with suppress(OSError):  # a folder that cannot be made: the store says so, with the fix
                    make_state_dir(target.parent)
            self.store = SQLiteStore(self.db_path, self.settings.lock_timeout, create=create)
        self._embedder: Embedder | None = None
        self._embedder_note: str | None = None
        self._vectors: VectorIndex | None = None

    @property
    def location(self) -> Path | str:
        """Where the index is: its file, or its postgresql:// URL (what `--db` takes)."""
        return self.url if self.url is not None else self.db_path

    def close(self) -> None:
        """Release the database and the embedder's connections."""
        for part in (self._embedder, self._reranker_obj):
            if part is not None:
                part.close()
        self.store.close()

    def __enter__(self) -> Self:
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
        kind: str = "auto",
        include: Iterable[str] = (),
        exclude: Iterable[str] = (),
    ) -> Source:
        """Register a folder as a source (indexing happens in `index`); `kind` "auto" takes
        the kind the folder's files suggest (`mindex.sources.guess`).

        Raises:
            SourcePathError: the folder does not exist or is not a folder.
            SourceExistsError: the name or folder is already registered.
            ConfigError: unknown kind or unusable name.
        """
        from mindex.sources import SOURCE_KINDS

        if kind not in SOURCE_KINDS and kind != "auto":
            raise ConfigError(f"unknown source kind {kind!r}; choose one of: {', '.join(SOURCE_KINDS)}, or auto")
        root = Path(path).expanduser().resolve()
        if escape_surrogates(str(root)) != str(root):
            raise SourcePathError(f"{escape_surrogates(str(root))}: the folder's path is not valid UTF-8; "
                                  "rename it (or a folder above it) and add it again")
        if not root.exists():
            raise SourcePathError(f"{path} does not exist ({root}); pass the folder that holds the files (docs or code)")
        if not root.is_dir():
            raise SourcePathError(f"{path} is not a folder; pass the folder that holds the files (docs or code)")
        if not os.access(root, os.R_OK | os.X_OK):
            raise SourcePathError(f"{root} is not readable; fix its permissions and retry")
        if kind == "auto":
            from mindex.sources.guess import guess_kind

            kind = guess_kind(root).kind
        taken = {stats.source.name for stats in self.sources()}
        if name is None:
            name = self._free_name(root.name or "root", taken)
        elif not _NAME.match(name):
            raise ConfigError(f"source name {name!r} may use letters, digits and . _ - @ + only")
        return self.store.add_source(Source(name, kind, str(root), tuple(include), tuple(exclude)))

    def own_source(self, folder: Path, name: str, kind: str, purpose: str) -> Source:
        """A source mindex keeps itself (memory, knowledge, changelogs): the one registered
        under `name`, or `folder` registered now. Two processes doing this at once (two agents
        saving their first memory) both get the one source.

        Raises:
            ConfigError: a source of another kind holds the name.
        """
        for _ in range(2):
            for stats in self.sources():
                if stats.source.name == name:
                    if stats.source.kind != kind:
                        raise ConfigError(f"a {stats.source.kind} source is named {name!r}; rename it (`mindex "
                                          f"remove {name}` and add it under another name) to use {purpose}")
                    return stats.source
            self.store.ensure_writable()
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as exc:  # the index may be elsewhere (PostgreSQL) and this folder read-only
                raise ReadOnlyIndexError(f"cannot make {folder} for {purpose} ({exc.strerror}); make the folder "
                                         "writable") from None
            try:
                return self.add_source(folder, name=name, kind=kind)
            except SourceExistsError:
                continue  # registered by another process a moment ago: read it back
        raise SourceExistsError(f"a source already covers {folder}; see `mindex sources`")

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
        With `embed` and a model available, each source's new and changed chunks are embedded
        right after it is indexed (progress task `<source> embedding`; the report says how
        many and how long).
        """
        from mindex.ingest import PARSER_VERSION, index_source
        from mindex.sources import SOURCE_KINDS

        self.store.ensure_writable()
        wanted = list(names)
        listed = self.sources()
        chosen = [self.source(n) for n in wanted] if wanted else [s.source for s in listed]
        empty = {s.source.name for s in listed if not s.documents}
        reports: dict[str, IndexReport] = {}
        # Chunks made with other chunk settings are made again, as by another parser.
        made_by = f"{PARSER_VERSION}:{self.settings.chunk_size}:{self.settings.chunk_overlap}:{self.settings.overlap}"
        for source in chosen:
            parsed_by = f"parser_version:{source.id}"
            reparse = self.store.get_meta(parsed_by) != made_by
            if reparse and source.name in empty:
                # Nothing an older parser made: every document of this run is this parser's,
                # so a run stopped midway does not parse them all again next time.
                self.store.set_meta({parsed_by: made_by})
                reparse = False
            try:
                report = reports[source.name] = index_source(self.store, source, self.settings, progress, reparse=reparse)
            except SourcePathError as exc:
                reports[source.name] = IndexReport(errors=[str(exc)])
                continue
            self.store.set_meta({parsed_by: made_by})
            after = getattr(SOURCE_KINDS[source.kind], "after_index", None)
            if after is not None:  # a kind that derives tables from its documents (knowledge: its graph)
                after(self)
            if self._vectors is not None:
                self._vectors.invalidate()  # our own commits do not change SQLite's data_version
            if embed and self.embedder() is not None:
                started = time.perf_counter()
                task = f"{source.name} embedding"
                report.embedded = self.embed(progress=(lambda _, done, total: progress(task, done, total))
                                             if progress else None)
                report.embed_seconds = time.perf_counter() - started
                report.seconds += report.embed_seconds
        self.store.refresh_keyword_tops(one_term, progress)
        if self.store.get_meta(CODE_TEXT_MISSING) and not self.store.code_files_without_text():
            self.store.set_meta({CODE_TEXT_MISSING: None})  # every file read again since the upgrade
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
        rerank: bool | None = None,
        merge: bool | None = None,
        hops: int = 0,
        weights: dict[str, float] | None = None,
        language: str | None = None,
        symbol_kind: str | None = None,
        group_by: str | None = None,
        facets: Facets | None = None,
        decay_on: bool = True,
        snippets: bool = True,
    ) -> SearchResult:
        """Search the index. `mode=None` picks hybrid when vectors exist, else keyword
        (the result's `note` says why). After fusion: optional rerank (`rerank=None` follows
        search.rerank.provider), recency decay, `hops` rounds of multi-hop expansion, and
        merging of adjacent chunks (`merge=None` follows search.merge_adjacent). With
        `group_by="file"`, one result per file: its best chunk, where that chunk ranks
        (`explain.file` counts the file's chunks among the candidates). `snippets=False`:
        keyword hits may come without their texts, and none with a snippet (`search.with_texts`
        and `with_snippets` make them).

        Raises:
            UnsupportedModeError: semantic or hybrid asked for with no model or no vectors.
            EmbeddingMismatchError: the vectors belong to another model.
            ConfigError: unknown mode or kind, bad limit, or --rerank with no reranker configured.
            SourceNotFoundError: `source` is neither a source's name nor its folder (checked when
                nothing was found).
        """
        if mode is not None and mode not in MODES:
            raise ConfigError(f"unknown search mode {mode!r}; use one of: {', '.join(MODES)}")
        # Undecodable bytes of a command line become visible escapes, as in stored paths.
        query = escape_surrogates(query)
        source, kind, path, language, symbol_kind = (
            escape_surrogates(v) if v else v for v in (source, kind, path, language, symbol_kind))
        if not 1 <= limit <= 1000 or offset < 0 or not 0 <= hops <= 3:
            raise ConfigError("limit must be 1-1000, offset at least 0, hops 0-3")
        if group_by not in (None, "file"):
            raise ConfigError(f"cannot group results by {group_by!r}; use file")
        if kind is not None:
            from mindex.sources import SOURCE_KINDS

            if kind not in SOURCE_KINDS:
                raise ConfigError(f"unknown kind {kind!r}; choose one of: {', '.join(SOURCE_KINDS)}")
        conf = self.search_settings
        reranker = self._reranker(rerank)
        merge = conf.merge_adjacent if merge is None else merge
        wanted = offset + limit
        depth = max(wanted, conf.rerank.candidates, 50) if (reranker or merge or hops) else wanted
        if group_by:
            depth = max(depth, 10 * wanted, 100)  # several chunks a file: look deeper
        elif not merge:
            depth = max(depth, 2 * wanted)  # room to refill after pieces of one section collapse
        # Keyword candidates come without their texts when nothing before the page reads them:
        # only the page's are read (a code chunk's is cut from its file's compressed text).
        texts = bool(reranker or merge or hops)
        retrieve = partial(self._retrieve, query, mode=mode, kind=kind, path=path, weights=weights,
                           language=language, symbol_kind=symbol_kind, facets=facets, texts=texts)
        result, vectors = retrieve(depth=depth, source=source)
        if source is not None and not result.hits:
            # A misspelt name says so (SourceNotFoundError), not "no results"; a source's
            # folder works as its name.
            try:
                named = self.source(source).name
            except SourceNotFoundError:
                # Without the registered names: a server token limited to some sources must
                # not learn the others from a typo.
                raise SourceNotFoundError(f"no source named {source!r}; `mindex sources` lists them") from None
            if named != source:
                source = named
                result, vectors = retrieve(depth=depth, source=source)
        # Sections' pieces, a file's chunks or neighbours that become one result read deeper.
        while len(result.hits) >= depth and depth < DEEPEST and page_size(result.hits, merge, group_by) < wanted:
            depth *= 4
            result, vectors = retrieve(depth=depth, source=source)
        started = time.perf_counter()
        hits, notes = list(result.hits), [result.note] if result.note else []
        reranked = False
        if reranker is not None:
            from mindex.rerank import apply_rerank

            hits, why = apply_rerank(hits, query, reranker, conf.rerank.candidates, conf.rerank.timeout)
            notes += [why] if why else []
            reranked = why is None
        logits = result.mode == "hybrid" and result.fusion == "learned" and reranker is None
        if decay_on:
            hits = decay(hits, conf.half_life_days, logits=logits)
        hits = tests_last(hits, query, logits, conf.test_penalty)
        if hops and vectors is None and mode == "keyword":
            embedder = self._pinned_embedder()  # hops walk the stored vectors
            vectors = self._vector_index(embedder) if embedder is not None else None
        for _ in range(hops):
            if vectors is None:
                notes.append("multi-hop needs vectors; run `mindex embed`")
                break
            hits = expand(self.store, vectors, hits)
            if reranked and reranker is not None:  # what the hop brought in meets the reranker too
                from mindex.rerank.base import rerank_hop

                left = conf.rerank.timeout - (time.perf_counter() - started)
                hits, why = rerank_hop(hits, query, reranker, left)
                notes += [why] if why else []
        if merge:
            hits = merge_adjacent(hits)
        elif not group_by:
            hits = collapse_sections(hits)
        if group_by:
            hits = group_by_file(hits)
        page = with_snippets(with_texts(self.store, hits[offset:wanted]), query) if snippets else hits[offset:wanted]
        took = result.took_ms + (time.perf_counter() - started) * 1000
        if self.agent_settings.query_log:
            self._log("search", {"query": query, "mode": result.mode, "limit": limit, "kind": kind, "source": source,
                                 "path": path, "facets": bool(facets)}, len(page), took)
        return replace(result, hits=tuple(page), took_ms=took, note="; ".join(notes) or None)

    def _log(self, kind: str, params: dict[str, Any], results: int, ms: float) -> None:
        """One row of the query log (agents.query_log), never failing the query."""
        from mindex.querylog import log_query

        if not getattr(self.store, "read_only", True):
            log_query(self.store, kind, params, results, ms)

    def locate(
        self, query: str, limit: int = 10, mode: str | None = None, source: str | None = None,
        path: str | None = None, language: str | None = None, kind: str | None = None,
    ) -> LocateResult:
        """The files most likely to answer a question (an issue's text, a stack trace), best
        first: those a stack trace in it names, innermost frame first, then by a file's best
        chunk (and, with the learned fusion, its next two where they match too:
        `search.file_order`); each with its best three chunks (a frame's first) and the
        definitions in it whose names the question holds (`mindex.locate`).

        Raises:
            UnsupportedModeError, EmbeddingMismatchError, ConfigError: as `search`.
        """
        if not 1 <= limit <= 100:
            raise ConfigError("limit must be 1-100")
        found = self.search(query, min(1000, max(200, 20 * limit)), mode=mode, source=source, kind=kind, path=path,
                            language=language, snippets=False)  # made for the chunks shown only
        started = time.perf_counter()
        logits = (found.mode == "hybrid" and found.fusion == "learned"
                  and self.search_settings.rerank.provider == "none")
        files = located(found, query, self.graph(), limit, logits, self.store.get_chunk)
        shown = {hit.id: hit for hit in with_snippets(with_texts(self.store, [h for f in files for h in f.chunks]), query)}
        files = [replace(f, chunks=tuple(shown[hit.id] for hit in f.chunks)) for f in files]
        took = found.took_ms + (time.perf_counter() - started) * 1000
        return LocateResult(found.query, found.mode, took, tuple(files), found.note)

    def _retrieve(
        self, query: str, depth: int, mode: str | None, source: str | None, kind: str | None,
        path: str | None, weights: dict[str, float] | None, language: str | None = None,
        symbol_kind: str | None = None, facets: Facets | None = None, texts: bool = True,
    ) -> tuple[SearchResult, VectorIndex | None]:
        """The first `depth` candidates of the chosen mode, and the vectors if any; keyword
        candidates without their texts unless `texts` (`search.with_texts` reads a page's)."""
        facets = facets or None
        filters: dict[str, Any] = {"source": source, "kind": kind, "path": path, "language": language,
                                   "symbol_kind": symbol_kind}
        # Snippets are the caller's, for the page it shows (`with_snippets`), not for every
        # candidate of a deep list.
        if mode == "keyword":
            return lexical_search(self.store, query, depth, 0, **filters, facets=facets, snippets=False,
                                  texts=texts), None
        embedder = self._pinned_embedder()
        vectors = self._vector_index(embedder) if embedder is not None else None
        if embedder is None or vectors is None or not len(vectors):
            why = self._embedder_note or "no vectors yet; run `mindex embed`"
            if mode is not None:
                raise UnsupportedModeError(f"{mode} search is unavailable: {why}; or search with `--mode keyword`")
            return replace(lexical_search(self.store, query, depth, 0, **filters, facets=facets, snippets=False,
                                          texts=texts), note=why), None
        if mode == "semantic":
            return semantic_search(self.store, vectors, embedder, query, depth, 0, **filters, facets=facets), vectors
        conf = self.search_settings
        leg_weights = {"keyword": conf.keyword_weight, "semantic": conf.semantic_weight, **(weights or {})}
        result = hybrid_search(self.store, vectors, embedder, query, depth, 0, source, kind, path,
                               leg_weights, conf.rrf_k, language, symbol_kind, conf.fusion, facets)
        return result, vectors

    def _reranker(self, wanted: bool | None) -> Reranker | None:
        provider = self.search_settings.rerank.provider
        if wanted is False or (wanted is None and provider == "none"):
            return None
        if provider == "none":
            raise ConfigError("no reranker configured; set one with `mindex config set search.rerank.provider local` (or tei, cohere, voyage, llm)")
        if self._reranker_obj is None:
            from mindex.rerank import build_reranker

            self._reranker_obj = build_reranker(self.search_settings.rerank, self.embed_settings.models_dir)
        return self._reranker_obj

    def grep(self, pattern: str, **options: Any) -> GrepResult:
        """Regex search over indexed code, ripgrep's way (see `mindex.grep.grep` for options).

        Raises:
            ConfigError: a bad regex or option.
        """
        import threading

        from mindex.grep import TIMEOUT, compile_pattern, grep, grep_in_child, risky

        options = {k: escape_surrogates(v) if isinstance(v, str) else v for k, v in options.items()}
        pattern = escape_surrogates(pattern)
        started = time.perf_counter()
        if (threading.current_thread() is not threading.main_thread() and options.get("timeout", TIMEOUT)
                and risky(compile_pattern(pattern, *(bool(options.get(k)) for k in (
                    "ignore_case", "smart_case", "fixed", "word", "multiline"))))):
            # Only the main thread can stop `re` mid-match (a signal), and a match holds the
            # GIL: in a server's worker thread, a pattern that may backtrack runs in a child
            # process that is killed at the limit, so the server never freezes.
            result = grep_in_child(self.location, pattern, options)
        else:
            result = grep(self.store, pattern, spans=self._grep_spans, **options)
        if self.agent_settings.query_log:
            self._log("grep", {"pattern": pattern, **options}, result.count,
                      (time.perf_counter() - started) * 1000)
        missing = self.store.code_files_without_text() if self.store.get_meta(CODE_TEXT_MISSING) else 0
        if missing:
            result.note = (f"{missing:,} code file{'s' * (missing != 1)} have no stored text since the index was "
                           "upgraded, so grep cannot see them; run `mindex index` to read them again")
        return result

    def graph(self) -> CodeGraph:
        """The code graph over what is indexed now (symbols, callers, callees, impact): kept
        while nothing is written (by this connection or another), so the calls it resolved
        answer the next question at once (a server, the UI)."""
        from mindex.graph import CodeGraph

        key = written_key(self.store)
        cached = self._graph_cache
        if cached is not None and cached[0] == key:
            return cached[1]
        graph = CodeGraph(self.store, self._log if self.agent_settings.query_log else None)
        self._graph_cache = (key, graph)
        return graph

    def roots(self) -> dict[str, str]:
        """Each source's name and folder."""
        return {stats.source.name: stats.source.root for stats in self.sources()}

    def get(self, chunk_id: str) -> Hit:
        """Fetch one chunk by id (or unique prefix).

        Raises:
            NotFoundError: no such chunk.
        """
        return self.store.get_chunk(chunk_id.strip())

    def compact(self) -> dict[str, Any]:
        """Give back the room edits leave behind: the full-text indexes merged, the file
        rewritten without free pages (SQLite); `VACUUM (ANALYZE)` on PostgreSQL. Returns
        db, before_bytes, after_bytes and seconds.

        Raises:
            ReadOnlyIndexError: the index cannot be written.
            StoreError: not enough disk for the rewrite (the index is unchanged).
        """
        started = time.perf_counter()
        report = self.store.compact()
        report["seconds"] = round(time.perf_counter() - started, 3)
        return report

    def status(self) -> dict[str, Any]:
        """Database path, schema, counts, size and the files skipped by the last runs."""
        stats = self.store.stats()
        stats["embed_model"] = self.store.get_meta("embed_model")
        stats["embed_dim"] = self.store.get_meta("embed_dim")
        stats["sources_detail"] = [s.to_dict() for s in self.sources()]
        return stats

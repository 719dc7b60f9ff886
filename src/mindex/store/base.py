"""The store contract every backend implements (SQLite, PostgreSQL)."""

from __future__ import annotations

import bisect
import json
import sys
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol

from mindex.errors import StoreError
from mindex.models import Chunk, Document, Facets, Hit, ReferenceRow, SkippedFile, Source, SourceStats, SymbolRow

if TYPE_CHECKING:
    from array import array


def pack(text: str) -> bytes:
    """A code file's text as stored: zlib (level 6) of its UTF-8, lone surrogates passed through."""
    return zlib.compress(text.encode("utf-8", "surrogatepass"), 6)


def inflate(packed: bytes) -> str:
    """The text `pack` stored."""
    return zlib.decompress(packed).decode("utf-8", "surrogatepass")


def pack_refs(refs: Sequence[ReferenceRow]) -> bytes:
    """A document's references as the SQLite store keeps them (schema v15), `_pack_columns` of
    five strings (kind, name, qualifier, alias, enclosing definition) and the line. A file
    repeats the same few callees, qualifiers and scopes: the stdlib's 353,000 references take
    2.6 MB of the index so, against 26 MB as one row each with a by-name index; and a lookup
    reads numbers, not strings."""
    kinds, names, qualifiers, aliases, lines, scopes = zip(*refs) if refs else ((),) * 6
    return _pack_columns(len(refs), (kinds, names, qualifiers, aliases, scopes), (lines,))


def ref_fields(packed: bytes) -> tuple[list[str], list[array[int]]]:
    """What `pack_refs` stored: the strings, and six columns (kind, name, qualifier, alias and
    scope as numbers into the strings; the line).

    Raises:
        StoreError: the row is damaged (the index file was edited or corrupted).
    """
    return _column_fields(packed, 5, 1, "references")


def unpack_refs(packed: bytes) -> list[ReferenceRow]:
    """The references `pack_refs` stored, in order."""
    strings, (kinds, names, qualifiers, aliases, scopes, lines) = ref_fields(packed)
    return [(strings[kinds[n]], strings[names[n]], strings[qualifiers[n]], strings[aliases[n]], lines[n],
             strings[scopes[n]]) for n in range(len(lines))]


def pack_symbols(symbols: Sequence[SymbolRow]) -> bytes:
    """A document's definitions as the SQLite store keeps them (schema v18), `_pack_columns`
    of three strings (qualified name, kind, signature) and three numbers (first and last
    line, exported): the stdlib's 75,000 definitions take 1.7 MB so, against 9.8 MB as rows
    with their indexes by short name and by document."""
    names, kinds, starts, ends, signatures, exported = zip(*symbols) if symbols else ((),) * 6
    return _pack_columns(len(symbols), (names, kinds, signatures), (starts, ends, [int(e) for e in exported]))


def unpack_symbols(packed: bytes) -> list[SymbolRow]:
    """The definitions `pack_symbols` stored, in order: (name, kind, start line, end line,
    signature, exported).

    Raises:
        StoreError: the row is damaged (the index file was edited or corrupted).
    """
    strings, (names, kinds, signatures, starts, ends, exported) = _column_fields(packed, 3, 3, "definitions")
    return [(strings[names[n]], strings[kinds[n]], starts[n], ends[n], strings[signatures[n]], bool(exported[n]))
            for n in range(len(starts))]


def short_name(name: str) -> str:
    """A qualified definition name's last part (`send` of `Session.send`): what lookups by
    name go through."""
    return name.rpartition(".")[2]


def _pack_columns(count: int, texts: Sequence[Sequence[str]], numbers: Sequence[Sequence[int]]) -> bytes:
    """`count` rows of some string and some number columns, zlib of: a header (count, flags),
    each string column as numbers into the rows' list of distinct strings, the number
    columns, then the strings joined by NUL (as JSON in the rare row set where one holds a
    NUL). Numbers are 16-bit unless one needs 32."""
    from array import array  # here: a search never packs

    strings: dict[str, int] = {}
    number = strings.setdefault
    columns = [[number(text, len(strings)) for text in column] for column in texts]
    columns += [list(column) for column in numbers]
    wide = len(strings) > 0xFFFF or any(max(column, default=0) > 0xFFFF for column in numbers)
    as_json = any("\0" in text for text in strings)
    body = json.dumps(list(strings)) if as_json else "\0".join(strings)
    parts = [little_endian(array("I", [count, wide | as_json << 1]))]
    parts += [little_endian(array("I" if wide else "H", column)) for column in columns]
    return zlib.compress(b"".join(parts) + body.encode("utf-8", "surrogatepass"), 6)


def _column_fields(packed: bytes, texts: int, numbers: int, what: str) -> tuple[list[str], list[array[int]]]:
    """What `_pack_columns` stored: the strings, and the columns (`texts` of numbers into the
    strings, then `numbers`).

    Raises:
        StoreError: the row is damaged (the index file was edited or corrupted).
    """
    from array import array

    try:
        raw = zlib.decompress(packed)
        count, flags = from_little_endian(array("I", raw[:8]))
        code, width = ("I", 4) if flags & 1 else ("H", 2)
        size = count * width
        total = texts + numbers
        if len(raw) < 8 + total * size:
            raise ValueError("shorter than its header says")
        columns = [from_little_endian(array(code, raw[8 + i * size:8 + (i + 1) * size])) for i in range(total)]
        body = raw[8 + total * size:].decode("utf-8", "surrogatepass")
        strings: list[str] = json.loads(body) if flags & 2 else body.split("\0")
        if count and texts and max(max(column) for column in columns[:texts]) >= len(strings):
            raise ValueError("a number past its strings")
    except (zlib.error, ValueError, TypeError) as exc:
        raise StoreError(f"the index's stored {what} of a file are damaged ({exc}); move the index file "
                         "aside and run `mindex index` to rebuild it") from None
    return strings, columns


def little_endian(numbers: array[int]) -> bytes:
    """An array's bytes, little-endian whatever the machine (an index file may move)."""
    if sys.byteorder == "big":
        numbers.byteswap()
    return numbers.tobytes()


def from_little_endian(numbers: array[int]) -> array[int]:
    """An array read from little-endian bytes, in the machine's order."""
    if sys.byteorder == "big":
        numbers.byteswap()
    return numbers


ChunkSpan = tuple[int, int, str, str | None]
"""(start line, end line, chunk id, symbol) of one chunk, as `chunk_spans` returns them."""


# From this many vectors of a model, searches approximate: the PostgreSQL store asks its HNSW
# index in the server instead of a matrix each process loads (~1.5 KB a vector at 384
# float32 dimensions), and a SQLite index's matrix is searched through an inverted file
# (`mindex.vectors.Lists`).
ANN_FROM = 200_000


def written_key(store: Any) -> tuple[int, int | None]:
    """Changes whenever anything is written to the index, by this process or another: the key
    of what a long-lived process keeps between questions (SQLite's data version counts other
    connections' commits only, so this connection's count of changes goes with it)."""
    return store.data_version(), getattr(getattr(store, "conn", None), "total_changes", None)


class SpanCache:
    """Files' chunk spans (`chunk_spans`) and definitions' spans (`symbol_spans`) kept between
    greps of a long-lived process (an MCP server, the background process) while nothing is
    written (`written_key`): a common pattern matches many lines in hundreds of files, and
    reading their chunks again took 40% of such a grep, unpacking their definitions again a
    quarter. At most `FILES` files each; then it starts again."""

    FILES = 20_000

    def __init__(self) -> None:
        self.key: tuple[int, int | None] | None = None
        self.spans: dict[int, list[ChunkSpan]] = {}
        self.defined: dict[int, Painted] = {}

    def _fresh(self, store: Any) -> None:
        key = written_key(store)
        if key != self.key or len(self.spans) > self.FILES or len(self.defined) > self.FILES:
            self.key, self.spans, self.defined = key, {}, {}

    def __call__(self, store: Any, document_ids: Sequence[int]) -> dict[int, list[ChunkSpan]]:
        self._fresh(store)
        return self._fill(self.spans, store.chunk_spans, document_ids)

    def innermost(self, store: Any, document_ids: Sequence[int]) -> dict[int, Painted]:
        """Each file's definitions as `painted` lays them out, the files read before taken
        from the cache."""
        self._fresh(store)
        def read(ids: list[int]) -> dict[int, Painted]:
            found = store.symbol_spans(ids)
            return {doc_id: painted(found.get(doc_id, ())) for doc_id in ids}
        return self._fill(self.defined, read, document_ids)

    @staticmethod
    def _fill(held: dict[int, Any], read: Callable[[list[int]], dict[int, Any]],
              document_ids: Sequence[int]) -> dict[int, Any]:
        """`held` with the documents it lacks read in (none where `read` has nothing)."""
        if missing := [doc_id for doc_id in document_ids if doc_id not in held]:
            found = read(missing)
            held.update((doc_id, found.get(doc_id, [])) for doc_id in missing)
        return held


Painted = tuple[list[int], list[str | None]]
"""(first lines, names): from `starts[k]` to the line before `starts[k + 1]`, the innermost
definition is `names[k]` (None: none); `starts[0]` is 0, before any line."""


def painted(spans: Iterable[tuple[int, int, str]]) -> Painted:
    """Definitions' spans (first line, last line, name) flattened into runs of lines with one
    innermost definition each: the name of a line is then one bisection away, where painting
    each definition over a file's matched lines cost two bisections a definition (a test
    file of 70 methods with a match or two). Where spans overlap without nesting, the one
    starting later (or, from the same line, ending sooner) holds the lines they share."""
    starts: list[int] = [0]
    names: list[str | None] = [None]

    def mark(line: int, name: str | None) -> None:
        if starts[-1] == line:
            names[-1] = name
        elif names[-1] != name:
            starts.append(line)
            names.append(name)

    open_: list[tuple[int, str]] = []  # (last line, name) of the definitions around, innermost last

    def close_before(line: int) -> None:
        while open_ and open_[-1][0] < line:
            end = open_.pop()[0]
            while open_ and open_[-1][0] <= end:  # ended inside the one just closed
                open_.pop()
            mark(end + 1, open_[-1][1] if open_ else None)

    # (A span ending before it starts holds no line, as painting would leave it.)
    for start, stop, name in sorted((s for s in spans if s[1] >= s[0]), key=lambda span: (span[0], -span[1])):
        close_before(start)
        mark(start, name)
        open_.append((stop, name))
    close_before(1 << 62)
    return starts, names


def facets_json(facets: dict[str, Any] | None) -> str | None:
    """A chunk's facets as both stores keep them."""
    return json.dumps(facets, ensure_ascii=False) if facets is not None else None


# The chunk columns an edited document's stored chunk must hold unchanged to be kept (its
# ordinal, lines, page and time are updated in place).
KEPT_COLUMNS = "title, context, terms, hash, symbol_kind, facets, text"


def kept_chunks(chunks: Sequence[Chunk], texts: Sequence[str], stored: Iterable[Sequence[Any]],
                ) -> tuple[dict[str, int], list[int]]:
    """Of an edited document's stored chunk rows (seq, id, then `KEPT_COLUMNS`), those its new
    `chunks` (with `texts`, each as the store keeps it) hold exactly, each id once: {chunk id:
    seq}; and the seqs of the others, to delete. One rule for both stores."""
    wanted = {c.id: (c.title, c.context, c.terms, c.hash, c.symbol_kind, facets_json(c.facets), text)
              for c, text in zip(chunks, texts, strict=True)}
    kept: dict[str, int] = {}
    gone: list[int] = []
    for seq, cid, *columns in stored:
        if cid not in kept and wanted.get(cid) == tuple(columns):
            kept[cid] = seq
        else:
            gone.append(seq)
    return kept, gone


def chunk_at(spans: Sequence[ChunkSpan], line: int) -> str | None:
    """The id of the chunk whose span (from `chunk_spans`, in line order) holds `line`."""
    at = bisect.bisect_right(spans, line, key=lambda span: span[0]) - 1  # no list of starts per call
    return spans[at][2] if at >= 0 and spans[at][0] <= line <= spans[at][1] else None


class DocumentStore(Protocol):
    """Sources, documents, chunks and keyword search. Same method order in every backend."""

    read_only: bool
    batches_grow: bool  # a large first index commits growing batches (`ingest.BATCH_GROWTH`)

    def close(self) -> None: ...
    def schema_version(self) -> int: ...
    def ensure_writable(self) -> None: ...
    def transaction(self) -> AbstractContextManager[Any]: ...
    def add_source(self, source: Source) -> Source: ...
    def remove_source(self, source_id: int) -> None: ...
    def list_sources(self) -> list[SourceStats]: ...
    def bulk_load(self) -> AbstractContextManager[None]: ...
    def bulk_loading(self) -> bool: ...
    def indexing(self, source: str) -> AbstractContextManager[None]: ...
    def embedding(self) -> AbstractContextManager[None]: ...
    def code_files_without_text(self) -> int: ...
    def code_hashes(self, hashes: Sequence[str]) -> set[str]: ...
    def document_list(self, source_id: int) -> list[tuple[str, str | None, int, int]]:
        """(path, language, size, chunks) of each indexed file of a source, by path."""
        ...

    def document_markers(self, source_id: int) -> dict[str, tuple[int, int, str]]: ...
    def skipped_markers(self, source_id: int) -> dict[str, tuple[int, int, str]]: ...
    def append_chunks(self, source_id: int, path: str, before: tuple[int, int], after: tuple[int, int],
                      place: Callable[[int], tuple[Sequence[Chunk], int]]) -> bool: ...
    def forget_markers(self, source_id: int) -> None: ...
    def document_metadata(self, kind: str) -> list[tuple[str, str, dict[str, Any]]]: ...
    def replace_graph(self, entities: Sequence[tuple[str, str, str, float | None, float | None, str | None]],
                      relations: Sequence[tuple[str, str, str]]) -> None: ...
    def graph_rows(self) -> tuple[list[tuple[Any, ...]], list[tuple[str, str, str]]]: ...
    def faceted_hits(self, kind: str, facets: Facets | None, limit: int) -> list[Hit]: ...
    def entry_pieces(self, kind: str, entry_id: str) -> list[Hit]: ...
    def write_batch(
        self,
        source_id: int,
        upserts: Sequence[Document] = (),
        touches: Sequence[tuple[str, int, int]] = (),
        deletes: Sequence[str] = (),
    ) -> None: ...
    def finish_run(self, source_id: int, skipped: Sequence[SkippedFile]) -> None: ...
    def refresh_keyword_tops(self, expression: Callable[[str], str | None] | None = None,
                             progress: Callable[[str, int, int], None] | None = None) -> None: ...
    def keyword_search(self, match: str, limit: int, offset: int = 0, **filters: Any) -> list[Hit]: ...
    def keyword_ranked(
        self,
        match: str,
        limit: int,
        offset: int = 0,
        source: str | None = None,
        kind: str | None = None,
        path: str | None = None,
        language: str | None = None,
        symbol_kind: str | None = None,
        facets: Facets | None = None,
    ) -> list[tuple[int, float]]: ...
    def trigram_index_ready(self) -> bool: ...
    def code_files_matching(self, match: str) -> set[int]: ...
    def code_text(self, doc_id: int) -> bytes | None: ...
    def code_texts(
        self, match: str | None, source: str | None = None, path: str | None = None,
        language: str | None = None,
    ) -> Iterator[tuple[int, str, str, str | None, bytes]]: ...
    def chunk_spans(self, document_ids: Sequence[int]) -> dict[int, list[ChunkSpan]]: ...
    def chunks_holding(self, lines: Sequence[tuple[int, int]]) -> dict[tuple[int, int], str | None]: ...
    def symbol_spans(self, document_ids: Sequence[int]) -> dict[int, list[tuple[int, int, str]]]: ...
    def code_files(self) -> list[tuple[int, str, str, str | None]]: ...
    def symbol_rows(self, column: str, value: str | int) -> list[tuple[int, int, str, str, int, int, str, int]]: ...
    def symbol_shorts(self) -> list[str]: ...
    def ref_rows(self, column: str, value: str | int,
                 kind: str | tuple[str, ...] | None = None) -> list[tuple[int, str, str, str, str, int, str]]: ...
    def get_chunk(self, chunk_id: str) -> Hit: ...
    def stats(self) -> dict[str, Any]: ...
    def compact(self) -> dict[str, Any]: ...
    # agent sessions and the query log (schema v10; workflows: mindex.store.workflows)
    def session_row(self, session_id: str) -> tuple[str | None, str | None] | None: ...
    def open_session(self, session_id: str, cwd: str, branch: str | None, issue: int | None, workflow_id: str | None,
                     head: str | None, injected: int = 0) -> None: ...
    def close_session(self, session_id: str, handoff: str, captured: int, compacted: int, files_read: int | None,
                      ended: bool) -> None: ...
    def commit_captured(self, sha: str) -> bool: ...
    def mark_captured(self, sha: str, session_id: str) -> None: ...
    def tag_exists(self, tag: str) -> bool: ...
    def sessions(self, limit: int) -> list[tuple[Any, ...]]: ...
    def query_stats(self) -> list[tuple[Any, ...]]: ...
    def log_query(self, session_id: str | None, kind: str, params: str, results: int, ms: float) -> None: ...
    # changelogs (schema v11)
    def fetch_markers(self) -> dict[str, tuple[str | None, str | None]]: ...
    def save_marker(self, product: str, strategy: str, newest: str | None, etag: str | None, status: str,
                    detail: str | None) -> None: ...
    def replace_synergies(self, rows: Sequence[tuple[str, str, str, str, str, str, str]]) -> None: ...
    def synergy_rows(self, name: str | None = None) -> list[tuple[str, str, str, str, str, str]]: ...


class VectorStore(Protocol):
    """Embedding vectors keyed by chunk hash, and the metadata that pins their model."""

    def get_meta(self, key: str) -> str | None: ...
    def set_meta(self, values: dict[str, str | None]) -> None: ...
    def pending_embeddings(self, model: str) -> list[tuple[str, int]]: ...
    def texts_for(self, hashes: Sequence[str]) -> dict[str, tuple[str, str]]: ...
    def hashes_with_vectors(self, model: str, hashes: Sequence[str]) -> set[str]: ...
    def save_vectors(self, model: str, rows: Sequence[tuple[str, bytes]]) -> None: ...
    def contexts_for(self, model: str, hashes: Sequence[str]) -> dict[str, str]: ...
    def save_contexts(self, model: str, rows: Sequence[tuple[str, str]]) -> None: ...
    def drop_vectors(self, keep_model: str | None = None) -> int: ...
    def vector_rows(self, model: str, seqs: Sequence[int] | None = None) -> list[tuple[int, str, bytes]]: ...
    def vector_keys(self, model: str) -> list[tuple[int, str]]: ...
    def data_version(self) -> int: ...
    def filtered_seqs(self, source: str | None, kind: str | None, path: str | None,
                      language: str | None = None, symbol_kind: str | None = None,
                      facets: Facets | None = None) -> list[int]: ...
    def hits_by_seq(self, seqs: Sequence[int], text: bool = True) -> dict[int, Hit]: ...
    def hits_ranked(self, ranked: Sequence[tuple[int, float]], text: bool = True) -> list[Hit]: ...


class Store(DocumentStore, VectorStore, Protocol):
    """Everything a backend provides."""

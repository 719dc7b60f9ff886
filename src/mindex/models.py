"""Shared nouns of the pipeline: frozen dataclasses, passed between stages."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple, Self

from mindex.languages import PROSE


def is_prose(kind: str | None, language: str | None) -> bool:
    """A result of this kind and language is prose: docs, or a code source's README, notes
    and `docs/*.md` (`languages.PROSE`), ranked, fused and filtered as docs."""
    return kind == "docs" or (kind == "code" and language in PROSE)


@dataclass(frozen=True)
class Source:
    """Something the user registered: a folder of docs (later code, changelogs, memory)."""

    name: str
    kind: str
    root: str
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    id: int | None = None
    indexed_at: float | None = None


@dataclass(frozen=True)
class Section:
    """A heading-delimited part of a parsed document, before chunking.

    `heading_path` holds the titles from H1 down to this section's own heading. `start_line`
    is the 1-based line in the original file where `text` begins; `line_map` (when present)
    maps each line of `text` to the first and last lines of the original file that hold it,
    for formats whose text is converted (HTML) and so no longer lines up one to one.
    """

    heading_path: tuple[str, ...]
    text: str
    start_line: int | None = None
    page: int | None = None
    line_map: tuple[tuple[int, int], ...] | None = None


@dataclass(frozen=True)
class ParsedDocument:
    """The output of a parser: a title, metadata (front-matter) and sections."""

    title: str
    sections: tuple[Section, ...]
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Chunk:
    """A unit of retrieval: text plus the context line that situates it."""

    id: str
    ordinal: int
    title: str
    context: str
    text: str
    hash: str
    start_line: int | None = None
    end_line: int | None = None
    page: int | None = None
    symbol: str | None = None  # code: the function or class the chunk holds or sits in (also its title)
    symbol_kind: str | None = None
    terms: str = ""  # words inside its camelCase identifiers, for the keyword index (see mindex.terms)
    at: float | None = None  # memory and knowledge: the entry's time, epoch seconds
    facets: dict[str, Any] | None = None  # memory and knowledge: id, type, tags, files, ...


class Symbol(NamedTuple):
    """A definition in a source file: `Class.method` name, kind, 1-based lines, signature."""

    name: str
    kind: str
    start_line: int
    end_line: int
    signature: str
    exported: bool = True


RECEIVER_CHARS = 80  # a reference's receiver (its qualifier) is cut to this many characters


class Reference(NamedTuple):
    """A reference a source file makes: a call, an import, a base class (see parse/refs.py)."""

    kind: str
    name: str
    qualifier: str
    alias: str
    line: int
    scope: str


SymbolRow = tuple[str, str, int, int, str, bool]  # a Symbol's fields, in order
ReferenceRow = tuple[str, str, str, str, int, str]  # a Reference's fields, in order


@dataclass(frozen=True)
class Document:
    """A file of a source as stored: identity, change markers and its chunks."""

    path: str
    kind: str
    title: str
    size: int
    mtime_ns: int
    content_hash: str
    metadata: dict[str, Any] = field(default_factory=dict)
    chunks: tuple[Chunk, ...] = ()
    # A code file's definitions and references as plain tuples (a `Symbol` or `Reference` is
    # one, but the code source hands over bare tuples): a worker's result is pickled to the
    # single writer, and unpickling the stdlib's 350,000 references as objects took it 1.3 s
    # (as tuples 0.2 s). Read them by position.
    symbols: tuple[SymbolRow, ...] = ()
    text: str | None = None  # code only: the decoded file, for grep
    refs: tuple[ReferenceRow, ...] = ()
    packed: bytes | None = None  # code only: `text` compressed as the store keeps it (made by the worker)
    packed_refs: bytes | None = None  # code only: `refs` packed as SQLite keeps them (made by the worker)
    packed_symbols: bytes | None = None  # code only: `symbols` packed as SQLite keeps them (the worker's)


@dataclass(frozen=True)
class SkippedFile:
    """A file a run did not index, with the reason a person can act on."""

    path: str
    reason: str
    # Set when the reason lies in the file's bytes (empty, binary, generated or minified): the
    # file's size and mtime then, so an unchanged file is not read again to be skipped again.
    size: int | None = None
    mtime_ns: int | None = None


class Changeable:
    """`but`, for frozen dataclasses without `__post_init__` made in bulk (hits, grep matches)."""

    def but(self, **changes: Any) -> Self:
        """A copy with some fields changed: `dataclasses.replace` without its call of
        `__init__`, 8× faster where every candidate of a query gets its fused score (1,600 a
        localization question: 25 ms) or every grep match its chunk (40,000: 0.2 s).

        Raises:
            TypeError: a name that is not a field.
        """
        unknown = changes.keys() - self.__dict__.keys()
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field {', '.join(sorted(unknown))}")
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__, **changes)
        return new


@dataclass(frozen=True)
class Hit(Changeable):
    """One search result, with everything the JSON schema promises."""

    id: str
    source: str
    kind: str
    path: str
    title: str
    context: str
    start_line: int | None
    end_line: int | None
    page: int | None
    score: float
    snippet: str
    text: str
    explain: dict[str, Any] | None = None
    language: str | None = None  # code only, like symbol and symbol_kind
    symbol: str | None = None
    symbol_kind: str | None = None
    seq: int | None = None  # the store's row key (joins a hit to its vector); not in JSON
    modified: float | None = None  # the document's mtime, epoch seconds (recency decay)
    ordinal: int | None = None  # the chunk's place in its document (merging neighbours); not in JSON
    facets: dict[str, Any] | None = None  # memory and knowledge: id, type, at, tags, files, ...

    @property
    def prose(self) -> bool:
        """Docs, or a code source's prose (its README, `docs/*.md`, `.rst`: `languages.PROSE`)."""
        return is_prose(self.kind, self.language)

    def to_dict(self) -> dict[str, Any]:
        """Return the documented JSON shape (`page`, `explain` only where present)."""
        out: dict[str, Any] = {
            "id": self.id,
            "source": self.source,
            "kind": self.kind,
            "path": self.path,
            "title": self.title,
            "context": self.context,
            "start_line": self.start_line,
            "end_line": self.end_line,
            "score": round(self.score, 6),
            "snippet": self.snippet,
            "text": self.text,
        }
        if self.page is not None:
            out["page"] = self.page
        if self.kind == "code":
            out.update(language=self.language, symbol=self.symbol, symbol_kind=self.symbol_kind)
        if self.facets is not None:
            out["facets"] = self.facets
        if self.explain is not None:
            out["explain"] = self.explain
        return out


@dataclass(frozen=True)
class Facets:
    """Filters on memory, knowledge and changelog chunks, applied before top-k: any of `types`,
    every one of `tags`, any of `files` (a path, a folder or a glob), entry time in [since,
    until) (epoch seconds), any of `ids`; `current_only` leaves out superseded knowledge;
    changes by product, entity and version range."""

    types: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    since: float | None = None
    until: float | None = None
    ids: tuple[str, ...] = ()
    current_only: bool = False
    products: tuple[str, ...] = ()  # changelog: any of these products
    entities: tuple[str, ...] = ()  # changelog: every one of these entities
    version_after: str | None = None  # changelog: version key > this (mindex.changelog.versions.key)
    version_until: str | None = None  # changelog: version key <= this

    def __bool__(self) -> bool:
        return bool(self.types or self.tags or self.files or self.ids or self.current_only or self.products
                    or self.entities or self.since is not None or self.until is not None
                    or self.version_after is not None or self.version_until is not None)


@dataclass(frozen=True)
class SearchResult:
    """The answer to one query: mode actually used, time taken and ranked hits."""

    query: str
    mode: str
    took_ms: float
    hits: tuple[Hit, ...]
    note: str | None = None
    fusion: str | None = None  # hybrid: how the legs were combined (learned or rrf); not in JSON

    def to_dict(self) -> dict[str, Any]:
        """Return the documented `--json` object."""
        out: dict[str, Any] = {
            "query": self.query,
            "mode": self.mode,
            "took_ms": round(self.took_ms, 2),
            "results": [hit.to_dict() for hit in self.hits],
        }
        if self.note:
            out["note"] = self.note
        return out


@dataclass(frozen=True)
class FileHit:
    """A file that answers a "which files" question: its best chunks and the definitions in it
    that the question names."""

    source: str
    path: str
    language: str | None
    score: float
    chunks: tuple[Hit, ...]
    symbols: tuple[str, ...] = ()
    frames: tuple[int, ...] = ()  # the lines of it a stack trace in the question names, innermost first

    def to_dict(self) -> dict[str, Any]:
        """The `mindex locate --json` shape of one file."""
        return {"source": self.source, "path": self.path, "language": self.language, "score": round(self.score, 6),
                "symbols": list(self.symbols), "frames": list(self.frames),
                "chunks": [{"id": h.id, "start_line": h.start_line, "end_line": h.end_line, "context": h.context,
                            "symbol": h.symbol, "score": round(h.score, 6)} for h in self.chunks]}


@dataclass(frozen=True)
class LocateResult:
    """The files most likely to answer a question (an issue, a stack trace), best first."""

    query: str
    mode: str
    took_ms: float
    files: tuple[FileHit, ...]
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The `mindex locate --json` object."""
        out: dict[str, Any] = {"query": self.query, "mode": self.mode, "took_ms": round(self.took_ms, 2),
                               "files": [f.to_dict() for f in self.files]}
        if self.note:
            out["note"] = self.note
        return out


@dataclass(frozen=True)
class SourceStats:
    """A registered source with its document and chunk counts."""

    source: Source
    documents: int
    chunks: int

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready description."""
        return {
            "name": self.source.name,
            "kind": self.source.kind,
            "root": self.source.root,
            "include": list(self.source.include),
            "exclude": list(self.source.exclude),
            "documents": self.documents,
            "chunks": self.chunks,
            "indexed_at": self.source.indexed_at,
        }


@dataclass
class IndexReport:
    """What one `index` run did, per source and in total."""

    added: int = 0
    updated: int = 0
    unchanged: int = 0
    removed: int = 0
    chunks: int = 0
    bytes: int = 0
    seconds: float = 0.0  # the whole run of the source: listing, parsing, writing, embedding
    skipped: list[SkippedFile] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    embedded: int = 0  # chunk texts embedded after this source was indexed
    embed_seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready summary, skipped files included."""
        return {
            "added": self.added,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "removed": self.removed,
            "chunks": self.chunks,
            "bytes": self.bytes,
            "seconds": round(self.seconds, 3),
            "embedded": self.embedded,
            "embed_seconds": round(self.embed_seconds, 3),
            "skipped": [{"path": s.path, "reason": s.reason} for s in self.skipped],
            "errors": list(self.errors),
        }

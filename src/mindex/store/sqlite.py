"""The embedded store: one SQLite file in WAL mode, FTS5 kept in sync by triggers.

Writers hold a `WriteLock` and commit in batches (one transaction per batch of whole
documents), so a reader never sees half a document and a killed writer leaves the last
committed batch. Readers need no lock at all.
"""

from __future__ import annotations

import bisect
import json
import logging
import math
import re
import os
import sqlite3
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any

from mindex.errors import (
    IndexLockedError,
    NotFoundError,
    ReadOnlyIndexError,
    SchemaTooNewError,
    SourceExistsError,
    StoreError,
    UPGRADE_HINT,
)
from mindex.models import Chunk, Document, Facets, Hit, ReferenceRow, SkippedFile, Source, SourceStats, SymbolRow
from mindex.pathglob import glob_match
from mindex.store.base import (
    ChunkSpan,
    inflate,
    pack,
    pack_refs,
    pack_symbols,
    ref_fields,
    short_name,
    unpack_refs,
    unpack_symbols,
)
from mindex.store.lock import WriteLock

# BM25 column weights for (title, context, text, terms): a word in a heading or breadcrumb
# says more about what a chunk is about than the same word in its body; terms are the words
# inside the body's camelCase names.
BM25_WEIGHTS = (8.0, 4.0, 1.0, 1.0)

# A chunk's text: its own, or, stored as '' (schema v12), lines start_line..end_line of its
# code file's packed text (`_FileLines`, registered on every connection as mindex_lines).
_FROM_FILE = "mindex_lines((SELECT packed FROM code_text WHERE document_id = c.document_id), c.start_line, c.end_line)"
_CHUNK_TEXT = f"coalesce(nullif(c.text, ''), {_FROM_FILE}, '')"
# The same while a batch is written: the writer has its chunks' texts (`_FileLines.given`).
_BATCH_CHUNK_TEXT = f"coalesce(nullif(c.text, ''), mindex_given_text(c.id), {_FROM_FILE}, '')"
_HIT_COLUMNS_WITH = """
    c.id, s.name, d.kind, d.path, c.title, c.context, c.start_line, c.end_line, c.page, {text},
    c.seq, d.mtime_ns, d.language, {symbol}, c.symbol_kind, c.ordinal, c.at, c.facets
"""
# A code chunk's symbol is its title (schema v18 dropped the copy in chunks.symbol).
_CHUNK_SYMBOL = "CASE WHEN c.symbol_kind IS NOT NULL THEN c.title END"
_HIT_COLUMNS = _HIT_COLUMNS_WITH.format(text=_CHUNK_TEXT, symbol=_CHUNK_SYMBOL)
# PostgreSQL: every chunk keeps its text
PLAIN_HIT_COLUMNS = _HIT_COLUMNS_WITH.format(text="c.text", symbol=_CHUNK_SYMBOL)
# Every chunk query that shows or filters by source and path joins the same three tables.
_CHUNK_JOINS = "JOIN documents d ON d.id = c.document_id JOIN sources s ON s.id = d.source_id"
# A chunk's vector for a model; an empty one marks a chunk that needs none (imports only)
# and is never searched.
_VECTOR_JOIN = "JOIN vectors v ON v.model = ? AND v.hash = c.hash AND length(v.vector) > 0"


log = logging.getLogger(__name__)

# schema_meta key of the index definitions a bulk load left out (see `bulk_load`).
_BULK_INDEXES = "bulk_load_indexes"


# What a saved index definition may be: only ever re-run as `CREATE INDEX` on these tables.
_INDEX_SQL = re.compile(r'CREATE INDEX "?\w+"? ON "?(?:chunks|symbols|refs)"? \([^;]*\)')


def _bulk_state(db: sqlite3.Connection) -> tuple[int | None, dict[str, str]]:
    """(pid, index definitions) a bulk load saved, or (None, {}) when none is pending. The
    value is read as untrusted: a malformed one (edited by hand) is reported and dropped,
    and anything but a plain index definition on our tables is never run."""
    saved = db.execute("SELECT value FROM schema_meta WHERE key = ?", (_BULK_INDEXES,)).fetchone()
    if saved is None:
        return None, {}
    try:
        state = json.loads(saved[0])
        pid, indexes = int(state["pid"]), dict(state["indexes"])
    except (ValueError, TypeError, KeyError):
        log.warning("ignoring a malformed %s in schema_meta (index definitions lost); if searches are slow, "
                    "move the index aside and run `mindex index`", _BULK_INDEXES)
        return -1, {}  # no process owns it: the next restore clears it
    safe = {name: sql for name, sql in indexes.items() if isinstance(sql, str) and _INDEX_SQL.fullmatch(sql)}
    if len(safe) < len(indexes):
        log.warning("ignoring %d saved index definitions that are not plain CREATE INDEX statements",
                    len(indexes) - len(safe))
    return pid, safe


def _alive(pid: int) -> bool:
    """Whether a process with this id runs (on this machine; another user's counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


# Inflated code files kept for the next grep (a long-lived server greps the same files
# again and again); keyed by document id and content hash, so an edit is never served stale.
TEXT_CACHE_CHARS = 32_000_000


class _TextCache:
    """Least recently used values up to a total size in characters: inflated texts (grep),
    files' lines (chunk texts). A value over a quarter of the limit is not kept, or, with
    `keep_any`, is kept while it is the newest, the older ones making room."""

    def __init__(self, limit: int, keep_any: bool = False) -> None:
        self.limit, self.size = limit, 0
        self.largest = None if keep_any else limit // 4
        self.items: OrderedDict[Any, tuple[Any, int]] = OrderedDict()

    def get(self, key: Any) -> Any:
        found = self.items.get(key)
        if found is None:
            return None
        self.items.move_to_end(key)
        return found[0]

    def put(self, key: Any, value: Any, size: int | None = None) -> Any:
        size = len(value) if size is None else size
        if self.largest is None or size <= self.largest:
            self.items[key] = (value, size)
            self.size += size
            while self.size > self.limit and len(self.items) > 1:
                self.size -= self.items.popitem(last=False)[1][1]
        return value


# Documents' references decoded (`ref_fields`) kept per store, the graph reads the same
# files' references again as it follows a call; keyed by the packed bytes themselves, so a
# document written since is never served stale. All 1,600 of the stdlib's documents that
# hold references take about 19 MB decoded.
REF_DOCUMENTS_KEPT = 2048
# The same for documents' definitions (`unpack_symbols`): all 1,631 of the stdlib's take about 21 MB.
SYMBOL_DOCUMENTS_KEPT = 2048
# Definitions' short names compared as symbol_names' NOCASE collation compares them: ASCII
# letters without case, every other character as it is.
_ASCII_LOWER = {code: code + 32 for code in range(ord("A"), ord("Z") + 1)}


class _FileLines:
    """`mindex_lines(packed, first, last)`: lines first..last (1-based, inclusive) of a code
    file's packed text, or NULL without one. Files' lines are kept for the next calls, keyed
    by the packed bytes (never stale), up to `KEEP_CHARS` characters: a document's chunks
    come one after another, and a localization question's candidates come from a hundred
    files or more (64 files kept made a cold one inflate 40% more). One instance per
    connection."""

    KEEP_CHARS = 8_000_000

    def __init__(self) -> None:
        self.kept = _TextCache(self.KEEP_CHARS, keep_any=True)  # a huge file is kept while its chunks are read
        self.given: dict[str, str] = {}  # by chunk id: texts of a batch's chunks stored as ''

    def lines(self, packed: bytes) -> list[str]:
        """A code file's lines, from its packed text."""
        found: list[str] | None = self.kept.get(packed)
        if found is None:
            text = inflate(packed)
            found = self.kept.put(packed, text.split("\n"), len(text))
        return found

    def __call__(self, packed: bytes | None, first: int | None, last: int | None) -> str | None:
        if packed is None or first is None or last is None:
            return None
        return _cut(self.lines(packed), first, last)

    def given_text(self, chunk_id: str) -> str | None:
        """`mindex_given_text(chunk_id)`: the text of a chunk the writer is writing and stored
        as '' (`given`), or NULL: no blob read, no inflating, no lines joined again."""
        return self.given.get(chunk_id)


class _PackRefs:
    """SQL aggregate `mindex_pack_refs(n, kind, name, qualifier, alias, line, scope)`: one
    document's reference rows packed as `pack_refs` packs them, in `n` order (the migration
    to schema v15)."""

    def __init__(self) -> None:
        self.rows: list[tuple[int, ReferenceRow]] = []

    def step(self, n: int, kind: str, name: str, qualifier: str, alias: str, line: int, scope: str) -> None:
        self.rows.append((n, (kind, name, qualifier, alias, line, scope)))

    def finalize(self) -> bytes:
        self.rows.sort(key=lambda row: row[0])
        return pack_refs([ref for _, ref in self.rows])


class _PackSymbols:
    """SQL aggregate `mindex_pack_symbols(id, name, kind, start, end, signature, exported)`:
    one document's symbol rows packed as `pack_symbols` packs them, in id order (the migration
    to schema v18)."""

    def __init__(self) -> None:
        self.rows: list[tuple[int, SymbolRow]] = []

    def step(self, n: int, name: str, kind: str, start: int, end: int, signature: str, exported: int) -> None:
        self.rows.append((n, (name, kind, start, end, signature, bool(exported))))

    def finalize(self) -> bytes:
        self.rows.sort(key=lambda row: row[0])
        return pack_symbols([symbol for _, symbol in self.rows])


# How a packed table's row reads back (`mindex copy` counts, dumps and loads them).
_UNPACK: dict[str, Callable[[bytes], list[Any]]] = {"refs": unpack_refs, "symbols": unpack_symbols}


def _symbol_id(doc_id: int, n: int) -> int:
    """A definition's id on SQLite: its document's number and its place in the document's
    packed row (internal: the graph tells definitions apart by it; never shown)."""
    return doc_id << 32 | n


def _nocase(text: str) -> str:
    """`text` as NOCASE compares it (ASCII letters lower-cased)."""
    return text.translate(_ASCII_LOWER)


def _cut(lines: list[str], first: int, last: int) -> str:
    """Lines first..last (1-based, inclusive): what a chunk stored as '' reads back as."""
    return "\n".join(lines[first - 1 : last])


def _trigrams_built(db: sqlite3.Connection) -> bool:
    """Whether grep's trigram index holds every stored code text (schema_meta 'trigrams')."""
    return db.execute("SELECT 1 FROM schema_meta WHERE key = 'trigrams'").fetchone() is not None


def _in_file(text: str, lines: list[str], first: int | None, last: int | None) -> bool:
    """True when a chunk's text is exactly lines first..last of its file (stored as '')."""
    return bool(text) and first is not None and last is not None and _cut(lines, first, last) == text


def _migrations() -> list[tuple[int, Path]]:
    """The numbered migration files, oldest first (their text is read only to migrate)."""
    folder = Path(__file__).with_name("migrations")
    return sorted((int(name.split("_", 1)[0]), folder / name) for name in os.listdir(folder) if name.endswith(".sql"))


MIGRATIONS = _migrations()
SCHEMA_VERSION = MIGRATIONS[-1][0]


def peek(path: Path) -> tuple[int, list[tuple[str, str, str, float | None]]]:
    """(schema version, sources as (name, kind, root, indexed_at)) of an index file, read
    without migrating or locking it (what `mindex doctor` reports).

    Raises:
        sqlite3.DatabaseError: the file is not an index (empty, cut short, something else).
    """
    if _empty(path):
        raise sqlite3.DatabaseError(f"it is empty (0 bytes), cut short or overwritten; {_WAY_BACK}")
    with sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=2) as conn:
        row = conn.execute("SELECT value FROM schema_meta WHERE key = 'schema_version'").fetchone()
        sources = conn.execute("SELECT name, kind, root, indexed_at FROM sources ORDER BY name").fetchall()
    return (int(row[0]) if row else 0), sources


class SQLiteStore:
    """All SQL of the embedded backend."""

    _CODE_TEXT = "mindex_inflate(packed)"  # a code file's text, as SQL
    _CHUNK_TEXT = _CHUNK_TEXT  # a chunk's text, as SQL (PostgreSQL: c.text)
    _HIT_COLUMNS = _HIT_COLUMNS
    # The rows that hang off a document, deleted with it; chunks before code_text, from which
    # the full-text index is handed the text of chunks stored as '', and ref_names before refs,
    # whose packed rows say which names to delete (see `_delete_names`); symbol_names
    # before symbols likewise.
    _DOCUMENT_TABLES: tuple[str, ...] = ("chunks", "code_text", "ref_names", "refs", "symbol_names", "symbols")
    # A document's references are one packed row (schema v15), its definitions too (v18):
    # the tables of `_UNPACK`. PostgreSQL keeps a row each.
    _PACKED = True

    def __init__(self, path: Path, lock_timeout: float = 30.0, create: bool = True) -> None:
        if path.is_dir():
            raise StoreError(f"{path} is a folder, not an index file; point --db (or MINDEX_DB) at a file, "
                             f"e.g. {path / 'index.db'}")
        if not path.exists() and not create:
            raise StoreError(
                f"no index at {path}; register a folder with `mindex add <folder>` "
                "and build it with `mindex index` (or point --db / MINDEX_DB at one)"
            )
        self.path = path
        self.lock = WriteLock(path, lock_timeout)
        self.read_only = _read_only(path)
        self._ref_fields = lru_cache(maxsize=REF_DOCUMENTS_KEPT)(ref_fields)
        self._unpacked_symbols = lru_cache(maxsize=SYMBOL_DOCUMENTS_KEPT)(unpack_symbols)
        self._kind_starts = lru_cache(maxsize=SYMBOL_DOCUMENTS_KEPT)(self._starts_by_kind)
        if not path.exists():
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise ReadOnlyIndexError(
                    f"cannot create the index {path}: {exc.strerror} for {path.parent}; "
                    "point --db (or MINDEX_DB) at a writable folder"
                ) from None
            self.read_only = _read_only(path)
            if not self.read_only:
                self._create(max(lock_timeout, 5.0))
        elif _empty(path):
            raise StoreError(f"{path} is empty (0 bytes): the index was cut short or overwritten, and mindex will not "
                             f"take it for a new one (its sources would vanish without a word); {_WAY_BACK}")
        self.conn = self._connect(max(lock_timeout, 5.0))
        self.conn.execute("PRAGMA foreign_keys = ON")
        self.conn.create_function("mindex_glob", 2, glob_match, deterministic=True)
        self._texts = _TextCache(TEXT_CACHE_CHARS)
        self._migrate()
        if not self.read_only:
            self._restore_indexes()  # a bulk load killed before its end left them out

    def _create(self, timeout: float) -> None:
        """Make a new index whole under another name, then link it into place: an index file
        is never seen half made, so an empty one can only be a damaged one. Two processes
        creating it at once keep the first (a link never replaces a file)."""
        final, building = self.path, self.path.with_name(f"{self.path.name}.new-{os.getpid()}")
        building.unlink(missing_ok=True)
        self.path = building
        try:
            self.conn = self._connect(timeout)
            self.conn.execute("PRAGMA foreign_keys = ON")
            self._migrate()
            self.conn.execute("PRAGMA journal_mode = DELETE")  # everything in the one file that moves
            self.conn.close()
            try:
                os.link(building, final)
            except FileExistsError:
                pass  # another process made it a moment ago: use theirs
        except StoreError as exc:  # name the index the user asked for, not the file it was being built in
            raise type(exc)(str(exc).replace(str(building), str(final))) from None
        finally:
            self.path = final
            for leftover in (building, building.with_name(building.name + "-journal")):
                leftover.unlink(missing_ok=True)

    def _connect(self, timeout: float) -> sqlite3.Connection:
        """Open read-write in WAL mode, or, where the file or its folder cannot be written,
        read-only: `mode=ro`, else `immutable=1` when no unfinished WAL holds newer pages."""
        options = ["mode=ro"] + ([] if _wal_pending(self.path) else ["immutable=1"]) if self.read_only else [""]
        failure: sqlite3.DatabaseError | None = None
        for option in options:
            target = f"{self.path.resolve().as_uri()}?{option}" if option else str(self.path)
            try:
                conn = sqlite3.connect(target, timeout=timeout, isolation_level=None,
                                       check_same_thread=False, uri=bool(option))
                conn.create_function("mindex_inflate", 1, inflate, deterministic=True)
                self._file_lines = _FileLines()
                conn.create_function("mindex_lines", 3, self._file_lines, deterministic=True)
                conn.create_function("mindex_given_text", 1, self._file_lines.given_text)
                # the migration to v15 (typeshed knows only one-argument aggregates returning int)
                conn.create_aggregate("mindex_pack_refs", 7, _PackRefs)  # type: ignore[arg-type]
                conn.create_aggregate("mindex_pack_symbols", 7, _PackSymbols)  # type: ignore[arg-type]
                conn.create_function("mindex_defines", 4, self._defines, deterministic=True)
                if option:
                    conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
                else:
                    conn.execute("PRAGMA journal_mode = WAL")
                    conn.execute("PRAGMA synchronous = NORMAL")
                return conn
            except sqlite3.DatabaseError as exc:
                failure = exc
        raise _open_failure(self.path, failure, self.read_only)

    def close(self) -> None:
        """Close the connection (the WAL is checkpointed by SQLite on last close)."""
        self.conn.close()

    def ensure_writable(self) -> None:
        """Raise before a write on an index that cannot be written.

        Raises:
            ReadOnlyIndexError: the file or its folder is read-only.
        """
        if self.read_only:
            raise ReadOnlyIndexError(
                f"the index {self.path} is read-only (the file or its folder cannot be written); "
                "searching works, but to change it, run this where it is writable or copy it to a "
                "writable folder and point --db (or MINDEX_DB) at the copy"
            )

    # -- schema ----------------------------------------------------------------------------

    def schema_version(self) -> int:
        """Return the schema version recorded in `schema_meta` (0 for a new file)."""
        row = self.conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_meta'"
        ).fetchone()
        if row is None:
            return 0
        value = self.conn.execute(
            "SELECT value FROM schema_meta WHERE key = 'schema_version'"
        ).fetchone()
        return int(value[0]) if value else 0

    def _migrate(self) -> None:
        current = self.schema_version()
        if current > SCHEMA_VERSION:
            raise SchemaTooNewError(
                f"{self.path} uses schema v{current}, newer than this mindex (v{SCHEMA_VERSION}); {UPGRADE_HINT}"
            )
        if current == SCHEMA_VERSION:
            return
        if self.read_only:
            raise ReadOnlyIndexError(
                f"{self.path} uses schema v{current} and needs upgrading to v{SCHEMA_VERSION}, but it "
                "is read-only; open it once with this mindex where it is writable"
            )
        with self.lock:
            current = self.schema_version()  # another process may have migrated meanwhile
            for version, file in MIGRATIONS:
                if version <= current:
                    continue
                sql = file.read_text(encoding="utf-8")
                # executescript commits any open transaction first, so the migration carries
                # its own BEGIN/COMMIT and lands whole or not at all.
                try:
                    self.conn.executescript(
                        f"BEGIN IMMEDIATE;\n{sql}\nINSERT OR REPLACE INTO schema_meta "
                        f"VALUES ('schema_version', '{version}');\nCOMMIT;"
                    )
                except sqlite3.Error as exc:
                    if self.conn.in_transaction:
                        self.conn.execute("ROLLBACK")
                    if isinstance(exc, sqlite3.OperationalError):
                        raise _explain(exc, self.path, f"the index could not be made or upgraded past schema "
                                       f"v{version - 1} (that step was rolled back, nothing is half done). Free "
                                       "some space and retry") from exc
                    raise

    # -- writing ---------------------------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """Hold the write lock and one IMMEDIATE transaction; roll back on any error."""
        self.ensure_writable()
        with self.lock:
            try:
                self.conn.execute("BEGIN IMMEDIATE")
                try:
                    yield self.conn
                    self.conn.execute("COMMIT")
                except BaseException:
                    if self.conn.in_transaction:
                        self.conn.execute("ROLLBACK")
                    raise
            except sqlite3.OperationalError as exc:
                raise _explain(exc, self.path) from exc

    @contextmanager
    def bulk_load(self) -> Iterator[None]:
        """While a large first index of a source writes, the secondary indexes of chunks,
        symbols and references are left out and built once at the end: sorting once costs far
        less than a random insert per row (stdlib: the writer's CPU 14.0 -> 10.1 s). Their
        definitions go to schema_meta first, so the next open of an index whose run was killed
        builds them again."""
        with self.transaction() as db:
            rows = db.execute(
                "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL "
                "AND tbl_name IN ('chunks', 'symbols', 'refs')").fetchall()
            pending = {**_bulk_state(db)[1], **dict(rows)}
            db.execute("INSERT OR REPLACE INTO schema_meta VALUES (?, ?)",
                       (_BULK_INDEXES, json.dumps({"pid": os.getpid(), "indexes": pending})))
            for name, _ in rows:
                db.execute(f'DROP INDEX "{name}"')
        try:
            yield
        finally:
            self._restore_indexes(mine=True)

    @contextmanager
    def indexing(self, source: str) -> Iterator[None]:
        """A whole indexing run of one source: a second run of the same source waits for the
        first (each batch takes the write lock on its own, so runs of other sources go on),
        then finds what the first wrote unchanged instead of parsing it again. The PostgreSQL
        store refuses the second run with the holder's name."""
        safe = re.sub(r"[^\w.@+-]", "_", source)
        with WriteLock(self.path, math.inf, f"source-{safe}", f"indexing source {source!r} of"):
            yield

    @contextmanager
    def embedding(self) -> Iterator[None]:
        """One embedding run at a time: a second waits, then embeds only what is still
        without a vector (two `index` runs and an `embed --force` at once embedded the same
        chunks three times)."""
        with WriteLock(self.path, math.inf, "embed", "embedding"):
            yield

    def _restore_indexes(self, mine: bool = False) -> None:
        """Build the indexes a bulk load left out: at its end (`mine`), or on opening an index
        whose bulk load died (not while its process still runs)."""
        pid, indexes = _bulk_state(self.conn)
        if pid is None or (not mine and pid > 0 and _alive(pid)):
            return
        with self.transaction() as db:
            for sql in indexes.values():
                db.execute(sql.replace("CREATE INDEX", "CREATE INDEX IF NOT EXISTS", 1))
            db.execute("DELETE FROM schema_meta WHERE key = ?", (_BULK_INDEXES,))

    def add_source(self, source: Source) -> Source:
        """Register a source; its name and root must both be new.

        Raises:
            SourceExistsError: a source with that name or root exists.
        """
        options = json.dumps({"include": list(source.include), "exclude": list(source.exclude)})
        with self.transaction() as db:
            clash = db.execute(
                "SELECT name FROM sources WHERE name = ? OR (root = ? AND kind = ?)",
                (source.name, source.root, source.kind),
            ).fetchone()
            if clash:
                raise SourceExistsError(
                    f"a source {clash[0]!r} already covers that; "
                    f"see `mindex sources`, or `mindex remove {clash[0]}` first"
                )
            cursor = db.execute(
                "INSERT INTO sources (name, kind, root, options, created_at) VALUES (?, ?, ?, ?, ?)",
                (source.name, source.kind, source.root, options, time.time()),
            )
        return Source(source.name, source.kind, source.root, source.include, source.exclude, cursor.lastrowid)

    def remove_source(self, source_id: int) -> None:
        """Delete a source with its documents, chunks and FTS rows."""
        with self.transaction() as db:
            for table in self._DOCUMENT_TABLES:
                db.execute(
                    f"DELETE FROM {table} WHERE document_id IN (SELECT id FROM documents WHERE source_id = ?)",
                    (source_id,),
                )
            db.execute("DELETE FROM documents WHERE source_id = ?", (source_id,))
            db.execute("DELETE FROM sources WHERE id = ?", (source_id,))

    def code_files_without_text(self) -> int:
        """Code documents whose text is not stored (an upgrade emptied it until the next run)."""
        (missing,) = self.conn.execute(
            "SELECT count(*) FROM documents d WHERE d.kind = 'code' "
            "AND NOT EXISTS (SELECT 1 FROM code_text t WHERE t.document_id = d.id)").fetchone()
        return int(missing)

    def list_sources(self) -> list[SourceStats]:
        """Every source with its document and chunk counts, in registration order."""
        rows = self.conn.execute(
            """
            SELECT s.id, s.name, s.kind, s.root, s.options, s.indexed_at,
                   (SELECT count(*) FROM documents d WHERE d.source_id = s.id),
                   (SELECT count(*) FROM chunks c JOIN documents d ON d.id = c.document_id
                     WHERE d.source_id = s.id)
            FROM sources s ORDER BY s.id
            """
        ).fetchall()
        out = []
        for sid, name, kind, root, options, indexed_at, docs, chunks in rows:
            opts = json.loads(options)
            source = Source(
                name, kind, root, tuple(opts.get("include", ())), tuple(opts.get("exclude", ())),
                sid, indexed_at,
            )
            out.append(SourceStats(source, docs, chunks))
        return out

    def skipped_markers(self, source_id: int) -> dict[str, tuple[int, int, str]]:
        """Map each file the last run skipped for its bytes to (size, mtime_ns, reason)."""
        rows = self.conn.execute(
            "SELECT path, size, mtime_ns, reason FROM skipped_files WHERE source_id = ? AND size IS NOT NULL",
            (source_id,),
        )
        return {path: (size, mtime, reason) for path, size, mtime, reason in rows}

    def document_markers(self, source_id: int) -> dict[str, tuple[int, int, str]]:
        """Map each stored path of a source to (size, mtime_ns, content_hash)."""
        rows = self.conn.execute(
            "SELECT path, size, mtime_ns, content_hash FROM documents WHERE source_id = ?",
            (source_id,),
        )
        return {path: (size, mtime, digest) for path, size, mtime, digest in rows}

    def write_batch(
        self,
        source_id: int,
        upserts: Sequence[Document] = (),
        touches: Sequence[tuple[str, int, int]] = (),
        deletes: Sequence[str] = (),
    ) -> None:
        """Replace whole documents, refresh markers of unchanged ones, drop deleted ones.

        One transaction: after a crash either all of the batch is there or none of it.
        """
        now = time.time()
        with self.transaction() as db:
            for path in (*deletes, *(doc.path for doc in upserts)):
                self._delete_document(db, source_id, path)
            db.executemany(
                "UPDATE documents SET size = ?, mtime_ns = ? WHERE source_id = ? AND path = ?",
                [(size, mtime, source_id, path) for path, size, mtime in touches],
            )
            # Every delete is done: the chunks inserted below get sequence numbers above this.
            (last_seq,) = db.execute("SELECT coalesce(max(seq), 0) FROM chunks").fetchone()
            trigrams = _trigrams_built(db)  # else the first grep indexes every text at once
            for doc in upserts:
                cursor = db.execute(
                    """INSERT INTO documents (source_id, path, kind, title, size, mtime_ns,
                       content_hash, metadata, indexed_at, language) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                    (source_id, doc.path, doc.kind, doc.title, doc.size, doc.mtime_ns,
                     doc.content_hash, json.dumps(doc.metadata, ensure_ascii=False), now,
                     doc.metadata.get("language") if doc.kind == "code" else None),
                )
                doc_id = cursor.lastrowid
                assert doc_id is not None
                lines = doc.text.split("\n") if doc.text is not None else None
                self._insert_chunks(db, doc_id, doc.chunks, last_seq, lines=lines, given=self._file_lines.given)
                self._insert_symbols(db, doc_id, doc.symbols, doc.packed_symbols)
                self._insert_refs(db, doc_id, doc.refs, doc.packed_refs)
                if doc.text is not None and lines is not None:
                    packed = doc.packed if doc.packed is not None else pack(doc.text)
                    db.execute("INSERT INTO code_text (document_id, packed) VALUES (?, ?)", (doc_id, packed))
                    if trigrams:
                        db.execute("INSERT INTO code_trigrams (rowid, text) VALUES (?, ?)", (doc_id, doc.text))
            try:
                db.execute(f"""INSERT INTO chunks_fts (rowid, title, context, text, terms)
                               SELECT seq, title, context, {_BATCH_CHUNK_TEXT}, terms FROM chunks c WHERE seq > ?""",
                           (last_seq,))
            finally:
                self._file_lines.given.clear()

    @staticmethod
    def _insert_refs(db: sqlite3.Connection, doc_id: int, refs: Sequence[ReferenceRow],
                     packed: bytes | None = None) -> None:
        """A new document's references, (kind, name, qualifier, alias, line, scope) each, in its
        order: one packed row (`packed` when a worker packed them), and a ref_names row per
        name it calls."""
        if not refs:
            return
        db.execute("INSERT INTO refs (document_id, packed) VALUES (?, ?)", (doc_id, packed or pack_refs(refs)))
        db.executemany("INSERT OR IGNORE INTO ref_names (name, document_id) VALUES (?, ?)",
                       [(name, doc_id) for name in {ref[1] for ref in refs}])

    @staticmethod
    def _insert_symbols(db: sqlite3.Connection, doc_id: int, symbols: Sequence[SymbolRow],
                        packed: bytes | None = None) -> None:
        """A new document's definitions, (name, kind, start, end, signature, exported) each, in
        its order: one packed row (`packed` when a worker packed them), and a symbol_names
        row per short name it defines."""
        if not symbols:
            return
        db.execute("INSERT INTO symbols (document_id, packed) VALUES (?, ?)",
                   (doc_id, packed or pack_symbols(symbols)))
        # of names that differ only in case, the first in code point order is kept
        db.executemany("INSERT OR IGNORE INTO symbol_names (short, document_id) VALUES (?, ?)",
                       [(short, doc_id) for short in sorted({short_name(symbol[0]) for symbol in symbols})])

    @staticmethod
    def _delete_names(db: sqlite3.Connection, doc_id: int, table: str) -> None:
        """Delete a document's rows of `table` (ref_names or symbol_names) by their key, the
        names its packed references or definitions hold (neither has an index by document:
        that would double its size)."""
        packed_in, column = ("refs", "name") if table == "ref_names" else ("symbols", "short")
        row = db.execute(f"SELECT packed FROM {packed_in} WHERE document_id = ?", (doc_id,)).fetchone()
        if row is None:
            return
        try:
            if packed_in == "refs":
                strings, columns = ref_fields(row[0])
                names = {strings[n] for n in set(columns[1])}
            else:
                names = {short_name(symbol[0]) for symbol in unpack_symbols(row[0])}
        except StoreError:  # a damaged row: find its names the slow way, and the file heals
            db.execute(f"DELETE FROM {table} WHERE document_id = ?", (doc_id,))
            return
        db.executemany(f"DELETE FROM {table} WHERE {column} = ? AND document_id = ?",
                       [(name, doc_id) for name in names])

    @staticmethod
    def _insert_chunks(db: sqlite3.Connection, doc_id: int, chunks: Sequence[Chunk], last_seq: int,
                       first: int | None = None, lines: list[str] | None = None,
                       given: dict[str, str] | None = None) -> None:
        """Insert a document's chunks (numbered from `first` when given, else by their own
        ordinals) and the facet rows of those that have facets; `last_seq` is the highest seq
        before the batch. With the lines of the code file stored beside them, a chunk that is
        exactly some of those lines stores '' (read back through mindex_lines), and its text
        goes in `given` by chunk id. The full-text rows are the caller's: one INSERT ... SELECT
        a batch."""
        stored = [c.text for c in chunks]
        if lines is not None:
            for n, c in enumerate(chunks):
                if _in_file(c.text, lines, c.start_line, c.end_line):
                    stored[n] = ""
                    if given is not None:
                        given[c.id] = c.text
        db.executemany(
            """INSERT INTO chunks (id, document_id, ordinal, title, context, text, hash,
               start_line, end_line, page, symbol_kind, terms, at, facets)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            [(c.id, doc_id, c.ordinal if first is None else first + n, c.title, c.context, stored[n], c.hash,
              c.start_line, c.end_line, c.page, c.symbol_kind, c.terms, c.at,
              json.dumps(c.facets, ensure_ascii=False) if c.facets is not None else None)
             for n, c in enumerate(chunks)])
        faceted = {c.id: c.facets for c in chunks if c.facets}
        if faceted:
            # `+document_id`: the rows after `last_seq` are this batch, found through the key;
            # SQLite would rather walk the document's index, every chunk of a large journal.
            seqs = db.execute("SELECT id, seq FROM chunks WHERE seq > ? AND +document_id = ?",
                              (last_seq, doc_id)).fetchall()
            db.executemany("INSERT OR IGNORE INTO chunk_facets (name, value, seq) VALUES (?, ?, ?)",
                           [(name, value, seq) for cid, seq in seqs if cid in faceted
                            for name, value in facet_rows(faceted[cid])])

    def append_chunks(self, source_id: int, path: str, before: tuple[int, int], after: tuple[int, int],
                      place: Callable[[int], tuple[Sequence[Chunk], int]]) -> bool:
        """Add chunks at the end of a document whose file only grew (a memory save), at the
        cost of the chunks alone: `place(lines before)` gives them (their lines follow the
        document's recorded line count) and the new count. The markers go from `before` (size,
        mtime) to `after`, the content hash to '' (not read: the next run reads the file only
        if its size or time changes). Returns False, writing nothing, when the stored markers
        are not `before` or no line count is recorded (index the file whole)."""
        with self.transaction() as db:
            row = db.execute("SELECT id, size, mtime_ns, metadata FROM documents WHERE source_id = ? AND path = ?",
                             (source_id, path)).fetchone()
            if row is None or (row[1], row[2]) != before:
                return False
            doc_id, metadata = row[0], json.loads(row[3] or "{}")
            if not isinstance(metadata.get("lines"), int):
                return False
            chunks, lines = place(metadata["lines"])
            (last_seq,) = db.execute("SELECT coalesce(max(seq), 0) FROM chunks").fetchone()
            (ordinal,) = db.execute("SELECT coalesce(max(ordinal) + 1, 0) FROM chunks WHERE document_id = ?",
                                    (doc_id,)).fetchone()
            self._insert_chunks(db, doc_id, chunks, last_seq, ordinal)
            db.execute(f"""INSERT INTO chunks_fts (rowid, title, context, text, terms)
                           SELECT seq, title, context, {self._CHUNK_TEXT}, terms FROM chunks c WHERE seq > ?""",
                       (last_seq,))
            db.execute("UPDATE documents SET size = ?, mtime_ns = ?, content_hash = '', indexed_at = ?, metadata = ? "
                       "WHERE id = ?", (*after, time.time(), json.dumps({**metadata, "lines": lines}), doc_id))
        return True

    def forget_markers(self, source_id: int) -> None:
        """Make every document of a source look changed, so the next run reads and parses
        each file again (and replaces its rows one transaction at a time)."""
        with self.transaction() as db:
            db.execute("UPDATE documents SET size = -1, content_hash = '' WHERE source_id = ?", (source_id,))

    def document_metadata(self, kind: str) -> list[tuple[str, str, dict[str, Any]]]:
        """(source name, path, metadata) of every document of a kind."""
        return [(name, path, json.loads(meta)) for name, path, meta in self.conn.execute(
            "SELECT s.name, d.path, d.metadata FROM documents d JOIN sources s ON s.id = d.source_id "
            "WHERE d.kind = ? ORDER BY d.path", (kind,))]

    def replace_graph(self, entities: Sequence[tuple[str, str, str, float | None, float | None, str | None]],
                      relations: Sequence[tuple[str, str, str]]) -> None:
        """Replace the knowledge graph: entities (id, type, title, confidence, at, path) and
        relations (src, rel, dst)."""
        with self.transaction() as db:
            db.execute("DELETE FROM kg_entities")
            db.execute("DELETE FROM kg_relations")
            db.executemany("INSERT OR REPLACE INTO kg_entities (id, type, title, confidence, at, path) "
                           "VALUES (?, ?, ?, ?, ?, ?)", entities)
            db.executemany("INSERT OR IGNORE INTO kg_relations (src, rel, dst) VALUES (?, ?, ?)", relations)

    def graph_rows(self) -> tuple[list[tuple[Any, ...]], list[tuple[str, str, str]]]:
        """Every knowledge-graph entity (id, type, title, confidence, at, path) and relation."""
        return (self.conn.execute("SELECT id, type, title, confidence, at, path FROM kg_entities").fetchall(),
                self.conn.execute("SELECT src, rel, dst FROM kg_relations").fetchall())

    # -- agent sessions, the query log, changelog markers and synergies (schema v10, v11) -------

    def session_row(self, session_id: str) -> tuple[str | None, str | None] | None:
        """(HEAD at its start, digest of its last handoff) of an agent session, if recorded."""
        row = self.conn.execute("SELECT head, handoff FROM agent_sessions WHERE session_id = ?", (session_id,)).fetchone()
        return (row[0], row[1]) if row else None

    def open_session(self, session_id: str, cwd: str, branch: str | None, issue: int | None, workflow_id: str | None,
                     head: str | None, injected: int = 0) -> None:
        """Record a session's start (kept from the first call) and add what was injected."""
        with self.transaction() as db:
            db.execute("INSERT OR IGNORE INTO agent_sessions (session_id, cwd, branch, issue, workflow_id, started_at, "
                       "head) VALUES (?, ?, ?, ?, ?, ?, ?)", (session_id, cwd, branch, issue, workflow_id, time.time(), head))
            if injected:
                db.execute("UPDATE agent_sessions SET injected = injected + ? WHERE session_id = ?", (injected, session_id))

    def close_session(self, session_id: str, handoff: str, captured: int, compacted: int, files_read: int | None,
                      ended: bool) -> None:
        """What a pre-compact or session-end hook did to a session's metrics."""
        with self.transaction() as db:
            db.execute("UPDATE agent_sessions SET handoff = ?, captured = captured + ?, compacted = compacted + ?, "
                       "files_read = max(files_read, ?), ended_at = ? WHERE session_id = ?",
                       (handoff, captured, compacted, files_read or 0, time.time() if ended else None, session_id))

    def commit_captured(self, sha: str) -> bool:
        return self.conn.execute("SELECT 1 FROM captured_commits WHERE sha = ?", (sha,)).fetchone() is not None

    def mark_captured(self, sha: str, session_id: str) -> None:
        with self.transaction() as db:
            db.execute("INSERT OR IGNORE INTO captured_commits (sha, session_id, at) VALUES (?, ?, ?)",
                       (sha, session_id, time.time()))

    def tag_exists(self, tag: str) -> bool:
        """Does any memory or knowledge chunk carry this tag?"""
        return self.conn.execute("SELECT 1 FROM chunk_facets WHERE name = 'tag' AND value = ? LIMIT 1",
                                 (tag,)).fetchone() is not None

    def sessions(self, limit: int) -> list[tuple[Any, ...]]:
        """(session, branch, issue, workflow, started, files read, compacted, injected, captured, ended), newest first."""
        return self.conn.execute(
            "SELECT session_id, branch, issue, workflow_id, started_at, files_read, compacted, injected, captured, "
            "ended_at FROM agent_sessions ORDER BY started_at DESC LIMIT ?", (limit,)).fetchall()

    def query_stats(self) -> list[tuple[Any, ...]]:
        """(kind, count, mean results, mean ms, max ms) of the query log."""
        return self.conn.execute("SELECT kind, count(*), avg(results), avg(ms), max(ms) FROM query_log GROUP BY kind "
                                 "ORDER BY kind").fetchall()

    def log_query(self, session_id: str | None, kind: str, params: str, results: int, ms: float) -> None:
        """One row of the query log, in its own tiny transaction (SQLite's lock, not ours:
        a log line must never wait behind an indexer)."""
        self.conn.execute("INSERT INTO query_log (session_id, kind, params, results, ms, at) VALUES (?, ?, ?, ?, ?, ?)",
                          (session_id, kind, params, results, ms, time.time()))

    def fetch_markers(self) -> dict[str, tuple[str | None, str | None]]:
        """product → (newest date or version seen, ETag) of the last fetch."""
        return {p: (n, e) for p, n, e in self.conn.execute("SELECT product, newest, etag FROM fetch_markers")}

    def save_marker(self, product: str, strategy: str, newest: str | None, etag: str | None, status: str,
                    detail: str | None) -> None:
        with self.transaction() as db:
            db.execute("INSERT OR REPLACE INTO fetch_markers (product, strategy, newest, etag, fetched_at, status, detail) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?)", (product, strategy, newest, etag, time.time(), status, detail))

    def replace_synergies(self, rows: Sequence[tuple[str, str, str, str, str, str, str]]) -> None:
        """Replace the cached synergies: (name, title, products, steps, evidence JSON, body, path)."""
        with self.transaction() as db:
            db.execute("DELETE FROM synergies")
            db.executemany("INSERT INTO synergies (name, title, products, steps, evidence, body, path, cached_at) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [(*row, time.time()) for row in rows])

    def synergy_rows(self, name: str | None = None) -> list[tuple[str, str, str, str, str, str]]:
        """(name, title, products, steps, evidence, body) of every cached synergy, or one."""
        sql = "SELECT name, title, products, steps, evidence, body FROM synergies"
        return self.conn.execute(sql + " WHERE name = ?" if name else sql + " ORDER BY name",
                                 (name,) if name else ()).fetchall()

    def faceted_hits(self, kind: str, facets: Facets | None, limit: int) -> list[Hit]:
        """Chunks of a kind passing the facet filters, by entry time (newest first), first
        piece of each entry only."""
        where, params = _filters(None, kind, None, facets=facets)
        # Entries of one second keep their journal order (document, then place in it).
        rows = self.conn.execute(
            f"""SELECT {self._HIT_COLUMNS} FROM chunks c {_CHUNK_JOINS}
                WHERE {' AND '.join(where)} AND c.facets IS NOT NULL
                ORDER BY c.at DESC, d.id DESC, c.ordinal DESC LIMIT ?""", (*params, limit * 4)).fetchall()
        first: dict[str, Hit] = {}  # an entry's first piece, in the entries' order
        for row in rows:
            hit = _hit(row, 0.0, "")
            key = str((hit.facets or {}).get("id"))
            if key not in first or (hit.ordinal or 0) < (first[key].ordinal or 0):
                first[key] = hit
        return list(first.values())[:limit]

    def entry_pieces(self, kind: str, entry_id: str) -> list[Hit]:
        """Every chunk of one memory entry or knowledge entity, in order."""
        where, params = _filters(None, kind, None, facets=Facets(ids=(entry_id,)))
        rows = self.conn.execute(f"SELECT {self._HIT_COLUMNS} FROM chunks c {_CHUNK_JOINS} WHERE {' AND '.join(where)} "
                                 "ORDER BY c.ordinal", params).fetchall()
        return [_hit(row, 0.0, "") for row in rows]

    def _delete_document(self, db: sqlite3.Connection, source_id: int, path: str) -> None:
        row = db.execute(
            "SELECT id FROM documents WHERE source_id = ? AND path = ?", (source_id, path)
        ).fetchone()
        if row:
            for table in self._DOCUMENT_TABLES:  # chunks first (see _DOCUMENT_TABLES)
                if table in ("ref_names", "symbol_names"):
                    self._delete_names(db, row[0], table)
                else:
                    db.execute(f"DELETE FROM {table} WHERE document_id = ?", (row[0],))
            db.execute("DELETE FROM documents WHERE id = ?", (row[0],))

    def finish_run(self, source_id: int, skipped: Sequence[SkippedFile]) -> None:
        """Record a complete run: its skipped files and the time it ended."""
        with self.transaction() as db:
            db.execute("DELETE FROM skipped_files WHERE source_id = ?", (source_id,))
            db.executemany(
                "INSERT OR REPLACE INTO skipped_files (source_id, path, reason, size, mtime_ns) VALUES (?, ?, ?, ?, ?)",
                [(source_id, s.path, s.reason, s.size, s.mtime_ns) for s in skipped],
            )
            db.execute("UPDATE sources SET indexed_at = ? WHERE id = ?", (time.time(), source_id))

    # -- vectors ---------------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        """A value from `schema_meta` (e.g. the pinned embedding model), or None."""
        row = self.conn.execute("SELECT value FROM schema_meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, values: dict[str, str | None]) -> None:
        """Write (or, for None, delete) `schema_meta` entries in one transaction."""
        with self.transaction() as db:
            for key, value in values.items():
                if value is None:
                    db.execute("DELETE FROM schema_meta WHERE key = ?", (key,))
                else:
                    db.execute("INSERT OR REPLACE INTO schema_meta VALUES (?, ?)", (key, value))

    def pending_embeddings(self, model: str) -> list[tuple[str, int]]:
        """(hash, text length) of every distinct chunk text with no vector for `model`."""
        return self.conn.execute(
            f"""SELECT c.hash, max(length(c.context) + length({self._CHUNK_TEXT})) FROM chunks c
               WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.model = ? AND v.hash = c.hash)
               GROUP BY c.hash""",
            (model,),
        ).fetchall()

    def hashes_with_vectors(self, model: str, hashes: Sequence[str]) -> set[str]:
        """Those of the hashes that have a vector for `model`."""
        rows = self._select_in("SELECT hash FROM vectors WHERE model = ? AND hash IN ({})", (model,), hashes)
        return {digest for (digest,) in rows}

    def texts_for(self, hashes: Sequence[str]) -> dict[str, tuple[str, str]]:
        """(context, text) for each chunk hash."""
        rows = self._select_in("SELECT hash, context, " + self._CHUNK_TEXT + " FROM chunks c WHERE hash IN ({})", (), hashes)
        return {digest: (context, text) for digest, context, text in rows}

    def code_hashes(self, hashes: Sequence[str]) -> set[str]:
        """Those of the chunk hashes that belong to code documents."""
        rows = self._select_in(
            "SELECT c.hash FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.kind = 'code' "
            "AND c.hash IN ({})", (), hashes)
        return {digest for (digest,) in rows}

    def save_vectors(self, model: str, rows: Sequence[tuple[str, bytes]]) -> None:
        """Store vectors (hash, float16 bytes) in one transaction."""
        with self.transaction() as db:
            db.executemany(
                "INSERT OR REPLACE INTO vectors (model, hash, vector) VALUES (?, ?, ?)",
                [(model, digest, blob) for digest, blob in rows],
            )

    def contexts_for(self, model: str, hashes: Sequence[str]) -> dict[str, str]:
        """LLM-written contexts already cached for these chunk hashes."""
        sql = "SELECT hash, context FROM chunk_contexts WHERE model = ? AND hash IN ({})"
        return dict(self._select_in(sql, (model,), hashes))

    def save_contexts(self, model: str, rows: Sequence[tuple[str, str]]) -> None:
        """Cache (hash, context) pairs written by `model`."""
        with self.transaction() as db:
            db.executemany(
                "INSERT OR REPLACE INTO chunk_contexts (model, hash, context) VALUES (?, ?, ?)",
                [(model, digest, text) for digest, text in rows],
            )

    def drop_vectors(self, keep_model: str | None = None) -> int:
        """Delete vectors of other models (all, when `keep_model` is None) and orphans."""
        with self.transaction() as db:
            gone = db.execute(
                "DELETE FROM vectors WHERE model IS NOT ? OR hash NOT IN (SELECT hash FROM chunks)",
                (keep_model,),
            ).rowcount
        return int(gone)

    def vector_rows(self, model: str, seqs: Sequence[int] | None = None) -> list[tuple[int, str, bytes]]:
        """(chunk seq, hash, vector bytes) for every chunk (or those in `seqs`) with a `model` vector."""
        sql = f"SELECT c.seq, c.hash, v.vector FROM chunks c {_VECTOR_JOIN}"
        if seqs is None:
            return self.conn.execute(sql + " ORDER BY c.seq", (model,)).fetchall()
        return sorted(self._select_in(sql + " WHERE c.seq IN ({})", (model,), seqs))

    def vector_keys(self, model: str) -> list[tuple[int, str]]:
        """(seq, hash) of the chunks that have a `model` vector: cheap, for incremental reloads
        (a seq can be reused by a new chunk, so the hash is part of the key)."""
        return self.conn.execute(
            f"SELECT c.seq, c.hash FROM chunks c {_VECTOR_JOIN} ORDER BY c.seq",
            (model,),
        ).fetchall()

    def data_version(self) -> int:
        """Changes whenever another connection commits: the cue to reload cached vectors."""
        return int(self.conn.execute("PRAGMA data_version").fetchone()[0])

    def filtered_seqs(self, source: str | None, kind: str | None, path: str | None,
                      language: str | None = None, symbol_kind: str | None = None,
                      facets: Facets | None = None) -> list[int]:
        """Chunk seqs passing the filters (for filtering before vector top-k)."""
        where, params = _filters(source, kind, path, language, symbol_kind, facets, self._PACKED,
                                 every_chunk=True)
        where.append("1")
        return [row[0] for row in self.conn.execute(
            f"""SELECT c.seq FROM chunks c {_CHUNK_JOINS} WHERE {' AND '.join(where)}""", params
        )]

    def hits_by_seq(self, seqs: Sequence[int]) -> dict[int, Hit]:
        """Hits (score 0, no snippet) for chunk seqs, keyed by seq."""
        sql = f"SELECT c.seq, {self._HIT_COLUMNS} FROM chunks c {_CHUNK_JOINS} WHERE c.seq IN ({{}})"
        return {row[0]: _hit(row[1:], 0.0, "") for row in self._select_in(sql, (), seqs)}

    def _select_in(self, sql: str, params: Sequence[Any], values: Sequence[Any]) -> list[Any]:
        """Run `sql` (with `{}` where the IN list goes) over `values` in parts of 500, to stay
        under SQLite's limit on bound variables; returns all rows."""
        rows: list[Any] = []
        for start in range(0, len(values), 500):
            part = list(values[start : start + 500])
            rows += self.conn.execute(sql.format(",".join("?" * len(part))), (*params, *part)).fetchall()
        return rows

    # -- reading ---------------------------------------------------------------------------

    def keyword_search(
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
    ) -> list[Hit]:
        """Run an FTS5 MATCH expression, best BM25 first, with optional filters.

        Two steps: rank the matching rowids (joining the chunk tables only when a filter
        needs them), then read the page's rows by rowid. Asked in one query, SQLite would
        build every match's row and snippet before sorting: on a 100k-chunk index that was
        most of a search's time. Hits come without snippets (search writes them for the page).
        """
        where, params = _filters(source, kind, path, language, symbol_kind, facets, self._PACKED)
        weights = ", ".join(str(w) for w in BM25_WEIGHTS)
        joins = f"JOIN chunks c ON c.seq = chunks_fts.rowid {_CHUNK_JOINS}" if where else ""
        ranked = self.conn.execute(
            f"""SELECT chunks_fts.rowid, -bm25(chunks_fts, {weights}) FROM chunks_fts {joins}
                WHERE {' AND '.join(["chunks_fts MATCH ?", *where])}
                ORDER BY bm25(chunks_fts, {weights}), chunks_fts.rowid LIMIT ? OFFSET ?""",
            (match, *params, limit, offset)).fetchall()
        if not ranked:
            return []
        found = self.hits_by_seq([seq for seq, _ in ranked])
        return [found[seq].but(score=score) for seq, score in ranked if seq in found]

    def code_texts(
        self, match: str | None, source: str | None = None, path: str | None = None,
        language: str | None = None,
    ) -> Iterator[tuple[int, str, str, str | None, str]]:
        """(document id, source, path, language, text) of stored code files, by source and
        path; with `match`, only files whose trigram index entry matches that FTS5 query."""
        where, params = _filters(source, None, path, language)
        if match is not None and self.trigram_index_ready():  # else every file: none is in the index
            where.append("d.id IN (SELECT rowid FROM code_trigrams WHERE code_trigrams MATCH ?)")
            params.append(match)
        where.append("1")
        # Order the small rows first, then read each text by key: sorting rows that carry
        # whole files would copy every text through SQLite's sorter.
        files = self.conn.execute(
            f"""SELECT d.id, s.name, d.path, d.language, d.content_hash FROM documents d
                JOIN sources s ON s.id = d.source_id
                WHERE d.kind = 'code' AND {' AND '.join(where)} ORDER BY s.name, d.path""",
            params,
        ).fetchall()
        read = self.conn.execute
        for doc_id, name, rel, lang, digest in files:
            text = self._texts.get((doc_id, digest))
            if text is None:
                row = read("SELECT packed FROM code_text WHERE document_id = ?", (doc_id,)).fetchone()
                if row is None:
                    continue
                text = self._texts.put((doc_id, digest), inflate(row[0]))
            yield doc_id, name, rel, lang, text

    def trigram_index_ready(self) -> bool:
        """True when grep's trigram index holds every code text, building it first when it
        was never built (schema v14: the first grep builds it). A read-only index without it
        answers False: grep then reads every file."""
        if _trigrams_built(self.conn):
            return True
        if self.read_only:
            return False
        started = time.perf_counter()
        try:
            self.lock.acquire(timeout=0)  # a writer at work: this grep reads every file, a later one builds
        except IndexLockedError:
            return False
        try:  # the transaction below re-enters the lock held here
            with self.transaction() as db:
                if not _trigrams_built(db):  # another process may have built it meanwhile
                    db.execute("INSERT INTO code_trigrams (rowid, text) SELECT document_id, mindex_inflate(packed) "
                               "FROM code_text")
                    db.execute("INSERT OR REPLACE INTO schema_meta VALUES ('trigrams', 'ready')")
        except ReadOnlyIndexError:
            return False
        finally:
            self.lock.release()
        log.info("grep: trigram index built in %.1f s", time.perf_counter() - started)
        return True

    def chunk_spans(self, document_ids: Sequence[int]) -> dict[int, list[ChunkSpan]]:
        """Per document, its chunks' (start line, end line, id, symbol) in line order."""
        spans: dict[int, list[ChunkSpan]] = {}
        rows = self._select_in(
            f"SELECT document_id, start_line, end_line, id, {_CHUNK_SYMBOL} FROM chunks c WHERE document_id IN ({{}})",
            (), document_ids)
        for doc_id, start, end, cid, symbol in sorted(rows, key=lambda r: (r[0], r[1] or 0)):
            if start is not None:
                spans.setdefault(doc_id, []).append((start, end, cid, symbol))
        return spans

    def symbol_spans(self, document_ids: Sequence[int]) -> dict[int, list[tuple[int, int, str]]]:
        """Per document, its definitions' (start line, end line, qualified name)."""
        return {doc_id: [(start, end, name) for name, _, start, end, _, _ in symbols]
                for doc_id, symbols in self._symbols_of(document_ids).items()}

    def _symbols_of(self, document_ids: Sequence[int]) -> dict[int, list[SymbolRow]]:
        """Per document that has any, its definitions in their order (decoded rows kept)."""
        rows = self._select_in("SELECT document_id, packed FROM symbols WHERE document_id IN ({})", (), document_ids)
        return {doc_id: self._unpacked_symbols(packed) for doc_id, packed in rows}

    def _defines(self, packed: bytes | None, kind: str, first: int | None, last: int | None) -> int:
        """`mindex_defines(packed, kind, first, last)`: 1 when a document's packed definitions
        hold one of `kind` starting on lines first..last, else 0 (the symbol-kind filter; a
        damaged row, which SQLite would report only as "user-defined function raised
        exception", counts as none: `mindex graph` and `symbols` name the damage)."""
        if packed is None or first is None or last is None:
            return 0
        try:
            starts = self._kind_starts(packed).get(kind)
        except StoreError:
            return 0
        if not starts:
            return 0
        at = bisect.bisect_left(starts, first)
        return int(at < len(starts) and starts[at] <= last)

    def _starts_by_kind(self, packed: bytes) -> dict[str, list[int]]:
        """A document's definitions' first lines by kind, sorted (what `mindex_defines` asks
        for every chunk a filtered vector search may return: a bisection, not a scan)."""
        starts: dict[str, list[int]] = {}
        for _, kind, start, _, _, _ in self._unpacked_symbols(packed):
            starts.setdefault(kind, []).append(start)
        for lines in starts.values():
            lines.sort()
        return starts

    def code_files(self) -> list[tuple[int, str, str, str | None]]:
        """(document id, source, path, language) of every code file."""
        return self.conn.execute(
            """SELECT d.id, s.name, d.path, d.language FROM documents d JOIN sources s ON s.id = d.source_id
               WHERE d.kind = 'code' ORDER BY s.name, d.path""").fetchall()

    def symbol_rows(self, column: str, value: str | int) -> list[tuple[int, int, str, str, int, int, str, int]]:
        """Symbols where `column` (name, short, document_id, or short_like / short_nocase
        for LIKE and case-insensitive matches) has `value`: (id, document id, name, kind,
        start, end, signature, exported), by document and first line. An id is the document's
        number and the definition's place in it, the same for the same index contents."""
        # symbol_names (schema v18) knows which documents define a short name, without case;
        # their packed definitions are then compared exactly.
        wanted: dict[int, set[str]] = {}  # short_like: per document, the matching names as NOCASE sees them
        if column == "document_id":
            documents = [int(value)]
        elif column == "short_like":
            for short, doc_id in self.conn.execute(
                    "SELECT short, document_id FROM symbol_names WHERE short LIKE ? ESCAPE '\\'", (value,)):
                wanted.setdefault(doc_id, set()).add(_nocase(short))
            documents = sorted(wanted)
        else:
            key = short_name(str(value)) if column == "name" else str(value)
            documents = [doc_id for (doc_id,) in self.conn.execute(
                "SELECT document_id FROM symbol_names WHERE short = ?", (key,))]
        out: list[tuple[int, int, str, str, int, int, str, int]] = []
        for doc_id, symbols in sorted(self._symbols_of(documents).items()):
            if column == "document_id":
                chosen: Sequence[int] = range(len(symbols))
            elif column == "name":
                chosen = [n for n, symbol in enumerate(symbols) if symbol[0] == value]
            elif column == "short":
                chosen = [n for n, symbol in enumerate(symbols) if short_name(symbol[0]) == value]
            else:  # without case: str.lower() rejects most names cheaply, NOCASE's own folding decides
                spellings = wanted.get(doc_id) or {_nocase(str(value))}
                lowered = {spelling.lower() for spelling in spellings}
                chosen = [n for n, symbol in enumerate(symbols)
                          if (short := short_name(symbol[0])).lower() in lowered and _nocase(short) in spellings]
            rows = [(_symbol_id(doc_id, n), doc_id, *symbols[n][:5], int(symbols[n][5])) for n in chosen]
            rows.sort(key=lambda row: row[4])  # by first line; a line's definitions in their order
            out += rows
        return out

    def symbol_shorts(self) -> list[str]:
        """Every distinct short symbol name, one spelling of those that differ only in the case
        of ASCII letters (for fuzzy lookups, which ignore case)."""
        return [row[0] for row in self.conn.execute("SELECT DISTINCT short FROM symbol_names")]

    def ref_rows(self, column: str, value: str | int,
                 kind: str | None = None) -> list[tuple[int, str, str, str, str, int, str]]:
        """References where `column` (name or document_id) has `value`, optionally of one kind:
        (document id, kind, name, qualifier, alias, line, scope), by document, line and order."""
        if column == "document_id":
            documents = [int(value)]
        elif column == "name":
            documents = [d for (d,) in self.conn.execute("SELECT document_id FROM ref_names WHERE name = ?", (value,))]
        else:
            raise ValueError(f"references are looked up by name or document_id, not {column!r}")
        out: list[tuple[int, str, str, str, str, int, str]] = []
        for start in range(0, len(documents), 500):
            part = documents[start:start + 500]
            for doc_id, packed in self.conn.execute(
                    f"SELECT document_id, packed FROM refs WHERE document_id IN ({','.join('?' * len(part))}) "
                    "ORDER BY document_id", part):
                strings, (kinds, names, qualifiers, aliases, scopes, lines) = self._ref_fields(packed)
                if column == "name":  # compare numbers, and build only the references to the name
                    wanted = strings.index(str(value)) if value in strings else -1
                    chosen = [n for n, name in enumerate(names) if name == wanted]
                else:
                    chosen = list(range(len(names)))
                if kind is not None:
                    wanted = strings.index(kind) if kind in strings else -1
                    chosen = [n for n in chosen if kinds[n] == wanted]
                chosen.sort(key=lines.__getitem__)  # stable: a line's references in their order
                out.extend((doc_id, strings[kinds[n]], strings[names[n]], strings[qualifiers[n]], strings[aliases[n]],
                            lines[n], strings[scopes[n]]) for n in chosen)
        return out

    def get_chunk(self, chunk_id: str) -> Hit:
        """Fetch a chunk by id, or by a unique prefix of at least 6 characters.

        Raises:
            NotFoundError: no chunk (or more than one) matches.
        """
        base = f"SELECT {self._HIT_COLUMNS} FROM chunks c {_CHUNK_JOINS}"
        rows = self.conn.execute(base + " WHERE c.id = ?", (chunk_id,)).fetchall()
        if not rows and len(chunk_id) >= 6:
            rows = self.conn.execute(
                base + " WHERE c.id >= ? AND c.id < ? LIMIT 2", (chunk_id, chunk_id + "\U0010ffff")
            ).fetchall()
        if not rows and len(chunk_id) < 6:
            raise NotFoundError(
                f"chunk id {chunk_id!r} is too short: an id prefix needs 6 or more characters; "
                "copy an id from `mindex search --json`"
            )
        if len(rows) != 1:
            what = "matches several chunks" if rows else "matches no chunk"
            raise NotFoundError(
                f"chunk id {chunk_id!r} {what}; copy an id from `mindex search --json`"
            )
        return _hit(rows[0], score=0.0, snippet="")

    def stats(self) -> dict[str, Any]:
        """Counts and sizes for `mindex status`."""
        one = self.conn.execute
        skipped = one(
            "SELECT s.name, k.path, k.reason FROM skipped_files k JOIN sources s ON s.id = k.source_id"
        ).fetchall()
        return {
            "db": str(self.path),
            "schema_version": self.schema_version(),
            "db_bytes": self._bytes(),
            "sources": one("SELECT count(*) FROM sources").fetchone()[0],
            "documents": one("SELECT count(*) FROM documents").fetchone()[0],
            "chunks": one("SELECT count(*) FROM chunks").fetchone()[0],
            "vectors": one("SELECT count(*) FROM vectors WHERE length(vector) > 0").fetchone()[0],
            "last_indexed": one("SELECT max(indexed_at) FROM sources").fetchone()[0],
            "skipped": [{"source": s, "path": p, "reason": r} for s, p, r in skipped],
        }


    def _bytes(self) -> int:
        """The index file and its write-ahead log, in bytes."""
        return sum(p.stat().st_size for p in (self.path, Path(f"{self.path}-wal")) if p.exists())

    def compact(self) -> dict[str, Any]:
        """Give back the room edits leave behind (`mindex compact`): merge each full-text
        index's segments into one (FTS5 `optimize`), then rewrite the file without free
        pages (`VACUUM`) and empty the write-ahead log. Returns the sizes before and after
        (file and log), and a note when a reading process kept the log from being emptied.

        Raises:
            ReadOnlyIndexError: the index cannot be written.
            StoreError: the disk is full (the index is unchanged).
        """
        self.ensure_writable()
        before = self._bytes()
        with self.lock:
            try:
                self.conn.execute("BEGIN IMMEDIATE")
                self.conn.execute("INSERT INTO chunks_fts (chunks_fts) VALUES ('optimize')")
                if _trigrams_built(self.conn):
                    self.conn.execute("INSERT INTO code_trigrams (code_trigrams) VALUES ('optimize')")
                self.conn.execute("COMMIT")
                self.conn.execute("VACUUM")
                # A process reading the index (a snapshot from before the VACUUM) keeps the
                # log from being emptied: ask for two seconds, not the lock timeout's thirty.
                waits = self.conn.execute("PRAGMA busy_timeout").fetchone()[0]
                self.conn.execute("PRAGMA busy_timeout = 2000")
                try:
                    blocked = self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
                finally:
                    self.conn.execute(f"PRAGMA busy_timeout = {int(waits)}")
            except sqlite3.OperationalError as exc:
                if self.conn.in_transaction:
                    self.conn.execute("ROLLBACK")
                if "full" in str(exc):
                    raise StoreError(
                        f"the disk holding {self.path} (or the temporary folder) is full: compacting needs room "
                        f"for two more copies of the index, about {2 * before / 1e6:,.0f} MB; the index is unchanged. "
                        "Free some space and rerun `mindex compact`") from None
                raise _explain(exc, self.path) from exc
        report: dict[str, Any] = {"db": str(self.path), "before_bytes": before, "after_bytes": self._bytes()}
        if blocked:
            wal = Path(f"{self.path}-wal")
            report["note"] = (f"another process is reading the index, so its write-ahead log "
                              f"({wal.stat().st_size / 1e6 if wal.exists() else 0:,.1f} MB, counted above) is emptied "
                              "once no process has the index open, or by `mindex compact` run again then")
        return report

    # -- copying a whole index to another backend (mindex copy) -------------------------------

    def count_rows(self, table: str) -> int:
        """Rows of one of the `COPY_TABLES`."""
        if table in _UNPACK and self._PACKED:
            return sum(len(_UNPACK[table](packed)) for (packed,) in self.conn.execute(f"SELECT packed FROM {table}"))
        (n,) = self.conn.execute(f"SELECT count(*) FROM {_copy_table(table)[0]}").fetchone()
        return int(n)

    def dump_rows(self, table: str, after: Sequence[Any] | None, limit: int) -> list[tuple[Any, ...]]:
        """The next `limit` rows of a table after key `after`, in key order, in the shared
        form both backends load (code text as text, vectors as float16 bytes, b'' = none)."""
        name, keys, columns = _copy_table(table)
        select = f"document_id, {self._CODE_TEXT}" if table == "code_text" else ", ".join(columns)
        if table == "chunks":  # whole texts, also of chunks read from their file
            select = ", ".join(self._CHUNK_TEXT if column == "text" else column for column in columns)
            name = "chunks c"
        elif table in _UNPACK and self._PACKED:  # a row a reference or definition, from each document's row
            return self._dump_packed(table, after, limit)
        where = f"WHERE ({', '.join(keys)}) > ({', '.join('?' * len(keys))})" if after is not None else ""
        extra = " AND key NOT IN ('schema_version', 'bulk_load_indexes', 'trigrams') AND key NOT LIKE 'copy:%'" \
            if table == "schema_meta" else ""
        if extra and not where:
            where, extra = "WHERE " + extra.removeprefix(" AND "), ""
        return [tuple(row) for row in self.conn.execute(
            f"SELECT {select} FROM {name} {where}{extra} ORDER BY {', '.join(keys)} LIMIT ?",
            (*(after or ()), limit)).fetchall()]

    def load_rows(self, table: str, rows: Sequence[Sequence[Any]], db: Any) -> None:
        """Insert rows `dump_rows` gave (ids kept) inside the caller's transaction `db`."""
        name, _, columns = _copy_table(table)
        if not rows:
            return
        if table == "code_text":
            db.executemany("INSERT INTO code_text (document_id, packed) VALUES (?, ?)",
                           [(doc_id, pack(text)) for doc_id, text in rows])
            if _trigrams_built(db):
                db.executemany("INSERT INTO code_trigrams (rowid, text) VALUES (?, ?)", [tuple(r) for r in rows])
            return
        if table in ("refs", "symbols"):  # in key order; a document's rows may span batches
            if table == "refs":  # (document_id, n, kind, name, qualifier, alias, line, scope name)
                items = [(row[0], tuple(row[2:])) for row in rows]
            else:  # (id, document_id, name, short, kind, start, end, signature, exported)
                items = [(row[1], (row[2], *row[4:8], bool(row[8]))) for row in rows]
            by_document: dict[int, list[Any]] = {}
            for doc_id, item in items:
                by_document.setdefault(doc_id, []).append(item)
            insert = self._insert_refs if table == "refs" else self._insert_symbols
            for doc_id, found in by_document.items():
                before = db.execute(f"SELECT packed FROM {table} WHERE document_id = ?", (doc_id,)).fetchone()
                if before is not None:  # its names so far stay; the insert adds the rest
                    db.execute(f"DELETE FROM {table} WHERE document_id = ?", (doc_id,))
                    found = list(_UNPACK[table](before[0])) + found
                insert(db, doc_id, found)
            return
        verb = "INSERT OR REPLACE" if table == "schema_meta" else "INSERT"
        db.executemany(f"{verb} INTO {name} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
                       [tuple(r) for r in rows])
        if table == "chunks":
            db.execute("INSERT INTO chunks_fts (rowid, title, context, text, terms) SELECT seq, title, context, "
                       f"{self._CHUNK_TEXT}, terms FROM chunks c WHERE seq IN ({','.join('?' * len(rows))})",
                       [r[0] for r in rows])

    def _dump_packed(self, table: str, after: Sequence[Any] | None, limit: int) -> list[tuple[Any, ...]]:
        """`dump_rows` of refs, (document_id, n, kind, name, qualifier, alias, line, scope), or of
        symbols, (id, document_id, name, short, kind, start, end, signature, exported), after
        the key `after`, in key order, unpacked from each document's row. A definition's id is
        its document's number and its place there (`_symbol_id`): both keys order as
        (document, place)."""
        first = (-1, -1) if after is None else tuple(after) if table == "refs" else divmod(int(after[0]), 1 << 32)
        out: list[tuple[Any, ...]] = []
        for doc_id, packed in self.conn.execute(
                f"SELECT document_id, packed FROM {table} WHERE document_id >= ? ORDER BY document_id", (first[0],)):
            for n, row in enumerate(_UNPACK[table](packed)):
                if (doc_id, n) > first:
                    if table == "refs":
                        out.append((doc_id, n, *row))
                    else:
                        name, kind, start, end, signature, exported = row
                        out.append((_symbol_id(doc_id, n), doc_id, name, short_name(name), kind, start, end, signature,
                                    int(exported)))
                    if len(out) == limit:
                        return out
        return out

    def clear_all(self) -> None:
        """Delete every row of every copied table (`mindex copy --replace`), in one transaction."""
        with self.transaction() as db:
            db.execute("DELETE FROM ref_names")
            db.execute("DELETE FROM symbol_names")
            for table in reversed(COPY_TABLES):
                db.execute(f"DELETE FROM {_copy_table(table)[0]}" +
                           (" WHERE key <> 'schema_version'" if table == "schema_meta" else ""))
            db.execute("INSERT INTO chunks_fts (chunks_fts) VALUES ('delete-all')")
            db.execute("INSERT INTO code_trigrams (code_trigrams) VALUES ('delete-all')")

    def copy_done(self) -> None:
        """After `mindex copy` loaded every table (nothing to do on SQLite)."""


# What `mindex copy` moves, parents first: (table, key columns, columns), the same on both backends.
_COPY: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "schema_meta": (("key",), ("key", "value")),
    "sources": (("id",), ("id", "name", "kind", "root", "options", "created_at", "indexed_at")),
    "documents": (("id",), ("id", "source_id", "path", "kind", "title", "size", "mtime_ns", "content_hash", "metadata",
                            "indexed_at", "language")),
    "chunks": (("seq",), ("seq", "id", "document_id", "ordinal", "title", "context", "text", "hash", "start_line",
                          "end_line", "page", "symbol_kind", "terms", "at", "facets")),
    "chunk_facets": (("seq", "name", "value"), ("seq", "name", "value")),
    "symbols": (("id",), ("id", "document_id", "name", "short", "kind", "start_line", "end_line", "signature",
                          "exported")),
    "refs": (("document_id", "n"), ("document_id", "n", "kind", "name", "qualifier", "alias", "line", "scope")),
    "code_text": (("document_id",), ("document_id", "text")),
    "vectors": (("model", "hash"), ("model", "hash", "vector")),
    "chunk_contexts": (("model", "hash"), ("model", "hash", "context")),
    "skipped_files": (("source_id", "path"), ("source_id", "path", "reason", "size", "mtime_ns")),
    "kg_entities": (("id",), ("id", "type", "title", "confidence", "at", "path")),
    "kg_relations": (("src", "rel", "dst"), ("src", "rel", "dst")),
    "workflows": (("id",), ("id", "issue", "branch", "worktree", "phase", "status", "retries", "created_at",
                            "updated_at")),
    "workflow_actions": (("id",), ("id", "workflow_id", "action", "result", "metadata", "at")),
    "workflow_commits": (("id",), ("id", "workflow_id", "sha", "message", "at")),
    "milestones": (("id",), ("id", "name", "number", "phase", "status", "waves", "created_at", "updated_at")),
    "milestone_issues": (("milestone_id", "issue"), ("milestone_id", "issue", "wave", "workflow_id")),
    "baselines": (("id",), ("id", "milestone_id", "check_name", "command", "tool", "exit_code", "errors", "warnings",
                            "lines", "seconds", "at")),
    "agent_sessions": (("session_id",), ("session_id", "cwd", "branch", "issue", "workflow_id", "started_at", "head",
                                         "files_read", "compacted", "injected", "captured", "handoff", "ended_at")),
    "captured_commits": (("sha",), ("sha", "session_id", "at")),
    "query_log": (("id",), ("id", "session_id", "kind", "params", "results", "ms", "at")),
    "fetch_markers": (("product",), ("product", "strategy", "newest", "etag", "fetched_at", "status", "detail")),
    "synergies": (("name",), ("name", "title", "products", "steps", "evidence", "body", "path", "cached_at")),
}
COPY_TABLES = tuple(_COPY)


def _copy_table(table: str) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """(table, key columns, columns) of a table `mindex copy` moves; any other name is refused
    (the names are put into SQL)."""
    keys, columns = _COPY[table]
    return table, keys, columns

# Facet names a search filters on, and the facet keys that fill them (a list or one value).
_FACET_ROWS = (("id", "id"), ("type", "type"), ("tag", "tags"), ("file", "files"), ("area", "areas"),
               ("issue", "issues"), ("product", "product"), ("entity", "entities"), ("vkey", "vkey"))


def facet_rows(facets: dict[str, Any]) -> list[tuple[str, str]]:
    """The (name, value) rows of chunk_facets for a chunk's facets."""
    rows = []
    for name, key in _FACET_ROWS:
        value = facets.get(key)
        for item in value if isinstance(value, list) else [value] if value is not None else []:
            rows.append((name, str(item)))
    return rows


def _facet_filters(facets: Facets) -> tuple[list[str], list[Any]]:
    where: list[str] = []
    params: list[Any] = []
    for name, values in (("type", facets.types), ("id", facets.ids)):
        if values:
            where.append(f"c.seq IN (SELECT seq FROM chunk_facets WHERE name = '{name}' AND value IN "
                         f"({','.join('?' * len(values))}))")
            params += list(values)
    for tag in facets.tags:
        where.append("c.seq IN (SELECT seq FROM chunk_facets WHERE name = 'tag' AND value = ?)")
        params.append(tag)
    if facets.products:
        where.append(f"c.seq IN (SELECT seq FROM chunk_facets WHERE name = 'product' AND value IN "
                     f"({','.join('?' * len(facets.products))}))")
        params += list(facets.products)
    for entity in facets.entities:
        where.append("c.seq IN (SELECT seq FROM chunk_facets WHERE name = 'entity' AND value = ?)")
        params.append(entity)
    if facets.version_after is not None:
        where.append("c.seq IN (SELECT seq FROM chunk_facets WHERE name = 'vkey' AND value > ?)")
        params.append(facets.version_after)
    if facets.version_until is not None:
        where.append("c.seq IN (SELECT seq FROM chunk_facets WHERE name = 'vkey' AND value <= ?)")
        params.append(facets.version_until)
    for path in facets.files:
        # A file named in an entry, or one under a folder given (both ranges of the index), or,
        # only when the value has glob characters, one the glob matches (a Python call per row).
        folder = path.rstrip("/")
        clause = "value = ? OR (value >= ? AND value < ?)"  # '0' is the character after '/'
        bounds: list[Any] = [folder, folder + "/", folder + "0"]
        if any(ch in path for ch in "*?["):
            clause += " OR mindex_glob(?, value)"
            bounds.append(path)
        where.append(f"c.seq IN (SELECT seq FROM chunk_facets WHERE name = 'file' AND ({clause}))")
        params += bounds
    if facets.since is not None:
        where.append("c.at >= ?")
        params.append(facets.since)
    if facets.until is not None:
        where.append("c.at < ?")
        params.append(facets.until)
    if facets.current_only:
        where.append("c.seq NOT IN (SELECT f.seq FROM chunk_facets f JOIN kg_relations r "
                     "ON r.rel = 'SUPERSEDES' AND r.dst = f.value WHERE f.name = 'id')")
    return where, params


def _filters(source: str | None, kind: str | None, path: str | None, language: str | None = None,
             symbol_kind: str | None = None, facets: Facets | None = None,
             packed_symbols: bool = True, every_chunk: bool = False) -> tuple[list[str], list[Any]]:
    """WHERE clauses and parameters for the search filters (aliases s, d, c as in the queries;
    the symbol kind is the chunk's own, or that of any definition starting inside it, asked
    of the document's packed definitions, or with `packed_symbols` false of its symbol rows).
    With `every_chunk` (a filter over all chunks, not over a query's matches) the path glob
    is matched once a document instead of once a chunk."""
    where: list[str] = []
    params: list[Any] = []
    if facets is not None:
        where, params = _facet_filters(facets)
    glob = "d.id IN (SELECT id FROM documents WHERE mindex_glob(?, path))" if every_chunk else "mindex_glob(?, d.path)"
    for clause, value in (("s.name = ?", source), ("d.kind = ?", kind), (glob, path),
                          ("d.language = ?", language)):
        if value:
            where.append(clause)
            params.append(value)
    if symbol_kind:
        where.append("(c.symbol_kind = ? OR mindex_defines((SELECT packed FROM symbols WHERE document_id = d.id), "
                     "?, c.start_line, c.end_line))" if packed_symbols else
                     "(c.symbol_kind = ? OR EXISTS (SELECT 1 FROM symbols y WHERE y.document_id = d.id "
                     "AND y.kind = ? AND y.start_line BETWEEN c.start_line AND c.end_line))")
        params += [symbol_kind, symbol_kind]
    return where, params


def _read_only(path: Path) -> bool:
    """True when the index file (if any) or its folder cannot be written: a read-only file
    system, or permissions. WAL needs both: the file, and its folder for -wal and -shm."""
    folder = path.parent
    if not folder.exists():
        return False
    return not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK))


def _wal_pending(path: Path) -> bool:
    """True when a -wal file holds pages not yet copied into the database (an unclean stop)."""
    try:
        return os.path.getsize(f"{path}-wal") > 0
    except OSError:
        return False


# The way back from a damaged index file: what is in it is derived, except the list of
# sources (registered again by hand) and nothing else (memory and knowledge are their files).
_WAY_BACK = ("move it aside, register your folders again (`mindex add FOLDER` for each) and "
             "run `mindex index`; memory and knowledge come back from .mindex/memory and .mindex/knowledge with "
             "`mindex memory rebuild`")


def _empty(path: Path) -> bool:
    """True for an index file of 0 bytes with no write-ahead log holding its pages."""
    try:
        return path.stat().st_size == 0 and not _wal_pending(path)
    except OSError:
        return False


def _open_failure(path: Path, exc: sqlite3.DatabaseError | None, read_only: bool) -> StoreError:
    """Say why a database could not be opened, with advice that never destroys a healthy one."""
    message = str(exc)
    if "not a database" in message or "malformed" in message:
        return StoreError(f"{path} is not a usable mindex index ({message}); {_WAY_BACK}")
    if read_only and _wal_pending(path):
        return ReadOnlyIndexError(
            f"cannot read {path}: it is read-only and its -wal file holds writes not yet merged; "
            "open it once where it is writable (any mindex command), then it reads anywhere"
        )
    if ("disk I/O error" in message or "full" in message) and 0 <= _free_bytes(path.parent) < 1 << 20:
        return StoreError(f"cannot open {path}: the disk holding it is full, and SQLite needs room beside the "
                          "index (its -wal and -shm files) even to read it; free some space and retry")
    need = "readable" if read_only else "readable and writable"
    return StoreError(f"cannot open {path} ({message}); check that the file and its folder are {need}")


def _free_bytes(folder: Path) -> int:
    """Room left for an unprivileged writer on the file system holding `folder` (-1: unknown)."""
    try:
        info = os.statvfs(folder)
    except OSError:
        return -1
    return info.f_bavail * info.f_frsize


def _explain(exc: sqlite3.OperationalError, path: Path,
             then: str = "the index still holds every batch committed before this one. Free some space and "
                         "rerun `mindex index` to finish") -> Exception:
    """Turn SQLite's failures that users can fix into errors that say how; keep the rest.
    `then`: what the index holds now, and the next step."""
    message = str(exc)
    if "full" in message or "disk I/O error" in message:
        # A write past a file size limit (ulimit -f) reaches SQLite as an I/O error, a full disk as "full".
        cause = "is full" if "full" in message else "failed a write (a full or failing disk, or a file size limit)"
        return StoreError(f"the disk holding {path} {cause}; {then}")
    if "locked" in message or "busy" in message:
        return IndexLockedError(
            f"{path} stayed locked by another process past the timeout; "
            "wait for it to finish, or raise index.lock_timeout"
        )
    return exc


def _hit(row: Sequence[Any], score: float, snippet: str) -> Hit:
    (cid, source, kind, path, title, context, start, end, page, text, seq, mtime_ns, language, symbol,
     symbol_kind, ordinal, at, facets) = row
    modified = at if at is not None else mtime_ns / 1e9 if mtime_ns else None
    return Hit(cid, source, kind, path, title, context, start, end, page, float(score), snippet, text,
               language=language, symbol=symbol, symbol_kind=symbol_kind,
               seq=seq, modified=modified, ordinal=ordinal, facets=json.loads(facets) if facets else None)

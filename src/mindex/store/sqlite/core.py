"""The embedded store's core: one SQLite file in WAL mode, its connection, schema,
transactions, metadata and maintenance; the domains' tables are the other modules of
this package, composed into `SQLiteStore`."""


from __future__ import annotations

import bisect
import json
import math
import re
import os
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from mindex.errors import (
    ReadOnlyIndexError,
    SchemaTooNewError,
    StoreError,
    UPGRADE_HINT,
)
from mindex.pathglob import glob_match
from mindex.store.base import (
    inflate,
    ref_fields,
    unpack_symbols,
)
from mindex.store.lock import WriteLock
from mindex.store.sqlite.functions import TEXT_CACHE_CHARS, FileLines, PackRefs, PackSymbols, TextCache
from mindex.store.sqlite.opening import MIGRATIONS, SCHEMA_VERSION, WAY_BACK, empty_file, explain_open_error, open_failure, read_only_file, wal_pending
from mindex.store.sqlite import tops
from mindex.store.sqlite.queries import CHUNK_TEXT, HIT_COLUMNS
from mindex.logs import get_logger


log = get_logger(__name__)
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


class NameTable(NamedTuple):
    """A table of the names documents call or define: its name column, the table of packed
    rows that holds them, and the `defined` value its rows have in staged_names."""

    column: str
    packed_in: str
    defined: int


NAME_TABLES = {"ref_names": NameTable("name", "refs", 0), "symbol_names": NameTable("short", "symbols", 1)}


def insert_names(db: sqlite3.Connection, table: str, rows: Sequence[tuple[str, int]], staged: bool = False) -> None:
    """(name, document) rows into `table` (ref_names or symbol_names), or, while a bulk load
    writes (`staged`), into staged_names, moved at its end (`_move_staged`)."""
    name_table = NAME_TABLES[table]
    if staged:
        db.executemany(f"INSERT INTO staged_names (defined, name, document_id) VALUES ({name_table.defined}, ?, ?)", rows)
    else:
        db.executemany(f"INSERT OR IGNORE INTO {table} ({name_table.column}, document_id) VALUES (?, ?)", rows)


def _move_staged(db: sqlite3.Connection) -> None:
    """Move the names a bulk load held back into ref_names and symbol_names, in key order
    (symbol_names: of names that differ only in case, a document keeps the first in code
    point order, as `CodeTables._insert_symbols` does), but those of documents gone since."""
    for table, order in (("ref_names", "name, document_id"), ("symbol_names", "name COLLATE NOCASE, document_id, name")):
        column, packed_in, defined = NAME_TABLES[table]
        db.execute(f"""INSERT OR IGNORE INTO {table} ({column}, document_id)
                       SELECT name, document_id FROM staged_names s WHERE defined = ?
                       AND EXISTS (SELECT 1 FROM {packed_in} p WHERE p.document_id = s.document_id)
                       ORDER BY {order}""", (defined,))
    db.execute("DELETE FROM staged_names")


def _running(pid: int | None) -> bool:
    """Whether a bulk load's recorded process still runs (-1: a record no process owns)."""
    return pid is not None and pid > 0 and _alive(pid)


def _alive(pid: int) -> bool:
    """Whether a process with this id runs (on this machine; another user's counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


# Documents' references decoded (`ref_fields`) kept per store, the graph reads the same
# files' references again as it follows a call; keyed by the packed bytes themselves, so a
# document written since is never served stale. All 1,600 of the stdlib's documents that
# hold references take about 19 MB decoded.
REF_DOCUMENTS_KEPT = 2048
# The same for documents' definitions (`unpack_symbols`): all 1,631 of the stdlib's take about 21 MB.
SYMBOL_DOCUMENTS_KEPT = 2048


def trigrams_built(db: sqlite3.Connection) -> bool:
    """Whether grep's trigram index holds every stored code text (schema_meta 'trigrams')."""
    return db.execute("SELECT 1 FROM schema_meta WHERE key = 'trigrams'").fetchone() is not None


class SQLiteCore:
    """The connection, schema, transactions, metadata and maintenance of one index file."""

    _CODE_TEXT = "mindex_inflate(packed)"  # a code file's text, as SQL

    CHUNK_TEXT = CHUNK_TEXT  # a chunk's text, as SQL (PostgreSQL: c.text)
    # A commit writes each page its inserts touched: with the indexes of random keys larger
    # than a batch, a batch must grow with them (`ingest.BATCH_GROWTH`).
    batches_grow = True

    HIT_COLUMNS = HIT_COLUMNS

    # The rows that hang off a document, deleted with it; chunks before code_text, from which
    # the full-text index is handed the text of chunks stored as '', and ref_names before refs,
    # whose packed rows say which names to delete (see `_delete_names`); symbol_names
    # before symbols likewise.
    _DOCUMENT_TABLES: tuple[str, ...] = ("chunks", "code_text", "ref_names", "refs", "symbol_names", "symbols")

    # A document's references are one packed row (schema v15), its definitions too (v18):
    # the tables of `UNPACK`. PostgreSQL keeps a row each.
    _PACKED = True
    # A bulk load is writing: names go to staged_names (`bulk_load`).
    staging = False

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
        self.read_only = read_only_file(path)
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
            self.read_only = read_only_file(path)
            if not self.read_only:
                self._create(max(lock_timeout, 5.0))
        elif empty_file(path):
            raise StoreError(f"{path} is empty (0 bytes): the index was cut short or overwritten, and mindex will not "
                             f"take it for a new one (its sources would vanish without a word); {WAY_BACK}")
        self.conn = self._connect(max(lock_timeout, 5.0))
        self.conn.execute("PRAGMA foreign_keys = ON")
        self.conn.create_function("mindex_glob", 2, glob_match, deterministic=True)
        self._texts = TextCache(TEXT_CACHE_CHARS)
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
        options = ["mode=ro"] + ([] if wal_pending(self.path) else ["immutable=1"]) if self.read_only else [""]
        failure: sqlite3.DatabaseError | None = None
        for option in options:
            target = f"{self.path.resolve().as_uri()}?{option}" if option else str(self.path)
            try:
                conn = sqlite3.connect(target, timeout=timeout, isolation_level=None,
                                       check_same_thread=False, uri=bool(option))
                conn.create_function("mindex_inflate", 1, inflate, deterministic=True)
                self._file_lines = FileLines()
                conn.create_function("mindex_lines", 3, self._file_lines, deterministic=True)
                conn.create_function("mindex_given_text", 1, self._file_lines.given_text)
                self._moving = 0  # 1 while kept chunks move (`write_batch`): the update trigger holds back
                conn.create_function("mindex_moving", 0, lambda: self._moving)
                # the migration to v15 (typeshed knows only one-argument aggregates returning int)
                conn.create_aggregate("mindex_pack_refs", 7, PackRefs)  # type: ignore[arg-type]
                conn.create_aggregate("mindex_pack_symbols", 7, PackSymbols)  # type: ignore[arg-type]
                conn.create_function("mindex_defines", 4, self._defines, deterministic=True)
                if option:
                    conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
                else:
                    conn.execute("PRAGMA journal_mode = WAL")
                    conn.execute("PRAGMA synchronous = NORMAL")
                return conn
            except sqlite3.DatabaseError as exc:
                failure = exc
        raise open_failure(self.path, failure, self.read_only)

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
                        raise explain_open_error(exc, self.path, f"the index could not be made or upgraded past schema "
                                       f"v{version - 1} (that step was rolled back, nothing is half done). Free "
                                       "some space and retry") from exc
                    raise

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """Hold the write lock and one IMMEDIATE transaction; roll back on any error, Ctrl-C
        included (it once landed just after BEGIN, outside the rollback's reach, and the
        clean-up's own transaction then failed: "cannot start a transaction within a
        transaction"). A transaction found open here is one such interrupted write: it can
        no longer commit, so it is rolled back first."""
        self.ensure_writable()
        with self.lock:
            try:
                if self.conn.in_transaction:
                    self.conn.execute("ROLLBACK")
                try:
                    self.conn.execute("BEGIN IMMEDIATE")
                    yield self.conn
                    self.conn.execute("COMMIT")
                except BaseException:
                    if self.conn.in_transaction:
                        self.conn.execute("ROLLBACK")
                    raise
            except sqlite3.OperationalError as exc:
                raise explain_open_error(exc, self.path) from exc

    @contextmanager
    def bulk_load(self) -> Iterator[None]:
        """While a large first index of a source writes, the secondary indexes of chunks,
        symbols and references are left out and built once at the end: sorting once costs far
        less than a random insert per row (stdlib: the writer's CPU 14.0 -> 10.1 s). Their
        definitions go to schema_meta first, so the next open of an index whose run was killed
        builds them again. The names its documents call and define wait in staged_names
        likewise (`_move_staged`): until the end, `graph` does not find them."""
        with self.transaction() as db:
            rows = db.execute(
                "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL "
                "AND tbl_name IN ('chunks', 'symbols', 'refs')").fetchall()
            pending = {**_bulk_state(db)[1], **dict(rows)}
            db.execute("INSERT OR REPLACE INTO schema_meta VALUES (?, ?)",
                       (_BULK_INDEXES, json.dumps({"pid": os.getpid(), "indexes": pending})))
            for name, _ in rows:
                db.execute(f'DROP INDEX "{name}"')
        self.staging = True
        try:
            yield
        finally:
            self.staging = False
            self._restore_indexes(mine=True)

    def bulk_loading(self) -> bool:
        """Whether a large first index is being written by a process still running: until it
        ends, the names its files call and define are not found (`bulk_load`)."""
        return _running(_bulk_state(self.conn)[0])

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
        """Build the indexes a bulk load left out and move the names it held back: at its end
        (`mine`), or on opening an index whose bulk load died (not while its process still
        runs)."""
        pid, indexes = _bulk_state(self.conn)
        if not mine and _running(pid):
            return
        if pid is None and self.conn.execute("SELECT 1 FROM staged_names LIMIT 1").fetchone() is None:
            return
        with self.transaction() as db:
            _move_staged(db)
            for sql in indexes.values():
                db.execute(sql.replace("CREATE INDEX", "CREATE INDEX IF NOT EXISTS", 1))
            db.execute("DELETE FROM schema_meta WHERE key = ?", (_BULK_INDEXES,))

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

    def data_version(self) -> int:
        """Changes whenever another connection commits: the cue to reload cached vectors."""
        return int(self.conn.execute("PRAGMA data_version").fetchone()[0])

    def _select_in(self, sql: str, params: Sequence[Any], values: Sequence[Any]) -> list[Any]:
        """Run `sql` (with `{}` where the IN list goes) over `values` in parts of 500, to stay
        under SQLite's limit on bound variables; returns all rows."""
        rows: list[Any] = []
        for start in range(0, len(values), 500):
            part = list(values[start : start + 500])
            rows += self.conn.execute(sql.format(",".join("?" * len(part))), (*params, *part)).fetchall()
        return rows

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
                tops.rewritten(self.conn, lambda: self.conn.execute("INSERT INTO chunks_fts (chunks_fts) VALUES ('optimize')"))
                if trigrams_built(self.conn):
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
                raise explain_open_error(exc, self.path) from exc
        report: dict[str, Any] = {"db": str(self.path), "before_bytes": before, "after_bytes": self._bytes()}
        if blocked:
            wal = Path(f"{self.path}-wal")
            report["note"] = (f"another process is reading the index, so its write-ahead log "
                              f"({wal.stat().st_size / 1e6 if wal.exists() else 0:,.1f} MB, counted above) is emptied "
                              "once no process has the index open, or by `mindex compact` run again then")
        return report

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

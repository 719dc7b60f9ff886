"""The team backend: PostgreSQL (15 or newer) with pgvector and pg_trgm, through psycopg 3.

Same `Store` contract, same tables and columns as the SQLite store. Most methods are the
SQLite store's own: their SQL is plain enough that a small translation (`?` placeholders,
`INSERT OR IGNORE/REPLACE`, `IS NOT ?`, `WHERE 1`, `COLLATE NOCASE`, scalar `max`, LIKE
ignoring case) makes it
PostgreSQL's, so the two backends cannot drift apart. What differs is written here:

- full text: a weighted `tsvector` column (title A, context B, terms C, text D) with a GIN
  index finds the matches, ranked by BM25 exactly as FTS5 ranks them (k1 1.2, b 0.75,
  occurrences weighted 8:4:1:1 by field, the row's length in words); the FTS5 expression the search layer
  builds (quoted words and phrases, prefixes, AND, OR, brackets) is parsed and rebuilt from
  `phraseto_tsquery`/`to_tsquery`, so any string a user types stays a valid query;
- grep's candidate files: `ILIKE` over the file text, answered by a `pg_trgm` GIN index; the
  same Python line matcher runs afterwards, so the lines are those SQLite (and rg) give;
- vectors: `halfvec`, with an HNSW index (cosine) per model; NULL marks a chunk that needs none;
- concurrency: MVCC readers never wait; writers commit whole batches; an indexer holds a
  per-source advisory lock, and a second one is told which process holds it;
- a write transaction ends by bumping `store_version`, which readers compare to reload vectors.

Connections come from a small pool; a transaction pins one connection to its thread, and
reads made inside it (through `conn`) see its writes, as they do on SQLite.
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from mindex.errors import (
    DependencyMissingError,
    IndexLockedError,
    NotFoundError,
    SchemaTooNewError,
    ReadOnlyIndexError,
    SourceExistsError,
    StoreError,
    UPGRADE_HINT,
)
from mindex.models import Chunk, Document, Facets, Hit, Source
from mindex.store import sqlite as _sqlite
from mindex.store.sqlite import _CHUNK_JOINS, PLAIN_HIT_COLUMNS, BM25_WEIGHTS, SQLiteStore, _filters, _hit, _TextCache

log = logging.getLogger(__name__)

URL = re.compile(r"^postgres(?:ql)?://", re.IGNORECASE)
MIGRATIONS = sorted((int(p.name.split("_", 1)[0]), p)
                    for p in (Path(__file__).with_name("migrations") / "postgres").glob("*.sql"))
FIRST_VERSION = MIGRATIONS[0][0]  # the backend starts at the SQLite schema of its time

# From this many vectors of a model, searches go to the HNSW index in the server instead of a
# matrix each process loads (exact; ~1.5 KB a vector at 384 float32 dimensions).
ANN_FROM = 200_000
# Seconds a pooled connection may sit idle before it is tried before use.
CHECK_IDLE = 2.0
# The HNSW search's candidate list (pgvector's default is 40): at a million vectors 64 found
# 68% of the exact top 10 in 5 ms, 400 found 92% in 10 ms (benchmarks/bench_vectors_1m.py).
EF_SEARCH = 400
# Matches of a keyword search that get the exact BM25 (the best by a cheap score first).
RESCORED = 1000
# Words in this share of all chunks or more are "common": an OR query looks at the chunks
# holding a rarer word first (exact; see keyword_search). 0 turns it off.
COMMON = 0.1
_LOCK_CLASS = 0x4D49  # "MI": the first key of mindex's advisory locks
# The conflict target of each table an `INSERT OR REPLACE` writes, and the columns of the
# one written without a column list.
_KEYS = {"schema_meta": ("key",), "vectors": ("model", "hash"), "chunk_contexts": ("model", "hash"),
         "fetch_markers": ("product",), "skipped_files": ("source_id", "path"), "kg_entities": ("id",)}
_COLUMNS = {"schema_meta": ("key", "value")}
_BAD_TEXT = re.compile("[\x00\ud800-\udfff]")


def redact(url: str) -> str:
    """A URL (or a driver's message) without its password: in the user part, as a
    `password=` query parameter or a `password=...` conninfo word."""
    url = re.sub(r"(://[^:/@]+):[^@/]*@", r"\1:***@", url)
    return re.sub(r"(\bpassword\s*=\s*)('[^']*'|[^&\s]*)", r"\1***", url, flags=re.IGNORECASE)


def clean(text: str) -> str:
    """Text PostgreSQL accepts: NUL and lone surrogates (which SQLite stores) become U+FFFD."""
    return _BAD_TEXT.sub("\ufffd", text) if _BAD_TEXT.search(text) else text


@lru_cache(maxsize=512)
def translate(sql: str) -> str:
    """The PostgreSQL form of one of our SQLite statements (see the module docstring)."""
    out = sql.replace("%", "%%").replace("?", "%s")
    out = re.sub(r"\bIS NOT %s", "IS DISTINCT FROM %s", out)
    out = re.sub(r"\b(WHERE|AND)\s+1\b(?!\s*[=<>])", r"\1 TRUE", out)
    out = re.sub(r"(\w+) = %s COLLATE NOCASE", r"lower(\1) = lower(%s)", out)
    out = re.sub(r"\bmax\((\w+), %s\)", r"greatest(\1, %s)", out)
    out = re.sub(r"\bLIKE\b", "ILIKE", out)  # SQLite's LIKE ignores ASCII case
    ignore = re.match(r"\s*INSERT OR IGNORE INTO", out)
    if ignore:
        out = "INSERT INTO" + out[ignore.end():] + " ON CONFLICT DO NOTHING"
    upsert = re.match(r"\s*INSERT OR REPLACE INTO (\w+)\s*(\(([^)]*)\))?", out)
    if upsert:
        table = upsert.group(1)
        columns = [c.strip() for c in upsert.group(3).split(",")] if upsert.group(3) else list(_COLUMNS[table])
        keys = _KEYS[table]
        sets = ", ".join(f"{c} = EXCLUDED.{c}" for c in columns if c not in keys)
        head = f"INSERT INTO {table} ({', '.join(columns)})"
        out = head + out[upsert.end():] + f" ON CONFLICT ({', '.join(keys)}) DO " + (f"UPDATE SET {sets}" if sets else
                                                                                     "NOTHING")
    return out


class _Result:
    """Rows fetched at once (the connection goes back to the pool before they are read)."""

    def __init__(self, rows: list[Any], rowcount: int) -> None:
        self.rows, self.rowcount = rows, rowcount

    def fetchone(self) -> Any:
        return self.rows[0] if self.rows else None

    def fetchall(self) -> list[Any]:
        return self.rows

    def __iter__(self) -> Iterator[Any]:
        return iter(self.rows)


class _Db:
    """One connection, speaking the SQLite store's SQL."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn

    def execute(self, sql: str, params: Sequence[Any] = ()) -> _Result:
        with _explained():
            cur = self.conn.execute(translate(sql), tuple(params) or None)
            return _Result(cur.fetchall() if cur.description else [], cur.rowcount)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        rows = list(rows)
        if rows:
            with _explained(), self.conn.cursor() as cur:
                cur.executemany(translate(sql), rows)


@contextmanager
def _explained() -> Iterator[None]:
    """The server's failures as errors that say what to do (a transaction around rolls back)."""
    psycopg = _driver()
    try:
        yield
    except psycopg.errors.UndefinedObject as exc:
        raise StoreError(f"the database lacks part of mindex's schema ({_reason(exc)}); was it changed by hand? "
                         "`mindex copy` the index into a new database, or index again there") from None
    except psycopg.errors.InsufficientPrivilege as exc:
        raise ReadOnlyIndexError(f"the server refused a change ({_reason(exc)}): this database role may read the index "
                                 "but not change it. Searching works; commands that write need a role that owns "
                                 "mindex's tables") from None
    except psycopg.errors.ReadOnlySqlTransaction:
        raise ReadOnlyIndexError("the server is read-only (a replica?): searching works, but to change the index point "
                                 "--db at the primary") from None
    except psycopg.OperationalError as exc:
        raise gone(exc) from None


def _unlock(conn: Any, sql: str, params: Sequence[Any]) -> None:
    """Release a session's advisory lock; a server that went away took it with the session."""
    if not conn.closed:
        with suppress(_driver().OperationalError):
            conn.execute(sql, params)


def gone(exc: Exception) -> StoreError:
    """The error for a server that went away mid-command (shut down, killed, the network cut)."""
    return StoreError(f"the PostgreSQL server went away ({_reason(exc)}); the index is consistent: every batch "
                      "committed before is kept and the one in flight was rolled back. Rerun the command when the "
                      "server is back")


class _Pooled:
    """`store.conn`: each statement on the thread's open transaction, else on a pooled connection."""

    def __init__(self, store: PostgresStore) -> None:
        self.store = store

    def execute(self, sql: str, params: Sequence[Any] = ()) -> _Result:
        pinned = self.store._pinned()
        if pinned is not None:
            return _Db(pinned).execute(sql, params)
        with self.store._connection() as conn:
            return _Db(conn).execute(sql, params)


def _driver() -> Any:
    try:
        import psycopg
        import psycopg_pool  # noqa: F401
    except ImportError:
        raise DependencyMissingError("psycopg", "postgres", "an index in PostgreSQL (a postgresql:// --db)") from None
    return psycopg


def _words(text: str) -> str:
    """Words as the index splits them (every non-alphanumeric character separates)."""
    return " ".join(re.findall(r"[^\W_]+", text))


_TOKEN = re.compile(r'\s*(?:"((?:[^"]|"")*)"(\*)?|(\()|(\))|(AND|OR|NOT)\b)')


def _tokens(match: str) -> Iterator[tuple[str | None, bool, str | None]]:
    """The parts of one of our FTS5 expressions, in order: (quoted text unescaped, its `*`,
    None) for a quoted word, phrase or trigram, else (None, False, "(" / ")" / "AND" / "OR").
    Anything else (NOT, stray characters) is skipped, so no input is a syntax error."""
    pos = 0
    while pos < len(match):
        found = _TOKEN.match(match, pos)
        if not found:
            pos += 1
            continue
        pos = found.end()
        quoted, star, opening, closing, op = found.groups()
        if quoted is not None:
            yield quoted.replace('""', '"'), bool(star), None
        elif opening or closing:
            yield None, False, opening or closing
        elif op in ("AND", "OR"):
            yield None, False, op


def tsquery(match: str) -> tuple[str, list[str]]:
    """SQL (and its parameters) for the tsquery of one of our FTS5 expressions: quoted words
    and phrases, optional `*` prefixes, AND, OR and brackets. Anything else is ignored, so
    no input raises a syntax error; an expression with no words matches nothing."""
    parts: list[str] = []
    params: list[str] = []
    for quoted, star, other in _tokens(match):
        if quoted is None:
            parts.append({"AND": "&&", "OR": "||"}.get(other or "", other or ""))
            continue
        words = _words(quoted)
        if not words:
            parts.append("''::tsquery")
        elif star and " " not in words:
            parts.append("to_tsquery('mindex', %s)")
            params.append(words + ":*")
        else:
            parts.append("phraseto_tsquery('mindex', %s)")
            params.append(words)
    sql = " ".join(parts)
    return (sql or "''::tsquery"), params


def _or_terms(match: str) -> list[str]:
    """The terms of an expression that is an OR at its top level (brackets kept whole), or
    [match] when it is anything else."""
    parts, depth, start, quoted = [], 0, 0, False
    i = 0
    while i < len(match):
        ch = match[i]
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch == "(":
            depth += 1
        elif not quoted and ch == ")":
            depth -= 1
        elif not quoted and depth == 0:
            if match.startswith(" AND ", i):
                return [match]
            if match.startswith(" OR ", i):
                parts.append(match[start:i].strip())
                start = i + 4
                i += 3
        i += 1
    parts.append(match[start:].strip())
    return [p for p in parts if p] or [match]


def trigram_filter(match: str) -> tuple[str, list[str]]:
    """SQL over `t.text` (and parameters) for grep's trigram expression (quoted trigrams, AND,
    OR, brackets): each trigram becomes an ILIKE the pg_trgm index answers; FTS5's trigram
    tokenizer is case-insensitive too."""
    parts: list[str] = []
    params: list[str] = []
    for gram, _, other in _tokens(match):
        if gram is None:
            parts.append(other or "")
            continue
        parts.append("t.text ILIKE %s")
        params.append("%" + gram.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%")
    return " ".join(parts) or "TRUE", params


class PostgresStore(SQLiteStore):
    """All SQL of the PostgreSQL backend (the SQLite store's, translated, and what differs)."""

    _CODE_TEXT = "text"
    _CHUNK_TEXT = "c.text"  # every chunk keeps its text here
    _HIT_COLUMNS = PLAIN_HIT_COLUMNS
    _DOCUMENT_TABLES = ("chunks", "code_text", "refs", "symbols")
    _PACKED = False  # one row a reference (its scope by name) and one a definition

    def __init__(self, url: str, lock_timeout: float = 30.0, create: bool = True, pool_size: int = 4) -> None:
        psycopg = _driver()
        from psycopg_pool import ConnectionPool

        self.url, self.path, self.where = url, Path(redact(url)), redact(url)
        self.read_only = False
        self.lock_timeout = lock_timeout
        self._local = threading.local()
        self._texts = _TextCache(_sqlite.TEXT_CACHE_CHARS)
        self._hnsw: set[str] = set()
        self._stats: tuple[int, int, float] | None = None  # (data version, chunks, mean length)
        self._dfs: dict[str, int] = {}
        name = f"mindex {os.getpid()}@{socket.gethostname()}"[:63]
        try:
            # One plain connection first: the pool would retry a refused one quietly and report
            # only that it timed out; this names the cause (no such role, database, host).
            psycopg.connect(url, connect_timeout=max(2, int(min(lock_timeout, 10))), autocommit=True).close()
            used: dict[int, float] = {}  # when each pooled connection was last handed back

            def check(conn: Any) -> None:
                """A connection idle for a while is tried before use (one empty round trip): after
                the server restarted, the pool's old connections are dead, and the first calls would
                fail. Connections in steady use are not checked: no cost under load."""
                if time.monotonic() - used.get(id(conn), 0.0) > CHECK_IDLE:
                    ConnectionPool.check_connection(conn)

            def returned(conn: Any) -> None:
                used[id(conn)] = time.monotonic()

            self.pool = ConnectionPool(url, min_size=1, max_size=pool_size, open=True, timeout=max(lock_timeout, 5.0),
                                       kwargs={"autocommit": True, "application_name": name}, check=check,
                                       reset=returned)
            self.pool.wait(timeout=max(lock_timeout, 5.0))
        except Exception as exc:  # a bad URL, a refused connection, a pool timeout
            raise StoreError(f"cannot connect to {redact(url)} ({_reason(exc)}); check that the server runs, "
                             "the URL (user, host, port, database) and the password (PGPASSWORD or ~/.pgpass)") from None
        self.conn = _Pooled(self)  # type: ignore[assignment]
        try:
            self._migrate(create)
        except BaseException:
            self.pool.close()
            raise

    # -- connections -----------------------------------------------------------------------

    def _pinned(self) -> Any:
        return getattr(self._local, "conn", None)

    @contextmanager
    def _connection(self) -> Iterator[Any]:
        pinned = self._pinned()
        if pinned is not None:
            yield pinned
            return
        with self._borrow() as conn:
            yield conn

    @contextmanager
    def _borrow(self) -> Iterator[Any]:
        """A connection from the pool; none to be had in time (the server down, or every
        connection busy) is a StoreError that says so."""
        from psycopg_pool import PoolTimeout

        psycopg = _driver()
        try:
            with self.pool.connection() as conn:
                yield conn
        except PoolTimeout:
            raise StoreError(f"no connection to {self.where} within {self.pool.timeout:.0f} s (the server is down or "
                             "refuses connections); rerun the command when it is back") from None
        except psycopg.OperationalError as exc:  # the connection died under a statement not wrapped in _explained
            raise gone(exc) from None

    def close(self) -> None:
        self.pool.close()

    def ensure_writable(self) -> None:
        return None

    # -- schema ----------------------------------------------------------------------------

    def schema_version(self) -> int:
        row = self.conn.execute("SELECT to_regclass('schema_meta') IS NOT NULL").fetchone()
        if not row[0]:
            return 0
        value = self.conn.execute("SELECT value FROM schema_meta WHERE key = 'schema_version'").fetchone()
        return int(value[0]) if value else 0

    def _migrate(self, create: bool = True) -> None:
        current = self.schema_version()
        if current > _sqlite.SCHEMA_VERSION:
            raise SchemaTooNewError(f"{self.where} uses schema v{current}, newer than this mindex "
                                    f"(v{_sqlite.SCHEMA_VERSION}); {UPGRADE_HINT}")
        if current == _sqlite.SCHEMA_VERSION:
            return
        if current == 0 and not create:
            raise StoreError(f"no mindex index in {self.where}; register a folder with `mindex add <folder>` and "
                             "build it with `mindex index`, or `mindex copy` an index into it")
        with self._borrow() as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s, 0)", (_LOCK_CLASS,))  # one migrator at a time
            current = self.schema_version_on(conn)
            try:
                self._extensions(conn)
            except Exception as exc:
                raise StoreError(f"cannot enable the extensions vector and pg_trgm in {self.where} ({_reason(exc)}); "
                                 "install pgvector on the server, or have an administrator run CREATE EXTENSION "
                                 "vector; CREATE EXTENSION pg_trgm; in that database") from None
            for version, file in MIGRATIONS:
                if version > current:
                    conn.execute(file.read_text(encoding="utf-8"))
                    conn.execute("INSERT INTO schema_meta VALUES ('schema_version', %s) ON CONFLICT (key) DO UPDATE "
                                 "SET value = EXCLUDED.value", (str(version),))

    @staticmethod
    def schema_version_on(conn: Any) -> int:
        if not conn.execute("SELECT to_regclass('schema_meta') IS NOT NULL").fetchone()[0]:
            return 0
        row = conn.execute("SELECT value FROM schema_meta WHERE key = 'schema_version'").fetchone()
        return int(row[0]) if row else 0

    @staticmethod
    def _extensions(conn: Any) -> None:
        with conn.transaction():  # a savepoint: a failure here is reported, not a broken transaction
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            conn.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")

    # -- writing ---------------------------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        """One transaction on a connection pinned to this thread; it ends by bumping
        `store_version`, so readers see a new data version exactly when it commits."""
        psycopg = _driver()
        pinned = self._pinned()
        if pinned is not None:  # nested: part of the open transaction
            yield _Db(pinned)
            return
        try:
            with self._borrow() as conn:
                self._local.conn = conn
                try:
                    with conn.transaction():
                        yield _Db(conn)
                        with _explained():
                            conn.execute("UPDATE store_version SET n = n + 1")
                finally:
                    self._local.conn = None
        except psycopg.errors.DiskFull:
            raise StoreError(f"the server's disk holding {self.where} is full; every batch committed before this one is "
                             "kept. Free some space and rerun `mindex index` to finish") from None
        except psycopg.errors.ReadOnlySqlTransaction:
            raise StoreError(f"{self.where} is a read-only server (a replica?); searching works, but to change the index "
                             "point --db at the primary") from None

    @contextmanager
    def bulk_load(self) -> Iterator[None]:
        """PostgreSQL keeps its indexes while loading (a first index is not worth the exclusive
        lock a drop and rebuild would need on a shared server)."""
        yield

    @contextmanager
    def indexing(self, source: str) -> Iterator[None]:
        """Hold the source's advisory lock for a whole run; another indexer of the same
        source is refused with who holds it (indexers of other sources run at once)."""
        with self._borrow() as conn:
            if not conn.execute("SELECT pg_try_advisory_lock(%s, hashtext(%s))", (_LOCK_CLASS, source)).fetchone()[0]:
                holder = conn.execute(
                    """SELECT a.application_name, a.client_addr::text, a.backend_start FROM pg_locks l
                       JOIN pg_stat_activity a ON a.pid = l.pid
                       WHERE l.locktype = 'advisory' AND l.classid = %s AND l.objsubid = 2
                       AND l.objid::bigint = (hashtext(%s)::bigint & 4294967295) AND l.granted""",
                    (_LOCK_CLASS, source)).fetchone()
                who = (f"{holder[0] or 'another client'}" + (f" from {holder[1]}" if holder and holder[1] else "")
                       + (f" since {holder[2]:%H:%M:%S}" if holder and holder[2] else "")) if holder else "another client"
                raise IndexLockedError(f"source {source!r} is being indexed by {who}; wait for that run to finish "
                                       "(each source has one indexer at a time; other sources can be indexed now)")
            try:
                yield
            finally:
                _unlock(conn, "SELECT pg_advisory_unlock(%s, hashtext(%s))", (_LOCK_CLASS, source))

    @contextmanager
    def embedding(self) -> Iterator[None]:
        """One embedding run at a time on the server: a second waits on an advisory lock, then
        embeds only what is still without a vector."""
        with self._borrow() as conn:
            conn.execute("SELECT pg_advisory_lock(%s, 0)", (_LOCK_CLASS + 1,))  # a class of its own: no source's
            try:
                yield
            finally:
                _unlock(conn, "SELECT pg_advisory_unlock(%s, 0)", (_LOCK_CLASS + 1,))

    def add_source(self, source: Source) -> Source:
        options = json.dumps({"include": list(source.include), "exclude": list(source.exclude)})
        with self.transaction() as db:
            clash = db.execute("SELECT name FROM sources WHERE name = ? OR (root = ? AND kind = ?)",
                               (source.name, source.root, source.kind)).fetchone()
            if clash:
                raise SourceExistsError(f"a source {clash[0]!r} already covers that; "
                                        f"see `mindex sources`, or `mindex remove {clash[0]}` first")
            (sid,) = db.execute("INSERT INTO sources (name, kind, root, options, created_at) VALUES (?, ?, ?, ?, ?) "
                                "RETURNING id", (source.name, source.kind, source.root, options, time.time())).fetchone()
        return Source(source.name, source.kind, source.root, source.include, source.exclude, sid)

    def write_batch(
        self,
        source_id: int,
        upserts: Sequence[Document] = (),
        touches: Sequence[tuple[str, int, int]] = (),
        deletes: Sequence[str] = (),
    ) -> None:
        """Replace whole documents, refresh markers, drop deleted ones: one transaction
        (rows that hang off a document go with it by ON DELETE CASCADE)."""
        now = time.time()
        with self.transaction() as db:
            gone = [*deletes, *(doc.path for doc in upserts)]
            if gone:
                db.execute("DELETE FROM documents WHERE source_id = ? AND path = ANY(?)", (source_id, gone))
            db.executemany("UPDATE documents SET size = ?, mtime_ns = ? WHERE source_id = ? AND path = ?",
                           [(size, mtime, source_id, path) for path, size, mtime in touches])
            for doc in upserts:
                (doc_id,) = db.execute(
                    """INSERT INTO documents (source_id, path, kind, title, size, mtime_ns, content_hash, metadata,
                       indexed_at, language) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id""",
                    (source_id, doc.path, doc.kind, clean(doc.title), doc.size, doc.mtime_ns, doc.content_hash,
                     clean(json.dumps(doc.metadata, ensure_ascii=False)), now,
                     doc.metadata.get("language") if doc.kind == "code" else None)).fetchone()
                self._insert_chunks(db, doc_id, [_clean_chunk(c) for c in doc.chunks], 0)
                db.executemany(
                    """INSERT INTO symbols (document_id, name, short, kind, start_line, end_line, signature, exported)
                       VALUES (?, ?, ?, ?, ?, ?, ?, ?)""",
                    [(doc_id, clean(name), clean(name.rsplit(".", 1)[-1]), kind, first, last, clean(signature),
                      int(exported)) for name, kind, first, last, signature, exported in doc.symbols])
                db.executemany(
                    "INSERT INTO refs (document_id, n, kind, name, qualifier, alias, line, scope) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [(doc_id, n, kind, clean(name), clean(qualifier), clean(alias), line, clean(scope))
                     for n, (kind, name, qualifier, alias, line, scope) in enumerate(doc.refs)])
                if doc.text is not None:
                    db.execute("INSERT INTO code_text (document_id, text) VALUES (?, ?)", (doc_id, clean(doc.text)))

    def append_chunks(self, source_id: int, path: str, before: tuple[int, int], after: tuple[int, int],
                      place: Callable[[int], tuple[Sequence[Chunk], int]]) -> bool:
        with self.transaction() as db:
            row = db.execute("SELECT id, size, mtime_ns, metadata FROM documents WHERE source_id = ? AND path = ? "
                             "FOR UPDATE", (source_id, path)).fetchone()
            if row is None or (row[1], row[2]) != before:
                return False
            doc_id = row[0]
            metadata = json.loads(row[3] or "{}")
            if not isinstance(metadata.get("lines"), int):
                return False
            chunks, lines = place(metadata["lines"])
            (last_seq,) = db.execute("SELECT coalesce(max(seq), 0) FROM chunks WHERE document_id = ?",
                                     (doc_id,)).fetchone()
            (ordinal,) = db.execute("SELECT coalesce(max(ordinal) + 1, 0) FROM chunks WHERE document_id = ?",
                                    (doc_id,)).fetchone()
            self._insert_chunks(db, doc_id, [_clean_chunk(c) for c in chunks], last_seq, ordinal)
            db.execute("UPDATE documents SET size = ?, mtime_ns = ?, content_hash = '', indexed_at = ?, metadata = ? "
                       "WHERE id = ?", (*after, time.time(), json.dumps({**metadata, "lines": lines}), doc_id))
        return True

    # -- vectors ---------------------------------------------------------------------------

    def save_vectors(self, model: str, rows: Sequence[tuple[str, bytes]]) -> None:
        """Store vectors (hash, float16 bytes; empty = needs none) as halfvec, and give the
        model its HNSW index (cosine) the first time its dimension is known."""
        import numpy as np

        values: list[tuple[str, str, str | None]] = []
        dim = 0
        for digest, blob in rows:
            if blob:
                vec = np.frombuffer(blob, dtype="<f2")
                dim = len(vec)
                values.append((model, digest, "[" + ",".join(map(str, vec.tolist())) + "]"))
            else:
                values.append((model, digest, None))
        with self.transaction() as db:
            db.executemany("INSERT INTO vectors (model, hash, embedding) VALUES (?, ?, ?::halfvec) "
                           "ON CONFLICT (model, hash) DO UPDATE SET embedding = EXCLUDED.embedding", values)
        if dim:
            self._vector_index(model, dim)

    def vector_rows(self, model: str, seqs: Sequence[int] | None = None) -> list[tuple[int, str, bytes]]:
        import numpy as np

        sql = ("SELECT c.seq, c.hash, v.embedding FROM chunks c JOIN vectors v ON v.model = %s AND v.hash = c.hash "
               "AND v.embedding IS NOT NULL")
        with self._connection() as conn, conn.cursor(binary=True) as cur:
            if seqs is None:
                rows = cur.execute(sql + " ORDER BY c.seq", (model,)).fetchall()
            else:
                rows = cur.execute(sql + " WHERE c.seq = ANY(%s) ORDER BY c.seq", (model, list(seqs))).fetchall()
        # halfvec's binary form: int16 dimension, int16 unused, then big-endian float16 values.
        return [(seq, digest, np.frombuffer(blob, dtype=">f2", offset=4).astype("<f2").tobytes())
                for seq, digest, blob in rows]

    def vector_keys(self, model: str) -> list[tuple[int, str]]:
        return self.conn.execute(
            "SELECT c.seq, c.hash FROM chunks c JOIN vectors v ON v.model = ? AND v.hash = c.hash "
            "AND v.embedding IS NOT NULL ORDER BY c.seq", (model,)).fetchall()

    def data_version(self) -> int:
        return int(self.conn.execute("SELECT n FROM store_version").fetchone()[0])

    def vector_count(self, model: str) -> int:
        """How many vectors a model has (empty ones not counted)."""
        return int(self.conn.execute("SELECT count(*) FROM vectors WHERE model = ? AND embedding IS NOT NULL",
                                     (model,)).fetchone()[0])

    def _select_in(self, sql: str, params: Sequence[Any], values: Sequence[Any]) -> list[Any]:
        """The SQLite store's `IN ({})` queries as one `= ANY(array)`: no limit on values here."""
        values = list(values)
        if not values:
            return []
        return self.conn.execute(sql.replace("IN ({})", "= ANY(?)"), (*params, values)).fetchall()

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
        """Rank matching chunks by BM25 (as SQLite's FTS5 does: k1 1.2, b 0.75, the fields
        weighted 8 : 4 : 1 : 1), then read the page's rows; hits come without snippets, as on
        SQLite. PostgreSQL's own `ts_rank` knows no document frequencies: on the dev sets it
        ranked far below BM25 (code-ts keyword nDCG@10 0.150 against 0.337). Document
        frequencies and the mean length are read once per data version."""
        where, params = _filters(source, kind, path, language, symbol_kind, facets, self._PACKED)
        lexemes = self._lexemes(tsquery(match)[1])
        count, mean = self._corpus()
        # FTS5's BM25: a term's frequency is summed over the fields, each occurrence counting
        # its field's weight; the length is the whole row's; idf never below 1e-6.
        idf = {x: max(math.log((count - df + 0.5) / (df + 0.5)), 1e-6) for x, df in ((x, self._df(x)) for x in lexemes)}
        wanted = limit + offset
        # An OR of terms where some are common (in a tenth of all chunks or more): first look only
        # at the chunks holding a rarer term. A chunk left out can still hold any query word but
        # those whose one-word term it would then match, and each word adds under 2.2 × its idf;
        # if the page's last score beats that sum, no chunk left out could enter the page and
        # the answer is exact. Else the whole query runs.
        terms = _or_terms(match)
        if len(terms) > 1 and COMMON:
            rare, forcing = [], set()
            for term in terms:
                words = self._lexemes(tsquery(term)[1])
                if not words or any(self._df(x) < count * COMMON for x in words):
                    rare.append(term)
                    if len(words) == 1:  # holding this word means matching this term
                        forcing.add(words[0])
            bound = 2.2 * sum(value for x, value in idf.items() if x not in forcing)
            if rare and len(rare) < len(terms):
                ranked = self._ranked(" OR ".join(rare), idf, mean, where, params, wanted)
                if len(ranked) >= wanted and ranked[wanted - 1][1] > bound:
                    return self._page(ranked[offset:wanted])
        return self._page(self._ranked(match, idf, mean, where, params, wanted)[offset:wanted])

    def _ranked(self, match: str, idf: dict[str, float], mean: float, where: list[str], params: list[Any],
                wanted: int) -> list[tuple[int, float]]:
        """(seq, BM25) of the best `wanted` chunks matching `match`, scored on the `idf` words.
        Two steps: every match gets a cheap score (the idf of each query word it holds, a
        lookup in its tsvector; ts_rank breaks ties), and only the best thousand get BM25,
        which has to unnest their tsvectors."""
        query_sql, query_params = tsquery(match)
        lexemes, values = list(idf), list(idf.values())
        weight = "CASE f " + " ".join(f"WHEN '{k}' THEN {w}" for k, w in zip(
            "ABCD", (BM25_WEIGHTS[0], BM25_WEIGHTS[1], BM25_WEIGHTS[3], BM25_WEIGHTS[2]))) + " END"
        joins = _CHUNK_JOINS if where else ""
        held = " + ".join(f"(CASE WHEN c.search @@ ?::tsquery THEN {value!r} ELSE 0 END)" for value in values) or "0"
        words = ["'" + x.replace("'", "''") + "'" for x in lexemes]
        rows = self.conn.execute(
            f"""WITH q AS (SELECT {query_sql.replace('%s', '?')} AS q),
                w AS (SELECT * FROM unnest(?::text[], ?::float8[]) AS w(lexeme, idf)),
                cand AS (SELECT c.seq, c.search, c.words AS dl FROM q, chunks c {joins}
                         WHERE {' AND '.join(['c.search @@ q.q', *where])}
                         ORDER BY {held} DESC, ts_rank(c.search, q.q) DESC, c.seq LIMIT ?)
                SELECT cand.seq, coalesce(sum(w.idf * t.tf * 2.2 / (t.tf + 1.2 * (0.25 + 0.75 * cand.dl / ?))), 0) AS r
                FROM cand LEFT JOIN LATERAL (
                    SELECT u.lexeme, sum({weight}) AS tf FROM unnest(cand.search) u, unnest(u.weights) f
                    WHERE u.lexeme = ANY(?::text[]) GROUP BY u.lexeme) t ON TRUE
                LEFT JOIN w ON w.lexeme = t.lexeme
                GROUP BY cand.seq ORDER BY r DESC, cand.seq LIMIT ?""",
            (*query_params, lexemes, values, *params, *words, max(RESCORED, 4 * wanted), max(mean, 1e-9),
             lexemes, wanted)).fetchall()
        return [(int(seq), float(score)) for seq, score in rows]

    def _page(self, ranked: list[tuple[int, float]]) -> list[Hit]:
        if not ranked:
            return []
        found = self.hits_by_seq([seq for seq, _ in ranked])
        return [found[seq].but(score=score) for seq, score in ranked if seq in found]

    def _corpus(self) -> tuple[int, float]:
        """(chunks, their mean length in words over all fields), per data version."""
        version = self.data_version()
        stats = self._stats
        if stats is None or stats[0] != version:
            row = self.conn.execute("SELECT count(*), avg(words) FROM chunks").fetchone()
            stats = self._stats = (version, int(row[0]), float(row[1] or 0.0))
            self._dfs = {}
        return stats[1], stats[2]

    def _df(self, lexeme: str) -> int:
        """How many chunks hold a word (its GIN entry), cached with the corpus statistics."""
        if lexeme not in self._dfs:
            self._dfs[lexeme] = int(self.conn.execute(
                "SELECT count(*) FROM chunks WHERE search @@ ?::tsquery", ("'" + lexeme.replace("'", "''") + "'",)
            ).fetchone()[0])
        return self._dfs[lexeme]

    def _lexemes(self, words: Sequence[str]) -> list[str]:
        """The index's words (stems) for a query's words and phrases (a prefix's `:*` dropped)."""
        text = " ".join(w.removesuffix(":*") for w in words)
        if not text.strip():
            return []
        rows = self.conn.execute("SELECT DISTINCT lexeme FROM unnest(to_tsvector('mindex', ?))", (text,)).fetchall()
        return sorted(row[0] for row in rows)

    def trigram_index_ready(self) -> bool:
        """Always: the server keeps the pg_trgm index."""
        return True

    def code_texts(
        self, match: str | None, source: str | None = None, path: str | None = None,
        language: str | None = None,
    ) -> Iterator[tuple[int, str, str, str | None, str]]:
        where, params = _filters(source, None, path, language)
        if match is not None:
            grams, gram_params = trigram_filter(match)
            where.append(f"d.id IN (SELECT t.document_id FROM code_text t WHERE {grams.replace('%s', '?')})")
            params += gram_params
        where.append("TRUE")
        files = self.conn.execute(
            f"""SELECT d.id, s.name, d.path, d.language, d.content_hash FROM documents d
                JOIN sources s ON s.id = d.source_id
                WHERE d.kind = 'code' AND {' AND '.join(where)} ORDER BY s.name, d.path""", params).fetchall()
        for doc_id, name, rel, lang, digest in files:
            text = self._texts.get((doc_id, digest))
            if text is None:
                row = self.conn.execute("SELECT text FROM code_text WHERE document_id = ?", (doc_id,)).fetchone()
                if row is None:
                    continue
                text = self._texts.put((doc_id, digest), row[0])
            yield doc_id, name, rel, lang, text

    def get_chunk(self, chunk_id: str) -> Hit:
        base = f"SELECT {self._HIT_COLUMNS} FROM chunks c {_CHUNK_JOINS}"
        rows = self.conn.execute(base + " WHERE c.id = ?", (chunk_id,)).fetchall()
        if not rows and len(chunk_id) >= 6:
            prefix = chunk_id.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            rows = self.conn.execute(base + " WHERE c.id LIKE ? LIMIT 2", (prefix,)).fetchall()
        if not rows and len(chunk_id) < 6:
            raise NotFoundError(f"chunk id {chunk_id!r} is too short: an id prefix needs 6 or more characters; "
                                "copy an id from `mindex search --json`")
        if len(rows) != 1:
            what = "matches several chunks" if rows else "matches no chunk"
            raise NotFoundError(f"chunk id {chunk_id!r} {what}; copy an id from `mindex search --json`")
        return _hit(rows[0], score=0.0, snippet="")

    def stats(self) -> dict[str, Any]:
        one = self.conn.execute
        skipped = one("SELECT s.name, k.path, k.reason FROM skipped_files k JOIN sources s ON s.id = k.source_id")
        return {
            "db": redact(self.url),
            "schema_version": self.schema_version(),
            "db_bytes": one("SELECT pg_database_size(current_database())").fetchone()[0],
            "sources": one("SELECT count(*) FROM sources").fetchone()[0],
            "documents": one("SELECT count(*) FROM documents").fetchone()[0],
            "chunks": one("SELECT count(*) FROM chunks").fetchone()[0],
            "vectors": one("SELECT count(*) FROM vectors WHERE embedding IS NOT NULL").fetchone()[0],
            "last_indexed": one("SELECT max(indexed_at) FROM sources").fetchone()[0],
            "skipped": [{"source": s, "path": p, "reason": r} for s, p, r in skipped],
        }

    def compact(self) -> dict[str, Any]:
        """`VACUUM (ANALYZE)` of the database: PostgreSQL keeps the space it frees for the
        next rows (autovacuum does the same in time) and refreshes the planner's statistics;
        the files shrink only when their last pages were freed."""
        before = self.conn.execute("SELECT pg_database_size(current_database())").fetchone()[0]
        with self._connection() as conn:  # autocommit: VACUUM cannot run inside a transaction
            conn.execute("VACUUM (ANALYZE)")
        after = self.conn.execute("SELECT pg_database_size(current_database())").fetchone()[0]
        return {"db": redact(self.url), "before_bytes": before, "after_bytes": after}

    def symbol_spans(self, document_ids: Sequence[int]) -> dict[int, list[tuple[int, int, str]]]:
        """As SQLite's, from one row a definition."""
        spans: dict[int, list[tuple[int, int, str]]] = {}
        rows = self._select_in(
            "SELECT document_id, start_line, end_line, name FROM symbols WHERE document_id IN ({})", (), document_ids)
        for doc_id, start, end, name in rows:
            spans.setdefault(doc_id, []).append((start, end, name))
        return spans

    def symbol_rows(self, column: str, value: str | int) -> list[tuple[int, int, str, str, int, int, str, int]]:
        """As SQLite's, from one row a definition."""
        where = {"name": "short = ? COLLATE NOCASE AND name = ?", "short": "short = ? COLLATE NOCASE AND short = ?",
                 "document_id": "document_id = ?", "short_like": "short LIKE ? ESCAPE '\\'",
                 "short_nocase": "short = ? COLLATE NOCASE"}[column]
        params: tuple[str | int, ...] = (value,)
        if column == "name":
            params = (str(value).rsplit(".", 1)[-1], value)
        elif column == "short":
            params = (value, value)
        return self.conn.execute(
            f"""SELECT id, document_id, name, kind, start_line, end_line, signature, exported FROM symbols
                WHERE {where} ORDER BY document_id, start_line""", params).fetchall()

    def symbol_shorts(self) -> list[str]:
        """Every distinct short symbol name (for fuzzy lookups)."""
        return [row[0] for row in self.conn.execute("SELECT DISTINCT short FROM symbols")]

    def ref_rows(self, column: str, value: str | int,
                 kind: str | None = None) -> list[tuple[int, str, str, str, str, int, str]]:
        where = {"name": "name = ?", "document_id": "document_id = ?"}[column]
        params: list[str | int] = [value]
        if kind is not None:
            where += " AND kind = ?"
            params.append(kind)
        return self.conn.execute(
            f"""SELECT document_id, kind, name, qualifier, alias, line, scope
                FROM refs WHERE {where} ORDER BY document_id, line, n""", params).fetchall()

    # -- mindex copy -----------------------------------------------------------------------

    def dump_rows(self, table: str, after: Sequence[Any] | None, limit: int) -> list[tuple[Any, ...]]:
        if table != "vectors":
            return super().dump_rows(table, after, limit)
        import numpy as np

        where = "WHERE (model, hash) > (%s, %s)" if after is not None else ""
        with self._connection() as conn, conn.cursor(binary=True) as cur:
            rows = cur.execute(f"SELECT model, hash, embedding FROM vectors {where} ORDER BY model, hash LIMIT %s",
                               (*(after or ()), limit)).fetchall()
        return [(model, digest, b"" if blob is None else
                 np.frombuffer(blob, dtype=">f2", offset=4).astype("<f2").tobytes()) for model, digest, blob in rows]

    def load_rows(self, table: str, rows: Sequence[Sequence[Any]], db: Any) -> None:
        if not rows:
            return
        if table == "vectors":
            import numpy as np

            db.executemany("INSERT INTO vectors (model, hash, embedding) VALUES (?, ?, ?::halfvec)",
                           [(model, digest, "[" + ",".join(map(str, np.frombuffer(blob, dtype="<f2").tolist())) + "]"
                             if blob else None) for model, digest, blob in rows])
            return
        from mindex.store.sqlite import _copy_table

        _, _, columns = _copy_table(table)
        fixed = [tuple(clean(v) if isinstance(v, str) else v for v in row) for row in rows]
        verb = "INSERT OR REPLACE" if table == "schema_meta" else "INSERT"
        db.executemany(f"{verb} INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})", fixed)

    def clear_all(self) -> None:
        from mindex.store.sqlite import COPY_TABLES

        with self.transaction() as db:
            db.execute(f"TRUNCATE {', '.join(t for t in COPY_TABLES if t != 'schema_meta')} CASCADE")
            db.execute("DELETE FROM schema_meta WHERE key <> 'schema_version'")

    def copy_done(self) -> None:
        """Move the id sequences past the copied ids, and give each model its HNSW index."""
        with self.transaction() as db:
            for table, column in (("sources", "id"), ("documents", "id"), ("chunks", "seq"), ("symbols", "id"),
                                  ("workflow_actions", "id"), ("workflow_commits", "id"), ("baselines", "id"),
                                  ("query_log", "id")):
                db.execute(f"SELECT setval(pg_get_serial_sequence('{table}', '{column}'), "
                           f"coalesce((SELECT max({column}) FROM {table}), 0) + 1, false)")
            models = db.execute("SELECT model, max(vector_dims(embedding)) FROM vectors WHERE embedding IS NOT NULL "
                                "GROUP BY model").fetchall()
        for model, dim in models:
            self._vector_index(model, int(dim))

    def _vector_index(self, model: str, dim: int) -> None:
        if model in self._hnsw:
            return
        name = "vectors_hnsw_" + re.sub(r"\W", "_", model)[:40] + f"_{dim}"
        literal = model.replace("'", "''")
        with self.transaction() as db:
            db.execute(f'CREATE INDEX IF NOT EXISTS "{name}" ON vectors USING hnsw '
                       f"((embedding::halfvec({dim})) halfvec_cosine_ops) WHERE model = '{literal}'")
        self._hnsw.add(model)


def _clean_chunk(chunk: Chunk) -> Chunk:
    if any(_BAD_TEXT.search(t) for t in (chunk.title, chunk.context, chunk.text, chunk.terms or "")):
        return replace(chunk, title=clean(chunk.title), context=clean(chunk.context), text=clean(chunk.text),
                       terms=clean(chunk.terms or ""))
    return chunk


def _reason(exc: BaseException) -> str:
    """The first line of a driver's message, without the URL's password."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return redact(text)


class ServerVectors:
    """A model's vectors searched where they live: pgvector's HNSW index (cosine) answers the
    nearest chunks, with filters applied during the scan (iterative, so a narrow filter still
    fills the page). The same interface as the in-memory `VectorIndex`; approximate, so used
    only from `ANN_FROM` vectors, where loading every vector in every process stops paying."""

    def __init__(self, store: PostgresStore, model: str) -> None:
        self.store, self.model = store, model
        self._dim: int | None = None

    def invalidate(self) -> None:
        return None  # nothing cached: every search reads the table

    def dim(self) -> int:
        if self._dim is None:
            row = self.store.conn.execute("SELECT vector_dims(embedding) FROM vectors WHERE model = ? AND embedding "
                                          "IS NOT NULL LIMIT 1", (self.model,)).fetchone()
            self._dim = int(row[0]) if row else 0
        return self._dim

    def __len__(self) -> int:
        return self.store.vector_count(self.model)

    def vector(self, seq: int) -> Any:
        rows = self.store.vector_rows(self.model, [seq])
        if not rows:
            return None
        import numpy as np

        return np.frombuffer(rows[0][2], dtype="<f2").astype(np.float32)

    def search(self, query: Any, limit: int, allowed: list[int] | None = None) -> list[tuple[int, float]]:
        return self.nearest(query, limit, allowed)

    def nearest(self, query: Any, limit: int, allowed: list[int] | None = None) -> list[tuple[int, float]]:
        """Top `limit` (chunk seq, cosine); safe from another thread (its own pooled connection)."""
        from mindex.errors import EmbeddingMismatchError

        dim = self.dim()
        if not dim:
            return []
        if len(query) != dim:
            raise EmbeddingMismatchError(f"the query vector has {len(query)} dimensions but the index holds {dim}; "
                                         "re-embed with `mindex embed --force`, or set embed.model back")
        literal = "[" + ",".join(repr(float(x)) for x in query) + "]"
        distance = f"(v.embedding::halfvec({dim}) <=> %s::halfvec({dim}))"
        where = "AND c.seq = ANY(%s)" if allowed is not None else ""
        with self.store.pool.connection() as conn, conn.transaction():
            conn.execute(f"SET LOCAL hnsw.ef_search = {max(EF_SEARCH, min(1000, 2 * limit))}")
            conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
            rows = conn.execute(
                f"""SELECT c.seq, 1 - {distance} AS sim FROM vectors v JOIN chunks c ON c.hash = v.hash
                    WHERE v.model = %s AND v.embedding IS NOT NULL {where}
                    ORDER BY {distance} LIMIT %s""",
                (literal, self.model, *([list(allowed)] if allowed is not None else []), literal, limit)).fetchall()
        return sorted(((int(seq), float(sim)) for seq, sim in rows), key=lambda r: -r[1])

"""The team backend's core: the connection pool, the translation of the SQLite store's
SQL, the schema and its migrations, transactions and advisory locks, status and
maintenance; the domains that differ from SQLite are the other modules of this package."""


from __future__ import annotations

import os
import re
import socket
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from functools import lru_cache
from pathlib import Path
from typing import Any

from mindex.errors import (
    DependencyMissingError,
    IndexLockedError,
    SchemaTooNewError,
    ReadOnlyIndexError,
    StoreError,
    UPGRADE_HINT,
)
from mindex.store import sqlite as _sqlite
from mindex.store.sqlite import PLAIN_HIT_COLUMNS, SQLiteStore, TextCache
from mindex.logs import get_logger


log = get_logger(__name__)
URL = re.compile(r"^postgres(?:ql)?://", re.IGNORECASE)
MIGRATIONS = sorted((int(p.name.split("_", 1)[0]), p)
                    for p in (Path(__file__).parent.parent / "migrations" / "postgres").glob("*.sql"))
FIRST_VERSION = MIGRATIONS[0][0]  # the backend starts at the SQLite schema of its time
# Seconds a pooled connection may sit idle before it is tried before use.
CHECK_IDLE = 2.0
_LOCK_CLASS = 0x4D49  # "MI": the first key of mindex's advisory locks
# The conflict target of each table an `INSERT OR REPLACE` writes, and the columns of the
# one written without a column list.
_KEYS = {"schema_meta": ("key",), "vectors": ("model", "hash"), "chunk_contexts": ("model", "hash"),
         "fetch_markers": ("product",), "skipped_files": ("source_id", "path"), "kg_entities": ("id",)}
_COLUMNS = {"schema_meta": ("key", "value")}
BAD_TEXT = re.compile("[\x00\ud800-\udfff]")


def redact(url: str) -> str:
    """A URL (or a driver's message) without its password: in the user part, as a
    `password=` query parameter or a `password=...` conninfo word."""
    url = re.sub(r"(://[^:/@]+):[^@/]*@", r"\1:***@", url)
    return re.sub(r"(\bpassword\s*=\s*)('[^']*'|[^&\s]*)", r"\1***", url, flags=re.IGNORECASE)


def clean(text: str) -> str:
    """Text PostgreSQL accepts: NUL and lone surrogates (which SQLite stores) become U+FFFD."""
    return BAD_TEXT.sub("\ufffd", text) if BAD_TEXT.search(text) else text


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

    def copy(self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        """Append rows with COPY: no statement planned and run a row, as `executemany` does
        (a file's references, 180 rows on average, in half the time; its chunks too)."""
        if rows:
            with _explained(), self.conn.cursor() as cur, \
                    cur.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copying:
                for row in rows:
                    copying.write_row(row)


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

    def __init__(self, store: PgCore) -> None:
        self.store = store

    def execute(self, sql: str, params: Sequence[Any] = ()) -> _Result:
        pinned = self.store._pinned()
        if pinned is not None:
            return _Db(pinned).execute(sql, params)
        with self.store._connection() as conn:
            return _Db(conn).execute(sql, params)


def _driver() -> Any:
    from mindex.logs import ready

    ready()  # the driver logs on its own: the CLI's logging set-up must be in place first
    try:
        import psycopg
        import psycopg_pool  # noqa: F401
    except ImportError:
        raise DependencyMissingError("psycopg", "postgres", "an index in PostgreSQL (a postgresql:// --db)") from None
    return psycopg


def _reason(exc: BaseException) -> str:
    """The first line of a driver's message, without the URL's password."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return redact(text)


class PgCore(SQLiteStore):
    """Connections, schema, transactions, status and maintenance on PostgreSQL."""

    _CODE_TEXT = "text"

    CHUNK_TEXT = "c.text"  # every chunk keeps its text here
    # Growing batches measured no faster here (a million chunks: 445 s of CPU, client and
    # server, against 402 s with fixed ones; one run each).
    batches_grow = False

    HIT_COLUMNS = PLAIN_HIT_COLUMNS

    _DOCUMENT_TABLES = ("chunks", "code_text", "refs", "symbols")

    _PACKED = False  # one row a reference (its scope by name) and one a definition

    def __init__(self, url: str, lock_timeout: float = 30.0, create: bool = True, pool_size: int = 4) -> None:
        psycopg = _driver()
        from psycopg_pool import ConnectionPool

        self.url, self.path, self.where = url, Path(redact(url)), redact(url)
        self.read_only = False
        self.lock_timeout = lock_timeout
        self._local = threading.local()
        self._texts = TextCache(_sqlite.TEXT_CACHE_CHARS)
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

    def bulk_loading(self) -> bool:
        """Never: a first index here writes its names as it goes (see `bulk_load`)."""
        return False

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

    def data_version(self) -> int:
        return int(self.conn.execute("SELECT n FROM store_version").fetchone()[0])

    def _select_in(self, sql: str, params: Sequence[Any], values: Sequence[Any]) -> list[Any]:
        """The SQLite store's `IN ({})` queries as one `= ANY(array)`: no limit on values here."""
        values = list(values)
        if not values:
            return []
        return self.conn.execute(sql.replace("IN ({})", "= ANY(?)"), (*params, values)).fetchall()

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

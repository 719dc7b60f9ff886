"""The embedded store: one SQLite file in WAL mode, FTS5 kept in sync by triggers.

Writers hold a `WriteLock` and commit in batches (one transaction per batch of whole
documents), so a reader never sees half a document and a killed writer leaves the last
committed batch. Readers need no lock at all.

One module per domain, composed here into `SQLiteStore`: `core` (connection, schema,
transactions, metadata, maintenance), `chunks` (sources, documents, chunks, keyword
search), `vectors`, `code` (the code graph and code texts), `memory` (facets, the knowledge
graph), `sessions` (agent sessions, the query log), `changelogs` and `copying`; `opening`
and `functions` hold what opening a file and every connection need.
"""

from mindex.store.sqlite.changelogs import ChangelogTables
from mindex.store.sqlite.chunks import BM25_WEIGHTS, ChunkTables
from mindex.store.sqlite.copying import COPY_TABLES, CopyTables, copy_table
from mindex.store.sqlite.functions import TEXT_CACHE_CHARS, FileLines, TextCache
from mindex.store.sqlite.memory import MemoryTables
from mindex.store.sqlite.opening import MIGRATIONS, SCHEMA_VERSION, peek
from mindex.store.sqlite.queries import CHUNK_JOINS, PLAIN_HIT_COLUMNS, filter_sql, hit_of_row, facet_rows
from mindex.store.sqlite.sessions import SessionTables
from mindex.store.sqlite.vectors import VectorTables


class SQLiteStore(ChunkTables, VectorTables, MemoryTables, SessionTables, ChangelogTables, CopyTables):
    """All SQL of the embedded backend."""


__all__ = ["BM25_WEIGHTS", "COPY_TABLES", "MIGRATIONS", "PLAIN_HIT_COLUMNS", "SCHEMA_VERSION", "SQLiteStore", "TEXT_CACHE_CHARS",
           "CHUNK_JOINS", "FileLines", "TextCache", "copy_table", "filter_sql", "hit_of_row", "facet_rows", "peek"]

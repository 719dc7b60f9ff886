"""The team backend: PostgreSQL (15 or newer) with pgvector and pg_trgm, through psycopg 3.

Same `Store` contract, same tables and columns as the SQLite store. Most methods are the
SQLite store's own: their SQL is plain enough that a small translation (`?` placeholders,
`INSERT OR IGNORE/REPLACE`, `IS NOT ?`, `WHERE 1`, `COLLATE NOCASE`, scalar `max`, LIKE
ignoring case) makes it
PostgreSQL's, so the two backends cannot drift apart. What differs is written in this
package, one module per domain (`core`, `chunks`, `code`, `vectors`, `copying`), composed
here into `PostgresStore` over the SQLite store's methods:

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

from mindex.store.postgres.chunks import COMMON, RESCORED, PgChunks, tsquery
from mindex.store.postgres.code import PgCode, trigram_filter
from mindex.store.postgres.copying import PgCopy
from mindex.store.postgres.core import CHECK_IDLE, URL, clean, redact, translate
from mindex.store.postgres.vectors import ANN_FROM, EF_SEARCH, PgVectors, ServerVectors


class PostgresStore(PgChunks, PgCode, PgCopy, PgVectors):
    """All SQL of the team backend: the SQLite store's, translated, and what differs."""


__all__ = ["ANN_FROM", "CHECK_IDLE", "COMMON", "EF_SEARCH", "RESCORED", "URL", "PostgresStore", "ServerVectors",
           "clean", "redact", "translate", "trigram_filter", "tsquery"]

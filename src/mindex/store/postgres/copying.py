"""`mindex copy` into and out of PostgreSQL: whole tables in key order."""


from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from mindex.store.postgres.core import clean
from mindex.store.postgres.vectors import PgVectors


class PgCopy(PgVectors):
    """Whole tables, for `mindex copy`."""

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

            # COPY's text form of a halfvec is its literal, which the server parses as the cast did
            db.copy("vectors", ("model", "hash", "embedding"),
                    [(model, digest, "[" + ",".join(map(str, np.frombuffer(blob, dtype="<f2").tolist())) + "]"
                      if blob else None) for model, digest, blob in rows])
            return
        from mindex.store.sqlite import copy_table

        _, _, columns = copy_table(table)
        fixed = [tuple(clean(v) if isinstance(v, str) else v for v in row) for row in rows]
        if table == "schema_meta":  # rows the target has already: replaced
            db.executemany(f"INSERT OR REPLACE INTO {table} ({', '.join(columns)}) VALUES "
                           f"({', '.join('?' * len(columns))})", fixed)
        else:  # by COPY: no statement planned and run a row
            db.copy(table, columns, fixed)

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

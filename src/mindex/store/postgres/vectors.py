"""Vectors on PostgreSQL: `halfvec` rows, an HNSW index per model, searched in the server
from `ANN_FROM` vectors on."""


from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any
from mindex.store.base import ANN_FROM as ANN_FROM  # re-exported: the store's threshold
from mindex.store.postgres.core import PgCore


# The HNSW search's candidate list (pgvector's default is 40): at a million vectors 64 found
# 68% of the exact top 10 in 5 ms, 400 found 92% in 10 ms (benchmarks/bench_vectors_1m.py).
EF_SEARCH = 400


class ServerVectors:
    """A model's vectors searched where they live: pgvector's HNSW index (cosine) answers the
    nearest chunks, with filters applied during the scan (iterative, so a narrow filter still
    fills the page). The same interface as the in-memory `VectorIndex`; approximate, so used
    only from `ANN_FROM` vectors, where loading every vector in every process stops paying."""

    def __init__(self, store: PgVectors, model: str) -> None:
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


class PgVectors(PgCore):
    """Vectors and their HNSW indexes on PostgreSQL."""

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

    def vector_count(self, model: str) -> int:
        """How many vectors a model has (empty ones not counted)."""
        return int(self.conn.execute("SELECT count(*) FROM vectors WHERE model = ? AND embedding IS NOT NULL",
                                     (model,)).fetchone()[0])

    def _vector_index(self, model: str, dim: int) -> None:
        if model in self._hnsw:
            return
        name = "vectors_hnsw_" + re.sub(r"\W", "_", model)[:40] + f"_{dim}"
        literal = model.replace("'", "''")
        with self.transaction() as db:
            db.execute(f'CREATE INDEX IF NOT EXISTS "{name}" ON vectors USING hnsw '
                       f"((embedding::halfvec({dim})) halfvec_cosine_ops) WHERE model = '{literal}'")
        self._hnsw.add(model)

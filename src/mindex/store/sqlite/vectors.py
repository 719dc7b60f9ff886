"""Stored vectors, keyed by model and chunk hash, and the contexts written for them."""


from __future__ import annotations

from collections.abc import Sequence
from mindex.store.sqlite.core import SQLiteCore
from mindex.store.sqlite.queries import NOT_PROSE, VECTOR_JOIN


class VectorTables(SQLiteCore):
    """Vectors by model and chunk hash."""

    def pending_embeddings(self, model: str) -> list[tuple[str, int]]:
        """(hash, text length) of every distinct chunk text with no vector for `model`."""
        return self.conn.execute(
            f"""SELECT c.hash, max(length(c.context) + length({self.CHUNK_TEXT})) FROM chunks c
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
        rows = self._select_in("SELECT hash, context, " + self.CHUNK_TEXT + " FROM chunks c WHERE hash IN ({})", (), hashes)
        return {digest: (context, text) for digest, context, text in rows}

    def code_hashes(self, hashes: Sequence[str]) -> set[str]:
        """Those of the chunk hashes that belong to code documents (not a code source's prose:
        a markdown heading or bullet would pass for a comment; not a notebook, whose markdown
        cells are comments in its text)."""
        rows = self._select_in(
            "SELECT c.hash FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.kind = 'code' "
            f"AND {NOT_PROSE} AND d.path NOT LIKE '%.ipynb' AND c.hash IN ({{}})", (), hashes)
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
        sql = f"SELECT c.seq, c.hash, v.vector FROM chunks c {VECTOR_JOIN}"
        if seqs is None:
            return self.conn.execute(sql + " ORDER BY c.seq", (model,)).fetchall()
        return sorted(self._select_in(sql + " WHERE c.seq IN ({})", (model,), seqs))

    def vector_keys(self, model: str) -> list[tuple[int, str]]:
        """(seq, hash) of the chunks that have a `model` vector: cheap, for incremental reloads
        (a seq can be reused by a new chunk, so the hash is part of the key)."""
        return self.conn.execute(
            f"SELECT c.seq, c.hash FROM chunks c {VECTOR_JOIN} ORDER BY c.seq",
            (model,),
        ).fetchall()

"""Exact nearest-neighbour search over one model's stored vectors (numpy, loaded on demand:
keyword-only commands never import it)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from mindex.errors import EmbeddingMismatchError
from mindex.store.base import Store


class VectorIndex:
    """One model's vectors as an in-memory float32 matrix: exact search with numpy.

    Loaded on first use. When the store changes (another process commits, or the owner calls
    `invalidate` after writing), only the difference is applied: rows of chunks that are gone
    are dropped and only new chunks' vectors are read, so a small edit costs a small reload.
    """

    def __init__(self, store: Store, model: str) -> None:
        self.store, self.model = store, model
        self.seqs: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        self.matrix: npt.NDArray[np.float32] = np.zeros((0, 0), dtype=np.float32)
        self.keys: list[tuple[int, str]] = []  # (seq, hash) of each row
        self._version: int | None = None

    def invalidate(self) -> None:
        """Mark the matrix stale (the next search applies what changed)."""
        self._version = None

    def _refresh(self) -> None:
        version = self.store.data_version()
        if version == self._version:
            return
        if not self.keys:
            self.keys, self.matrix = self._read(None)
        else:
            current = self.store.vector_keys(self.model)
            wanted = set(current)
            keep = np.fromiter((key in wanted for key in self.keys), dtype=bool, count=len(self.keys))
            have = set(self.keys)  # a key we hold but no longer want is not in `current`
            new = [seq for seq, digest in current if (seq, digest) not in have]
            added_keys, added = self._read(new) if new else ([], self.matrix[:0])
            self.keys = [key for key in self.keys if key in wanted] + added_keys
            self.matrix = np.concatenate([self.matrix[keep], added])
        self.seqs = np.fromiter((seq for seq, _ in self.keys), dtype=np.int64, count=len(self.keys))
        self._version = version

    def _read(self, seqs: list[int] | None) -> tuple[list[tuple[int, str]], npt.NDArray[np.float32]]:
        rows = self.store.vector_rows(self.model, seqs)
        keys = [(seq, digest) for seq, digest, _ in rows]
        if not rows:
            return keys, np.zeros((0, self.matrix.shape[1] if self.matrix.size else 0), dtype=np.float32)
        flat = np.frombuffer(b"".join(blob for _, _, blob in rows), dtype="<f2")
        return keys, flat.reshape(len(rows), -1).astype(np.float32)

    def vector(self, seq: int) -> npt.NDArray[np.float32] | None:
        """The stored vector of one chunk, if it has one."""
        self._refresh()
        where = np.flatnonzero(self.seqs == seq)
        return self.matrix[where[0]] if len(where) else None

    def __len__(self) -> int:
        self._refresh()
        return len(self.seqs)

    def search(
        self, query: npt.NDArray[np.float32], limit: int, allowed: list[int] | None = None
    ) -> list[tuple[int, float]]:
        """Top `limit` (chunk seq, cosine) pairs; `allowed` filters before the top-k."""
        self._refresh()
        return self.nearest(query, limit, allowed)

    def nearest(
        self, query: npt.NDArray[np.float32], limit: int, allowed: list[int] | None = None
    ) -> list[tuple[int, float]]:
        """`search` on the matrix as it is, without looking at the store: safe to run in
        another thread while this one uses the store's connection."""
        if not len(self.seqs):
            return []
        if query.shape[0] != self.matrix.shape[1]:
            raise EmbeddingMismatchError(
                f"the query vector has {query.shape[0]} dimensions but the index holds "
                f"{self.matrix.shape[1]}; re-embed with `mindex embed --force`, or set embed.model back"
            )
        scores = self.matrix @ query
        if allowed is not None:
            scores = np.where(np.isin(self.seqs, np.asarray(allowed, dtype=np.int64)), scores, -np.inf)
        limit = min(limit, len(scores))
        top = np.argpartition(-scores, limit - 1)[:limit]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(int(self.seqs[i]), float(scores[i])) for i in top if np.isfinite(scores[i])]

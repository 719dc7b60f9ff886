"""Nearest-neighbour search over one model's stored vectors (numpy, loaded on demand:
keyword-only commands never import it): exact, and from `ANN_FROM` vectors through an
inverted file (`Lists`) in a process that searches more than once."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from mindex.errors import EmbeddingMismatchError
from mindex.store.base import ANN_FROM, Store


class VectorIndex:
    """One model's vectors as an in-memory float32 matrix: exact search with numpy, through
    `Lists` from `ANN_FROM` vectors.

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
        self.lists: Lists | None = None  # from ANN_FROM vectors, made by the second search
        self._searches = 0

    def invalidate(self) -> None:
        """Mark the matrix stale (the next search applies what changed)."""
        self._version = None

    def _refresh(self) -> None:
        version = self.store.data_version()
        if version != self._version:
            self._apply_changes()
            self._version = version
        if self.lists is not None and self.lists.stale():
            self.lists = None  # a fifth of the rows came since the lists were made: made again
        if self.lists is None and self._searches > 1 and len(self.keys) >= ANN_FROM:
            order, self.lists = Lists.make(self.matrix)
            self.matrix, self.keys, self.seqs = self.matrix[order], [self.keys[i] for i in order], self.seqs[order]

    def _apply_changes(self) -> None:
        if not self.keys:
            self.keys, self.matrix = self._read(None)
            self.lists = None
        else:
            current = self.store.vector_keys(self.model)
            wanted = set(current)
            keep = np.fromiter((key in wanted for key in self.keys), dtype=bool, count=len(self.keys))
            have = set(self.keys)  # a key we hold but no longer want is not in `current`
            new = [seq for seq, digest in current if (seq, digest) not in have]
            added_keys, added = self._read(new) if new else ([], self.matrix[:0])
            self.keys = [key for key in self.keys if key in wanted] + added_keys
            self.matrix = np.concatenate([self.matrix[keep], added])
            if self.lists is not None:
                self.lists.changed(keep, len(added_keys))
        self.seqs = np.fromiter((seq for seq, _ in self.keys), dtype=np.int64, count=len(self.keys))

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
        """The number of vectors, brought up to date: the search legs call it before each
        search (in the thread that owns the store), so it also counts searches."""
        self._searches += 1
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
        if self.lists is not None and (allowed is None or len(allowed) * 8 > len(self.seqs)):
            spans = self.lists.spans(query)  # contiguous rows: scored in place, no copy
            rows = np.concatenate([np.arange(a, b) for a, b in spans])
            scores = np.concatenate([self.matrix[a:b] @ query for a, b in spans])
            if allowed is not None:
                inside = np.isin(self.seqs[rows], np.asarray(allowed, dtype=np.int64))
                rows, scores = rows[inside], scores[inside]
            if len(rows) >= limit:
                top = np.argpartition(-scores, limit - 1)[:limit]
                top = top[np.argsort(-scores[top], kind="stable")]
                return [(int(self.seqs[rows[i]]), float(scores[i])) for i in top]
        scores = self.matrix @ query
        if allowed is not None:
            scores = np.where(np.isin(self.seqs, np.asarray(allowed, dtype=np.int64)), scores, -np.inf)
        limit = min(limit, len(scores))
        top = np.argpartition(-scores, limit - 1)[:limit]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(int(self.seqs[i]), float(scores[i])) for i in top if np.isfinite(scores[i])]


class Lists:
    """An inverted file over a matrix of unit vectors: the rows split by their nearest of
    about √n centroids (spherical k-means on a sample), stored list after list, so a query
    scores the centroids, then only the rows of its `probe` nearest lists: about 5% of the
    rows (recall@10 against exact search in benchmarks/README, "Vectors at a million").
    Rows added later form one more list, always searched, until they are a fifth of all."""

    SAMPLE = 40  # sampled rows per centroid for training
    ROUNDS = 10

    def __init__(self, centroids: npt.NDArray[np.float32], ids: npt.NDArray[np.int32]) -> None:
        self.centroids, self.ids = centroids, ids  # ids: each row's list, ascending; len(centroids) = added
        self.probe = max(8, -(-len(centroids) // 16))

    @classmethod
    def make(cls, matrix: npt.NDArray[np.float32], seed: int = 0) -> tuple[npt.NDArray[np.int64], Lists]:
        """(the row order that stores the lists one after another, the lists)."""
        rng = np.random.default_rng(seed)
        count = max(1, round(len(matrix) ** 0.5))
        sample = matrix[np.sort(rng.choice(len(matrix), min(len(matrix), count * cls.SAMPLE), replace=False))]
        centroids = sample[rng.choice(len(sample), count, replace=False)].copy()
        for _ in range(cls.ROUNDS):
            owner = nearest_of(sample, centroids)
            order = np.argsort(owner, kind="stable")
            starts = np.searchsorted(owner[order], np.arange(count))
            present = np.unique(owner)
            sums = np.add.reduceat(sample[order], starts[present], axis=0)
            norms = np.linalg.norm(sums, axis=1, keepdims=True)
            centroids[present] = sums / np.maximum(norms, 1e-12)
        owner = nearest_of(matrix, centroids)
        order = np.argsort(owner, kind="stable")
        return order, cls(centroids, owner[order].astype(np.int32))

    def changed(self, keep: npt.NDArray[np.bool_], added: int) -> None:
        """Rows were dropped (`keep` False) and `added` appended, as `VectorIndex` does."""
        self.ids = np.concatenate([self.ids[keep], np.full(added, len(self.centroids), dtype=np.int32)])

    def stale(self) -> bool:
        return int(np.count_nonzero(self.ids == len(self.centroids))) * 5 > len(self.ids)

    def spans(self, query: npt.NDArray[np.float32]) -> list[tuple[int, int]]:
        """(first row, end) of the lists nearest to the query, and of the rows added since."""
        probe = min(self.probe, len(self.centroids))
        near = np.argpartition(-(self.centroids @ query), probe - 1)[:probe]
        bounds = np.searchsorted(self.ids, np.arange(len(self.centroids) + 2))
        return [(int(bounds[i]), int(bounds[i + 1])) for i in (*sorted(near.tolist()), len(self.centroids))]


def nearest_of(rows: npt.NDArray[np.float32], centroids: npt.NDArray[np.float32]) -> npt.NDArray[np.int64]:
    """Each row's nearest centroid by cosine, in blocks (a million rows at once would hold
    a million × √n scores)."""
    return np.concatenate([np.argmax(rows[i:i + 32_768] @ centroids.T, axis=1) for i in range(0, len(rows), 32_768)])

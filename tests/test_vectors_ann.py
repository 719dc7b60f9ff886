"""From `ANN_FROM` vectors, a process's second search builds an inverted file (`Lists`) and
searches only the lists nearest the query: results agree with exact search, follow rows added
and removed afterwards, and filters still hold."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import mindex.vectors
from mindex import Index
from mindex.vectors import Lists, VectorIndex

MODEL = "synthetic-384"


def _centres(rng: np.random.Generator, topics: int = 20) -> np.ndarray:
    """Topics with ten subtopics each: texts have a structure a flat random mixture lacks."""
    heads = rng.normal(size=(topics, 384))
    heads /= np.linalg.norm(heads, axis=1, keepdims=True)
    return np.repeat(heads, 10, axis=0) + rng.normal(0, 0.04, (topics * 10, 384))


def _vectors(rng: np.random.Generator, centres: np.ndarray, n: int) -> np.ndarray:
    picked = centres[rng.integers(0, len(centres), n)] + rng.normal(0, 0.03, (n, centres.shape[1]))
    return (picked / np.linalg.norm(picked, axis=1, keepdims=True)).astype(np.float32)


def _add_files(index: Index, folder: Path, names: range) -> None:
    folder.mkdir(exist_ok=True)
    for n in names:
        (folder / f"note{n:04d}.md").write_text(f"# Note {n}\n\nThe text of note number {n}.\n")
    index.index()


def _store_vectors(index: Index, rng: np.random.Generator, centres: np.ndarray) -> dict[int, np.ndarray]:
    """A vector for every chunk without one, saved through the store as the indexer does."""
    have = {digest for _, digest, _ in index.store.vector_rows(MODEL)}
    rows = [(seq, digest) for seq, digest in index.store.conn.execute("SELECT seq, hash FROM chunks")
            if digest not in have]
    made = _vectors(rng, centres, len(rows))
    index.store.save_vectors(MODEL, [(digest, vector.astype("<f2").tobytes()) for (_, digest), vector in zip(rows, made)])
    return {seq: vector for (seq, _), vector in zip(rows, made)}


def _exact(vectors: VectorIndex, query: np.ndarray, limit: int, allowed: list[int] | None = None) -> list[int]:
    lists, vectors.lists = vectors.lists, None
    try:
        return [seq for seq, _ in vectors.nearest(query, limit, allowed)]
    finally:
        vectors.lists = lists


def test_lists_agree_with_exact_search_and_follow_changes(index: Index, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mindex.vectors, "ANN_FROM", 1_000)
    rng = np.random.default_rng(7)
    centres = _centres(rng)
    (tmp_path / "notes").mkdir()
    index.add_source(tmp_path / "notes", name="notes", kind="docs")
    _add_files(index, tmp_path / "notes", range(1_200))
    stored = _store_vectors(index, rng, centres)
    vectors = VectorIndex(index.store, MODEL)
    queries = _vectors(rng, centres, 60)

    assert len(vectors) == len(stored) >= 1_200 and vectors.lists is None  # one search: exact only
    assert len(vectors) and vectors.lists is not None  # the second builds the lists
    assert len(vectors.lists.centroids) == round(len(stored) ** 0.5)
    recall = np.mean([len({s for s, _ in vectors.nearest(q, 10)} & set(_exact(vectors, q, 10))) / 10 for q in queries])
    assert recall >= 0.98  # searching only the nearest list would find about 0.93
    for seq in list(stored)[:5]:  # a stored vector finds itself first, through the lists
        assert vectors.nearest(stored[seq], 1)[0][0] == seq
    assert np.allclose(vectors.vector(next(iter(stored))), stored[next(iter(stored))], atol=1e-2)

    # Filters: a small allowed set is searched exactly; a large one through the lists.
    few = list(stored)[:30]
    assert [s for s, _ in vectors.nearest(queries[0], 5, few)] == _exact(vectors, queries[0], 5, few)
    many = list(stored)[::2]
    assert {s for s, _ in vectors.nearest(queries[0], 10, many)} <= set(many)

    # Rows added later are their own list, always searched; removed rows never come back.
    _add_files(index, tmp_path / "notes", range(1_200, 1_260))
    added = _store_vectors(index, rng, centres)
    for path in sorted((tmp_path / "notes").iterdir())[:100]:
        path.unlink()
    index.index()
    vectors.invalidate()  # this connection's own writes: the engine says so after it writes
    assert len(vectors) == len(stored) + len(added) - 100
    assert vectors.lists is not None and not vectors.lists.stale()
    gone = set(stored) - {seq for seq, _ in index.store.vector_keys(MODEL)}
    assert len(gone) == 100
    for seq, vector in list(added.items())[:5]:
        assert vectors.nearest(vector, 1)[0][0] == seq
    assert not {s for q in queries for s, _ in vectors.nearest(q, 10)} & gone

    # A fifth of the rows new since the lists were made: they are made again.
    _add_files(index, tmp_path / "notes", range(1_260, 1_600))
    _store_vectors(index, rng, centres)
    vectors.invalidate()
    before = vectors.lists
    assert len(vectors) and vectors.lists is not None and vectors.lists is not before and not vectors.lists.stale()


def test_below_the_threshold_search_stays_exact(index: Index, tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    centres = _centres(rng, 2)
    (tmp_path / "notes").mkdir()
    index.add_source(tmp_path / "notes", name="notes", kind="docs")
    _add_files(index, tmp_path / "notes", range(50))
    _store_vectors(index, rng, centres)
    vectors = VectorIndex(index.store, MODEL)
    for _ in range(3):
        assert len(vectors) == 50
    assert vectors.lists is None


def test_the_lists_partition_every_row_in_order() -> None:
    rng = np.random.default_rng(11)
    matrix = _vectors(rng, _centres(rng, 5), 3_000)
    order, lists = Lists.make(matrix)
    assert sorted(order.tolist()) == list(range(3_000))
    assert np.all(np.diff(lists.ids) >= 0) and lists.ids.max() < len(lists.centroids) == 55
    spans = lists.spans(matrix[0])
    assert spans[-1][0] == spans[-1][1] == 3_000  # no rows added yet: the last list is empty
    assert all(a <= b for a, b in spans) and len(spans) == lists.probe + 1

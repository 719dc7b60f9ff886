"""Query-time logic: any user string becomes a safe FTS5 query; results become hits.

Every word is quoted before it reaches FTS5, so quotes, operators, `C++`, `foo.bar()` and
unicode never raise a syntax error. A run of word pieces glued by punctuation (`foo.bar`)
becomes a phrase; `"quoted text"` stays a phrase; a trailing `*` asks for a prefix.
All terms must match first (precise); if that finds too few, any-term matches fill up.
"""

from __future__ import annotations

import re
import time
from dataclasses import replace
from typing import Any

import numpy as np
import numpy.typing as npt

from mindex.embed.base import Embedder
from mindex.errors import EmbeddingMismatchError
from mindex.models import Hit, SearchResult
from mindex.store.base import SNIPPET_CLOSE, SNIPPET_OPEN, Store

_PHRASE = re.compile(r'"([^"]*)"')
_WORD = re.compile(r"\w+", re.UNICODE)
STOPWORDS = frozenset(
    """a an and are as at be but by can do does for from how i if in into is it its me my
    of on or so that the their then there these this to was what when where which who why
    will with you your we our should would could""".split()
)


def _term(text: str, prefix: bool = False) -> str | None:
    pieces = _WORD.findall(text)
    if not pieces:
        return None
    phrase = '"' + " ".join(pieces) + '"'
    return phrase + "*" if prefix and len(pieces) == 1 else phrase


def query_terms(query: str) -> list[str]:
    """Split a user query into quoted FTS5 terms, dropping stopwords when others remain."""
    terms: list[tuple[str, bool]] = []  # (term, is_stopword)
    for match in _PHRASE.finditer(query):
        term = _term(match.group(1))
        if term:
            terms.append((term, False))
    rest = _PHRASE.sub(" ", query).replace('"', " ")
    for word in rest.split():
        term = _term(word, prefix=word.endswith("*"))
        if term:
            terms.append((term, term.strip('"*').lower() in STOPWORDS))
    content = [t for t, stop in terms if not stop]
    chosen = content or [t for t, _ in terms]
    return list(dict.fromkeys(chosen))


def _mark(snippet: str) -> str:
    return snippet.replace(SNIPPET_OPEN, "**").replace(SNIPPET_CLOSE, "**")


def lexical_search(
    store: Store,
    query: str,
    limit: int = 10,
    offset: int = 0,
    source: str | None = None,
    kind: str | None = None,
    path: str | None = None,
) -> SearchResult:
    """BM25 keyword search: all-terms matches first, then any-term matches."""
    started = time.perf_counter()
    terms = query_terms(query)
    if not terms:
        return SearchResult(query, "keyword", 0.0, (), note="the query has no searchable words")
    wanted = offset + limit
    filters = {"source": source, "kind": kind, "path": path}
    hits: list[Hit] = store.keyword_search(" AND ".join(terms), wanted, 0, **filters)
    if len(hits) < wanted and len(terms) > 1:
        seen = {hit.id for hit in hits}
        extra = store.keyword_search(" OR ".join(terms), wanted, 0, **filters)
        hits.extend(hit for hit in extra if hit.id not in seen)
    page = tuple(replace(hit, snippet=_mark(hit.snippet)) for hit in hits[offset:wanted])
    took = (time.perf_counter() - started) * 1000
    return SearchResult(query, "keyword", took, page)


class VectorIndex:
    """One model's vectors as an in-memory float32 matrix: exact search with numpy.

    Loaded on first use; reloaded when another process commits (SQLite's data_version) or
    when the owner calls `invalidate` after writing itself.
    """

    def __init__(self, store: Store, model: str) -> None:
        self.store, self.model = store, model
        self.seqs: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        self.matrix: npt.NDArray[np.float32] = np.zeros((0, 0), dtype=np.float32)
        self._version: int | None = None

    def invalidate(self) -> None:
        """Forget the cached matrix (the next search reloads it)."""
        self._version = None

    def _refresh(self) -> None:
        version = self.store.data_version()
        if version == self._version:
            return
        rows = self.store.vector_rows(self.model)
        self.seqs = np.fromiter((seq for seq, _ in rows), dtype=np.int64, count=len(rows))
        if rows:
            flat = np.frombuffer(b"".join(blob for _, blob in rows), dtype="<f2")
            self.matrix = flat.reshape(len(rows), -1).astype(np.float32)
        else:
            self.matrix = np.zeros((0, 0), dtype=np.float32)
        self._version = version

    def __len__(self) -> int:
        self._refresh()
        return len(self.seqs)

    def search(
        self, query: npt.NDArray[np.float32], limit: int, allowed: list[int] | None = None
    ) -> list[tuple[int, float]]:
        """Top `limit` (chunk seq, cosine) pairs; `allowed` filters before the top-k."""
        self._refresh()
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


def semantic_hits(
    store: Store, vectors: VectorIndex, embedder: Embedder, query: str, wanted: int,
    source: str | None = None, kind: str | None = None, path: str | None = None,
) -> list[Hit]:
    """Nearest chunks to the query by cosine similarity, filters applied before top-k."""
    allowed = store.filtered_seqs(source, kind, path) if (source or kind or path) else None
    ranked = vectors.search(embedder.embed_query(query), wanted, allowed)
    found = store.hits_by_seq([seq for seq, _ in ranked])
    return [
        replace(found[seq], score=score, snippet=" ".join(found[seq].text.split())[:240])
        for seq, score in ranked if seq in found
    ]


def fuse(legs: dict[str, list[Hit]], weights: dict[str, float], k: int = 60) -> list[Hit]:
    """Reciprocal rank fusion: sum of weight/(k + rank) over legs, deduplicated by chunk.

    Each fused hit keeps the first leg's copy (the keyword one has a highlighted snippet) and
    an `explain` with every leg's rank and score and the fused score.
    """
    fused: dict[str, float] = {}
    first: dict[str, Hit] = {}
    explain: dict[str, dict[str, Any]] = {}
    for leg, hits in legs.items():
        for rank, hit in enumerate(hits, 1):
            fused[hit.id] = fused.get(hit.id, 0.0) + weights.get(leg, 1.0) / (k + rank)
            first.setdefault(hit.id, hit)
            explain.setdefault(hit.id, {})[leg] = {"rank": rank, "score": round(hit.score, 6)}
    order = sorted(fused, key=lambda cid: -fused[cid])
    return [
        replace(first[cid], score=fused[cid], explain={**explain[cid], "fused": round(fused[cid], 6)})
        for cid in order
    ]


def hybrid_search(
    store: Store, vectors: VectorIndex, embedder: Embedder, query: str, limit: int = 10,
    offset: int = 0, source: str | None = None, kind: str | None = None, path: str | None = None,
    weights: dict[str, float] | None = None, k: int = 60,
) -> SearchResult:
    """Keyword and vector legs, each deep enough to fill the page, fused with RRF."""
    started = time.perf_counter()
    depth = max(50, 3 * (offset + limit))
    keyword = lexical_search(store, query, depth, 0, source, kind, path).hits
    semantic = semantic_hits(store, vectors, embedder, query, depth, source, kind, path)
    hits = fuse({"keyword": list(keyword), "semantic": semantic}, weights or {}, k)
    took = (time.perf_counter() - started) * 1000
    return SearchResult(query, "hybrid", took, tuple(hits[offset : offset + limit]))


def semantic_search(
    store: Store, vectors: VectorIndex, embedder: Embedder, query: str, limit: int = 10,
    offset: int = 0, source: str | None = None, kind: str | None = None, path: str | None = None,
) -> SearchResult:
    """Vector-only search."""
    started = time.perf_counter()
    hits = semantic_hits(store, vectors, embedder, query, offset + limit, source, kind, path)
    took = (time.perf_counter() - started) * 1000
    return SearchResult(query, "semantic", took, tuple(hits[offset:]))

"""How memory search ranks beyond the engine: a restated decision above the older ones it
replaces, and a relevance floor."""


from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from mindex.models import Hit, SearchResult

if TYPE_CHECKING:
    pass


SUPERSEDE_DEPTH = 30  # candidates a memory search weighs for restated decisions


def supersede(hits: list[Hit], vectors: dict[int, Any], types: set[str], similarity: float) -> list[Hit]:
    """Newer entries above the older ones they restate: when two candidates are both of a
    type in `types` (a decision), their stored vectors are at least `similarity` alike, and
    the newer one ranks below the older, the newer moves up to just above it (with the older
    one's score) and says so in `explain.supersedes`. Repeated until no such pair is left, so
    of a setting changed three times the newest comes first, then the one before it.

    Recency decay alone cannot do this without ranking by age: over a year of entries the
    questions are about any time (benchmarks/README.md, the 12-month and superseding sets).
    Without vectors (keyword-only) the list is unchanged."""
    order = list(hits)
    chosen = {h.id for h in order
              if h.seq in vectors and (h.facets or {}).get("type") in types and h.modified is not None}
    if len(chosen) < 2:
        return order

    import numpy as np

    ids = [h.id for h in order if h.id in chosen]
    seq = {h.id: h.seq for h in order}
    matrix = np.stack([np.asarray(vectors[seq[i]], dtype=np.float32) for i in ids])  # type: ignore[index]
    alike = {(a, b) for x, y in zip(*np.nonzero(matrix @ matrix.T >= similarity), strict=True)
             for a, b in [(ids[x], ids[y])] if a != b}

    def restates(newer: Hit, older: Hit) -> bool:
        return (newer.id, older.id) in alike and newer.modified > older.modified  # type: ignore[operator]

    for _ in range(len(chosen) ** 2):
        move = next(((i, j) for i, older in enumerate(order) if older.id in chosen
                     for j in range(i + 1, len(order)) if restates(order[j], older)), None)
        if move is None:
            break
        i, j = move
        older, newer = order[i], order.pop(j)
        said = {**(newer.explain or {}),
                "supersedes": [*(newer.explain or {}).get("supersedes", []), (older.facets or {}).get("id", older.id)]}
        order.insert(i, newer.but(score=max(newer.score, older.score), explain=said))
    return order


def relevant_only(result: SearchResult, floor: float, kind: str) -> SearchResult:
    """A hybrid search's hits with some evidence of relevance: a keyword match, or a meaning
    close enough (cosine at least `floor`). The meaning leg always returns its nearest
    entries, however far: "jitter" over a journal that never mentions it listed every entry,
    the best at -0.39, and every search ended with such entries after the real ones. Keyword
    search needs no floor (it finds only entries with the words), and `mode="semantic"` asks
    for the nearest by meaning, as they are. When nothing is left, the note says so."""
    def relevant(hit: Hit) -> bool:
        legs = hit.explain or {}
        return "keyword" in legs or legs.get("semantic", {}).get("score", -1.0) >= floor

    if result.mode != "hybrid":
        return result

    kept = tuple(hit for hit in result.hits if relevant(hit))
    if len(kept) == len(result.hits):
        return result
    note = result.note
    if not kept:
        said = (f"nothing relevant in {kind}: no entry holds the query's words, and none is close enough in "
                f"meaning (memory.min_similarity = {floor:g})")
        note = "; ".join(filter(None, (note, said)))
    return replace(result, hits=kept, note=note)

"""The reranker contract, and how search applies one: never allowed to lose the results.

A reranker scores (query, passage) pairs; only `score` is abstract. `apply_rerank` takes the
top candidates of the fused list, runs the reranker under a time cap, checks every index it
returns, and on any failure keeps the fused order and says why in each hit's `explain`.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, ClassVar

from mindex.errors import MindexError
from mindex.models import Hit


class Reranker(ABC):
    """Scores passages against a query; higher is more relevant."""

    provider: ClassVar[str]
    model_id: str = ""

    @abstractmethod
    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        """One score per passage, in passage order."""

    def close(self) -> None:
        """Release connections; the default holds none."""


def passage(hit: Hit) -> str:
    """What a reranker reads for a hit: its context line, then its text."""
    return f"{hit.context}\n{hit.text}" if hit.context else hit.text


def apply_rerank(
    hits: list[Hit], query: str, reranker: Reranker, candidates: int = 30, timeout: float = 5.0
) -> tuple[list[Hit], str | None]:
    """Reorder the top `candidates` hits by the reranker; the rest keep their place after them.

    Returns the hits and, when the reranker failed, the reason (the fused order is kept).
    """
    head, tail = hits[:candidates], hits[candidates:]
    if not head:
        return hits, None
    started = time.perf_counter()
    pool = ThreadPoolExecutor(1)
    future = pool.submit(reranker.score, query, [passage(h) for h in head])
    try:
        scores = future.result(timeout=timeout)
        _check(scores, len(head))
    except FutureTimeout:
        return _fallback(hits, f"reranker took longer than {timeout:g} s (search.rerank.timeout)"), \
            f"rerank skipped: over {timeout:g} s"
    except (MindexError, ValueError, TypeError, LookupError) as exc:  # a reply is untrusted input
        return _fallback(hits, str(exc)), f"rerank skipped: {exc}"
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    took = round((time.perf_counter() - started) * 1000, 1)
    order = sorted(range(len(head)), key=lambda i: -scores[i])
    ranked = [
        head[i].but(score=float(scores[i]), explain={
            **(head[i].explain or {}), "rerank": {"rank": rank, "score": round(float(scores[i]), 6),
                                                  "before": i + 1, "model": reranker.model_id, "ms": took}})
        for rank, i in enumerate(order, 1)
    ]
    return ranked + tail, None


def rerank_hop(hits: list[Hit], query: str, reranker: Reranker, timeout: float) -> tuple[list[Hit], str | None]:
    """After a multi-hop step: score the hits the hop brought in (or moved up) with the
    reranker too, so they compete with the reranked candidates on the reranker's scale
    (a hop's own score is its seed's times a similarity). Reranked hits first, by score,
    then the rest in their order. On any failure the list is kept as it was, with the reason."""
    def reranked(hit: Hit) -> bool:
        return "score" in ((hit.explain or {}).get("rerank") or {})

    brought = [h for h in hits if "hop" in (h.explain or {}) and not reranked(h)]
    if not brought or timeout <= 0:
        return hits, None if not brought else "rerank of multi-hop results skipped: the time cap was spent"
    scored, why = apply_rerank(brought, query, reranker, len(brought), timeout)
    if why:
        return hits, why.replace("rerank skipped", "rerank of multi-hop results skipped")
    ids = {h.id for h in brought}
    head = sorted([h for h in hits if reranked(h) and h.id not in ids] + scored, key=lambda h: -h.score)
    return head + [h for h in hits if not reranked(h) and h.id not in ids], None


def _check(scores: Any, expected: int) -> None:
    if not isinstance(scores, list) or len(scores) != expected:
        raise ValueError(f"reranker returned {len(scores) if isinstance(scores, list) else 'no'} scores for {expected} passages")
    for value in scores:
        if not isinstance(value, (int, float)) or value != value:  # NaN is not equal to itself
            raise ValueError(f"reranker returned a score that is not a number: {value!r}")


def _fallback(hits: list[Hit], reason: str) -> list[Hit]:
    return [h.but(explain={**(h.explain or {}), "rerank": {"skipped": reason}}) for h in hits]


def scores_from_indexed(items: Sequence[Any], count: int, index_key: str, score_key: str) -> list[float]:
    """Turn `[{"index": i, "score": s}, ...]` (any order, maybe partial) into per-passage scores.

    Raises:
        ValueError: an index out of range or repeated; passages left out score lowest.
    """
    scores = [float("-inf")] * count
    seen: set[int] = set()
    for item in items:
        try:
            i, score = int(item[index_key]), float(item[score_key])
        except (KeyError, TypeError, ValueError):
            raise ValueError(f"reranker answered an entry without a numeric {index_key} and {score_key}") from None
        if not 0 <= i < count or i in seen:
            raise ValueError(f"reranker returned index {i} for {count} passages")
        seen.add(i)
        scores[i] = score
    floor = min((s for s in scores if s != float("-inf")), default=0.0) - 1.0
    return [s if s != float("-inf") else floor for s in scores]

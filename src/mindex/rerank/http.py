"""HTTP rerankers: Cohere's format (Cohere, Jina, vLLM, LocalAI...), TEI's, and Voyage's.

`format = "auto"` sends Cohere's shape first; a server that rejects it with 4xx is asked in
TEI's shape, and whichever worked is remembered for the life of the object. Passages go in
batches of `search.rerank.batch_size` (the provider's default when unset: TEI servers take 32
by default); a server that answers 413 (too many, too large) is asked again once with half
as many a request, and the batches' scores are merged in passage order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from mindex.errors import ConfigError, RemoteError
from mindex.fetch.http import RetryPolicy, answer_list, bearer, new_client, post_json
from mindex.rerank.base import Reranker, scores_from_indexed


class HttpReranker(Reranker):
    """A `POST {base_url}/rerank` service in Cohere or TEI format (auto-detected)."""

    provider: ClassVar[str] = "http"
    default_url: ClassVar[str | None] = None
    default_model: ClassVar[str] = ""
    fixed_format: ClassVar[str | None] = None  # a hosted API speaks one format only
    needs_key: ClassVar[bool] = False
    default_batch: ClassVar[int] = 32  # TEI's own default --max-client-batch-size

    def __init__(self, model: str = "", base_url: str | None = None, api_key: str | None = None,
                 format: str = "auto", policy: RetryPolicy | None = None, batch_size: int | None = None) -> None:
        url = base_url or self.default_url
        if not url:
            raise ConfigError(f"search.rerank.base_url is needed for the {self.provider} reranker")
        if self.needs_key and not api_key:
            raise ConfigError(f"the {self.provider} reranker needs a key: set search.rerank.api_key_env")
        self.model_id, self.base_url, self._key = model or self.default_model, url.rstrip("/"), api_key
        self.format = self.fixed_format or format
        self.policy = policy or RetryPolicy(timeout=5.0, retries=1, backoff=0.2)
        self.batch_size = max(1, batch_size or self.default_batch)
        self._client = new_client()

    def close(self) -> None:
        self._client.close()

    def _post(self, payload: dict[str, Any]) -> Any:
        return post_json(self._client, self.base_url + "/rerank", payload, bearer(self._key), self.policy,
                         f"{self.provider} reranker")

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        """Scores in passage order, asked `batch_size` passages a request."""
        scores: list[float] = []
        size, halved = self.batch_size, False
        while len(scores) < len(passages):
            batch = passages[len(scores): len(scores) + size]
            try:
                scores += self.score_batch(query, batch)
            except RemoteError as exc:
                if "HTTP 413" not in str(exc) or halved or len(batch) < 2:
                    raise
                size, halved = len(batch) // 2, True  # too many at once for this server: half, once
        return scores

    def score_batch(self, query: str, passages: Sequence[str]) -> list[float]:
        """One request's scores."""
        if self.format in ("auto", "cohere"):
            try:
                body = self._post({"model": self.model_id, "query": query, "documents": list(passages),
                                   "top_n": len(passages)})
                self.format = "cohere"
                results = answer_list(body, "results", f"{self.provider} reranker")
                return scores_from_indexed(results, len(passages), "index", "relevance_score")
            except RemoteError as exc:
                if self.format == "cohere" or "refused" not in str(exc) or "HTTP 413" in str(exc):
                    raise
                self.format = "tei"  # a 4xx to Cohere's shape: try TEI's
        body = self._post({"query": query, "texts": list(passages), "raw_scores": False, "truncate": True})
        if isinstance(body, dict) and "results" in body:  # TEI's array wrapped by a proxy
            body = body["results"]
        return scores_from_indexed(answer_list(body, None, f"{self.provider} reranker"), len(passages), "index", "score")


class CohereReranker(HttpReranker):
    """Cohere's hosted rerank API (v2)."""

    provider = "cohere"
    default_url = "https://api.cohere.com/v2"
    default_model = "rerank-v3.5"
    fixed_format = "cohere"
    needs_key = True
    default_batch = 1000  # the API's limit of documents a request


class VoyageReranker(HttpReranker):
    """Voyage AI's rerank API: `documents` in, `data[].relevance_score` out."""

    provider = "voyage"
    default_url = "https://api.voyageai.com/v1"
    default_model = "rerank-2.5"
    fixed_format = "voyage"
    needs_key = True
    default_batch = 1000  # the API's limit of documents a request

    def score_batch(self, query: str, passages: Sequence[str]) -> list[float]:
        body = self._post({"model": self.model_id, "query": query, "documents": list(passages),
                           "truncation": True})
        data = answer_list(body, "data", f"{self.provider} reranker")
        return scores_from_indexed(data, len(passages), "index", "relevance_score")

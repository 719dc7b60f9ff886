"""What every HTTP embedder shares: batching, bounded concurrency, retries, budget, keys.

A provider file only says how to phrase a request and where the vectors are in the answer.
The budget counts document batches of the current run (queries are not counted), so a run
that hits it stops between batches and the next run resumes from there.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ClassVar

import numpy as np

from mindex.config import EmbedSettings
from mindex.embed.base import Embedder, Vectors, normalise
from mindex.errors import ConfigError, RemoteError
from mindex.fetch.http import Budget, RetryPolicy, bearer, estimate_tokens, new_client, post_json


class RemoteEmbedder(Embedder):
    """An embedder behind an HTTP API; subclasses fill in `request` and `vectors`."""

    default_url: ClassVar[str]
    default_batch: ClassVar[int] = 64
    needs_key: ClassVar[bool] = False

    def __init__(
        self, model: str, base_url: str | None = None, api_key: str | None = None,
        dimensions: int | None = None, batch_size: int | None = None, concurrency: int = 2,
        policy: RetryPolicy | None = None, budget: Budget | None = None,
    ) -> None:
        self.model_id = model
        self.base_url = (base_url or self.default_url).rstrip("/")
        self._key = api_key
        self.dimensions = dimensions or 0  # 0: learnt from the first answer
        self.requested_dimensions = dimensions
        self.batch_size = batch_size or self.default_batch
        self.concurrency = max(1, concurrency)
        # One round of concurrent requests per commit, so a budget stop loses no finished work.
        self.commit_every = self.batch_size * self.concurrency
        self.policy = policy or RetryPolicy()
        self.budget = budget or Budget()
        self._client = new_client()
        if self.needs_key and not api_key and self.base_url == self.default_url.rstrip("/"):
            raise ConfigError(
                f"{self.provider} needs an API key: set embed.api_key or the variable named by "
                "embed.api_key_env (default OPENAI_API_KEY or VOYAGE_API_KEY)"
            )

    @classmethod
    def from_settings(cls, conf: EmbedSettings) -> RemoteEmbedder:
        """Build the embedder from `[embed]` settings."""
        embedder = cls(
            conf.model, conf.base_url, conf.api_key.get_secret_value() if conf.api_key else None,
            conf.dimensions, conf.batch_size, conf.concurrency,
            RetryPolicy(conf.timeout, conf.retries, conf.backoff),
            Budget(conf.max_requests, conf.max_tokens, "embed"),
        )
        embedder.query_prefix = conf.query_prefix or ""
        embedder.document_prefix = conf.document_prefix or ""
        return embedder

    def close(self) -> None:
        self._client.close()

    def __repr__(self) -> str:  # never show the key
        return f"{type(self).__name__}(model={self.model_id!r}, base_url={self.base_url!r})"

    @abstractmethod
    def request(self, texts: list[str], role: str | None) -> tuple[str, dict[str, Any]]:
        """The URL path and JSON body that embed `texts` (`role`: document, query or None)."""

    @abstractmethod
    def vectors(self, body: Any) -> list[list[float]]:
        """The vectors in an answer, in input order."""

    def headers(self) -> dict[str, str]:
        """Request headers; the default sends the key as a bearer token."""
        return bearer(self._key)

    def embed_batch(self, texts: Sequence[str]) -> Vectors:
        return self._embed(list(texts), None)

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        return self._embed([self.document_prefix + text for text in texts], "document")

    def embed_query(self, text: str) -> Vectors:
        first: Vectors = self._embed([self.query_prefix + text], "query")[0]
        return first

    def _embed(self, texts: list[str], role: str | None) -> Vectors:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        batches = [texts[i : i + self.batch_size] for i in range(0, len(texts), self.batch_size)]
        if role == "document":  # all or nothing, up front: a run stops between batches, never midway
            self.budget.spend_all([estimate_tokens(batch) for batch in batches])
        if len(batches) == 1 or self.concurrency == 1:
            parts = [self._call(batch, role) for batch in batches]
        else:
            with ThreadPoolExecutor(min(self.concurrency, len(batches))) as pool:
                parts = list(pool.map(lambda batch: self._call(batch, role), batches))
        return np.concatenate(parts)

    def _call(self, texts: list[str], role: str | None) -> Vectors:
        path, payload = self.request(texts, role)
        what = f"{self.provider} embeddings"
        body = post_json(self._client, self.base_url + path, payload, self.headers(), self.policy, what)
        try:
            rows = self.vectors(body)
            matrix = np.asarray(rows, dtype=np.float32)
        except (KeyError, IndexError, TypeError, ValueError, AttributeError):
            raise RemoteError(f"{what} at {self.base_url} answered in an unexpected shape") from None
        if matrix.ndim != 2 or len(matrix) != len(texts):
            raise RemoteError(
                f"{what} at {self.base_url} returned {len(matrix)} vectors for {len(texts)} texts"
            )
        if not np.isfinite(matrix).all():
            raise RemoteError(f"{what} at {self.base_url} returned vectors holding NaN or infinity; "
                              "check the server's model (nothing was stored)")
        if not self.dimensions:
            self.dimensions = matrix.shape[1]
        elif matrix.shape[1] != self.dimensions:
            raise RemoteError(
                f"{what} returned {matrix.shape[1]} dimensions, expected {self.dimensions}; "
                "check embed.model and embed.dimensions"
            )
        return normalise(matrix)


"""Rerankers: a registry of provider names (`mindex.registry.Registry`), the built-ins and
the `mindex.rerankers` entry-point group (third parties register
`name = "package.module:Class"`); a provider's module is imported when it is built (the
local one loads ONNX Runtime).
"""

from __future__ import annotations

from pathlib import Path

from mindex.config import RerankSettings
from mindex.errors import ConfigError
from mindex.fetch.http import RetryPolicy
from mindex.rerank.base import Reranker, apply_rerank
from mindex.registry import Registry

RERANKERS = Registry("mindex.rerankers", {
    "local": "mindex.rerank.local:LocalReranker",
    "http": "mindex.rerank.http:HttpReranker",
    "tei": "mindex.rerank.http:HttpReranker",
    "cohere": "mindex.rerank.http:CohereReranker",
    "voyage": "mindex.rerank.http:VoyageReranker",
    "llm": "mindex.rerank.llm:LlmReranker",
})


def reranker_class(name: str) -> type[Reranker]:
    """The class registered under `name`."""
    cls: type[Reranker] = RERANKERS.load(name)
    return cls


def build_reranker(conf: RerankSettings, models_dir: Path | None) -> Reranker:
    """A reranker from `[search.rerank]` settings.

    Raises:
        ConfigError: unknown provider, or settings the provider needs are missing.
    """
    if conf.provider not in RERANKERS:
        raise ConfigError(
            f"unknown search.rerank.provider {conf.provider!r}; choose one of: {', '.join(RERANKERS)}, none"
        )
    cls: type = reranker_class(conf.provider)
    key = conf.api_key.get_secret_value() if conf.api_key else None
    # One retry at most: a reranker that is slow or down must not hold a query for long.
    policy = RetryPolicy(timeout=conf.timeout, retries=1, backoff=0.2)
    if conf.provider == "local":
        reranker: Reranker = cls(conf.model, models_dir, conf.batch_size or 16)
    elif conf.provider == "llm":
        reranker = cls(conf.model, conf.base_url, key, policy)
    else:
        fmt = "tei" if conf.provider == "tei" else "auto"
        reranker = cls(conf.model, conf.base_url, key, fmt, policy,  # empty model: the API's default
                       batch_size=conf.batch_size)
    return reranker


__all__ = ["RERANKERS", "Reranker", "apply_rerank", "build_reranker", "reranker_class"]

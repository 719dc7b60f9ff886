"""The embedder contract: a name, a model id, dimensions, and texts in, unit vectors out.

Only `embed_batch` is abstract. Query/document instructions (e5, bge, nomic prefixes) are
per-model settings applied by the helpers, not methods each provider must write.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import ClassVar

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]


class Embedder(ABC):
    """Turns texts into L2-normalised float32 vectors of `dimensions` values."""

    provider: ClassVar[str]
    model_id: str
    dimensions: int
    query_prefix: str = ""
    document_prefix: str = ""
    # Texts embedded between two commits of the embedding pass (a killed run loses at most these).
    commit_every: int = 256

    @abstractmethod
    def embed_batch(self, texts: Sequence[str]) -> Vectors:
        """Embed texts as given; returns an array of shape (len(texts), dimensions)."""

    @property
    def identity(self) -> str:
        """What a stored vector is pinned to: provider and model."""
        return f"{self.provider}:{self.model_id}"

    def close(self) -> None:
        """Release what the embedder holds (connections); the default holds nothing."""

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        """Embed texts to be searched, with the model's document instruction."""
        vectors: Vectors = self.embed_batch([self.document_prefix + text for text in texts])
        return vectors

    def embed_query(self, text: str) -> Vectors:
        """Embed one query, with the model's query instruction; returns one vector."""
        vectors: Vectors = self.embed_batch([self.query_prefix + text])
        first: Vectors = vectors[0]
        return first


def normalise(vectors: Vectors) -> Vectors:
    """Scale rows to unit length (zero rows stay zero)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    scaled: Vectors = (vectors / np.maximum(norms, 1e-12)).astype(np.float32)
    return scaled

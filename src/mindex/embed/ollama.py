"""Ollama's native embedding route, `POST /api/embed` (batched `input`)."""

from __future__ import annotations

from typing import Any

from mindex.embed.remote import RemoteEmbedder
from mindex.fetch.http import answer_list


class OllamaEmbedder(RemoteEmbedder):
    """Embeddings from a local or remote Ollama server."""

    provider = "ollama"
    default_url = "http://127.0.0.1:11434"
    default_batch = 32

    def request(self, texts: list[str], role: str | None) -> tuple[str, dict[str, Any]]:
        body: dict[str, Any] = {"model": self.model_id, "input": texts, "truncate": True}
        if self.requested_dimensions:
            body["dimensions"] = self.requested_dimensions
        return "/api/embed", body

    def vectors(self, body: Any) -> list[list[float]]:
        rows: list[list[float]] = answer_list(body, "embeddings", "ollama embeddings")
        return rows

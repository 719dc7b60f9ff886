"""Voyage AI embeddings, `POST /v1/embeddings`, with its query/document `input_type`."""

from __future__ import annotations

from typing import Any

from mindex.embed.openai_compat import OpenAIEmbedder


class VoyageEmbedder(OpenAIEmbedder):
    """Embeddings from Voyage AI (the key comes from VOYAGE_API_KEY or embed.api_key)."""

    provider = "voyage"
    default_url = "https://api.voyageai.com/v1"
    default_batch = 128
    needs_key = True

    def request(self, texts: list[str], role: str | None) -> tuple[str, dict[str, Any]]:
        body: dict[str, Any] = {"model": self.model_id, "input": texts, "truncation": True}
        if role:
            body["input_type"] = role  # Voyage prepends its own instruction per role
        if self.requested_dimensions:
            body["output_dimension"] = self.requested_dimensions
        return "/embeddings", body  # the answer has OpenAI's shape: `vectors` is inherited

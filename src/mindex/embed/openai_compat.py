"""Any OpenAI-compatible `POST {base_url}/embeddings`: OpenAI, vLLM, LM Studio, TEI, Ollama's
OpenAI route. `base_url` includes the version prefix (`http://host:8000/v1`)."""

from __future__ import annotations

from typing import Any

from mindex.embed.remote import RemoteEmbedder
from mindex.fetch.http import answer_list


class OpenAIEmbedder(RemoteEmbedder):
    """Embeddings from an OpenAI-compatible server; the key is needed only for api.openai.com."""

    provider = "openai"
    default_url = "https://api.openai.com/v1"
    default_batch = 128
    needs_key = True

    def request(self, texts: list[str], role: str | None) -> tuple[str, dict[str, Any]]:
        body: dict[str, Any] = {"model": self.model_id, "input": texts, "encoding_format": "float"}
        if self.requested_dimensions:
            body["dimensions"] = self.requested_dimensions
        return "/embeddings", body

    def vectors(self, body: Any) -> list[list[float]]:
        # The spec returns `data` with an `index` each; some servers reorder, so sort.
        data = sorted(answer_list(body, "data", f"{self.provider} embeddings"), key=lambda item: item["index"])
        return [item["embedding"] for item in data]

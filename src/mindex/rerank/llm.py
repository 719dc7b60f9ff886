"""An LLM as judge, through any OpenAI-compatible chat endpoint (`POST /chat/completions`).

The model reads numbered passages and answers with one 0-10 relevance score per passage as
JSON. The answer is parsed leniently (a JSON object or list anywhere in the text); a missing
or malformed answer is an error, and search keeps the fused order.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from mindex.errors import ConfigError
from mindex.fetch.http import RetryPolicy, chat_completion, new_client
from mindex.rerank.base import Reranker

PROMPT = (
    "You rank search results for a developer. For each numbered passage, rate how well it "
    "answers the query from 0 (useless) to 10 (answers it directly). Reply with JSON only: "
    '{"scores": [s1, s2, ...]}, one number per passage, in order.'
)
MAX_PASSAGE_CHARS = 1200


class LlmReranker(Reranker):
    """Relevance judged by a chat model."""

    provider = "llm"

    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None,
                 policy: RetryPolicy | None = None) -> None:
        if not base_url:
            raise ConfigError("the llm reranker needs search.rerank.base_url (an OpenAI-compatible /v1 URL)")
        self.model_id, self.base_url, self._key = model, base_url.rstrip("/"), api_key
        self.policy = policy or RetryPolicy(timeout=5.0, retries=1, backoff=0.2)
        self._client = new_client()

    def close(self) -> None:
        self._client.close()

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        numbered = "\n\n".join(f"[{i}] {p[:MAX_PASSAGE_CHARS]}" for i, p in enumerate(passages, 1))
        payload = {
            "model": self.model_id,
            "temperature": 0,
            "messages": [
                {"role": "system", "content": PROMPT},
                {"role": "user", "content": f"Query: {query}\n\nPassages:\n{numbered}"},
            ],
        }
        content = chat_completion(self._client, self.base_url, self._key, payload, self.policy, "llm reranker")
        return parse_scores(content, len(passages))


def parse_scores(content: str, count: int) -> list[float]:
    """The scores in a model's answer: `{"scores": [...]}` or a bare list, maybe fenced.

    Raises:
        ValueError: no list of `count` numbers in the answer.
    """
    found: Any = None
    for match in re.finditer(r"\{.*\}|\[.*\]", content, re.DOTALL):
        try:
            found = json.loads(match.group(0))
            break
        except ValueError:
            continue
    if isinstance(found, dict):
        found = found.get("scores")
    if not isinstance(found, list) or len(found) != count:
        raise ValueError(f"llm reranker did not return {count} scores")
    return [float(value) for value in found]

"""Contextual chunks: an LLM writes a sentence or two that situates each chunk, and that text
is embedded before the chunk (off by default; the structured context line always is).

`ContextualEmbedder` wraps any embedder. It asks an OpenAI-compatible chat endpoint once per
chunk hash, caches the answer in the store, and pins vectors to both models (its identity
names the writer too), so turning it on or off is a model change that needs `embed --force`.
Queries are embedded as they are. The budget guard counts chat requests and tokens; a run
that reaches it saves the contexts written so far and stops between batches.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from mindex.chunk import text_hash
from mindex.config import ContextSettings
from mindex.embed.base import Embedder, Vectors
from mindex.errors import BudgetExceededError, ConfigError
from mindex.fetch.http import Budget, RetryPolicy, chat_completion, estimate_tokens, new_client
from mindex.store.base import Store

PROMPT = (
    "You help a search engine. Given a passage from a document and where it sits (file and "
    "headings), write one or two sentences that situate the passage: what it is about and "
    "how it fits the document. Reply with the sentences only."
)
MAX_CHARS = 4000


class LlmContextWriter:
    """Writes a situating sentence per chunk through `POST {base_url}/chat/completions`."""

    def __init__(self, conf: ContextSettings) -> None:
        if not conf.base_url or not conf.model:
            raise ConfigError("embed.context needs base_url (OpenAI-compatible, with /v1) and model")
        self.model_id = conf.model
        self.base_url = conf.base_url.rstrip("/")
        self._key = conf.api_key.get_secret_value() if conf.api_key else None
        self.policy = RetryPolicy(conf.timeout, conf.retries, conf.backoff)
        self.budget = Budget(conf.max_requests, conf.max_tokens, "embed.context")
        self.concurrency = conf.concurrency
        self._client = new_client()

    @property
    def identity(self) -> str:
        return f"llm-context:{self.model_id}"

    def close(self) -> None:
        self._client.close()

    def write_one(self, passage: str) -> str:
        """The context for one passage ("context line\\ntext").

        Raises:
            BudgetExceededError: the run's budget is spent.
            RemoteError: the endpoint failed after retries, or answered without text.
        """
        where, _, text = passage.partition("\n")
        user = f"Location: {where}\n\nPassage:\n{text[:MAX_CHARS]}"
        self.budget.spend(estimate_tokens([PROMPT, user]) + 100)
        payload: dict[str, Any] = {
            "model": self.model_id, "temperature": 0, "max_tokens": 100,
            "messages": [{"role": "system", "content": PROMPT}, {"role": "user", "content": user}],
        }
        content = chat_completion(self._client, self.base_url, self._key, payload, self.policy, "context writer")
        return " ".join(content.split())


class ContextualEmbedder(Embedder):
    """An embedder whose documents are embedded with an LLM-written context first."""

    provider = "contextual"

    def __init__(self, inner: Embedder, writer: LlmContextWriter, store: Store) -> None:
        self.inner, self.writer, self.store = inner, writer, store
        self.model_id = f"{inner.model_id}+{writer.identity}"
        self.commit_every = min(inner.commit_every, 64)  # a stop loses at most 64 chunks' work

    @property
    def dimensions(self) -> int:
        return self.inner.dimensions

    @dimensions.setter
    def dimensions(self, value: int) -> None:
        self.inner.dimensions = value

    @property
    def identity(self) -> str:
        return f"{self.inner.identity}+{self.writer.identity}"

    def close(self) -> None:
        self.inner.close()
        self.writer.close()

    def embed_batch(self, texts: Sequence[str]) -> Vectors:
        return self.inner.embed_batch(texts)

    def embed_query(self, text: str) -> Vectors:
        return self.inner.embed_query(text)

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        hashes = [text_hash(t) for t in texts]
        known = self.store.contexts_for(self.writer.identity, hashes)
        missing = list(dict.fromkeys(h for h in hashes if h not in known))
        if missing:
            by_hash = dict(zip(hashes, texts))
            written: list[tuple[str, str]] = []
            try:
                with ThreadPoolExecutor(self.writer.concurrency) as pool:
                    futures = {h: pool.submit(self.writer.write_one, by_hash[h]) for h in missing}
                    for digest, future in futures.items():
                        written.append((digest, future.result()))
            except BudgetExceededError:
                self.store.save_contexts(self.writer.identity, written)  # keep what was paid for
                raise
            self.store.save_contexts(self.writer.identity, written)
            known.update(written)
        return self.inner.embed_documents([f"{known[h]}\n{t}" for h, t in zip(hashes, texts)])

"""Local embeddings with ONNX Runtime and `tokenizers`: no torch, no network.

Texts are tokenised once, sorted by length and run in batches of about 16 (as fast as 32 on
two cores, half the memory), truncated explicitly at the model's own max sequence length
(MiniLM's tokenizer.json says 128; sentence-transformers uses 256), or for chunks at
`embed.chunk_tokens` when that is shorter. A document batch's runs go in lanes, one per
core, side by side on the session's threads: on two cores two runs at once embed 15-20%
more chunks a second than one at a time (a lone run's threads wait on each other inside
every layer), with less memory, as the lanes share the token budget. A query is one run
on every thread. Pooling and normalisation follow the model folder's sentence-transformers
config.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from mindex.embed.base import Embedder, Vectors, normalise
from mindex.embed.modelfiles import OnnxModel
from mindex.errors import ConfigError, DependencyMissingError


# Padded tokens in model runs at once, shared by the lanes (see `_embed`).
BATCH_TOKENS = 1280
# Lanes when `threads` is 0 (one per core): each holds a batch's activations.
MAX_LANES = 4

def pad_batch(encodings: Sequence[Any]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Right-pad token ids to the batch's longest; returns (input_ids, attention_mask)."""
    width = max(len(e.ids) for e in encodings)
    ids = np.zeros((len(encodings), width), dtype=np.int64)
    mask = np.zeros_like(ids)
    for row, enc in enumerate(encodings):
        ids[row, : len(enc.ids)] = enc.ids
        mask[row, : len(enc.ids)] = 1
    return ids, mask


class OnnxEmbedder(Embedder):
    """An encoder model (BERT family) run by ONNX Runtime on the CPU."""

    provider = "onnx"

    def __init__(self, model: OnnxModel, batch_size: int = 16, threads: int = 0,
                 chunk_tokens: int | None = None, prepared: Path | None = None) -> None:
        """`chunk_tokens`: read at most this many tokens of each document text (queries keep
        the model's own limit); a shorter limit than the model's makes another set of vectors,
        so it becomes part of `model_id`. `prepared`: the models folder, where the model's
        optimised graph is kept to open faster next time (`mindex.embed.prepared`); None
        loads the model file as it is.

        Raises:
            ConfigError: `chunk_tokens` is above the model's own limit.
        """
        try:
            import onnxruntime  # noqa: F401  # here, so a missing extra is named before any work
            from tokenizers import Tokenizer
        except ImportError:
            raise DependencyMissingError("onnxruntime", "models", "local embeddings") from None
        self.model = model
        self.prepared = prepared
        self.model_id = model.model_id
        self.query_prefix, self.document_prefix = model.query_prefix, model.document_prefix
        self.batch_size = batch_size
        self.lanes = threads or max(1, min(os.cpu_count() or 1, MAX_LANES))
        self._pool: Any = None  # the lanes' threads

        def tokenizer(max_length: int) -> Any:
            try:
                made = Tokenizer.from_file(str(model.tokenizer_path))
            except Exception as exc:  # tokenizers raises a bare Exception for a file it cannot read
                raise ConfigError(f"{model.tokenizer_path} is not a tokenizer file this model can use ({exc}); "
                                  "export it again, or add a model with `mindex models add`") from None
            made.enable_truncation(max_length=max_length)
            made.no_padding()
            return made

        self.tokenizer = self.document_tokenizer = tokenizer(model.max_length)
        if chunk_tokens is not None and chunk_tokens != model.max_length:
            if chunk_tokens > model.max_length:
                raise ConfigError(
                    f"embed.chunk_tokens is {chunk_tokens} but {model.model_id} reads at most {model.max_length} "
                    "tokens; choose a smaller value or leave it empty"
                )
            # A tokenizer of its own: a query embedded while an index run embeds chunks
            # (the MCP server) keeps the model's full length.
            self.document_tokenizer = tokenizer(chunk_tokens)
            self.model_id = f"{model.model_id}/{chunk_tokens}"
        self.session = self._session(threads)
        self._lane_session: Any = None  # one thread a run, made at the first batch run in lanes
        self.input_names = {i.name for i in self.session.get_inputs()}
        output = self.session.get_outputs()[0]
        self.dimensions = int(output.shape[-1])

    def _session(self, threads: int) -> Any:
        from mindex.embed.prepared import cpu_options, open_session

        try:
            return open_session(self.model.onnx_path, cpu_options(threads), self.prepared)
        except Exception as exc:  # onnxruntime's own error types: a damaged or foreign file
            cause = str(exc).splitlines()[0][:200]
            raise ConfigError(f"{self.model.onnx_path} is not an ONNX model ONNX Runtime can load ({cause}); "
                              "export it again, or add a model with `mindex models add`") from None

    def embed_batch(self, texts: Sequence[str]) -> Vectors:
        return self._embed(texts, self.tokenizer)

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        return self._embed([self.document_prefix + text for text in texts], self.document_tokenizer)

    def _embed(self, texts: Sequence[str], tokenizer: Any) -> Vectors:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        encodings = tokenizer.encode_batch(list(texts))
        order = sorted(range(len(encodings)), key=lambda i: len(encodings[i].ids))
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        budget = max(256, BATCH_TOKENS // self.lanes)
        batches: list[list[int]] = []
        start = 0
        while start < len(order):
            # Shortest first; a batch takes texts while its padded size stays within its
            # lane's share of the token budget (attention memory grows with batch x
            # length^2): many short texts at once, few of full length.
            end = start + 1
            while (end < len(order) and end - start < self.batch_size
                   and (end - start + 1) * len(encodings[order[end]].ids) <= budget):
                end += 1
            batches.append(order[start:end])
            start = end
        if self.lanes == 1 or len(batches) == 1:  # a query: one run on every thread
            for rows in batches:
                out[rows] = self._run([encodings[i] for i in rows], self.session)
            return out
        # Lanes run on a session of their own with one thread a run: two runs of the shared
        # session (two threads each) were no faster than one at a time.
        if self._pool is None:
            from concurrent.futures import ThreadPoolExecutor

            self._lane_session = self._session(1)
            self._pool = ThreadPoolExecutor(self.lanes, thread_name_prefix="mindex-embed")
        lane = self._lane_session
        for rows, vectors in zip(batches, self._pool.map(lambda rows: self._run([encodings[i] for i in rows], lane),
                                                           batches)):
            out[rows] = vectors
        return out

    def _run(self, encodings: list[Any], session: Any) -> Vectors:
        ids, mask = pad_batch(encodings)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self.input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = session.run(None, feeds)[0]
        if self.model.pooling == "cls":
            pooled = hidden[:, 0, :]
        else:
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        pooled = pooled.astype(np.float32)
        return normalise(pooled) if self.model.normalize else pooled

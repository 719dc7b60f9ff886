"""Local embeddings with ONNX Runtime and `tokenizers`: no torch, no network.

Texts are tokenised once, sorted by length and run in batches of about 16 (as fast as 32 on
two cores, half the memory), truncated explicitly at the model's own max sequence length
(MiniLM's tokenizer.json says 128; sentence-transformers uses 256), or for chunks at
`embed.chunk_tokens` when that is shorter. Pooling and
normalisation follow the model folder's sentence-transformers config.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from mindex.embed.base import Embedder, Vectors, normalise
from mindex.errors import ConfigError, DependencyMissingError


# Padded tokens a model run takes at most (see `embed_batch`).
BATCH_TOKENS = 1280

@dataclass(frozen=True)
class OnnxModel:
    """Where a local model's files are and how to use them."""

    model_id: str
    onnx_path: Path
    tokenizer_path: Path
    max_length: int = 256
    pooling: str = "mean"  # or "cls"
    normalize: bool = True
    query_prefix: str = ""
    document_prefix: str = ""


def read_sentence_transformers_config(folder: Path) -> dict[str, Any]:
    """max_length, pooling and normalize from a sentence-transformers folder, where present."""
    out: dict[str, Any] = {}
    bert = folder / "sentence_bert_config.json"
    if bert.is_file():
        out["max_length"] = int(json.loads(bert.read_text()).get("max_seq_length", 256))
    pooling = folder / "1_Pooling" / "config.json"
    if pooling.is_file():
        conf = json.loads(pooling.read_text())
        out["pooling"] = "cls" if conf.get("pooling_mode_cls_token") else "mean"
    modules = folder / "modules.json"
    if modules.is_file():
        kinds = [m.get("type", "") for m in json.loads(modules.read_text())]
        out["normalize"] = any(k.endswith("Normalize") for k in kinds)
    return out


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
                 chunk_tokens: int | None = None) -> None:
        """`chunk_tokens`: read at most this many tokens of each document text (queries keep
        the model's own limit); a shorter limit than the model's makes another set of vectors,
        so it becomes part of `model_id`.

        Raises:
            ConfigError: `chunk_tokens` is above the model's own limit.
        """
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError:
            raise DependencyMissingError("onnxruntime", "models", "local embeddings") from None
        self.model = model
        self.model_id = model.model_id
        self.query_prefix, self.document_prefix = model.query_prefix, model.document_prefix
        self.batch_size = batch_size

        def tokenizer(max_length: int) -> Any:
            made = Tokenizer.from_file(str(model.tokenizer_path))
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
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        # Spinning threads burn the other core while Python prepares the next batch.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.add_session_config_entry("session.inter_op.allow_spinning", "0")
        self.session = ort.InferenceSession(
            str(model.onnx_path), options, providers=["CPUExecutionProvider"]
        )
        self.input_names = {i.name for i in self.session.get_inputs()}
        output = self.session.get_outputs()[0]
        self.dimensions = int(output.shape[-1])

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
        start = 0
        while start < len(order):
            # Shortest first; a batch takes texts while its padded size stays within the token
            # budget (attention memory grows with batch x length^2): many short texts at once,
            # five of full length (256 tokens: 370 MB peak instead of 700 at 16, same speed).
            end = start + 1
            while (end < len(order) and end - start < self.batch_size
                   and (end - start + 1) * len(encodings[order[end]].ids) <= BATCH_TOKENS):
                end += 1
            rows = order[start:end]
            out[rows] = self._run([encodings[i] for i in rows])
            start = end
        return out

    def _run(self, encodings: list[Any]) -> Vectors:
        ids, mask = pad_batch(encodings)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self.input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self.session.run(None, feeds)[0]
        if self.model.pooling == "cls":
            pooled = hidden[:, 0, :]
        else:
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        pooled = pooled.astype(np.float32)
        return normalise(pooled) if self.model.normalize else pooled

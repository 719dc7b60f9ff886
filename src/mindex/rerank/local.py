"""A local cross-encoder (e.g. ms-marco-MiniLM-L-6-v2) on ONNX Runtime, int8, no network.

The model comes from `mindex models add` (a `*ForSequenceClassification` checkpoint becomes an
ONNX model with a `logits` output) or any folder with model.onnx and tokenizer.json. Pairs are
truncated at 256 tokens and scored in batches.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from mindex.embed.models import find_model
from mindex.embed.onnx import pad_batch
from mindex.embed.prepared import cpu_options, open_session
from mindex.errors import ConfigError, DependencyMissingError
from mindex.rerank.base import Reranker


class LocalReranker(Reranker):
    """Scores (query, passage) pairs with a cross-encoder's first logit."""

    provider = "local"

    def __init__(self, model: str, models_dir: Path | None = None, batch_size: int = 16,
                 max_length: int = 256, threads: int = 0) -> None:
        try:
            import onnxruntime  # noqa: F401  # here, so a missing extra is named before any work
            from tokenizers import Tokenizer
        except ImportError:
            raise DependencyMissingError("onnxruntime", "models", "the local reranker") from None

        found = find_model(model, models_dir)
        if found is None:
            raise ConfigError(
                f"no local reranker model {model!r}; add one with `mindex models add <folder>` "
                "(a cross-encoder such as ms-marco-MiniLM-L-6-v2) and set search.rerank.model"
            )
        self.model_id = found.model_id
        self.batch_size = batch_size
        self.tokenizer = Tokenizer.from_file(str(found.tokenizer_path))
        self.tokenizer.enable_truncation(max_length=max_length)
        self.tokenizer.no_padding()
        self.session = open_session(found.onnx_path, cpu_options(threads), models_dir)
        if self.session.get_outputs()[0].name != "logits":
            raise ConfigError(f"{model} is an embedding model, not a cross-encoder (it has no logits output)")
        self.inputs = {i.name for i in self.session.get_inputs()}

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        encodings = self.tokenizer.encode_batch([(query, text) for text in passages])
        scores: list[float] = []
        for start in range(0, len(encodings), self.batch_size):
            batch = encodings[start : start + self.batch_size]
            ids, mask = pad_batch(batch)
            feeds = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self.inputs:
                types = np.zeros_like(ids)
                for row, enc in enumerate(batch):
                    types[row, : len(enc.type_ids)] = enc.type_ids
                feeds["token_type_ids"] = types
            logits = self.session.run(None, feeds)[0]
            scores.extend(float(v) for v in logits[:, 0])
        return scores

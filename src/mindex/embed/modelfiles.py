"""Where a local model's files are and how to use them (`OnnxModel`), read from a
sentence-transformers folder. Kept apart from the embedder, which needs numpy and ONNX Runtime:
finding a model costs no import of them."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any


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
    """max_length, pooling, normalize and the query/document prompts from a
    sentence-transformers folder, where present."""
    out: dict[str, Any] = {}
    bert = folder / "sentence_bert_config.json"
    if bert.is_file():
        out["max_length"] = int(json.loads(bert.read_text()).get("max_seq_length", 256))
    pooling = folder / "1_Pooling" / "config.json"
    if pooling.is_file():
        conf = json.loads(pooling.read_text())
        out["pooling"] = "cls" if conf.get("pooling_mode_cls_token") else "mean"
    prompts = folder / "config_sentence_transformers.json"
    if prompts.is_file():  # e5's "query: " / "passage: "
        said = json.loads(prompts.read_text()).get("prompts") or {}
        out["query_prefix"] = said.get("query", "")
        out["document_prefix"] = said.get("passage", said.get("document", ""))
    modules = folder / "modules.json"
    if modules.is_file():
        kinds = [m.get("type", "") for m in json.loads(modules.read_text())]
        out["normalize"] = any(k.endswith("Normalize") for k in kinds)
    return out

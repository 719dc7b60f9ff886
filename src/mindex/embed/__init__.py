"""Embedders: a dictionary registry, filled with built-ins and the `mindex.embedders`
entry-point group (third parties register `name = "package.module:Class"`).
"""

from __future__ import annotations

from importlib.metadata import entry_points

from mindex.embed.base import Embedder
from mindex.embed.ollama import OllamaEmbedder
from mindex.embed.onnx import OnnxEmbedder
from mindex.embed.openai_compat import OpenAIEmbedder
from mindex.embed.voyage import VoyageEmbedder

EMBEDDERS: dict[str, type[Embedder]] = {
    "onnx": OnnxEmbedder,
    "ollama": OllamaEmbedder,
    "openai": OpenAIEmbedder,
    "voyage": VoyageEmbedder,
}

for _entry in entry_points(group="mindex.embedders"):
    EMBEDDERS.setdefault(_entry.name, _entry.load())

__all__ = ["EMBEDDERS", "Embedder"]

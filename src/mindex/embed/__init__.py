"""Embedders: a registry of provider names (`mindex.registry.Registry`), the built-ins and
the `mindex.embedders` entry-point group (third parties register
`name = "package.module:Class"`); a provider's module is imported when it is built.
"""

from __future__ import annotations

from mindex.embed.base import Embedder
from mindex.registry import Registry

EMBEDDERS = Registry("mindex.embedders", {
    "onnx": "mindex.embed.onnx:OnnxEmbedder",
    "ollama": "mindex.embed.ollama:OllamaEmbedder",
    "openai": "mindex.embed.openai_compat:OpenAIEmbedder",
    "voyage": "mindex.embed.voyage:VoyageEmbedder",
})

__all__ = ["EMBEDDERS", "Embedder"]

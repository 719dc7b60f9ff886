"""Embedders: a registry of provider names (`mindex.registry.Registry`), the built-ins and
the `mindex.embedders` entry-point group (third parties register
`name = "package.module:Class"`); a provider's module is imported when it is built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mindex.registry import Registry

if TYPE_CHECKING:
    from mindex.embed.base import Embedder

EMBEDDERS = Registry("mindex.embedders", {
    "onnx": "mindex.embed.onnx:OnnxEmbedder",
    "ollama": "mindex.embed.ollama:OllamaEmbedder",
    "openai": "mindex.embed.openai_compat:OpenAIEmbedder",
    "voyage": "mindex.embed.voyage:VoyageEmbedder",
})


def __getattr__(name: str) -> Any:
    """`Embedder` on first use: it needs numpy, which finding a model (`mindex.embed.models`) does not."""
    if name == "Embedder":
        from mindex.embed.base import Embedder

        return Embedder
    raise AttributeError(f"module 'mindex.embed' has no attribute {name!r}")


__all__ = ["EMBEDDERS", "Embedder"]

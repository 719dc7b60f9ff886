"""Embedders: a registry of provider names, the built-ins and the `mindex.embedders`
entry-point group (third parties register `name = "package.module:Class"`).

A provider's module is imported when it is first asked for, and the installed packages'
entry points are read only for a name that is not built in (or when the names are listed):
a search embedding its query locally no longer loads the HTTP client the remote providers
use, nor scans every installed package's metadata (together about 80 ms of each process).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from importlib import import_module
from typing import TYPE_CHECKING, Any

from mindex.embed.base import Embedder

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint


class _Embedders(Mapping[str, type[Embedder]]):
    """Provider name → its class; a built-in wins over an entry point of the same name."""

    BUILT_IN = {"onnx": "mindex.embed.onnx:OnnxEmbedder", "ollama": "mindex.embed.ollama:OllamaEmbedder",
                "openai": "mindex.embed.openai_compat:OpenAIEmbedder", "voyage": "mindex.embed.voyage:VoyageEmbedder"}

    def __init__(self) -> None:
        self._plugins: dict[str, EntryPoint] | None = None

    def _entry_points(self) -> dict[str, EntryPoint]:
        if self._plugins is None:
            from importlib.metadata import entry_points

            self._plugins = {e.name: e for e in entry_points(group="mindex.embedders") if e.name not in self.BUILT_IN}
        return self._plugins

    def __getitem__(self, name: str) -> type[Embedder]:
        if name in self.BUILT_IN:
            module, _, attr = self.BUILT_IN[name].partition(":")
            found: Any = getattr(import_module(module), attr)
            return found  # type: ignore[no-any-return]
        entry = self._entry_points().get(name)
        if entry is None:
            raise KeyError(name)
        return entry.load()  # type: ignore[no-any-return]

    def __contains__(self, name: object) -> bool:
        return name in self.BUILT_IN or name in self._entry_points()

    def __iter__(self) -> Iterator[str]:
        return iter([*self.BUILT_IN, *self._entry_points()])

    def __len__(self) -> int:
        return len(self.BUILT_IN) + len(self._entry_points())


EMBEDDERS: Mapping[str, type[Embedder]] = _Embedders()

__all__ = ["EMBEDDERS", "Embedder"]

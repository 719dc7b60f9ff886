"""Source kinds: each maps a name to a module with `discover(source)` and `load(task)`.

`discover` runs in the main process and lists candidate files; `load` runs in worker
processes and turns one file into a `Document` (or says why it skipped it).

A kind's module is imported when it is first used: a run over code never loads the
changelog, knowledge or memory readers (together about 25 ms of every `mindex index`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from importlib import import_module
from types import ModuleType


class _Kinds(Mapping[str, ModuleType]):
    """Kind name → its module, imported on first use."""

    MODULES = {"docs": "mindex.sources.docs", "code": "mindex.sources.code", "memory": "mindex.sources.memory",
               "knowledge": "mindex.sources.knowledge", "changelog": "mindex.sources.changelog"}

    def __getitem__(self, kind: str) -> ModuleType:
        return import_module(self.MODULES[kind])

    def __contains__(self, kind: object) -> bool:
        # Mapping's own asks for the module: a search's `kind in SOURCE_KINDS` imported the
        # docs reader (pathspec, the chunker: 25-30 ms) to check a name.
        return kind in self.MODULES

    def __iter__(self) -> Iterator[str]:
        return iter(self.MODULES)

    def __len__(self) -> int:
        return len(self.MODULES)


SOURCE_KINDS: Mapping[str, ModuleType] = _Kinds()

__all__ = ["SOURCE_KINDS"]

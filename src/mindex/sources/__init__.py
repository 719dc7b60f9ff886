"""Source kinds: each maps a name to a module with `discover(source)` and `load(task)`.

`discover` runs in the main process and lists candidate files; `load` runs in worker
processes and turns one file into a `Document` (or says why it skipped it).
"""

from __future__ import annotations

from types import ModuleType

from mindex.sources import changelog, code, docs, knowledge, memory

SOURCE_KINDS: dict[str, ModuleType] = {"docs": docs, "code": code, "memory": memory, "knowledge": knowledge,
                                   "changelog": changelog}

__all__ = ["SOURCE_KINDS"]

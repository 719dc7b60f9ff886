"""mindex: a local knowledge engine for coding agents.

The library API: open an `Index`, register sources, index them, search.

    from mindex import Index
    with Index(".mindex/index.db") as index:
        index.add_source("docs")
        index.index()
        for hit in index.search("configure retries").hits:
            print(hit.path, hit.start_line, hit.snippet)
"""

from __future__ import annotations

# Not `typing`'s: importing typing costs the command's front door (`mindex.serve.front`)
# 4 ms of its 20; type checkers read this name as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from mindex.config import IndexSettings, Settings, load_settings
    from mindex.errors import MindexError
    from mindex.index import Index
    from mindex.models import Hit, IndexReport, SearchResult, SkippedFile, Source, SourceStats

# Names are imported on first use, so `import mindex.x` (and every `mindex` command) pays
# only for the modules it needs.
_LAZY = {
    "IndexSettings": "mindex.config", "Settings": "mindex.config", "load_settings": "mindex.config",
    "MindexError": "mindex.errors", "Index": "mindex.index",
    **dict.fromkeys(("Hit", "IndexReport", "SearchResult", "SkippedFile", "Source", "SourceStats"), "mindex.models"),
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'mindex' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


__version__ = "0.1.0"

__all__ = [
    "Hit",
    "Index",
    "IndexReport",
    "IndexSettings",
    "MindexError",
    "SearchResult",
    "Settings",
    "SkippedFile",
    "Source",
    "SourceStats",
    "__version__",
    "load_settings",
]

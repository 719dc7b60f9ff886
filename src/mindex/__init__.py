"""mindex: a local knowledge engine for coding agents.

The library API: open an `Index`, register sources, index them, search.

    from mindex import Index
    with Index(".mindex/index.db") as index:
        index.add_source("docs")
        index.index()
        for hit in index.search("configure retries").hits:
            print(hit.path, hit.start_line, hit.snippet)
"""

from mindex.config import IndexSettings, Settings, load_settings
from mindex.errors import MindexError
from mindex.index import Index
from mindex.models import Hit, IndexReport, SearchResult, SkippedFile, Source, SourceStats

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

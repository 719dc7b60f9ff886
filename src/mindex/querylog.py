"""The query log (`agents.query_log = true`): one row per search, grep, locate or code-graph
query with its parameters, result count and duration, tagged with `$MINDEX_SESSION_ID` when
set. Logging never fails a query: a read-only or busy index just skips the row."""

from __future__ import annotations

import json
import os
import sqlite3
from typing import Any


def log_query(store: Any, kind: str, params: dict[str, Any], results: int, ms: float) -> None:
    """Write one row through the store (skipped on any database error)."""
    clean = {k: v for k, v in params.items() if v not in (None, (), [], {})}
    try:
        store.log_query(os.environ.get("MINDEX_SESSION_ID"), kind, json.dumps(clean, default=str, ensure_ascii=False),
                        results, round(ms, 3))
    except (sqlite3.Error, AttributeError):
        pass

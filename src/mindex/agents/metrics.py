"""The query log (`agents.query_log = true`): one row per search, grep, locate or code-graph
query with its parameters, result count and duration, tagged with `$MINDEX_SESSION_ID` when
set. Logging never fails a query: a read-only or busy index just skips the row."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from typing import Any


def log_query(conn: sqlite3.Connection | None, kind: str, params: dict[str, Any], results: int, ms: float) -> None:
    """Insert one row (its own tiny transaction; skipped on any database error)."""
    if conn is None:
        return
    clean = {k: v for k, v in params.items() if v not in (None, (), [], {})}
    try:
        conn.execute("INSERT INTO query_log (session_id, kind, params, results, ms, at) VALUES (?, ?, ?, ?, ?, ?)",
                     (os.environ.get("MINDEX_SESSION_ID"), kind, json.dumps(clean, default=str, ensure_ascii=False),
                      results, round(ms, 3), time.time()))
    except sqlite3.Error:
        pass

"""Agent sessions, commits captured from them, and the query log."""


from __future__ import annotations

import time
from typing import Any
from mindex.store.sqlite.core import SQLiteCore


class SessionTables(SQLiteCore):
    """Agent sessions and the query log."""

    def session_row(self, session_id: str) -> tuple[str | None, str | None] | None:
        """(HEAD at its start, digest of its last handoff) of an agent session, if recorded."""
        row = self.conn.execute("SELECT head, handoff FROM agent_sessions WHERE session_id = ?", (session_id,)).fetchone()
        return (row[0], row[1]) if row else None

    def open_session(self, session_id: str, cwd: str, branch: str | None, issue: int | None, workflow_id: str | None,
                     head: str | None, injected: int = 0) -> None:
        """Record a session's start (kept from the first call) and add what was injected."""
        with self.transaction() as db:
            db.execute("INSERT OR IGNORE INTO agent_sessions (session_id, cwd, branch, issue, workflow_id, started_at, "
                       "head) VALUES (?, ?, ?, ?, ?, ?, ?)", (session_id, cwd, branch, issue, workflow_id, time.time(), head))
            if injected:
                db.execute("UPDATE agent_sessions SET injected = injected + ? WHERE session_id = ?", (injected, session_id))

    def close_session(self, session_id: str, handoff: str, captured: int, compacted: int, files_read: int | None,
                      ended: bool) -> None:
        """What a pre-compact or session-end hook did to a session's metrics."""
        with self.transaction() as db:
            db.execute("UPDATE agent_sessions SET handoff = ?, captured = captured + ?, compacted = compacted + ?, "
                       "files_read = max(files_read, ?), ended_at = ? WHERE session_id = ?",
                       (handoff, captured, compacted, files_read or 0, time.time() if ended else None, session_id))

    def commit_captured(self, sha: str) -> bool:
        return self.conn.execute("SELECT 1 FROM captured_commits WHERE sha = ?", (sha,)).fetchone() is not None

    def mark_captured(self, sha: str, session_id: str) -> None:
        with self.transaction() as db:
            db.execute("INSERT OR IGNORE INTO captured_commits (sha, session_id, at) VALUES (?, ?, ?)",
                       (sha, session_id, time.time()))

    def tag_exists(self, tag: str) -> bool:
        """Does any memory or knowledge chunk carry this tag?"""
        return self.conn.execute("SELECT 1 FROM chunk_facets WHERE name = 'tag' AND value = ? LIMIT 1",
                                 (tag,)).fetchone() is not None

    def sessions(self, limit: int) -> list[tuple[Any, ...]]:
        """(session, branch, issue, workflow, started, files read, compacted, injected, captured, ended), newest first."""
        return self.conn.execute(
            "SELECT session_id, branch, issue, workflow_id, started_at, files_read, compacted, injected, captured, "
            "ended_at FROM agent_sessions ORDER BY started_at DESC LIMIT ?", (limit,)).fetchall()

    def query_stats(self) -> list[tuple[Any, ...]]:
        """(kind, count, mean results, mean ms, max ms) of the query log."""
        return self.conn.execute("SELECT kind, count(*), avg(results), avg(ms), max(ms) FROM query_log GROUP BY kind "
                                 "ORDER BY kind").fetchall()

    def log_query(self, session_id: str | None, kind: str, params: str, results: int, ms: float) -> None:
        """One row of the query log, in its own tiny transaction (SQLite's lock, not ours:
        a log line must never wait behind an indexer)."""
        self.conn.execute("INSERT INTO query_log (session_id, kind, params, results, ms, at) VALUES (?, ?, ?, ?, ?, ?)",
                          (session_id, kind, params, results, ms, time.time()))

"""Changelogs: each product's fetch marker and the cached synergies."""


from __future__ import annotations

import time
from collections.abc import Sequence
from mindex.store.sqlite.core import SQLiteCore


class ChangelogTables(SQLiteCore):
    """Fetch markers and synergies."""

    def fetch_markers(self) -> dict[str, tuple[str | None, str | None]]:
        """product → (newest date or version seen, ETag) of the last fetch."""
        return {p: (n, e) for p, n, e in self.conn.execute("SELECT product, newest, etag FROM fetch_markers")}

    def save_marker(self, product: str, strategy: str, newest: str | None, etag: str | None, status: str,
                    detail: str | None) -> None:
        with self.transaction() as db:
            db.execute("INSERT OR REPLACE INTO fetch_markers (product, strategy, newest, etag, fetched_at, status, detail) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?)", (product, strategy, newest, etag, time.time(), status, detail))

    def replace_synergies(self, rows: Sequence[tuple[str, str, str, str, str, str, str]]) -> None:
        """Replace the cached synergies: (name, title, products, steps, evidence JSON, body, path)."""
        with self.transaction() as db:
            db.execute("DELETE FROM synergies")
            db.executemany("INSERT INTO synergies (name, title, products, steps, evidence, body, path, cached_at) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [(*row, time.time()) for row in rows])

    def synergy_rows(self, name: str | None = None) -> list[tuple[str, str, str, str, str, str]]:
        """(name, title, products, steps, evidence, body) of every cached synergy, or one."""
        sql = "SELECT name, title, products, steps, evidence, body FROM synergies"
        return self.conn.execute(sql + " WHERE name = ?" if name else sql + " ORDER BY name",
                                 (name,) if name else ()).fetchall()

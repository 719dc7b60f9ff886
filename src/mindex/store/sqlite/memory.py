"""Memory and knowledge: facets a search filters on, the knowledge graph's tables, the
documents' metadata."""


from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from mindex.models import Facets, Hit
from mindex.store.sqlite.core import SQLiteCore
from mindex.store.sqlite.queries import CHUNK_JOINS, filter_sql, hit_of_row


class MemoryTables(SQLiteCore):
    """Facets and the knowledge graph."""

    def document_metadata(self, kind: str) -> list[tuple[str, str, dict[str, Any]]]:
        """(source name, path, metadata) of every document of a kind."""
        return [(name, path, json.loads(meta)) for name, path, meta in self.conn.execute(
            "SELECT s.name, d.path, d.metadata FROM documents d JOIN sources s ON s.id = d.source_id "
            "WHERE d.kind = ? ORDER BY d.path", (kind,))]

    def replace_graph(self, entities: Sequence[tuple[str, str, str, float | None, float | None, str | None]],
                      relations: Sequence[tuple[str, str, str]]) -> None:
        """Replace the knowledge graph: entities (id, type, title, confidence, at, path) and
        relations (src, rel, dst)."""
        with self.transaction() as db:
            db.execute("DELETE FROM kg_entities")
            db.execute("DELETE FROM kg_relations")
            db.executemany("INSERT OR REPLACE INTO kg_entities (id, type, title, confidence, at, path) "
                           "VALUES (?, ?, ?, ?, ?, ?)", entities)
            db.executemany("INSERT OR IGNORE INTO kg_relations (src, rel, dst) VALUES (?, ?, ?)", relations)

    def graph_rows(self) -> tuple[list[tuple[Any, ...]], list[tuple[str, str, str]]]:
        """Every knowledge-graph entity (id, type, title, confidence, at, path) and relation."""
        return (self.conn.execute("SELECT id, type, title, confidence, at, path FROM kg_entities").fetchall(),
                self.conn.execute("SELECT src, rel, dst FROM kg_relations").fetchall())

    def faceted_hits(self, kind: str, facets: Facets | None, limit: int) -> list[Hit]:
        """Chunks of a kind passing the facet filters, by entry time (newest first), first
        piece of each entry only."""
        where, params = filter_sql(None, kind, None, facets=facets)
        # Entries of one second keep their journal order (document, then place in it).
        rows = self.conn.execute(
            f"""SELECT {self.HIT_COLUMNS} FROM chunks c {CHUNK_JOINS}
                WHERE {' AND '.join(where)} AND c.facets IS NOT NULL
                ORDER BY c.at DESC, d.id DESC, c.ordinal DESC LIMIT ?""", (*params, limit * 4)).fetchall()
        first: dict[str, Hit] = {}  # an entry's first piece, in the entries' order
        for row in rows:
            hit = hit_of_row(row, 0.0, "")
            key = str((hit.facets or {}).get("id"))
            if key not in first or (hit.ordinal or 0) < (first[key].ordinal or 0):
                first[key] = hit
        return list(first.values())[:limit]

    def entry_pieces(self, kind: str, entry_id: str) -> list[Hit]:
        """Every chunk of one memory entry or knowledge entity, in order."""
        where, params = filter_sql(None, kind, None, facets=Facets(ids=(entry_id,)))
        rows = self.conn.execute(f"SELECT {self.HIT_COLUMNS} FROM chunks c {CHUNK_JOINS} WHERE {' AND '.join(where)} "
                                 "ORDER BY c.ordinal", params).fetchall()
        return [hit_of_row(row, 0.0, "") for row in rows]

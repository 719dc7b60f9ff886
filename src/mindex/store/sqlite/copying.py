"""Moving a whole index to another backend (`mindex copy`): tables read and written in
key order."""


from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mindex.store.base import (
    pack,
    short_name,
)
from mindex.store.sqlite.code import CodeTables, symbol_id
from mindex.store.sqlite.core import trigrams_built
from mindex.store.sqlite.functions import UNPACK


# What `mindex copy` moves, parents first: (table, key columns, columns), the same on both backends.
_COPY: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "schema_meta": (("key",), ("key", "value")),
    "sources": (("id",), ("id", "name", "kind", "root", "options", "created_at", "indexed_at")),
    "documents": (("id",), ("id", "source_id", "path", "kind", "title", "size", "mtime_ns", "content_hash", "metadata",
                            "indexed_at", "language")),
    "chunks": (("seq",), ("seq", "id", "document_id", "ordinal", "title", "context", "text", "hash", "start_line",
                          "end_line", "page", "symbol_kind", "terms", "at", "facets")),
    "chunk_facets": (("seq", "name", "value"), ("seq", "name", "value")),
    "symbols": (("id",), ("id", "document_id", "name", "short", "kind", "start_line", "end_line", "signature",
                          "exported")),
    "refs": (("document_id", "n"), ("document_id", "n", "kind", "name", "qualifier", "alias", "line", "scope")),
    "code_text": (("document_id",), ("document_id", "text")),
    "vectors": (("model", "hash"), ("model", "hash", "vector")),
    "chunk_contexts": (("model", "hash"), ("model", "hash", "context")),
    "skipped_files": (("source_id", "path"), ("source_id", "path", "reason", "size", "mtime_ns")),
    "kg_entities": (("id",), ("id", "type", "title", "confidence", "at", "path")),
    "kg_relations": (("src", "rel", "dst"), ("src", "rel", "dst")),
    "workflows": (("id",), ("id", "issue", "branch", "worktree", "phase", "status", "retries", "created_at",
                            "updated_at")),
    "workflow_actions": (("id",), ("id", "workflow_id", "action", "result", "metadata", "at")),
    "workflow_commits": (("id",), ("id", "workflow_id", "sha", "message", "at")),
    "milestones": (("id",), ("id", "name", "number", "phase", "status", "waves", "created_at", "updated_at")),
    "milestone_issues": (("milestone_id", "issue"), ("milestone_id", "issue", "wave", "workflow_id")),
    "baselines": (("id",), ("id", "milestone_id", "check_name", "command", "tool", "exit_code", "errors", "warnings",
                            "lines", "seconds", "at")),
    "agent_sessions": (("session_id",), ("session_id", "cwd", "branch", "issue", "workflow_id", "started_at", "head",
                                         "files_read", "compacted", "injected", "captured", "handoff", "ended_at")),
    "captured_commits": (("sha",), ("sha", "session_id", "at")),
    "query_log": (("id",), ("id", "session_id", "kind", "params", "results", "ms", "at")),
    "fetch_markers": (("product",), ("product", "strategy", "newest", "etag", "fetched_at", "status", "detail")),
    "synergies": (("name",), ("name", "title", "products", "steps", "evidence", "body", "path", "cached_at")),
}
COPY_TABLES = tuple(_COPY)


def copy_table(table: str) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """(table, key columns, columns) of a table `mindex copy` moves; any other name is refused
    (the names are put into SQL)."""
    keys, columns = _COPY[table]
    return table, keys, columns


class CopyTables(CodeTables):
    """Whole tables, for `mindex copy`."""

    def count_rows(self, table: str) -> int:
        """Rows of one of the `COPY_TABLES`."""
        if table in UNPACK and self._PACKED:
            return sum(len(UNPACK[table](packed)) for (packed,) in self.conn.execute(f"SELECT packed FROM {table}"))
        (n,) = self.conn.execute(f"SELECT count(*) FROM {copy_table(table)[0]}").fetchone()
        return int(n)

    def dump_rows(self, table: str, after: Sequence[Any] | None, limit: int) -> list[tuple[Any, ...]]:
        """The next `limit` rows of a table after key `after`, in key order, in the shared
        form both backends load (code text as text, vectors as float16 bytes, b'' = none)."""
        name, keys, columns = copy_table(table)
        select = f"document_id, {self._CODE_TEXT}" if table == "code_text" else ", ".join(columns)
        if table == "chunks":  # whole texts, also of chunks read from their file
            select = ", ".join(self.CHUNK_TEXT if column == "text" else column for column in columns)
            name = "chunks c"
        elif table in UNPACK and self._PACKED:  # a row a reference or definition, from each document's row
            return self._dump_packed(table, after, limit)
        where = f"WHERE ({', '.join(keys)}) > ({', '.join('?' * len(keys))})" if after is not None else ""
        extra = " AND key NOT IN ('schema_version', 'bulk_load_indexes', 'trigrams', 'keyword_tops') AND key NOT LIKE 'copy:%'" \
            if table == "schema_meta" else ""
        if extra and not where:
            where, extra = "WHERE " + extra.removeprefix(" AND "), ""
        return [tuple(row) for row in self.conn.execute(
            f"SELECT {select} FROM {name} {where}{extra} ORDER BY {', '.join(keys)} LIMIT ?",
            (*(after or ()), limit)).fetchall()]

    def load_rows(self, table: str, rows: Sequence[Sequence[Any]], db: Any) -> None:
        """Insert rows `dump_rows` gave (ids kept) inside the caller's transaction `db`."""
        name, _, columns = copy_table(table)
        if not rows:
            return
        if table == "code_text":
            db.executemany("INSERT INTO code_text (document_id, packed) VALUES (?, ?)",
                           [(doc_id, pack(text)) for doc_id, text in rows])
            if trigrams_built(db):
                db.executemany("INSERT INTO code_trigrams (rowid, text) VALUES (?, ?)", [tuple(r) for r in rows])
            return
        if table in ("refs", "symbols"):  # in key order; a document's rows may span batches
            if table == "refs":  # (document_id, n, kind, name, qualifier, alias, line, scope name)
                items = [(row[0], tuple(row[2:])) for row in rows]
            else:  # (id, document_id, name, short, kind, start, end, signature, exported)
                items = [(row[1], (row[2], *row[4:8], bool(row[8]))) for row in rows]
            by_document: dict[int, list[Any]] = {}
            for doc_id, item in items:
                by_document.setdefault(doc_id, []).append(item)
            insert = self._insert_refs if table == "refs" else self._insert_symbols
            for doc_id, found in by_document.items():
                before = db.execute(f"SELECT packed FROM {table} WHERE document_id = ?", (doc_id,)).fetchone()
                if before is not None:  # its names so far stay; the insert adds the rest
                    db.execute(f"DELETE FROM {table} WHERE document_id = ?", (doc_id,))
                    found = list(UNPACK[table](before[0])) + found
                insert(db, doc_id, found)
            return
        verb = "INSERT OR REPLACE" if table == "schema_meta" else "INSERT"
        db.executemany(f"{verb} INTO {name} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
                       [tuple(r) for r in rows])
        if table == "chunks":
            db.execute("INSERT INTO chunks_fts (rowid, title, context, text, terms) SELECT seq, title, context, "
                       f"{self.CHUNK_TEXT}, terms FROM chunks c WHERE seq IN ({','.join('?' * len(rows))})",
                       [r[0] for r in rows])

    def _dump_packed(self, table: str, after: Sequence[Any] | None, limit: int) -> list[tuple[Any, ...]]:
        """`dump_rows` of refs, (document_id, n, kind, name, qualifier, alias, line, scope), or of
        symbols, (id, document_id, name, short, kind, start, end, signature, exported), after
        the key `after`, in key order, unpacked from each document's row. A definition's id is
        its document's number and its place there (`symbol_id`): both keys order as
        (document, place)."""
        first = (-1, -1) if after is None else tuple(after) if table == "refs" else divmod(int(after[0]), 1 << 32)
        out: list[tuple[Any, ...]] = []
        for doc_id, packed in self.conn.execute(
                f"SELECT document_id, packed FROM {table} WHERE document_id >= ? ORDER BY document_id", (first[0],)):
            for n, row in enumerate(UNPACK[table](packed)):
                if (doc_id, n) > first:
                    if table == "refs":
                        out.append((doc_id, n, *row))
                    else:
                        name, kind, start, end, signature, exported = row
                        out.append((symbol_id(doc_id, n), doc_id, name, short_name(name), kind, start, end, signature,
                                    int(exported)))
                    if len(out) == limit:
                        return out
        return out

    def clear_all(self) -> None:
        """Delete every row of every copied table (`mindex copy --replace`), in one transaction."""
        with self.transaction() as db:
            db.execute("DELETE FROM ref_names")
            db.execute("DELETE FROM symbol_names")
            for table in reversed(COPY_TABLES):
                db.execute(f"DELETE FROM {copy_table(table)[0]}" +
                           (" WHERE key <> 'schema_version'" if table == "schema_meta" else ""))
            db.execute("INSERT INTO chunks_fts (chunks_fts) VALUES ('delete-all')")
            db.execute("INSERT INTO code_trigrams (code_trigrams) VALUES ('delete-all')")

    def copy_done(self) -> None:
        """After `mindex copy` loaded every table (nothing to do on SQLite)."""

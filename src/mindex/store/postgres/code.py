"""The code graph and code texts on PostgreSQL: a row per definition and reference, grep's
candidate files found by a `pg_trgm` index."""


from __future__ import annotations

from collections.abc import Iterator, Sequence

from mindex.store.sqlite import filter_sql
from mindex.store.sqlite.match import match_tokens
from mindex.store.postgres.core import PgCore


def trigram_filter(match: str) -> tuple[str, list[str]]:
    """SQL over `t.text` (and parameters) for grep's trigram expression (quoted trigrams, AND,
    OR, brackets): each trigram becomes an ILIKE the pg_trgm index answers; FTS5's trigram
    tokenizer is case-insensitive too."""
    parts: list[str] = []
    params: list[str] = []
    for gram, _, other in match_tokens(match):
        if gram is None:
            parts.append(other or "")
            continue
        parts.append("t.text ILIKE %s")
        params.append("%" + gram.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%")
    return " ".join(parts) or "TRUE", params


class PgCode(PgCore):
    """Definitions, references and code texts on PostgreSQL."""

    def trigram_index_ready(self) -> bool:
        """Always: the server keeps the pg_trgm index."""
        return True

    def code_texts(
        self, match: str | None, source: str | None = None, path: str | None = None,
        language: str | None = None,
    ) -> Iterator[tuple[int, str, str, str | None, bytes]]:
        where, params = filter_sql(source, None, path, language)
        if match is not None:
            grams, gram_params = trigram_filter(match)
            where.append(f"d.id IN (SELECT t.document_id FROM code_text t WHERE {grams.replace('%s', '?')})")
            params += gram_params
        where.append("TRUE")
        files = self.conn.execute(
            f"""SELECT d.id, s.name, d.path, d.language, d.content_hash FROM documents d
                JOIN sources s ON s.id = d.source_id
                WHERE d.kind = 'code' AND {' AND '.join(where)} ORDER BY s.name, d.path""", params).fetchall()
        self._texts.new_pass((doc_id, digest) for doc_id, _, _, _, digest in files)
        for doc_id, name, rel, lang, digest in files:
            text = self._texts.get((doc_id, digest))
            if text is None:
                stored = self.code_text(doc_id)
                if stored is None:
                    continue
                text = self._texts.put((doc_id, digest), stored)
            yield doc_id, name, rel, lang, text

    def code_text(self, doc_id: int) -> bytes | None:
        """As SQLite's."""
        row = self.conn.execute("SELECT text FROM code_text WHERE document_id = ?", (doc_id,)).fetchone()
        return row[0].encode("utf-8", "surrogatepass") if row is not None else None

    def code_files_matching(self, match: str) -> set[int]:
        """As SQLite's, through the pg_trgm index."""
        grams, params = trigram_filter(match)
        return {row[0] for row in self.conn.execute(
            f"SELECT t.document_id FROM code_text t WHERE {grams.replace('%s', '?')}", params)}

    def symbol_spans(self, document_ids: Sequence[int]) -> dict[int, list[tuple[int, int, str]]]:
        """As SQLite's, from one row a definition."""
        spans: dict[int, list[tuple[int, int, str]]] = {}
        rows = self._select_in(
            "SELECT document_id, start_line, end_line, name FROM symbols WHERE document_id IN ({})", (), document_ids)
        for doc_id, start, end, name in rows:
            spans.setdefault(doc_id, []).append((start, end, name))
        return spans

    def symbol_rows(self, column: str, value: str | int) -> list[tuple[int, int, str, str, int, int, str, int]]:
        """As SQLite's, from one row a definition."""
        where = {"name": "short = ? COLLATE NOCASE AND name = ?", "short": "short = ? COLLATE NOCASE AND short = ?",
                 "document_id": "document_id = ?", "short_like": "short LIKE ? ESCAPE '\\'",
                 "short_nocase": "short = ? COLLATE NOCASE"}[column]
        params: tuple[str | int, ...] = (value,)
        if column == "name":
            params = (str(value).rsplit(".", 1)[-1], value)
        elif column == "short":
            params = (value, value)
        return self.conn.execute(
            f"""SELECT id, document_id, name, kind, start_line, end_line, signature, exported FROM symbols
                WHERE {where} ORDER BY document_id, start_line""", params).fetchall()

    def symbol_shorts(self) -> list[str]:
        """Every distinct short symbol name (for fuzzy lookups)."""
        return [row[0] for row in self.conn.execute("SELECT DISTINCT short FROM symbols")]

    def ref_rows(self, column: str, value: str | int,
                 kind: str | tuple[str, ...] | None = None) -> list[tuple[int, str, str, str, str, int, str]]:
        where = {"name": "name = ?", "document_id": "document_id = ?"}[column]
        params: list[str | int] = [value]
        if kind is not None:
            kinds = (kind,) if isinstance(kind, str) else kind
            where += f" AND kind IN ({', '.join('?' * len(kinds))})"
            params.extend(kinds)
        return self.conn.execute(
            f"""SELECT document_id, kind, name, qualifier, alias, line, scope
                FROM refs WHERE {where} ORDER BY document_id, line, n""", params).fetchall()

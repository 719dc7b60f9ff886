"""Documents, chunks and keyword search on PostgreSQL: a weighted `tsvector` ranked by
BM25 as FTS5 ranks it, the FTS5 expression rebuilt as a `tsquery`."""


from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from mindex.errors import (
    NotFoundError,
    SourceExistsError,
)
from mindex.models import Chunk, Document, Facets, Hit, Source
from mindex.store.base import KEPT_COLUMNS, kept_chunks
from mindex.store.sqlite import CHUNK_JOINS, BM25_WEIGHTS, filter_sql, hit_of_row
from mindex.store.sqlite.match import SATURATION, match_tokens, or_terms, idf as idf_of
from mindex.store.postgres.core import PgCore, BAD_TEXT, clean


# Matches of a keyword search that get the exact BM25 (the best by a cheap score first).
RESCORED = 1000
# Words in this share of all chunks or more are "common": an OR query looks at the chunks
# holding a rarer word first (exact; see keyword_search). 0 turns it off.
COMMON = 0.1


def _words(text: str) -> str:
    """Words as the index splits them (every non-alphanumeric character separates)."""
    return " ".join(re.findall(r"[^\W_]+", text))


def tsquery(match: str) -> tuple[str, list[str]]:
    """SQL (and its parameters) for the tsquery of one of our FTS5 expressions: quoted words
    and phrases, optional `*` prefixes, AND, OR and brackets. Anything else is ignored, so
    no input raises a syntax error; an expression with no words matches nothing."""
    parts: list[str] = []
    params: list[str] = []
    for quoted, star, other in match_tokens(match):
        if quoted is None:
            parts.append({"AND": "&&", "OR": "||"}.get(other or "", other or ""))
            continue
        words = _words(quoted)
        if not words:
            parts.append("''::tsquery")
        elif star and " " not in words:
            parts.append("to_tsquery('mindex', %s)")
            params.append(words + ":*")
        else:
            parts.append("phraseto_tsquery('mindex', %s)")
            params.append(words)
    sql = " ".join(parts)
    return (sql or "''::tsquery"), params


def _clean_chunk(chunk: Chunk) -> Chunk:
    if any(BAD_TEXT.search(t) for t in (chunk.title, chunk.context, chunk.text, chunk.terms or "")):
        return replace(chunk, title=clean(chunk.title), context=clean(chunk.context), text=clean(chunk.text),
                       terms=clean(chunk.terms or ""))
    return chunk


class PgChunks(PgCore):
    """Chunks and keyword search on PostgreSQL."""

    def add_source(self, source: Source) -> Source:
        options = json.dumps({"include": list(source.include), "exclude": list(source.exclude)})
        with self.transaction() as db:
            clash = db.execute("SELECT name FROM sources WHERE name = ? OR (root = ? AND kind = ?)",
                               (source.name, source.root, source.kind)).fetchone()
            if clash:
                raise SourceExistsError(f"a source {clash[0]!r} already covers that; "
                                        f"see `mindex sources`, or `mindex remove {clash[0]}` first")
            (sid,) = db.execute("INSERT INTO sources (name, kind, root, options, created_at) VALUES (?, ?, ?, ?, ?) "
                                "RETURNING id", (source.name, source.kind, source.root, options, time.time())).fetchone()
        return Source(source.name, source.kind, source.root, source.include, source.exclude, sid)

    def write_batch(
        self,
        source_id: int,
        upserts: Sequence[Document] = (),
        touches: Sequence[tuple[str, int, int]] = (),
        deletes: Sequence[str] = (),
    ) -> None:
        """Replace documents, refresh markers, drop deleted ones: one transaction (rows that
        hang off a deleted document go with it by ON DELETE CASCADE). A document indexed before
        keeps its row and each chunk whose text, title, context, terms, facets and kind are
        unchanged (its ordinal, lines, page and time updated in place: the generated `tsvector`
        and length depend on none of those, so PostgreSQL leaves them be), as SQLite's store
        does; an edit usually changes one chunk of a file and moves the others."""
        now = time.time()
        with self.transaction() as db:
            if deletes:
                db.execute("DELETE FROM documents WHERE source_id = ? AND path = ANY(?)", (source_id, list(deletes)))
            db.executemany("UPDATE documents SET size = ?, mtime_ns = ? WHERE source_id = ? AND path = ?",
                           [(size, mtime, source_id, path) for path, size, mtime in touches])
            for doc in upserts:
                chunks = [_clean_chunk(c) for c in doc.chunks]
                fields = (doc.kind, clean(doc.title), doc.size, doc.mtime_ns, doc.content_hash,
                          clean(json.dumps(doc.metadata, ensure_ascii=False)), now,
                          doc.metadata.get("language") if doc.kind == "code" else None)
                kept = self._kept_chunks(db, source_id, doc.path, chunks)
                if kept is None:
                    (doc_id,) = db.execute(
                        """INSERT INTO documents (source_id, path, kind, title, size, mtime_ns, content_hash, metadata,
                           indexed_at, language) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id""",
                        (source_id, doc.path, *fields)).fetchone()
                    moved: dict[str, int] = {}
                else:
                    doc_id, moved = kept
                    db.execute("""UPDATE documents SET kind = ?, title = ?, size = ?, mtime_ns = ?, content_hash = ?,
                                  metadata = ?, indexed_at = ?, language = ? WHERE id = ?""", (*fields, doc_id))
                    db.executemany("UPDATE chunks SET ordinal = ?, start_line = ?, end_line = ?, page = ?, at = ? "
                                   "WHERE seq = ?", [(c.ordinal, c.start_line, c.end_line, c.page, c.at, moved[c.id])
                                                     for c in chunks if c.id in moved])
                self._insert_chunks(db, doc_id, [c for c in chunks if c.id not in moved], 0)
                db.copy("symbols", ("document_id", "name", "short", "kind", "start_line", "end_line", "signature",
                                    "exported"),
                        [(doc_id, clean(name), clean(name.rsplit(".", 1)[-1]), kind, first, last, clean(signature),
                          int(exported)) for name, kind, first, last, signature, exported in doc.symbols])
                db.copy("refs", ("document_id", "n", "kind", "name", "qualifier", "alias", "line", "scope"),
                        [(doc_id, n, kind, clean(name), clean(qualifier), clean(alias), line, clean(scope))
                         for n, (kind, name, qualifier, alias, line, scope) in enumerate(doc.refs)])
                if doc.text is not None:
                    db.execute("INSERT INTO code_text (document_id, text) VALUES (?, ?)", (doc_id, clean(doc.text)))

    def _kept_chunks(self, db: Any, source_id: int, path: str, chunks: Sequence[Chunk],
                     ) -> tuple[int, dict[str, int]] | None:
        """Before new `chunks` replace the document at `path`: None when there is none, else
        its id and {chunk id: seq} of the chunks it keeps (stored exactly as they would be
        now); its other chunks (their facets by cascade), definitions, references and code
        text are deleted here."""
        row = db.execute("SELECT id FROM documents WHERE source_id = ? AND path = ?", (source_id, path)).fetchone()
        if row is None:
            return None
        doc_id = row[0]
        kept, gone = kept_chunks(chunks, [c.text for c in chunks], db.execute(
            f"SELECT seq, id, {KEPT_COLUMNS} FROM chunks WHERE document_id = ?", (doc_id,)).fetchall())
        if gone:
            db.execute("DELETE FROM chunks WHERE seq = ANY(?)", (gone,))
        for table in self._DOCUMENT_TABLES:
            if table != "chunks":
                db.execute(f"DELETE FROM {table} WHERE document_id = ?", (doc_id,))
        return doc_id, kept

    @staticmethod
    def _append(db: Any, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        """Rows in by COPY (a document's chunks: no statement planned and run a row)."""
        db.copy(table, columns, rows)

    def append_chunks(self, source_id: int, path: str, before: tuple[int, int], after: tuple[int, int],
                      place: Callable[[int], tuple[Sequence[Chunk], int]]) -> bool:
        with self.transaction() as db:
            row = db.execute("SELECT id, size, mtime_ns, metadata FROM documents WHERE source_id = ? AND path = ? "
                             "FOR UPDATE", (source_id, path)).fetchone()
            if row is None or (row[1], row[2]) != before:
                return False
            doc_id = row[0]
            metadata = json.loads(row[3] or "{}")
            if not isinstance(metadata.get("lines"), int):
                return False
            chunks, lines = place(metadata["lines"])
            (last_seq,) = db.execute("SELECT coalesce(max(seq), 0) FROM chunks WHERE document_id = ?",
                                     (doc_id,)).fetchone()
            (ordinal,) = db.execute("SELECT coalesce(max(ordinal) + 1, 0) FROM chunks WHERE document_id = ?",
                                    (doc_id,)).fetchone()
            self._insert_chunks(db, doc_id, [_clean_chunk(c) for c in chunks], last_seq, ordinal)
            db.execute("UPDATE documents SET size = ?, mtime_ns = ?, content_hash = '', indexed_at = ?, metadata = ? "
                       "WHERE id = ?", (*after, time.time(), json.dumps({**metadata, "lines": lines}), doc_id))
        return True

    def refresh_keyword_tops(self, expression: Callable[[str], str | None] | None = None,
                             progress: Callable[[str, int, int], None] | None = None) -> None:
        """Nothing to make: the lists of best chunks for common words are SQLite's (FTS5
        scores every match); this store ranks from its own document frequencies."""

    def keyword_ranked(
        self,
        match: str,
        limit: int,
        offset: int = 0,
        source: str | None = None,
        kind: str | None = None,
        path: str | None = None,
        language: str | None = None,
        symbol_kind: str | None = None,
        facets: Facets | None = None,
    ) -> list[tuple[int, float]]:
        """(seq, BM25) of the matching chunks, best first: BM25 as SQLite's FTS5 has it (k1 1.2,
        b 0.75, the fields weighted 8 : 4 : 1 : 1); `keyword_search` reads them as hits, as on
        SQLite. PostgreSQL's own `ts_rank` knows no document frequencies: on the dev sets it
        ranked far below BM25 (code-ts keyword nDCG@10 0.150 against 0.337). Document
        frequencies and the mean length are read once per data version."""
        where, params = filter_sql(source, kind, path, language, symbol_kind, facets, self._PACKED)
        lexemes = self._lexemes(tsquery(match)[1])
        count, mean = self._corpus()
        # FTS5's BM25: a term's frequency is summed over the fields, each occurrence counting
        # its field's weight; the length is the whole row's; idf never below 1e-6.
        idf = {x: idf_of(count, self._df(x)) for x in lexemes}
        wanted = limit + offset
        # An OR of terms where some are common (in a tenth of all chunks or more): first look only
        # at the chunks holding a rarer term. A chunk left out can still hold any query word but
        # those whose one-word term it would then match, and each word adds under 2.2 × its idf;
        # if the page's last score beats that sum, no chunk left out could enter the page and
        # the answer is exact. Else the whole query runs.
        terms = or_terms(match)
        if len(terms) > 1 and COMMON:
            rare, forcing = [], set()
            for term in terms:
                words = self._lexemes(tsquery(term)[1])
                if not words or any(self._df(x) < count * COMMON for x in words):
                    rare.append(term)
                    if len(words) == 1:  # holding this word means matching this term
                        forcing.add(words[0])
            bound = SATURATION * sum(value for x, value in idf.items() if x not in forcing)
            if rare and len(rare) < len(terms):
                ranked = self._ranked(" OR ".join(rare), idf, mean, where, params, wanted)
                if len(ranked) >= wanted and ranked[wanted - 1][1] > bound:
                    return ranked[offset:wanted]
        return self._ranked(match, idf, mean, where, params, wanted)[offset:wanted]

    def _ranked(self, match: str, idf: dict[str, float], mean: float, where: list[str], params: list[Any],
                wanted: int) -> list[tuple[int, float]]:
        """(seq, BM25) of the best `wanted` chunks matching `match`, scored on the `idf` words.
        Two steps: every match gets a cheap score (the idf of each query word it holds, a
        lookup in its tsvector; ts_rank breaks ties), and only the best thousand get BM25,
        which has to unnest their tsvectors."""
        query_sql, query_params = tsquery(match)
        lexemes, values = list(idf), list(idf.values())
        weight = "CASE f " + " ".join(f"WHEN '{k}' THEN {w}" for k, w in zip(
            "ABCD", (BM25_WEIGHTS[0], BM25_WEIGHTS[1], BM25_WEIGHTS[3], BM25_WEIGHTS[2]))) + " END"
        joins = CHUNK_JOINS if where else ""
        held = " + ".join(f"(CASE WHEN c.search @@ ?::tsquery THEN {value!r} ELSE 0 END)" for value in values) or "0"
        words = ["'" + x.replace("'", "''") + "'" for x in lexemes]
        rows = self.conn.execute(
            f"""WITH q AS (SELECT {query_sql.replace('%s', '?')} AS q),
                w AS (SELECT * FROM unnest(?::text[], ?::float8[]) AS w(lexeme, idf)),
                cand AS (SELECT c.seq, c.search, c.words AS dl FROM q, chunks c {joins}
                         WHERE {' AND '.join(['c.search @@ q.q', *where])}
                         ORDER BY {held} DESC, ts_rank(c.search, q.q) DESC, c.seq LIMIT ?)
                SELECT cand.seq, coalesce(sum(w.idf * t.tf * 2.2 / (t.tf + 1.2 * (0.25 + 0.75 * cand.dl / ?))), 0) AS r
                FROM cand LEFT JOIN LATERAL (
                    SELECT u.lexeme, sum({weight}) AS tf FROM unnest(cand.search) u, unnest(u.weights) f
                    WHERE u.lexeme = ANY(?::text[]) GROUP BY u.lexeme) t ON TRUE
                LEFT JOIN w ON w.lexeme = t.lexeme
                GROUP BY cand.seq ORDER BY r DESC, cand.seq LIMIT ?""",
            (*query_params, lexemes, values, *params, *words, max(RESCORED, 4 * wanted), max(mean, 1e-9),
             lexemes, wanted)).fetchall()
        return [(int(seq), float(score)) for seq, score in rows]

    def _corpus(self) -> tuple[int, float]:
        """(chunks, their mean length in words over all fields), per data version."""
        version = self.data_version()
        stats = self._stats
        if stats is None or stats[0] != version:
            row = self.conn.execute("SELECT count(*), avg(words) FROM chunks").fetchone()
            stats = self._stats = (version, int(row[0]), float(row[1] or 0.0))
            self._dfs = {}
        return stats[1], stats[2]

    def _df(self, lexeme: str) -> int:
        """How many chunks hold a word (its GIN entry), cached with the corpus statistics."""
        if lexeme not in self._dfs:
            self._dfs[lexeme] = int(self.conn.execute(
                "SELECT count(*) FROM chunks WHERE search @@ ?::tsquery", ("'" + lexeme.replace("'", "''") + "'",)
            ).fetchone()[0])
        return self._dfs[lexeme]

    def _lexemes(self, words: Sequence[str]) -> list[str]:
        """The index's words (stems) for a query's words and phrases (a prefix's `:*` dropped)."""
        text = " ".join(w.removesuffix(":*") for w in words)
        if not text.strip():
            return []
        rows = self.conn.execute("SELECT DISTINCT lexeme FROM unnest(to_tsvector('mindex', ?))", (text,)).fetchall()
        return sorted(row[0] for row in rows)

    def get_chunk(self, chunk_id: str) -> Hit:
        base = f"SELECT {self.HIT_COLUMNS} FROM chunks c {CHUNK_JOINS}"
        rows = self.conn.execute(base + " WHERE c.id = ?", (chunk_id,)).fetchall()
        if not rows and len(chunk_id) >= 6:
            prefix = chunk_id.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            rows = self.conn.execute(base + " WHERE c.id LIKE ? LIMIT 2", (prefix,)).fetchall()
        if not rows and len(chunk_id) < 6:
            raise NotFoundError(f"chunk id {chunk_id!r} is too short: an id prefix needs 6 or more characters; "
                                "copy an id from `mindex search --json`")
        if len(rows) != 1:
            what = "matches several chunks" if rows else "matches no chunk"
            raise NotFoundError(f"chunk id {chunk_id!r} {what}; copy an id from `mindex search --json`")
        return hit_of_row(rows[0], score=0.0, snippet="")

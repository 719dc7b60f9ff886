"""Sources, documents and their chunks: writing a batch, keyword search (FTS5, BM25),
filters and fetching a chunk."""


from __future__ import annotations

import json
import sqlite3
import time
from contextlib import contextmanager
from functools import cached_property
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from mindex.errors import (
    NotFoundError,
    SourceExistsError,
    StoreError,
)
from mindex.models import Chunk, Document, Facets, Hit, SkippedFile, Source, SourceStats
from mindex.store.base import KEPT_COLUMNS, facets_json, kept_chunks, pack, short_name
from mindex.store.sqlite.code import CodeTables, in_file
from mindex.store.sqlite.core import log, trigrams_built
from mindex.store.sqlite.match import SATURATION, fts_rows, idf, or_terms, phrases
from mindex.store.sqlite import tops
from mindex.store.sqlite.queries import BATCH_CHUNK_TEXT, CHUNK_JOINS, TEXTLESS_HIT_COLUMNS, filter_sql, hit_of_row, facet_rows


# BM25 column weights for (title, context, text, terms): a word in a heading or breadcrumb
# says more about what a chunk is about than the same word in its body; terms are the words
# inside the body's camelCase names.
BM25_WEIGHTS = (8.0, 4.0, 1.0, 1.0)
# An OR of terms whose phrases are in this many chunks or more (counted once a chunk a
# phrase) is ranked with `_any_term`'s shortcut; below it one query is as quick.
SHORTCUT_FROM = 10_000
# ... and of at most this many terms: a longer OR (a pasted log, a paragraph) has common terms
# whose bounds add up past any page's last score, so trying cost more than it saved.
SHORTCUT_TERMS = 16
# A chunk row as `_insert_chunks` writes it.
CHUNK_COLUMNS = ("id", "document_id", "ordinal", "title", "context", "text", "hash", "start_line", "end_line", "page",
                 "symbol_kind", "terms", "at", "facets")
Kept = tuple[int, dict[str, int], dict[str, set[str]]]
"""What a re-indexed document keeps (`_keep_unchanged`): its id, {chunk id: seq}, and per
name table the names already there."""


class ChunkTables(CodeTables):
    """Sources, documents, chunks and keyword search."""

    def add_source(self, source: Source) -> Source:
        """Register a source; its name and root must both be new.

        Raises:
            SourceExistsError: a source with that name or root exists.
        """
        options = json.dumps({"include": list(source.include), "exclude": list(source.exclude)})
        with self.transaction() as db:
            clash = db.execute(
                "SELECT name FROM sources WHERE name = ? OR (root = ? AND kind = ?)",
                (source.name, source.root, source.kind),
            ).fetchone()
            if clash:
                raise SourceExistsError(
                    f"a source {clash[0]!r} already covers that; "
                    f"see `mindex sources`, or `mindex remove {clash[0]}` first"
                )
            cursor = db.execute(
                "INSERT INTO sources (name, kind, root, options, created_at) VALUES (?, ?, ?, ?, ?)",
                (source.name, source.kind, source.root, options, time.time()),
            )
        return Source(source.name, source.kind, source.root, source.include, source.exclude, cursor.lastrowid)

    def remove_source(self, source_id: int) -> None:
        """Delete a source with its documents, chunks and FTS rows."""
        with self.transaction() as db:
            for table in self._DOCUMENT_TABLES:
                db.execute(
                    f"DELETE FROM {table} WHERE document_id IN (SELECT id FROM documents WHERE source_id = ?)",
                    (source_id,),
                )
            db.execute("DELETE FROM documents WHERE source_id = ?", (source_id,))
            db.execute("DELETE FROM sources WHERE id = ?", (source_id,))

    def list_sources(self) -> list[SourceStats]:
        """Every source with its document and chunk counts, in registration order."""
        rows = self.conn.execute(
            """
            SELECT s.id, s.name, s.kind, s.root, s.options, s.indexed_at,
                   (SELECT count(*) FROM documents d WHERE d.source_id = s.id),
                   (SELECT count(*) FROM chunks c JOIN documents d ON d.id = c.document_id
                     WHERE d.source_id = s.id)
            FROM sources s ORDER BY s.id
            """
        ).fetchall()
        out = []
        for sid, name, kind, root, options, indexed_at, docs, chunks in rows:
            opts = json.loads(options)
            source = Source(
                name, kind, root, tuple(opts.get("include", ())), tuple(opts.get("exclude", ())),
                sid, indexed_at,
            )
            out.append(SourceStats(source, docs, chunks))
        return out

    def skipped_markers(self, source_id: int) -> dict[str, tuple[int, int, str]]:
        """Map each file the last run skipped for its bytes to (size, mtime_ns, reason)."""
        rows = self.conn.execute(
            "SELECT path, size, mtime_ns, reason FROM skipped_files WHERE source_id = ? AND size IS NOT NULL",
            (source_id,),
        )
        return {path: (size, mtime, reason) for path, size, mtime, reason in rows}

    def document_list(self, source_id: int) -> list[tuple[str, str | None, int, int]]:
        """(path, language, size, chunks) of each indexed file of a source, by path."""
        return [(path, language, size, chunks) for path, language, size, chunks in self.conn.execute(
            "SELECT d.path, d.language, d.size, (SELECT count(*) FROM chunks c WHERE c.document_id = d.id) "
            "FROM documents d WHERE d.source_id = ? ORDER BY d.path", (source_id,))]

    def document_markers(self, source_id: int) -> dict[str, tuple[int, int, str]]:
        """Map each stored path of a source to (size, mtime_ns, content_hash)."""
        rows = self.conn.execute(
            "SELECT path, size, mtime_ns, content_hash FROM documents WHERE source_id = ?",
            (source_id,),
        )
        return {path: (size, mtime, digest) for path, size, mtime, digest in rows}

    def write_batch(
        self,
        source_id: int,
        upserts: Sequence[Document] = (),
        touches: Sequence[tuple[str, int, int]] = (),
        deletes: Sequence[str] = (),
    ) -> None:
        """Replace whole documents, refresh markers of unchanged ones, drop deleted ones.

        A document indexed before keeps its row and the rows of its chunks whose text did not
        change, their lines and order brought up to date (an edit above them moves them): only
        the other chunks leave and enter the full-text index, which tokenizes every text it
        adds or removes. One transaction: after a crash either all of the batch is there or
        none of it.
        """
        now = time.time()
        with self.transaction() as db:
            for path in deletes:
                self._delete_document(db, source_id, path)
            lines_of = {doc.path: doc.text.split("\n") if doc.text is not None else None for doc in upserts}
            kept = {doc.path: self._keep_unchanged(db, source_id, doc, lines_of[doc.path]) for doc in upserts}
            db.executemany(
                "UPDATE documents SET size = ?, mtime_ns = ? WHERE source_id = ? AND path = ?",
                [(size, mtime, source_id, path) for path, size, mtime in touches],
            )
            # Every delete is done: the chunks inserted below get sequence numbers above this.
            (last_seq,) = db.execute("SELECT coalesce(max(seq), 0) FROM chunks").fetchone()
            tops.lower_floor(db, last_seq)
            trigrams = trigrams_built(db)  # else the first grep indexes every text at once
            for doc in upserts:
                fields = (doc.kind, doc.title, doc.size, doc.mtime_ns, doc.content_hash,
                          json.dumps(doc.metadata, ensure_ascii=False), now,
                          doc.metadata.get("language") if doc.kind == "code" else None)
                chunks: Sequence[Chunk] = doc.chunks
                present: dict[str, set[str]] = {}
                if (previous := kept[doc.path]) is None:
                    cursor = db.execute(
                        """INSERT INTO documents (source_id, path, kind, title, size, mtime_ns, content_hash, metadata,
                           indexed_at, language) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""", (source_id, doc.path, *fields))
                    doc_id = cursor.lastrowid
                    assert doc_id is not None
                else:
                    doc_id, moved, present = previous
                    db.execute("""UPDATE documents SET kind = ?, title = ?, size = ?, mtime_ns = ?, content_hash = ?,
                                  metadata = ?, indexed_at = ?, language = ? WHERE id = ?""", (*fields, doc_id))
                    self._move(db, [(c.ordinal, c.start_line, c.end_line, c.page, c.at, moved[c.id])
                                    for c in doc.chunks if c.id in moved])
                    chunks = [c for c in doc.chunks if c.id not in moved]
                lines = lines_of[doc.path]
                self._insert_chunks(db, doc_id, chunks, last_seq, lines=lines, given=self._file_lines.given)
                self._insert_symbols(db, doc_id, doc.symbols, doc.packed_symbols, present.get("symbol_names", ()),
                                     self.staging)
                self._insert_refs(db, doc_id, doc.refs, doc.packed_refs, present.get("ref_names", ()), self.staging)
                if doc.text is not None and lines is not None:
                    packed = doc.packed if doc.packed is not None else pack(doc.text)
                    db.execute("INSERT INTO code_text (document_id, packed) VALUES (?, ?)", (doc_id, packed))
                    if trigrams:
                        db.execute("INSERT INTO code_trigrams (rowid, text) VALUES (?, ?)", (doc_id, doc.text))
            try:
                db.execute(f"""INSERT INTO chunks_fts (rowid, title, context, text, terms)
                               SELECT seq, title, context, {BATCH_CHUNK_TEXT}, terms FROM chunks c WHERE seq > ?""",
                           (last_seq,))
            finally:
                self._file_lines.given.clear()

    @staticmethod
    def _append(db: Any, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        """Insert rows into a table (PostgreSQL's store copies them in instead)."""
        db.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})", rows)

    @classmethod
    def _insert_chunks(cls, db: sqlite3.Connection, doc_id: int, chunks: Sequence[Chunk], last_seq: int,
                       first: int | None = None, lines: list[str] | None = None,
                       given: dict[str, str] | None = None) -> None:
        """Insert a document's chunks (numbered from `first` when given, else by their own
        ordinals) and the facet rows of those that have facets; `last_seq` is the highest seq
        before the batch. With the lines of the code file stored beside them, a chunk that is
        exactly some of those lines stores '' (read back through mindex_lines), and its text
        goes in `given` by chunk id. The full-text rows are the caller's: one INSERT ... SELECT
        a batch."""
        stored = [c.text for c in chunks]
        if lines is not None:
            for n, c in enumerate(chunks):
                if in_file(c.text, lines, c.start_line, c.end_line):
                    stored[n] = ""
                    if given is not None:
                        given[c.id] = c.text
        cls._append(
            db, "chunks", CHUNK_COLUMNS,
            [(c.id, doc_id, c.ordinal if first is None else first + n, c.title, c.context, stored[n], c.hash,
              c.start_line, c.end_line, c.page, c.symbol_kind, c.terms, c.at, facets_json(c.facets))
             for n, c in enumerate(chunks)])
        faceted = {c.id: c.facets for c in chunks if c.facets}
        if faceted:
            # `+document_id`: the rows after `last_seq` are this batch, found through the key;
            # SQLite would rather walk the document's index, every chunk of a large journal.
            seqs = db.execute("SELECT id, seq FROM chunks WHERE seq > ? AND +document_id = ?",
                              (last_seq, doc_id)).fetchall()
            db.executemany("INSERT OR IGNORE INTO chunk_facets (name, value, seq) VALUES (?, ?, ?)",
                           [(name, value, seq) for cid, seq in seqs if cid in faceted
                            for name, value in facet_rows(faceted[cid])])

    def append_chunks(self, source_id: int, path: str, before: tuple[int, int], after: tuple[int, int],
                      place: Callable[[int], tuple[Sequence[Chunk], int]]) -> bool:
        """Add chunks at the end of a document whose file only grew (a memory save), at the
        cost of the chunks alone: `place(lines before)` gives them (their lines follow the
        document's recorded line count) and the new count. The markers go from `before` (size,
        mtime) to `after`, the content hash to '' (not read: the next run reads the file only
        if its size or time changes). Returns False, writing nothing, when the stored markers
        are not `before` or no line count is recorded (index the file whole)."""
        with self.transaction() as db:
            row = db.execute("SELECT id, size, mtime_ns, metadata FROM documents WHERE source_id = ? AND path = ?",
                             (source_id, path)).fetchone()
            if row is None or (row[1], row[2]) != before:
                return False
            doc_id, metadata = row[0], json.loads(row[3] or "{}")
            if not isinstance(metadata.get("lines"), int):
                return False
            chunks, lines = place(metadata["lines"])
            (last_seq,) = db.execute("SELECT coalesce(max(seq), 0) FROM chunks").fetchone()
            tops.lower_floor(db, last_seq)
            (ordinal,) = db.execute("SELECT coalesce(max(ordinal) + 1, 0) FROM chunks WHERE document_id = ?",
                                    (doc_id,)).fetchone()
            self._insert_chunks(db, doc_id, chunks, last_seq, ordinal)
            db.execute(f"""INSERT INTO chunks_fts (rowid, title, context, text, terms)
                           SELECT seq, title, context, {self.CHUNK_TEXT}, terms FROM chunks c WHERE seq > ?""",
                       (last_seq,))
            db.execute("UPDATE documents SET size = ?, mtime_ns = ?, content_hash = '', indexed_at = ?, metadata = ? "
                       "WHERE id = ?", (*after, time.time(), json.dumps({**metadata, "lines": lines}), doc_id))
        return True

    def forget_markers(self, source_id: int) -> None:
        """Make every document of a source look changed, so the next run reads and parses
        each file again (and replaces its rows one transaction at a time)."""
        with self.transaction() as db:
            db.execute("UPDATE documents SET size = -1, content_hash = '' WHERE source_id = ?", (source_id,))

    def _keep_unchanged(self, db: sqlite3.Connection, source_id: int, doc: Document,
                        lines: list[str] | None) -> Kept | None:
        """Before `doc` replaces the document at its path: None when there is none (the
        document is new), else its id, the chunks it keeps, {chunk id: seq} (those whose text,
        title, context, search terms, facets and kind are unchanged and stored the same way),
        and per name table the names it keeps. Everything else of the old document is deleted
        here, its other chunks first (their full-text rows are removed with the file's old
        text still stored). `lines`: the new text's lines (None without a stored text)."""
        row = db.execute("SELECT id FROM documents WHERE source_id = ? AND path = ?", (source_id, doc.path)).fetchone()
        if row is None:
            return None
        doc_id = row[0]
        texts = ["" if lines is not None and in_file(c.text, lines, c.start_line, c.end_line) else c.text
                 for c in doc.chunks]
        kept, gone = kept_chunks(doc.chunks, texts, db.execute(
            f"SELECT seq, id, {KEPT_COLUMNS} FROM chunks WHERE document_id = ?", (doc_id,)))
        db.executemany("DELETE FROM chunks WHERE seq = ?", [(seq,) for seq in gone])
        names = {"ref_names": {ref[1] for ref in doc.refs}, "symbol_names": {short_name(s[0]) for s in doc.symbols}}
        present: dict[str, set[str]] = {}
        for table in self._DOCUMENT_TABLES:
            if table in names:
                present[table] = self._delete_names(db, doc_id, table, names[table])
            elif table != "chunks":
                db.execute(f"DELETE FROM {table} WHERE document_id = ?", (doc_id,))
        return doc_id, kept, present

    def _move(self, db: sqlite3.Connection, rows: list[tuple[int, int | None, int | None, int | None, Any, int]]) -> None:
        """Bring kept chunks' (ordinal, lines, page, time) up to date by seq. Their full-text
        rows stay as they are (`mindex_moving()` holds the update trigger back): the text they
        were made from is the same, wherever its lines went."""
        self._moving = 1
        try:
            db.executemany("UPDATE chunks SET ordinal = ?, start_line = ?, end_line = ?, page = ?, at = ? WHERE seq = ?",
                           rows)
        finally:
            self._moving = 0

    def _delete_document(self, db: sqlite3.Connection, source_id: int, path: str) -> None:
        row = db.execute(
            "SELECT id FROM documents WHERE source_id = ? AND path = ?", (source_id, path)
        ).fetchone()
        if row:
            for table in self._DOCUMENT_TABLES:  # chunks first (see _DOCUMENT_TABLES)
                if table in ("ref_names", "symbol_names"):
                    self._delete_names(db, row[0], table)
                else:
                    db.execute(f"DELETE FROM {table} WHERE document_id = ?", (row[0],))
            db.execute("DELETE FROM documents WHERE id = ?", (row[0],))

    def finish_run(self, source_id: int, skipped: Sequence[SkippedFile]) -> None:
        """Record a complete run: its skipped files and the time it ended."""
        with self.transaction() as db:
            db.execute("DELETE FROM skipped_files WHERE source_id = ?", (source_id,))
            db.executemany(
                "INSERT OR REPLACE INTO skipped_files (source_id, path, reason, size, mtime_ns) VALUES (?, ?, ?, ?, ?)",
                [(source_id, s.path, s.reason, s.size, s.mtime_ns) for s in skipped],
            )
            db.execute("UPDATE sources SET indexed_at = ? WHERE id = ?", (time.time(), source_id))

    def filtered_seqs(self, source: str | None, kind: str | None, path: str | None,
                      language: str | None = None, symbol_kind: str | None = None,
                      facets: Facets | None = None) -> list[int]:
        """Chunk seqs passing the filters (for filtering before vector top-k)."""
        where, params = filter_sql(source, kind, path, language, symbol_kind, facets, self._PACKED,
                                 every_chunk=True)
        where.append("1")
        return [row[0] for row in self.conn.execute(
            f"""SELECT c.seq FROM chunks c {CHUNK_JOINS} WHERE {' AND '.join(where)}""", params
        )]

    def hits_by_seq(self, seqs: Sequence[int], text: bool = True) -> dict[int, Hit]:
        """Hits (score 0, no snippet) for chunk seqs, keyed by seq; with `text` false, their
        text is '' (a code chunk's is cut from its file's compressed text: most of the cost)."""
        columns = self.HIT_COLUMNS if text else TEXTLESS_HIT_COLUMNS
        sql = f"SELECT c.seq, {columns} FROM chunks c {CHUNK_JOINS} WHERE c.seq IN ({{}})"
        return {row[0]: hit_of_row(row[1:], 0.0, "") for row in self._select_in(sql, (), seqs)}

    def hits_ranked(self, ranked: Sequence[tuple[int, float]], text: bool = True) -> list[Hit]:
        """The hits of (seq, score) rows, in their order, each with its score (no snippet);
        a seq no longer in the index is left out."""
        if not ranked:
            return []
        found = self.hits_by_seq([seq for seq, _ in ranked], text)
        return [found[seq].but(score=score) for seq, score in ranked if seq in found]

    def keyword_search(self, match: str, limit: int, offset: int = 0, **filters: Any) -> list[Hit]:
        """The rows of `keyword_ranked` (same arguments) read as hits, without snippets (search
        writes them for the page)."""
        return self.hits_ranked(self.keyword_ranked(match, limit, offset, **filters))

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
        """(seq, BM25) of the chunks an FTS5 MATCH expression finds, best first, with optional
        filters: the chunks are ranked by rowid alone (joining the chunk tables only when a
        filter needs them) and read afterwards, by whoever needs them (asked in one query,
        SQLite would build every match's row before sorting: most of a search's time on a
        100k-chunk index)."""
        where, params = filter_sql(source, kind, path, language, symbol_kind, facets, self._PACKED)
        wanted = limit + offset
        ranked = self._any_term(match, wanted, where, params)
        if ranked is None and not where:
            ranked = self._common_word(match, wanted)
        if ranked is None:
            ranked = self._fts_ranked(match, wanted, where, params)
        return ranked[offset:]

    def _common_word(self, match: str, wanted: int) -> list[tuple[int, float]] | None:
        """The page of one common word or name from its list of best chunks (`tops.ranked`),
        in one read transaction; None when it has none or the list cannot say."""
        with self._one_state():
            return tops.ranked(self.conn, self._stemmer, match, wanted, BM25_WEIGHTS)

    @contextmanager
    def _one_state(self) -> Iterator[None]:
        """A read transaction around several reads that must see one state of the index (the
        caller's transaction, when it has one)."""
        own = not self.conn.in_transaction
        if own:
            self.conn.execute("BEGIN")
        try:
            yield
        finally:
            if own:
                self.conn.execute("COMMIT")

    @cached_property
    def _stemmer(self) -> tops.Stemmer:
        return tops.Stemmer(self.conn)

    def refresh_keyword_tops(self, expression: Callable[[str], str | None] | None = None,
                             progress: Callable[[str, int, int], None] | None = None) -> None:
        """Make the lists of best chunks for common words and names (`tops`) when there are
        none or writes have moved the index by a tenth since: read in one read transaction
        (seconds at a million chunks, other writers free meanwhile), written only if the
        full-text index is still as read. `expression`: the FTS5 expression a search writes
        for a name (the names are those referenced in files enough to be common); `progress`
        hears each list made (`tops.build`)."""
        if self.read_only or self.conn.in_transaction or not tops.needs_build(self.conn):
            return
        self.conn.execute("BEGIN")
        try:
            before = tops.records(self.conn)
            names = [] if expression is None else [
                (name, found) for (name,) in self.conn.execute(
                    "SELECT name FROM ref_names GROUP BY name HAVING count(*) >= ?", (tops.TOPS_FROM // 20,))
                if (found := expression(name)) is not None and " OR " in found]
            lists = tops.build(self.conn, BM25_WEIGHTS, names, progress)
        finally:
            self.conn.execute("COMMIT")
        if lists is None or before is None:
            return
        try:
            with self.transaction() as db:
                if tops.records(db) == before:
                    tops.write(db, lists, before)
        except StoreError as exc:  # another writer kept the lock, a full disk: searches rank as before
            log.warning("the lists of best chunks for common words were not written (%s); "
                        "the next `mindex index` makes them", exc)

    def _fts_ranked(self, match: str, wanted: int, where: list[str], params: list[Any]) -> list[tuple[int, float]]:
        """(seq, BM25) of the best `wanted` chunks matching `match` and the filters."""
        weights = ", ".join(str(w) for w in BM25_WEIGHTS)
        joins = f"JOIN chunks c ON c.seq = chunks_fts.rowid {CHUNK_JOINS}" if where else ""
        return self.conn.execute(
            f"""SELECT chunks_fts.rowid, -bm25(chunks_fts, {weights}) FROM chunks_fts {joins}
                WHERE {' AND '.join(["chunks_fts MATCH ?", *where])}
                ORDER BY bm25(chunks_fts, {weights}), chunks_fts.rowid LIMIT ?""",
            (match, *params, wanted)).fetchall()

    def _any_term(self, match: str, wanted: int, where: list[str], params: list[Any]) -> list[tuple[int, float]] | None:
        """The best `wanted` of an OR of terms, exactly as `_fts_ranked` has them, without scoring
        every chunk a common term is in (`return` is in a quarter of a code index: BM25 for
        each costs 150 ms at a million chunks, where counting them costs 5).

        A chunk's BM25 under an OR is the sum of what each term it holds adds, and a term adds
        under 2.2 × the idf of each of its phrases (`SATURATION`). So: rank only the chunks
        holding one of the rarer terms, each with its whole score (those that also hold a
        common term, then those that do not: two queries over the same phrases); if the
        page's last score beats the sum of the common terms' bounds, no chunk holding only
        common terms can enter the page, and the page is the exact one. If it does not, the
        common terms whose bounds fit under that score stay out and the rest are ranked
        (a larger set of chunks, so its last score is higher and the check passes). None
        when there is nothing to gain: one term, too many, or too few matches to be worth the counts."""
        terms = or_terms(match)
        if not 1 < len(terms) <= SHORTCUT_TERMS:
            return None
        with self._one_state():  # the counts and the queries read one state of the index
            return self._bounded(terms, wanted, where, params)

    def _bounded(self, terms: list[str], wanted: int, where: list[str], params: list[Any]) -> list[tuple[int, float]] | None:
        """`_any_term` for the OR of `terms`, in a read transaction."""
        block = self.conn.execute("SELECT block FROM chunks_fts_data WHERE id = 1").fetchone()
        if block is None:
            return None
        rows = fts_rows(block[0])
        bound, held = {}, {}
        for term in terms:
            counts = [self.conn.execute("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?", (phrase,)).fetchone()[0]
                      for phrase in phrases(term)]
            if not counts:
                return None
            bound[term] = SATURATION * sum(idf(rows, n) for n in counts)
            held[term] = sum(counts)
        if sum(held.values()) < SHORTCUT_FROM:
            return None
        order = sorted(terms, key=bound.__getitem__)  # the most common first
        split, holding = len(order) - 1, held[order[-1]]
        while split > 1 and holding < wanted:  # the rarest terms, with enough chunks between them
            split -= 1
            holding += held[order[split]]
        for _ in range(2):
            rare, common = " OR ".join(order[split:]), " OR ".join(order[:split])
            found = sorted(self._fts_ranked(f"({rare}) AND ({common})", wanted, where, params)
                           + self._fts_ranked(f"({rare}) NOT ({common})", wanted, where, params),
                           key=lambda row: (-row[1], row[0]))[:wanted]
            last = found[-1][1] if len(found) == wanted else 0.0
            fits, total = 0, 0.0
            while fits < len(order) - 1 and (total + bound[order[fits]]) * (1 + 1e-9) < last:
                total += bound[order[fits]]
                fits += 1
            if fits >= split:
                return found
            if not fits:
                return None
            split = fits
        return None

    def get_chunk(self, chunk_id: str) -> Hit:
        """Fetch a chunk by id, or by a unique prefix of at least 6 characters.

        Raises:
            NotFoundError: no chunk (or more than one) matches.
        """
        base = f"SELECT {self.HIT_COLUMNS} FROM chunks c {CHUNK_JOINS}"
        rows = self.conn.execute(base + " WHERE c.id = ?", (chunk_id,)).fetchall()
        if not rows and len(chunk_id) >= 6:
            rows = self.conn.execute(
                base + " WHERE c.id >= ? AND c.id < ? LIMIT 2", (chunk_id, chunk_id + "\U0010ffff")
            ).fetchall()
        if not rows and len(chunk_id) < 6:
            raise NotFoundError(
                f"chunk id {chunk_id!r} is too short: an id prefix needs 6 or more characters; "
                "copy an id from `mindex search --json`"
            )
        if len(rows) != 1:
            what = "matches several chunks" if rows else "matches no chunk"
            raise NotFoundError(
                f"chunk id {chunk_id!r} {what}; copy an id from `mindex search --json`"
            )
        return hit_of_row(rows[0], score=0.0, snippet="")

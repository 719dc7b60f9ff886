"""The code graph's tables (definitions and references, packed per document) and the
code files' stored texts that grep reads."""


from __future__ import annotations

import sqlite3
import time
import zlib
from collections.abc import Callable, Collection, Iterator, Sequence

from mindex.errors import (
    IndexLockedError,
    ReadOnlyIndexError,
    StoreError,
)
from mindex.models import ReferenceRow, SymbolRow
from mindex.store.base import (
    ChunkSpan,
    pack_refs,
    pack_symbols,
    ref_fields,
    short_name,
    unpack_symbols,
    written_key,
)
from mindex.store.sqlite.core import NAME_TABLES, SQLiteCore, insert_names, trigrams_built, log
from mindex.store.sqlite.functions import ASCII_LOWER, cut_lines
from mindex.store.sqlite.queries import CHUNK_SYMBOL, filter_sql


def symbol_id(doc_id: int, n: int) -> int:
    """A definition's id on SQLite: its document's number and its place in the document's
    packed row (internal: the graph tells definitions apart by it; never shown)."""
    return doc_id << 32 | n


def _nocase(text: str) -> str:
    """`text` as NOCASE compares it (ASCII letters lower-cased; `lower()` where the text is
    all ASCII, the same there and 20 times faster than the translation table)."""
    return text.lower() if text.isascii() else text.translate(ASCII_LOWER)


def in_file(text: str, lines: list[str], first: int | None, last: int | None) -> bool:
    """True when a chunk's text is exactly lines first..last of its file (stored as '')."""
    return bool(text) and first is not None and last is not None and cut_lines(lines, first, last) == text


class CodeTables(SQLiteCore):
    """Definitions, references and code texts."""

    # The code files `code_texts` listed last: (what decides them, their rows).
    _code_files: tuple[tuple[object, ...], list[tuple[int, str, str, str | None, str]]] | None = None

    def code_files_without_text(self) -> int:
        """Code documents whose text is not stored (an upgrade emptied it until the next run)."""
        (missing,) = self.conn.execute(
            "SELECT count(*) FROM documents d WHERE d.kind = 'code' "
            "AND NOT EXISTS (SELECT 1 FROM code_text t WHERE t.document_id = d.id)").fetchone()
        return int(missing)

    @staticmethod
    def _insert_refs(db: sqlite3.Connection, doc_id: int, refs: Sequence[ReferenceRow],
                     packed: bytes | None = None, present: Collection[str] = (), staged: bool = False) -> None:
        """A new document's references, (kind, name, qualifier, alias, line, scope) each, in its
        order: one packed row (`packed` when a worker packed them), and a ref_names row per
        name it calls (but those `present` already, kept from the document's last version);
        `staged` (a bulk load): the names go to staged_names, moved at its end."""
        if not refs:
            return
        db.execute("INSERT INTO refs (document_id, packed) VALUES (?, ?)", (doc_id, packed or pack_refs(refs)))
        insert_names(db, "ref_names", [(name, doc_id) for name in {ref[1] for ref in refs} if name not in present], staged)

    @staticmethod
    def _insert_symbols(db: sqlite3.Connection, doc_id: int, symbols: Sequence[SymbolRow],
                        packed: bytes | None = None, present: Collection[str] = (), staged: bool = False) -> None:
        """A new document's definitions, (name, kind, start, end, signature, exported) each, in
        its order: one packed row (`packed` when a worker packed them), and a symbol_names
        row per short name it defines (but those `present` already; `staged`: to
        staged_names)."""
        if not symbols:
            return
        db.execute("INSERT INTO symbols (document_id, packed) VALUES (?, ?)",
                   (doc_id, packed or pack_symbols(symbols)))
        # of names that differ only in case, the first in code point order is kept
        insert_names(db, "symbol_names", [(short, doc_id) for short in sorted({short_name(symbol[0]) for symbol in symbols})
                                          if _nocase(short) not in present], staged)

    @staticmethod
    def _delete_names(db: sqlite3.Connection, doc_id: int, table: str, keep: Collection[str] = ()) -> set[str]:
        """Delete a document's rows of `table` (ref_names or symbol_names) by their key, the
        names its packed references or definitions hold (neither has an index by document:
        that would double its size), but those in `keep` (its next version has them too).
        Returns the names kept, as the table's key compares them (symbol_names: without the
        case of ASCII letters)."""
        column, packed_in, _ = NAME_TABLES[table]
        row = db.execute(f"SELECT packed FROM {packed_in} WHERE document_id = ?", (doc_id,)).fetchone()
        if row is None:
            return set()
        try:
            if packed_in == "refs":
                strings, columns = ref_fields(row[0])
                names = {strings[n] for n in set(columns[1])}
            else:
                names = {short_name(symbol[0]) for symbol in unpack_symbols(row[0])}
        except StoreError:  # a damaged row: find its names the slow way, and the file heals
            db.execute(f"DELETE FROM {table} WHERE document_id = ?", (doc_id,))
            return set()
        key: Callable[[str], str] = _nocase if table == "symbol_names" else str
        kept = {key(name) for name in keep}
        db.executemany(f"DELETE FROM {table} WHERE {column} = ? AND document_id = ?",
                       [(name, doc_id) for name in names if key(name) not in kept])
        return {key(name) for name in names} & kept

    def code_texts(
        self, match: str | None, source: str | None = None, path: str | None = None,
        language: str | None = None,
    ) -> Iterator[tuple[int, str, str, str | None, bytes]]:
        """(document id, source, path, language, text) of stored code files, by source and
        path; with `match`, only files whose trigram index entry matches that FTS5 query. The
        text comes as `pack` stored it, UTF-8 (lone surrogates passed through): grep scans the
        bytes and decodes only what it shows."""
        where, params = filter_sql(source, None, path, language)
        if match is not None and self.trigram_index_ready():  # else every file: none is in the index
            where.append("d.id IN (SELECT rowid FROM code_trigrams WHERE code_trigrams MATCH ?)")
            params.append(match)
        where.append("1")
        # Order the small rows first, then read each text by key: sorting rows that carry
        # whole files would copy every text through SQLite's sorter. The list is kept while
        # nothing is written to the index (a long-lived process greps again: 2-4 ms of a
        # 20 ms grep over a Django-sized tree was reading it).
        key = (written_key(self), tuple(where), tuple(params))
        if self._code_files is not None and self._code_files[0] == key:
            files = self._code_files[1]
        else:
            files = self.conn.execute(
                f"""SELECT d.id, s.name, d.path, d.language, d.content_hash FROM documents d
                    JOIN sources s ON s.id = d.source_id
                    WHERE d.kind = 'code' AND {' AND '.join(where)} ORDER BY s.name, d.path""",
                params,
            ).fetchall()
            self._code_files = (key, files)
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
        """One code file's stored text (UTF-8, as `code_texts` gives it); None without one."""
        row = self.conn.execute("SELECT packed FROM code_text WHERE document_id = ?", (doc_id,)).fetchone()
        return zlib.decompress(row[0]) if row is not None else None

    def trigram_index_ready(self) -> bool:
        """True when grep's trigram index holds every code text, building it first when it
        was never built (schema v14: the first grep builds it). A read-only index without it
        answers False: grep then reads every file."""
        if trigrams_built(self.conn):
            return True
        if self.read_only:
            return False
        started = time.perf_counter()
        try:
            self.lock.acquire(timeout=0)  # a writer at work: this grep reads every file, a later one builds
        except IndexLockedError:
            return False
        try:  # the transaction below re-enters the lock held here
            with self.transaction() as db:
                if not trigrams_built(db):  # another process may have built it meanwhile
                    db.execute("INSERT INTO code_trigrams (rowid, text) SELECT document_id, mindex_inflate(packed) "
                               "FROM code_text")
                    db.execute("INSERT OR REPLACE INTO schema_meta VALUES ('trigrams', 'ready')")
        except ReadOnlyIndexError:
            return False
        finally:
            self.lock.release()
        log.info("grep: trigram index built in %.1f s", time.perf_counter() - started)
        return True

    def code_files_matching(self, match: str) -> set[int]:
        """The ids of code files whose trigram index entry matches that FTS5 query (the
        index built: `trigram_index_ready`)."""
        return {row[0] for row in self.conn.execute("SELECT rowid FROM code_trigrams WHERE code_trigrams MATCH ?",
                                                    (match,))}

    def chunk_spans(self, document_ids: Sequence[int]) -> dict[int, list[ChunkSpan]]:
        """Per document, its chunks' (start line, end line, id, symbol) in line order."""
        spans: dict[int, list[ChunkSpan]] = {}
        rows = self._select_in(
            f"SELECT document_id, start_line, end_line, id, {CHUNK_SYMBOL} FROM chunks c WHERE document_id IN ({{}})",
            (), document_ids)
        for doc_id, start, end, cid, symbol in sorted(rows, key=lambda r: (r[0], r[1] or 0)):
            if start is not None:
                spans.setdefault(doc_id, []).append((start, end, cid, symbol))
        return spans

    def chunks_holding(self, lines: Sequence[tuple[int, int]]) -> dict[tuple[int, int], str | None]:
        """The id of the chunk holding each (document id, line), None where none does: one
        lookup a line, in SQL. Cheaper than `chunk_spans` for a line or two of a file, which
        reads all of the file's chunks into Python."""
        found: dict[tuple[int, int], str | None] = {}
        for start in range(0, len(lines), 250):
            part = lines[start:start + 250]
            rows = self.conn.execute(
                "WITH wanted (doc, line) AS (VALUES " + ",".join(["(?, ?)"] * len(part)) + ") "
                "SELECT w.doc, w.line, (SELECT c.id FROM chunks c WHERE c.document_id = w.doc "
                "AND c.start_line <= w.line AND c.end_line >= w.line ORDER BY c.start_line DESC LIMIT 1) "
                "FROM wanted w", [value for pair in part for value in pair]).fetchall()
            found.update(((doc, line), cid) for doc, line, cid in rows)
        return found

    def symbol_spans(self, document_ids: Sequence[int]) -> dict[int, list[tuple[int, int, str]]]:
        """Per document, its definitions' (start line, end line, qualified name)."""
        return {doc_id: [(start, end, name) for name, _, start, end, _, _ in symbols]
                for doc_id, symbols in self._symbols_of(document_ids).items()}

    def _symbols_of(self, document_ids: Sequence[int]) -> dict[int, list[SymbolRow]]:
        """Per document that has any, its definitions in their order (decoded rows kept)."""
        rows = self._select_in("SELECT document_id, packed FROM symbols WHERE document_id IN ({})", (), document_ids)
        return {doc_id: self._unpacked_symbols(packed) for doc_id, packed in rows}

    def code_files(self) -> list[tuple[int, str, str, str | None]]:
        """(document id, source, path, language) of every code file."""
        return self.conn.execute(
            """SELECT d.id, s.name, d.path, d.language FROM documents d JOIN sources s ON s.id = d.source_id
               WHERE d.kind = 'code' ORDER BY s.name, d.path""").fetchall()

    def symbol_rows(self, column: str, value: str | int) -> list[tuple[int, int, str, str, int, int, str, int]]:
        """Symbols where `column` (name, short, document_id, or short_like / short_nocase
        for LIKE and case-insensitive matches) has `value`: (id, document id, name, kind,
        start, end, signature, exported), by document and first line. An id is the document's
        number and the definition's place in it, the same for the same index contents."""
        # symbol_names (schema v18) knows which documents define a short name, without case;
        # their packed definitions are then compared exactly.
        wanted: dict[int, set[str]] = {}  # short_like: per document, the matching names as NOCASE sees them
        if column == "document_id":
            documents = [int(value)]
        elif column == "short_like":
            for short, doc_id in self.conn.execute(
                    "SELECT short, document_id FROM symbol_names WHERE short LIKE ? ESCAPE '\\'", (value,)):
                wanted.setdefault(doc_id, set()).add(_nocase(short))
            documents = sorted(wanted)
        else:
            key = short_name(str(value)) if column == "name" else str(value)
            documents = [doc_id for (doc_id,) in self.conn.execute(
                "SELECT document_id FROM symbol_names WHERE short = ?", (key,))]
        out: list[tuple[int, int, str, str, int, int, str, int]] = []
        for doc_id, symbols in sorted(self._symbols_of(documents).items()):
            if column == "document_id":
                chosen: Sequence[int] = range(len(symbols))
            elif column == "name":
                chosen = [n for n, symbol in enumerate(symbols) if symbol[0] == value]
            elif column == "short":  # short_name(name) == value, without a call for each of 90,000 names
                dotted = f".{value}"
                chosen = [n for n, symbol in enumerate(symbols) if "." not in dotted[1:]
                          and (symbol[0] == value or symbol[0].endswith(dotted))]
            else:  # without case: str.lower() rejects most names cheaply, NOCASE's own folding decides
                spellings = wanted.get(doc_id) or {_nocase(str(value))}
                lowered = {spelling.lower() for spelling in spellings}
                chosen = [n for n, symbol in enumerate(symbols)
                          if (short := short_name(symbol[0])).lower() in lowered and _nocase(short) in spellings]
            rows = [(symbol_id(doc_id, n), doc_id, *symbols[n][:5], int(symbols[n][5])) for n in chosen]
            rows.sort(key=lambda row: row[4])  # by first line; a line's definitions in their order
            out += rows
        return out

    def symbol_shorts(self) -> list[str]:
        """Every distinct short symbol name, one spelling of those that differ only in the case
        of ASCII letters (for fuzzy lookups, which ignore case)."""
        return [row[0] for row in self.conn.execute("SELECT DISTINCT short FROM symbol_names")]

    def ref_rows(self, column: str, value: str | int,
                 kind: str | tuple[str, ...] | None = None) -> list[tuple[int, str, str, str, str, int, str]]:
        """References where `column` (name or document_id) has `value`, optionally of one kind
        or of several: (document id, kind, name, qualifier, alias, line, scope), by document,
        line and order."""
        if column == "document_id":
            documents = [int(value)]
        elif column == "name":
            documents = [d for (d,) in self.conn.execute("SELECT document_id FROM ref_names WHERE name = ?", (value,))]
        else:
            raise ValueError(f"references are looked up by name or document_id, not {column!r}")
        out: list[tuple[int, str, str, str, str, int, str]] = []
        for start in range(0, len(documents), 500):
            part = documents[start:start + 500]
            for doc_id, packed in self.conn.execute(
                    f"SELECT document_id, packed FROM refs WHERE document_id IN ({','.join('?' * len(part))}) "
                    "ORDER BY document_id", part):
                strings, (kinds, names, qualifiers, aliases, scopes, lines) = self._ref_fields(packed)
                if column == "name":  # compare numbers, and build only the references to the name
                    wanted = strings.index(str(value)) if value in strings else -1
                    chosen = [n for n, name in enumerate(names) if name == wanted]
                else:
                    chosen = list(range(len(names)))
                if kind is not None:
                    numbers = {strings.index(k) for k in ((kind,) if isinstance(kind, str) else kind) if k in strings}
                    chosen = [n for n in chosen if kinds[n] in numbers]
                chosen.sort(key=lines.__getitem__)  # stable: a line's references in their order
                out.extend((doc_id, strings[kinds[n]], strings[names[n]], strings[qualifiers[n]], strings[aliases[n]],
                            lines[n], strings[scopes[n]]) for n in chosen)
        return out

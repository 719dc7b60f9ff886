"""SQL pieces every domain of the store shares: a chunk's text and a hit's columns, the
joins, the filters a search takes, and a row made into a `Hit`."""


from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from mindex.languages import PROSE
from mindex.models import Facets, Hit


# A chunk's text: its own, or, stored as '' (schema v12), lines start_line..end_line of its
# code file's packed text (`FileLines`, registered on every connection as mindex_lines).
_FROM_FILE = "mindex_lines((SELECT packed FROM code_text WHERE document_id = c.document_id), c.start_line, c.end_line)"
CHUNK_TEXT = f"coalesce(nullif(c.text, ''), {_FROM_FILE}, '')"
# The same while a batch is written: the writer has its chunks' texts (`FileLines.given`).
BATCH_CHUNK_TEXT = f"coalesce(nullif(c.text, ''), mindex_given_text(c.id), {_FROM_FILE}, '')"
_HIT_COLUMNS_WITH = """
    c.id, s.name, d.kind, d.path, c.title, c.context, c.start_line, c.end_line, c.page, {text},
    c.seq, d.mtime_ns, d.language, {symbol}, c.symbol_kind, c.ordinal, c.at, c.facets
"""
# A code chunk's symbol is its title (schema v18 dropped the copy in chunks.symbol).
CHUNK_SYMBOL = "CASE WHEN c.symbol_kind IS NOT NULL THEN c.title END"
HIT_COLUMNS = _HIT_COLUMNS_WITH.format(text=CHUNK_TEXT, symbol=CHUNK_SYMBOL)
# PostgreSQL: every chunk keeps its text
PLAIN_HIT_COLUMNS = _HIT_COLUMNS_WITH.format(text="c.text", symbol=CHUNK_SYMBOL)
# Both: a hit whose text is read later, if at all (a candidate that may not reach the page).
TEXTLESS_HIT_COLUMNS = _HIT_COLUMNS_WITH.format(text="''", symbol=CHUNK_SYMBOL)
# Every chunk query that shows or filters by source and path joins the same three tables.
CHUNK_JOINS = "JOIN documents d ON d.id = c.document_id JOIN sources s ON s.id = d.source_id"
# A chunk's vector for a model; an empty one marks a chunk that needs none (imports only)
# and is never searched.
VECTOR_JOIN = "JOIN vectors v ON v.model = ? AND v.hash = c.hash AND length(v.vector) > 0"
# Facet names a search filters on, and the facet keys that fill them (a list or one value).
_FACET_ROWS = (("id", "id"), ("type", "type"), ("tag", "tags"), ("file", "files"), ("area", "areas"),
               ("issue", "issues"), ("product", "product"), ("entity", "entities"), ("vkey", "vkey"))


def facet_rows(facets: dict[str, Any]) -> list[tuple[str, str]]:
    """The (name, value) rows of chunk_facets for a chunk's facets."""
    rows = []
    for name, key in _FACET_ROWS:
        value = facets.get(key)
        for item in value if isinstance(value, list) else [value] if value is not None else []:
            rows.append((name, str(item)))
    return rows


def _facet_filters(facets: Facets) -> tuple[list[str], list[Any]]:
    where: list[str] = []
    params: list[Any] = []
    for name, values in (("type", facets.types), ("id", facets.ids)):
        if values:
            where.append(f"c.seq IN (SELECT seq FROM chunk_facets WHERE name = '{name}' AND value IN "
                         f"({','.join('?' * len(values))}))")
            params += list(values)
    for tag in facets.tags:
        where.append("c.seq IN (SELECT seq FROM chunk_facets WHERE name = 'tag' AND value = ?)")
        params.append(tag)
    if facets.products:
        where.append(f"c.seq IN (SELECT seq FROM chunk_facets WHERE name = 'product' AND value IN "
                     f"({','.join('?' * len(facets.products))}))")
        params += list(facets.products)
    for entity in facets.entities:
        where.append("c.seq IN (SELECT seq FROM chunk_facets WHERE name = 'entity' AND value = ?)")
        params.append(entity)
    if facets.version_after is not None:
        where.append("c.seq IN (SELECT seq FROM chunk_facets WHERE name = 'vkey' AND value > ?)")
        params.append(facets.version_after)
    if facets.version_until is not None:
        where.append("c.seq IN (SELECT seq FROM chunk_facets WHERE name = 'vkey' AND value <= ?)")
        params.append(facets.version_until)
    for path in facets.files:
        # A file named in an entry, or one under a folder given (both ranges of the index), or,
        # only when the value has glob characters, one the glob matches (a Python call per row).
        folder = path.rstrip("/")
        clause = "value = ? OR (value >= ? AND value < ?)"  # '0' is the character after '/'
        bounds: list[Any] = [folder, folder + "/", folder + "0"]
        if any(ch in path for ch in "*?["):
            clause += " OR mindex_glob(?, value)"
            bounds.append(path)
        where.append(f"c.seq IN (SELECT seq FROM chunk_facets WHERE name = 'file' AND ({clause}))")
        params += bounds
    if facets.since is not None:
        where.append("c.at >= ?")
        params.append(facets.since)
    if facets.until is not None:
        where.append("c.at < ?")
        params.append(facets.until)
    if facets.current_only:
        where.append("c.seq NOT IN (SELECT f.seq FROM chunk_facets f JOIN kg_relations r "
                     "ON r.rel = 'SUPERSEDES' AND r.dst = f.value WHERE f.name = 'id')")
    return where, params


_PROSE = ", ".join(f"'{language}'" for language in sorted(PROSE))
# A document (alias d) not in a language of prose: with `d.kind = 'code'`, code itself
# (`languages.PROSE`, `Hit.prose`; a code source's README and docs/*.md are prose).
NOT_PROSE = f"coalesce(d.language, '') NOT IN ({_PROSE})"
# `--kind docs` also finds a code source's prose (a repository's README and docs/*.md, added
# with its code), and `--kind code` leaves it out.
KIND_CLAUSES = {
    "docs": f"(d.kind = ? OR (d.kind = 'code' AND d.language IN ({_PROSE})))",
    "code": f"(d.kind = ? AND {NOT_PROSE})",
}


def filter_sql(source: str | None, kind: str | None, path: str | None, language: str | None = None,
             symbol_kind: str | None = None, facets: Facets | None = None,
             packed_symbols: bool = True, every_chunk: bool = False) -> tuple[list[str], list[Any]]:
    """WHERE clauses and parameters for the search filters (aliases s, d, c as in the queries;
    the symbol kind is the chunk's own, or that of any definition starting inside it, asked
    of the document's packed definitions, or with `packed_symbols` false of its symbol rows).
    With `every_chunk` (a filter over all chunks, not over a query's matches) the path glob
    is matched once a document instead of once a chunk."""
    where: list[str] = []
    params: list[Any] = []
    if facets is not None:
        where, params = _facet_filters(facets)
    glob = "d.id IN (SELECT id FROM documents WHERE mindex_glob(?, path))" if every_chunk else "mindex_glob(?, d.path)"
    for clause, value in (("s.name = ?", source), (KIND_CLAUSES.get(kind or "", "d.kind = ?"), kind), (glob, path),
                          ("d.language = ?", language)):
        if value:
            where.append(clause)
            params.append(value)
    if symbol_kind:
        where.append("(c.symbol_kind = ? OR mindex_defines((SELECT packed FROM symbols WHERE document_id = d.id), "
                     "?, c.start_line, c.end_line))" if packed_symbols else
                     "(c.symbol_kind = ? OR EXISTS (SELECT 1 FROM symbols y WHERE y.document_id = d.id "
                     "AND y.kind = ? AND y.start_line BETWEEN c.start_line AND c.end_line))")
        params += [symbol_kind, symbol_kind]
    return where, params


def hit_of_row(row: Sequence[Any], score: float, snippet: str) -> Hit:
    (cid, source, kind, path, title, context, start, end, page, text, seq, mtime_ns, language, symbol,
     symbol_kind, ordinal, at, facets) = row
    # A release's time is its date: an undated one has none (its file's time is when it was
    # fetched, which would rank it as the newest).
    modified = at if at is not None else None if kind == "changelog" else mtime_ns / 1e9 if mtime_ns else None
    return Hit(cid, source, kind, path, title, context, start, end, page, float(score), snippet, text,
               language=language, symbol=symbol, symbol_kind=symbol_kind,
               seq=seq, modified=modified, ordinal=ordinal, facets=json.loads(facets) if facets else None)

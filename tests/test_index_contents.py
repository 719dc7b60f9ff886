"""What indexing stores for real code must not change when indexing gets faster: the chunk
ids and spans, the symbols and the references of the fixture files (real sources in nine
languages, and one sample file each of the languages added since, `tests/fixtures/code`) are
compared with a digest recorded before the speed work (re-recorded when those samples came).
After a deliberate change to parsing (and a PARSER_VERSION bump), record the new digest with
`RECORD_INDEX_CONTENTS=1 pytest tests/test_index_contents.py`."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from mindex import Index
from mindex.config import EmbedSettings, IndexSettings

FIXTURES = Path(__file__).parent / "fixtures" / "code"
RECORD = FIXTURES / "index-contents.json"

QUERIES = {
    # a code chunk's symbol is its title (schema v18 dropped the copy in chunks.symbol)
    "chunks": "SELECT d.path, c.ordinal, c.id, c.start_line, c.end_line, c.title, c.context, "
              "CASE WHEN c.symbol_kind IS NOT NULL THEN c.title END, "
              "c.symbol_kind, c.terms, c.hash FROM chunks c JOIN documents d ON d.id = c.document_id",
    # SQLite packs a document's definitions (schema v18) and references (v15) into one row
    # each: see `rows`
    "symbols": "SELECT d.path, s.packed FROM symbols s JOIN documents d ON d.id = s.document_id",
    "refs": "SELECT d.path, r.packed FROM refs r JOIN documents d ON d.id = r.document_id",
}
# PostgreSQL keeps one row a definition, and a reference, the enclosing definition by name.
POSTGRES_QUERIES = {**QUERIES,
                    "symbols": "SELECT d.path, s.name, s.short, s.kind, s.start_line, s.end_line, s.signature, "
                               "s.exported FROM symbols s JOIN documents d ON d.id = s.document_id",
                    "refs": "SELECT d.path, r.kind, r.name, r.qualifier, r.alias, r.line, r.scope "
                            "FROM refs r JOIN documents d ON d.id = r.document_id"}


def rows(conn: sqlite3.Connection, table: str) -> list[tuple[object, ...]]:
    """A table's rows as `QUERIES` reads them from SQLite: definitions one row each (path,
    name, short name, kind, start, end, signature, exported), references likewise (path,
    kind, name, qualifier, alias, line, scope)."""
    from mindex.store.base import short_name, unpack_refs, unpack_symbols

    found = conn.execute(QUERIES[table]).fetchall()
    if table == "refs":
        return [(path, *ref) for path, packed in found for ref in unpack_refs(packed)]
    if table == "symbols":
        return [(path, name, short_name(name), kind, start, end, signature, int(exported))
                for path, packed in found for name, kind, start, end, signature, exported in unpack_symbols(packed)]
    return found


def contents(db: Path) -> dict[str, dict[str, object]]:
    """Each table's rows (sorted) as a count and a sha256."""
    conn = sqlite3.connect(db)
    out: dict[str, dict[str, object]] = {}
    for table in QUERIES:
        found = sorted(json.dumps(row, ensure_ascii=False) for row in rows(conn, table))
        out[table] = {"rows": len(found), "sha256": hashlib.sha256("\n".join(found).encode()).hexdigest()}
    conn.close()
    return out


@pytest.mark.parametrize(("workers", "bulk"), [(1, False), (2, False), (2, True), (2, "growing")])
def test_index_contents_match_the_recorded_digest(tmp_path: Path, workers: int, bulk: bool | str,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    import mindex.ingest

    if bulk:  # a first index written without secondary indexes stores the same
        monkeypatch.setattr(mindex.ingest, "BULK_FILES", 1)
    if bulk == "growing":  # ... in batches of one file, then of more as the run goes on
        monkeypatch.setattr(mindex.ingest, "BATCH_DOCUMENTS", 1)
        monkeypatch.setattr(mindex.ingest, "BATCH_CHUNKS", 2)
        monkeypatch.setattr(mindex.ingest, "BATCH_GROWTH", 2)
    tree = tmp_path / "code"
    shutil.copytree(FIXTURES, tree, ignore=shutil.ignore_patterns("*.json", "*.md"))
    db = tmp_path / "c.db"
    with Index(db, IndexSettings(workers=workers), embed=EmbedSettings(provider="none")) as ix:
        ix.add_source(tree, name="code", kind="code")
        report = ix.index()["code"]
    assert report.added == 25 and not report.errors
    found = contents(db)
    if os.environ.get("RECORD_INDEX_CONTENTS") == "1":
        RECORD.write_text(json.dumps(found, indent=1) + "\n")
    assert found == json.loads(RECORD.read_text())
    assert all(table["rows"] for table in found.values())


def test_a_large_first_index_commits_in_batches_that_grow_with_what_it_wrote() -> None:
    """A commit writes every page its inserts touched; with the indexes larger than a batch,
    each chunk's random id dirties a page of its own, so batches keep a share of the index."""
    from mindex.ingest import BATCH_CHUNKS, BATCH_DOCUMENTS, BATCH_GROWTH, BATCH_MOST, batch_limits

    assert batch_limits(0) == (BATCH_DOCUMENTS, BATCH_CHUNKS)  # fixed batches, and a growing run's first
    assert batch_limits(BATCH_CHUNKS * BATCH_GROWTH) == (BATCH_DOCUMENTS, BATCH_CHUNKS)
    documents, chunks = batch_limits(400_000)
    assert chunks == 400_000 // BATCH_GROWTH > BATCH_CHUNKS
    assert documents * BATCH_CHUNKS == BATCH_DOCUMENTS * chunks  # documents in proportion
    # a batch's commit holds the write lock: it stops growing where that would keep a hook waiting
    assert batch_limits(10_000_000) == batch_limits(BATCH_MOST * BATCH_GROWTH) == (
        BATCH_DOCUMENTS * BATCH_MOST // BATCH_CHUNKS, BATCH_MOST)

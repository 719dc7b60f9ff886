from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from mindex import Index
from mindex.errors import IndexLockedError, SchemaTooNewError, StoreError
from mindex.store import SCHEMA_VERSION, SQLiteStore
from mindex.store.lock import WriteLock


def test_new_database_records_schema_version_in_wal_mode(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "i.db")
    assert store.schema_version() == SCHEMA_VERSION
    assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    store.close()


def test_older_database_is_migrated_automatically(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE schema_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    conn.execute("INSERT INTO schema_meta VALUES ('schema_version', '0')")
    conn.commit()
    conn.close()
    store = SQLiteStore(path)
    assert store.schema_version() == SCHEMA_VERSION
    assert store.list_sources() == []
    store.close()


def test_newer_database_is_refused_with_upgrade_instructions(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    SQLiteStore(path).close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE schema_meta SET value = '999' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    with pytest.raises(SchemaTooNewError, match="pip install -U mindex"):
        SQLiteStore(path)


def test_a_file_that_is_not_a_database_gets_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "junk.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="move it aside"):
        SQLiteStore(path)


def test_read_only_open_refuses_to_create(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="mindex add"):
        Index(tmp_path / "missing.db", create=False)
    assert not (tmp_path / "missing.db").exists()


def test_fts_stays_in_sync_through_updates_and_deletes(indexed: Index, docs_dir: Path) -> None:
    (docs_dir / "guide/retries.md").write_text("# Retries\n\nrewritten text about ocelots\n")
    (docs_dir / "guide/pooling.md").unlink()
    indexed.index()
    conn: sqlite3.Connection = indexed.store.conn  # type: ignore[attr-defined]
    conn.execute("INSERT INTO chunks_fts (chunks_fts, rank) VALUES ('integrity-check', 1)")
    assert conn.execute("SELECT count(*) FROM chunks_fts").fetchone()[0] == conn.execute(
        "SELECT count(*) FROM chunks"
    ).fetchone()[0]
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_second_writer_is_told_who_holds_the_lock(tmp_path: Path) -> None:
    db = tmp_path / "i.db"
    holder = WriteLock(db, timeout=0)
    holder.acquire()
    try:
        with pytest.raises(IndexLockedError, match=f"pid {os.getpid()}") as caught:
            WriteLock(db, timeout=0.2).acquire()
        assert "lock_timeout" in str(caught.value)
    finally:
        holder.release()
    WriteLock(db, timeout=0).acquire()  # free again once released


def test_full_disk_stops_cleanly_and_the_next_run_finishes(indexed: Index, docs_dir: Path) -> None:
    conn: sqlite3.Connection = indexed.store.conn  # type: ignore[attr-defined]
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages}")  # SQLite's own SQLITE_FULL, as on a full disk
    for n in range(40):
        (docs_dir / f"more{n}.md").write_text(f"# More {n}\n\n" + "filler words here " * 400)
    with pytest.raises(StoreError, match="disk holding .* is full.*rerun `mindex index`"):
        indexed.index()
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert indexed.search("PoolTimeout").hits  # what was there before is intact
    conn.execute("PRAGMA max_page_count = 1073741823")
    report = indexed.index()["docs"]
    assert report.added == 40

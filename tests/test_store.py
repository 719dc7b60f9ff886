from __future__ import annotations

import json
import os
import re
import resource
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from mindex import Index
from mindex.errors import IndexLockedError, SchemaTooNewError, StoreError
from mindex.store import SCHEMA_VERSION, SQLiteStore
from mindex.store.lock import WriteLock


@contextmanager
def _code_index(tmp_path: Path, files: dict[str, str]) -> Iterator[tuple[Index, Path]]:
    """An index (tmp_path/i.db: one worker, no embedding) of a repository holding `files`,
    indexed as code once; yields it and the repository's folder."""
    from mindex.config import EmbedSettings, IndexSettings

    repo = tmp_path / "repo"
    repo.mkdir()
    for name, text in files.items():
        (repo / name).write_text(text)
    with Index(tmp_path / "i.db", IndexSettings(workers=1), embed=EmbedSettings(provider="none")) as ix:
        ix.add_source(repo, name="repo", kind="code")
        ix.index()
        yield ix, repo


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
    with pytest.raises(SchemaTooNewError, match=r"upgrade mindex: `git pull` in its checkout"):
        SQLiteStore(path)


def test_a_file_that_is_not_a_database_gets_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "junk.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="move it aside"):
        SQLiteStore(path)


def test_an_empty_or_truncated_index_file_is_an_error_that_names_the_way_back(tmp_path: Path, docs_dir: Path) -> None:
    """A zero-byte index.db was taken for a new empty index: every registered source vanished
    and `status` said "No sources yet", exit 0. A new index is now made whole under another
    name and linked into place, so an empty index file can only be a damaged one."""
    from mindex import Index, IndexSettings
    from mindex.config import EmbedSettings

    db = tmp_path / "index.db"
    with Index(db, IndexSettings(workers=1), embed=EmbedSettings(provider="none")) as ix:
        ix.add_source(docs_dir, name="docs")
        ix.index()
    assert not list(tmp_path.glob("index.db.new-*"))  # the file it was built in is gone
    whole = db.read_bytes()
    db.write_bytes(b"")
    for args in (["status", "--json"], ["sources", "--json"], ["search", "pool", "--json"]):
        done = subprocess.run([sys.executable, "-m", "mindex", "--db", str(db), *args], capture_output=True, text=True)
        error = json.loads(done.stdout)["error"]
        assert done.returncode == 1 and error["code"] == "STORE_ERROR", args
        assert error["message"].startswith(f"{db} is empty (0 bytes)") and "mindex add FOLDER" in error["hint"]
        assert "mindex memory rebuild" in error["hint"]
    assert db.stat().st_size == 0  # left as it was for the user to look at
    db.write_bytes(whole[:8192])  # cut short
    with pytest.raises(StoreError, match=r"is not a usable mindex index .*register your folders again"):
        Index(db, IndexSettings(workers=1), embed=EmbedSettings(provider="none")).search("pool")


def test_two_processes_making_the_same_new_index_share_it(tmp_path: Path) -> None:
    db = tmp_path / "shared.db"
    script = ("import sys; from pathlib import Path; from mindex.store import SQLiteStore; "
              "s = SQLiteStore(Path(sys.argv[1])); print(s.schema_version()); s.close()")
    procs = [subprocess.Popen([sys.executable, "-c", script, str(db)], stdout=subprocess.PIPE, text=True)
             for _ in range(4)]
    versions = {p.communicate(timeout=60)[0].strip() for p in procs}
    assert all(p.returncode == 0 for p in procs) and versions == {str(SCHEMA_VERSION)}
    assert not list(tmp_path.glob("shared.db.new-*"))


def test_a_place_where_no_database_can_be_written_is_named_with_what_it_needs(tmp_path: Path) -> None:
    (tmp_path / "taken.db").mkdir()  # a folder where the file should be
    with pytest.raises(StoreError, match=r"taken\.db is a folder, not an index file; point --db .* e\.g\. .*taken\.db/index\.db"):
        SQLiteStore(tmp_path / "taken.db")


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


def test_a_write_left_open_by_an_interrupt_is_rolled_back_by_the_next(tmp_path: Path) -> None:
    """Ctrl-C landing just after a write's BEGIN left its transaction open, and the clean-up's
    own write then failed ("cannot start a transaction within a transaction")."""
    store = SQLiteStore(tmp_path / "i.db")
    store.conn.execute("BEGIN IMMEDIATE")  # as an interrupted write leaves it
    store.conn.execute("INSERT INTO schema_meta VALUES ('half', 'written')")
    with store.transaction() as db:
        db.execute("INSERT INTO schema_meta VALUES ('whole', 'written')")
    assert not store.conn.in_transaction
    assert store.get_meta("half") is None and store.get_meta("whole") == "written"
    store.close()


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


def _mindex_limited(db: Path, *args: str, file_bytes: int | None) -> subprocess.CompletedProcess[str]:
    """A real `mindex` process that may write no file past `file_bytes` (ulimit -f): the kernel
    refuses the write as it would on a disk without room, and SQLite sees a failed write."""
    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))

    return subprocess.run([sys.executable, "-m", "mindex", "--db", str(db), *args, "--json"], capture_output=True,
                          text=True, preexec_fn=limit if file_bytes else None, timeout=120,
                          env={**os.environ, "MINDEX_EMBED__PROVIDER": "none"})


def test_a_refused_write_making_or_filling_the_index_is_a_clear_error_and_the_next_run_goes_on(
        tmp_path: Path, docs_dir: Path) -> None:
    db = tmp_path / "index.db"
    refused = _mindex_limited(db, "add", str(docs_dir), file_bytes=64 * 1024)
    assert refused.returncode == 1, refused.stderr
    error = json.loads(refused.stdout)["error"]
    assert error["code"] == "STORE_ERROR" and f"the disk holding {db} failed a write" in error["message"]
    assert "rolled back, nothing is half done" in error["hint"] and error["hint"].endswith("Free some space and retry")
    assert _mindex_limited(db, "add", str(docs_dir), file_bytes=None).returncode == 0
    assert json.loads(_mindex_limited(db, "index", file_bytes=None).stdout)["docs"]["added"] == 7
    for n in range(60):  # then an index run that outgrows the limit halfway
        (docs_dir / f"more{n}.md").write_text(f"# More {n}\n\n" + f"filler words number {n} " * 400)
    stopped = _mindex_limited(db, "index", file_bytes=db.stat().st_size + 256 * 1024)
    error = json.loads(stopped.stdout)["error"]
    assert stopped.returncode == 1 and "failed a write" in error["message"] and "rerun `mindex index`" in error["hint"]
    assert json.loads(_mindex_limited(db, "index", file_bytes=None).stdout)["docs"]["added"] > 0
    with Index(db, create=False) as ix:
        assert len(ix.store.document_markers(ix.sources()[0].source.id or 0)) == 67


def test_a_v7_index_keeps_its_references_and_gets_its_code_text_back_on_the_next_run(tmp_path: Path) -> None:
    from mindex.config import EmbedSettings, IndexSettings
    from mindex.store.sqlite import MIGRATIONS

    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.py").write_text("def helper():\n    return 1\n\n\ndef main():\n    return helper() + helper()\n")
    path = tmp_path / "v7.db"
    conn = sqlite3.connect(path)
    for version, file in MIGRATIONS:  # the schema as mindex v7 left it, with one code file in it
        if version <= 7:
            conn.executescript(f"BEGIN;\n{file.read_text()}\nCOMMIT;")
    conn.executescript("""
        INSERT INTO schema_meta VALUES ('schema_version', '7');
        INSERT INTO sources (id, name, kind, root, created_at) VALUES (1, 'repo', 'code', '""" + str(repo) + """', 0);
        INSERT INTO documents (id, source_id, path, kind, title, size, mtime_ns, content_hash, indexed_at, language)
            VALUES (1, 1, 'a.py', 'code', 'a.py', 1, 1, 'old', 0, 'python');
        INSERT INTO code_text VALUES (1, 'def helper(): ...');
        INSERT INTO refs (document_id, kind, name, line, scope) VALUES (1, 'call', 'helper', 6, 'main');
        INSERT INTO refs (document_id, kind, name, line, scope) VALUES (1, 'call', 'helper', 6, 'main');
    """)
    conn.close()
    store = SQLiteStore(path)
    assert store.schema_version() == SCHEMA_VERSION
    assert store.ref_rows("name", "helper") == [(1, "call", "helper", "", "", 6, "main")] * 2
    assert store.conn.execute("SELECT content_hash FROM documents").fetchone() == ("",)  # read again next run
    store.close()
    with Index(path, IndexSettings(workers=1), embed=EmbedSettings(provider="none")) as ix:
        waiting = ix.grep("helper")
        assert not waiting.matches and waiting.note is not None and "run `mindex index`" in waiting.note
        assert ix.index()["repo"].updated == 1
        assert ix.grep("helper").note is None and ix.store.get_meta("code_text_missing") is None
        assert [(m.path, m.line) for m in ix.grep(r"helper\(\) \+").matches] == [("a.py", 6)]
        ix.remove_source("repo")  # the contentless trigram rows go with their text
        assert ix.store.conn.execute("SELECT count(*) FROM code_text").fetchone() == (0,)
        assert ix.store.conn.execute("SELECT count(*) FROM code_trigrams WHERE code_trigrams MATCH 'hel'").fetchone() == (0,)


def test_a_v12_index_packs_its_references_and_reads_the_same_names(tmp_path: Path) -> None:
    from mindex.store.sqlite import MIGRATIONS

    path = tmp_path / "v12.db"
    conn = sqlite3.connect(path)
    for version, file in MIGRATIONS:  # the schema as mindex v12 left it: scope names in refs
        if version <= 12:
            conn.executescript(f"BEGIN;\n{file.read_text()}\nCOMMIT;")
    scopes = ["A.f", "", "g", "A.f", "g", "A.f.inner"]
    conn.executescript("""
        INSERT INTO schema_meta VALUES ('schema_version', '12');
        INSERT INTO sources (id, name, kind, root, created_at) VALUES (1, 'repo', 'code', '/nowhere', 0);
        INSERT INTO documents (id, source_id, path, kind, title, size, mtime_ns, content_hash, indexed_at, language)
            VALUES (1, 1, 'a.py', 'code', 'a.py', 1, 1, 'x', 0, 'python'), (2, 1, 'b.py', 'code', 'b.py', 1, 1, 'x', 0, 'python');
    """)
    conn.executemany("INSERT INTO refs (document_id, n, kind, name, line, scope) VALUES (?, ?, 'call', 'h', ?, ?)",
                     [(doc, n, n + 1, scope) for doc in (1, 2) for n, scope in enumerate(scopes if doc == 1 else scopes[:2])])
    conn.commit()
    conn.close()
    store = SQLiteStore(path)
    assert store.schema_version() == SCHEMA_VERSION
    assert [row[6] for row in store.ref_rows("document_id", 1)] == scopes
    assert [row[6] for row in store.ref_rows("document_id", 2)] == scopes[:2]
    assert [row[5] for row in store.ref_rows("document_id", 1)] == [1, 2, 3, 4, 5, 6]
    assert [(row[0], row[6]) for row in store.ref_rows("name", "h", "call")] == \
        [(1, s) for s in scopes] + [(2, s) for s in scopes[:2]]
    assert store.ref_rows("name", "h", "import") == []
    # v13 numbered the scopes in ref_scopes; v15 packs each document's references into one row
    assert store.conn.execute("SELECT document_id FROM refs ORDER BY 1").fetchall() == [(1,), (2,)]
    assert store.conn.execute("SELECT * FROM ref_names ORDER BY 1, 2").fetchall() == [("h", 1), ("h", 2)]
    assert store.conn.execute("SELECT 1 FROM sqlite_master WHERE name IN ('ref_scopes', 'refs_by_name', "
                              "'symbols_by_name')").fetchall() == []
    store.close()


def test_the_full_text_index_holds_exactly_the_chunks_through_edits_and_deletes(tmp_path: Path) -> None:
    files = {f"m{n}.py": f"def f{n}():\n    return {n}\n\n\nclass C{n}:\n    def g(self):\n        return f{n}()\n"
             for n in range(30)}
    with _code_index(tmp_path, files) as (ix, repo):
        for n in range(0, 30, 3):
            (repo / f"m{n}.py").write_text(f"def changed{n}():\n    pass\n")
        (repo / "m1.py").unlink()
        assert ix.index()["repo"].updated == 10
        db = ix.store.conn
        # FTS5 compares its index with the chunks table (external content) and raises on a mismatch.
        db.execute("INSERT INTO chunks_fts (chunks_fts) VALUES ('integrity-check')")
        db.execute("INSERT INTO code_trigrams (code_trigrams) VALUES ('integrity-check')")
        (chunks,) = db.execute("SELECT count(*) FROM chunks").fetchone()
        assert db.execute("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'changed3 OR f4 OR g'").fetchone()[0] > 0
        assert [h.path for h in ix.search("changed3", mode="keyword").hits][:1] == ["m3.py"]
        assert not ix.search("f1", mode="keyword").hits or all(h.path != "m1.py" for h in ix.search("f1", mode="keyword").hits)
        assert chunks == db.execute("SELECT count(*) FROM chunks_fts_docsize").fetchone()[0]
        # Code chunks keep no text of their own (schema v12): the full-text index was handed
        # the file's lines when they were written and when they were deleted. A word matches
        # exactly the chunks that hold it, so no deleted or replaced chunk left a word behind.
        assert db.execute("SELECT count(*) FROM chunks WHERE text = ''").fetchone()[0] == chunks
        texts = {seq: f"{title} {context} {text} {terms}" for seq, title, context, text, terms in db.execute(
            "SELECT c.seq, c.title, c.context, " + SQLiteStore.CHUNK_TEXT + ", c.terms FROM chunks c")}
        assert all("def " in text or "class " in text for text in texts.values())
        for word in [*(f"f{n}" for n in range(30)), *(f"changed{n}" for n in range(0, 30, 3)), "g", "return", "pass"]:
            matched = {seq for (seq,) in db.execute("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?", (word,))}
            assert matched == {seq for seq, text in texts.items() if re.search(rf"\b{word}\b", text)}, word


def test_chunks_that_keep_their_own_text_are_read_and_replaced_like_the_others(tmp_path: Path) -> None:
    """A chunk written before schema v12 holds its text; one of a file cut differently (text
    chunking, a split definition) too. Both read back whole and leave the full-text index
    cleanly when their file changes."""
    with _code_index(tmp_path, {"a.py": "def alpha():\n    return 'zebra'\n\n\ndef beta():\n    return 'yak'\n"}) as (ix, repo):
        db = ix.store.conn
        shown = {h.symbol: h.text for h in ix.search("zebra OR yak", mode="keyword").hits}
        assert shown == {"alpha": "def alpha():\n    return 'zebra'", "beta": "def beta():\n    return 'yak'"}
        # as a v11 index stored it: the text in the row (the update trigger re-indexes it)
        db.execute("UPDATE chunks SET text = ? WHERE title = 'alpha'", (shown["alpha"],))
        assert [h.text for h in ix.search("zebra", mode="keyword").hits] == [shown["alpha"]]
        (repo / "a.py").write_text("def gamma():\n    return 'okapi'\n")
        ix.index()
        for word, expected in (("zebra", 0), ("yak", 0), ("alpha", 0), ("okapi", 1)):
            (found,) = db.execute("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?", (word,)).fetchone()
            assert found == expected, word


def _secondary_indexes(path: Path) -> set[str]:
    conn = sqlite3.connect(path)
    names = {name for (name,) in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN ('chunks', 'symbols', 'refs')")}
    conn.close()
    return names


def test_a_large_first_index_writes_in_bulk_and_rebuilds_its_indexes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import mindex.ingest
    from mindex.config import EmbedSettings, IndexSettings

    repo = tmp_path / "repo"
    repo.mkdir()
    for n in range(12):
        (repo / f"m{n}.py").write_text(f"import os\n\n\ndef f{n}():\n    return os.path.join('a', 'b')\n")
    path = tmp_path / "i.db"
    SQLiteStore(path).close()
    expected = _secondary_indexes(path)
    assert {"chunks_by_document", "chunks_by_hash", "chunks_by_id"} <= expected
    dropped: list[set[str]] = []
    monkeypatch.setattr(mindex.ingest, "BULK_FILES", 10)
    real_flush = mindex.ingest._BatchWriter.flush

    def flush(self: object) -> None:  # look at the schema while the bulk load writes
        dropped.append(_secondary_indexes(path))
        real_flush(self)  # type: ignore[arg-type]

    monkeypatch.setattr(mindex.ingest._BatchWriter, "flush", flush)
    with Index(path, IndexSettings(workers=1), embed=EmbedSettings(provider="none")) as ix:
        ix.add_source(repo, name="repo", kind="code")
        assert ix.index()["repo"].added == 12
        assert dropped and dropped[0] == set()
        assert _secondary_indexes(path) == expected
        assert len(ix.store.ref_rows("name", "join")) == 12
    # A bulk load killed before its end: the next open builds the indexes again.
    store = SQLiteStore(path)
    with store.transaction() as db:
        db.execute("DROP INDEX chunks_by_hash")
        db.execute("INSERT INTO schema_meta VALUES ('bulk_load_indexes', ?)", (
            '{"pid": 999999999, "indexes": {"chunks_by_hash": "CREATE INDEX chunks_by_hash ON chunks (hash)"}}',))
    store.close()
    SQLiteStore(path).close()
    assert _secondary_indexes(path) == expected


def _names(path: Path) -> dict[str, list[tuple[str, str]]]:
    conn = sqlite3.connect(path)
    found = {table: sorted(conn.execute(f"SELECT n.{column}, d.path FROM {table} n JOIN documents d ON d.id = n.document_id"))
             for table, column in (("ref_names", "name"), ("symbol_names", "short"))}
    conn.close()
    return found


def test_a_bulk_load_holds_back_the_names_and_moves_them_at_its_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A large first index writes the names its documents call and define to staged_names
    and moves them into ref_names and symbol_names at its end: the same rows as a run that
    wrote them document by document, the first spelling in code point order of names that
    differ only in case; a run killed before its end leaves them for the next open."""
    import mindex.ingest
    from mindex.config import EmbedSettings, IndexSettings

    repo = tmp_path / "repo"
    repo.mkdir()
    for n in range(12):
        (repo / f"m{n}.py").write_text(f"import os\n\n\ndef run_{n}():\n    return os.path.join('a', 'b')\n\n\n"
                                       f"def Run_{n % 3}():\n    pass\n\n\ndef run_{n % 3}():\n    run_{n}()\n")
    indexed = {}
    staged: list[int] = []
    real_flush = mindex.ingest._BatchWriter.flush

    def flush(self: object) -> None:
        real_flush(self)  # type: ignore[arg-type]
        conn = sqlite3.connect(tmp_path / "bulk.db")
        staged.append(conn.execute("SELECT count(*) FROM staged_names").fetchone()[0])
        conn.close()

    for name, bulk_from in (("plain", 1000), ("bulk", 10)):
        monkeypatch.setattr(mindex.ingest, "BULK_FILES", bulk_from)
        monkeypatch.setattr(mindex.ingest._BatchWriter, "flush", flush if name == "bulk" else real_flush)
        with Index(tmp_path / f"{name}.db", IndexSettings(workers=1), embed=EmbedSettings(provider="none")) as ix:
            ix.add_source(repo, name="repo", kind="code")
            assert ix.index()["repo"].added == 12
            assert len(ix.store.ref_rows("name", "join")) == 12
        indexed[name] = _names(tmp_path / f"{name}.db")
    assert staged and staged[0] > 0  # held back while the run wrote
    assert indexed["bulk"] == indexed["plain"]
    assert ("Run_1", "m1.py") in indexed["bulk"]["symbol_names"] and ("run_1", "m1.py") not in indexed["bulk"]["symbol_names"]
    assert ("join", "m11.py") in indexed["bulk"]["ref_names"]
    conn = sqlite3.connect(tmp_path / "bulk.db")
    assert conn.execute("SELECT count(*) FROM staged_names").fetchone() == (0,)
    # Killed before its end: the names it held back wait, and the next open moves them (but a
    # gone document's).
    moved = conn.execute("SELECT 0, name, document_id FROM ref_names UNION ALL "
                         "SELECT 1, short, document_id FROM symbol_names").fetchall()
    conn.execute("DELETE FROM ref_names")
    conn.execute("DELETE FROM symbol_names")
    conn.executemany("INSERT INTO staged_names (defined, name, document_id) VALUES (?, ?, ?)",
                     moved + [(0, "ghost", 999)])
    conn.execute("INSERT INTO schema_meta VALUES ('bulk_load_indexes', ?)", ('{"pid": 999999999, "indexes": {}}',))
    conn.commit()
    conn.close()
    SQLiteStore(tmp_path / "bulk.db").close()
    assert _names(tmp_path / "bulk.db") == indexed["plain"]
    conn = sqlite3.connect(tmp_path / "bulk.db")
    assert conn.execute("SELECT count(*) FROM staged_names").fetchone() == (0,)
    assert conn.execute("SELECT count(*) FROM ref_names WHERE document_id = 999").fetchone() == (0,)
    conn.close()
    # While a bulk load's process runs, a name not found says why it may be missing.
    from mindex.errors import NotFoundError

    with Index(tmp_path / "bulk.db", create=False) as ix:
        with pytest.raises(NotFoundError) as plain:
            ix.graph().targets("run_99")
        assert "still being written" not in str(plain.value)
        with ix.store.transaction() as db:
            db.execute("INSERT INTO schema_meta VALUES ('bulk_load_indexes', ?)", (json.dumps({"pid": os.getpid(), "indexes": {}}),))
        with pytest.raises(NotFoundError, match="a first index is still being written, and the names its files define"):
            ix.graph().targets("run_99")


@pytest.mark.parametrize("saved", [
    "not json", '{"pid": "x"}', '{"pid": 999999999, "indexes": {"x": "DROP TABLE sources"}}',
    '{"pid": 999999999, "indexes": {"y": "CREATE INDEX y ON refs (line); DROP TABLE sources"}}',
])
def test_a_hand_edited_bulk_load_record_is_never_run_and_never_blocks_opening(tmp_path: Path, saved: str) -> None:
    path = tmp_path / "i.db"
    SQLiteStore(path).close()
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO schema_meta VALUES ('bulk_load_indexes', ?)", (saved,))
    conn.commit()
    conn.close()
    store = SQLiteStore(path)
    assert store.list_sources() == []  # the sources table is still there
    assert store.get_meta("bulk_load_indexes") is None
    assert store.conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'y'").fetchone() == (0,)
    store.close()


@pytest.mark.parametrize("refs", [
    [],
    [("call", "f", "", "", 3, ""), ("import", "os.path", "", "osp", 1, ""), ("call", "f", "self", "", 3, "A.m")],
    # a NUL inside a name (the strings go as JSON then), lone surrogates, non-ASCII
    [("call", "a\0b", "q", "", 2, "S.f"), ("call", "caf\u00e9\udcff", "", "x", 1, "\udc80")],
    # lines and strings past 16 bits
    [("call", f"n{n}", "", "", 70_000 + n, "") for n in range(70_000)],
])
def test_packed_references_read_back_exactly(refs: list[tuple[str, str, str, str, int, str]]) -> None:
    from mindex.store.base import pack_refs, unpack_refs

    assert unpack_refs(pack_refs(refs)) == refs


@pytest.mark.parametrize("symbols", [
    [],
    [("A", "class", 1, 9, "class A(Base)", True), ("A.m", "method", 2, 3, "m(self)", True), ("_h", "function", 5, 5, "_h()", False)],
    # a NUL inside a name (the strings go as JSON then), lone surrogates, non-ASCII
    [("a\0b", "function", 2, 2, "a\0b()", True), ("caf\u00e9\udcff", "constant", 1, 1, "", False)],
    # lines and strings past 16 bits
    [(f"f{n}", "function", 70_000 + n, 70_001 + n, f"f{n}()", n % 2 == 0) for n in range(40_000)],
])
def test_packed_definitions_read_back_exactly(symbols: list[tuple[str, str, int, int, str, bool]]) -> None:
    from mindex.store.base import pack_symbols, unpack_symbols

    assert unpack_symbols(pack_symbols(symbols)) == symbols


def test_references_follow_edits_removals_and_a_copy_in_small_batches(tmp_path: Path) -> None:
    from mindex.copy import copy_index

    files = {f"m{n}.py": "import os\n\n\n" + "".join(f"def f{n}_{k}():\n    return os.path.join(helper(), 'x{k}')\n\n\n"
                                                    for k in range(8)) for n in range(6)}
    with _code_index(tmp_path, files) as (ix, repo):
        store = ix.store
        assert {row[0] for row in store.ref_rows("name", "helper", "call")} == set(range(1, 7))
        assert [row[5] for row in store.ref_rows("name", "helper", "call") if row[0] == 1] == [5, 9, 13, 17, 21, 25, 29, 33]
        assert store.ref_rows("name", "helper", "import") == []
        # an edit that drops the call takes the file's name rows with it
        (repo / "m0.py").write_text("def f0():\n    return other()\n")
        ix.index()
        doc = store.conn.execute("SELECT id FROM documents WHERE path = 'm0.py'").fetchone()[0]
        assert doc not in {row[0] for row in store.ref_rows("name", "helper", "call")}
        assert [row[2] for row in store.ref_rows("document_id", doc)] == ["other"]
        assert store.conn.execute("SELECT name FROM ref_names WHERE document_id = ?", (doc,)).fetchall() == [("other",)]
        assert store.conn.execute("SELECT count(*) FROM ref_names WHERE document_id NOT IN (SELECT id FROM documents)"
                                  ).fetchone() == (0,)
        expected = sorted(store.conn.execute("SELECT * FROM ref_names").fetchall())
        rows = [store.ref_rows("document_id", d) for (d,) in store.conn.execute("SELECT id FROM documents ORDER BY id")]
        names = sorted(store.conn.execute("SELECT * FROM symbol_names").fetchall())
        definitions = [store.symbol_rows("document_id", d)
                       for (d,) in store.conn.execute("SELECT id FROM documents ORDER BY id")]
        assert sorted(len(found) for found in definitions) == [1, 8, 8, 8, 8, 8]
        # a copy whose batches cut documents' references and definitions in two reads back the same
        copy_index(tmp_path / "i.db", tmp_path / "copy.db", batch=7)
        copied = SQLiteStore(tmp_path / "copy.db")
        assert sorted(copied.conn.execute("SELECT * FROM ref_names").fetchall()) == expected
        assert [copied.ref_rows("document_id", d) for (d,) in copied.conn.execute("SELECT id FROM documents ORDER BY id")] == rows
        assert sorted(copied.conn.execute("SELECT * FROM symbol_names").fetchall()) == names
        assert [copied.symbol_rows("document_id", d)
                for (d,) in copied.conn.execute("SELECT id FROM documents ORDER BY id")] == definitions
        copied.close()
        ix.remove_source("repo")
        for table in ("ref_names", "refs", "symbol_names", "symbols"):
            assert store.conn.execute(f"SELECT count(*) FROM {table}").fetchone() == (0,)


def test_a_v16_index_cuts_its_chunk_hashes_and_keeps_their_vectors_and_contexts(tmp_path: Path, docs_dir: Path) -> None:
    from mindex.config import EmbedSettings, IndexSettings

    path = tmp_path / "i.db"
    with Index(path, IndexSettings(workers=1), embed=EmbedSettings(provider="none")) as ix:
        ix.add_source(docs_dir, name="docs")
        ix.index()
    _as_v17(path)
    conn = sqlite3.connect(path)  # as v16 left it: 40-character hashes, vectors and contexts keyed by them
    conn.execute("UPDATE chunks SET hash = hash || substr(id || id || id, 1, 24)")
    rows = conn.execute("SELECT seq, hash FROM chunks ORDER BY seq").fetchall()
    conn.executemany("INSERT INTO vectors (model, hash, vector) VALUES ('m', ?, ?)", [(h, bytes([seq % 256]) * 4)
                                                                                       for seq, h in rows])
    conn.executemany("INSERT INTO chunk_contexts (model, hash, context) VALUES ('w', ?, ?)", [(h, f"ctx {seq}")
                                                                                             for seq, h in rows])
    conn.execute("UPDATE schema_meta SET value = '16' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    store = SQLiteStore(path)
    assert store.schema_version() == SCHEMA_VERSION
    cut = store.conn.execute("SELECT seq, hash FROM chunks ORDER BY seq").fetchall()
    assert cut == [(seq, h[:16]) for seq, h in rows]
    assert store.conn.execute("SELECT c.seq, v.vector, x.context FROM chunks c JOIN vectors v ON v.hash = c.hash "
                              "JOIN chunk_contexts x ON x.hash = c.hash ORDER BY c.seq").fetchall() == \
        [(seq, bytes([seq % 256]) * 4, f"ctx {seq}") for seq, _ in rows]
    assert store.pending_embeddings("m") == []
    # the full-text index was left alone, and still answers
    store.conn.execute("INSERT INTO chunks_fts (chunks_fts, rank) VALUES ('integrity-check', 0)")
    assert store.conn.execute("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'pool'").fetchone()[0] > 0
    store.close()


def _as_v17(path: Path) -> None:
    """Give an index file the v17 shapes of what v18 changed: a row a definition with its
    indexes by short name and by document, and chunks.symbol (a code chunk's title); and
    without v20's lists of best chunks and v21's staged names."""
    from mindex.store.base import short_name, unpack_symbols

    conn = sqlite3.connect(path)
    packed = conn.execute("SELECT document_id, packed FROM symbols ORDER BY document_id").fetchall()
    conn.executescript("""
        DROP TABLE symbols;
        DROP TABLE symbol_names;
        CREATE TABLE symbols (
            id INTEGER PRIMARY KEY, document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            name TEXT NOT NULL, short TEXT NOT NULL, kind TEXT NOT NULL, start_line INTEGER NOT NULL,
            end_line INTEGER NOT NULL, signature TEXT NOT NULL, exported INTEGER NOT NULL DEFAULT 1);
        CREATE INDEX symbols_by_short ON symbols (short COLLATE NOCASE);
        CREATE INDEX symbols_by_document ON symbols (document_id);
        ALTER TABLE chunks ADD COLUMN symbol TEXT;
        UPDATE chunks SET symbol = title WHERE symbol_kind IS NOT NULL;
        UPDATE schema_meta SET value = '17' WHERE key = 'schema_version';
        DROP TABLE keyword_tops;  -- v20's
        DROP TABLE staged_names;  -- v21's
        DELETE FROM schema_meta WHERE key = 'keyword_tops';
    """)
    conn.executemany("INSERT INTO symbols (document_id, name, short, kind, start_line, end_line, signature, exported) "
                     "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                     [(doc_id, name, short_name(name), kind, start, end, signature, int(exported))
                      for doc_id, row in packed for name, kind, start, end, signature, exported in unpack_symbols(row)])
    conn.commit()
    conn.close()


def test_a_v21_index_finds_its_chunk_ids_through_an_index_a_bulk_load_can_leave_out(tmp_path: Path) -> None:
    """v22 makes the chunks table again without its UNIQUE id (an index no statement can drop)
    and finds ids through chunks_by_id: every row, search, id lookup and full-text entry as
    before, and the triggers still keep the full-text index in step with edits."""
    from test_index_contents import contents

    files = {"a.py": "def alpha():\n    return 1\n\n\nclass Pool:\n    def get(self):\n        return alpha()\n",
             "notes.md": "# Pool\n\nThe pool hands out alpha values.\n"}
    with _code_index(tmp_path, files) as (ix, repo):
        path = tmp_path / "i.db"
        ids = [h.id for h in ix.search("alpha pool", 10, mode="keyword").hits]
        before = [(h.id, h.score) for h in ix.search("alpha pool", 10, mode="keyword").hits]
    digest = contents(path)
    conn = sqlite3.connect(path)  # as v21 left it: the id UNIQUE in the table, no chunks_by_id
    columns = [row[1] for row in conn.execute("PRAGMA table_info(chunks)")]
    triggers = [sql for (sql,) in conn.execute("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'chunks'")]
    conn.executescript(f"""
        CREATE TABLE chunks_v21 (seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, document_id INTEGER NOT NULL
            REFERENCES documents(id) ON DELETE CASCADE, ordinal INTEGER NOT NULL, title TEXT NOT NULL, context TEXT NOT NULL,
            text TEXT NOT NULL, hash TEXT NOT NULL, start_line INTEGER, end_line INTEGER, page INTEGER, symbol_kind TEXT,
            terms TEXT NOT NULL DEFAULT '', at REAL, facets TEXT);
        INSERT INTO chunks_v21 ({', '.join(columns)}) SELECT {', '.join(columns)} FROM chunks;
        DROP TABLE chunks;
        ALTER TABLE chunks_v21 RENAME TO chunks;
        CREATE INDEX chunks_by_document ON chunks (document_id, ordinal);
        CREATE INDEX chunks_by_hash ON chunks (hash);
        {';'.join(triggers)};
        UPDATE schema_meta SET value = '21' WHERE key = 'schema_version';
    """)
    conn.close()
    with Index(path, create=False) as ix:
        assert ix.store.schema_version() == SCHEMA_VERSION
        assert [(h.id, h.score) for h in ix.search("alpha pool", 10, mode="keyword").hits] == before
        assert [ix.get(chunk_id).id for chunk_id in ids] == ids
        conn = ix.store.conn
        assert conn.execute("SELECT name FROM sqlite_master WHERE tbl_name = 'chunks' AND type = 'index' ORDER BY 1"
                            ).fetchall() == [("chunks_by_document",), ("chunks_by_hash",), ("chunks_by_id",)]
        assert "INDEX chunks_by_id (id=?)" in " ".join(
            str(row) for row in conn.execute("EXPLAIN QUERY PLAN SELECT seq FROM chunks WHERE id = ?", (ids[0],)))
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        conn.execute("INSERT INTO chunks_fts (chunks_fts, rank) VALUES ('integrity-check', 0)")  # raises if damaged
    assert contents(path) == digest
    (repo / "a.py").write_text(files["a.py"].replace("alpha", "omega"))
    with Index(path, create=False) as ix:
        ix.index()
        assert ix.search("alpha", 10, mode="keyword").hits == [] or all(
            h.path == "notes.md" for h in ix.search("alpha", 10, mode="keyword").hits)
        assert [h.path for h in ix.search("omega", 10, mode="keyword").hits][:1] == ["a.py"]
        ix.store.conn.execute("INSERT INTO chunks_fts (chunks_fts, rank) VALUES ('integrity-check', 0)")


def test_a_v17_index_packs_its_definitions_and_answers_every_lookup_the_same(tmp_path: Path) -> None:
    from test_index_contents import contents

    files = {"a.py": "class Pool:\n    def get(self):\n        return 1\n\n    def GET(self):\n"
                     "        return 2\n\n\ndef get():\n    return Pool().get()\n\n\nLIMIT = 3\n",
             "b.py": "from a import get\n\n\nclass Getter:\n    def get(self):\n        return get()\n",
             "c.py": "import os\n"}  # no definitions: no row
    path = tmp_path / "i.db"
    lookups = [("name", "Pool.get"), ("name", "get"), ("short", "get"), ("short", "GET"), ("short_nocase", "get"),
               ("short_like", "ge%"), ("short_like", "%ette%"), ("document_id", 1), ("document_id", 3)]

    def answers(store: SQLiteStore) -> list[object]:
        return [store.symbol_rows(column, value) for column, value in lookups] + [
            sorted(store.symbol_shorts(), key=str.lower), store.symbol_spans([1, 2, 3]),
            [h.symbol for h in store.keyword_search("get", 10, symbol_kind="method")],
            {kind: store.filtered_seqs(None, None, None, None, kind) for kind in ("method", "class", "constant")},
            store.filtered_seqs(None, None, "b*"), store.filtered_seqs(None, None, "*.py", symbol_kind="class")]

    with _code_index(tmp_path, files) as (ix, _):
        before, digest = answers(ix.store), contents(path)
    assert before[2] == [(1 << 32 | 1, 1, "Pool.get", "method", 2, 3, "get(self)", 1),
                         (1 << 32 | 3, 1, "get", "function", 9, 10, "get()", 1),
                         (2 << 32 | 1, 2, "Getter.get", "method", 5, 6, "get(self)", 1)]
    assert [row[2] for row in before[3]] == ["Pool.GET"] and len(before[4]) == 4
    assert [row[2] for row in before[5]] == ["Pool.get", "Pool.GET", "get", "Getter", "Getter.get"]
    assert [row[2] for row in before[6]] == ["Getter"] and before[8] == []
    assert before[-4] and set(before[-4]) <= {"Pool.get", "Pool.GET", "Getter.get"}
    # a chunk passes a symbol-kind filter by its own kind, or by a definition of that kind starting
    # in it (the constant LIMIT, in the chunk of a.py's last lines)
    titles = dict(sqlite3.connect(path).execute("SELECT seq, title FROM chunks").fetchall())
    assert {kind: [titles[seq] for seq in seqs] for kind, seqs in before[-3].items()} == {
        "method": ["Pool.get", "Pool.GET", "Getter.get"], "class": ["Pool", "Getter"], "constant": ["a.py"]}
    assert [titles[seq] for seq in before[-2]] == ["b.py", "Getter", "Getter.get"]  # a path glob, per document
    assert [titles[seq] for seq in before[-1]] == ["Pool", "Getter"]
    _as_v17(path)
    conn = sqlite3.connect(path)  # and a bulk load of v17 killed before it built its indexes again
    conn.execute("DROP INDEX symbols_by_short")
    conn.execute("INSERT INTO schema_meta VALUES ('bulk_load_indexes', ?)", (
        '{"pid": 999999999, "indexes": {"symbols_by_short": "CREATE INDEX symbols_by_short ON symbols '
        '(short COLLATE NOCASE)"}}',))
    conn.commit()
    conn.close()
    store = SQLiteStore(path)
    assert store.schema_version() == SCHEMA_VERSION
    assert store.get_meta("bulk_load_indexes") is None
    assert answers(store) == before
    assert store.conn.execute("SELECT document_id FROM symbols ORDER BY 1").fetchall() == [(1,), (2,)]
    assert store.conn.execute("SELECT 1 FROM sqlite_master WHERE name IN ('symbols_by_short', 'symbols_by_document')"
                              ).fetchall() == []
    store.close()
    assert contents(path) == digest


@pytest.mark.parametrize("damage", [b"\x78\x9cgarbage", b"", b"not zlib at all"])
def test_a_damaged_packed_row_is_named_and_an_edit_of_its_file_heals_it(tmp_path: Path, damage: bytes) -> None:
    import zlib

    with _code_index(tmp_path, {"a.py": "def helper():\n    return 1\n\n\ndef main():\n    return helper()\n"}) as (ix, repo):
        store = ix.store
        with store.transaction() as db:
            db.execute("UPDATE refs SET packed = ?", (damage,))
            db.execute("UPDATE symbols SET packed = ?", (damage,))
        with pytest.raises(StoreError, match=r"stored references of a file are damaged .* run `mindex index`"):
            store.ref_rows("name", "helper")
        with pytest.raises(StoreError, match=r"stored definitions of a file are damaged .* run `mindex index`"):
            store.symbol_rows("short", "helper")
        # the symbol-kind filter reads the chunk's own kind, and counts a damaged row as no definitions
        assert [h.symbol for h in store.keyword_search("helper", 5, symbol_kind="function")] == ["helper", "main"]
        assert store.keyword_search("helper", 5, symbol_kind="class") == []
        # a packed row whose numbers point past its strings is caught too
        with store.transaction() as db:
            db.execute("UPDATE refs SET packed = ?", (zlib.compress(b"\x01\x00\x00\x00\x00\x00\x00\x00" + b"\x09\x00" * 6),))
        with pytest.raises(StoreError, match="damaged"):
            store.ref_rows("document_id", 1)
        (repo / "a.py").write_text("def helper():\n    return 2\n\n\ndef main():\n    return helper() + helper()\n")
        assert ix.index()["repo"].updated == 1  # the damaged row goes with the old file
        assert [row[5] for row in store.ref_rows("name", "helper", "call")] == [6, 6]
        assert [row[2] for row in store.symbol_rows("short", "helper")] == ["helper"]
        for table in ("ref_names", "symbol_names"):
            assert store.conn.execute(f"SELECT count(*) FROM {table} WHERE document_id NOT IN "
                                      "(SELECT id FROM documents)").fetchone() == (0,)


def test_compact_gives_back_the_room_edits_leave_and_answers_the_same(tmp_path: Path) -> None:
    files = {f"m{n}.py": "".join(f"def f{n}_{k}(value):\n    return parse_{k}(value) + {n}\n\n\n" for k in range(40))
             for n in range(30)}
    path = tmp_path / "i.db"
    with _code_index(tmp_path, files) as (ix, repo):
        assert ix.grep("parse_7").matches  # grep's trigram index is built, and compacted too
        for edit in range(4):  # each run rewrites every file's rows
            for n in range(30):
                (repo / f"m{n}.py").write_text((repo / f"m{n}.py").read_text() + f"\n# edit {edit}\n")
            ix.index()
        queries = ["parse value", "f3_17", "return parse"]
        before = [[h.id for h in ix.search(q, 20, mode="keyword").hits] for q in queries]
        lines = [(m.path, m.line) for m in ix.grep(r"parse_1\d\(").matches]
        report = ix.compact()
        assert report["after_bytes"] < report["before_bytes"] * 0.9, report
        assert path.stat().st_size == report["after_bytes"]  # the write-ahead log emptied
        db = ix.store.conn
        for table in ("chunks_fts", "code_trigrams"):
            db.execute(f"INSERT INTO {table} ({table}, rank) VALUES ('integrity-check', 0)")
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert [[h.id for h in ix.search(q, 20, mode="keyword").hits] for q in queries] == before
        assert [(m.path, m.line) for m in ix.grep(r"parse_1\d\(").matches] == lines
        # a disk too full for the merged segments: a clear error, and the index as it was
        (repo / "m0.py").write_text("def g():\n    return 1\n")
        ix.index()
        db.execute("VACUUM")  # no free pages left to merge into
        db.execute(f"PRAGMA max_page_count = {db.execute('PRAGMA page_count').fetchone()[0]}")
        with pytest.raises(StoreError, match=r"is full: compacting needs room .* the index is unchanged.*mindex compact"):
            ix.compact()
        assert not db.in_transaction
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert [h.id for h in ix.search("parse value", 20, mode="keyword").hits]
        db.execute("PRAGMA max_page_count = 1073741823")
        assert ix.compact()["after_bytes"] > 0
        # another process reading a snapshot keeps the log from being emptied: said, not waited for
        reader = sqlite3.connect(path)
        reader.execute("BEGIN")
        counted = reader.execute("SELECT count(*) FROM chunks").fetchone()
        (repo / "m1.py").write_text("def h():\n    return 2\n")
        ix.index()
        report = ix.compact()
        assert "another process is reading the index" in report["note"] and report["seconds"] < 10
        assert reader.execute("SELECT count(*) FROM chunks").fetchone() == counted  # its snapshot holds
        reader.close()
        assert [h.title for h in ix.search("h", 5, mode="keyword", kind="code").hits][:1] == ["h"]



def test_kept_texts_and_lines_stay_within_their_size() -> None:
    from mindex.store.base import pack
    from mindex.store.sqlite import FileLines, TextCache

    texts = TextCache(200)
    for key in "abcd":
        texts.put(key, key * 45)
    assert texts.put("big", "z" * 51) and texts.get("big") is None  # over a quarter of the limit: not kept
    assert texts.get("a") == "a" * 45  # a is now the most recently used
    texts.put("e", "e" * 45)  # 225 > 200: the least recently used goes
    assert texts.get("b") is None and texts.get("a") and texts.get("e") and texts.size == 180
    lines = FileLines()
    lines.kept.limit = 50
    small, large = pack("one\ntwo"), pack("\n".join(["line"] * 20))  # 7 and 99 characters
    assert lines(small, 2, 2) == "two" and lines(large, 19, 20) == "line\nline"
    assert list(lines.kept.items) == [large]  # the newest is kept however large; the older made room
    assert lines(pack("one\nTWO"), 2, 2) == "TWO"  # keyed by the packed bytes: never stale


def test_a_pass_over_more_than_the_kept_size_keeps_what_fits_for_the_next_pass() -> None:
    """grep reads every file in turn: plain LRU would push each text out before the next
    pass asks for it again, and inflate everything every time."""
    from mindex.store.sqlite import TextCache

    texts = TextCache(200)
    files = [f"f{n}" for n in range(6)]  # 6 x 45 = 270 characters, over the limit

    def one_pass(keys: list[str]) -> int:
        texts.new_pass(keys)
        missed = 0
        for key in keys:
            if texts.get(key) is None:
                missed += 1
                texts.put(key, key[-1] * 45)
        return missed

    assert one_pass(files) == 6
    assert [one_pass(files) for _ in range(3)] == [2, 2, 2]  # four of six stay (LRU: 6, 6, 6)
    assert texts.size <= 200 and set(texts.items) == {"f0", "f1", "f2", "f3"}
    # a narrower pass (grep over the files holding a literal) makes room from what it does not
    # ask for; the next full pass then misses only what does not fit (LRU with passes: 6)
    assert one_pass(["f3", "f4", "f5"]) == 2 and set(texts.items) == {"f2", "f3", "f4", "f5"}
    assert [one_pass(files) for _ in range(2)] == [2, 2]
    assert one_pass(["g1", "g2", "g3", "g4"]) == 4  # another pass over other files: the old ones make room
    assert set(texts.items) == {"g1", "g2", "g3", "g4"} and texts.size <= 200

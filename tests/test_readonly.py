"""An index on read-only storage: reads work, writes say it is read-only, nothing is lost.

The storage is made read-only for real: a read-only bind mount in a private mount namespace
(`unshare -rm`), so the kernel refuses writes even to root, as on a read-only file system.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from mindex import Index, IndexSettings
from mindex.config import EmbedSettings

MINDEX = [sys.executable, "-m", "mindex"]


def _read_only(folder: Path, *command: str) -> subprocess.CompletedProcess[str]:
    """Run `command` with `folder` mounted read-only (for this process only)."""
    script = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"'
    return subprocess.run(["unshare", "-rm", "sh", "-c", script, str(folder), *command],
                          capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "200"})


@pytest.fixture
def built(tmp_path: Path) -> Path:
    """A folder holding an index of one small docs folder."""
    store = tmp_path / "store"
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Walrus\n\nThe walrus page about tusks.\n")
    with Index(store / "index.db", IndexSettings(workers=1), embed=EmbedSettings(provider="none")) as ix:
        ix.add_source(docs, name="docs")
        ix.index()
    return store


def test_read_commands_work_on_a_read_only_index(built: Path) -> None:
    db = str(built / "index.db")
    found = _read_only(built, *MINDEX, "--db", db, "search", "walrus", "--json")
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)["results"][0]["path"] == "a.md"
    status = _read_only(built, *MINDEX, "--db", db, "status", "--json")
    assert status.returncode == 0 and json.loads(status.stdout)["documents"] == 1
    assert not (built / "index.db-shm").exists()  # nothing was written beside it


def test_write_commands_say_the_index_is_read_only(built: Path, tmp_path: Path) -> None:
    db = str(built / "index.db")
    before = (built / "index.db").read_bytes()
    for command in (["index"], ["add", str(tmp_path)], ["remove", "docs"], ["embed"], ["compact"]):
        done = _read_only(built, *MINDEX, "--db", db, *command)
        assert done.returncode == 1, (command, done.stderr)
        assert "read-only" in done.stderr and "move it aside" not in done.stderr, done.stderr
    assert (built / "index.db").read_bytes() == before


def test_a_new_index_in_a_read_only_folder_names_the_folder(built: Path) -> None:
    done = _read_only(built, *MINDEX, "--db", str(built / "sub" / "new.db"), "add", str(built), "--json")
    assert done.returncode == 1
    error = json.loads(done.stdout)["error"]
    assert error["code"] == "INDEX_READ_ONLY" and "sub" in error["message"]


def test_unmerged_writes_in_the_wal_are_read_too(built: Path, tmp_path: Path) -> None:
    """A copy taken while a writer had not checkpointed yet (its -wal holds the newest rows)."""
    conn = sqlite3.connect(built / "index.db")
    conn.execute("PRAGMA wal_autocheckpoint = 0")
    conn.execute("INSERT INTO schema_meta VALUES ('probe', 'from the wal')")
    conn.commit()
    copy = tmp_path / "copy"
    copy.mkdir()
    for name in ("index.db", "index.db-wal", "index.db-shm"):
        shutil.copyfile(built / name, copy / name)
    conn.close()
    assert (copy / "index.db-wal").stat().st_size > 0
    script = ("from mindex.store import SQLiteStore; from pathlib import Path; import sys; "
              "print(SQLiteStore(Path(sys.argv[1]), create=False).get_meta('probe'))")
    done = _read_only(copy, sys.executable, "-c", script, str(copy / "index.db"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "from the wal"


def test_grep_on_a_read_only_index_without_its_trigram_index_reads_every_file(tmp_path: Path) -> None:
    """Indexing leaves grep's trigram index to the first grep (schema v14), which cannot
    write it here: grep reads every stored file instead and finds the same lines."""
    store, code = tmp_path / "store", tmp_path / "code"
    code.mkdir()
    (code / "a.py").write_text("def walrus():\n    return 'tusk'\n")
    (code / "b.py").write_text("def seal():\n    return 'flipper'\n")
    with Index(store / "index.db", IndexSettings(workers=1), embed=EmbedSettings(provider="none")) as ix:
        ix.add_source(code, name="code", kind="code")
        ix.index()
        assert ix.store.get_meta("trigrams") is None
    done = _read_only(store, *MINDEX, "--db", str(store / "index.db"), "grep", "return 'tusk'", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert not result["narrowed"] and result["files_searched"] == 2
    assert [(m["path"], m["line"]) for m in result["matches"]] == [("a.py", 2)]


def test_memory_save_and_knowledge_add_on_a_read_only_project_say_so(tmp_path: Path) -> None:
    """They printed an OSError traceback about memory/.lock; every other write command says
    INDEX_READ_ONLY."""
    project = tmp_path / "project"
    (project / ".mindex").mkdir(parents=True)
    env_db = str(project / ".mindex" / "index.db")
    saved = subprocess.run([*MINDEX, "--db", env_db, "memory", "save", "an entry made while writable", "--json"],
                           check=True, capture_output=True, text=True, env={**os.environ, "MINDEX_EMBED__PROVIDER": "none"})
    entry = json.loads(saved.stdout)["id"]
    journal_before = sorted((project / ".mindex" / "memory").glob("*.md"))[0].read_bytes()
    for command in (["memory", "save", "a new decision", "--json"], ["knowledge", "add", "learning", "a lesson", "--json"],
                    ["memory", "forget", entry, "--json"]):
        done = _read_only(project, *MINDEX, "--db", env_db, *command)
        assert "Traceback" not in done.stderr, (command, done.stderr)
        error = json.loads(done.stdout)["error"]
        assert done.returncode == 1 and error["code"] == "INDEX_READ_ONLY", (command, done.stdout, done.stderr)
        assert "read-only" in error["message"]
    assert sorted((project / ".mindex" / "memory").glob("*.md"))[0].read_bytes() == journal_before
    listed = _read_only(project, *MINDEX, "--db", env_db, "memory", "list", "--json")
    assert listed.returncode == 0 and json.loads(listed.stdout)["results"][0]["text"] == "an entry made while writable"

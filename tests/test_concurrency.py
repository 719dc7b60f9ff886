"""A killed indexer, readers during indexing, and a second writer: real processes."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mindex import Index, IndexSettings
from mindex.config import EmbedSettings
from mindex.errors import StoreError
from lockholder import held_by_another_process

FILES = 1500


def write_corpus(root: Path) -> None:
    for n in range(FILES):
        folder = root / f"part{n % 20}"
        folder.mkdir(parents=True, exist_ok=True)
        sections = "\n\n".join(
            f"## Section {s}\n\n" + " ".join(f"Page {n} section {s} explains topic{(n * s) % 97} in depth." for _ in range(12))
            for s in range(6)
        )
        (folder / f"page{n}.md").write_text(f"# Page {n}\n\nshared marker text\n\n{sections}\n")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, int]]:
    """A generated docs tree and, from a clean index of it, the chunk count of every file."""
    root = tmp_path_factory.mktemp("corpus") / "docs"
    write_corpus(root)
    reference = tmp_path_factory.mktemp("ref") / "ref.db"
    with Index(reference, IndexSettings(workers=2), embed=EmbedSettings(provider="none")) as ix:
        ix.add_source(root, name="docs")
        ix.index()
        counts = dict(ix.store.conn.execute(  # type: ignore[attr-defined]
            "SELECT d.path, count(c.seq) FROM documents d JOIN chunks c ON c.document_id = d.id GROUP BY d.path"
        ).fetchall())
    assert len(counts) == FILES
    return root, counts


def mindex(db: Path, *args: str, workers: int = 1) -> subprocess.Popen[bytes]:
    env = {**os.environ, "MINDEX_DB": str(db), "MINDEX_INDEX__WORKERS": str(workers)}
    return subprocess.Popen(
        [sys.executable, "-m", "mindex.serve", *args], env=env,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )


def documents(db: Path) -> int:
    conn = sqlite3.connect(db)
    try:
        return int(conn.execute("SELECT count(*) FROM documents").fetchone()[0])
    except sqlite3.OperationalError:
        return 0
    finally:
        conn.close()


def check_consistent(db: Path, reference: dict[str, int]) -> int:
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.execute("INSERT INTO chunks_fts (chunks_fts, rank) VALUES ('integrity-check', 1)")
    rows = conn.execute(
        "SELECT d.path, count(c.seq) FROM documents d LEFT JOIN chunks c ON c.document_id = d.id GROUP BY d.id"
    ).fetchall()
    for path, count in rows:
        assert count == reference[path], f"{path} has {count} chunks, expected {reference[path]}"
    orphans = conn.execute(
        "SELECT count(*) FROM chunks WHERE document_id NOT IN (SELECT id FROM documents)"
    ).fetchone()[0]
    assert orphans == 0
    conn.close()
    return len(rows)


@pytest.fixture
def db(corpus: tuple[Path, dict[str, int]], tmp_path: Path) -> Path:
    """An index file with the corpus registered as source `docs`, not yet indexed."""
    path = tmp_path / "index.db"
    with Index(path) as ix:
        ix.add_source(corpus[0], name="docs")
    return path


def test_killed_indexer_leaves_a_consistent_index_that_the_next_run_completes(
    corpus: tuple[Path, dict[str, int]], db: Path
) -> None:
    reference = corpus[1]
    proc = mindex(db, "index", "-q")
    deadline = time.monotonic() + 60
    while documents(db) < 100 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.communicate()
    partial = check_consistent(db, reference)
    assert 0 < partial < FILES, "the kill should land mid-run"
    finish = mindex(db, "index", "-q", "--json", workers=2)
    out, err = finish.communicate(timeout=300)
    assert finish.returncode == 0, err.decode()
    assert check_consistent(db, reference) == FILES
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT count(*) FROM chunks").fetchone()[0] == sum(reference.values())
    assert conn.execute("SELECT count(DISTINCT path) FROM documents").fetchone()[0] == FILES
    conn.close()


def test_searches_during_indexing_see_only_whole_documents(
    corpus: tuple[Path, dict[str, int]], db: Path
) -> None:
    reference = corpus[1]
    proc = mindex(db, "index", "-q")
    searches = 0
    seen: set[int] = set()
    reader = Index(db, create=False)
    conn = reader.store.conn  # type: ignore[attr-defined]
    while proc.poll() is None:
        hits = reader.search("shared marker text", limit=50).hits
        searches += 1
        for path in {hit.path for hit in hits}:
            count = conn.execute(
                "SELECT count(*) FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.path = ?",
                (path,),
            ).fetchone()[0]
            assert count == reference[path]
        seen.add(documents(db))
    reader.close()
    _, err = proc.communicate()
    assert proc.returncode == 0, err.decode()
    assert searches > 5 and len(seen) > 2, "searches should have run while documents were arriving"
    assert check_consistent(db, reference) == FILES


def test_second_indexer_waits_then_reports_the_holder(db: Path) -> None:
    with Index(db) as ix:
        with ix.store.transaction():  # hold the write lock like a running indexer would
            env = {**os.environ, "MINDEX_DB": str(db), "MINDEX_INDEX__LOCK_TIMEOUT": "0.5"}
            done = subprocess.run(
                [sys.executable, "-m", "mindex.serve", "index", "-q"],
                env=env, capture_output=True, text=True, timeout=60,
            )
    assert done.returncode == 4
    assert f"pid {os.getpid()}" in done.stderr and "which is writing this index" in done.stderr


def test_reader_on_missing_index_gets_next_step(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="mindex index"):
        Index(tmp_path / "none.db", create=False)


def _children(pid: int) -> set[int]:
    """Processes whose parent is `pid`, from /proc."""
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.add(int(entry))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGINT])
def test_parser_workers_die_with_a_killed_or_interrupted_indexer(db: Path, how: signal.Signals) -> None:
    proc = mindex(db, "index", "-q", workers=2)
    deadline = time.monotonic() + 60
    workers: set[int] = set()
    while len(workers) < 2 and time.monotonic() < deadline and proc.poll() is None:
        workers = _children(proc.pid)
        time.sleep(0.01)
    assert len(workers) >= 2, "the indexer should have started its two parser workers"
    proc.send_signal(how)
    proc.communicate(timeout=60)
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(pid) for pid in workers), "parser workers outlived their parent"


def test_first_memories_saved_by_several_agents_at_once_are_all_kept(tmp_path: Path) -> None:
    """Each process registers the memory source on its first save: the ones that lose that race
    use the winner's source (they failed with SOURCE_EXISTS and lost their memory)."""
    (tmp_path / ".git").mkdir()
    env = {**os.environ, "MINDEX_EMBED__PROVIDER": "none"}
    procs = [subprocess.Popen([sys.executable, "-m", "mindex", "memory", "save", f"note {n} about walruses",
                               "--type", "insight"], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for n in range(8)]
    errors = [proc.communicate(timeout=120)[1] for proc in procs]
    assert [proc.returncode for proc in procs] == [0] * 8, errors
    with Index(tmp_path / ".mindex" / "index.db", embed=EmbedSettings(provider="none"), create=False) as ix:
        assert sorted(hit.text for hit in ix.memory.recent(limit=20)) == sorted(f"note {n} about walruses" for n in range(8))
        assert [s.source.name for s in ix.sources()] == ["memory"]


def test_a_lock_file_not_yet_written_names_no_made_up_holder(tmp_path: Path) -> None:
    from mindex.store.lock import WriteLock

    lock = WriteLock(tmp_path / "index.db", timeout=1)
    lock.path.write_text("")
    assert lock.holder() == "another process"
    lock.path.write_text('{"since": 0}')
    assert lock.holder() == "another process"
    lock.path.write_text(f'{{"pid": 42, "command": "mindex index", "since": {time.time()}}}')
    assert lock.holder().startswith("pid 42 (mindex index) since ")


def test_a_memory_saved_while_an_indexer_holds_the_index_is_kept_and_found_afterwards(tmp_path: Path) -> None:
    """The journal is the record: the entry is written there at once, the index catches up on
    the next read (it used to fail after the entry was written, inviting a duplicate)."""
    (tmp_path / ".git").mkdir()
    env = {**os.environ, "MINDEX_EMBED__PROVIDER": "none", "MINDEX_INDEX__LOCK_TIMEOUT": "0.5"}

    def mindex(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "mindex", *args, "--json"], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=120)

    assert mindex("memory", "save", "first note", "--type", "insight").returncode == 0
    with held_by_another_process(tmp_path / ".mindex" / "index.db"):
        saved = mindex("memory", "save", "saved while an indexer ran", "--type", "decision")
        assert saved.returncode == 0, saved.stderr
        entry = json.loads(saved.stdout)
        assert entry["pending"].startswith("in the journal; searchable once the index is free")
        assert "saved while an indexer ran" in (tmp_path / ".mindex" / entry["file"]).read_text()
    found = json.loads(mindex("memory", "search", "indexer ran").stdout)["results"]
    assert [hit["id"] for hit in found][:1] == [entry["id"]]
    assert json.loads(mindex("memory", "show", entry["id"]).stdout)["text"] == "saved while an indexer ran"


def test_runs_at_once_wait_for_each_other_and_do_not_redo_what_the_first_did(tmp_path: Path) -> None:
    """Two `mindex index` runs and an `embed` at once each embedded the same chunks (3x the
    work), and both runs parsed every file. Now a second run of a source waits for the first
    and finds its files unchanged; one embedding run at a time, each embedding only what is
    still without a vector."""
    docs = tmp_path / "docs"
    for n in range(120):
        (docs / f"part{n % 4}").mkdir(parents=True, exist_ok=True)
        (docs / f"part{n % 4}" / f"page{n}.md").write_text(
            f"# Page {n}\n\nPage {n} is about topic{n % 17} and the walrus number {n}.\n")
    db = tmp_path / "at-once.db"
    env = {**os.environ, "MINDEX_DB": str(db), "MINDEX_EMBED__PROVIDER": "onnx"}
    run = [sys.executable, "-m", "mindex"]
    subprocess.run([*run, "add", str(docs)], env=env, check=True, capture_output=True)
    procs = [subprocess.Popen([*run, *args, "--json"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for args in (["index", "-q"], ["index", "-q"], ["embed"])]
    outcomes = [(p.communicate(timeout=300), p.returncode) for p in procs]
    assert all(code == 0 for _, code in outcomes), outcomes
    first, second, embedded = (json.loads(out) for (out, _), _ in outcomes)
    runs = sorted([first["docs"], second["docs"]], key=lambda r: -r["added"])
    assert runs[0]["added"] == 120 and runs[1]["added"] == 0 and runs[1]["unchanged"] == 120  # parsed once
    with sqlite3.connect(db) as conn:
        chunks = conn.execute("SELECT count(DISTINCT hash) FROM chunks").fetchone()[0]
        vectors = conn.execute("SELECT count(*) FROM vectors").fetchone()[0]
    conn.close()
    assert vectors == chunks
    assert runs[0]["embedded"] + runs[1]["embedded"] + embedded["embedded"] == chunks  # each chunk embedded once

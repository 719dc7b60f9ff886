from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from mindex import Index, IndexSettings
from mindex.config import EmbedSettings
from mindex.errors import SourceExistsError, SourceNotFoundError, SourcePathError
from mindex.sources.docs import LoadTask, load
from mindex.sources.walk import FileEntry

INDEXED = {
    "guide/install.mdx", "guide/pooling.md", "guide/retries.md", "reference/api.html",
    "reference/changelog.txt", "reference/cli.rst", "reference/manual.pdf",
}


def paths(ix: Index) -> set[str]:
    rows = ix.store.conn.execute("SELECT path FROM documents")  # type: ignore[attr-defined]
    return {row[0] for row in rows}


def test_index_covers_every_format_and_honours_ignore_files(indexed: Index) -> None:
    assert paths(indexed) == INDEXED  # drafts/ (.gitignore) and *.tmp.md (.mindexignore) left out
    (stats,) = indexed.sources()
    assert stats.documents == len(INDEXED) and stats.chunks >= len(INDEXED)


def test_pdf_results_carry_their_page(indexed: Index) -> None:
    hit = indexed.search("HTTPS_PROXY corporate proxy").hits[0]
    assert hit.path == "reference/manual.pdf" and hit.page == 2 and hit.start_line is None


def test_reindex_skips_unchanged_files(indexed: Index) -> None:
    report = indexed.index()["docs"]
    assert (report.added, report.updated, report.removed, report.unchanged) == (0, 0, 0, len(INDEXED))


def test_touched_but_identical_file_is_not_reparsed(indexed: Index, docs_dir: Path) -> None:
    target = docs_dir / "guide/pooling.md"
    os.utime(target, ns=(1, 1))
    report = indexed.index()["docs"]
    assert (report.updated, report.unchanged) == (0, len(INDEXED))
    assert indexed.index()["docs"].unchanged == len(INDEXED)  # new mtime was recorded


def test_changed_and_deleted_files_are_updated_and_removed(indexed: Index, docs_dir: Path) -> None:
    (docs_dir / "guide/pooling.md").write_text("# Pool\n\nThe quokka pool is new.\n")
    (docs_dir / "reference/changelog.txt").unlink()
    (docs_dir / "guide/new.md").write_text("# New\n\nFresh narwhal page.\n")
    report = indexed.index()["docs"]
    assert (report.added, report.updated, report.removed) == (1, 1, 1)
    assert indexed.search("quokka").hits[0].path == "guide/pooling.md"
    assert not indexed.search('"PoolTimeout"').hits
    assert all(h.path != "reference/changelog.txt" for h in indexed.search("deadline").hits)
    assert "reference/changelog.txt" not in paths(indexed)


def test_bad_inputs_are_skipped_with_reasons_and_good_files_still_indexed(index: Index, docs_dir: Path) -> None:
    bad = docs_dir / "bad"
    bad.mkdir()
    (bad / "binary.md").write_bytes(b"# Title\x00\x01\x02 binary")
    (bad / "empty.md").write_text("")
    (bad / "blank.txt").write_text("   \n\n")
    (bad / "latin1.md").write_bytes("# Café crème\n\nNaïve résumé.\n".encode("cp1252"))
    (bad / "front.md").write_text("---\ntitle: [oops\n---\n# Still indexed\n\nwombat body\n")
    (bad / "broken.pdf").write_bytes(b"%PDF-1.4 this is not really a pdf")
    from pdfmaker import make_pdf

    (bad / "scanned.pdf").write_bytes(make_pdf([[], []]))  # pages without a text layer
    (bad / "app.html").write_text('<html><head><title>App</title><script src="app.js"></script></head>'
                                  '<body><div id="root"></div></body></html>')  # its scripts draw the page
    (bad / "meta.md").write_text("---\ntitle: Only front matter\n---\n")
    (bad / "big.md").write_text("# Big\n\n" + "word " * 5000)
    (bad / "dangling.md").symlink_to(bad / "nowhere.md")
    (bad / "loop").symlink_to(docs_dir)
    index.settings = IndexSettings(workers=1, max_file_bytes=10_000)
    index.add_source(docs_dir, name="docs")
    report = index.index()["docs"]
    reasons = {s.path: s.reason for s in report.skipped}
    assert reasons["bad/binary.md"] == "binary content in a .md file"
    assert reasons["bad/empty.md"] == "empty file" and reasons["bad/blank.txt"] == "empty file"
    assert reasons["bad/broken.pdf"].startswith("not a readable PDF")
    assert reasons["bad/app.html"].startswith("HTML without text") and reasons["bad/meta.md"] == "no text to index"
    assert reasons["bad/scanned.pdf"] == "PDF without text (2 pages of images?): run OCR on it (e.g. ocrmypdf) to index it"
    assert "larger than" in reasons["bad/big.md"] and "index.max_file_bytes" in reasons["bad/big.md"]
    assert reasons["bad/dangling.md"] == "broken symlink"
    assert reasons["bad/loop"].startswith("symlink loop")
    assert INDEXED | {"bad/latin1.md", "bad/front.md"} == paths(index)
    assert index.search("résumé").hits[0].path == "bad/latin1.md"
    assert index.search("wombat").hits[0].path == "bad/front.md"
    meta = index.store.conn.execute(  # type: ignore[attr-defined]
        "SELECT metadata FROM documents WHERE path = 'bad/latin1.md'"
    ).fetchone()[0]
    assert '"encoding": "cp1252"' in meta
    status = index.status()
    assert {s["path"] for s in status["skipped"]} == set(reasons)


def test_a_file_skipped_for_its_bytes_is_not_read_again_until_it_changes(index: Index, docs_dir: Path) -> None:
    blob = docs_dir / "guide" / "blob.md"
    blob.write_bytes(b"# Title\x00\x01\x02 binary, wombat")
    (docs_dir / "guide" / "blank.txt").write_text("   \n\n")
    index.settings = IndexSettings(workers=1)
    index.add_source(docs_dir, name="docs")
    reasons = {s.path: s.reason for s in index.index()["docs"].skipped}
    assert reasons["guide/blob.md"] == "binary content in a .md file" and reasons["guide/blank.txt"] == "empty file"
    # The same size and mtime with other bytes: the run trusts the marker and does not read it
    stamp = blob.stat()
    blob.write_bytes(b"# Title, now text wombat".ljust(stamp.st_size, b"."))
    os.utime(blob, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    report = index.index()["docs"]
    assert {s.path: s.reason for s in report.skipped} == reasons and "guide/blob.md" not in paths(index)
    assert {s["path"]: s["reason"] for s in index.status()["skipped"]} == reasons  # and kept for the next run
    # A new mtime: read again, and now it is text
    os.utime(blob, ns=(stamp.st_atime_ns, stamp.st_mtime_ns + 1_000_000_000))
    report = index.index()["docs"]
    assert report.added == 1 and "guide/blob.md" in paths(index)
    assert "guide/blob.md" not in {s.path for s in report.skipped}
    assert index.search("wombat").hits[0].path == "guide/blob.md"


def test_unreadable_file_is_skipped_not_fatal(tmp_path: Path) -> None:
    folder = tmp_path / "a.md"
    folder.mkdir()  # opening a folder as a file fails like an unreadable file does
    result = load(LoadTask("s", str(tmp_path), FileEntry("a.md", str(folder), 1, 1), None, 1500, 200))
    assert result.path == "a.md" and result.reason.startswith("unreadable")  # type: ignore[union-attr]


def test_file_vanishing_mid_run_is_skipped(tmp_path: Path) -> None:
    result = load(LoadTask("s", str(tmp_path), FileEntry("gone.md", str(tmp_path / "gone.md"), 1, 1), None, 1500, 200))
    assert result.reason == "vanished while indexing"  # type: ignore[union-attr]


def test_previously_indexed_file_that_turns_binary_is_removed(indexed: Index, docs_dir: Path) -> None:
    (docs_dir / "guide/pooling.md").write_bytes(b"\x00\x00garbage")
    report = indexed.index()["docs"]
    assert report.removed == 1 and "guide/pooling.md" not in paths(indexed)


def test_vanished_source_folder_is_reported_and_others_still_indexed(index: Index, tmp_path: Path, docs_dir: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "a.md").write_text("# A\n\nplatypus\n")
    index.add_source(docs_dir, name="docs")
    index.add_source(other, name="other")
    docs_dir.rename(tmp_path / "moved")
    reports = index.index()
    assert "is missing or not a folder" in reports["docs"].errors[0]
    assert "mindex remove docs" in reports["docs"].errors[0]
    assert reports["other"].added == 1


def test_include_and_exclude_globs_filter_files(index: Index, docs_dir: Path) -> None:
    index.add_source(docs_dir, name="docs", include=["guide/**"], exclude=["*.mdx"])
    index.index()
    assert paths(index) == {"guide/pooling.md", "guide/retries.md"}


def test_a_folder_registered_inside_another_source_is_indexed_by_it_alone(index: Index, tmp_path: Path) -> None:
    """The README's quick start: the repository as code, its docs folder as docs; each file
    once, and back to the outer source when the inner one goes."""
    repo = tmp_path / "repo"
    (repo / "docs" / "guide").mkdir(parents=True)
    (repo / "docs" / "guide" / "pooling.md").write_text("# Pooling\n\nIdle walrus connections are kept.\n")
    (repo / "docs" / "conf.py").write_text("def setup(app):\n    return app\n")
    (repo / "README.md").write_text("# Repo\n\nA narwhal library.\n")
    (repo / "pool.py").write_text("def keep_idle():\n    return 'idle walrus'\n")
    index.add_source(repo, name="repo", kind="code")
    index.index()
    index.add_source(repo / "docs", name="docs")
    reports = index.index()
    assert reports["repo"].removed == 1
    assert [(s.path, s.reason) for s in reports["repo"].skipped] == [
        ("docs", "folder of source 'docs' (1 file it indexes)")]
    owners = {(hit.source, hit.path) for hit in index.search("idle walrus connections", limit=10).hits}
    assert ("docs", "guide/pooling.md") in owners and ("repo", "docs/guide/pooling.md") not in owners
    held = {f"{s.source.name}/{path}" for s in index.sources() for path in index.store.document_markers(s.source.id or 0)}
    assert held == {"repo/docs/conf.py", "repo/README.md", "repo/pool.py", "docs/guide/pooling.md"}
    index.remove_source("docs")
    assert index.index()["repo"].added == 1  # the outer source takes the file back


def test_source_registration_errors_name_the_fix(index: Index, docs_dir: Path, tmp_path: Path) -> None:
    index.add_source(docs_dir)
    with pytest.raises(SourceExistsError, match="mindex remove docs"):
        index.add_source(docs_dir, name="again")
    with pytest.raises(SourcePathError, match="missing does not exist"):
        index.add_source(tmp_path / "missing")
    (tmp_path / "page.md").write_text("# Page\n")
    with pytest.raises(SourcePathError, match="page.md is not a folder; pass the folder that holds"):
        index.add_source(tmp_path / "page.md")
    with pytest.raises(SourceNotFoundError, match="registered: docs"):
        index.remove_source("nope")
    assert index.add_source(tmp_path, name=None).name == tmp_path.name


def test_remove_source_drops_documents_chunks_and_fts_rows(indexed: Index) -> None:
    indexed.remove_source("docs")
    conn: sqlite3.Connection = indexed.store.conn  # type: ignore[attr-defined]
    for table in ("documents", "chunks", "chunks_fts", "skipped_files"):
        assert conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 0
    assert not indexed.search("retries").hits


def test_real_docs_tree_git_release_notes(index: Index) -> None:
    """Index git's release notes (shipped by the git package on every machine here)."""
    root = Path("/usr/share/doc/git/RelNotes")
    files = sorted(p for p in root.glob("*.txt") if p.stat().st_size)
    assert len(files) > 300
    index.settings = IndexSettings(workers=2)
    index.add_source(root, name="git")
    report = index.index()["git"]
    assert report.added == len(files) and not report.skipped
    hits = index.search('"git stash push" pathspec', limit=20).hits
    match = [h for h in hits if h.path == "2.13.0.txt"]
    assert match, [h.path for h in hits]
    lines = (root / "2.13.0.txt").read_text().split("\n")
    hit = match[0]
    assert hit.start_line is not None and hit.end_line is not None
    span = "\n".join(lines[hit.start_line - 1 : hit.end_line])
    assert hit.text.split("\n")[0] in span and hit.text.split("\n")[-1] in span
    assert index.index()["git"].unchanged == len(files)


def _module(names: list[str], body: str = "return {n}") -> str:
    return "".join(f"def {name}(value):\n    '''Compute the {name} of a value.'''\n    "
                   f"{body.format(n=repr(name))}\n\n\n" for name in names)


@pytest.mark.parametrize("store", ["sqlite", "postgres"])
def test_a_reindexed_file_keeps_its_unchanged_chunks_and_answers_as_a_fresh_index(
        tmp_path: Path, store: str, request: pytest.FixtureRequest) -> None:
    """An edit above most of a file's chunks moves them; their rows stay (same seq, lines brought
    up to date) and only the changed ones leave and enter the full-text index. Whatever was kept,
    the index must answer exactly as a fresh index of the same files: the same hits, lines,
    texts and scores (BM25's counts and lengths included), on either backend."""
    targets: list[Path | str] = [tmp_path / "a.db", tmp_path / "b.db"]
    if store == "postgres":
        targets = [str(request.getfixturevalue("pg_url")), str(request.getfixturevalue("pg").create("fresh_b"))]
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    files = {
        "pkg/walrus.py": _module([f"walrus_{n}" for n in range(12)]),
        "pkg/narwhal.py": _module([f"narwhal_{n}" for n in range(6)]),
        "pkg/gone.py": _module(["quokka_only"]),
        "notes.md": "# Pools\n\nThe pelican pool holds ten.\n\n# Retries\n\nBack off with jitter.\n",
    }
    for rel, text in files.items():
        (repo / rel).write_text(text)
    edits = {  # lines added on top (everything moves), one body changed, a word removed, a section added
        "pkg/walrus.py": "import os\nimport sys\n\n\n" + files["pkg/walrus.py"],
        "pkg/narwhal.py": files["pkg/narwhal.py"].replace("return 'narwhal_3'", "return os.sep  # tusk")
        + _module(["Narwhal_0"], "return narwhal_1(value)"),  # a name differing in case only, a new call
        "pkg/gone.py": _module(["other_only"]),
        "notes.md": "# Intro\n\nA cormorant note.\n\n" + files["notes.md"],
    }
    queries = ["walrus", "walrus_7", "narwhal", "tusk", "narwhal_3", "quokka", "other_only", "compute value",
               "pelican pool", "jitter", "cormorant", "import os sys", "return"]

    def answers(ix: Index) -> list[list[tuple[float, str, int | None, int | None, str]]]:
        """Every hit of each query; equal scores in any order (they part by row number)."""
        return [sorted((-round(h.score, 9), h.path, h.start_line, h.end_line, ix.get(h.id).text)
                       for h in ix.search(q, 100, mode="keyword").hits) for q in queries]

    def names(ix: Index) -> set[tuple[str, ...]]:
        """Who defines and who calls each name (SQLite's symbol_names compares names without
        case; PostgreSQL keeps a row a definition and a reference)."""
        conn = ix.store.conn  # type: ignore[attr-defined]
        defined, called = (("symbols", "refs") if store == "postgres" else ("symbol_names", "ref_names"))
        return ({("defines", short.lower(), path) for short, path in conn.execute(
                    f"SELECT n.short, d.path FROM {defined} n JOIN documents d ON d.id = n.document_id").fetchall()}
                | {("calls", name, path) for name, path in conn.execute(
                    f"SELECT n.name, d.path FROM {called} n JOIN documents d ON d.id = n.document_id").fetchall()})

    def seqs(ix: Index) -> dict[str, int]:
        return dict(ix.store.conn.execute("SELECT id, seq FROM chunks").fetchall())  # type: ignore[attr-defined]

    settings = IndexSettings(workers=1)
    with Index(targets[0], settings, embed=EmbedSettings(provider="none")) as ix:
        ix.add_source(repo, name="repo", kind="code")
        ix.index()
        before = seqs(ix)
        for rel, text in edits.items():
            (repo / rel).write_text(text)
        assert ix.index()["repo"].updated == 4
        after, got, named = seqs(ix), answers(ix), names(ix)
        if store == "sqlite":
            fts = ix.store.conn.execute("SELECT count(*) FROM chunks_fts").fetchone()[0]  # type: ignore[attr-defined]
            assert fts == len(after)
    with Index(targets[1], settings, embed=EmbedSettings(provider="none")) as fresh:
        fresh.add_source(repo, name="repo", kind="code")
        fresh.index()
        assert got == answers(fresh) and {cid for cid in seqs(fresh)} == set(after)
        assert named == names(fresh) and ("calls", "narwhal_1", "pkg/narwhal.py") in named
        assert ("defines", "quokka_only", "pkg/gone.py") not in named
    kept = {cid for cid in before if after.get(cid) == before[cid]}
    with Index(targets[0], settings, embed=EmbedSettings(provider="none")) as ix:
        titles = {ix.get(cid).title for cid in kept}
    # the twelve walrus functions moved down four lines and kept their rows, and so did the
    # five narwhal functions whose text is the same, and the notes' two sections under the
    # one added above them (a code source's markdown is chunked by heading)
    assert titles == ({f"walrus_{n}" for n in range(12)} | {f"narwhal_{n}" for n in range(6) if n != 3}
                      | {"Pools", "Retries"})
    assert not got[queries.index("quokka")] and got[queries.index("tusk")]
    assert got[queries.index("walrus_7")][0][2:4] == (40, 42)  # its new lines


def test_a_sphinx_html_build_is_indexed_as_its_pages_without_the_copies_sphinx_adds(index: Index,
                                                                                   tmp_path: Path) -> None:
    """A Sphinx HTML build indexed as docs held every page twice (its `.rst.txt` under
    `_sources/`, with no headings), the highlighted code of `_modules/`, which outranked the
    pages for a how-to question in Sphinx's own manual, and the name indexes. The pages alone
    are indexed; each copy folder is named once among the skipped files, and `--include`
    globs choose for themselves (jsonschema's manual: tests/fixtures/html/README.md)."""
    import shutil

    build = tmp_path / "html"
    shutil.copytree(Path(__file__).parent / "fixtures" / "html" / "sphinx-build", build)
    index.add_source(build, name="manual", kind="docs")
    report = index.index()["manual"]
    held = set(index.store.document_markers(index.source("manual").id or 0))
    assert held == {"index.html", "faq.html"}
    assert sorted((s.path, s.reason.split(" (")[0]) for s in report.skipped) == [
        ("_modules", "folder of Sphinx's highlighted copies of the code"),
        ("_sources", "folder of Sphinx's copies of the pages' sources"),
        ("genindex.html", "Sphinx's index page"), ("py-modindex.html", "Sphinx's index page"),
        ("search.html", "Sphinx's index page")]
    hits = index.search("configure a base URI for ref resolution using local files", limit=5).hits
    assert hits and hits[0].path == "faq.html" and not {h.path for h in hits} - held
    index.remove_source("manual")
    index.add_source(build, name="chosen", kind="docs", include=("_sources/**",))
    chosen = index.index(["chosen"])["chosen"]
    assert chosen.added == 2 and not chosen.skipped

"""Nothing outside a source's root is ever read: links out, link loops, links swapped in late."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from mindex import Index, IndexSettings
from mindex.config import EmbedSettings
from mindex.sources import SOURCE_KINDS
from mindex.sources.confine import LEAVES_SOURCE
from mindex.sources.docs import LoadTask, Unchanged
from mindex.models import Document, SkippedFile, Source

SECRET = "zanzibarsecret"


def hostile_tree(tmp_path: Path) -> Path:
    """A root holding links to outside files and folders, loops, and links that stay inside."""
    outside = tmp_path / "outside"
    (outside / "deep").mkdir(parents=True)
    (outside / "secret.md").write_text(f"# Secret\n\nThe {SECRET} token.\n")
    (outside / "secret.py").write_text(f"def leak():\n    return '{SECRET}'\n")
    (outside / "deep" / "more.md").write_text(f"# More\n\n{SECRET} again.\n")
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    (root / "inside.md").write_text("# Inside\n\nThe harmless walrus page.\n")
    (root / "tool.py").write_text("def walrus():\n    return 1\n")
    (root / "sub" / "page.md").write_text("# Sub\n\nA narwhal page.\n")
    links = {
        "link_in.md": "inside.md",                       # inside -> inside: followed
        "sub_link": "sub",                                # folder inside: followed (once)
        "passwd.md": "/etc/passwd",                      # absolute, outside
        "secret.md": "../outside/secret.md",              # relative, outside
        "secret.py": "../outside/secret.py",
        "outdir": "../outside",                           # folder outside
        "sub/escape.md": "../../outside/deep/more.md",    # from a subfolder
        "loop": ".",                                      # loop to the root
        "sub/up": "..",                                   # loop to the parent
        "dangling.md": "../outside/nothing.md",           # outside and broken
    }
    for name, target in links.items():
        os.symlink(target, root / name)
    return root


def _index(tmp_path: Path, root: Path, kind: str) -> Index:
    ix = Index(tmp_path / f"{kind}.db", IndexSettings(workers=1), embed=EmbedSettings(provider="none"))
    ix.add_source(root, name="src", kind=kind)
    ix.index()
    return ix


def _indexed_paths(ix: Index) -> set[str]:
    return {row[0] for row in ix.store.conn.execute("SELECT path FROM documents")}  # type: ignore[attr-defined]


def _all_text(ix: Index) -> str:
    rows = ix.store.conn.execute("SELECT text FROM chunks")  # type: ignore[attr-defined]
    return "\n".join(row[0] for row in rows)


@pytest.mark.parametrize("kind", ["docs", "code"])
def test_links_out_of_the_root_are_skipped_and_links_inside_work(tmp_path: Path, kind: str) -> None:
    root = hostile_tree(tmp_path)
    with _index(tmp_path, root, kind) as ix:
        text = _all_text(ix)
        assert SECRET not in text and "root:x:0:0" not in text
        skipped = {s["path"]: s["reason"] for s in ix.status()["skipped"]}
        for name in ("passwd.md", "secret.md", "outdir", "sub/escape.md", "dangling.md"):
            assert skipped.get(name) == LEAVES_SOURCE, (name, skipped.get(name))
        indexed = _indexed_paths(ix)
        assert {"inside.md", "link_in.md"} <= indexed
        # A folder reached twice (itself and a link to it inside the root) is read once.
        assert len(indexed & {"sub/page.md", "sub_link/page.md"}) == 1
        assert not any(p.startswith(("outdir", "loop/", "sub/up/")) for p in indexed)
        if kind == "code":
            assert skipped["secret.py"] == LEAVES_SOURCE
            assert not ix.grep(SECRET).matches
            assert "tool.py" in indexed


def test_a_git_repository_with_tracked_links_out_is_confined_too(tmp_path: Path) -> None:
    root = hostile_tree(tmp_path)
    subprocess.run(["git", "-C", str(root), "init", "-q"], check=True)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    with _index(tmp_path, root, "code") as ix:
        assert SECRET not in _all_text(ix) and not ix.grep(SECRET).matches
        skipped = {s["path"]: s["reason"] for s in ix.status()["skipped"]}
        assert skipped["secret.py"] == LEAVES_SOURCE and skipped["passwd.md"] == LEAVES_SOURCE
        assert "tool.py" in _indexed_paths(ix)


@pytest.mark.parametrize("kind", ["docs", "code", "git"])
def test_a_link_that_cannot_be_followed_is_skipped_and_the_run_goes_on(tmp_path: Path, kind: str) -> None:
    """An exited, not yet reaped process's /proc/N/exe is a link without a target: resolving a
    link to it fails (found indexing /proc, where processes end during the walk)."""
    root = tmp_path / "root"
    root.mkdir()
    (root / "tool.py").write_text("def walrus():\n    return 1\n")
    (root / "page.md").write_text("# Page\n\nA narwhal page.\n")
    zombie = subprocess.Popen(["true"])
    try:
        stat = Path(f"/proc/{zombie.pid}/stat")
        while stat.read_text().rpartition(")")[2].split()[0] != "Z":
            pass
        for name in ("gone.md", "gone.py"):
            os.symlink(f"/proc/{zombie.pid}/exe", root / name)
        if kind == "git":
            subprocess.run(["git", "-C", str(root), "init", "-q"], check=True)
            subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
        with _index(tmp_path, root, "docs" if kind == "docs" else "code") as ix:
            skipped = {s["path"]: s["reason"] for s in ix.status()["skipped"]}
            assert skipped["gone.py" if kind != "docs" else "gone.md"] == "broken symlink"
            assert _indexed_paths(ix) >= ({"page.md"} if kind == "docs" else {"tool.py"})
    finally:
        zombie.wait()


def _task(kind: str, root: Path, rel: str) -> LoadTask:
    source = Source("src", kind, str(root))
    entries, _ = SOURCE_KINDS[kind].discover(source)
    entry = next(e for e in entries if e.rel == rel)
    return LoadTask("src", str(root), entry, None, 1500, 200)


@pytest.mark.parametrize("kind", ["docs", "code"])
def test_a_file_swapped_for_a_link_after_listing_is_not_read(tmp_path: Path, kind: str) -> None:
    root = hostile_tree(tmp_path)
    rel = "inside.md" if kind == "docs" else "tool.py"
    task = _task(kind, root, rel)
    target = "secret.md" if kind == "docs" else "secret.py"
    (root / rel).unlink()
    os.symlink(tmp_path / "outside" / target, root / rel)
    result = SOURCE_KINDS[kind].load(task)
    assert isinstance(result, SkippedFile) and result.reason == LEAVES_SOURCE


def test_a_folder_swapped_for_a_link_after_listing_is_not_read(tmp_path: Path) -> None:
    root = hostile_tree(tmp_path)
    task = _task("docs", root, "sub/page.md")
    (tmp_path / "outside" / "page.md").write_text(f"# Page\n\n{SECRET}\n")
    shutil.rmtree(root / "sub")
    os.symlink(tmp_path / "outside", root / "sub")
    result = SOURCE_KINDS["docs"].load(task)
    assert isinstance(result, SkippedFile) and result.reason == LEAVES_SOURCE


def test_a_link_inside_the_root_still_reads(tmp_path: Path) -> None:
    root = hostile_tree(tmp_path)
    result = SOURCE_KINDS["docs"].load(_task("docs", root, "link_in.md"))
    assert isinstance(result, Document) and "walrus" in result.chunks[0].text
    assert not isinstance(result, Unchanged)


def test_a_root_swapped_for_a_link_is_refused(tmp_path: Path) -> None:
    root = hostile_tree(tmp_path)
    with _index(tmp_path, root, "docs") as ix:
        shutil.rmtree(root)
        os.symlink(tmp_path / "outside", root)
        report = ix.index()["src"]
        assert report.errors and "symlink" in report.errors[0]
        assert SECRET not in _all_text(ix)


@pytest.mark.parametrize("kind", ["docs", "code"])
def test_a_named_pipe_is_listed_as_skipped_not_opened(tmp_path: Path, kind: str) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / "real.md").write_text("# Real\n\nA page.\n")
    (root / "real.py").write_text("def real():\n    return 1\n")
    os.mkfifo(root / "pipe.md")
    os.mkfifo(root / "pipe.py")
    os.mkfifo(root / "pipe.bin")  # docs read by suffix: not a candidate; code looks at every file
    # Opening a FIFO for reading blocks until a writer comes: indexing would hang here.
    with _index(tmp_path, root, kind) as ix:
        skipped = {s["path"]: s["reason"] for s in ix.status()["skipped"]}
        pipe = "pipe.md" if kind == "docs" else "pipe.py"
        assert skipped.get(pipe) == "not a regular file (named pipe)"
        assert ("pipe.bin" in skipped) == (kind == "code")
        assert ("real.md" if kind == "docs" else "real.py") in _indexed_paths(ix)


def test_folders_nested_past_the_path_limit_are_walked_once_each_and_the_too_deep_part_is_named(tmp_path: Path) -> None:
    """1,000 nested folders took 162 s and 10,000 did not finish in 300 s: the walk resolved
    every folder's real path from the root again. Now each folder costs the same; what lies
    past the system's path limit is listed as skipped with the reason instead of vanishing."""
    root = tmp_path / "deep"
    root.mkdir()
    try:
        _index_nested(root, tmp_path)
    finally:  # pytest's own clean-up of old temporary folders would recurse past Python's limit
        _remove_nested(root)


def _index_nested(root: Path, tmp_path: Path) -> None:
    import sys

    (root / "top.md").write_text("# Top\n")
    folder = os.open(root, os.O_RDONLY)
    try:
        for depth in range(1, 6001):  # made relative to an open folder: no path is ever that long here
            os.mkdir("d", dir_fd=folder)
            inner = os.open("d", os.O_RDONLY, dir_fd=folder)
            os.close(folder)
            folder = inner
            if depth == 1500:
                fd = os.open("mid.md", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=folder)
                os.write(fd, b"# Middle\n\nThe walrus at depth 1500.\n")
                os.close(fd)
        fd = os.open("bottom.md", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=folder)
        os.write(fd, b"# Bottom\n")
        os.close(fd)
    finally:
        os.close(folder)
    env = {**os.environ, "MINDEX_DB": str(tmp_path / "deep.db")}
    run = [sys.executable, "-m", "mindex"]
    subprocess.run([*run, "add", str(root)], env=env, check=True, capture_output=True)
    done = subprocess.run([*run, "index", "--json", "-q"], env=env, capture_output=True, text=True, timeout=120)
    report = __import__("json").loads(done.stdout)["deep"]
    assert done.returncode == 0 and report["added"] == 2, done.stderr  # top.md and the one at depth 1500
    reasons = [s["reason"] for s in report["skipped"]]
    assert len(reasons) == 1 and reasons[0].startswith("path too long for the system (")


def _remove_nested(root: Path) -> None:
    """Remove a chain of nested `d` folders deeper than the path limit (shutil.rmtree
    recurses past Python's limit): down by relative steps, then up, one folder at a time."""
    if not root.exists():
        return
    here = os.getcwd()
    os.chdir(root)
    try:
        depth = 0
        while os.path.isdir("d"):
            os.chdir("d")
            depth += 1
        for _ in range(depth):
            for name in os.listdir("."):
                os.unlink(name)
            os.chdir("..")
            os.rmdir("d")
    finally:
        os.chdir(here)
    shutil.rmtree(root)

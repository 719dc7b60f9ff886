"""`mindex watch` and `serve --watch`: real processes, real inotify, real files."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from mindex import Index, IndexSettings
from mindex.config import EmbedSettings

DEADLINE = 15.0  # seconds; an update normally lands well under one


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "core.py").write_text("def first():\n    return 1\n", encoding="utf-8")
    return root


@pytest.fixture
def db(tmp_path: Path, repo: Path) -> Path:
    path = tmp_path / "state" / "index.db"
    with Index(path, IndexSettings(workers=1), embed=EmbedSettings(provider="none")) as ix:
        ix.add_source(repo, name="repo", kind="code")
    return path


def _lines(proc: subprocess.Popen[str]) -> queue.Queue[dict[str, Any]]:
    found: queue.Queue[dict[str, Any]] = queue.Queue()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            found.put(json.loads(line))

    threading.Thread(target=pump, daemon=True).start()
    return found


@pytest.fixture
def watcher(db: Path, tmp_path: Path) -> Iterator[queue.Queue[dict[str, Any]]]:
    with _watching(db, tmp_path, reconcile=2) as updates:
        yield updates


@contextlib.contextmanager
def _watching(db: Path, tmp_path: Path, reconcile: float) -> Iterator[queue.Queue[dict[str, Any]]]:
    env = {**os.environ, "MINDEX_DB": str(db)}
    with open(tmp_path / "watch.log", "w", encoding="utf-8") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "mindex", "watch", "--json", "--debounce", "200", "--reconcile", str(reconcile)],
            env=env, stdout=subprocess.PIPE, stderr=log, text=True)
        try:
            updates = _lines(proc)
            first = updates.get(timeout=60)
            assert first["reason"] == "start" and first["sources"]["repo"]["added"] == 1
            yield updates
            assert proc.poll() is None, "the watcher survived every change"
        finally:
            proc.terminate()
            proc.wait(timeout=10)
            assert proc.stdout is not None
            proc.stdout.close()


def _until(check: Callable[[], bool], what: str) -> float:
    started = time.monotonic()
    while time.monotonic() - started < DEADLINE:
        if check():
            return time.monotonic() - started
        time.sleep(0.05)
    raise AssertionError(f"the index did not show {what} within {DEADLINE} s")


def _quiet(updates: queue.Queue[dict[str, Any]], seconds: float) -> None:
    """Drop the watcher's updates until none has come for `seconds`."""
    started = time.monotonic()
    while time.monotonic() - started < DEADLINE:
        try:
            updates.get(timeout=seconds)
        except queue.Empty:
            return
    raise AssertionError(f"the watcher did not go quiet within {DEADLINE} s")


def _paths(db: Path) -> set[str]:
    with Index(db, IndexSettings(workers=1), create=False, embed=EmbedSettings(provider="none")) as ix:
        return {m.path for m in ix.grep(r".", limit=10_000).matches}


def _has(db: Path, name: str) -> bool:
    with Index(db, IndexSettings(workers=1), create=False, embed=EmbedSettings(provider="none")) as ix:
        return any(how == "exact" for how, _ in ix.graph().find(name))


def test_saves_creates_renames_and_deletes_reach_the_index(watcher: queue.Queue[dict[str, Any]], repo: Path,
                                                           db: Path) -> None:
    (repo / "pkg" / "core.py").write_text("def renamed_fn():\n    return 2\n", encoding="utf-8")
    _until(lambda: _has(db, "renamed_fn") and not _has(db, "first"), "an edited function")
    (repo / "pkg" / "deep" / "er").mkdir(parents=True)  # a new folder, a file right after it
    (repo / "pkg" / "deep" / "er" / "new.py").write_text("def brand_new():\n    pass\n", encoding="utf-8")
    _until(lambda: _has(db, "brand_new"), "a file in a new folder")
    (repo / "pkg" / "core.py").rename(repo / "pkg" / "moved.py")
    _until(lambda: _paths(db) == {"pkg/moved.py", "pkg/deep/er/new.py"}, "a rename")
    (repo / "pkg" / "deep" / "er" / "new.py").unlink()
    _until(lambda: _paths(db) == {"pkg/moved.py"}, "a delete")


def test_bad_files_do_not_stop_it_and_a_missed_event_is_healed(watcher: queue.Queue[dict[str, Any]], repo: Path,
                                                                 db: Path) -> None:
    (repo / "pkg" / "blob.py").write_bytes(b"\x00\x01\x02binary\xff" * 100)
    (repo / "pkg" / "ok.py").write_text("def still_alive():\n    pass\n", encoding="utf-8")
    _until(lambda: _has(db, "still_alive"), "a good file next to a binary one")
    assert "pkg/blob.py" not in _paths(db)
    # The two saves may start a second run (an event landing after the first began), and any
    # run reads the whole source: wait until they are over, or that run would take the file
    # below before the reconcile does.
    _quiet(watcher, 1.0)
    # Editors' backup files (`name~`) are filtered out of the events, but the indexer takes
    # them as text: only the periodic reconcile can bring this one in.
    (repo / "pkg" / "notes.txt~").write_text("healed by the reconcile scan\n", encoding="utf-8")
    _until(lambda: "pkg/notes.txt~" in _paths(db), "a file only a reconcile sees")
    # The watcher prints a round once it has committed, so the index can show the file before
    # the line arrives (under load it did): wait for the round that added it. Every reconcile
    # prints a line, most adding nothing.
    try:
        update = watcher.get(timeout=DEADLINE)
        while not update["sources"]["repo"]["added"]:
            update = watcher.get(timeout=DEADLINE)
    except queue.Empty:
        raise AssertionError(f"no round reported adding the file within {DEADLINE} s") from None
    assert update["reason"] == "reconcile"


def test_a_source_folder_deleted_and_made_again_is_watched_again(db: Path, repo: Path, tmp_path: Path) -> None:
    """A docs build or a checkout that deletes the folder first: the old folder's watch is gone,
    and with the reconcile ten minutes away only watching the new folder brings files in."""
    with _watching(db, tmp_path, reconcile=600):
        shutil.rmtree(repo)
        time.sleep(0.5)
        (repo / "pkg").mkdir(parents=True)
        (repo / "pkg" / "core.py").write_text("def rebuilt():\n    return 1\n", encoding="utf-8")
        _until(lambda: _has(db, "rebuilt"), "the folder made again")
        (repo / "pkg" / "later.py").write_text("def saved_later():\n    pass\n", encoding="utf-8")
        _until(lambda: _has(db, "saved_later"), "a save in the folder made again")


def test_serve_watch_answers_from_a_live_index(db: Path, repo: Path) -> None:
    from mcp import Client, StdioServerParameters

    env = {**os.environ, "MINDEX_DB": str(db)}
    params = StdioServerParameters(command=sys.executable, args=["-m", "mindex", "serve", "--watch"], env=env)

    async def main() -> None:
        async with Client(params) as client:
            async def lines(pattern: str) -> list[str]:
                result = await client.call_tool("grep", {"pattern": pattern})
                return [m["path"] for m in result.structured_content["matches"]]

            started = time.monotonic()
            while not await lines("def first") and time.monotonic() - started < DEADLINE:
                await anyio.sleep(0.1)  # the watcher's first round indexes the source
            assert await lines("def first") == ["pkg/core.py"]
            (repo / "pkg" / "live.py").write_text("def live_one():\n    pass\n", encoding="utf-8")
            started = time.monotonic()
            while not await lines("def live_one") and time.monotonic() - started < DEADLINE:
                await anyio.sleep(0.1)
            assert await lines("def live_one") == ["pkg/live.py"]

    anyio.run(main)

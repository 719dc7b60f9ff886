"""The CLI typed at a real terminal (a pseudo-terminal that is the process's controlling
terminal): live progress bars, colours, the cursor, Ctrl-C. The rest of the suite runs the
CLI without a terminal, where none of this happens."""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from terminal import HIDE_CURSOR, MINDEX, Typed, type_command

FIXTURES = Path(__file__).parent / "fixtures"
BAR = "━".encode()


def _piped(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run([MINDEX, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _clean(typed: Typed) -> None:
    """No traceback, no lost stream, the cursor visible again."""
    assert "Traceback" not in typed.text and "lost sys.std" not in typed.text, typed.text
    assert typed.cursor_restored, typed.text


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project folder with the fixture docs registered as source `docs`."""
    shutil.copytree(FIXTURES / "docs", tmp_path / "docs")
    _piped(tmp_path, "add", "docs")
    return tmp_path


def test_index_on_a_terminal_draws_a_bar_then_clears_it_and_shows_the_cursor(project: Path) -> None:
    typed = type_command(["index"], project)
    assert typed.code == 0, typed.text
    _clean(typed)
    assert HIDE_CURSOR in typed.output and BAR in typed.output  # the live bar was drawn
    after_bar = typed.output[typed.output.rfind(BAR):]
    # ... and erased before the summary table, which is all that stays on the screen
    assert b"\x1b[2K" in after_bar and after_bar.find(b"\x1b[2K") < after_bar.find(b"source")
    assert re.search(r"docs\s+7\s+0\s+0\s+0", Typed(after_bar, 0).text), typed.text
    assert json.loads(_piped(project, "status", "--json"))["documents"] == 7


def test_add_on_a_terminal_prints_the_folder_as_it_is_and_the_next_step_alone(tmp_path: Path) -> None:
    """Rich's highlighter coloured the counts of the guess and took the full stop after the
    folder into the path's colour (`/tmp/x/docs.`)."""
    shutil.copytree(FIXTURES / "docs", tmp_path / "docs")
    typed = type_command(["add", "docs"], tmp_path)
    assert typed.code == 0, typed.text
    _clean(typed)
    line = typed.output.split(b"\n")[0]
    assert f": {tmp_path / 'docs'}".encode() + b"\r" in line, typed.output  # the path ends the line, uncoloured
    assert b"\x1b[1;36m" not in line and b"\x1b[35m" not in line  # no number or path highlighted
    assert "Next: mindex index" in typed.text


def test_embed_on_a_terminal_embeds_with_a_bar(project: Path) -> None:
    _piped(project, "index", "-q")
    env = {**os.environ, "MINDEX_EMBED__PROVIDER": "onnx"}
    typed = type_command(["embed"], project, env=env)
    assert typed.code == 0, typed.text
    _clean(typed)
    assert BAR in typed.output and re.search(r"Embedded \d+ chunks with", typed.text)
    assert json.loads(_piped(project, "status", "--json", env=env))["vectors"] > 0


def test_copy_on_a_terminal_copies_with_a_bar(project: Path) -> None:
    _piped(project, "index", "-q")
    typed = type_command(["copy", "--from", ".mindex/index.db", "--to", "copy.db"], project)
    assert typed.code == 0, typed.text
    _clean(typed)
    assert "Copied" in typed.text and BAR in typed.output
    assert json.loads(_piped(project, "--db", "copy.db", "status", "--json"))["documents"] == 7


def test_search_and_memory_search_on_a_terminal_print_in_colour(project: Path) -> None:
    _piped(project, "index", "-q")
    typed = type_command(["search", "connection pool"], project)
    assert typed.code == 0, typed.text
    _clean(typed)
    assert "guide/pooling.md" in typed.text and b"\x1b[" in typed.output  # styled for a terminal
    _piped(project, "memory", "save", "Retries use exponential backoff with jitter", "--type", "decision")
    typed = type_command(["memory", "search", "backoff jitter"], project)
    assert typed.code == 0, typed.text
    _clean(typed)
    assert "exponential backoff" in typed.text and "decision" in typed.text


def test_watch_on_a_terminal_follows_an_edit_and_stops_on_ctrl_c(project: Path) -> None:
    page = project / "docs" / "guide" / "retries.md"
    edited = []

    def edit(output: bytes) -> None:
        if not edited and b", start)" in output:  # the first index is done: it watches now
            page.write_text(page.read_text() + "\n## Walrus\n\nA freshly typed walrus section.\n")
            edited.append(True)

    typed = type_command(["watch", "--debounce", "100"], project, then=edit,
                         interrupt_when=lambda output: b", 1 updated," in output)
    assert typed.code == 130, typed.text
    _clean(typed)
    assert "Aborted" in typed.text
    assert "walrus" in _piped(project, "search", "walrus")


def test_ctrl_c_mid_index_exits_130_keeps_the_index_consistent_and_the_cursor(tmp_path: Path) -> None:
    docs = tmp_path / "many"
    docs.mkdir()
    total = 4000
    for n in range(total):
        (docs / f"page{n:05}.md").write_text(f"# Page {n}\n\nThe word token{n} lives on page {n}.\n")
    _piped(tmp_path, "add", "many")

    def midway(output: bytes) -> bool:
        counts = re.findall(rb"(\d+)/" + str(total).encode(), output)
        return bool(counts) and int(counts[-1]) > 0

    typed = type_command(["index"], tmp_path, interrupt_when=midway)
    assert typed.code == 130, typed.text
    _clean(typed)
    assert "Aborted" in typed.text
    db = tmp_path / ".mindex" / "index.db"
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        conn.execute("INSERT INTO chunks_fts (chunks_fts) VALUES ('integrity-check')")
        kept = conn.execute("SELECT count(*) FROM documents").fetchone()[0]
    conn.close()
    assert kept < total, "the run finished before Ctrl-C reached it"
    summary = json.loads(_piped(tmp_path, "index", "--json", "-q"))["many"]
    assert summary["added"] == total - kept and summary["updated"] == 0 and not summary["errors"]
    assert json.loads(_piped(tmp_path, "status", "--json"))["documents"] == total
    hit = json.loads(_piped(tmp_path, "search", "token3999", "--json"))["results"][0]
    assert hit["path"] == "page03999.md"

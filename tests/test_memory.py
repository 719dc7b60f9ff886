"""Agent memory: the journal on disk is the truth, the index follows it (real files, real
SQLite, real processes)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from mindex import Index, IndexSettings
from mindex.config import EmbedSettings, MemorySettings
from mindex.errors import MemoryInputError, NotFoundError
from mindex.memory import journal
from mindex.memory.book import Memory, parse_since


def open_index(tmp_path: Path) -> Index:
    return Index(tmp_path / ".mindex" / "index.db", IndexSettings(workers=1), embed=EmbedSettings(provider="none"),
                 memory=MemorySettings())


@pytest.fixture
def ix(tmp_path: Path) -> Any:
    with open_index(tmp_path) as index:
        yield index


def journal_file(ix: Index) -> Path:
    files = sorted((ix.memory.memory_dir).glob("*.md"))
    assert len(files) == 1
    return files[0]


def rows(ix: Index) -> list[tuple[Any, ...]]:
    return ix.store.conn.execute(  # type: ignore[attr-defined]
        """SELECT c.id, d.path, c.ordinal, c.context, c.text, c.at, c.facets, c.start_line
           FROM chunks c JOIN documents d ON d.id = c.document_id
           WHERE d.kind IN ('memory', 'knowledge') ORDER BY d.path, c.ordinal""").fetchall()


def test_a_save_is_appended_as_one_block_and_searchable_when_it_returns(ix: Index) -> None:
    saved = ix.memory.save("Retries use exponential backoff capped at 30 s", "decision", ["http"],
                           ["src/fetch/http.py"])
    text = journal_file(ix).read_text()
    assert text.startswith(f"<!-- mindex:memory {saved.entry.id} -->\n### ")
    assert "tags: http\nfiles: src/fetch/http.py\n\nRetries use exponential backoff capped at 30 s\n" in text
    assert text.endswith("<!-- /mindex:memory -->\n")
    found = ix.memory.search("exponential backoff")
    assert [h.facets["id"] for h in found.hits] == [saved.entry.id]  # type: ignore[index]
    assert found.hits[0].context.startswith("memory › ") and "decision" not in found.hits[0].context
    assert (ix.db_path.parent / ".gitignore").read_text().count("index.db*") == 1


def test_saving_never_changes_a_byte_of_what_was_there(ix: Index) -> None:
    ix.memory.save("first entry", "progress")
    path = journal_file(ix)
    hand = path.read_bytes() + b"A note a person wrote by hand, with trailing spaces   \n"
    path.write_bytes(hand)
    ix.memory.save("second entry", "insight")
    after = path.read_bytes()
    assert after.startswith(hand)
    assert after[len(hand):].startswith(b"\n<!-- mindex:memory ")
    assert [h.text for h in ix.memory.recent()] == ["second entry", "first entry"]


def test_bad_input_is_refused_with_the_next_step(ix: Index) -> None:
    for text, kind, message in (("  ", "decision", "needs some text"), ("x", "nope", "unknown memory type"),
                                ("a\x00b", "decision", "NUL byte"),
                                ("<!-- /mindex:memory -->", "decision", "looks like a mindex:memory marker")):
        with pytest.raises(MemoryInputError, match=message):
            ix.memory.save(text, kind)
    with pytest.raises(MemoryInputError, match="comma"):
        ix.memory.save("x", "decision", tags=["a,b"])
    assert not list(ix.memory.memory_dir.glob("*.md"))


def test_forget_removes_exactly_one_block(ix: Index) -> None:
    first = ix.memory.save("keep me", "progress")
    second = ix.memory.save("drop me", "progress")
    third = ix.memory.save("keep me too", "progress")
    path = journal_file(ix)
    before = path.read_text()
    ix.memory.forget(second.entry.id)
    block = journal.render(second.entry)
    assert path.read_text() == before.replace(block + "\n", "")
    assert {h.facets["id"] for h in ix.memory.recent()} == {first.entry.id, third.entry.id}  # type: ignore[index]
    with pytest.raises(NotFoundError):
        ix.memory.forget(second.entry.id)



def test_edit_rewrites_exactly_one_block_in_place_and_the_index_follows(ix: Index) -> None:
    first = ix.memory.save("keep me", "progress")
    second = ix.memory.save("Retries back off to thirty seconds", "decision", ["http"], ["src/fetch.py"])
    third = ix.memory.save("keep me too", "progress")
    path = journal_file(ix)
    path.write_bytes(path.read_bytes() + b"a person's note between blocks\n")
    before = path.read_text()
    edited = ix.memory.edit(second.entry.id, text="Retries back off to 60 s with jitter", tags=("http", "retries"))
    after = path.read_text()
    # Same id, time, type and files; the new text and tags; every other byte as it was.
    assert (edited.entry.id, edited.entry.at, edited.entry.type, edited.entry.files) == \
        (second.entry.id, second.entry.at, "decision", ("src/fetch.py",))
    assert after == before.replace(journal.render(second.entry), journal.render(edited.entry))
    assert after.split("\n")[edited.line - 1] == f"<!-- mindex:memory {second.entry.id} -->"
    assert [h.facets["id"] for h in ix.memory.search("jitter", mode="keyword").hits] == [second.entry.id]  # type: ignore[index]
    assert not ix.memory.search("thirty", mode="keyword").hits
    assert {h.facets["id"] for h in ix.memory.recent()} == {first.entry.id, second.entry.id, third.entry.id}  # type: ignore[index]
    ix.memory.edit(second.entry.id, tags=())  # an empty list clears; text left alone
    assert ix.memory.show(second.entry.id)["tags"] == []
    assert "Retries back off to 60 s with jitter" in ix.memory.show(second.entry.id)["text"]
    with pytest.raises(MemoryInputError, match="unknown memory type"):
        ix.memory.edit(second.entry.id, type="nope")
    with pytest.raises(MemoryInputError, match="needs some text"):
        ix.memory.edit(second.entry.id, text="  ")
    with pytest.raises(NotFoundError):
        ix.memory.edit("m-20000101-000000-00000000", text="x")
    entity = ix.memory.add_knowledge("learning", "Always add jitter to retries")
    with pytest.raises(MemoryInputError, match="knowledge entity"):
        ix.memory.edit(entity["id"], text="x")
    assert ix.memory.show(second.entry.id)["text"].startswith("Retries back off to 60 s")

def test_hand_edits_are_picked_up_and_broken_blocks_reported_with_file_and_line(ix: Index) -> None:
    a = ix.memory.save("alpha entry", "decision")
    b = ix.memory.save("beta entry", "decision")
    ix.memory.save("gamma entry", "decision")
    path = journal_file(ix)
    text = path.read_text()
    text = text.replace("alpha entry", "alpha entry, edited by hand")  # changed
    lines = text.split("\n")
    # break beta's block: drop its closing marker (the one after "beta entry")
    at = lines.index("beta entry")
    del lines[at + 1]
    text = "\n".join(lines)
    text += textwrap.dedent("""
        <!-- mindex:memory m-20260101-000000-abcd -->
        ### 2026-01-01T00:00:00+00:00 · insight
        tags: added-by-hand

        written in an editor
        <!-- /mindex:memory -->
        """)
    path.write_text(text)
    report = ix.index(["memory"])["memory"]
    texts = sorted(h.text for h in ix.memory.recent())
    assert texts == ["alpha entry, edited by hand", "gamma entry", "written in an editor"]  # beta broken
    problem = [s for s in report.skipped if "no closing" in s.reason]
    line = lines.index(f"<!-- mindex:memory {b.entry.id} -->") + 1
    assert problem and problem[0].path == f"{path.name}:{line}"
    assert a.entry.id in {h.facets["id"] for h in ix.memory.recent()}  # type: ignore[index]
    path.unlink()  # a journal deleted under us
    ix.index(["memory"])
    assert ix.memory.recent() == []


def test_filters_apply_before_top_k_and_decay_orders_by_age(ix: Index) -> None:
    now = datetime.now(timezone.utc)
    old = ix.memory.save("cache invalidation rule for tokens", "decision", ["auth"], ["src/auth/token.py"],
                         at=now - timedelta(days=90))
    new = ix.memory.save("cache invalidation rule for sessions", "decision", ["auth"], ["src/auth/session.py"],
                         at=now - timedelta(days=1))
    for n in range(30):  # better keyword matches that the filters must keep out
        ix.memory.save(f"cache invalidation cache invalidation rule {n}", "progress", ["noise"])
    hits = ix.memory.search("cache invalidation rule", limit=5, types=("decision",)).hits
    assert [h.facets["id"] for h in hits] == [new.entry.id, old.entry.id]  # type: ignore[index]
    assert hits[0].explain and hits[0].explain["recency"]["factor"] > hits[1].explain["recency"]["factor"]
    hits = ix.memory.search("cache invalidation rule", limit=5, files=("src/auth",)).hits
    assert {h.facets["id"] for h in hits} == {new.entry.id, old.entry.id}  # type: ignore[index]
    since = (now - timedelta(days=30)).timestamp()
    assert [h.facets["id"] for h in ix.memory.search("cache", limit=50, since=since, tags=("auth",)).hits] == [new.entry.id]  # type: ignore[index]
    # `--days` past what the calendar holds means all time, not a crash
    assert parse_since(None, 1e6) is None and parse_since(None, 1e308) is None
    assert abs(parse_since(None, 30, now) - since) < 1  # type: ignore[operator]
    # With decay off the older entry, the better match (tokens), is not pushed down by age alone.
    plain = ix.memory.search("tokens cache invalidation", limit=2, types=("decision",), decay=False).hits
    assert plain[0].facets["id"] == old.entry.id  # type: ignore[index]


def test_entries_of_one_day_with_one_type_and_tags_are_separate_results(ix: Index) -> None:
    # They share a context line (memory › date › tags); only pieces of one entry fold.
    at = datetime(2026, 3, 4, 9, 0, tzinfo=timezone.utc)
    saved = [ix.memory.save(f"the deploy script needs step {n} of the deploy checklist", "progress", ["ops"],
                            at=at + timedelta(minutes=n)) for n in range(4)]
    hits = ix.memory.search("deploy checklist", limit=10, decay=False).hits
    assert sorted(h.facets["id"] for h in hits) == sorted(s.entry.id for s in saved)  # type: ignore[index]


def test_rebuild_gives_the_rows_a_fresh_index_gives(tmp_path: Path) -> None:
    with open_index(tmp_path) as ix:
        for n in range(5):
            ix.memory.save(f"entry number {n}", "progress", [f"t{n}"])
        ix.memory.add_knowledge("learning", "Prefer WAL mode", areas=("src/store",))
        ix.memory.save("x " * 3000, "reference")  # a huge entry: several chunks
        journal_file(ix).write_text(journal_file(ix).read_text().replace("entry number 2", "entry number two"))
        ix.memory.rebuild()
        rebuilt = rows(ix)
    assert any(r[4].startswith("x x") for r in rebuilt) and sum(r[4].startswith("x x") for r in rebuilt) > 1
    fresh_dir = tmp_path / "fresh"
    (fresh_dir / ".mindex").mkdir(parents=True)
    import shutil

    shutil.copytree(tmp_path / ".mindex" / "memory", fresh_dir / ".mindex" / "memory")
    shutil.copytree(tmp_path / ".mindex" / "knowledge", fresh_dir / ".mindex" / "knowledge")
    with open_index(fresh_dir) as fresh:
        fresh.memory.refresh()
        assert rows(fresh) == rebuilt


SAVER = """
import sys
from pathlib import Path
from mindex import Index, IndexSettings
from mindex.config import EmbedSettings, MemorySettings
root, n = Path(sys.argv[1]), sys.argv[2]
with Index(root / ".mindex" / "index.db", IndexSettings(workers=1), embed=EmbedSettings(provider="none"),
           memory=MemorySettings()) as ix:
    for k in range(6):
        ix.memory.save(f"process {n} entry {k} " + "ü" * 50, "progress", [f"p{n}"])
"""


def test_concurrent_saves_from_eight_processes_lose_and_mix_nothing(tmp_path: Path) -> None:
    with open_index(tmp_path) as ix:
        ix.memory.source("memory")
    procs = [subprocess.Popen([sys.executable, "-c", SAVER, str(tmp_path), str(n)]) for n in range(8)]
    assert [p.wait(120) for p in procs] == [0] * 8
    with open_index(tmp_path) as ix:
        text = journal_file(ix).read_text()
        parsed = journal.parse(text, "journal")
        assert parsed.problems == []
        got = sorted(e.text for e in parsed.entries)
        assert got == sorted(f"process {n} entry {k} " + "ü" * 50 for n in range(8) for k in range(6))
        for entry in parsed.entries:  # byte-exact blocks
            assert journal.render(entry) in text
        assert len(ix.memory.recent(limit=100)) == 48
        ix.index(["memory"])
        assert len(ix.memory.recent(limit=100)) == 48


KILLER = """
import os, sys, signal
from pathlib import Path
from mindex import Index, IndexSettings
from mindex.config import EmbedSettings, MemorySettings
from mindex.memory import journal
real = journal.append
def append_then_die(path, block):
    real(path, block)
    os.kill(os.getpid(), signal.SIGKILL)  # after the file write, before the index write
journal.append = append_then_die
with Index(Path(sys.argv[1]) / ".mindex" / "index.db", IndexSettings(workers=1),
           embed=EmbedSettings(provider="none"), memory=MemorySettings()) as ix:
    ix.memory.save("saved just before the kill", "progress")
"""


def test_a_save_killed_before_its_index_write_is_found_by_the_next_run(tmp_path: Path) -> None:
    with open_index(tmp_path) as ix:
        ix.memory.save("an earlier entry", "progress")
    proc = subprocess.run([sys.executable, "-c", KILLER, str(tmp_path)])
    assert proc.returncode == -signal.SIGKILL
    with open_index(tmp_path) as ix:
        assert "saved just before the kill" in journal_file(ix).read_text()
        ix.index()
        assert sorted(h.text for h in ix.memory.recent()) == ["an earlier entry", "saved just before the kill"]


def test_a_rebuild_killed_half_way_is_finished_by_the_next_index(tmp_path: Path) -> None:
    with open_index(tmp_path) as ix:
        for n in range(40):
            ix.memory.save(f"entry {n}", "progress", at=datetime(2026, 1 + n % 12, 3, tzinfo=timezone.utc))
        before = rows(ix)
    code = f"""
import os, signal, threading, time
from pathlib import Path
from mindex import Index, IndexSettings
from mindex.config import EmbedSettings, MemorySettings
from mindex.store.sqlite import SQLiteStore
real = SQLiteStore.write_batch
calls = []
def write_then_die(self, *a, **k):
    real(self, *a, **k)
    calls.append(1)
    if len(calls) == 1:
        os.kill(os.getpid(), signal.SIGKILL)
SQLiteStore.write_batch = write_then_die
import mindex.ingest as ingest
ingest.BATCH_DOCUMENTS = 2
with Index(Path({str(tmp_path)!r}) / ".mindex" / "index.db", IndexSettings(workers=1),
           embed=EmbedSettings(provider="none"), memory=MemorySettings()) as ix:
    ix.memory.rebuild()
"""
    assert subprocess.run([sys.executable, "-c", code]).returncode == -signal.SIGKILL
    with open_index(tmp_path) as ix:
        ix.index()
        assert rows(ix) == before


def test_knowledge_graph_walks_two_hops_and_hides_what_is_superseded(ix: Index) -> None:
    m = ix.memory
    old = m.add_knowledge("learning", "Retry three times", areas=("src/fetch",), confidence=0.5)
    new = m.add_knowledge("learning", "Retry with jitter, up to five times", areas=("src/fetch",),
                          supersedes=(old["id"],), confidence=0.9)
    pattern = m.add_knowledge("pattern", "Every fetch goes through http.get_json", files=("src/fetch/http.py",))
    mistake = m.add_knowledge("mistake", "Retried without jitter and overloaded the API",
                              files=("src/fetch/client.py",), led_to=(new["id"],), confidence=0.8)
    other = m.add_knowledge("learning", "Templates are cached", areas=("src/render",))
    found = {item["id"]: item for item in m.query(file="src/fetch/http.py")}
    # file → IN_FILE pattern (1 hop); file → area src/fetch → learning (2 hops); file → area → client.py? (3: no)
    assert set(found) == {pattern["id"], new["id"]}
    assert found[pattern["id"]]["via"] == ["file:src/fetch/http.py", "IN_FILE", pattern["id"]]
    assert found[new["id"]]["via"] == ["file:src/fetch/http.py", "IN_AREA", "area:src/fetch", "ABOUT", new["id"]]
    assert old["id"] not in found and other["id"] not in found
    everything = {item["id"] for item in m.query(file="src/fetch/http.py", all=True)}
    assert old["id"] in everything
    # mistake → LED_TO → learning
    via_mistake = {item["id"]: item for item in m.query(file="src/fetch/client.py", depth=1)}
    assert set(via_mistake) == {mistake["id"], new["id"]}
    assert via_mistake[new["id"]]["via"][-2:] == ["LED_TO", new["id"]]
    with pytest.raises(MemoryInputError, match="no knowledge entity"):
        m.add_knowledge("learning", "x", supersedes=("k-missing",))


def test_broken_front_matter_is_reported_with_file_and_line_and_the_rest_indexed(ix: Index) -> None:
    good = ix.memory.add_knowledge("pattern", "Commands take --json")
    bad = ix.memory.knowledge_dir / "learning" / "broken.md"
    bad.parent.mkdir(parents=True, exist_ok=True)
    bad.write_text("---\ntype: learning\nareas: [unclosed\n---\ntext\n")
    (ix.memory.knowledge_dir / "learning" / "latin1.md").write_bytes(
        b"---\ntype: learning\n---\nCaf\xe9 au lait is cp1252 here\n")
    report = ix.index(["knowledge"])["knowledge"]
    assert [(s.path, s.reason[:30]) for s in report.skipped] == [("learning/broken.md", "invalid YAML front-matter at l")]
    ids = {item["id"] for item in ix.memory.query()}
    assert good["id"] in ids and "latin1" in ids


def test_context_is_grouped_by_area_and_never_over_budget(ix: Index) -> None:
    for n in range(12):
        ix.memory.add_knowledge("learning", f"Learning {n} about the fetch layer " + "detail " * 30,
                                files=(f"src/fetch/f{n}.py",), areas=("src/fetch",))
        ix.memory.save(f"worked on fetch {n} " + "words " * 20, "progress", files=["src/fetch/http.py"])
    for budget in (60, 150, 400, 1000, 5000):
        result = ix.memory.context(files=("src/fetch/http.py",), budget=budget)
        assert len(result["markdown"]) <= budget * 4
        assert result["tokens"] <= budget
    small = ix.memory.context(files=("src/fetch/http.py",), budget=150)
    assert "left out" in small["markdown"] and sum(small["left_out"].values()) > 0
    big = ix.memory.context(files=("src/fetch/http.py",), budget=20000)
    assert "## src/fetch" in big["markdown"] and "### Learnings" in big["markdown"]
    assert "### Recent memory" in big["markdown"] and big["left_out"] == {}
    with pytest.raises(MemoryInputError):
        ix.memory.context(budget=10)


def test_cli_memory_commands_round_trip_with_json(tmp_path: Path) -> None:
    import json

    env = {**os.environ, "MINDEX_EMBED__PROVIDER": "none"}

    def run(*args: str, code: int = 0) -> Any:
        proc = subprocess.run([sys.executable, "-m", "mindex", *args, "--json"], cwd=tmp_path, env=env,
                              capture_output=True, text=True)
        assert proc.returncode == code, proc.stderr
        return json.loads(proc.stdout)

    (tmp_path / ".git").mkdir()
    saved = run("memory", "save", "Chose WAL mode for concurrent readers", "--type", "decision", "--tag", "db")
    assert saved["type"] == "decision" and saved["file"].startswith("memory/")
    assert (tmp_path / ".mindex" / "memory").is_dir()
    found = run("memory", "search", "concurrent readers WAL")
    assert [r["id"] for r in found["results"]] == [saved["id"]]
    assert run("memory", "list", "--type", "decision")["results"][0]["id"] == saved["id"]
    assert run("memory", "show", saved["id"])["text"] == "Chose WAL mode for concurrent readers"
    error = run("memory", "save", "x", "--type", "bogus", code=2)
    assert error["error"]["code"] == "MEMORY_INPUT"
    added = run("knowledge", "add", "learning", "WAL needs the folder writable", "--area", "src/store")
    assert run("knowledge", "query", "--area", "src/store")["results"][0]["id"] == added["id"]
    context = run("context", "--files", "src/store/sqlite.py", "--budget", "200")
    assert "WAL needs the folder writable" in context["markdown"]
    # words where files go are named as such, with the way to ask by words
    words = run("context", "readers in WAL mode", code=2)["error"]
    assert "not a file here" in words["message"] and "--query 'readers in WAL mode'" in words["message"]
    assert "WAL" in run("context", "--query", "readers in WAL mode")["markdown"]
    assert run("memory", "forget", saved["id"])["forgotten"] == saved["id"]
    assert run("memory", "show", saved["id"], code=3)["error"]["code"]


def test_mcp_memory_tools_through_a_real_client(tmp_path: Path) -> None:
    import anyio
    from mcp.client import Client

    from mindex.config import Settings
    from mindex.serve.mcp_server import build_server

    settings = Settings()
    settings.embed.provider = "none"
    server = build_server(tmp_path / ".mindex" / "index.db", settings)

    async def main() -> None:
        async with Client(server) as client:
            saved = await client.call_tool("memory_save", {"text": "Use httpx for HTTP", "type": "decision",
                                                           "files": ["src/net.py"]})
            assert not saved.is_error
            entry_id = saved.structured_content["results"][0]["id"]
            # Synaptic's own call, its parameter names and its answer's shape.
            alias = await client.call_tool("context_save", {"content": "Second note about httpx timeouts",
                                                            "type": "insight", "tags": ["http"]})
            assert not alias.is_error and alias.structured_content["success"] is True
            assert set(alias.structured_content) >= {"id", "date", "time"}
            assert json.loads(alias.content[0].text)["id"] == alias.structured_content["id"]
            found = await client.call_tool("context_search", {"query": "httpx", "limit": 5})
            assert {r["id"] for r in found.structured_content["results"]} >= {entry_id}
            assert found.structured_content["total"] == len(found.structured_content["results"])
            first = found.structured_content["results"][0]
            assert set(first) == {"id", "date", "time", "type", "tags", "content"}
            listed = await client.call_tool("memory_list", {"type": "decision"})
            assert [r["id"] for r in listed.structured_content["results"]] == [entry_id]
            added = await client.call_tool("knowledge_add", {"type": "pattern", "text": "Wrap httpx in net.get",
                                                             "files": ["src/net.py"]})
            assert not added.is_error
            query = await client.call_tool("knowledge_query", {"file": "src/net.py"})
            assert query.structured_content["results"][0]["type"] == "pattern"
            context = await client.call_tool("get_context", {"files": ["src/net.py"], "budget": 300})
            assert "Wrap httpx in net.get" in context.structured_content["markdown"]
            assert context.structured_content["tokens"] <= 300
            edited = await client.call_tool("memory_edit", {"id": entry_id, "text": "Use httpx with a 10 s timeout",
                                                            "tags": "http"})
            assert edited.structured_content["results"][0]["tags"] == ["http"]
            assert "edited" in edited.content[0].text
            found = await client.call_tool("memory_search", {"query": "timeout", "mode": "keyword", "type": "decision"})
            assert [r["text"] for r in found.structured_content["results"]] == ["Use httpx with a 10 s timeout"]
            gone = await client.call_tool("memory_forget", {"id": entry_id})
            assert not gone.is_error
            bad = await client.call_tool("memory_save", {"text": " ", "type": "decision"})
            assert bad.is_error and "needs some text" in bad.content[0].text

    anyio.run(main)


def test_a_time_named_in_the_query_becomes_a_window_with_slack() -> None:
    from mindex.memory.when import read_dates

    now = datetime(2026, 11, 23, 12, 0, tzinfo=timezone.utc)

    def window(query: str) -> tuple[str | None, str | None, str]:
        w = read_dates(query, now)
        assert w is not None, query
        iso = (lambda t: None if t is None else datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%d %H"))
        return iso(w.since), iso(w.until), w.rest

    # a window opens 18 h early and closes 42 h late
    assert window("what did we decide last week about retries") == (
        "2026-11-15 06", "2026-11-24 18", "what did we decide about retries")
    assert window("yesterday's deploy") == ("2026-11-21 06", "2026-11-24 18", "deploy")
    assert window("cache bug on 10.01.2024?") == ("2024-01-09 06", "2024-01-12 18", "cache bug?")
    assert window("the 17th of January, 2024 outage") == ("2024-01-16 06", "2024-01-19 18", "outage")
    assert window("schema change in May")[:2] == ("2026-04-30 06", "2026-06-02 18")  # the latest May
    assert window("plans for December")[:2] == ("2025-11-30 06", "2026-01-02 18")  # not a future one
    assert window("what broke before 2026-03-04") == (None, "2026-03-05 18", "what broke")
    assert window("since March 3 what changed") == ("2026-03-02 06", None, "what changed")
    assert window("3 days ago the build broke")[:2] == ("2026-11-19 06", "2026-11-22 18")
    for words in ("may I ask about caching", "march of the tests", "version 2.2024.1", "no date here"):
        assert read_dates(words, now) is None, words


def test_memory_search_reads_dates_and_falls_back_when_the_window_is_empty(ix: Index) -> None:
    now = datetime.now(timezone.utc).astimezone()
    old = ix.memory.save("picked sqlite WAL mode for the cache", "decision", at=now - timedelta(days=60))
    new = ix.memory.save("picked sqlite WAL mode for the queue", "decision", at=now - timedelta(days=2))
    found = ix.memory.search("sqlite WAL mode in the last 7 days", decay=False)
    assert [h.facets["id"] for h in found.hits] == [new.entry.id]  # type: ignore[index]
    assert found.note and "read 'in the last 7 days' as" in found.note
    assert {h.facets["id"] for h in ix.memory.search("sqlite WAL mode", decay=False).hits} == {
        old.entry.id, new.entry.id}  # type: ignore[index]
    empty = ix.memory.search("sqlite WAL mode in 2019", decay=False)  # nothing then: every date
    assert {h.facets["id"] for h in empty.hits} == {old.entry.id, new.entry.id}  # type: ignore[index]
    assert empty.note and "found nothing then" in empty.note
    assert len(ix.memory.search("sqlite WAL mode in the last 7 days", dates=False).hits) == 2


def test_a_save_embeds_its_own_entry_and_nothing_else(tmp_path: Path) -> None:
    from mindex.store.sqlite import SQLiteStore

    db = tmp_path / ".mindex" / "index.db"
    with Index(db, IndexSettings(workers=1), embed=EmbedSettings(provider="none"), memory=MemorySettings()) as plain:
        plain.memory.save("an entry saved while no model was configured", "progress")
    with Index(db, IndexSettings(workers=1), embed=EmbedSettings(provider="onnx"), memory=MemorySettings()) as ix:
        saved = ix.memory.save("Retries back off exponentially with jitter, capped at thirty seconds", "decision")
        store = ix.store
        assert isinstance(store, SQLiteStore)
        rows = store.conn.execute("SELECT hash, text FROM chunks").fetchall()
        hashes = {text: digest for digest, text in rows}
        model = ix.embedder().identity  # type: ignore[union-attr]
        with_vector = store.hashes_with_vectors(model, list(hashes.values()))
        assert hashes[saved.entry.text] in with_vector  # the save's own entry, at once
        assert hashes["an entry saved while no model was configured"] not in with_vector  # no scan of the rest
        found = ix.memory.search("how long do we wait between attempts", mode="semantic", decay=False)
        assert found.hits[0].facets["id"] == saved.entry.id  # type: ignore[index]
        assert ix.embed() == 1  # `mindex embed` (or index) picks up the one left


def test_eval_applies_a_query_lines_filter_before_top_k(tmp_path: Path) -> None:
    import json

    db = tmp_path / ".mindex" / "index.db"
    with Index(db, IndexSettings(workers=1), embed=EmbedSettings(provider="none"), memory=MemorySettings()) as ix:
        mine = ix.memory.save("the cache key includes the tenant id", "decision", ["team-a"])
        theirs = ix.memory.save("the cache key includes the tenant id and region", "decision", ["team-b"])
        line = json.loads(json.dumps({"qid": "q", "query": "cache key tenant", "relevant": [{"id": "x"}]}))
        unfiltered = {**line, "qid": "all"}
        scoped = {**line, "qid": "scoped", "filter": {"tags": ["team-a"]}}
        path = tmp_path / "q.jsonl"
        path.write_text(json.dumps(unfiltered) + "\n" + json.dumps(scoped) + "\n")
        runs = tmp_path / "runs.jsonl"
    env = {**os.environ, "MINDEX_EMBED__PROVIDER": "none"}
    done = subprocess.run([sys.executable, "-m", "mindex", "--db", str(db), "eval", str(path), "--kind", "memory",
                           "--compare", "keyword,keyword+nodecay", "--run-out", str(runs), "--json", "-q"],
                          env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    for label in ("keyword", "keyword+nodecay"):  # one run file per variant
        rows = {row["qid"]: row for row in map(json.loads, runs.with_name(f"runs.{label}.jsonl").read_text().splitlines())}
        assert len(rows["all"]["results"]) == 2 and len(rows["scoped"]["results"]) == 1
    assert mine.entry.id != theirs.entry.id


def test_entry_ids_made_within_one_second_do_not_collide() -> None:
    from mindex.memory import journal

    at = datetime(2026, 3, 4, 9, 0, tzinfo=timezone.utc)
    ids = [journal.new_id(at) for _ in range(1000)]  # an agent saving in a burst
    assert len(set(ids)) == len(ids) and all(i.startswith("m-20260304-090000-") for i in ids)


def test_a_hybrid_search_drops_entries_it_has_no_evidence_for_and_says_nothing_is_relevant(tmp_path: Path) -> None:
    """`memory search "jitter"` over a journal that never mentions it listed every entry
    (the best at -0.39), and real answers were followed by such entries: an entry only the
    meaning leg found, under memory.min_similarity, is not relevant."""
    db = tmp_path / ".mindex" / "index.db"
    with Index(db, IndexSettings(workers=1), embed=EmbedSettings(provider="onnx"), memory=MemorySettings()) as ix:
        for text in ("Retries use exponential backoff capped at 30 s", "We chose SQLite over Postgres for the local default",
                     "The deploy script needs the AWS profile set", "Handoff: next step is the web UI search page"):
            ix.memory.save(text, "decision")
        nothing = ix.memory.search("kubernetes helm chart", decay=False)
        assert nothing.mode == "hybrid" and nothing.hits == ()
        assert nothing.note and "nothing relevant in memory" in nothing.note and "memory.min_similarity = 0.3" in nothing.note
        found = ix.memory.search("which database did we choose for the local default", decay=False)
        assert [h.text for h in found.hits] == ["We chose SQLite over Postgres for the local default"]
        assert all(h.score > 0 for h in found.hits)  # no negative tail after the real answer
        nearest = ix.memory.search("kubernetes helm chart", mode="semantic", decay=False)
        assert len(nearest.hits) == 4  # asked for the nearest by meaning: given as they are
    with Index(db, IndexSettings(workers=1), embed=EmbedSettings(provider="onnx"),
               memory=MemorySettings(min_similarity=-1)) as loose:
        assert len(loose.memory.search("kubernetes helm chart", decay=False).hits) == 4  # the floor is a setting


def test_the_same_entry_saved_twice_within_minutes_is_kept_once(ix: Index, tmp_path: Path) -> None:
    first = ix.memory.save("Chose WAL mode for concurrent readers", "decision", ["sqlite"], ["src/store.py"])
    again = ix.memory.save("Chose WAL mode for concurrent readers", "decision", ["sqlite"], ["src/store.py"])
    assert again.duplicate and again.entry.id == first.entry.id and again.line == first.line
    assert "already saved as" in again.said() and again.to_dict()["duplicate"] is True
    assert journal_file(ix).read_text().count("Chose WAL mode") == 1
    assert len(ix.memory.search("WAL mode concurrent readers").hits) == 1
    # another type, other tags, or a while later: a new entry
    other = ix.memory.save("Chose WAL mode for concurrent readers", "insight", ["sqlite"], ["src/store.py"])
    tagged = ix.memory.save("Chose WAL mode for concurrent readers", "decision", ["db"], ["src/store.py"])
    later = ix.memory.save("Chose WAL mode for concurrent readers", "decision", ["sqlite"], ["src/store.py"],
                           at=first.entry.at + timedelta(minutes=11))
    assert not (other.duplicate or tagged.duplicate or later.duplicate)
    assert journal_file(ix).read_text().count("Chose WAL mode") == 4
    from click.testing import CliRunner

    from mindex.serve.cli import cli

    reply = CliRunner().invoke(cli, ["--db", str(ix.location), "memory", "save", "Chose WAL mode for concurrent readers",
                                     "--type", "insight", "--tag", "sqlite", "--file", "src/store.py"])
    assert reply.exit_code == 0 and f"already saved as {other.entry.id}" in reply.output
    plural = CliRunner().invoke(cli, ["--db", str(ix.location), "memory", "save", "Chose WAL mode for concurrent readers",
                                      "--type", "insight", "--tag", "sqlite", "--files", "src/store.py"])
    assert plural.exit_code == 0 and f"already saved as {other.entry.id}" in plural.output  # `context`'s spelling too


def _bytes_read() -> int:
    with open("/proc/self/io") as io:
        return int(next(line for line in io if line.startswith("rchar")).split()[1])


def test_a_save_reads_the_same_at_any_journal_size_and_lands_on_the_right_line(tmp_path: Path) -> None:
    """Each save read and hashed the whole month's journal (12 -> 138 ms at 10,000 entries).
    Now it reads the journal's tail (for the same entry saved twice) and the index's pages,
    whatever the journal's size; its line comes from the line count the index keeps."""
    db = tmp_path / ".mindex" / "index.db"
    at = datetime(2026, 11, 2, tzinfo=timezone.utc)
    with Index(db, IndexSettings(workers=1), embed=EmbedSettings(provider="none"), memory=MemorySettings()) as ix:
        ix.memory.save("the first entry", "decision", at=at)
        path = journal_file(ix)
        with open(path, "a", encoding="utf-8") as handle:  # a month of 20,000 entries, 3 MB
            handle.write("".join("\n" + journal.render(journal.Entry(journal.new_id(at), at, "progress",
                                                                  f"filler entry number {k} about caches", ("t",)))
                                 for k in range(20000)))
        ix.index(embed=False)
        ix.memory.save("a save to warm up", "decision", at=at)
        before = _bytes_read()
        saved = ix.memory.save("the walrus decision", "decision", ["zoo"], at=at)
        assert _bytes_read() - before < 512 * 1024 < path.stat().st_size  # not the whole file
        lines = path.read_text(encoding="utf-8").split("\n")
        assert lines[saved.line - 1] == f"<!-- mindex:memory {saved.entry.id} -->"
        hit = ix.memory.search("walrus decision").hits[0]
        assert hit.facets["id"] == saved.entry.id and lines[hit.start_line - 1] == "the walrus decision"  # type: ignore[index]
        report = ix.index(embed=False)["memory"]
        assert report.unchanged == 1 and report.updated == 0  # the index knows the file as it is
        with open(path, "a", encoding="utf-8") as handle:  # a hand edit after it: read whole again
            handle.write("\nA note typed by hand.\n")
        after = ix.memory.save("the seal decision", "decision", at=at)
        lines = path.read_text(encoding="utf-8").split("\n")
        assert lines[after.line - 1].endswith(f"{after.entry.id} -->")
        assert lines[ix.memory.search("seal decision").hits[0].start_line - 1] == "the seal decision"


def test_a_newer_decision_ranks_above_the_ones_it_restates(tmp_path: Path) -> None:
    """A setting decided three times over a year: the newest decision comes first, then the one
    it replaced, even where the older ones match the question's words better; progress notes
    and unrelated decisions are not reordered, and --no-decay keeps relevance order."""
    db = tmp_path / ".mindex" / "index.db"
    now = datetime.now(timezone.utc)
    with Index(db, IndexSettings(workers=1), embed=EmbedSettings(provider="onnx"), memory=MemorySettings()) as ix:
        first = ix.memory.save("Decision: the HTTP client timeout is 10 seconds for every request (client timeout)",
                               "decision", at=now - timedelta(days=300))
        second = ix.memory.save("Decision: raise the HTTP client timeout to 30 seconds", "decision",
                                at=now - timedelta(days=120))
        third = ix.memory.save("Decision: the HTTP client timeout is now 45 seconds", "decision",
                               at=now - timedelta(days=10))
        ix.memory.save("Fixed a flaky test of the client timeout handling", "progress", at=now - timedelta(days=5))
        other = ix.memory.save("Decision: use PostgreSQL 16 for the staging database", "decision",
                               at=now - timedelta(days=2))
        hits = ix.memory.search("what is the HTTP client timeout for every request", limit=5).hits
        ids = [h.facets["id"] for h in hits]  # type: ignore[index]
        assert ids.index(third.entry.id) < ids.index(second.entry.id) < ids.index(first.entry.id)
        assert hits[ids.index(third.entry.id)].explain["supersedes"]  # type: ignore[index]
        assert other.entry.id not in ids[:3]
        plain = [h.facets["id"] for h in ix.memory.search("what is the HTTP client timeout for every request",  # type: ignore[index]
                                                          limit=5, decay=False).hits]
        assert plain[0] == first.entry.id  # by relevance alone the oldest, wordiest match wins
    off = MemorySettings(supersede_types=[])
    with Index(db, IndexSettings(workers=1), embed=EmbedSettings(provider="onnx"), memory=off) as ix:
        hits = ix.memory.search("what is the HTTP client timeout for every request", limit=5).hits
        assert not any("supersedes" in (h.explain or {}) for h in hits)
        # recency alone does not put the newest first
        assert hits[0].facets["id"] != third.entry.id  # type: ignore[index]


def test_knowledge_add_sets_applies_to_as_supersedes_and_led_to_are_set(ix: Index, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from mindex.serve.cli import cli

    topic = ix.memory.add_knowledge("topic", "HTTP retries", areas=("src/fetch",))
    pattern = ix.memory.add_knowledge("pattern", "Back off with jitter on every retry", applies_to=(topic["id"],))
    text = (ix.memory.knowledge_dir / pattern["file"].split("/", 1)[1]).read_text()
    assert f"applies_to:\n- {topic['id']}\n" in text
    assert ("APPLIES_TO", topic["id"]) in ix.memory.graph().out[pattern["id"]]
    with pytest.raises(MemoryInputError, match="no knowledge entity 'k-nope'"):
        ix.memory.add_knowledge("pattern", "x", applies_to=("k-nope",))
    done = CliRunner().invoke(cli, ["--db", str(ix.location), "knowledge", "add", "learning", "Cap the retries",
                                    "--applies-to", topic["id"], "--json"])
    assert done.exit_code == 0, done.output
    added = json.loads(done.output)["id"]
    assert ("APPLIES_TO", topic["id"]) in ix.memory.graph().out[added]
    # the question as words after the command, as `memory search` takes its query (it was
    # "Got unexpected extra argument"); given twice, differently, a usage error
    asked = CliRunner().invoke(cli, ["--db", str(ix.location), "knowledge", "query", "jitter", "retry", "--json"])
    assert asked.exit_code == 0, asked.output
    assert json.loads(asked.output)["results"][0]["id"] == pattern["id"]
    twice = CliRunner().invoke(cli, ["--db", str(ix.location), "knowledge", "query", "jitter", "--text", "caps"])
    assert twice.exit_code == 2 and "give the question once" in twice.output


def test_an_entry_type_is_a_filter_and_a_label_not_words_to_match(ix: Index) -> None:
    """"login issues" ranked an `issue` entry about something else above the login fix: the
    type was in the indexed title and context line."""
    fix = ix.memory.save("Fixed the JWT token refresh bug in the login flow", "progress")
    ix.memory.save("Flaky CI run on the nightly build", "issue")
    for n in range(3):
        ix.memory.save(f"Renamed module number {n}", "progress")
    hits = ix.memory.search("login issue", mode="keyword").hits
    assert hits[0].facets["id"] == fix.entry.id  # type: ignore[index]
    assert [h.facets["type"] for h in ix.memory.search("flaky", types=("issue",), mode="keyword").hits] == ["issue"]  # type: ignore[index]
    assert {h.facets["type"] for h in ix.memory.recent(5)} == {"progress", "issue"}  # type: ignore[index]  # still labels

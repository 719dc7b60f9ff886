"""The `Store` contract, held by both backends: every test here runs on a real SQLite file and
on a real PostgreSQL database (tests/pgserver.py), through the same calls."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mindex import Index
from mindex.errors import NotFoundError, SourceExistsError
from mindex.models import Chunk, Document, Facets, Reference, SkippedFile, Source, Symbol


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def store(index: Index) -> Any:
    return index.store


def _chunk(doc: str, n: int, text: str, **extra: Any) -> Chunk:
    digest = hashlib.sha1(f"{doc}{n}{text}".encode()).hexdigest()
    return Chunk(id=digest[:16], ordinal=n, title=extra.pop("title", f"{doc} part {n}"), context=f"{doc} › part {n}",
                 text=text, hash=digest, start_line=n * 10 + 1, end_line=n * 10 + 9, **extra)


def _code(path: str, text: str) -> Document:
    return Document(
        path=path, kind="code", title=path, size=len(text), mtime_ns=1, content_hash=hashlib.sha256(text.encode()).hexdigest(),
        metadata={"language": "python"}, text=text,
        chunks=(_chunk(path, 0, text, title="Pool.acquire", symbol="Pool.acquire", symbol_kind="method",
                       terms="acquire connection"),),
        symbols=(Symbol("Pool", "class", 1, 9, "class Pool"), Symbol("Pool.acquire", "method", 2, 5, "acquire(self)")),
        refs=(Reference("call", "release", "self", "", 4, "Pool.acquire"), Reference("import", "socket", "", "", 1, "")))


def _doc(path: str, *texts: str) -> Document:
    return Document(path=path, kind="docs", title=path, size=10, mtime_ns=1, content_hash=path,
                    chunks=tuple(_chunk(path, n, t) for n, t in enumerate(texts)))


def _source(store: Any, tmp_path: Path, name: str, kind: str = "docs") -> Source:
    folder = tmp_path / name
    folder.mkdir(exist_ok=True)
    return store.add_source(Source(name, kind, str(folder)))  # type: ignore[no-any-return]


def test_sources_documents_and_markers(store: Any, tmp_path: Path) -> None:
    docs = _source(store, tmp_path, "docs")
    with pytest.raises(SourceExistsError, match="already covers that"):
        store.add_source(Source("docs", "docs", str(tmp_path / "elsewhere")))
    store.write_batch(docs.id, upserts=[_doc("a.md", "alpha beta", "gamma"), _doc("b.md", "delta")])
    assert [(s.source.name, s.documents, s.chunks) for s in store.list_sources()] == [("docs", 2, 3)]
    store.write_batch(docs.id, upserts=[_doc("a.md", "alpha again")], touches=[("b.md", 99, 7)], deletes=[])
    assert store.document_markers(docs.id) == {"a.md": (10, 1, "a.md"), "b.md": (99, 7, "b.md")}
    assert [h.text for h in store.keyword_search('"alpha"', 10)] == ["alpha again"]  # replaced whole
    store.write_batch(docs.id, deletes=["b.md"])
    assert set(store.document_markers(docs.id)) == {"a.md"}
    store.forget_markers(docs.id)
    assert store.document_markers(docs.id)["a.md"][0] == -1
    store.finish_run(docs.id, [SkippedFile("big.bin", "binary")])
    assert store.stats()["skipped"] == [{"source": "docs", "path": "big.bin", "reason": "binary"}]
    store.remove_source(docs.id)
    assert store.list_sources() == [] and store.keyword_search('"alpha"', 10) == []


def test_keyword_search_filters_and_lookups(store: Any, tmp_path: Path) -> None:
    docs, code = _source(store, tmp_path, "docs"), _source(store, tmp_path, "code", "code")
    store.write_batch(docs.id, upserts=[_doc("guide/pool.md", "the connection pool keeps idle connections"),
                                        _doc("faq.md", "why is my connection slow")])
    text = "class Pool:\n    def acquire(self):\n        self.release()\n        return None\n"
    store.write_batch(code.id, upserts=[_code("src/pool.py", text)])
    found = store.keyword_search('"connection"', 10)
    assert {h.path for h in found} == {"guide/pool.md", "faq.md", "src/pool.py"}  # terms hold camelCase words
    assert found == sorted(found, key=lambda h: -h.score)
    assert {h.path for h in store.keyword_search('"connection"', 10, source="docs")} == {"guide/pool.md", "faq.md"}
    assert [h.path for h in store.keyword_search('"connection"', 10, path="guide/**")] == ["guide/pool.md"]
    assert [h.path for h in store.keyword_search('"connection"', 10, path="*.md", kind="docs", offset=1)] and \
        len(store.keyword_search('"connection"', 10, path="*.md")) == 2
    assert [(h.path, h.symbol) for h in store.keyword_search('"acquire"', 10, language="python", symbol_kind="method")] \
        == [("src/pool.py", "Pool.acquire")]  # a code chunk's symbol is its title
    # the filters a vector search applies before its top-k: a glob per file; a symbol kind the
    # chunk's own, or that of a definition starting in it (class Pool, line 1 of the chunk)
    assert len(store.filtered_seqs(None, None, "*.md")) == 2
    assert store.filtered_seqs(None, None, "src/**", symbol_kind="class") == store.filtered_seqs(None, "code", None) != []
    assert store.filtered_seqs(None, None, "src/**", symbol_kind="function") == []
    assert store.keyword_search('"idle" AND "slow"', 10) == []
    assert len(store.keyword_search('("idle" OR "slow")', 10)) == 2
    assert [h.path for h in store.keyword_search('"conn"*', 10, source="docs")]  # a prefix
    hit = found[0]
    assert store.get_chunk(hit.id[:7]).text == hit.text
    with pytest.raises(NotFoundError):
        store.get_chunk("0123456789abcdef")
    # code: text for grep, spans, symbols, references
    [(doc_id, src, rel, lang, stored)] = list(store.code_texts('"acq" AND "uir"'))
    assert (src, rel, lang, stored) == ("code", "src/pool.py", "python", text.encode())  # UTF-8, as grep scans it
    assert list(store.code_texts('"zzz"')) == []
    assert store.chunk_spans([doc_id])[doc_id][0][:2] == (1, 9)
    chunk_id = store.chunk_spans([doc_id])[doc_id][0][2]
    assert store.chunks_holding([(doc_id, 1), (doc_id, 9), (doc_id, 10), (doc_id + 99, 1)]) == {
        (doc_id, 1): chunk_id, (doc_id, 9): chunk_id, (doc_id, 10): None, (doc_id + 99, 1): None}
    assert [r[2] for r in store.symbol_rows("short", "acquire")] == ["Pool.acquire"]
    assert [r[2] for r in store.symbol_rows("short_like", "acq%")] == ["Pool.acquire"]
    assert [r[2] for r in store.symbol_rows("short_nocase", "POOL")] == ["Pool"]
    assert [r[2] for r in store.ref_rows("name", "release", kind="call")] == ["release"]
    assert store.code_files() == [(doc_id, "code", "src/pool.py", "python")]
    assert store.code_files_without_text() == 0


def test_text_with_tabs_backslashes_and_line_ends_reads_back_as_written(store: Any, tmp_path: Path) -> None:
    """Rows go in by COPY on PostgreSQL, whose text format escapes tabs, line ends and
    backslashes (and reads a lone `\\N` as NULL): every field comes back as written."""
    code = _source(store, tmp_path, "code", kind="code")
    awkward = "a\tb\\N\\n\r\nc \\ d 'q' \"dq\" é ✓\n\\."
    text = f"def f():\n    return '{awkward}'\n"
    doc = Document(
        path="src/odd.py", kind="code", title="odd", size=len(text), mtime_ns=1,
        content_hash=hashlib.sha256(text.encode()).hexdigest(), metadata={"language": "python"}, text=text,
        chunks=(_chunk("src/odd.py", 0, text, title="f\\N\tg", symbol_kind="function", terms="\\N"),),
        symbols=(Symbol("f\\N", "function", 1, 2, f"def f({awkward})"),),
        refs=(Reference("call", "\\N", "q\tr", "\\", 2, "f\\N"),))
    store.write_batch(code.id, upserts=[doc])
    [(doc_id, _, _, _, stored)] = list(store.code_texts(None))
    assert stored.decode() == text
    chunk = store.get_chunk(doc.chunks[0].id)
    assert (chunk.text, chunk.title) == (text, "f\\N\tg")
    [symbol] = store.symbol_rows("short", "f\\N")
    assert symbol[2] == "f\\N" and symbol[6] == f"def f({awkward})"
    [ref] = store.ref_rows("name", "\\N", kind="call")
    assert ref[2:5] == ("\\N", "q\tr", "\\") and ref[6] == "f\\N"


def test_vectors_meta_and_data_version(store: Any, tmp_path: Path, db_target: Path | str) -> None:
    docs = _source(store, tmp_path, "docs")
    store.write_batch(docs.id, upserts=[_doc("a.md", "one", "two", "three")])
    hashes = sorted(h for h, _ in store.pending_embeddings("m"))
    assert len(hashes) == 3
    before = store.data_version()
    vec = np.arange(4, dtype="<f2").tobytes()
    with Index(db_target, create=False) as other:  # another process's write: readers must see a new version
        other.store.save_vectors("m", [(hashes[0], vec), (hashes[1], b"")])  # b"": needs no vector
    assert store.data_version() != before
    assert store.hashes_with_vectors("m", hashes) == set(hashes[:2])
    assert {h for h, _ in store.pending_embeddings("m")} == {hashes[2]}
    rows = store.vector_rows("m")
    assert [(digest, blob) for _, digest, blob in rows] == [(hashes[0], vec)]
    assert store.vector_keys("m") == [(rows[0][0], hashes[0])]
    assert store.texts_for([hashes[0]])[hashes[0]][1] in ("one", "two", "three")
    store.set_meta({"embed_model": "m", "embed_dim": "4"})
    assert store.get_meta("embed_model") == "m"
    store.set_meta({"embed_model": None})
    assert store.get_meta("embed_model") is None
    store.save_contexts("llm", [(hashes[0], "a context")])
    assert store.contexts_for("llm", hashes) == {hashes[0]: "a context"}
    assert store.drop_vectors(keep_model="other") == 2 and store.vector_rows("m") == []


def test_a_failed_transaction_leaves_nothing(store: Any, tmp_path: Path) -> None:
    docs = _source(store, tmp_path, "docs")
    with pytest.raises(RuntimeError):
        with store.transaction() as db:
            db.execute("UPDATE sources SET root = ? WHERE id = ?", ("/changed", docs.id))
            raise RuntimeError("killed")
    assert store.list_sources()[0].source.root == str(tmp_path / "docs")


def test_memory_rows_facets_graph_and_side_tables(store: Any, tmp_path: Path) -> None:
    memory = _source(store, tmp_path, "memory", "memory")
    first = _chunk("2026-11.md", 0, "retries back off", at=1000.0,
                   facets={"id": "m1", "type": "decision", "tags": ["http"], "files": ["src/fetch.py"]})
    store.write_batch(memory.id, upserts=[Document("2026-11.md", "memory", "journal", 5, 1, "x", {"lines": 6},
                                                   chunks=(first,))])
    later = _chunk("2026-11.md", 1, "cache the pool", at=2000.0,
                   facets={"id": "m2", "type": "insight", "tags": ["db"], "files": ["src/db/pool.py"]})
    seen: list[int] = []

    def place(lines: int) -> tuple[list[Chunk], int]:
        seen.append(lines)
        return [later], lines + 7

    assert store.append_chunks(memory.id, "2026-11.md", (5, 1), (9, 2), place)
    assert seen == [6]  # placed after the line count the index kept
    assert not store.append_chunks(memory.id, "2026-11.md", (5, 1), (9, 2), place)  # markers moved on
    assert store.append_chunks(memory.id, "2026-11.md", (9, 2), (9, 3), lambda lines: ([], lines)) and seen == [6]
    assert store.document_markers(memory.id)["2026-11.md"] == (9, 3, "")  # the count went to 13; no hash taken
    assert [m["lines"] for _, p, m in store.document_metadata("memory") if p == "2026-11.md"] == [13]
    assert [h.facets["id"] for h in store.faceted_hits("memory", None, 10)] == ["m2", "m1"]
    assert [h.facets["id"] for h in store.faceted_hits("memory", Facets(tags=("http",)), 10)] == ["m1"]
    assert [h.facets["id"] for h in store.faceted_hits("memory", Facets(files=("src/db",)), 10)] == ["m2"]
    assert [h.facets["id"] for h in store.faceted_hits("memory", Facets(files=("src/*.py",)), 10)] == ["m1"]
    assert [h.facets["id"] for h in store.faceted_hits("memory", Facets(since=1500.0), 10)] == ["m2"]
    assert [h.text for h in store.entry_pieces("memory", "m1")] == ["retries back off"]
    assert store.tag_exists("db") and not store.tag_exists("nope")
    store.replace_graph([("k1", "learning", "Backoff", 0.9, 1.0, "learning/k1.md"), ("m1", "memory", "", None, None, None)],
                        [("k1", "SUPERSEDES", "m1"), ("k1", "SUPERSEDES", "m1")])
    entities, relations = store.graph_rows()
    assert len(entities) == 2 and relations == [("k1", "SUPERSEDES", "m1")]
    assert [h.facets["id"] for h in store.faceted_hits("memory", Facets(current_only=True), 10)] == ["m2"]
    # agent sessions, the query log, changelog markers and synergies
    store.open_session("s1", "/repo", "main", 12, None, "abc", injected=2)
    store.open_session("s1", "/elsewhere", "dev", None, None, "def", injected=1)  # the start is kept
    store.close_session("s1", "digest", captured=1, compacted=1, files_read=5, ended=True)
    assert store.session_row("s1") == ("abc", "digest")
    assert store.sessions(5)[0][:3] == ("s1", "main", 12) and store.sessions(5)[0][7] == 3
    store.mark_captured("deadbeef", "s1")
    assert store.commit_captured("deadbeef") and not store.commit_captured("cafe")
    store.log_query("s1", "search", json.dumps({"q": "x"}), 3, 1.5)
    assert store.query_stats()[0][:2] == ("search", 1)
    store.save_marker("claude-code", "gh-releases", "2.0.1", "etag1", "new", None)
    store.save_marker("claude-code", "gh-releases", "2.0.2", "etag2", "new", None)
    assert store.fetch_markers() == {"claude-code": ("2.0.2", "etag2")}
    store.replace_synergies([("s", "Title", "[]", "[]", "[]", "body", "s.md")])
    assert store.synergy_rows("s") == [("s", "Title", "[]", "[]", "[]", "body")]

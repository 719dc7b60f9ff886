"""The PostgreSQL backend against a real PostgreSQL 18 with pgvector (tests/pgserver.py):
the same index contents, grep lines, graph answers and vector ranking as SQLite on the same
corpus; memory and workflows; one indexer per source with the holder named; a killed
indexer; clear errors for a dead server, an empty database and a missing driver."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mindex import Index
from mindex.config import EmbedSettings, IndexSettings
from mindex.errors import IndexLockedError, StoreError

sys.path.insert(0, str(Path(__file__).parent))
import pgserver  # noqa: E402
from test_index_contents import FIXTURES, POSTGRES_QUERIES, QUERIES  # noqa: E402
from test_index_contents import rows as sqlite_rows  # noqa: E402



def _code_tree(tmp_path: Path) -> Path:
    tree = tmp_path / "code"
    shutil.copytree(FIXTURES, tree, ignore=shutil.ignore_patterns("*.json", "*.md"))
    return tree


def _index(db: Path | str, tree: Path, **embed: object) -> Index:
    ix = Index(db, IndexSettings(workers=1), embed=EmbedSettings(**({"provider": "none"} | embed)))  # type: ignore[arg-type]
    ix.add_source(tree, name="code", kind="code")
    report = ix.index()["code"]
    assert report.added == 25 and not report.errors
    return ix


def _rows(db: Path | str) -> dict[str, str]:
    """Each table's rows (sorted, as JSON) digested, read with the backend's own driver."""
    if isinstance(db, str):
        import psycopg

        with psycopg.connect(db) as conn:
            tables = {t: [list(r) for r in conn.execute(sql).fetchall()] for t, sql in POSTGRES_QUERIES.items()}
    else:
        with sqlite3.connect(db) as conn:
            tables = {t: [list(r) for r in sqlite_rows(conn, t)] for t in QUERIES}
    return {t: hashlib.sha256("\n".join(sorted(json.dumps(r, ensure_ascii=False) for r in rows)).encode()).hexdigest()
            + f" ({len(rows)} rows)" for t, rows in tables.items()}


def test_the_same_code_index_as_sqlite(tmp_path: Path, pg_url: str) -> None:
    tree = _code_tree(tmp_path)
    with _index(tmp_path / "c.db", tree), _index(pg_url, tree):
        pass
    assert _rows(pg_url) == _rows(tmp_path / "c.db")
    with Index(pg_url, create=False) as ix:  # a second run finds nothing to do
        report = ix.index()["code"]
        assert (report.added, report.updated, report.removed, report.unchanged) == (0, 0, 0, 25)


def test_grep_graph_and_lookups_answer_as_on_sqlite(tmp_path: Path, pg_url: str) -> None:
    tree = _code_tree(tmp_path)
    with _index(tmp_path / "c.db", tree) as lite, _index(pg_url, tree) as server:
        for pattern, options in [("def \\w+\\(", {}), ("return None", {"fixed": True}), ("TODO|FIXME", {}),
                                 ("class", {"word": True}), ("IMPORT", {"ignore_case": True}),
                                 ("self\\.\\w+ = ", {"path": "*.py"}), ("función|naïve", {}),
                                 ("return|import|class|TODO", {}), ("[A-Z_]{8,}", {})]:
            a, b = lite.grep(pattern, **options), server.grep(pattern, **options)
            assert [(m.path, m.line, m.column, m.text) for m in a.matches] == \
                   [(m.path, m.line, m.column, m.text) for m in b.matches], pattern
            assert a.files_searched == b.files_searched, pattern
        assert sum(len(lite.grep(p).matches) for p in ("def ", "func ", "fn ")) > 10  # the parity above is not empty
        assert len(server.grep("return|import|class|TODO").matches) > 10  # each string's files from pg_trgm
        for name in ("parse", "Session", "send", "main", "render"):
            ga, gb = lite.graph().find(name), server.graph().find(name)
            assert [(how, s.to_dict()) for how, s in ga] == [(how, s.to_dict()) for how, s in gb], name
            for _, target in ga[:3]:
                twin = next(s for _, s in gb if s.to_dict() == target.to_dict())
                assert [e.to_dict() for e in lite.graph().callers(target)] == \
                       [e.to_dict() for e in server.graph().callers(twin)]
                assert [e.to_dict() for e in lite.graph().callees(target)] == \
                       [e.to_dict() for e in server.graph().callees(twin)]
        some = lite.search("parse", mode="keyword", limit=1).hits[0]
        assert server.get(some.id[:8]).text == some.text  # an id prefix
        with pytest.raises(Exception, match="matches no chunk"):
            server.get("ffffffffffff")


def test_keyword_search_matches_the_same_chunks(tmp_path: Path, pg_url: str) -> None:
    """Ranking functions differ (BM25 against ts_rank); which chunks hold the words must not,
    and a distinctive name ranks its definition first on both."""
    tree = _code_tree(tmp_path)
    with _index(tmp_path / "c.db", tree) as lite, _index(pg_url, tree) as server:
        both = either = 0
        for query in ("parse config", "render template", "http request", "getUserName", "flag set"):
            a = {h.id for h in lite.search(query, mode="keyword", limit=500).hits}
            b = {h.id for h in server.search(query, mode="keyword", limit=500).hits}
            assert a and b, query
            both, either = both + len(a & b), either + len(a | b)
        # the stemmers differ a little (Porter makes "https" "http", Snowball does not)
        assert both >= 0.93 * either, (both, either)
        for hit in lite.search("def", mode="keyword", limit=40).hits:
            if hit.symbol and len(hit.symbol) > 6:
                top = server.search(hit.symbol, mode="keyword", limit=5).hits
                assert hit.id in {h.id for h in top}, hit.symbol
        # any string is a valid query; filters apply before the limit
        for odd in ('"', "C++ (", "AND OR NOT", "foo.bar()", "naïve*", "''", "-x"):
            server.search(odd, mode="keyword")
        assert all(h.path.endswith(".go") for h in server.search("func", mode="keyword", path="*.go").hits)


def test_vectors_in_pgvector_rank_as_on_sqlite(tmp_path: Path, pg_url: str, added_minilm: Path) -> None:
    tree = _code_tree(tmp_path)
    embed = {"provider": "onnx", "models_dir": added_minilm}
    with _index(tmp_path / "c.db", tree, **embed) as lite, _index(pg_url, tree, **embed) as server:
        assert server.status()["vectors"] == lite.status()["vectors"] > 50
        for query in ("read a configuration file", "send an HTTP request", "walk a tree"):
            a = lite.search(query, mode="semantic", limit=5).hits
            b = server.search(query, mode="semantic", limit=5).hits
            assert [h.id for h in a] == [h.id for h in b]
            assert [round(h.score, 4) for h in a] == [round(h.score, 4) for h in b]
            assert server.search(query, mode="hybrid", limit=5).hits
        # from ANN_FROM vectors the HNSW index in the server answers: on this small set, the same
        # chunks as the exact search, with or without a filter
        import mindex.store.postgres as pgstore

        exact = {q: [(h.id, h.score) for h in lite.search(q, mode="semantic", limit=5, **f).hits]
                 for q, f in (("send an HTTP request", {}), ("walk a tree", {"path": "*.go"}))}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pgstore, "ANN_FROM", 1)
        with Index(pg_url, IndexSettings(workers=1), embed=EmbedSettings(**embed), create=False) as served:  # type: ignore[arg-type]
            for (query, f), ids in zip((("send an HTTP request", {}), ("walk a tree", {"path": "*.go"})),
                                       exact.values()):
                hits = served.search(query, mode="semantic", limit=5, **f).hits
                assert type(served._vectors).__name__ == "ServerVectors"
                # chunks of the same text share a vector: their order among themselves is either
                assert len(hits) == len(ids) and all(h.id == i or abs(h.score - score) < 1e-4
                                                     for h, (i, score) in zip(hits, ids)), query
    import psycopg

    with psycopg.connect(pg_url) as conn:  # the vectors are pgvector's, with an HNSW index
        assert conn.execute("SELECT count(*) FROM pg_indexes WHERE indexdef ILIKE '%hnsw%halfvec_cosine_ops%'"
                            ).fetchone()[0] == 1
        near = conn.execute("SELECT count(*) FROM vectors ORDER BY 1 LIMIT 1").fetchone()[0]
        assert near > 50


def test_memory_and_workflows_on_postgres(tmp_path: Path, pg_url: str) -> None:
    from mindex.store.workflows import Checkpoints

    with Index(pg_url) as ix:
        saved = ix.memory.save("Retries use exponential backoff capped at 30 s", type="decision", tags=("http",),
                                 files=("src/fetch.py",))
        ix.memory.save("The parser keeps fenced code blocks whole", type="insight")
        found = ix.memory.search("how do we retry failed requests")
        assert found.hits and found.hits[0].facets and found.hits[0].facets["id"] == saved.entry.id
        assert [h.facets["id"] for h in ix.memory.search("backoff", tags=("http",)).hits] == [saved.entry.id]  # type: ignore[index]
        assert not ix.memory.search("backoff", tags=("nope",)).hits
        ix.memory.forget(saved.entry.id)
        assert not ix.memory.search("exponential backoff").hits
        assert (tmp_path / ".mindex" / "memory").is_dir()  # the journal stays in the project, as files

        checks = Checkpoints(ix.store)  # type: ignore[arg-type]
        flow = checks.create(123, "feat/123-retry")
        assert checks.create(123, "feat/123-retry").resumed
        checks.set_phase(flow.id[:8], "implement")
        checks.log_action(flow.id, "ran tests", "success", {"tests": 12})
        checks.log_commit(flow.id, "a" * 40, "feat: retry")
        checks.log_commit(flow.id, "b" * 40, "fix: cap")
        assert [line.split()[3] for line in checks.rollback_plan(flow.id)] == ["b" * 40, "a" * 40]  # newest first
        again = checks.get(flow.id)
        assert again.phase == "implement" and [a.metadata for a in again.actions][-1] == {"tests": 12}


def test_one_indexer_per_source_and_the_holder_is_named(tmp_path: Path, pg_url: str) -> None:
    tree = _code_tree(tmp_path)
    docs = tmp_path / "docs"
    shutil.copytree(Path(__file__).parent / "fixtures" / "docs", docs)
    with Index(pg_url, IndexSettings(workers=1), embed=EmbedSettings(provider="none")) as ix:
        ix.add_source(tree, name="code", kind="code")
        ix.add_source(docs, name="docs")
        with ix.store.indexing("code"):  # as a running indexer would
            env = {**os.environ, "MINDEX_DB": pg_url}
            run = subprocess.run([sys.executable, "-m", "mindex", "index", "code", "--json"],
                                 capture_output=True, text=True, env=env, timeout=120)
            assert run.returncode != 0
            assert "being indexed by mindex" in run.stderr and f"{os.getpid()}@" in run.stderr
            assert json.loads(run.stdout)["error"]["code"]
            with pytest.raises(IndexLockedError, match="other sources can be indexed now"):
                ix.index(["code"])
            assert ix.index(["docs"])["docs"].added > 0  # another source is not held up
        assert ix.index(["code"])["code"].added == 25  # released


def test_a_killed_indexer_leaves_an_index_the_next_run_completes(tmp_path: Path, pg_url: str) -> None:
    tree = tmp_path / "many"
    for n in range(400):
        (tree / f"d{n // 50}").mkdir(parents=True, exist_ok=True)
        (tree / f"d{n // 50}" / f"m{n}.py").write_text(
            "\n\n".join(f"def f{n}_{k}(x):\n    '''Step {k} of {n}.'''\n    return x + {k}\n" for k in range(30)))
    env = {**os.environ, "MINDEX_DB": pg_url}
    cli = [sys.executable, "-m", "mindex"]
    subprocess.run([*cli, "add", str(tree), "--name", "many", "--kind", "code"], check=True, env=env,
                   capture_output=True, timeout=120)
    proc = subprocess.Popen([*cli, "index"], env={**env, "MINDEX_INDEX__WORKERS": "1"},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    import psycopg

    deadline = time.monotonic() + 60
    with psycopg.connect(pg_url, autocommit=True) as conn:
        while conn.execute("SELECT count(*) FROM documents").fetchone()[0] < 20 and time.monotonic() < deadline:
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        docs = conn.execute("SELECT count(*) FROM documents").fetchone()[0]
        assert 0 < docs < 400  # killed mid-way
        # every document written is whole: its chunks all there
        assert conn.execute("SELECT count(*) FROM documents d WHERE (SELECT count(*) FROM chunks c "
                            "WHERE c.document_id = d.id) <> 30").fetchone()[0] == 0
    done = subprocess.run([*cli, "index", "--json"], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT count(*), count(DISTINCT path) FROM documents").fetchone() == (400, 400)
        assert conn.execute("SELECT count(*) FROM chunks").fetchone()[0] == 400 * 30


def test_clear_errors_for_a_dead_server_an_empty_database_and_no_driver(tmp_path: Path, pg_url: str,
                                                                       pg: pgserver.PgServer) -> None:
    dead = f"postgresql://someone:s3cret@127.0.0.1:{pgserver._free_port()}/nothing"
    with pytest.raises(StoreError, match="cannot connect to postgresql://someone:\\*\\*\\*@") as failure:
        Index(dead, IndexSettings(lock_timeout=1))
    assert "s3cret" not in str(failure.value)
    with pytest.raises(StoreError, match="no mindex index in"):
        Index(pg_url, create=False)
    env = {**os.environ, "MINDEX_DB": pg_url}
    blocked = ("import sys; sys.modules['psycopg'] = None; sys.argv = ['mindex', 'status', '--json']; "
               "from mindex.serve.cli import main; main()")
    run = subprocess.run([sys.executable, "-c", blocked], capture_output=True, text=True, env=env, timeout=60)
    assert run.returncode != 0 and "pip install '.[postgres]'" in run.stderr
    other = subprocess.run([sys.executable, "-m", "mindex", "--db", "mysql://x/y", "status"],
                           capture_output=True, text=True, timeout=60)
    assert other.returncode != 0 and "postgresql:// URL" in other.stderr


def test_the_cli_on_a_server(tmp_path: Path, pg_url: str, docs_dir: Path) -> None:
    url = pg_url.replace("postgres@", "postgres:pw@")  # trust auth ignores it; status must not show it
    cli = [sys.executable, "-m", "mindex", "--db", url]
    for argv in (["add", str(docs_dir), "--name", "docs"], ["index"]):
        subprocess.run([*cli, *argv], check=True, capture_output=True, timeout=120)
    found = json.loads(subprocess.run([*cli, "search", "install", "--json", "--mode", "keyword"], check=True,
                                      capture_output=True, text=True, timeout=60).stdout)
    assert found["results"]
    status = subprocess.run([*cli, "status", "--json"], check=True, capture_output=True, text=True, timeout=60).stdout
    assert "pw" not in status and json.loads(status)["documents"] > 0


def test_a_role_that_may_only_read_searches_and_is_told_why_it_cannot_write(tmp_path: Path, pg_url: str,
                                                                          docs_dir: Path) -> None:
    import psycopg

    with Index(pg_url, IndexSettings(workers=1), embed=EmbedSettings(provider="none")) as ix:
        ix.add_source(docs_dir, name="docs")
        ix.index()
        documents = ix.status()["documents"]
    role = f"reader_{pg_url.rsplit('/', 1)[1]}"  # roles belong to the whole server: one per database
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {role} LOGIN")
        conn.execute(f"GRANT USAGE ON SCHEMA public TO {role}")
        conn.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role}")
    cli = [sys.executable, "-m", "mindex", "--db", pg_url.replace("postgres@", f"{role}@", 1)]
    env = {**os.environ, "MINDEX_EMBED__PROVIDER": "none"}
    found = subprocess.run([*cli, "search", "Retry-After", "--mode", "keyword", "--json"], capture_output=True,
                           text=True, timeout=60, env=env)
    assert found.returncode == 0 and json.loads(found.stdout)["results"][0]["path"] == "guide/retries.md"
    for argv in (["memory", "save", "a note", "--type", "insight"], ["index"]):
        refused = subprocess.run([*cli, *argv, "--json"], capture_output=True, text=True, timeout=60, env=env)
        error = json.JSONDecoder().raw_decode(refused.stdout)[0]["error"]
        assert refused.returncode != 0 and "Traceback" not in refused.stderr
        assert error["code"] == "INDEX_READ_ONLY" and "permission denied for table" in error["message"]
        assert "may read the index but not change it" in error["message"]
    with Index(pg_url, create=False, embed=EmbedSettings(provider="none")) as ix:  # nothing half-written
        assert ix.status()["documents"] == documents and not ix.memory.recent()


def test_after_the_server_restarts_the_next_call_works(docs_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A long-lived process (the shared server) keeps pooled connections; after PostgreSQL
    restarts they are dead. The call during the outage fails with a clear error; the first
    call after it works (idle connections are tried before use)."""
    from mindex.store import postgres as pgstore

    monkeypatch.setattr(pgstore.core, "CHECK_IDLE", 1e9)  # at first no connection counts as idle: used, it fails
    server = pgserver.PgServer()  # a server of its own: this test stops it
    try:
        with Index(server.create("restart"), IndexSettings(workers=1, lock_timeout=1),
                   embed=EmbedSettings(provider="none")) as ix:
            ix.add_source(docs_dir, name="docs")
            ix.index()
            expected = [h.id for h in ix.search("Retry-After", mode="keyword").hits]
            for _ in range(3):  # more than one connection in the pool
                ix.search("retries", mode="keyword")
            server._run(["pg_ctl", "-D", str(server.data), "-m", "fast", "-w", "stop"])
            with pytest.raises(StoreError, match="server went away.*Rerun the command"):
                ix.search("Retry-After", mode="keyword")
            server._run(["pg_ctl", "-D", str(server.data), "-l", str(server.data / "log"), "-o",
                         f"-p {server.port} -k {server.data} -c listen_addresses=127.0.0.1", "-w", "start"])
            monkeypatch.setattr(pgstore.core, "CHECK_IDLE", 0.0)  # now every connection counts as idle (default: 2 s)
            assert [h.id for h in ix.search("Retry-After", mode="keyword").hits] == expected
            server._run(["pg_ctl", "-D", str(server.data), "-m", "fast", "-w", "stop"])
            with pytest.raises(StoreError, match="no connection to .* within 5 s .*rerun the command"):
                ix.search("Retry-After", mode="keyword")  # tried before use: no server, no connection
    finally:
        try:
            server.stop()  # its folder goes in any case
        except RuntimeError:
            pass  # the test left it stopped


def test_copy_sqlite_to_postgres_and_back(tmp_path: Path, pg_url: str, pg: pgserver.PgServer,
                                          added_minilm: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mindex.copy import copy_index
    from mindex.errors import ConfigError

    tree = _code_tree(tmp_path)
    embed = {"provider": "onnx", "models_dir": added_minilm}
    with _index(tmp_path / "c.db", tree, **embed) as lite:
        lite.memory.save("Grep reads the stored text of code files", type="decision", tags=("grep",))
        expected = lite.search("read a configuration file", mode="semantic", limit=5).hits
        vectors = lite.status()["vectors"]
    # a copy that dies after two batches of chunks is finished by running it again
    import mindex.store.postgres as pgstore

    real, calls = pgstore.PostgresStore.load_rows, []

    def dying(self: object, table: str, rows: object, db: object) -> None:
        calls.append(table)
        if table == "chunks" and calls.count("chunks") == 3:
            raise OSError("killed")
        real(self, table, rows, db)  # type: ignore[arg-type]

    monkeypatch.setattr(pgstore.PostgresStore, "load_rows", dying)
    with pytest.raises(OSError):
        copy_index(tmp_path / "c.db", pg_url, batch=100)
    monkeypatch.setattr(pgstore.PostgresStore, "load_rows", real)
    report = copy_index(tmp_path / "c.db", pg_url, batch=100)
    assert report.resumed and report.rows["chunks"] < 500 and "sources" not in report.rows
    assert _rows(pg_url) == _rows(tmp_path / "c.db")
    with Index(pg_url, embed=EmbedSettings(provider="onnx", models_dir=added_minilm), create=False) as server:
        assert server.status()["vectors"] == vectors
        got = server.search("read a configuration file", mode="semantic", limit=5).hits
        assert [h.id for h in got] == [h.id for h in expected]
        assert server.memory.search("stored text", tags=("grep",)).hits
        server.memory.save("A note written on the server after the copy", type="insight")  # ids go on past the copy
    with pytest.raises(ConfigError, match="already holds an index; add --replace"):
        copy_index(tmp_path / "c.db", pg_url)
    copy_index(tmp_path / "c.db", pg_url, replace=True)
    assert _rows(pg_url) == _rows(tmp_path / "c.db")
    # and back, through the command line, into a new file
    back = tmp_path / "back.db"
    run = subprocess.run([sys.executable, "-m", "mindex", "copy", "--from", pg_url, "--to", str(back), "--json"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    with sqlite3.connect(tmp_path / "c.db") as conn:  # with the empty ones of import-only chunks
        assert json.loads(run.stdout)["rows"]["vectors"] == conn.execute("SELECT count(*) FROM vectors").fetchone()[0]
    assert _rows(back) == _rows(tmp_path / "c.db")
    with Index(back, embed=EmbedSettings(provider="onnx", models_dir=added_minilm), create=False) as copied:
        assert [h.id for h in copied.search("read a configuration file", mode="semantic", limit=5).hits] == \
               [h.id for h in expected]
        assert copied.grep("def ").matches and copied.search("parse", mode="keyword").hits


def test_a_shared_server_on_postgres_with_named_tokens(tmp_path: Path, pg_url: str, docs_dir: Path) -> None:
    import urllib.request

    import anyio
    import httpx2
    from mcp.client.client import Client
    from mcp.client.streamable_http import streamable_http_client

    from mindex.serve.tokens import new_token

    with Index(pg_url, IndexSettings(workers=1), embed=EmbedSettings(provider="none")) as ix:
        ix.add_source(docs_dir, name="docs")
        ix.index()
    secrets_, blocks = {}, []
    for name, write, sources in (("reader", False, ("docs",)), ("writer", True, ()), ("outsider", False, ("other",))):
        secrets_[name], block = new_token(name, write, sources)
        blocks.append(block)
    tokens = tmp_path / "tokens.toml"
    tokens.write_text("\n".join(blocks))
    port = pgserver._free_port()
    proc = subprocess.Popen([sys.executable, "-m", "mindex", "--db", pg_url, "serve", "--http", "--host", "0.0.0.0",
                             "--port", str(port), "--tokens", str(tokens)], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        assert proc.stderr.readline().strip() == \
            f"mindex: listening on http://0.0.0.0:{port}/mcp (named tokens from {tokens})"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10) as health:  # no token needed
            assert json.loads(health.read())["status"] == "ok"
        request = urllib.request.Request(f"http://127.0.0.1:{port}/mcp", data=b"{}", method="POST",
                                         headers={"authorization": "Bearer not-a-token"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        assert refused.value.code == 401

        async def as_(who: str, tool: str, arguments: dict[str, object]) -> object:
            async with httpx2.AsyncClient(headers={"authorization": f"Bearer {secrets_[who]}"}) as http:
                transport = streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http)
                async with Client(transport) as client:
                    return await client.call_tool(tool, arguments)

        def call(who: str, tool: str, arguments: dict[str, object]) -> object:
            return anyio.run(as_, who, tool, arguments)

        found = call("reader", "search_docs", {"query": "Retry-After"})
        assert not found.is_error and found.structured_content["results"][0]["path"] == "guide/retries.md"  # type: ignore[attr-defined]
        denied = call("reader", "memory_save", {"text": "a note", "type": "insight"})
        assert denied.is_error and "token 'reader' is read-only" in denied.content[0].text  # type: ignore[attr-defined]
        # Its one source is filled in; it does not exist, and the answer says so without naming others.
        outside = call("outsider", "search_docs", {"query": "Retry-After"})
        assert outside.is_error and "no source named 'other'" in outside.content[0].text  # type: ignore[attr-defined]
        assert "'docs'" not in outside.content[0].text  # type: ignore[attr-defined]
        other = call("outsider", "search_docs", {"query": "Retry-After", "source": "docs"})
        assert other.is_error and "may not read the source 'docs'" in other.content[0].text  # type: ignore[attr-defined]
        saved = call("writer", "memory_save", {"text": "Shared servers log who asked", "type": "insight"})
        assert not saved.is_error  # type: ignore[attr-defined]
    finally:
        proc.send_signal(signal.SIGTERM)
        _, log = proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGTERM and log.rstrip().endswith("mindex: stopped")  # a graceful stop
    lines = log.splitlines()
    shown = len(found.structured_content["results"])  # type: ignore[attr-defined]
    assert shown > 0 and any(" reader POST /mcp search_docs 200 " in line and line.endswith(f" ms results={shown}")
                             for line in lines)  # how many results each call gave, never their text
    assert any(" outsider POST /mcp search_docs 200 " in line and line.endswith(" ms error") for line in lines)
    assert any(" outsider POST /mcp search_docs (refused) 200 " in line for line in lines)
    assert any(" reader POST /mcp memory_save (refused) 200 " in line for line in lines)
    assert any(" writer POST /mcp memory_save 200 " in line for line in lines)
    assert any(" - GET /healthz health 200 " in line for line in lines)
    assert not any(secret in log for secret in secrets_.values())


def test_readers_never_wait_for_a_writer_and_never_see_half_a_batch(tmp_path: Path, pg_url: str,
                                                                    docs_dir: Path) -> None:
    with Index(pg_url, IndexSettings(workers=1), embed=EmbedSettings(provider="none")) as writer, \
            Index(pg_url, IndexSettings(workers=1), embed=EmbedSettings(provider="none"), create=False) as reader:
        writer.add_source(docs_dir, name="docs")
        writer.index()
        before = {h.id for h in reader.search("connection pool", mode="keyword", limit=50).hits}
        with writer.store.transaction() as db:  # a batch under way: rows written, not committed
            db.execute("DELETE FROM chunks")
            db.execute("UPDATE sources SET root = '/elsewhere'")
            started = time.perf_counter()
            during = {h.id for h in reader.search("connection pool", mode="keyword", limit=50).hits}
            assert time.perf_counter() - started < 2.0 and during == before
            assert reader.sources()[0].source.root == str(docs_dir)
        assert not reader.search("connection pool", mode="keyword").hits  # committed: seen at once


def test_keyword_shortcuts_change_no_result(tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Looking at chunks with a rarer word first (COMMON) and scoring only the best matches
    exactly (RESCORED) are speed-ups: the pages must be those of the plain BM25 over all matches."""
    import mindex.store.postgres as pgstore

    tree = _code_tree(tmp_path)
    queries = ["return nil when the marbles differ", "self return none scheduler", "the nil error of ParseFlags",
               "return the parsed config or an error", "x 1 and or 2", "if err nil return"]
    with _index(pg_url, tree) as ix:
        def pages() -> list[list[tuple[str, float]]]:
            return [[(h.id, round(h.score, 6)) for h in ix.search(q, mode="keyword", limit=limit).hits]
                    for q in queries for limit in (3, 10)]

        ranked, search, calls, searches = pgstore.PostgresStore._ranked, pgstore.PostgresStore.keyword_ranked, [], []

        def spy(self: object, match: str, *args: object) -> object:
            calls.append(match)
            return ranked(self, match, *args)  # type: ignore[arg-type]

        def keyword(self: object, match: str, *args: object, **kwargs: object) -> object:
            before = len(calls)
            found = search(self, match, *args, **kwargs)  # type: ignore[arg-type]
            searches.append((match, calls[before:]))
            return found

        monkeypatch.setattr(pgstore.PostgresStore, "_ranked", spy)
        monkeypatch.setattr(pgstore.PostgresStore, "keyword_ranked", keyword)
        fast = pages()
        # the shortcut answered some searches alone (only the rarer words' query ran)
        assert any(len(ran) == 1 and ran[0] != match for match, ran in searches)
        monkeypatch.setattr(pgstore.chunks, "COMMON", 0.0)
        monkeypatch.setattr(pgstore.chunks, "RESCORED", 100_000)
        assert pages() == fast and all(fast)


def test_a_server_killed_mid_index_is_named_as_gone_and_leaves_a_consistent_index(tmp_path: Path) -> None:
    """Killing PostgreSQL while `mindex index` ran printed 15 pool warnings and a raw
    psycopg.errors.AdminShutdown traceback: the command now says the server went away and
    that what was committed is kept, and the next run finishes the index."""
    import subprocess
    import sys

    docs = tmp_path / "many"
    docs.mkdir()
    for n in range(3000):
        (docs / f"page{n:04}.md").write_text(f"# Page {n}\n\nThe word token{n} lives here.\n" + "More text. " * 40)
    server = pgserver.PgServer()  # a server of its own: this test kills it
    try:
        env = {**os.environ, "MINDEX_DB": server.create("killed"), "MINDEX_INDEX__LOCK_TIMEOUT": "2"}
        subprocess.run([sys.executable, "-m", "mindex", "add", str(docs)], env=env, check=True, capture_output=True)
        proc = subprocess.Popen([sys.executable, "-m", "mindex", "index"], env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        assert proc.stderr is not None
        for line in proc.stderr:  # progress lines come once the run has gone a second
            if "/3,000 files" in line:
                break
        server._run(["pg_ctl", "-D", str(server.data), "-m", "immediate", "-w", "stop"])
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 1, (out, err)
        assert "Traceback" not in err and "psycopg" not in err and "WARNING" not in err, err
        assert "the PostgreSQL server went away" in err and "the index is consistent" in err and "Rerun the command" in err
        server._run(["pg_ctl", "-D", str(server.data), "-l", str(server.data / "log"), "-o",
                     f"-p {server.port} -k {server.data} -c listen_addresses=127.0.0.1", "-w", "start"])
        again = subprocess.run([sys.executable, "-m", "mindex", "index", "--json", "-q"], env=env, capture_output=True,
                               text=True, timeout=300)
        assert again.returncode == 0, again.stderr
        status = __import__("json").loads(subprocess.run([sys.executable, "-m", "mindex", "status", "--json"], env=env,
                                                         capture_output=True, text=True).stdout)
        assert status["documents"] == 3000
    finally:
        try:
            server.stop()
        except RuntimeError:
            pass

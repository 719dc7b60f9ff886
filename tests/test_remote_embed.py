"""Remote embedders against real HTTP servers on 127.0.0.1 speaking each API's shapes."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from apiserver import ApiServer, Trouble, serve, word_vector
from mindex import Index, IndexSettings
from mindex.config import EmbedSettings
from mindex.errors import BudgetExceededError, ConfigError, EmbeddingMismatchError, RemoteError

KEY = "sk-test-very-secret-123"


def ollama_api(path: str, body: Any, headers: dict[str, str]) -> Any:
    assert path == "/api/embed"
    return {"model": body["model"], "embeddings": [word_vector(t) for t in body["input"]]}


def openai_api(path: str, body: Any, headers: dict[str, str]) -> Any:
    assert path == "/v1/embeddings"
    dims = body.get("dimensions", 16)
    data = [{"object": "embedding", "index": i, "embedding": word_vector(t, dims)}
            for i, t in enumerate(body["input"])]
    # Real servers may answer out of order; the index field is what counts.
    return {"object": "list", "data": data[::-1], "model": body["model"],
            "usage": {"prompt_tokens": 5, "total_tokens": 5}}


voyage_api = openai_api


@pytest.fixture
def ollama() -> Iterator[ApiServer]:
    yield from serve(ollama_api)


@pytest.fixture
def openai() -> Iterator[ApiServer]:
    yield from serve(openai_api)


def remote_index(tmp_path: Path, **embed: Any) -> Index:
    settings = EmbedSettings(backoff=0.01, **embed)
    return Index(tmp_path / "remote.db", IndexSettings(workers=1), embed=settings)


def test_ollama_embeds_in_batches_and_semantic_search_uses_it(
    tmp_path: Path, docs_dir: Path, ollama: ApiServer
) -> None:
    with remote_index(tmp_path, provider="ollama", base_url=ollama.url, batch_size=4) as ix:
        ix.add_source(docs_dir, name="docs")
        ix.index()
        status = ix.status()
        assert status["embed_model"] == "ollama:nomic-embed-text"
        assert status["embed_dim"] == "16"
        sent = [r.body for r in ollama.requests]
        assert all(b["model"] == "nomic-embed-text" and 1 <= len(b["input"]) <= 4 for b in sent)
        result = ix.search("configuring retries with backoff", mode="semantic", limit=3)
        assert result.mode == "semantic" and result.hits
        again = len(ollama.requests)
        ix.index()  # nothing changed: nothing is embedded again
        assert len(ollama.requests) == again


def test_openai_compatible_sends_key_and_dimensions_and_orders_by_index(openai: ApiServer) -> None:
    from mindex.embed.openai_compat import OpenAIEmbedder

    texts = ["alpha retries", "beta timeout", "gamma pool"]
    with closing(OpenAIEmbedder("text-embedding-3-small", openai.url + "/v1", KEY, dimensions=8)) as embedder:
        vectors = embedder.embed_documents(texts)
    expected = np.asarray([word_vector(t, 8) for t in texts], dtype=np.float32)
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    assert np.allclose(vectors, expected, atol=1e-6)
    request = openai.requests[0]
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.body["dimensions"] == 8 and request.body["encoding_format"] == "float"


def test_voyage_tells_queries_from_documents() -> None:
    from mindex.embed.voyage import VoyageEmbedder

    for server in serve(voyage_api):
        with closing(VoyageEmbedder("voyage-3.5", server.url + "/v1", KEY)) as embedder:
            embedder.embed_documents(["a document about pools"])
            embedder.embed_query("what is a pool")
        assert [r.body["input_type"] for r in server.requests] == ["document", "query"]
        assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"


def test_retry_after_is_honoured_on_429(openai: ApiServer) -> None:
    from mindex.embed.openai_compat import OpenAIEmbedder

    openai.troubles.append(Trouble(429, headers={"Retry-After": "1"}))
    started = time.monotonic()
    with closing(OpenAIEmbedder("m", openai.url + "/v1")) as embedder:
        embedder.embed_batch(["hello world"])
    assert time.monotonic() - started >= 0.95
    assert len(openai.requests) == 2


def test_server_errors_dropped_connections_and_slow_answers_are_retried(openai: ApiServer) -> None:
    from mindex.embed.openai_compat import OpenAIEmbedder
    from mindex.fetch.http import RetryPolicy

    openai.troubles += [Trouble(500), Trouble(drop=True), Trouble(delay=1.0), Trouble(503)]
    policy = RetryPolicy(timeout=0.3, retries=4, backoff=0.01)
    with closing(OpenAIEmbedder("m", openai.url + "/v1", policy=policy)) as embedder:
        vectors = embedder.embed_batch(["still answered"])
    assert vectors.shape == (1, 16)
    assert len(openai.requests) == 5


def test_persistent_failure_names_the_endpoint_and_never_the_key(
    openai: ApiServer, caplog: pytest.LogCaptureFixture
) -> None:
    from mindex.embed.openai_compat import OpenAIEmbedder
    from mindex.fetch.http import RetryPolicy

    caplog.set_level(logging.DEBUG)
    openai.troubles += [Trouble(503, {"error": {"message": "overloaded"}})] * 3
    embedder = OpenAIEmbedder("m", openai.url + "/v1", KEY, policy=RetryPolicy(retries=2, backoff=0.01))
    with closing(embedder), pytest.raises(RemoteError) as err:
        embedder.embed_batch(["x"])
    message = str(err.value)
    assert f"{openai.url}/v1/embeddings" in message and "503" in message and "overloaded" in message
    assert "3 attempts" in message
    assert KEY not in message and KEY not in caplog.text and KEY not in repr(embedder)


def test_a_rejected_request_is_not_retried(openai: ApiServer) -> None:
    from mindex.embed.openai_compat import OpenAIEmbedder

    openai.troubles.append(Trouble(400, {"error": {"message": "model 'nope' not found"}}))
    with closing(OpenAIEmbedder("nope", openai.url + "/v1")) as embedder:
        with pytest.raises(RemoteError, match="model 'nope' not found"):
            embedder.embed_batch(["x"])
    assert len(openai.requests) == 1


def test_refused_connection_says_is_the_server_running() -> None:
    from mindex.embed.ollama import OllamaEmbedder
    from mindex.fetch.http import RetryPolicy

    embedder = OllamaEmbedder("m", "http://127.0.0.1:9", policy=RetryPolicy(retries=1, backoff=0.01))
    with closing(embedder), pytest.raises(RemoteError, match="is the server running"):
        embedder.embed_batch(["x"])


def test_a_malformed_answer_is_a_clear_error() -> None:
    for server in serve(lambda path, body, headers: {"embeddings": [[1.0, 2.0]]}):
        from mindex.embed.ollama import OllamaEmbedder

        with closing(OllamaEmbedder("m", server.url)) as embedder:
            with pytest.raises(RemoteError, match="1 vectors for 2 texts"):
                embedder.embed_batch(["a", "b"])
    for server in serve(lambda path, body, headers: {"embeddings": [[1.0, float("nan")], [0.5, float("inf")]]}):
        with closing(OllamaEmbedder("m", server.url)) as embedder:
            with pytest.raises(RemoteError, match="holding NaN or infinity"):
                embedder.embed_batch(["a", "b"])


def test_budget_stops_the_run_cleanly_and_the_next_run_resumes(
    tmp_path: Path, docs_dir: Path, ollama: ApiServer
) -> None:
    common = dict(provider="ollama", base_url=ollama.url, batch_size=2, concurrency=1)
    with remote_index(tmp_path, max_requests=3, **common) as ix:
        ix.add_source(docs_dir, name="docs")
        ix.index(embed=False)
        with pytest.raises(BudgetExceededError, match="max_requests"):
            ix.embed()
        assert ix.status()["vectors"] == 6  # three budgeted requests of two texts (the probe is free)
    calls = len(ollama.requests)
    with remote_index(tmp_path, **common) as ix:
        rest = ix.embed()
        assert rest > 6 and ix.status()["vectors"] == 6 + rest
        assert len(ollama.requests) - calls == 1 + (rest + 1) // 2


@pytest.mark.parametrize("limits", [dict(max_requests=1), dict(max_tokens=60)])
def test_a_budget_smaller_than_one_round_still_makes_progress_every_run(
    tmp_path: Path, docs_dir: Path, ollama: ApiServer, limits: dict[str, int]
) -> None:
    """A round is concurrency x batch_size texts; a budget below it must not stop every run
    before its first request."""
    common = dict(provider="ollama", base_url=ollama.url, batch_size=4, concurrency=4, **limits)
    before = 0
    for _ in range(3):
        with remote_index(tmp_path, **common) as ix:
            if not before:
                ix.add_source(docs_dir, name="docs")
                ix.index(embed=False)
            with pytest.raises(BudgetExceededError):
                ix.embed()
            now = ix.status()["vectors"]
            assert now > before, "a budgeted run embedded nothing"
            before = now


def test_a_budget_below_one_text_says_so(ollama: ApiServer) -> None:
    from mindex.embed.ollama import OllamaEmbedder
    from mindex.fetch.http import Budget

    with closing(OllamaEmbedder("m", ollama.url, budget=Budget(max_tokens=5))) as embedder:
        with pytest.raises(BudgetExceededError, match="more than the whole budget of 5 tokens"):
            embedder.embed_documents(["x" * 400])


def test_token_budget_counts_estimated_tokens(ollama: ApiServer) -> None:
    from mindex.embed.ollama import OllamaEmbedder
    from mindex.fetch.http import Budget

    with closing(OllamaEmbedder("m", ollama.url, budget=Budget(max_tokens=30))) as embedder:
        embedder.embed_documents(["x" * 40])  # about 11 tokens
        with pytest.raises(BudgetExceededError, match="max_tokens"):
            embedder.embed_documents(["x" * 80])
        embedder.embed_query("queries are not counted" * 10)


def test_openai_without_a_key_names_the_variable(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        Index(tmp_path / "x.db", embed=EmbedSettings(provider="openai")).embedder()


def test_key_comes_from_the_named_environment_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_VOYAGE_KEY", KEY)
    conf = EmbedSettings(provider="voyage", api_key_env="MY_VOYAGE_KEY")
    assert conf.api_key is not None and conf.api_key.get_secret_value() == KEY
    assert KEY not in repr(conf)


def test_a_model_with_other_dimensions_is_refused_at_search(tmp_path: Path, docs_dir: Path) -> None:
    for server in serve(ollama_api):
        with remote_index(tmp_path, provider="ollama", base_url=server.url) as ix:
            ix.add_source(docs_dir, name="docs")
            ix.index()
        server.respond = lambda path, body, headers: {"embeddings": [[1.0] * 8 for _ in body["input"]]}
        with remote_index(tmp_path, provider="ollama", base_url=server.url) as ix:
            with pytest.raises(EmbeddingMismatchError, match="embed --force"):
                ix.search("pool", mode="semantic")
        # Another remote model, not asked anything yet: its size is not known, and not said as 0.
        with remote_index(tmp_path, provider="ollama", base_url=server.url, model="other-model") as ix:
            with pytest.raises(EmbeddingMismatchError) as refused:
                ix.search("pool", mode="semantic")
            assert "(0 dimensions)" not in str(refused.value) and "other-model" in str(refused.value)


def chat_api(path: str, body: Any, headers: dict[str, str]) -> Any:
    assert path == "/v1/chat/completions"
    where = body["messages"][1]["content"].split("\n", 1)[0]
    content = f"  This passage comes from {where.removeprefix('Location: ')}.\n"
    return {"id": "c", "object": "chat.completion",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60}}


def test_llm_context_is_written_once_per_chunk_and_embedded_before_it(
    tmp_path: Path, docs_dir: Path, ollama: ApiServer
) -> None:
    from mindex.config import ContextSettings

    for chat in serve(chat_api):
        context = ContextSettings(provider="llm", base_url=chat.url + "/v1", model="writer", backoff=0.01)
        with remote_index(tmp_path, provider="ollama", base_url=ollama.url, context=context) as ix:
            ix.add_source(docs_dir, name="docs")
            ix.index()
            assert ix.status()["embed_model"] == "ollama:nomic-embed-text+llm-context:writer"
            written = len(chat.requests)
            assert written == ix.status()["vectors"]  # one chat request per distinct chunk
            embedded = [text for r in ollama.requests for text in r.body["input"]]
            assert any(t.startswith("This passage comes from guide/pooling.md") for t in embedded)
            assert ix.search("pool", mode="semantic").hits
        with remote_index(tmp_path, provider="ollama", base_url=ollama.url, context=context) as ix:
            ix.embed(force=True)  # every vector again, but every context comes from the cache
            assert len(chat.requests) == written


def test_llm_context_budget_keeps_what_was_written(tmp_path: Path, docs_dir: Path, ollama: ApiServer) -> None:
    from mindex.config import ContextSettings

    for chat in serve(chat_api):
        context = ContextSettings(provider="llm", base_url=chat.url + "/v1", model="writer", max_requests=3, concurrency=1)
        with remote_index(tmp_path, provider="ollama", base_url=ollama.url, context=context) as ix:
            ix.add_source(docs_dir, name="docs")
            ix.index(embed=False)
            with pytest.raises(BudgetExceededError, match=r"embed\.context\.max_requests"):
                ix.embed()
            every = [row[0] for row in ix.store.conn.execute("SELECT hash FROM chunks")]  # type: ignore[attr-defined]
            assert len(ix.store.contexts_for("llm-context:writer", every)) == 3
            # The chunk whose context was paid for is embedded too: the run made progress.
            assert ix.status()["vectors"] >= 1


def test_the_python_api_resolves_the_projects_config_as_the_cli_does(
    tmp_path: Path, docs_dir: Path, ollama: ApiServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from mindex.config import Settings
    from mindex.serve.cli import cli

    project = tmp_path / "project"
    (project / ".mindex").mkdir(parents=True)
    (project / ".mindex" / "config.toml").write_text(
        f'[embed]\nprovider = "ollama"\nbase_url = "{ollama.url}"\n[index]\nworkers = 1\n')
    monkeypatch.delenv("MINDEX_EMBED__PROVIDER")  # the project file decides, as for a user
    monkeypatch.chdir(project)
    for args in (["add", str(docs_dir)], ["index", "-q"]):
        assert CliRunner().invoke(cli, args).exit_code == 0
    monkeypatch.chdir(tmp_path)  # elsewhere: the index's own project still applies
    with Index(project / ".mindex" / "index.db") as ix:
        assert ix.embed_settings.provider == "ollama"
        assert ix.search("connection pool", mode="semantic").hits
    with Index(project / ".mindex" / "index.db", config=Settings(embed=EmbedSettings(provider="none"))) as ix:
        assert ix.embed_settings.provider == "none"  # an explicit config replaces the files


def test_a_changed_dimension_is_named_with_its_code_in_text_and_json(
    tmp_path: Path, docs_dir: Path, openai: ApiServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    from click.testing import CliRunner

    from mindex.serve.cli import cli

    db = str(tmp_path / "d.db")
    monkeypatch.setenv("MINDEX_EMBED__PROVIDER", "openai")
    monkeypatch.setenv("MINDEX_EMBED__BASE_URL", openai.url + "/v1")
    monkeypatch.setenv("MINDEX_EMBED__API_KEY", KEY)
    monkeypatch.setenv("MINDEX_EMBED__DIMENSIONS", "16")
    runner = CliRunner()
    assert runner.invoke(cli, ["--db", db, "add", str(docs_dir)]).exit_code == 0
    assert runner.invoke(cli, ["--db", db, "index", "-q"]).exit_code == 0
    monkeypatch.setenv("MINDEX_EMBED__DIMENSIONS", "8")
    for command in (["search", "pool", "--mode", "semantic"], ["embed"]):
        done = runner.invoke(cli, ["--db", db, *command, "--json"])
        assert done.exit_code == 1
        error = json.loads(done.stdout)["error"]
        assert error["code"] == "EMBEDDING_DIM_MISMATCH"
        assert "16 dimensions" in error["message"] and "embed.dimensions asks for 8" in error["message"]
        assert "EMBEDDING_DIM_MISMATCH" in done.stderr and "openai:text-embedding-3-small vectors" in done.stderr


def test_a_budget_stop_prints_its_json_error_with_exit_code_5(
    tmp_path: Path, docs_dir: Path, ollama: ApiServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    from click.testing import CliRunner

    from mindex.serve.cli import cli

    monkeypatch.setenv("MINDEX_EMBED__PROVIDER", "ollama")
    monkeypatch.setenv("MINDEX_EMBED__BASE_URL", ollama.url)
    monkeypatch.setenv("MINDEX_EMBED__BATCH_SIZE", "2")
    monkeypatch.setenv("MINDEX_EMBED__MAX_REQUESTS", "1")
    db = ["--db", str(tmp_path / "b.db")]
    runner = CliRunner()
    assert runner.invoke(cli, [*db, "add", str(docs_dir)]).exit_code == 0
    done = runner.invoke(cli, [*db, "index", "--json"])
    assert done.exit_code == 5
    assert json.loads(done.stdout)["error"]["code"] == "BUDGET_EXCEEDED"


def test_embedders_of_other_packages_are_found_by_their_entry_point(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A package registering `mindex.embedders` (a real dist-info folder on the path) adds a
    provider; a built-in name cannot be taken over; an unknown name is a KeyError."""
    from mindex.embed import EMBEDDERS
    from mindex.embed.onnx import OnnxEmbedder
    from mindex.registry import Registry

    (tmp_path / "toy_embedder.py").write_text(
        "from mindex.embed.base import Embedder\n\nclass Toy(Embedder):\n    model_id = 'toy'\n")
    info = tmp_path / "toy_embedder-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-embedder\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[mindex.embedders]\ntoy = toy_embedder:Toy\nonnx = toy_embedder:Toy\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    found = Registry("mindex.embedders", EMBEDDERS.built_in)  # read afresh: the entry points of now
    assert "toy" in found and found.load("toy").__name__ == "Toy" and found.load("onnx") is OnnxEmbedder
    assert found["toy"] == "toy_embedder:Toy" and found["onnx"] == "mindex.embed.onnx:OnnxEmbedder"
    assert list(found) == ["onnx", "ollama", "openai", "voyage", "toy"] and len(found) == 5
    with pytest.raises(KeyError):
        found.load("nope")

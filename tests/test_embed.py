"""Embeddings with the real packaged all-MiniLM-L6-v2 (ONNX Runtime, no network, no fakes)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from mindex import Index, IndexSettings
from mindex.config import EmbedSettings
from mindex.embed.models import find_model
from mindex.embed.onnx import OnnxEmbedder
from mindex.errors import ConfigError, EmbeddingMismatchError
from mindex.ingest import embed_pending
from mindex.serve.cli import cli

ONNX = EmbedSettings(provider="onnx")


@pytest.fixture(scope="module")
def embedder() -> OnnxEmbedder:
    model = find_model()
    assert model is not None, "the test extra installs all-MiniLM-L6-v2 (see README)"
    return OnnxEmbedder(model)


@pytest.fixture
def semantic(tmp_path: Path, docs_dir: Path) -> Iterator[Index]:
    with Index(tmp_path / "s.db", IndexSettings(workers=1), embed=ONNX) as ix:
        ix.add_source(docs_dir, name="docs")
        ix.index()
        yield ix


def cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_packaged_model_resolves_with_its_own_settings(embedder: OnnxEmbedder) -> None:
    assert embedder.dimensions == 384 and embedder.identity == "onnx:all-MiniLM-L6-v2"
    assert embedder.model.max_length == 256 and embedder.model.pooling == "mean"


def test_vectors_are_unit_length_and_rank_meaning(embedder: OnnxEmbedder) -> None:
    docs = embedder.embed_documents([
        "The client retries failed requests with exponential backoff.",
        "Idle connections are closed after the keep-alive expiry.",
    ])
    assert np.allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-5)
    query = embedder.embed_query("how long until a failed call is attempted again")
    assert query @ docs[0] > query @ docs[1] + 0.1


def test_padding_in_length_sorted_batches_does_not_change_vectors(embedder: OnnxEmbedder) -> None:
    texts = ["short", "a much longer sentence about connection pools " * 5, "medium text here"]
    together = embedder.embed_documents(texts)
    for text, vector in zip(texts, together):
        assert cos(embedder.embed_documents([text])[0], vector) > 0.9999


def test_truncation_at_the_model_max_length(embedder: OnnxEmbedder) -> None:
    long = "retries " * 2000
    ids = embedder.tokenizer.encode(long).ids
    assert len(ids) == 256
    assert embedder.embed_documents([long]).shape == (1, 384)


# A text whose words all differ, so every token position carries something of its own.
LONG = " ".join(f"{w}{i}" for i, w in enumerate(["pool", "socket", "retry", "cache", "parser", "queue"] * 60))


def test_chunk_tokens_reads_the_first_tokens_of_a_chunk_and_whole_queries(embedder: OnnxEmbedder) -> None:
    model = embedder.model
    short = OnnxEmbedder(model, chunk_tokens=128)
    assert short.identity == "onnx:all-MiniLM-L6-v2/128"
    encoding = embedder.tokenizer.encode(LONG)
    assert len(encoding.ids) == 256  # the text is longer than either limit
    # [CLS], 126 word pieces, [SEP]: the vector is that of the text cut after piece 126.
    prefix = LONG[: encoding.offsets[126][1]]
    assert len(short.document_tokenizer.encode(LONG).ids) == 128
    cut, = short.embed_documents([LONG])
    assert cos(cut, embedder.embed_documents([prefix])[0]) > 0.9999
    assert cos(cut, embedder.embed_documents([LONG])[0]) < 0.99  # the tail counted at 256
    # Queries keep the model's own limit.
    assert cos(short.embed_query(LONG), embedder.embed_query(LONG)) > 0.9999


def test_chunk_tokens_at_the_model_limit_changes_nothing_and_above_it_is_refused(embedder: OnnxEmbedder) -> None:
    same = OnnxEmbedder(embedder.model, chunk_tokens=256)
    assert same.identity == embedder.identity
    with pytest.raises(ConfigError, match=r"embed.chunk_tokens is 300 .* reads at most 256"):
        OnnxEmbedder(embedder.model, chunk_tokens=300)


def test_a_damaged_model_folder_is_named_with_the_file_at_fault(embedder: OnnxEmbedder, tmp_path: Path) -> None:
    """A model folder given by hand (`embed.model /path`) whose files do not load: the file
    and what is wrong, not onnxruntime's or tokenizers' traceback."""
    folder = tmp_path / "model"
    folder.mkdir()
    shutil.copy(embedder.model.tokenizer_path, folder / "tokenizer.json")
    (folder / "model.onnx").write_bytes(b"not an onnx file, a download cut short")
    from dataclasses import replace

    broken = replace(embedder.model, onnx_path=folder / "model.onnx", tokenizer_path=folder / "tokenizer.json")
    with pytest.raises(ConfigError, match=r"model\.onnx is not an ONNX model ONNX Runtime can load .*export it again"):
        OnnxEmbedder(broken)
    shutil.copy(embedder.model.onnx_path, folder / "model.onnx")
    (folder / "tokenizer.json").write_text("{}")
    with pytest.raises(ConfigError, match=r"tokenizer\.json is not a tokenizer file this model can use"):
        OnnxEmbedder(broken)


def test_changing_chunk_tokens_asks_for_a_re_embedding(semantic: Index, tmp_path: Path) -> None:
    db = semantic.db_path
    semantic.close()
    with Index(db, IndexSettings(workers=1), embed=EmbedSettings(provider="onnx", chunk_tokens=128)) as short:
        with pytest.raises(EmbeddingMismatchError, match="embed --force"):
            short.embed()
        assert short.embed(force=True) > 0
        assert short.status()["embed_model"] == "onnx:all-MiniLM-L6-v2/128"
        assert short.search("retries", mode="hybrid").mode == "hybrid"


def test_index_embeds_every_chunk_once_and_pins_the_model(semantic: Index) -> None:
    status = semantic.status()
    assert (status["embed_model"], status["embed_dim"]) == ("onnx:all-MiniLM-L6-v2", "384")
    assert semantic.store.pending_embeddings("onnx:all-MiniLM-L6-v2") == []
    assert semantic.embed() == 0  # nothing unchanged is embedded again


def test_only_changed_chunks_are_embedded_again(semantic: Index, docs_dir: Path) -> None:
    path = docs_dir / "guide/pooling.md"
    path.write_text(path.read_text().replace("Idle connections are closed", "Idle sockets are closed"))
    semantic.index(embed=False)
    assert semantic.embed() == 1


def test_default_mode_is_hybrid_with_an_explanation(semantic: Index) -> None:
    result = semantic.search("how long to wait before trying a request again", limit=3)
    assert result.mode == "hybrid" and result.note is None
    top = result.hits[0]
    assert top.path == "guide/retries.md"
    assert top.explain is not None and "semantic" in top.explain and "fused" in top.explain
    fused = [hit.score for hit in result.hits]
    assert fused == sorted(fused, reverse=True)


def test_semantic_finds_a_paraphrase_keyword_cannot(semantic: Index) -> None:
    query = "maximum simultaneous sockets to one server"
    assert semantic.search(query, mode="semantic").hits[0].title == "Pool size"
    keyword = semantic.search(query, mode="keyword").hits
    assert not keyword or keyword[0].title != "Pool size"


def test_filters_apply_before_the_vector_top_k(semantic: Index) -> None:
    hits = semantic.search("retries", mode="semantic", path="reference/**", limit=50).hits
    assert hits and all(h.path.startswith("reference/") for h in hits)


def test_a_different_model_is_refused_until_forced(semantic: Index) -> None:
    semantic.store.set_meta({"embed_model": "onnx:other-model", "embed_dim": "768"})
    with pytest.raises(EmbeddingMismatchError, match="mindex embed --force"):
        semantic.search("retries", mode="hybrid")
    with pytest.raises(EmbeddingMismatchError):
        semantic.embed()
    assert semantic.embed(force=True) > 0
    assert semantic.search("retries", mode="hybrid").mode == "hybrid"


def test_embedding_resumes_after_an_interruption(tmp_path: Path, docs_dir: Path, embedder: OnnxEmbedder) -> None:
    with Index(tmp_path / "r.db", IndexSettings(workers=1), embed=EmbedSettings(provider="none")) as ix:
        ix.add_source(docs_dir, name="docs")
        ix.index()
        total = len(ix.store.pending_embeddings(embedder.identity))

        def stop_after_two_batches(stage: str, done: int, todo: int) -> None:
            if done >= 8:
                raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):
            embed_pending(ix.store, embedder, stop_after_two_batches, batch=4)
        assert len(ix.store.pending_embeddings(embedder.identity)) == total - 8
        assert embed_pending(ix.store, embedder, batch=4) == total - 8


def test_without_a_model_search_falls_back_to_keyword_and_says_how_to_add_one(tmp_path: Path, docs_dir: Path) -> None:
    with Index(tmp_path / "n.db", embed=EmbedSettings(model=str(tmp_path / "no-such-model"))) as ix:
        ix.add_source(docs_dir, name="docs")
        ix.index()
        result = ix.search("retries")
        assert result.mode == "keyword" and result.note and "pip install" in result.note


def test_cli_embed_and_explain(tmp_path: Path, docs_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MINDEX_EMBED__PROVIDER", "onnx")
    runner = CliRunner()
    assert runner.invoke(cli, ["add", str(docs_dir)]).exit_code == 0
    assert runner.invoke(cli, ["index", "-q"]).exit_code == 0
    forced = runner.invoke(cli, ["embed", "--force", "--json", "-q"])
    assert json.loads(forced.stdout)["embedded"] > 5
    shown = runner.invoke(cli, ["search", "backoff delay", "--explain", "-n", "2"])
    assert "keyword #" in shown.output and "semantic #" in shown.output and "fused" in shown.output
    data = json.loads(runner.invoke(cli, ["search", "backoff delay", "--json"]).stdout)
    assert data["mode"] == "hybrid" and isinstance(data["results"][0]["explain"]["fused"], float)
    listed = json.loads(runner.invoke(cli, ["models", "list", "--json"]).stdout)
    assert listed["found"] and listed["onnx"].endswith("model.onnx")
    shutil.rmtree(tmp_path / ".mindex")


def test_weights_change_the_fusion(semantic: Index) -> None:
    query = "how long to wait before trying a request again"
    vector_only = [h.id for h in semantic.search(query, mode="semantic", limit=5).hits]
    weighted = semantic.search(query, limit=5, weights={"keyword": 0.0, "semantic": 1.0}).hits
    assert [h.id for h in weighted] == vector_only
    assert all("semantic" in (h.explain or {}) for h in weighted)


def test_multi_hop_adds_neighbours_of_the_top_results(semantic: Index) -> None:
    query = '"pool size"'
    plain = {h.id for h in semantic.search(query, mode="keyword", limit=50).hits}
    hopped = semantic.search(query, mode="keyword", limit=50, hops=1).hits
    added = [h for h in hopped if h.id not in plain]
    assert added, "multi-hop found no neighbour"
    seeds = {h.id for h in semantic.search(query, mode="keyword", limit=3).hits}
    assert all(h.explain and h.explain["hop"]["from"] in seeds for h in added)
    assert len({h.id for h in hopped}) == len(hopped)
    assert [h.score for h in hopped] == sorted((h.score for h in hopped), reverse=True)


def test_vector_matrix_follows_edits_by_another_process_incrementally(semantic: Index, docs_dir: Path, tmp_path: Path) -> None:
    vectors = semantic._vector_index(semantic.embedder())  # type: ignore[arg-type]
    before = len(vectors)
    path = docs_dir / "guide/retries.md"  # edit, then add a file: changed seqs and new ones
    path.write_text(path.read_text().replace("backoff", "back-off"))
    (docs_dir / "guide/new.md").write_text("# Timeouts\n\nRequests give up after thirty seconds.\n")
    with Index(semantic.db_path, IndexSettings(workers=1), embed=ONNX) as other:
        other.index()
    assert len(vectors) == before + 1
    stored = {seq: np.frombuffer(blob, dtype="<f2") for seq, _, blob in semantic.store.vector_rows(vectors.model)}
    assert sorted(stored) == sorted(vectors.seqs.tolist())
    for seq, row in zip(vectors.seqs, vectors.matrix):
        assert np.allclose(row, stored[int(seq)].astype(np.float32))
    assert semantic.search("when do requests give up", mode="semantic").hits[0].path == "guide/new.md"


def test_chunks_whose_text_has_vectors_are_searchable_after_indexing_without_embedding(
    semantic: Index, docs_dir: Path, tmp_path: Path
) -> None:
    assert semantic.search("pool", mode="semantic").hits  # the matrix is loaded now
    shutil.copytree(docs_dir, tmp_path / "mirror" / "docs")  # same relative paths: same hashes
    semantic.add_source(tmp_path / "mirror" / "docs", name="mirror")
    semantic.index(embed=False)
    assert semantic.search("pool", mode="semantic", source="mirror").hits


def test_index_reports_progress_lines_without_a_terminal_and_embedding_rate(tmp_path: Path, docs_dir: Path) -> None:
    import io

    from rich.console import Console

    from mindex.serve.progress import IndexProgress

    stream = io.StringIO()
    console = Console(file=stream, width=200)
    assert not console.is_terminal
    with Index(tmp_path / "p.db", IndexSettings(workers=1), embed=ONNX) as ix, \
            IndexProgress(console, first_line=0.0, every=0.0) as progress:
        ix.add_source(docs_dir, name="docs")
        report = ix.index(progress=progress.update)["docs"]
    lines = stream.getvalue().splitlines()
    assert any(line.startswith("docs: 7 files in") and "files/s" in line for line in lines)
    assert any(line.startswith(f"docs embedding: {report.embedded} chunks in") for line in lines)
    assert report.embedded > 0 and 0 < report.embed_seconds < report.seconds
    summary = CliRunner().invoke(cli, ["--db", str(tmp_path / "p.db"), "index"], env={"MINDEX_EMBED__PROVIDER": "onnx"})
    assert summary.exit_code == 0 and "embedded" in summary.output
    docs_dir.joinpath("guide/new.md").write_text("# New\n\nA fresh walrus page.\n")
    again = CliRunner().invoke(cli, ["--db", str(tmp_path / "p.db"), "index"], env={"MINDEX_EMBED__PROVIDER": "onnx"})
    assert "docs: embedded 1 chunk in" in again.output and "chunks/s)" in again.output


@pytest.mark.parametrize(("text", "skipped"), [
    ("import os\nimport sys\n", True), ("from a import b\n\n# why\n", True), ("use std::io;\n", True),
    ("const fs = require('fs');\n", True), ("/*\n * Licence\n */\n", True), ("#include <stdio.h>\n#define X 1\n", False),
    ("def f():\n    pass\n", False), ("import os\nprint(os.sep)\n", False),
])
def test_import_and_comment_only_code_is_not_worth_a_vector(text: str, skipped: bool) -> None:
    from mindex.ingest import trivial

    assert trivial(text) is skipped


def test_trivial_code_chunks_get_an_empty_vector_and_stay_out_of_semantic_search(tmp_path: Path) -> None:
    repo, docs = tmp_path / "repo", tmp_path / "docs"
    repo.mkdir()
    docs.mkdir()
    (repo / "imports.py").write_text("import os\nimport sys\nfrom pathlib import Path\n")
    (repo / "retry.py").write_text("def retry_with_backoff(call, attempts=3):\n    return call()\n")
    (docs / "list.md").write_text("# Steps\n\n* install\n* import the module\n")
    (repo / "STEPS.md").write_text("# Steps\n\n* install\n* import the module\n")  # prose in a code source
    with Index(tmp_path / "t.db", IndexSettings(workers=1), embed=ONNX) as ix:
        ix.add_source(repo, name="repo", kind="code")
        ix.add_source(docs, name="docs")
        ix.index()
        rows = dict(ix.store.conn.execute(
            "SELECT d.path, length(v.vector) FROM chunks c JOIN documents d ON d.id = c.document_id "
            "JOIN vectors v ON v.hash = c.hash").fetchall())
        assert rows["imports.py"] == 0 and rows["retry.py"] > 0 and rows["list.md"] > 0  # prose is never skipped
        assert rows["STEPS.md"] > 0  # nor is a code source's
        found = {h.path for h in ix.search("import os sys pathlib", mode="semantic", limit=10).hits}
        assert "imports.py" not in found and found
        assert "imports.py" in {h.path for h in ix.search("import os", mode="keyword").hits}
        assert ix.status()["vectors"] == 3
        assert ix.embed() == 0  # nothing pending: the empty vector counts as done


def test_hybrid_over_docs_fuses_by_rank_and_over_code_by_the_ranker(semantic: Index, tmp_path: Path) -> None:
    """`search.fusion = auto`: reciprocal rank fusion where most candidates are docs (the
    ranker was no better on prose), the learned ranker where they are code."""
    from mindex.config import SearchSettings

    query = "how long to wait before trying a request again"
    docs = semantic.search(query, limit=5)
    assert docs.fusion == "rrf"
    top = docs.hits[0].explain or {}
    expected = sum(1 / (60 + top[leg]["rank"]) for leg in ("keyword", "semantic") if leg in top)
    assert docs.hits[0].score == pytest.approx(expected, abs=1e-6)
    semantic.search_settings = SearchSettings(fusion="learned")
    assert semantic.search(query, limit=5).fusion == "learned"
    code = tmp_path / "code"
    code.mkdir()
    (code / "retry.py").write_text("def retry_after(delay):\n    \"\"\"Wait before trying a request again.\"\"\"\n"
                                   "    time.sleep(delay)\n\n\ndef backoff(attempt):\n    return 2 ** attempt\n")
    with Index(tmp_path / "c.db", IndexSettings(workers=1), embed=ONNX) as ix:
        ix.add_source(code, kind="code")
        ix.index()
        assert ix.search(query, limit=5).fusion == "learned"

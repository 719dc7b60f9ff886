"""A model's optimised graph kept beside the models (`mindex.embed.prepared`): later loads
open it instead of optimising again, with the same vectors; anything wrong with it falls back
to the model file."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mindex.embed.models import find_model
from mindex.embed.modelfiles import OnnxModel
from mindex.embed.onnx import OnnxEmbedder

TEXTS = [
    "how are chunks kept whole around code blocks",
    "def connect(url, timeout=5.0):\n    return Pool(url).get(timeout)",
    "Le pool de connexions recycle les connexions inactives. " * 30,
]


@pytest.fixture
def model(added_minilm: Path, tmp_path: Path) -> OnnxModel:
    """A copy of the added MiniLM in a models folder of this test's own."""
    found = find_model("all-MiniLM-L6-v2", added_minilm)
    assert found is not None
    folder = tmp_path / "models" / found.onnx_path.parent.name
    shutil.copytree(found.onnx_path.parent, folder)
    copied = find_model("all-MiniLM-L6-v2", tmp_path / "models")
    assert copied is not None and copied.onnx_path.parent == folder
    return copied


def _copies(models: Path) -> list[Path]:
    """The whole copies (half-made ones are hidden folders)."""
    folder = models / ".prepared"
    return sorted(p for p in folder.iterdir() if not p.name.startswith(".")) if folder.is_dir() else []


def _loaded_from(embedder: OnnxEmbedder) -> Path:
    return _loaded_from_session(embedder.session)


def _loaded_from_session(session: object) -> Path:
    return Path(session._model_path)  # type: ignore[attr-defined]  # ONNX Runtime's record of the file


def test_the_first_load_writes_the_copy_and_later_loads_open_it_with_the_same_vectors(model: OnnxModel) -> None:
    models = model.onnx_path.parent.parent
    unprepared = OnnxEmbedder(model)  # no folder given: nothing written
    plain, query = unprepared.embed_documents(TEXTS), unprepared.embed_batch(TEXTS[:1])
    # (int8 runs scale by their batch's values: compare batches made alike)
    lanes = unprepared._embed(TEXTS * 12, unprepared.document_tokenizer)
    assert _copies(models) == []
    first = OnnxEmbedder(model, prepared=models)
    assert _loaded_from(first) == model.onnx_path
    (copy,) = _copies(models)
    assert {p.name for p in copy.iterdir()} == {"model.onnx", "weights.bin", "prepared.json"}
    record = json.loads((copy / "prepared.json").read_text())
    assert record["source"] == str(model.onnx_path) and record["size"] == model.onnx_path.stat().st_size
    later = OnnxEmbedder(model, prepared=models)
    assert _loaded_from(later) == copy / "model.onnx"
    for embedder in (first, later):
        assert np.allclose(embedder.embed_documents(TEXTS), plain, atol=1e-5)
        assert np.allclose(embedder.embed_batch(TEXTS[:1]), query, atol=1e-5)
    # the lanes' session of a batch opens the same copy
    assert np.allclose(later._embed(TEXTS * 12, later.document_tokenizer), lanes, atol=1e-5)
    assert _loaded_from_session(later._lane_session) == copy / "model.onnx"
    assert not [p for p in (models / ".prepared").iterdir() if p.name.startswith(".")]  # no leftovers


@pytest.mark.parametrize("damage", ["truncated weights", "garbled graph", "unreadable record"])
def test_a_damaged_copy_is_made_again(model: OnnxModel, damage: str) -> None:
    models = model.onnx_path.parent.parent
    expected = OnnxEmbedder(model).embed_documents(TEXTS)
    OnnxEmbedder(model, prepared=models)
    (copy,) = _copies(models)
    if damage == "truncated weights":
        with open(copy / "weights.bin", "r+b") as handle:
            handle.truncate(1000)
    elif damage == "garbled graph":
        data = bytearray((copy / "model.onnx").read_bytes())
        data[: len(data) // 2] = b"\xff" * (len(data) // 2)
        (copy / "model.onnx").write_bytes(bytes(data))
    else:
        (copy / "prepared.json").write_text("{not json")
    again = OnnxEmbedder(model, prepared=models)
    assert np.allclose(again.embed_documents(TEXTS), expected, atol=1e-5)
    (remade,) = _copies(models)
    assert (remade / "weights.bin").stat().st_size > 1_000_000
    assert _loaded_from(OnnxEmbedder(model, prepared=models)) == remade / "model.onnx"


def test_a_replaced_model_file_gets_a_new_copy_and_a_deleted_one_loses_its_copy(model: OnnxModel,
                                                                                 tmp_path: Path) -> None:
    models = model.onnx_path.parent.parent
    OnnxEmbedder(model, prepared=models)
    (copy,) = _copies(models)
    before = json.loads((copy / "prepared.json").read_text())
    stat = model.onnx_path.stat()
    os.utime(model.onnx_path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))  # the model file replaced
    assert _loaded_from(OnnxEmbedder(model, prepared=models)) == model.onnx_path  # not the old file's copy
    (copy,) = _copies(models)
    assert json.loads((copy / "prepared.json").read_text())["mtime_ns"] == before["mtime_ns"] + 10**9
    other = tmp_path / "other"
    shutil.copytree(model.onnx_path.parent, other)
    second = OnnxModel("other", other / "model.onnx", other / "tokenizer.json")
    OnnxEmbedder(second, prepared=models)
    assert len(_copies(models)) == 2
    shutil.rmtree(model.onnx_path.parent)  # a model folder deleted by hand
    killed, working = models / ".prepared" / ".making-killed", models / ".prepared" / ".making-now"
    for half_made in (killed, working):  # a process killed while making a copy, one making one now
        half_made.mkdir()
        (half_made / "weights.bin").write_bytes(b"\0" * 1000)
    os.utime(killed, (1, 1))
    stat = second.onnx_path.stat()
    os.utime(second.onnx_path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    OnnxEmbedder(second, prepared=models)  # the next copy made removes the orphan and the dead one's work
    (left,) = _copies(models)
    assert json.loads((left / "prepared.json").read_text())["source"] == str(second.onnx_path)
    assert not killed.exists() and working.exists()


def test_installs_with_different_onnx_runtimes_keep_a_copy_each(model: OnnxModel,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Two installs sharing the models folder do not make each other's copy again at every load."""
    import onnxruntime

    models = model.onnx_path.parent.parent
    OnnxEmbedder(model, prepared=models)
    (ours,) = _copies(models)
    real = onnxruntime.__version__
    monkeypatch.setattr(onnxruntime, "__version__", real + ".other")
    OnnxEmbedder(model, prepared=models)
    assert len(_copies(models)) == 2
    theirs = next(p for p in _copies(models) if p != ours)
    assert _loaded_from(OnnxEmbedder(model, prepared=models)) == theirs / "model.onnx"
    monkeypatch.setattr(onnxruntime, "__version__", real)
    made = (ours / "weights.bin").stat().st_mtime_ns
    assert _loaded_from(OnnxEmbedder(model, prepared=models)) == ours / "model.onnx"
    assert (ours / "weights.bin").stat().st_mtime_ns == made and len(_copies(models)) == 2


def test_a_models_folder_it_cannot_write_in_loads_the_model_file(model: OnnxModel) -> None:
    models = model.onnx_path.parent.parent
    expected = OnnxEmbedder(model).embed_documents(TEXTS)
    (models / ".prepared").write_text("a file where the copies' folder would be")  # mkdir fails, even as root
    loaded = OnnxEmbedder(model, prepared=models)
    assert _loaded_from(loaded) == model.onnx_path
    assert np.allclose(loaded.embed_documents(TEXTS), expected, atol=1e-5)
    assert (models / ".prepared").read_text().startswith("a file")


def test_two_processes_loading_at_once_leave_one_whole_copy(model: OnnxModel) -> None:
    models = model.onnx_path.parent.parent
    script = (
        "import sys; from pathlib import Path\n"
        "from mindex.embed.modelfiles import OnnxModel\nfrom mindex.embed.onnx import OnnxEmbedder\n"
        "m = OnnxModel('m', Path(sys.argv[1]), Path(sys.argv[2]))\n"
        "e = OnnxEmbedder(m, prepared=Path(sys.argv[3]))\n"
        "print(float(e.embed_batch(['connection pool'])[0][:8].sum()))\n"
    )
    args = [sys.executable, "-c", script, str(model.onnx_path), str(model.tokenizer_path), str(models)]
    running = [subprocess.Popen(args, stdout=subprocess.PIPE, text=True) for _ in range(3)]
    outputs = [p.communicate(timeout=120)[0] for p in running]
    assert all(p.returncode == 0 for p in running)
    assert len({round(float(out), 5) for out in outputs}) == 1
    (copy,) = _copies(models)
    assert [p.name for p in (models / ".prepared").iterdir()] == [copy.name]
    assert _loaded_from(OnnxEmbedder(model, prepared=models)) == copy / "model.onnx"


def test_the_local_reranker_opens_its_copy_too(cross_encoder: Path, tmp_path: Path) -> None:
    from mindex.rerank.local import LocalReranker

    models = tmp_path / "rerankers"
    shutil.copytree(cross_encoder, models)
    first = LocalReranker("tiny-cross-encoder", models)
    (copy,) = _copies(models)
    assert _loaded_from_session(first.session).name == "model.onnx" and copy not in _loaded_from_session(first.session).parents
    again = LocalReranker("tiny-cross-encoder", models)
    assert _loaded_from_session(again.session) == copy / "model.onnx"
    pairs = ["connection pools recycle idle connections", "a recipe for bread"]
    assert np.allclose(again.score("connection pool", pairs), first.score("connection pool", pairs), atol=1e-4)

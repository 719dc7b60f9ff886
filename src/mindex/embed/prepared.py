"""ONNX Runtime sessions that open in a fifth of the time: a model's graph as ONNX Runtime
optimises it, kept once in the models folder with its weights in a file of their own.

Making a session runs ONNX Runtime's graph optimisations every time: for MiniLM as
`models add` converts it that is 0.12-0.16 s of CPU, for the packaged int8 file 0.26-0.31 s
(its int8 weights are turned into float ones at each load), most of a first search's wait
in a fresh process. The first load of a model writes the optimised graph (optimisation level
*extended*, which holds nothing specific to this processor) to
`<models folder>/.prepared/<key>/`, its weights in `weights.bin`; later loads open that with
the optimisations off, and ONNX Runtime maps the weights file instead of reading and
converting it (0.02-0.08 s, and less resident memory). The model's outputs are the same
(compared in tests/test_prepared_model.py).

The key is the model file's path and ONNX Runtime's version (two installs with different
runtimes keep a copy each); `prepared.json` records the file's size and modification time
too, so a replaced model makes a new copy. A copy is written to a folder of its own and
renamed into place, so two processes loading at once never see half of one. Anything that
goes wrong (a read-only or full disk, a damaged copy) falls back to loading the model file
as before: a slower load, never a failed one.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

WEIGHTS = "weights.bin"
RECORD = "prepared.json"
STALE_SECONDS = 3600.0  # a half-made copy this old was left by a process that died making it


def cpu_options(threads: int) -> Callable[[], Any]:
    """What makes the `SessionOptions` of a model run on `threads` threads of the CPU, with
    no thread spinning: a spinning thread burns the other core while Python prepares the next
    batch (an embedder's or a reranker's)."""
    import onnxruntime as ort

    def options() -> Any:
        made = ort.SessionOptions()
        made.intra_op_num_threads = threads
        made.inter_op_num_threads = 1
        made.add_session_config_entry("session.intra_op.allow_spinning", "0")
        made.add_session_config_entry("session.inter_op.allow_spinning", "0")
        return made
    return options


def open_session(onnx_path: Path, options: Callable[[], Any], folder: Path | None) -> Any:
    """An `onnxruntime.InferenceSession` on the CPU for `onnx_path`, from its prepared copy
    under `folder` when there is one (made now when there is not). `options` makes a fresh
    `SessionOptions` (threads and such); `folder` None loads the file as it is.

    Raises:
        Exception: ONNX Runtime's own, when the model file itself cannot be loaded.
    """
    import onnxruntime as ort

    if folder is None:
        return _session(onnx_path, options())
    try:
        source = onnx_path.stat()
    except OSError:
        return _session(onnx_path, options())
    # One copy a model file and ONNX Runtime version: two installs of mindex with different
    # runtimes share the models folder without making each other's copy again at every load.
    resolved = str(onnx_path.resolve())
    key = hashlib.sha256(f"{resolved}\0{ort.__version__}".encode()).hexdigest()[:20]
    place = folder / ".prepared" / key
    wanted = {"source": resolved, "size": source.st_size, "mtime_ns": source.st_mtime_ns,
              "onnxruntime": ort.__version__}
    found = _read_record(place)
    if found is not None and all(found.get(k) == v for k, v in wanted.items()):
        with contextlib.suppress(OSError):
            weights = (place / WEIGHTS).stat()
            if weights.st_size == found.get("weights_size") and weights.st_mtime_ns == found.get("weights_mtime_ns"):
                loaded = options()
                loaded.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
                with contextlib.suppress(Exception):  # a damaged copy: made again below
                    return _session(place / "model.onnx", loaded)
    return _prepare(onnx_path, options, place, wanted)


def _session(onnx_path: Path, options: Any) -> Any:
    """A session on the CPU for an ONNX file, as the options say."""
    import onnxruntime as ort

    return ort.InferenceSession(str(onnx_path), options, providers=["CPUExecutionProvider"])


def _read_record(place: Path) -> dict[str, Any] | None:
    try:
        found = json.loads((place / RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) else None


def _prepare(onnx_path: Path, options: Callable[[], Any], place: Path, wanted: dict[str, Any]) -> Any:
    """Load the model with the optimisations on, writing the optimised graph to a new folder
    that then replaces `place`; the session it returns serves this process either way."""
    import onnxruntime as ort

    try:
        place.parent.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=".making-", dir=place.parent))
    except OSError:  # a read-only models folder: load as before
        return _session(onnx_path, options())
    try:
        making = options()
        making.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
        making.optimized_model_filepath = str(work / "model.onnx")
        making.add_session_config_entry("session.optimized_model_external_initializers_file_name", WEIGHTS)
        making.add_session_config_entry("session.optimized_model_external_initializers_min_size_in_bytes", "1024")
        try:
            session = _session(onnx_path, making)
        except Exception:  # a full disk while writing the copy, or a model this cannot save
            return _session(onnx_path, options())
        with contextlib.suppress(OSError):
            weights = (work / WEIGHTS).stat()
            record = {**wanted, "weights_size": weights.st_size, "weights_mtime_ns": weights.st_mtime_ns}
            (work / RECORD).write_text(json.dumps(record, indent=2), encoding="utf-8")
            _swap(work, place)
            _forget_orphans(place.parent)
        return session
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _forget_orphans(prepared: Path) -> None:
    """Remove the copies of model files that are gone (a model folder deleted by hand), and
    half-made copies a killed process left (older than `STALE_SECONDS`: one being made now
    by another process is younger)."""
    for record in prepared.glob(f"*/{RECORD}"):
        found = _read_record(record.parent)
        if found is not None and isinstance(found.get("source"), str) and not Path(found["source"]).exists():
            shutil.rmtree(record.parent, ignore_errors=True)
    now = time.time()
    for left in (*prepared.glob(".making-*"), *prepared.glob(".old-*")):
        with contextlib.suppress(OSError):
            if now - left.stat().st_mtime > STALE_SECONDS:
                shutil.rmtree(left, ignore_errors=True)


def _swap(work: Path, place: Path) -> None:
    """Put the folder `work` where `place` is; an older copy there is moved aside and removed
    (a process that mapped its weights keeps them: the file lives on until it lets go)."""
    trash = Path(tempfile.mkdtemp(prefix=".old-", dir=place.parent))
    try:
        with contextlib.suppress(FileNotFoundError):
            os.replace(place, trash / "copy")
        with contextlib.suppress(OSError):  # another process put its copy there first
            os.rename(work, place)
    finally:
        shutil.rmtree(trash, ignore_errors=True)

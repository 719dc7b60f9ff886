"""Embedding throughput (our pipeline vs the raw runtime) and hybrid query latency.

    python benchmarks/bench_embed.py [--corpus DIR] [--sample 512]

Needs the packaged model (see the README) and, by default, `postgresql-doc-15`.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from mindex import Index, IndexSettings
from mindex.config import EmbedSettings
from mindex.embed.models import find_model
from mindex.embed.onnx import OnnxEmbedder, pad_batch
from mindex.search import VectorIndex

DEFAULT_CORPUS = Path("/usr/share/doc/postgresql-doc-15/html")


def raw_runtime(embedder: OnnxEmbedder, texts: list[str]) -> float:
    """Chunks/s of the bare tokenizer + ONNX session, batches of 16 in input order."""
    started = time.perf_counter()
    for start in range(0, len(texts), 16):
        ids, mask = pad_batch(embedder.tokenizer.encode_batch(texts[start : start + 16]))
        hidden = embedder.session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})[0]
        (hidden * mask[:, :, None]).sum(axis=1)
    return len(texts) / (time.perf_counter() - started)


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--sample", type=int, default=512)
    args = parser.parse_args()
    model = find_model()
    if model is None:
        raise SystemExit("no packaged model: see the README's set-up command")
    work = Path(tempfile.mkdtemp(prefix="mindex-bench-"))
    rows = []
    try:
        with Index(work / "i.db", IndexSettings(), embed=EmbedSettings()) as index:
            index.add_source(args.corpus, name="corpus")
            index.index(embed=False)
            conn = index.store.conn  # type: ignore[attr-defined]
            texts = [f"{c}\n{t}" for c, t in conn.execute("SELECT context, text FROM chunks")]
            sample = random.Random(3).sample(texts, min(args.sample, len(texts)))
            embedder = index.embedder()
            assert isinstance(embedder, OnnxEmbedder)
            raw = raw_runtime(embedder, sample)
            started = time.perf_counter()
            embedder.embed_documents(sample)
            ours = len(sample) / (time.perf_counter() - started)
            rows.append(("sample embedding, raw runtime (input order)", f"{raw:.1f} chunks/s"))
            rows.append(("sample embedding, mindex (length-sorted)", f"{ours:.1f} chunks/s ({ours / raw:.0%} of raw)"))
            started = time.perf_counter()
            count = index.embed()
            full = time.perf_counter() - started
            rows.append((f"full embedding pass, {count} chunks", f"{count / full:.1f} chunks/s, {full / 60:.1f} min"))
            queries = [t.split("\n", 1)[0].split(" › ")[-1] for t in random.Random(5).sample(texts, 100)]
            for mode in ("keyword", "semantic", "hybrid"):
                times = []
                index.search("warm up", mode=mode)
                for query in queries:
                    started = time.perf_counter()
                    index.search(query, mode=mode)
                    times.append((time.perf_counter() - started) * 1000)
                rows.append((f"{mode} query p50 / p95 ({len(texts)} chunks)", f"{pct(times, 50):.1f} / {pct(times, 95):.1f} ms"))
            vectors = VectorIndex(index.store, embedder.identity)
            synthetic = np.random.default_rng(0).standard_normal((100_000, 384)).astype(np.float32)
            vectors.matrix = synthetic / np.linalg.norm(synthetic, axis=1, keepdims=True)
            vectors.seqs = np.arange(100_000, dtype=np.int64)
            vectors._version = index.store.data_version()
            times = []
            for query in queries:
                q = embedder.embed_query(query)
                started = time.perf_counter()
                vectors.search(q, 50)
                times.append((time.perf_counter() - started) * 1000)
            rows.append(("vector leg p50 / p95, 100k × 384 matrix", f"{pct(times, 50):.1f} / {pct(times, 95):.1f} ms"))
            rows.append(("vector matrix memory, 100k × 384 float32", f"{vectors.matrix.nbytes / 1e6:.0f} MB"))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"model: {model.model_id} int8 ONNX ({model.onnx_path.parent.name}), max {model.max_length} tokens, batch 16")
    print("| measure | value |\n| --- | --- |")
    for name, value in rows:
        print(f"| {name} | {value} |")


if __name__ == "__main__":
    main()

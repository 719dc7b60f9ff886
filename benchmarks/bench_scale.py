"""Keyword indexing and search from ten thousand to a million chunks (issue 35 item 5).

The tree is the standard library's copy of bench_code.py (2,244 files, 36 MB, about 78,000
chunks), taken whole or in part and copied K times, each copy's files made distinct by a
first line naming the copy (`# copy 3 of 13`): the real shape of code, at any size. Each size
is a fresh index made by `mindex index` as a process (keyword, symbols, references; no
embedding), timed by the kernel's rusage (its workers included). Then, in process, keyword
search over 100 queries (words and identifiers drawn from the tree with a fixed seed; each
run once after one warm-up query): p50 and p95 of wall time.

    python benchmarks/bench_scale.py [--copies 0.125 1 4 13]

A fraction takes that share of the files (0.125: an eighth, about 10,000 chunks).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

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


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--copies", type=float, nargs="+", default=[0.125, 1, 4, 13])
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    from bench_code import copy_stdlib

    stdlib = copy_stdlib(HERE / ".cache" / "stdlib")
    asked = queries(stdlib)
    env = {**os.environ, "MINDEX_BACKGROUND": "0", "MINDEX_EMBED__PROVIDER": "none"}
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    print("\n| copies | chunks | text | first index: wall | CPU | CPU a chunk | index size | ÷ text | "
          "keyword p50 / p95 |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for copies in args.copies:
        shutil.rmtree(WORK, ignore_errors=True)
        tree, db = WORK / "tree", WORK / "index.db"
        size = make_tree(stdlib, copies, tree)
        run_env = {**env, "MINDEX_DB": str(db)}
        subprocess.run([sys.executable, "-m", "mindex", "add", str(tree), "--kind", "code"], env=run_env,
                       check=True, capture_output=True)
        started = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "mindex", "index", "-q"], env=run_env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        assert os.waitstatus_to_exitcode(status) == 0
        cpu = usage.ru_utime + usage.ru_stime

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
        on_disk = sum(p.stat().st_size for p in WORK.glob("index.db*"))
        print(f"| {copies:g} | {chunks:,} | {size / 1e6:.0f} MB | {wall:.0f} s | {cpu:.0f} s | "
              f"{cpu / chunks * 1000:.2f} ms | {on_disk / 1e6:.0f} MB | {on_disk / size:.2f}× | "
              f"{pct(took, 50):.1f} / {pct(took, 95):.1f} ms |", flush=True)
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()

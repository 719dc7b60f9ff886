"""CLI calls that need the model, cold and warm (issue 35, target 1).

A project of mindex's own docs (`docs/`, `README.md`), indexed and embedded with the default
model, with 40 memory entries. Each command runs as a whole process, interleaved:

- `alone`: `MINDEX_BACKGROUND=0`, the command in a process of its own (as before the
  background process existed);
- `warm`: the background process is running and answers (it has run the command once
  before: the steady state of a session's hooks and scripts);
- `cold`: no background process running (each run first stops it): the command runs in its
  own process, then starts one.

Wall time of the command, and CPU time of its process and, for `warm`, of the background
process for that command (read from /proc before and after). Medians of --repeat runs.
`--before PATH` adds the same commands run from another checkout's `src` (PYTHONPATH), e.g.
a worktree of the commit before the background process.

    python benchmarks/bench_warm_cli.py [--repeat 9] [--before /tmp/wt-old/src]
    python benchmarks/bench_warm_cli.py --grep [--repeat 5]
    python benchmarks/bench_warm_cli.py --grep --in-process [--before /tmp/wt-old/src] [--ignore-case]

    python benchmarks/bench_warm_cli.py --grep --share 0.625 [--in-process]

`--grep` instead runs bench_speed.py's 20 grep patterns over a keyword-only index of the
standard library (bench_code.py's copy; `--share F`: every file whose place in path order
falls in the first F of each run of 8, 0.625 making a tree the size of Django's, which the
issue's target names and which is kept for independent checks) as whole `mindex grep` processes, alone and warm
(CPU: the process's and the background process's for it), beside whole `rg` processes.
With `--in-process`, each pattern runs instead in a long-lived process that holds the index
open (the MCP server's and the background process's case: its CPU for the call, after one
call of the same pattern), for this checkout and for `--before`'s, interleaved with `rg`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
WORK = HERE / ".work" / "warmcli"
MINDEX = shutil.which("mindex", path=os.path.dirname(sys.executable)) or "mindex"  # the command a user types

COMMANDS = {
    "memory save": ["memory", "save", "Benchmarks run on an idle machine, interleaved", "--type", "decision"],
    "memory search": ["memory", "search", "how are benchmarks run"],
    "search (hybrid)": ["search", "configure the embedding model"],
    "hook session-start": ["hook", "session-start"],
}
OLD_SCRIPT = "import sys; from mindex.serve.cli import main; sys.argv[0] = 'mindex'; main()"
PAYLOAD = '{"session_id": "bench", "source": "startup", "hook_event_name": "SessionStart"}'


def clock_ticks(pid: int) -> float:
    """CPU seconds a process has used (user + system)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run(args: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, int]:
    """(wall s, CPU s, exit code) of one `mindex` process (for another checkout's `src`, what
    the console script did before it had a front door)."""
    command = [sys.executable, "-c", OLD_SCRIPT, *args] if "PYTHONPATH" in env else [MINDEX, *args]
    started = time.perf_counter()
    proc = subprocess.Popen(command, cwd=cwd, env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert proc.stdin is not None
    proc.stdin.write(PAYLOAD.encode() if args[0] == "hook" else b"")
    proc.stdin.close()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime, proc.returncode


def background_pid(runtime: Path) -> int | None:
    for lock in runtime.rglob("*.lock"):
        text = lock.read_text().strip()
        if text.isdigit() and Path(f"/proc/{text}").exists():
            return int(text)
    return None


def stop(runtime: Path) -> None:
    pid = background_pid(runtime)
    if pid is not None:
        os.kill(pid, signal.SIGTERM)
        while Path(f"/proc/{pid}").exists() and Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z":
            time.sleep(0.02)
        time.sleep(0.05)


def ready(runtime: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for path in runtime.rglob("*.sock"):
            probe = socket.socket(socket.AF_UNIX)
            try:
                probe.connect(str(path))
                probe.close()
                return
            except OSError:
                probe.close()
        time.sleep(0.05)
    raise SystemExit("no background process started")


def project(env: dict[str, str]) -> Path:
    """mindex's docs, indexed and embedded, and 40 memory entries (made once)."""
    target = WORK / "project"
    if (target / ".mindex" / "index.db").exists():
        return target
    shutil.rmtree(target, ignore_errors=True)
    (target / "docs").mkdir(parents=True)
    (target / ".mindex").mkdir()  # the project root, whatever folder above holds a .mindex or .git
    shutil.copytree(ROOT / "docs", target / "docs" / "docs", ignore=shutil.ignore_patterns("*.png"))
    shutil.copy(ROOT / "README.md", target / "docs" / "README.md")
    alone = {**env, "MINDEX_BACKGROUND": "0"}
    for args in (["add", "docs"], ["index", "-q"]):
        subprocess.run([sys.executable, "-m", "mindex", *args], cwd=target, env=alone, check=True)
    for n in range(40):
        subprocess.run([sys.executable, "-m", "mindex", "memory", "save", f"Entry {n}: decided to keep benchmark "
                        f"tables in benchmarks/README.md with their command ({n})", "--type", "decision"],
                       cwd=target, env=alone, check=True, capture_output=True)
    return target


IN_PROCESS = """
import json, sys, time
from mindex.config import IndexSettings
from mindex.index import Index
ix = Index(sys.argv[1], IndexSettings())
for line in sys.stdin:
    pattern, ignore_case = json.loads(line)
    started = time.process_time()
    found = ix.grep(pattern, limit=100_000, ignore_case=ignore_case)
    count = len(found.matches)  # made, each with its chunk and definition, as the MCP tool sends them
    print(json.dumps([time.process_time() - started, count]), flush=True)
"""


def grep_in_process(db: Path, tree: Path, rg: str, env: dict[str, str], repeat: int, before: Path | None,
                    ignore_case: bool = False) -> None:
    """The 20 patterns in long-lived processes holding the index, beside whole rg processes."""
    from bench_speed import GREP_PATTERNS

    ways = {"now": env, **({"before": {**env, "PYTHONPATH": str(before)}} if before else {})}
    workers = {way: subprocess.Popen([sys.executable, "-c", IN_PROCESS, str(db)], env=way_env, text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE) for way, way_env in ways.items()}

    def ask(way: str, pattern: str) -> tuple[float, int]:
        worker = workers[way]
        assert worker.stdin and worker.stdout
        worker.stdin.write(json.dumps([pattern, ignore_case]) + "\n")
        worker.stdin.flush()
        cpu, count = json.loads(worker.stdout.readline())
        return float(cpu), int(count)

    for pattern in GREP_PATTERNS:  # every text inflated and kept, every pattern compiled once
        for way in workers:
            ask(way, pattern)
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    print("\n| grep pattern | lines | " + " | ".join(f"in process ({way}): CPU" for way in workers)
          + " | rg process: CPU | now ÷ rg |")
    print("| --- | ---: | " + " | ".join("---:" for _ in workers) + " | ---: | ---: |")
    ratios = []
    for pattern in GREP_PATTERNS:
        rows: dict[str, list[float]] = {way: [] for way in [*workers, "rg"]}
        lines = {way: ask(way, pattern)[1] for way in workers}
        assert len(set(lines.values())) == 1, (pattern, lines)
        for _ in range(repeat):
            for way in workers:
                rows[way].append(ask(way, pattern)[0])
            proc = subprocess.Popen([rg, "--no-config", "-n", "--no-heading", *(["-i"] if ignore_case else []),
                                     "-e", pattern, "."], cwd=tree, stdout=subprocess.DEVNULL)
            _, _, usage = os.wait4(proc.pid, 0)
            rows["rg"].append(usage.ru_utime + usage.ru_stime)
        med = {way: statistics.median(got) for way, got in rows.items()}
        ratios.append(med["now"] / max(med["rg"], 1e-3))
        print(f"| `{pattern}` | {lines['now']:,} | " + " | ".join(f"{med[way] * 1000:.0f} ms" for way in workers)
              + f" | {med['rg'] * 1000:.0f} ms | {ratios[-1]:.2f}× |")
    for worker in workers.values():
        assert worker.stdin
        worker.stdin.close()
        worker.wait()
    print(f"\nnow ÷ rg, CPU: median {statistics.median(ratios):.2f}×, best {min(ratios):.2f}×, "
          f"worst {max(ratios):.2f}×; at or under rg on {sum(r <= 1 for r in ratios)} of {len(ratios)} patterns.")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


def share_of(tree: Path, share: float) -> Path:
    """A copy of `tree` with `share` of its files: in path order, the first `share` x 8 of
    every 8 (made once, kept beside the index)."""
    target = WORK / f"tree-{share:g}"
    if not target.exists():
        files = sorted(p for p in tree.rglob("*") if p.is_file())
        keep = round(share * 8)
        for n, path in enumerate(files):
            if n % 8 < keep:
                out = target / path.relative_to(tree)
                out.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, out)
    return target


def grep(runtime: Path, env: dict[str, str], repeat: int, in_process: bool = False,
         before: Path | None = None, ignore_case: bool = False, share: float = 1.0) -> None:
    """The 20 grep patterns: whole processes alone and warm, beside rg."""
    sys.path.insert(0, str(HERE))
    from bench_code import copy_stdlib, rg_binary
    from bench_speed import GREP_PATTERNS

    tree = copy_stdlib(HERE / ".cache" / "stdlib")
    db = WORK / "stdlib.db"
    if share < 1:
        tree, db = share_of(tree, share), WORK / f"stdlib-{share:g}.db"
    size = sum(p.stat().st_size for p in tree.rglob("*.py") if p.is_file())
    print(f"tree {tree.name}: {size / 1e6:.1f} MB of .py files")
    env = {**env, "MINDEX_EMBED__PROVIDER": "none", "MINDEX_DB": str(db)}
    if not db.exists():
        alone = {**env, "MINDEX_BACKGROUND": "0"}
        subprocess.run([MINDEX, "add", str(tree), "--kind", "code"], env=alone, check=True, capture_output=True)
        subprocess.run([MINDEX, "index", "-q"], env=alone, check=True)
        subprocess.run([MINDEX, "grep", "zzz_build_the_trigrams"], env=alone, capture_output=True)
    rg = rg_binary()
    if in_process:
        grep_in_process(db, tree, rg, env, repeat, before, ignore_case)
        return
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    print("\n| grep pattern | alone: CPU | warm: CPU (process + background) | warm: wall | rg: CPU | rg: wall | "
          "warm ÷ rg, CPU |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    ratios, totals = [], []
    for pattern in GREP_PATTERNS:
        ours = ["grep", pattern, "-n", "100000"]
        if background_pid(runtime) is None:
            run(ours, env, tree)
        ready(runtime)
        run(ours, env, tree)
        rows: dict[str, list[tuple[float, float]]] = {"alone": [], "warm": [], "rg": []}
        for _ in range(repeat):
            wall, cpu, _ = run(ours, {**env, "MINDEX_BACKGROUND": "0"}, tree)
            rows["alone"].append((wall, cpu))
            pid = background_pid(runtime)
            assert pid is not None
            before = clock_ticks(pid)
            wall, cpu, _ = run(ours, env, tree)
            rows["warm"].append((wall, cpu + clock_ticks(pid) - before))
            started = time.perf_counter()
            proc = subprocess.Popen([rg, "--no-config", "-n", "--no-heading", "-e", pattern, "."], cwd=tree,
                                    stdout=subprocess.DEVNULL)
            _, _, usage = os.wait4(proc.pid, 0)
            rows["rg"].append((time.perf_counter() - started, usage.ru_utime + usage.ru_stime))
        med = {way: (statistics.median(r[0] for r in got), statistics.median(r[1] for r in got))
               for way, got in rows.items()}
        ratio = med["warm"][1] / max(med["rg"][1], 1e-3)
        ratios.append(ratio)
        totals.append(med["warm"][1])
        print(f"| `{pattern}` | {med['alone'][1]:.3f} s | {med['warm'][1]:.3f} s | {med['warm'][0]:.3f} s | "
              f"{med['rg'][1]:.3f} s | {med['rg'][0]:.3f} s | {ratio:.1f}× |")
    stop(runtime)
    print(f"\nwarm ÷ rg, CPU: median {statistics.median(ratios):.1f}×, best {min(ratios):.1f}×, worst {max(ratios):.1f}×; "
          f"warm CPU ≤ 0.12 s on {sum(t <= 0.12 for t in totals)} of {len(totals)} patterns.")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--before", type=Path, help="another checkout's src folder, run with PYTHONPATH")
    parser.add_argument("--grep", action="store_true", help="the grep patterns beside rg instead")
    parser.add_argument("--in-process", action="store_true", help="with --grep: in long-lived processes")
    parser.add_argument("--ignore-case", action="store_true", help="with --grep --in-process: every pattern with -i")
    parser.add_argument("--share", type=float, default=1.0, help="with --grep: this share of the tree's files")
    args = parser.parse_args()
    # A user's `pip install` writes every module's bytecode; an edited editable install run
    # with PYTHONDONTWRITEBYTECODE set (as on this machine) would compile them at every start.
    import compileall

    import mindex

    for folder in (Path(mindex.__file__).parent, *([args.before / "mindex"] if args.before else [])):
        compileall.compile_dir(folder, quiet=1)
    runtime = WORK / "run"
    shutil.rmtree(runtime, ignore_errors=True)
    runtime.mkdir(parents=True, mode=0o700)
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime), "MINDEX_EMBED__PROVIDER": "onnx"}
    env.pop("MINDEX_BACKGROUND", None)
    if args.grep:
        grep(runtime, env, args.repeat, args.in_process, args.before, args.ignore_case, args.share)
        return
    cwd = project(env)
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    ways = {"alone": {**env, "MINDEX_BACKGROUND": "0"}, "warm": env, "cold": env}
    if args.before:
        ways = {"before": {**env, "PYTHONPATH": str(args.before), "MINDEX_BACKGROUND": "0"}, **ways}
    results: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
    for name, command in COMMANDS.items():
        for n in range(args.repeat + 1):
            for way, way_env in ways.items():
                if way == "cold":
                    stop(runtime)
                elif way == "warm":
                    if background_pid(runtime) is None:
                        run(command, way_env, cwd)
                    ready(runtime)
                    run(command, way_env, cwd)  # the process's first run of it imports its modules
                pid = background_pid(runtime) if way == "warm" else None
                served_before = clock_ticks(pid) if pid else 0.0
                wall, cpu, code = run(command, way_env, cwd)
                served = clock_ticks(pid) - served_before if pid else 0.0
                assert code == 0, (name, way, code)
                if n:  # the first round warms the page cache
                    results.setdefault((name, way), []).append((wall, cpu, served))
    stop(runtime)
    print(f"load average after: {os.getloadavg()[0]:.2f}\n")
    print("| command | " + " | ".join(ways) + " | warm: the background process's CPU |")
    print("| --- | " + " | ".join("---:" for _ in ways) + " | ---: |")
    for name in COMMANDS:
        cells = []
        for way in ways:
            rows = results[(name, way)]
            wall = statistics.median(r[0] for r in rows)
            cpu = statistics.median(r[1] for r in rows)
            cells.append(f"{wall * 1000:.0f} ms ({cpu * 1000:.0f} ms CPU)")
        served = statistics.median(r[2] for r in results[(name, "warm")])
        print(f"| `{name}` | " + " | ".join(cells) + f" | {served * 1000:.0f} ms |")


if __name__ == "__main__":
    main()

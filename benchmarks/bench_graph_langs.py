"""How the code graph resolves the calls of real projects in the languages whose graph has
no checker beside it in `bench_graph.py` (Scala, Zig, Solidity, Objective-C, C++, C#, Perl,
...): each call reference of the project's language, resolved as `graph callers` would, put
in one band by its best target's confidence. Nothing here is judged right or wrong; the bands
say how many calls the graph places surely (1.0, 0.95, 0.9: the enclosing class, an import,
a typed receiver, a base), how many it guesses by name (0.6 and under), how many it says are
outside the index and how many it finds nothing for. Run it beside an earlier checkout to see
what a change moved:

    python benchmarks/bench_graph_langs.py --repo fmt=/tmp/fmt --repo mediatr=/tmp/mediatr/src \
        [--before /tmp/wt-old/src]

Each repository is indexed (keyword only) into a temporary folder, by this checkout and, with
`--before`, by the other one (its own parser), so both sides read the files as they would.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

BANDS = ("sure (≥ 0.9)", "guessed (< 0.9)", "outside the index", "not found")


def bands(root: Path) -> dict[str, object]:
    """The calls of `root`'s main language, counted by band."""
    from mindex import Index, IndexSettings
    from mindex.config import EmbedSettings

    with tempfile.TemporaryDirectory() as tmp, \
            Index(Path(tmp) / "index.db", IndexSettings(), embed=EmbedSettings(provider="none")) as index:
        index.add_source(root, name="repo", kind="code")
        index.index()
        graph = index.graph()
        languages = collections.Counter(lang for doc_id, (_, _, lang) in graph.files.items()  # of the files with calls
                                        if lang and graph.refs(doc_id, "call"))
        language = languages.most_common(1)[0][0]
        counted: collections.Counter[str] = collections.Counter()
        for doc_id, (_, _, lang) in graph.files.items():
            if lang != language:
                continue
            for ref in graph.refs(doc_id, "call"):
                found = graph.resolve(ref)
                best = max((c for _, c in found.targets), default=0.0)
                counted[BANDS[0] if best >= 0.9 else BANDS[1] if found.targets
                        else BANDS[2] if found.reason.startswith("outside") else BANDS[3]] += 1
    return {"language": language, "calls": sum(counted.values()), **{band: counted[band] for band in BANDS}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", action="append", default=[], help="NAME=PATH, a project's folder")
    parser.add_argument("--before", type=Path, help="another checkout's src folder, run with PYTHONPATH")
    parser.add_argument("--json", action="store_true", help="print one JSON object (what --before reads)")
    args = parser.parse_args()
    repos = dict(item.split("=", 1) for item in args.repo)
    now = {name: bands(Path(path)) for name, path in repos.items()}
    if args.json:
        print(json.dumps(now))
        return
    before: dict[str, dict[str, object]] = {}
    if args.before:
        command = [sys.executable, __file__, "--json", *(f"--repo={n}={p}" for n, p in repos.items())]
        done = subprocess.run(command, capture_output=True, text=True, check=True,
                              env={**os.environ, "PYTHONPATH": str(args.before)})
        before = json.loads(done.stdout)
    print("| project | language | calls | " + " | ".join(BANDS) + " |")
    print("| --- | --- | ---: | " + " | ".join("---:" for _ in BANDS) + " |")
    for name, row in now.items():
        def cell(band: str) -> str:
            share = f"{int(row[band]) / max(int(row['calls']), 1):.0%}"  # type: ignore[call-overload]
            if name in before:
                old = before[name]
                share = f"{int(old[band]) / max(int(old['calls']), 1):.0%} → " + share  # type: ignore[call-overload]
            return share
        calls = f"{row['calls']:,}" if name not in before else f"{before[name]['calls']:,} → {row['calls']:,}"
        print(f"| {name} | {row['language']} | {calls} | " + " | ".join(cell(b) for b in BANDS) + " |")


if __name__ == "__main__":
    main()

"""Does the research tool's evidence hold the file to change more often than `locate` alone?

    python benchmarks/bench_research.py [--set loc] [--budget 4000] [--limit N]

On a which-file dev set (`loc`: each commit message of SQLAlchemy and Black → the files it
changed; construction in devset.py), each question is researched without a model (the
evidence alone: its searches, the definitions it names, the callers and callees of what ranks
best) within `--budget` tokens, and located. "Holds" counts a question when one of its changed
files is among the evidence's files; locate is given as many files as the evidence holds
(the same number of places to read), and its top 10. Uses bench_quality's cached index of the
set (built on first use), default mode.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent / "src"))
sys.path.insert(0, str(Path(__file__).parent))

from bench_quality import SETS, mindex_index  # noqa: E402

from mindex.evaluate import load_queries  # noqa: E402
from mindex.research import gather  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", default="loc", choices=[n for n, s in SETS.items() if s.files])
    parser.add_argument("--budget", type=int, default=4000)
    parser.add_argument("--limit", type=int, help="only the first N questions")
    args = parser.parse_args()
    spec = SETS[args.set]
    queries = load_queries(spec.queries / f"{spec.name}.jsonl")[: args.limit]
    index = mindex_index(spec, fresh=False)
    held = {"research": 0, "locate, as many files": 0, "locate, top 10": 0}
    sizes, seconds = [], []
    for query in queries:
        wanted = {j.path for j in query.relevant if j.path}
        started = time.perf_counter()
        found = gather(index, query.text, budget_tokens=args.budget, time_budget=60)
        seconds.append(time.perf_counter() - started)
        files = list(dict.fromkeys(e.path for e in found.evidence))
        located = [f.path for f in index.locate(query.text, limit=max(10, len(files))).files]
        sizes.append(len(files))
        held["research"] += bool(wanted & set(files))
        held["locate, as many files"] += bool(wanted & set(located[: len(files)]))
        held["locate, top 10"] += bool(wanted & set(located[:10]))
    n = len(queries)
    print(f"{spec.name}: {n} questions, evidence budget {args.budget} tokens, {statistics.mean(sizes):.1f} files "
          f"of evidence on average, research {statistics.median(seconds):.2f} s a question (median)\n")
    print("| what is read | holds a changed file |\n| --- | ---: |")
    for name, count in held.items():
        print(f"| {name} | {count / n:.3f} ({count} of {n}) |")


if __name__ == "__main__":
    main()

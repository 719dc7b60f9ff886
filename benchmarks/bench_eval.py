"""Retrieval quality on the dev set: keyword, semantic and hybrid side by side, through `mindex eval`.

Builds the dev set first if its corpora are missing (`benchmarks/devset.py`), indexes and
embeds each corpus into a fresh database with the packaged model, then runs the CLI:
`mindex eval <set>.jsonl --compare keyword,semantic,hybrid --json`.

    python benchmarks/bench_eval.py            # code and docs sets
    python benchmarks/bench_eval.py --quick    # the docs set only (35 queries, about a minute)

Prints markdown tables to paste into benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).parent
CORPUS = HERE / ".cache"
SETS = {"docs": ("docs", "sqlalchemy", None), "code": ("code", "", "package")}
MODES = "keyword,semantic,hybrid"
COLUMNS = ("recall@1", "recall@5", "recall@10", "mrr@10", "ndcg@10", "success@10")


def mindex(db: Path, *args: str) -> str:
    env = {**os.environ, "MINDEX_EMBED__PROVIDER": "onnx"}
    done = subprocess.run([sys.executable, "-m", "mindex", "--db", str(db), *args], env=env,
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"mindex {' '.join(args)} failed:\n{done.stderr}")
    return done.stdout


def evaluate(name: str, work: Path) -> tuple[str, float, dict[str, object]]:
    kind, sub, by = SETS[name]
    db = work / f"{name}.db"
    folder = CORPUS / name / sub if sub else CORPUS / name
    mindex(db, "add", str(folder), "--kind", kind, "--name", name)
    started = time.perf_counter()
    mindex(db, "index", "-q", "--json")
    took = time.perf_counter() - started
    chunks = json.loads(mindex(db, "status", "--json"))["chunks"]
    extra = ["--by", by] if by else []
    data = json.loads(mindex(db, "eval", str(HERE / "devset" / f"{name}.jsonl"), "--compare", MODES, "--json", "-q", *extra))
    return f"{chunks} chunks", took, data


def table(data: dict[str, object], by: str | None) -> list[str]:
    runs = data["runs"]
    assert isinstance(runs, list)
    lines = ["| mode | R@1 | R@5 | R@10 | MRR@10 | nDCG@10 | Success@10 | p50 / p95 ms |", "| --- " * 8 + "|"]
    for run in runs:
        m = run["metrics"]
        lines.append(f"| {run['label']} | " + " | ".join(f"{m[c]:.3f}" for c in COLUMNS)
                     + f" | {m['latency_p50_ms']:.1f} / {m['latency_p95_ms']:.1f} |")
    if by:
        lines += ["", f"MRR@10 by {by}:", "", f"| {by} | queries | " + " | ".join(r["label"] for r in runs) + " |",
                  "| --- " * (len(runs) + 2) + "|"]
        groups = runs[0]["by"][by]
        for value in groups:
            cells = " | ".join(f"{r['by'][by][value]['mrr@10']:.3f}" for r in runs)
            lines.append(f"| {value} | {groups[value]['queries']} | {cells} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="the docs set only")
    args = parser.parse_args()
    if not (HERE / "devset" / "code.jsonl").exists() or not CORPUS.exists():
        subprocess.run([sys.executable, str(HERE / "devset.py")], check=True)
    names = ["docs"] if args.quick else ["code", "docs"]
    with tempfile.TemporaryDirectory(prefix="mindex-eval-") as tmp:
        for name in names:
            size, took, data = evaluate(name, Path(tmp))
            print(f"### {name} set: {data['queries']} queries, {size} (indexed and embedded in {took / 60:.1f} min)\n")
            print("\n".join(table(data, SETS[name][2])) + "\n")


if __name__ == "__main__":
    main()

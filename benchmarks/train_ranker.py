"""Fit the learned fusion (`src/mindex/ranker.json`) on the dev sets, and check it on sets it
was not fitted on.

For every query of every set, the keyword and semantic legs (50 each) of mindex's own index
(the ones bench_quality.py builds) give candidates; `mindex.rank.candidate_features` gives
their features, exactly as search computes them; a candidate is relevant when it hits a
judgement. The model is linear, fitted with a listwise loss (softmax cross-entropy of the
relevant candidates), each set weighing the same. Leave-one-set-out: for each set, a model
fitted on the others ranks it, beside RRF; the model shipped is fitted on all sets and is
kept only when the left-out scores beat RRF.

    python benchmarks/bench_quality.py          # builds the indexes first
    python benchmarks/train_ranker.py           # prints the check, writes src/mindex/ranker.json
    python benchmarks/train_ranker.py --check   # the check only
    RANKER_FEATURES=kr,sr,ks,ss python benchmarks/train_ranker.py --check   # another feature set
"""

from __future__ import annotations

import argparse
import datetime
import json
import pickle
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE))

from bench_quality import SETS, WORK, by_file  # noqa: E402
from mindex import Index, IndexSettings  # noqa: E402
from mindex.config import EmbedSettings, SearchSettings  # noqa: E402
from mindex.evaluate import Query, Ranked, credits, load_queries, ranked, score_query  # noqa: E402
from mindex.models import Hit  # noqa: E402
from mindex.rank import Ranker, candidate_features  # noqa: E402
from mindex.search import fuse, lexical_search, semantic_hits  # noqa: E402

import os  # noqa: E402

FEATURES = tuple(os.environ.get("RANKER_FEATURES", "kr,sr,ks,ss,sgap,both,c_cov,c_tcov,c_scov").split(","))
DEPTH = 50
OUT = HERE.parent / "src" / "mindex" / "ranker.json"
# The sets the model is fitted on: search's dev sets (memory has its own ranking and queries).
FIT_SETS = [name for name, spec in SETS.items() if spec.kind != "memory"]

Legs = dict[str, list[Hit]]


def collect(name: str) -> list[tuple[Query, Legs]]:
    """Each query of a set with its two legs (cached beside the index)."""
    cache = WORK / f"legs-{name}.pkl"
    queries = load_queries(HERE / "devset" / f"{name}.jsonl")
    if cache.exists() and cache.stat().st_mtime > (WORK / f"{name}.db").stat().st_mtime:
        legs: dict[str, Legs] = pickle.loads(cache.read_bytes())
    else:
        index = Index(WORK / f"{name}.db", IndexSettings(), embed=EmbedSettings(provider="onnx"),
                      search=SearchSettings())
        embedder = index._pinned_embedder()
        assert embedder is not None, f"{name}: run benchmarks/bench_quality.py first"
        vectors = index._vector_index(embedder)
        legs = {q.qid: {"keyword": list(lexical_search(index.store, q.text, DEPTH).hits),
                        "semantic": semantic_hits(index.store, vectors, embedder, q.text, DEPTH)} for q in queries}
        index.close()
        cache.write_bytes(pickle.dumps(legs))
    return [(q, legs[q.qid]) for q in queries]


def examples(data: list[tuple[Query, Legs]]) -> list[tuple[np.ndarray, np.ndarray]]:
    """(features, labels) of each query that has a relevant candidate."""
    out = []
    for query, legs in data:
        hits, rows = candidate_features(query.text, legs, FEATURES)
        rows = np.nan_to_num(rows, nan=0.0)  # each fitted set is of one kind: a feature it lacks is constant
        labels = np.array([1.0 if credits(Ranked(h.id, h.path, h.start_line, h.end_line, 0.0, h.source),
                                          query.relevant, 0.0) else 0.0 for h in hits])
        if labels.any():
            out.append((rows, labels))
    return out


def fit(sets: dict[str, list[tuple[np.ndarray, np.ndarray]]], l2: float = 1e-3, steps: int = 300) -> Ranker:
    """Listwise fit with Adam; every set weighs the same."""
    stacked = np.vstack([rows for groups in sets.values() for rows, _ in groups])
    mean, scale = stacked.mean(axis=0), stacked.std(axis=0) + 1e-9
    groups = [((rows - mean) / scale, labels, 1.0 / len(items)) for items in sets.values() for rows, labels in items]
    w = np.zeros(len(FEATURES))
    m, v = np.zeros_like(w), np.zeros_like(w)
    for t in range(1, steps + 1):
        grad = l2 * w
        for z, y, weight in groups:
            s = z @ w
            p = np.exp(s - s.max())
            p /= p.sum()
            relevant = p * y
            grad += weight * (z.T @ p - z.T @ (relevant / relevant.sum()))
        m, v = 0.9 * m + 0.1 * grad, 0.999 * v + 0.001 * grad * grad
        w -= 0.05 * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
    return Ranker(FEATURES, mean, scale, w, {})


def metric(name: str, data: list[tuple[Query, Legs]], ranker: Ranker | None) -> float:
    """The set's main metric with RRF (`ranker` None) or the model ordering the candidates."""
    from mindex.rank import learned_fusion

    values = []
    for query, legs in data:
        fused = learned_fusion(query.text, legs, {}, ranker) if ranker else fuse(legs, {}, 60)
        results = ranked(fused)
        results = by_file(results) if SETS[name].files else results[:10]
        values.append(score_query(query, results).values[SETS[name].metric])
    return float(np.mean(values))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="leave-one-set-out only; write nothing")
    args = parser.parse_args()
    data = {name: collect(name) for name in FIT_SETS}
    groups = {name: examples(items) for name, items in data.items()}
    report = {}
    print("| set | RRF | learned, fitted without this set | change |\n| --- | --- | --- | --- |")
    for held in FIT_SETS:
        model = fit({n: g for n, g in groups.items() if n != held})
        before, after = metric(held, data[held], None), metric(held, data[held], model)
        report[held] = {"rrf": round(before, 4), "learned": round(after, 4)}
        print(f"| {held} | {before:.3f} | {after:.3f} | {after / before - 1:+.1%} |", flush=True)
    if args.check:
        return
    final = fit(groups)
    OUT.write_text(json.dumps({
        "features": list(FEATURES), "mean": final.mean.round(6).tolist(), "scale": final.scale.round(6).tolist(),
        "weights": final.weights.round(6).tolist(),
        "about": {"fitted": datetime.date.today().isoformat(), "sets": FIT_SETS, "depth": DEPTH,
                  "leave_one_set_out": report, "by": "benchmarks/train_ranker.py"},
    }, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()

"""Retrieval quality on every dev set: mindex beside the baselines a user could assemble in an
afternoon, scored by the same code (`mindex.evaluate`) on the same corpora and queries.

Baselines, over one chunk per definition (code sets: functions and methods), per section
(docs sets: heading-delimited, as mindex's parsers find them, not cut further) or per file
(localization):
- bm25s: BM25 (bm25s 0.3, its default tokenizer and English stopwords);
- minilm: all-MiniLM-L6-v2 (the same int8 ONNX model mindex uses), cosine, 256 tokens;
- rrf: the two fused by reciprocal rank fusion (k = 60).

mindex runs in process on its own index of the corpus (keyword, semantic, hybrid and the
default mode). Localization questions ask for files, and the git manual's questions for
pages: on those sets every system's results are grouped by file (a file ranks where its best
chunk ranks) before scoring.

    pip install -e '.[bench]'                      # bm25s
    python benchmarks/devset.py                    # corpora and queries (once)
    python benchmarks/bench_quality.py             # every set; tables for benchmarks/README.md
    python benchmarks/bench_quality.py --sets docs code-go --fresh   # re-index from scratch

Indexes and baseline vectors are kept in benchmarks/.work/quality (embedding is the slow part).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
CORPUS = HERE / ".cache"
WORK = HERE / ".work" / "quality"
sys.path.insert(0, str(HERE.parent / "src"))

from mindex import Index, IndexSettings  # noqa: E402
from mindex.config import EmbedSettings, SearchSettings  # noqa: E402
from mindex.evaluate import Query, QueryRun, Ranked, load_queries, score_run  # noqa: E402
from mindex.models import SearchResult  # noqa: E402


@dataclass(frozen=True)
class DevSet:
    """A dev set: its queries file, corpus folder and kind, main metric, and `--by` field."""

    name: str
    kind: str  # code, docs, loc or memory
    folder: str
    metric: str = "ndcg@10"
    by: str | None = None
    files: bool = False  # judged by file (or page): results are grouped by file before scoring
    corpus: Path = CORPUS  # where `folder` is
    queries: Path = HERE / "devset"  # where `<name>.jsonl` is
    work: Path = WORK  # where the index and the baseline vectors are kept


SETS = {
    "code": DevSet("code", "code", "code", by="package"),
    "code-ts": DevSet("code-ts", "code", "code-ts"),
    "code-go": DevSet("code-go", "code", "code-go", by="package"),
    # Java (devset_java.py: gson, jsoup, javapoet, commons-cli from their git history)
    "code-java": DevSet("code-java", "code", "code-java-doc", by="package", queries=CORPUS),
    "docs": DevSet("docs", "docs", "docs/sqlalchemy"),
    "docs-md": DevSet("docs-md", "docs", "docs-md", by="project"),
    "docs-html": DevSet("docs-html", "docs", "docs-html/git", files=True),
    # SQLite's FAQ → the pages its answers link to (devset_sqlite.py; a project no ranker saw)
    "docs-sqlite": DevSet("docs-sqlite", "docs", "docs-sqlite", files=True, queries=CORPUS),
    "loc": DevSet("loc", "loc", "loc", metric="recall@10", by="project", files=True),
    # trees with their tests (devset_loctests.py): is a test file put first when the answer is code?
    "loc-tests": DevSet("loc-tests", "loc", "loc-tests", metric="recall@10", by="category", files=True,
                        queries=CORPUS),
    # the same construction in Go and TypeScript (chi, ky)
    "loc-go-ts": DevSet("loc-go-ts", "loc", "loc-go-ts", metric="recall@10", by="category", files=True,
                        queries=CORPUS),
    "loc-tests-poetry": DevSet("loc-tests-poetry", "loc", "loc-tests-poetry", metric="recall@10", by="category",
                               files=True, queries=CORPUS),
    # REALTALK's chats as memory journals (benchmarks/devset_memory.py; nothing of it is committed):
    # each question is asked of its own conversation (the `tag` filter), judged by message
    "memory": DevSet("memory", "memory", "memory/journal", by="category", queries=CORPUS / "memory"),
    # the same chats, each stretched over 12 months (devset_memory.py --year)
    "memory-year": DevSet("memory-year", "memory", "memory-year/journal", by="category",
                          queries=CORPUS / "memory-year"),
    # five projects' pinned versions over a year (devset_supersede.py): the newest decision is the answer
    "supersede": DevSet("supersede", "memory", "supersede/journal", by="project", queries=CORPUS / "supersede"),
}
# `memory`: `mindex memory search` as the CLI runs it; `memory+nodecay`: with --no-decay
MEMORY_MODES = "keyword,semantic,hybrid-rrf,hybrid,hybrid+decay,hybrid+decay+dates,memory,memory+nodecay"
COLUMNS = ("recall@1", "recall@5", "recall@10", "mrr@10", "ndcg@10")


def newest_first(queries: list[Query], runs: dict[str, QueryRun]) -> float:
    """The share of questions whose newest answer is in the top 10 and above every answer it
    superseded (queries with a `superseded` list; others are not counted)."""
    from mindex.evaluate import Judgement, credits

    asked = [q for q in queries if q.fields.get("superseded")]
    if not asked:
        return math.nan
    won = 0
    for q in asked:
        old = tuple(Judgement(j["path"], j.get("start_line"), j.get("end_line")) for j in q.fields["superseded"])
        for result in runs[q.qid].results[:10]:
            if credits(result, old, 0.0):
                break
            if credits(result, q.relevant, 0.0):
                won += 1
                break
    return won / len(asked)
DEPTH = 100  # results taken per system before grouping by file


# --- chunks for the baselines ----------------------------------------------------------------


@dataclass(frozen=True)
class Unit:
    """One baseline chunk: where it is and its text."""

    path: str
    start: int | None
    end: int | None
    text: str
    scope: str = ""  # memory: the conversation's tag; a query searches its own scope only
    at: float | None = None  # memory: the entry's time


def code_units(root: Path) -> list[Unit]:
    """One chunk per function or method (nested ones too), with tree-sitter's spans."""
    from mindex.languages import language_for
    from mindex.parse.code import definitions, parse_tree

    units = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        lang = language_for(path.name)
        if lang is None:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        lines = text.split("\n")
        rel = path.relative_to(root).as_posix()
        for d in definitions(parse_tree(text.encode(), lang, 30.0)):
            if d.kind in ("function", "method"):
                units.append(Unit(rel, d.start_line, d.end_line, "\n".join(lines[d.start_line - 1 : d.end_line])))
    return units


def docs_units(root: Path) -> list[Unit]:
    """One chunk per heading-delimited section, whatever its size."""
    from mindex.parse import PARSERS

    units = []
    for path in sorted(p for p in root.rglob("*") if p.suffix.lower() in PARSERS):
        rel = path.relative_to(root).as_posix()
        parsed = PARSERS[path.suffix.lower()](path.read_text(encoding="utf-8", errors="replace"), rel)
        for section in parsed.sections:
            count = section.text.count("\n")
            if section.line_map:
                start, end = section.line_map[0][0], section.line_map[-1][1]
            else:
                start = section.start_line
                end = start + count if start is not None else None
            units.append(Unit(rel, start, end, section.text))
    return units


def memory_units(root: Path) -> list[Unit]:
    """One chunk per journal entry (each a single message), scoped by its first tag."""
    from devset_memory import text_span
    from mindex.memory import journal

    units = []
    for path in sorted(root.rglob("*.md")):
        rel = path.relative_to(root).as_posix()
        for e in journal.parse(path.read_text(encoding="utf-8"), rel).entries:
            first, last = text_span(e)
            units.append(Unit(rel, first, last, e.text, e.tags[0] if e.tags else "", e.at.timestamp()))
    return units


def file_units(root: Path) -> list[Unit]:
    """One chunk per file (Python, Go, TypeScript)."""
    return [Unit(p.relative_to(root).as_posix(), None, None, p.read_text(encoding="utf-8", errors="replace"))
            for p in sorted(root.rglob("*")) if p.suffix in (".py", ".go", ".ts") and not p.name.endswith(".d.ts")]


# --- the baselines ---------------------------------------------------------------------------


DENSE = {"minilm": "all-MiniLM-L6-v2"}  # the dense baselines by label; `--e5` adds multilingual-e5-small
MODEL: str | None = None  # `--model`: mindex's embedding model (None: the default)
CHUNK_TOKENS: int | None = None  # `--chunk-tokens`: embed.chunk_tokens (None: the model's own limit)


class Scoped:
    """One `Baselines` per scope (memory: per conversation); a query searches its own."""

    def __init__(self, units: list[Unit], cache: Path) -> None:
        scopes: dict[str, list[Unit]] = {}
        for u in units:
            scopes.setdefault(u.scope, []).append(u)
        self.parts = {scope: Baselines(part, cache) for scope, part in scopes.items()}

    def systems(self) -> dict[str, Callable[[Query], tuple[Ranked, ...]]]:
        """bm25s, each dense model, and each one's RRF with bm25s."""
        out: dict[str, Callable[[Query], tuple[Ranked, ...]]] = {"bm25s": lambda q: self._part(q).bm25s(q)}
        for label in DENSE:
            out[label] = lambda q, label=label: self._part(q).dense(q, label)
        for label in DENSE:
            out[f"bm25s+{label} rrf"] = lambda q, label=label: self._part(q).rrf(q, label)
        return out

    def _part(self, query: Query) -> Baselines:
        return self.parts[query.fields.get("tag", "")]


class Baselines:
    """bm25s, the dense models of DENSE and their RRF over one list of units."""

    def __init__(self, units: list[Unit], cache: Path) -> None:
        import bm25s

        from mindex.embed.models import find_model
        from mindex.embed.onnx import OnnxEmbedder

        self.units = units
        self.bm25 = bm25s.BM25()
        self.bm25.index(bm25s.tokenize([u.text for u in units], stopwords="en", show_progress=False),
                        show_progress=False)
        self.embedders, self.vectors = {}, {}
        for label, name in DENSE.items():
            model = find_model(name, EmbedSettings().models_dir)
            assert model is not None, f"run `mindex models add {name}` first"
            self.embedders[label] = OnnxEmbedder(model)
            self.vectors[label] = self._vectors(cache, label)

    def _vectors(self, cache: Path, label: str) -> np.ndarray:
        digest = hashlib.sha1("\0".join(u.text for u in self.units).encode("utf-8", "replace")).hexdigest()[:16]
        file = cache / (f"baseline-{digest}.npy" if label == "minilm" else f"baseline-{label}-{digest}.npy")
        if file.exists():
            return np.load(file)
        embedder = self.embedders[label]
        vectors = np.concatenate([embedder.embed_documents([u.text for u in self.units[i : i + 64]])
                                  for i in range(0, len(self.units), 64)]) if self.units else np.zeros((0, 384))
        cache.mkdir(parents=True, exist_ok=True)
        np.save(file, vectors)
        return vectors

    def _ranked(self, order: Iterable[int], scores: Iterable[float]) -> tuple[Ranked, ...]:
        out = []
        for i, score in zip(order, scores):
            u = self.units[i]
            out.append(Ranked(f"{u.path}:{u.start}", u.path, u.start, u.end, float(score)))
        return tuple(out)

    def bm25s(self, query: Query) -> tuple[Ranked, ...]:
        import bm25s

        tokens = bm25s.tokenize([query.text], stopwords="en", show_progress=False)
        if not tokens.vocab:
            return ()
        k = min(DEPTH, len(self.units))
        docs, scores = self.bm25.retrieve(tokens, k=k, show_progress=False)
        return self._ranked((int(d) for d, s in zip(docs[0], scores[0]) if s > 0), (s for s in scores[0] if s > 0))

    def dense(self, query: Query, label: str) -> tuple[Ranked, ...]:
        scores = self.vectors[label] @ self.embedders[label].embed_query(query.text)
        top = np.argsort(-scores)[:DEPTH]
        return self._ranked(top, scores[top])

    def rrf(self, query: Query, label: str) -> tuple[Ranked, ...]:
        fused: dict[str, float] = {}
        first: dict[str, Ranked] = {}
        for leg in (self.bm25s(query), self.dense(query, label)):
            for rank, hit in enumerate(leg, 1):
                fused[hit.id] = fused.get(hit.id, 0.0) + 1 / (60 + rank)
                first.setdefault(hit.id, hit)
        order = sorted(fused, key=lambda i: -fused[i])[:DEPTH]
        return tuple(Ranked(first[i].id, first[i].path, first[i].start_line, first[i].end_line, fused[i]) for i in order)


# --- running ---------------------------------------------------------------------------------


def by_file(results: tuple[Ranked, ...]) -> tuple[Ranked, ...]:
    """A file ranks where its best result ranks; one entry per file."""
    seen: dict[str, Ranked] = {}
    for r in results:
        seen.setdefault(r.path, Ranked(r.path, r.path, None, None, r.score, r.source))
    return tuple(seen.values())


def run(search: Callable[[Query], tuple[Ranked, ...]], queries: list[Query], files: bool) -> dict[str, QueryRun]:
    """Every query through `search` (one untimed warm-up first), timed."""
    search(queries[0])
    runs = {}
    for query in queries:
        started = time.perf_counter()
        results = search(query)
        took = (time.perf_counter() - started) * 1000
        runs[query.qid] = QueryRun(query.qid, by_file(results) if files else results, took)
    return runs


# `--postgres URL`: a PostgreSQL server whose databases (mindex_<set>) get a copy of each set's
# index, searched instead of the SQLite file: the two backends on the same index.
POSTGRES: str | None = None


def mindex_index(spec: DevSet, fresh: bool, settings: IndexSettings | None = None) -> Index:
    """mindex's own index of the set's corpus, embedded with the packaged model (kept between
    runs; other index settings get a database of their own)."""
    if POSTGRES:
        sqlite_index = _sqlite_index(spec, fresh, settings)
        sqlite_index.close()
        return on_postgres(spec, sqlite_index.db_path)
    return _sqlite_index(spec, fresh, settings)


def on_postgres(spec: DevSet, db: Path) -> Index:
    """The set's index copied into its own PostgreSQL database (made empty first)."""
    import psycopg

    from mindex.copy import copy_index

    assert POSTGRES is not None
    name = "mindex_" + spec.name.replace("-", "_")
    with psycopg.connect(POSTGRES, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    url = POSTGRES.rsplit("/", 1)[0] + "/" + name
    started = time.perf_counter()
    copy_index(db, url)
    print(f"  {spec.name}: copied into {name} in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return Index(url, IndexSettings(), embed=EmbedSettings(provider="onnx"), search=SearchSettings(), create=False)


def _sqlite_index(spec: DevSet, fresh: bool, settings: IndexSettings | None = None) -> Index:
    settings = settings or IndexSettings()
    suffix = (("" if settings == IndexSettings() else f"-{settings.chunk_size}") + (f"-{MODEL}" if MODEL else "")
              + (f"-t{CHUNK_TOKENS}" if CHUNK_TOKENS else ""))
    db = spec.work / f"{spec.name}{suffix}.db"
    if fresh:
        for stale in spec.work.glob(f"{spec.name}{suffix}.db*"):
            stale.unlink()
    embed = EmbedSettings(provider="onnx", **({"model": MODEL} if MODEL else {}),
                          **({"chunk_tokens": CHUNK_TOKENS} if CHUNK_TOKENS else {}))
    index = Index(db, settings, embed=embed, search=SearchSettings())
    if not index.sources():
        kind = spec.kind if spec.kind in ("docs", "memory") else "code"
        index.add_source(spec.corpus / spec.folder, name=spec.name, kind=kind)
    started = time.perf_counter()
    index.index()
    print(f"  {spec.name}: mindex index up to date in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return index


def evaluate(spec: DevSet, fresh: bool, modes: tuple[str, ...],
             settings: IndexSettings | None = None) -> tuple[dict[str, dict[str, float]], dict[str, object]]:
    """Metrics of every system on one set, and facts about its size."""
    queries = load_queries(spec.queries / f"{spec.name}.jsonl")
    root = spec.corpus / spec.folder
    units = {"code": code_units, "docs": docs_units, "loc": file_units, "memory": memory_units}[spec.kind](root)
    base = Scoped(units, spec.work)
    files = spec.files
    systems = base.systems()
    index = mindex_index(spec, fresh, settings)
    from mindex.evaluate import ranked
    from mindex.search import file_order

    from mindex.memory.when import search_with_dates
    from mindex.models import Facets

    ends = {}  # memory: a conversation's questions are asked just after its last message
    for u in units:
        if u.at is not None:
            ends[u.scope] = max(ends.get(u.scope, u.at), u.at)
    for variant in modes:
        # `hybrid@0.5`: the keyword leg weighted 0.5; `hybrid-rrf`: fused by RRF, not the ranker;
        # `+decay`: recency decay on (memory; off otherwise, so the legs are compared as such);
        # `+dates`: a time the question names becomes a filter (mindex.memory.when, as `memory search`)
        mode, *flags = variant.split("+")
        mode, _, weight = mode.partition("@")
        weights = {"keyword": float(weight), "semantic": 1.0} if weight else None
        # hybrid: the learned ranker; hybrid-rrf: RRF; default: the shipped setting (auto)
        fusion = "rrf" if mode.endswith("-rrf") else "learned" if mode == "hybrid" else SearchSettings().fusion

        def search(query: Query, mode: str = mode.removesuffix("-rrf"), weights: dict[str, float] | None = weights,
                   fusion: str = fusion, flags: tuple[str, ...] = tuple(flags)) -> tuple[Ranked, ...]:
            # `+notests`: test files not ranked down (search.test_penalty = 0)
            index.search_settings = SearchSettings(fusion=fusion, **({"test_penalty": 0.0} if "notests" in flags else {}))
            tag = query.fields.get("tag")

            def one(text: str, since: float | None, until: float | None) -> SearchResult:
                facets = Facets(tags=(tag,) if tag else (), since=since, until=until)
                return index.search(text, DEPTH if files else 10, mode=None if mode == "default" else mode,
                                    weights=weights, facets=facets if facets else None, decay_on="decay" in flags)

            if mode == "memory":  # `mindex memory search` itself: dates, recency, restated decisions, the floor
                now = datetime.fromtimestamp(ends[tag] + 3600, timezone.utc)
                return ranked(index.memory.search(query.text, 10, tags=(tag,) if tag else (), now=now,
                                                  decay="nodecay" not in flags).hits)
            if "dates" in flags:
                now = datetime.fromtimestamp(ends[tag] + 3600, timezone.utc)
                return ranked(search_with_dates(one, query.text, now).hits)
            found = one(query.text, None, None)
            if not files:
                return ranked(found.hits)
            # a which-file question is `mindex locate`'s: files in its order (search.file_order)
            logits = found.mode == "hybrid" and found.fusion == "learned"
            place = {f: n for n, f in enumerate(file_order(found.hits, logits))}
            return ranked(tuple(sorted(found.hits, key=lambda h: place[(h.source, h.path)])))

        systems[f"mindex {variant}"] = search
    report = {}
    for label, search in systems.items():
        runs = run(search, queries, files)
        scored = score_run(label, queries, runs)
        report[label] = scored.metrics()
        if any(q.fields.get("superseded") for q in queries):
            report[label]["newest-first"] = newest_first(queries, runs)
        if spec.by:
            for value in sorted({str(q.fields.get(spec.by)) for q in queries}):
                chosen = {q.qid for q in queries if str(q.fields.get(spec.by)) == value}
                part = scored.metrics(chosen)
                report[label][f"{spec.by}={value}"] = part[spec.metric]
                if spec.files:  # which-file sets: the first answer too
                    report[label][f"{spec.by}={value} R@1"] = part["recall@1"]
    facts = {"queries": len(queries), "baseline chunks": len(units), "mindex chunks": index.status()["chunks"]}
    index.close()
    return report, facts


def table(spec: DevSet, report: dict[str, dict[str, float]], facts: dict[str, object]) -> str:
    best = max((m[spec.metric] for label, m in report.items() if not label.startswith("mindex")), default=0.0)
    lines = [f"### {spec.name}: {facts['queries']} queries; baseline chunks {facts['baseline chunks']:,}, "
             f"mindex chunks {facts['mindex chunks']:,}; main metric {spec.metric}\n",
             "| system | R@1 | R@5 | R@10 | MRR@10 | nDCG@10 | vs best baseline | p50 ms |"
             + (" newest first |" if "newest-first" in next(iter(report.values())) else ""),
             "| --- | --- | --- | --- | --- | --- | --- | --- |"
             + (" --- |" if "newest-first" in next(iter(report.values())) else "")]
    for label, m in report.items():
        margin = f"{(m[spec.metric] / best - 1) * 100:+.0f}%" if label.startswith("mindex") and best else ""
        lines.append(f"| {label} | " + " | ".join(f"{m[c]:.3f}" for c in COLUMNS)
                     + f" | {margin} | {m['latency_p50_ms']:.1f} |"
                     + (f" {m['newest-first']:.2f} |" if "newest-first" in m else ""))
    grouped = spec.kind == "memory" or spec.name.startswith("loc-tests")
    groups = [k for k in next(iter(report.values())) if "=" in k] if grouped else []
    if groups:  # the main metric (and R@1 for which-file sets) by group
        lines += ["", f"| {spec.metric} by {spec.by} | " + " | ".join(g.split("=", 1)[1] for g in groups) + " |",
                  "| --- |" + " --- |" * len(groups)]
        lines += [f"| {label} | " + " | ".join(f"{m[g]:.3f}" for g in groups) + " |" for label, m in report.items()]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", nargs="*", default=list(SETS), choices=list(SETS))
    parser.add_argument("--modes", default="keyword,semantic,hybrid-rrf,hybrid,default",
                        help=f"mindex's search modes (the memory set uses {MEMORY_MODES} unless given)")
    parser.add_argument("--fresh", action="store_true", help="index the corpora again from scratch")
    parser.add_argument("--json", type=Path, help="also write every metric to this file")
    parser.add_argument("--chunk-size", type=int, help="index.chunk_size for mindex (default: the default)")
    parser.add_argument("--model", help="mindex's embedding model (default: the default; each model its own index)")
    parser.add_argument("--chunk-tokens", type=int, help="embed.chunk_tokens for mindex (e5 reads 512 by default)")
    parser.add_argument("--e5", action="store_true", help="add multilingual-e5-small and its RRF to the baselines")
    parser.add_argument("--postgres", metavar="URL", help="search a copy of each index in PostgreSQL (a database "
                        "mindex_<set> is made on this server; the URL names any database there)")
    args = parser.parse_args()
    global POSTGRES, MODEL, CHUNK_TOKENS
    POSTGRES, MODEL, CHUNK_TOKENS = args.postgres, args.model, args.chunk_tokens
    if args.e5:
        DENSE["e5"] = "multilingual-e5-small"
    settings = IndexSettings(chunk_size=args.chunk_size) if args.chunk_size else None
    everything = {}
    for name in args.sets:
        spec = SETS[name]
        print(f"{name} ...", file=sys.stderr, flush=True)
        modes = MEMORY_MODES if spec.kind == "memory" and "--modes" not in sys.argv else args.modes
        report, facts = evaluate(spec, args.fresh, tuple(modes.split(",")), settings)
        everything[name] = {"facts": facts, "metrics": report}
        print(table(spec, report, facts), flush=True)
    if args.json:
        args.json.write_text(json.dumps(everything, indent=1))


if __name__ == "__main__":
    main()

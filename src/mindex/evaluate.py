"""Retrieval evaluation: judged queries in, Recall/MRR/nDCG/Success and latency out.

A queries file is JSONL, one query per line:
`{"qid": "q1", "query": "...", "relevant": [{"path": "a.py", "start_line": 3, "end_line": 9}]}`.
A judgement is a span (`path` + `start_line` + `end_line`), a whole file (`path`) or a chunk or
document (`id`; a document id is `source:path`). A `filter` object on a line
(`{"tags": [...], "types": [...], "since": ...}`) is applied before top-k, as the CLI's filters are
(a memory or changelog query scoped to its conversation or product). Any other key on a line is
a field that `--by` can group on. A ranked list is scored in the order given: equal scores keep their order.
Each judgement is credited once, to the first result that hits it.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from mindex.errors import ConfigError
from mindex.models import Facets, Hit

CUTOFF = 10
METRICS = ("recall@1", "recall@5", "recall@10", "mrr@10", "ndcg@10", "success@10")


@dataclass(frozen=True)
class Judgement:
    """One relevant thing: a line span of a file, a whole file, or a chunk/document id."""

    path: str | None = None
    start_line: int | None = None
    end_line: int | None = None
    id: str | None = None


@dataclass(frozen=True)
class Query:
    """A judged query; `fields` holds any extra keys of its line (for `--by`)."""

    qid: str
    text: str
    relevant: tuple[Judgement, ...]
    fields: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Ranked:
    """One result of a run, as `--run-out` writes it."""

    id: str
    path: str
    start_line: int | None
    end_line: int | None
    score: float
    source: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The run-file shape of a result."""
        out: dict[str, Any] = {"id": self.id, "path": self.path, "start_line": self.start_line,
                               "end_line": self.end_line, "score": round(self.score, 6)}
        if self.source is not None:  # lets a rescored run match `source:path` ids as the live one did
            out["source"] = self.source
        return out


@dataclass(frozen=True)
class QueryRun:
    """The ranked results one system returned for one query, and the time it took."""

    qid: str
    results: tuple[Ranked, ...]
    took_ms: float | None = None


@dataclass(frozen=True)
class QueryScore:
    """The metrics of one query; `first_hit` is the 1-based rank of the first hit, if any."""

    qid: str
    values: dict[str, float]
    first_hit: int | None
    missing: bool = False


@dataclass
class RunReport:
    """One system (a search mode or a saved run) scored over the whole queries file."""

    label: str
    scores: list[QueryScore]
    latencies: list[float]
    unknown: int = 0  # run entries whose qid is not in the queries file

    def metrics(self, qids: set[str] | None = None) -> dict[str, float]:
        """Mean of each metric (over `qids` if given) and latency p50/p95 in ms."""
        chosen = [s for s in self.scores if qids is None or s.qid in qids]
        out = {name: _mean([s.values[name] for s in chosen]) for name in METRICS}
        times = [t for s, t in zip(self.scores, self.latencies, strict=True)
                 if (qids is None or s.qid in qids) and not math.isnan(t)]
        out["latency_p50_ms"] = float(np.percentile(times, 50)) if times else math.nan
        out["latency_p95_ms"] = float(np.percentile(times, 95)) if times else math.nan
        return out

    @property
    def missing(self) -> int:
        """Queries the run has no entry for (scored as zero)."""
        return sum(s.missing for s in self.scores)


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else math.nan


# --- reading files ---------------------------------------------------------------------------


def _jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}; check the path") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path} is not UTF-8 (byte {exc.start}); save it as UTF-8 and retry") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{path}:{number}: not JSON ({exc.msg}); each line must be one JSON object") from None
        if not isinstance(data, dict):
            raise ConfigError(f"{path}:{number}: each line must be a JSON object, not {type(data).__name__}")
        yield number, data


def _judgement(where: str, item: Any) -> Judgement:
    if not isinstance(item, dict) or not ({"path", "id"} & item.keys()):
        raise ConfigError(f"{where}: a judgement is {{\"path\", \"start_line\", \"end_line\"}}, {{\"path\"}} or {{\"id\"}}")
    if "id" in item:
        if "path" in item or not isinstance(item["id"], str):
            raise ConfigError(f"{where}: an id judgement has a string `id` and no `path`")
        return Judgement(id=item["id"])
    path, start, end = item.get("path"), item.get("start_line"), item.get("end_line")
    if not isinstance(path, str) or not path:
        raise ConfigError(f"{where}: `path` must be a non-empty string")
    if (start is None) != (end is None):
        raise ConfigError(f"{where}: give both start_line and end_line, or neither")
    if start is not None and not (isinstance(start, int) and isinstance(end, int) and 1 <= start <= end):
        raise ConfigError(f"{where}: lines must be integers with 1 <= start_line <= end_line")
    return Judgement(path=normalize_path(path), start_line=start, end_line=end)


def load_queries(path: Path) -> list[Query]:
    """Read and check a queries file; errors name the file, line and fix."""
    queries: list[Query] = []
    seen: dict[str, int] = {}
    for number, data in _jsonl(path):
        where = f"{path}:{number}"
        qid, text, relevant = data.get("qid"), data.get("query"), data.get("relevant")
        if not isinstance(qid, str | int) or isinstance(qid, bool) or not isinstance(text, str) or not text.strip():
            raise ConfigError(f"{where}: each line needs a `qid` and a non-empty `query` string")
        if str(qid) in seen:
            raise ConfigError(f"{where}: qid {qid!r} already used on line {seen[str(qid)]}")
        if not isinstance(relevant, list) or not relevant:
            raise ConfigError(f"{where}: `relevant` must be a non-empty list of judgements")
        judged = tuple(dict.fromkeys(_judgement(where, item) for item in relevant))
        extra = {k: v for k, v in data.items() if k not in ("qid", "query", "relevant")}
        seen[str(qid)] = number
        queries.append(Query(str(qid), text, judged, extra))
    if not queries:
        raise ConfigError(f"{path} holds no queries; write one JSON object per line")
    return queries


def load_run(path: Path) -> dict[str, QueryRun]:
    """Read a run file (the `--run-out` format) into ranked results per qid."""
    runs: dict[str, QueryRun] = {}
    for number, data in _jsonl(path):
        results = data.get("results")
        if "qid" not in data or not isinstance(results, list):
            raise ConfigError(f"{path}:{number}: a run line is {{\"qid\": ..., \"results\": [...]}}")
        took = data.get("took_ms")
        try:
            ranked = tuple(_ranked(r) for r in results)
            took = None if took is None else float(took)
        except (AttributeError, TypeError, ValueError):
            raise ConfigError(f"{path}:{number}: each result is an object with id, path, integer lines and a "
                              "numeric score; took_ms, if present, is a number") from None
        runs[str(data["qid"])] = QueryRun(str(data["qid"]), ranked, took)
    return runs


def _ranked(item: dict[str, Any]) -> Ranked:
    lines = (item.get("start_line"), item.get("end_line"))
    if any(line is not None and (not isinstance(line, int) or isinstance(line, bool)) for line in lines):
        raise TypeError("line numbers must be integers")
    source = item.get("source")
    return Ranked(str(item.get("id", "")), str(item.get("path", "")), lines[0], lines[1],
                  float(item.get("score", 0.0)), None if source is None else str(source))


def write_run(path: Path, runs: Iterable[QueryRun]) -> None:
    """Write ranked results as JSONL, one query per line, best first."""
    with path.open("w", encoding="utf-8") as handle:
        for run in runs:
            line: dict[str, Any] = {"qid": run.qid, "results": [r.to_dict() for r in run.results]}
            if run.took_ms is not None:
                line["took_ms"] = round(run.took_ms, 3)
            handle.write(json.dumps(line, ensure_ascii=False) + "\n")


# --- scoring ---------------------------------------------------------------------------------


def normalize_path(path: str) -> str:
    """`./a\\b.py` and `a/b.py` name the same file."""
    path = path.replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path


def credits(result: Ranked, judgements: tuple[Judgement, ...], min_overlap: float) -> set[int]:
    """Indices of the judgements this result hits."""
    path = normalize_path(result.path)
    hit: set[int] = set()
    for n, judged in enumerate(judgements):
        if judged.id is not None:
            if judged.id in (result.id, f"{result.source}:{path}"):
                hit.add(n)
        elif judged.path == path and _overlaps(result, judged, min_overlap):
            hit.add(n)
    return hit


def _overlaps(result: Ranked, judged: Judgement, min_overlap: float) -> bool:
    if judged.start_line is None or judged.end_line is None:
        return True
    if result.start_line is None:
        return False
    end = result.end_line if result.end_line is not None else result.start_line
    shared = min(end, judged.end_line) - max(result.start_line, judged.start_line) + 1
    return shared > 0 and shared >= min_overlap * (judged.end_line - judged.start_line + 1)


def score_query(query: Query, results: tuple[Ranked, ...], min_overlap: float = 0.0) -> QueryScore:
    """Recall@1/5/10, reciprocal rank, nDCG@10 (binary gains) and Success@10 of one ranked list."""
    credited: set[int] = set()
    found_at: list[int] = []  # per rank (1-based, up to CUTOFF): how many judgements were credited by then
    gains: list[int] = []
    for result in results[:CUTOFF]:
        new = credits(result, query.relevant, min_overlap) - credited
        credited |= new
        gains.append(1 if new else 0)
        found_at.append(len(credited))
    total = len(query.relevant)
    first = next((rank for rank, gain in enumerate(gains, 1) if gain), None)
    dcg = sum(gain / math.log2(rank + 1) for rank, gain in enumerate(gains, 1))
    ideal = sum(1 / math.log2(rank + 1) for rank in range(1, min(total, CUTOFF) + 1))

    def recall(k: int) -> float:
        return (found_at[min(k, len(found_at)) - 1] if found_at else 0) / total

    values = {"recall@1": recall(1), "recall@5": recall(5), "recall@10": recall(10),
              "mrr@10": 1 / first if first else 0.0, "ndcg@10": dcg / ideal,
              "success@10": 1.0 if first else 0.0}
    return QueryScore(query.qid, values, first)


def score_run(label: str, queries: list[Query], runs: dict[str, QueryRun], min_overlap: float = 0.0) -> RunReport:
    """Score every query; a query the run lacks scores zero and counts as missing."""
    report = RunReport(label, [], [], unknown=len(runs.keys() - {q.qid for q in queries}))
    for query in queries:
        run = runs.get(query.qid)
        score = score_query(query, run.results if run else (), min_overlap)
        report.scores.append(replace(score, missing=run is None))
        took = run.took_ms if run is not None and run.took_ms is not None else math.nan
        report.latencies.append(float(took))
    return report


def breakdown(report: RunReport, queries: list[Query], by: str) -> dict[str, dict[str, float]]:
    """Metrics per value of the query field `by` (queries without it fall under "(none)")."""
    groups: dict[str, set[str]] = {}
    for query in queries:
        value = query.fields.get(by)
        groups.setdefault("(none)" if value is None else str(value), set()).add(query.qid)
    return {value: {**report.metrics(qids), "queries": len(qids)} for value, qids in sorted(groups.items())}


# --- running searches ------------------------------------------------------------------------


@dataclass(frozen=True)
class Variant:
    """A way to search, e.g. `hybrid`, `keyword` or `hybrid+rerank+merge+hops1`."""

    label: str
    mode: str | None
    options: dict[str, Any]


def parse_variant(text: str, modes: tuple[str, ...]) -> Variant:
    """Read `MODE[+rerank][+merge][+hopsN][+nodecay]`."""
    mode, *extras = text.strip().split("+")
    if mode not in modes:
        raise ConfigError(f"unknown mode {mode!r} in {text!r}; use {', '.join(modes)} with +rerank, +merge, "
                          "+hops1-3, +nodecay")
    options: dict[str, Any] = {}
    for extra in extras:
        if extra in ("rerank", "merge"):
            options[extra] = True
        elif extra in ("hops1", "hops2", "hops3"):
            options["hops"] = int(extra[-1])
        elif extra == "nodecay":
            options["decay_on"] = False
        else:
            raise ConfigError(f"unknown option {extra!r} in {text!r}; use +rerank, +merge, +hops1-3 or +nodecay")
    return Variant(text.strip(), mode, options)


def query_facets(query: Query) -> Facets | None:
    """The filter a query line carries (`"filter": {"tags": [...], "types": [...], "files":
    [...], "since": ..., "until": ..., "products": [...], "entities": [...]}`, times as epoch
    seconds or ISO dates), applied before top-k like the CLI's filters; None without one.

    Raises:
        ConfigError: a filter that is not an object or names an unknown key.
    """
    spec = query.fields.get("filter")
    if spec is None:
        return None
    lists = ("tags", "types", "files", "products", "entities", "ids")
    if not isinstance(spec, dict) or set(spec) - {*lists, "since", "until"}:
        raise ConfigError(f"query {query.qid}: `filter` is an object of {', '.join(lists)}, since, until")

    def when(value: Any) -> float | None:
        if value is None or isinstance(value, (int, float)):
            return value
        from datetime import datetime, timezone

        at = datetime.fromisoformat(str(value))
        return (at if at.tzinfo else at.replace(tzinfo=timezone.utc)).timestamp()

    def values(name: str) -> tuple[str, ...]:
        return tuple(str(v) for v in spec.get(name, ()))

    return Facets(types=values("types"), tags=values("tags"), files=values("files"), ids=values("ids"),
                  products=values("products"), entities=values("entities"), since=when(spec.get("since")),
                  until=when(spec.get("until")))


def ranked(hits: Iterable[Hit]) -> tuple[Ranked, ...]:
    """A search's hits as run entries."""
    return tuple(Ranked(h.id, h.path, h.start_line, h.end_line, h.score, h.source) for h in hits)


def run_queries(search: Callable[[Query], tuple[Ranked, ...]], queries: list[Query],
                progress: Callable[[int], None] | None = None) -> dict[str, QueryRun]:
    """Send every query through `search` (after one untimed warm-up), timing each one."""
    search(queries[0])  # loads the model and the vector matrix outside the timings
    runs: dict[str, QueryRun] = {}
    for n, query in enumerate(queries, 1):
        started = time.perf_counter()
        results = search(query)
        runs[query.qid] = QueryRun(query.qid, results, (time.perf_counter() - started) * 1000)
        if progress is not None:
            progress(n)
    return runs

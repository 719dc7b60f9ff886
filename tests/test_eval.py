"""`mindex eval`: metrics checked against values worked out by hand, and the command end to end."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner

from mindex.errors import ConfigError
from mindex.evaluate import (
    Judgement,
    Query,
    QueryRun,
    Ranked,
    breakdown,
    load_queries,
    parse_variant,
    score_query,
    score_run,
)
from mindex.serve.cli import cli

LOG2_3 = math.log2(3)  # the discount at rank 2


def r(path: str, start: int | None = None, end: int | None = None, score: float = 1.0, id: str = "",
      source: str | None = None) -> Ranked:
    return Ranked(id or f"{path}:{start}", path, start, end, score, source)


SPAN_AND_FILE = Query("q1", "retries", (Judgement("a.py", 10, 20), Judgement("b.py")))
RANKING = (r("c.py", 1, 5), r("a.py", 15, 30), r("b.py", 1, 3), r("b.py", 5, 9), r("a.py", 12, 13))


def test_span_and_file_judgements_are_each_credited_once() -> None:
    values = score_query(SPAN_AND_FILE, RANKING).values
    # rank 2 hits the span, rank 3 the file; ranks 4 and 5 hit judgements already credited.
    assert values["recall@1"] == 0 and values["recall@5"] == 1 and values["recall@10"] == 1
    assert values["mrr@10"] == 0.5 and values["success@10"] == 1
    dcg, ideal = 1 / LOG2_3 + 1 / 2, 1 + 1 / LOG2_3
    assert values["ndcg@10"] == pytest.approx(dcg / ideal) == pytest.approx(0.693426, abs=1e-6)


def test_min_overlap_is_a_share_of_the_judged_span() -> None:
    # a.py 15-30 covers 6 of the 11 judged lines (0.545): enough for 0.5, not for 0.6.
    assert score_query(SPAN_AND_FILE, RANKING, min_overlap=0.5).values["recall@10"] == 1
    strict = score_query(SPAN_AND_FILE, RANKING, min_overlap=0.6).values
    assert strict["recall@10"] == 0.5 and strict["mrr@10"] == pytest.approx(1 / 3)
    assert strict["ndcg@10"] == pytest.approx((1 / 2) / (1 + 1 / LOG2_3))
    # A result that covers the whole span passes any threshold; touching lines count.
    assert score_query(SPAN_AND_FILE, (r("a.py", 1, 99),), min_overlap=1.0).values["recall@1"] == 0.5
    assert score_query(SPAN_AND_FILE, (r("a.py", 20, 25),)).values["mrr@10"] == 1
    assert score_query(SPAN_AND_FILE, (r("a.py", 21, 25), r("a.py"))).values["success@10"] == 0


def test_ties_keep_the_order_given() -> None:
    query = Query("q", "x", (Judgement("b.md"),))
    tied = (r("a.md", score=0.5), r("b.md", score=0.5))
    assert score_query(query, tied).values["mrr@10"] == 0.5
    assert score_query(query, tied[::-1]).values["mrr@10"] == 1


def test_duplicate_results_and_judgements_count_once() -> None:
    query = Query("q", "x", (Judgement("a.md"), Judgement("b.md")))
    values = score_query(query, (r("a.md", id="1"), r("a.md", id="1"), r("b.md"))).values
    assert values["recall@1"] == 0.5 and values["ndcg@10"] == pytest.approx((1 + 1 / 2) / (1 + 1 / LOG2_3))


def test_ids_match_chunks_or_documents_and_paths_ignore_dot_slash() -> None:
    query = Query("q", "x", (Judgement(id="abc123"), Judgement(id="docs:guide/a.md"), Judgement("c/d.md")))
    results = (r("x.md", id="abc123"), r("./guide/a.md", source="docs"), r(".\\c\\d.md"))
    assert score_query(query, results).values["recall@5"] == 1


def test_only_the_first_ten_results_count() -> None:
    query = Query("q", "x", tuple(Judgement(f"{n}.md") for n in range(12)))
    values = score_query(query, tuple(r(f"{n}.md") for n in range(12))).values
    assert values["recall@10"] == pytest.approx(10 / 12) and values["ndcg@10"] == pytest.approx(1.0)
    late = score_query(Query("q", "x", (Judgement("z.md"),)), (*[r(f"{n}.md") for n in range(10)], r("z.md")))
    assert late.values["success@10"] == 0 and late.first_hit is None


def test_missing_queries_score_zero_and_unknown_entries_are_counted() -> None:
    queries = [Query("q1", "a", (Judgement("a.md"),), {"topic": "x"}),
               Query("q2", "b", (Judgement("b.md"),), {"topic": "y"}),
               Query("q3", "c", (Judgement("c.md"),))]
    runs = {"q1": QueryRun("q1", (r("a.md"),), 10.0), "q3": QueryRun("q3", (r("x.md"), r("c.md")), 30.0),
            "q9": QueryRun("q9", (r("a.md"),), 99.0)}
    report = score_run("test", queries, runs)
    assert report.missing == 1 and report.unknown == 1
    metrics = report.metrics()
    assert metrics["mrr@10"] == pytest.approx((1 + 0 + 0.5) / 3) and metrics["success@10"] == pytest.approx(2 / 3)
    assert metrics["latency_p50_ms"] == 20 and metrics["latency_p95_ms"] == pytest.approx(29)  # 10 and 30, linear
    groups = breakdown(report, queries, "topic")
    assert groups["x"]["mrr@10"] == 1 and groups["y"]["mrr@10"] == 0 and groups["(none)"]["mrr@10"] == 0.5
    assert groups["x"]["queries"] == 1


@pytest.mark.parametrize(("line", "message"), [
    ("not json", r"q.jsonl:1: not JSON"),
    ('{"qid": "a", "query": "x", "relevant": []}', "non-empty list"),
    ('{"qid": "a", "query": "", "relevant": [{"path": "a"}]}', "non-empty `query`"),
    ('{"qid": "a", "query": "x", "relevant": [{"path": "a", "start_line": 3}]}', "both start_line and end_line"),
    ('{"qid": "a", "query": "x", "relevant": [{"path": "a", "start_line": 9, "end_line": 3}]}', "start_line <= end_line"),
    ('{"qid": "a", "query": "x", "relevant": [{"line": 3}]}', "a judgement is"),
    ('{"qid": "a", "query": "x", "relevant": [{"path": "a"}]}\n{"qid": "a", "query": "y", "relevant": [{"path": "b"}]}',
     "already used on line 1"),
    ("", "holds no queries"),
    ('{"qid": "a", "query": "caf\udce9", "relevant": [{"path": "a"}]}', r"q.jsonl is not UTF-8 \(byte 26\); save it as UTF-8"),
])
def test_bad_queries_files_name_the_line_and_the_fix(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "q.jsonl"
    path.write_bytes((line + "\n").encode("utf-8", "surrogateescape"))  # \udce9: the Latin-1 byte of é
    with pytest.raises(ConfigError, match=message):
        load_queries(path)


def test_variants_combine_a_mode_with_options() -> None:
    variant = parse_variant("hybrid+rerank+hops2", ("keyword", "semantic", "hybrid"))
    assert variant.mode == "hybrid" and variant.options == {"rerank": True, "hops": 2}
    with pytest.raises(ConfigError, match="unknown option 'fast'"):
        parse_variant("keyword+fast", ("keyword",))


QUERIES = [
    {"qid": "backoff", "query": "exponential backoff jitter Retry-After", "topic": "http",
     "relevant": [{"path": "./guide/retries.md"}]},
    {"qid": "nowhere", "query": "exponential backoff", "topic": "other",
     "relevant": [{"path": "guide/does-not-exist.md"}]},
]


@pytest.fixture
def run(tmp_path: Path, docs_dir: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()

    def invoke(*args: str, code: int = 0) -> str:
        result = runner.invoke(cli, list(args), catch_exceptions=False)
        assert result.exit_code == code, result.output
        return result.stdout if code == 0 else result.output

    invoke("add", str(docs_dir))
    invoke("index", "-q")
    (tmp_path / "q.jsonl").write_text("".join(json.dumps(q) + "\n" for q in QUERIES))
    return invoke


def test_cli_scores_searches_writes_runs_and_rescores_them(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    data = json.loads(run("eval", "q.jsonl", "--mode", "keyword", "--by", "topic", "--run-out", "run.jsonl", "--json", "-q"))
    (report,) = data["runs"]
    assert data["queries"] == 2 and report["label"] == "keyword"
    assert report["metrics"]["mrr@10"] == 0.5 and report["metrics"]["success@10"] == 0.5
    assert report["metrics"]["latency_p50_ms"] > 0
    assert report["by"]["topic"]["http"]["mrr@10"] == 1 and report["by"]["topic"]["other"]["recall@10"] == 0
    lines = [json.loads(line) for line in (tmp_path / "run.jsonl").read_text().splitlines()]
    assert [line["qid"] for line in lines] == ["backoff", "nowhere"]
    first = lines[0]["results"][0]
    assert first["path"] == "guide/retries.md" and {"id", "start_line", "end_line", "score"} <= first.keys()
    assert first["source"] == "docs"  # so `source:path` id judgements match on rescoring too
    scores = [res["score"] for res in lines[0]["results"]]
    assert scores == sorted(scores, reverse=True)
    again = json.loads(run("eval", "q.jsonl", "--run", "run.jsonl", "--json"))["runs"][0]
    assert again["label"] == "run"
    for name, value in report["metrics"].items():  # took_ms is kept to the microsecond
        assert again["metrics"][name] == pytest.approx(value, abs=1e-3), name


def test_cli_compares_variants_in_a_table_and_a_plot(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    shown = run("eval", "q.jsonl", "--compare", "keyword,keyword+merge", "--plot", "eval.html", "--run-out", "r.jsonl",
                "--by", "topic", "-q")
    rows = {line.split()[0]: line.split()[2:] for line in shown.splitlines() if line.strip().startswith(("http", "other"))}
    assert rows["http"][3] == "1.000" and rows["other"][3] == "0.000"  # MRR@10 per topic
    assert "keyword+merge" in shown and "MRR@10" in shown and "0.500" in shown
    page = (tmp_path / "eval.html").read_text()
    assert "<svg" in page and "keyword+merge" in page and "Latency" in page
    assert (tmp_path / "r.keyword.jsonl").exists() and (tmp_path / "r.keyword+merge.jsonl").exists()
    assert "writes .html or .svg" in run("eval", "q.jsonl", "--plot", "eval.png", code=1)
    assert "eval.html:1: not JSON" in run("eval", "eval.html", code=1)


def test_cli_compares_semantic_and_hybrid_with_the_real_model(run, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("MINDEX_EMBED__PROVIDER", "onnx")
    run("embed", "-q")
    data = json.loads(run("eval", "q.jsonl", "--compare", "keyword,semantic,hybrid", "--json", "-q"))
    labels = [report["label"] for report in data["runs"]]
    assert labels == ["keyword", "semantic", "hybrid"]
    for report in data["runs"]:  # the answer is the only file about backoff, whatever the mode
        assert report["metrics"]["mrr@10"] == 0.5, report["label"]


@pytest.mark.parametrize("result", ['{"id": "a", "path": "a.md", "start_line": "3", "end_line": 4}',
                                    '{"id": "a", "path": "a.md", "score": "high"}'])
def test_bad_run_files_name_the_line(tmp_path: Path, result: str) -> None:
    from mindex.evaluate import load_run

    path = tmp_path / "run.jsonl"
    path.write_text('{"qid": "q", "results": [' + result + ']}\n')
    with pytest.raises(ConfigError, match=r"run.jsonl:1: each result is an object"):
        load_run(path)

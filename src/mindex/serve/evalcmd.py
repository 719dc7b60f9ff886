"""`mindex eval`: run judged queries through search (or read saved runs) and score them."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from mindex.modes import MODES
from mindex.serve.clikit import (FiniteRange, State, emit_json, err, handle_errors, json_option, out, parse_weights,
                                  search_options)

if TYPE_CHECKING:
    from mindex.evaluate import Query, QueryRun, Ranked, RunReport, Variant
    from mindex.index import Index


@click.command("eval")
@click.argument("queries_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--mode", type=click.Choice(MODES), help="Search mode (default: as `mindex search`).")
@click.option("--compare", metavar="V1,V2,...", help="Run several variants side by side: a mode, optionally +rerank, +merge, +hops1-3, +nodecay.")
@click.option("--run", "run_files", multiple=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Score a saved run file instead of searching (repeat to compare runs).")
@click.option("-n", "--limit", default=10, show_default=True, type=click.IntRange(10, 1000), help="Results per query.")
@search_options
@click.option("--min-overlap", default=0.0, show_default=True, type=FiniteRange(0, 1),
              help="A span is hit only if the result covers at least this share of it.")
@click.option("--by", "by_fields", multiple=True, metavar="FIELD", help="Break the metrics down by this query field (repeatable).")
@click.option("--run-out", type=click.Path(dir_okay=False, path_type=Path),
              help="Write every query's ranked results as JSONL (one file per variant when comparing).")
@click.option("--plot", type=click.Path(dir_okay=False, path_type=Path), help="Write a chart of the metrics and latencies (.html or .svg).")
@json_option
@click.option("-q", "--quiet", is_flag=True, help="No progress bar.")
@click.pass_obj
@handle_errors
def eval_cmd(state: State, queries_file: Path, mode: str | None, compare: str | None, run_files: tuple[Path, ...],
             limit: int, source: str | None, kind: str | None, path_glob: str | None, rerank: bool | None,
             merge: bool | None, hops: int, weights: str | None, group_by: str | None, language: str | None,
             symbol_kind: str | None, min_overlap: float, by_fields: tuple[str, ...],
             run_out: Path | None, plot: Path | None, as_json: bool, quiet: bool) -> None:
    """Score search against judged queries: Recall@1/5/10, MRR@10, nDCG@10, Success@10, latency.

    QUERIES_FILE is JSONL, one query a line: {"qid": "q1", "query": "...", "relevant":
    [{"path": "src/a.py", "start_line": 10, "end_line": 30} | {"path": "..."} | {"id": "..."}]}.
    Other keys on a line are fields for --by. Exit code 0 once scored, whatever the numbers.

    \b
    Examples:
      mindex eval queries.jsonl
      mindex eval queries.jsonl --compare keyword,semantic,hybrid --by package
      mindex eval queries.jsonl --mode hybrid --run-out run.jsonl --json
      mindex eval queries.jsonl --run run.jsonl --run other.jsonl --min-overlap 0.5
      mindex eval queries.jsonl --compare keyword,hybrid,hybrid+rerank --plot eval.html
      mindex eval issues.jsonl --group-by file      # "which files" questions judged by path
    """
    from mindex.evaluate import Variant, load_queries, load_run, parse_variant, score_run
    from mindex.serve.plot import check_plot_path, write_plot

    if plot is not None:
        check_plot_path(plot)
    if run_files and (compare or mode):
        raise click.UsageError("--run scores saved runs; it cannot be combined with --mode or --compare")
    queries = load_queries(queries_file)
    if run_files:
        runs = {path.stem: load_run(path) for path in run_files}
    else:
        base = {"rerank": rerank, "merge": merge, "hops": hops, "language": language, "symbol_kind": symbol_kind,
                "weights": parse_weights(weights) if weights else None, "group_by": group_by}
        variants = [parse_variant(v, MODES) for v in compare.split(",")] if compare else [Variant(mode or "default", mode, {})]
        with state.open() as index:
            runs = _search_runs(index, queries, variants, base, limit, (source, kind, path_glob), quiet)
        if run_out is not None:
            _write_runs(run_out, runs)
    reports = [score_run(label, queries, run, min_overlap) for label, run in runs.items()]
    if plot is not None:
        write_plot(plot, reports)
    _emit(reports, queries, by_fields, min_overlap, as_json)


def _search_runs(index: Index, queries: list[Query], variants: list[Variant], base: dict[str, Any], limit: int,
                 filters: tuple[str | None, str | None, str | None], quiet: bool) -> dict[str, dict[str, QueryRun]]:
    from mindex.evaluate import query_facets, ranked, run_queries
    from mindex.serve.progress import IndexProgress

    runs: dict[str, dict[str, QueryRun]] = {}
    notes: set[str] = set()
    with IndexProgress(err, enabled=not quiet, unit="queries") as progress:
        for variant in variants:
            options = {**base, **variant.options}

            def search(query: Query, variant: Variant = variant, options: dict[str, Any] = options) -> tuple[Ranked, ...]:
                result = index.search(query.text, limit, 0, variant.mode, *filters, facets=query_facets(query),
                                      **options)
                if result.note:
                    notes.add(result.note)
                return ranked(result.hits)

            def advance(done: int, label: str = variant.label) -> None:
                progress.update(label, done, len(queries))

            runs[variant.label] = run_queries(search, queries, advance)
    for note in sorted(notes):
        err.print(f"[dim]note: {note}[/]", highlight=False)
    return runs


def _write_runs(path: Path, runs: dict[str, dict[str, QueryRun]]) -> None:
    from mindex.evaluate import write_run

    if len(runs) == 1:
        write_run(path, next(iter(runs.values())).values())
        return
    for label, run in runs.items():
        write_run(path.with_name(f"{path.stem}.{label}{path.suffix}"), run.values())


def _emit(reports: list[RunReport], queries: list[Query], by_fields: tuple[str, ...], min_overlap: float,
          as_json: bool) -> None:
    from mindex.evaluate import breakdown
    from mindex.serve import render

    if not as_json:
        render.print_eval(out, reports, {f: [breakdown(r, queries, f) for r in reports] for f in by_fields})
        return
    data = {
        "queries": len(queries),
        "min_overlap": min_overlap,
        "runs": [{
            "label": report.label,
            "metrics": _finite(report.metrics()),
            "missing": report.missing,
            "unknown": report.unknown,
            "by": {f: {value: _finite(m) for value, m in breakdown(report, queries, f).items()} for f in by_fields},
            "per_query": [{"qid": s.qid, **{k: round(v, 6) for k, v in s.values.items()}, "first_hit": s.first_hit}
                          for s in report.scores],
        } for report in reports],
    }
    emit_json(data)


def _finite(metrics: dict[str, float]) -> dict[str, float | None]:
    """JSON has no NaN: a latency nobody measured (saved runs without took_ms) is null."""
    return {k: None if isinstance(v, float) and math.isnan(v) else round(v, 6) for k, v in metrics.items()}

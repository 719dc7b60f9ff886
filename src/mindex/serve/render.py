"""Rendering results for people (rich terminal) and agents (markdown in a token budget)."""

from __future__ import annotations

import math
import posixpath
from collections import Counter
from typing import TYPE_CHECKING, Any

from mindex.textsafe import escape_marks, fence, marked_parts, markup_escape as escape, visible_name
from mindex.serve.words import Places, count as count, estimate_tokens as estimate_tokens, within_budget  # part of this module's API

from mindex.models import Hit, IndexReport, LocateResult, SearchResult, SourceStats

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Column

    from mindex.evaluate import RunReport
    from mindex.ops.sources import FileRow, Listing, Status

def location(hit: Hit, places: Places | None = None) -> str:
    """`path:12-30`, `path (page 3)` or just `path`; with `places`, the path as the user opens
    it from the working folder (the CLI's rule), else as stored (relative to its source)."""
    path = places.path(hit.source, hit.path) if places else visible_name(hit.path)
    if hit.page is not None:
        return f"{path} (page {hit.page})"
    if hit.start_line is not None:
        return f"{path}:{hit.start_line}-{hit.end_line}"
    return path


# Fence tags where a language's name in mindex.languages is not what markdown renderers know.
_FENCE_TAGS = {"make": "makefile", "text": "text", "csharp": "csharp", "hcl": "hcl", "plaintext": "text",
               "man": "markdown"}  # a manual page is read into the text it shows
# Documents whose chunks keep their own markup (a reStructuredText page is not converted).
_DOC_FENCES = {".rst": "rst", ".txt": "text", ".adoc": "asciidoc", ".asciidoc": "asciidoc", ".org": "org",
               ".rdoc": "rdoc", ".pod": "pod", ".texi": "texinfo", ".texinfo": "texinfo", ".txi": "texinfo"}


def fence_tag(hit: Hit) -> str:
    """The language a chunk's fence declares: the code's own; for documents markdown (what
    HTML, PDF and markdown pages are read as), or the markup a page keeps (`.rst`, `.txt`:
    pytest's reStructuredText docs were fenced as markdown)."""
    if hit.kind == "code":
        return _FENCE_TAGS.get(hit.language or "text", hit.language or "text")
    return _DOC_FENCES.get(posixpath.splitext(hit.path)[1].lower(), "markdown")


def _fence(text: str, tag: str = "markdown") -> str:
    return fence(text, tag)


def _echo(query: str, limit: int = 120) -> str:
    """A query as shown back: whole when short, its start when long (an issue's text pasted
    as a query need not be read twice)."""
    return query if len(query) <= limit else query[:limit].rstrip() + "…"


def search_markdown(result: SearchResult, budget_tokens: int) -> str:
    """Agent-facing markdown: a header, then hits with full text while the budget lasts.

    Once the budget is spent, remaining hits are listed by id and location only, so the
    agent still knows they exist and can `get_chunk` them.
    """
    if not result.hits:
        note = f" ({result.note})" if result.note else ""
        return f"No results for `{_echo(result.query)}`{note}. Try other words or fewer filters."
    lines = [f"{count(len(result.hits), 'result')} for `{_echo(result.query)}` ({result.mode}, {result.took_ms:.0f} ms)"]
    used = estimate_tokens(lines[0])
    brief: list[Hit] = []
    for n, hit in enumerate(result.hits, 1):
        block = (f"\n## {n}. {hit.context}\n`{location(hit)}` · id `{hit.id}` · score {hit.score:.4g}\n\n"
                 f"{_fence(hit.text, fence_tag(hit))}")
        cost = estimate_tokens(block)
        if brief or used + cost > budget_tokens:
            brief.append(hit)
            continue
        lines.append(block)
        used += cost
    if brief:
        lines.append("\nMore results (over the token budget; fetch with get_chunk):")
        lines.extend(f"- `{hit.id}` {location(hit)} — {hit.context}" for hit in brief)
    return "\n".join(lines)


def chunk_markdown(hit: Hit, budget_tokens: int) -> str:
    """One chunk for an agent: breadcrumb, location, then its text (cut to the budget)."""
    text = hit.text
    limit = budget_tokens * 4
    if len(text) > limit:
        text = text[:limit] + "\n… (cut to the token budget)"
    return f"## {hit.context}\n`{location(hit)}` · id `{hit.id}` · source {hit.source}\n\n{_fence(text, fence_tag(hit))}"


def sources_markdown(sources: list[SourceStats]) -> str:
    """A markdown table of sources for agents."""
    if not sources:
        return "No sources registered. A person adds one with `mindex add <folder>`."
    rows = ["| source | kind | documents | chunks | root |", "| --- | --- | --- | --- | --- |"]
    rows.extend(
        f"| {s.source.name} | {s.source.kind} | {s.documents} | {s.chunks} | {s.source.root} |"
        for s in sources
    )
    return "\n".join(rows)


def _file_about(file: FileRow) -> str:
    """A listed file's language (code only) and chunk count: `python, 3 chunks`."""
    return ", ".join([*([file.language] if file.language else []), count(file.chunks, "chunk")])


def listing_markdown(listing: Listing, budget_tokens: int) -> str:
    """The sources table for agents, then each source's files while the budget lasts."""
    text = sources_markdown(listing.sources)
    if listing.files is None:
        return text
    lines, used, left = [text], estimate_tokens(text), 0
    for name, files in listing.files.items():
        lines.append(f"\n{name}: {count(len(files), 'file')}")
        for f in files:
            line = f"- {visible_name(f.path)} ({_file_about(f)})"
            cost = estimate_tokens(line)
            if used + cost > budget_tokens:
                left += 1
                continue
            used += cost
            lines.append(line)
    if left:
        lines.append(f"\n… {count(left, 'more file')} over the token budget; name one source with `source`")
    return "\n".join(lines)


def print_listing(console: Console, listing: Listing, view: object = None) -> None:
    """The sources table, then each source's files (path, language, chunks)."""
    print_sources(console, listing.sources)
    for name, files in (listing.files or {}).items():
        console.print(f"\n[bold]{escape(name)}[/]: {count(len(files), 'file')}", highlight=False)
        for f in files:
            console.print(f"  {escape(visible_name(f.path))}  [dim]({_file_about(f)})[/]", highlight=False)


def _explain_part(name: str, value: Any) -> str:
    """One step of a hit's `explain`: a search leg, rerank (done or skipped), recency, a hop,
    merged chunks, or any other entry as key=value."""
    if name == "test_file":
        return f"test file ×{value} (the question is not about tests)"
    if name == "supersedes":
        return "supersedes " + ", ".join(str(v) for v in value)
    if not isinstance(value, dict):
        return f"{name} {count(len(value), 'chunk')}" if isinstance(value, list) else f"{name} {value}"
    if "skipped" in value:
        return f"{name} skipped: {value['skipped']}"
    if "rank" in value and "score" in value:
        before = f", was #{value['before']}" if "before" in value else ""
        return f"{name} #{value['rank']} ({value['score']:.3f}{before})"
    if name == "recency":
        return f"recency ×{value.get('factor')} (age {value.get('age_days')} days, half-life {value.get('half_life_days')})"
    if name == "hop":
        return f"hop from {value.get('from')} (similarity {value.get('similarity')})"
    return f"{name} " + " ".join(f"{k}={v}" for k, v in value.items())


def _explain_line(explain: dict[str, Any]) -> str:
    parts = [_explain_part(name, value) for name, value in explain.items() if name != "fused"]
    if "fused" in explain:
        parts += [f"{leg} —" for leg in ("keyword", "semantic") if leg not in explain]
        parts.append(f"fused {explain['fused']:.4f}")
    return "   " + " · ".join(parts)


def print_search(console: Console, result: SearchResult, explain: bool = False, places: Places | None = None) -> None:
    """Terminal rendering of a search: location (its source named when there are several),
    breadcrumb and highlighted snippet."""
    if not result.hits:
        note = f" ({result.note})" if result.note else ""
        console.print(f"No results for [bold]{escape(_echo(result.query))}[/]{escape(note)}.")
        return
    for n, hit in enumerate(result.hits, 1):
        named = places.source(hit.source) if places else ""
        # highlight=False: rich's highlighter would colour numbers and words inside paths and
        # indexed text (`architecture.m` + `d:103`); the styles here are ours alone.
        console.print(
            f"[bold cyan]{n}.[/] [green]{escape(location(hit, places))}[/]  "
            f"[dim]{escape(named) + ' · ' if named else ''}{hit.id}  score {hit.score:.4g}[/]", highlight=False
        )
        console.print(f"   [bold]{escape(visible_name(hit.context))}[/]", highlight=False)
        snippet = " ".join((hit.snippet or escape_marks(hit.text[:200])).split())
        console.print("   " + "".join(f"[reverse]{escape(text)}[/reverse]" if marked else escape(text)
                                      for text, marked in marked_parts(snippet)), highlight=False)
        if explain and hit.explain:
            console.print(f"[dim]{escape(_explain_line(hit.explain))}[/]")
    console.print(f"[dim]{count(len(result.hits), 'result')} · {result.mode} · {result.took_ms:.1f} ms[/]")


def print_locate(console: Console, result: LocateResult, places: Places | None = None) -> None:
    """Terminal rendering of `mindex locate`: files best first, each with its best chunks."""
    if not result.files:
        console.print(f"No files for [bold]{escape(_echo(result.query))}[/].")
        return
    for n, found in enumerate(result.files, 1):
        named = places.source(found.source) if places else found.source
        shown = places.path(found.source, found.path) if places else found.path
        console.print(f"[bold cyan]{n}.[/] [green]{escape(shown)}[/]  [dim]{escape(named) + ' · ' if named else ''}"
                      f"score {found.score:.4g}[/]", highlight=False)
        if found.frames:
            console.print(f"   stack trace: {_lines(found.frames)}", highlight=False)
        if found.symbols:
            console.print(f"   names: {escape(', '.join(found.symbols))}", highlight=False)
        for hit in found.chunks:
            console.print(f"   [dim]{hit.start_line}-{hit.end_line}  {hit.id}[/]  {escape(visible_name(hit.context))}",
                          highlight=False)
    console.print(f"[dim]{count(len(result.files), 'file')} · {result.mode} · {result.took_ms:.1f} ms[/]")


def _lines(lines: tuple[int, ...]) -> str:
    return ("line " if len(lines) == 1 else "lines ") + ", ".join(map(str, lines))


def locate_markdown(result: LocateResult, budget_tokens: int) -> str:
    """Agent-facing markdown for `locate_files`: files best first, their chunks and names."""
    if not result.files:
        return "No files found for this text. Try other words, or fewer filters."
    blocks = [[f"{n}. `{found.path}` ({found.source})" + (f" — defines {', '.join(found.symbols)}" if found.symbols else "")
               + (f" — the stack trace names its {_lines(found.frames)}" if found.frames else ""),
               *(f"   - lines {h.start_line}-{h.end_line}: {h.context} (chunk `{h.id}`)" for h in found.chunks)]
              for n, found in enumerate(result.files, 1)]
    head = f"{count(len(result.files), 'file')} ({result.mode}, {result.took_ms:.0f} ms), most likely first:"
    return within_budget(head, blocks, budget_tokens, lambda left: f"… {count(left, 'more file')} cut for the token budget")


def print_chunk(console: Console, hit: Hit, places: Places | None = None) -> None:
    """Terminal rendering of one chunk."""
    console.print(f"[green]{escape(location(hit, places))}[/]  [dim]{hit.id} · {escape(hit.source)}[/]")
    console.print(f"[bold]{escape(visible_name(hit.context))}[/]\n")
    console.print(escape(hit.text), highlight=False)


def print_sources(console: Console, sources: list[SourceStats]) -> None:
    """Terminal table of sources."""
    if not sources:
        console.print("No sources yet. Register one with [bold]mindex add <folder>[/].")
        return
    from rich import box
    from rich.table import Column, Table  # tables only: a search's lines print without rich's import

    # The index summary's layout: a folder's path folds only when it alone is wider than the
    # terminal, and the filters column shows only when a source has filters.
    filters = [" ".join([*(f"+{g}" for g in s.source.include), *(f"-{g}" for g in s.source.exclude)])
               for s in sources]
    columns: list[Column | str] = ["name", "kind", Column("documents", justify="right"), Column("chunks", justify="right"),
               Column("root", overflow="fold"), *(["filters"] if any(filters) else [])]
    table = Table(*columns, box=box.SIMPLE_HEAD, padding=0, pad_edge=False)
    for s, shown in zip(sources, filters):
        table.add_row(escape(s.source.name), s.source.kind, f"{s.documents:,}", f"{s.chunks:,}", escape(s.source.root),
                      *([escape(shown)] if any(filters) else []))
    console.print(table)


def print_reports(console: Console, reports: dict[str, IndexReport], quiet: bool = False) -> None:
    """End-of-run summary: counts per source, embedding time and rate, skipped files counted
    by reason (`mindex status --skipped` lists them); with `quiet`, one line in all."""
    if quiet:
        total = sum(r.seconds for r in reports.values())
        counts = {key: sum(getattr(r, key) for r in reports.values())
                  for key in ("added", "updated", "unchanged", "removed", "embedded")}
        skipped = sum(len(r.skipped) for r in reports.values())
        console.print(f"{len(reports)} {'source' if len(reports) == 1 else 'sources'}: "
                      + ", ".join(f"{n:,} {key}" for key, n in counts.items() if n or key != "embedded")
                      + f", {skipped:,} skipped · {total:.2f} s", highlight=False)
        return
    from rich import box
    from rich.table import Column, Table

    # One space between columns: with two, the nine columns overran an 80-column terminal (and
    # output without one), folding `knowledge` and cutting `unchanged` to `unchang…`.
    table = Table(Column("source", overflow="fold"), "added", "updated", "unchanged", "removed", "chunks", "embedded",
                  "skipped", "time", box=box.SIMPLE_HEAD, padding=0, pad_edge=False)
    for name, r in reports.items():
        table.add_row(escape(name), str(r.added), str(r.updated), str(r.unchanged), str(r.removed),
                      str(r.chunks), str(r.embedded), str(len(r.skipped)), f"{r.seconds:.2f} s")
    console.print(table)
    for name, r in reports.items():
        if r.embedded:
            rate = r.embedded / r.embed_seconds if r.embed_seconds else 0.0
            console.print(f"{escape(name)}: embedded {count(r.embedded, 'chunk')} in {r.embed_seconds:.1f} s "
                          f"({rate:,.0f} chunks/s)", highlight=False)
        if r.skipped:
            reasons = Counter(skip.reason.split(" (")[0] for skip in r.skipped)
            listed = ", ".join(f"{n:,} {reason}" for reason, n in reasons.most_common())
            console.print(f"[yellow]skipped[/] {escape(name)}: {escape(listed)} [dim](`mindex status --skipped` "
                          "lists them)[/]", highlight=False)


def print_errors(console: Console, reports: dict[str, IndexReport]) -> None:
    """A line per source that could not be indexed, with the reason."""
    for name, r in reports.items():
        for error in r.errors:
            console.print(f"[red]error[/] {escape(name)}: {escape(error)}", highlight=False)


def print_status_view(console: Console, status: Status, view: Any) -> None:
    """`mindex status` (the declared operation's terminal view)."""
    print_status(console, status.info, bool(view.values.get("skipped")))


def status_markdown(status: Status, budget_tokens: int) -> str:
    """The status as JSON in a fence (no face offers it to agents yet)."""
    import json

    return _fence(json.dumps(status.info, indent=1), "json")


def print_status(console: Console, status: dict[str, Any], skipped: bool = False) -> None:
    """Terminal rendering of `mindex status`: skipped files counted by reason, or listed."""
    size = status["db_bytes"] / 1_048_576
    console.print(f"[bold]index[/] {escape(status['db'])} (schema v{status['schema_version']}, {size:.1f} MB)")
    console.print(
        f"{count(status['sources'], 'source')} · {count(status['documents'], 'document')} · "
        f"{count(status['chunks'], 'chunk')}"
    )
    if not status["sources"]:
        console.print("No sources yet. Register one with [bold]mindex add <folder>[/].")
    if skipped:
        for skip in status["skipped"]:
            console.print(f"[yellow]skipped[/] {escape(skip['source'])}/{escape(visible_name(skip['path']))}: "
                          f"{escape(skip['reason'])}", highlight=False)
    elif status["skipped"]:
        reasons = Counter(skip["reason"].split(" (")[0] for skip in status["skipped"])
        listed = ", ".join(f"{n:,} {reason}" for reason, n in reasons.most_common())
        console.print(f"{count(len(status['skipped']), 'file')} skipped: {escape(listed)} [dim](--skipped lists them)[/]",
                      highlight=False)


def _metric_cells(metrics: dict[str, float]) -> list[str]:
    from mindex.evaluate import METRICS

    cells = [f"{metrics[name]:.3f}" for name in METRICS]
    return cells + ["—" if math.isnan(metrics[k]) else f"{metrics[k]:.1f}" for k in ("latency_p50_ms", "latency_p95_ms")]


def _metric_columns() -> list[Column]:
    """Fresh columns for each table (a rich Column keeps the cells it was given)."""
    from rich.table import Column

    return [Column(name, justify="right", no_wrap=True)
            for name in ("R@1", "R@5", "R@10", "MRR@10", "nDCG@10", "S@10", "p50", "p95")]


def print_eval(console: Console, reports: list[RunReport], by: dict[str, list[dict[str, dict[str, float]]]]) -> None:
    """One row per run (mode or run file) with every metric, then a table per run and `--by` field."""
    from rich import box
    from rich.table import Column, Table

    table = Table(Column("run", no_wrap=True), *_metric_columns(), box=box.SIMPLE_HEAD, padding=(0, 1), pad_edge=False,
                  title=f"{len(reports[0].scores)} queries · latency in ms")
    for report in reports:
        table.add_row(escape(report.label), *_metric_cells(report.metrics()))
    console.print(table)
    for report in reports:
        if report.missing or report.unknown:
            console.print(f"[yellow]{escape(report.label)}[/]: {report.missing} queries had no results "
                          f"in the run (scored 0), {report.unknown} run entries matched no query")
    for name, groups in by.items():
        for report, group in zip(reports, groups, strict=True):
            table = Table(Column(escape(name), no_wrap=True), Column("n", justify="right"), *_metric_columns(),
                          box=box.SIMPLE_HEAD, padding=(0, 1), pad_edge=False, title=f"{escape(report.label)} by {escape(name)}")
            for value, metrics in group.items():
                table.add_row(escape(value), str(int(metrics["queries"])), *_metric_cells(metrics))
            console.print(table)

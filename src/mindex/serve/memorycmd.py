"""Memory commands: `mindex memory ...`, `mindex knowledge ...` and `mindex context`."""

from __future__ import annotations

import sys
from typing import Any

import click

from mindex.modes import MODES
from mindex.serve.clikit import TEXT, FiniteRange, State, emit_json, err, handle_errors, json_option, not_blank, out
from mindex.textsafe import markup_escape as escape, visible_controls


def _text(parts: tuple[str, ...]) -> str:
    """The entry's text: the arguments, or stdin when the only argument is `-`."""
    if parts == ("-",):
        return sys.stdin.read()
    return " ".join(parts)


def _print_entries(items: list[dict[str, Any]]) -> None:
    if not items:
        err.print("no entries match")
        return
    for item in items:
        tags = f" [{', '.join(item.get('tags') or [])}]" if item.get("tags") else ""
        score = f"  {item['score']:.3f}" if "score" in item else ""
        out.print(f"[bold]{escape(item['id'])}[/]  {escape(str(item.get('at', ''))[:16])}  "
                  f"{escape(item.get('type', ''))}{escape(tags)}{score}", highlight=False)
        out.print(escape(item["text"].strip()), highlight=False, markup=True)
        if item.get("files"):
            out.print(f"[dim]files: {escape(', '.join(item['files']))}[/]", highlight=False)
        out.print()


_FILTERS = (
    click.option("--type", "types", type=TEXT, multiple=True, metavar="TYPE", help="Only entries of this type (repeatable)."),
    click.option("--tag", "tags", type=TEXT, multiple=True, metavar="TAG", help="Only entries with this tag (repeat: all of them)."),
    click.option("--since", metavar="DATE", help="Only entries at or after DATE (2026-10-01 or an ISO time)."),
    click.option("--days", type=FiniteRange(0), help="Only entries of the last N days."),
    click.option("--file", "files", type=TEXT, multiple=True, metavar="PATH", help="Only entries about this file, folder or glob."),
)


def _filters(func: Any) -> Any:
    for option in reversed(_FILTERS):
        func = option(func)
    return func


@click.group()
def memory() -> None:
    """What agents decided, learned and did: a markdown journal in .mindex/memory, indexed.

    \b
    Examples:
      mindex memory save "Retries back off exponentially, capped at 30 s" --type decision --tag http --file src/fetch/http.py
      mindex memory search "how do we retry failed requests" --days 30
      mindex memory list --type decision --limit 5
      mindex memory show m-20261123-044512-7f3a
      mindex memory forget m-20261123-044512-7f3a
      mindex memory rebuild
    """


@memory.command("save")
@click.argument("text", nargs=-1, type=TEXT, required=True)
@click.option("--type", "type_", default="progress", show_default=True,
              help="decision, progress, issue, handoff, insight, reference (more in memory.types).")
@click.option("--tag", "tags", type=TEXT, multiple=True, help="A tag (repeatable).")
@click.option("--file", "files", type=TEXT, multiple=True, help="A file the entry is about, relative to the project (repeatable).")
@click.option("--embed/--no-embed", default=None, help="Embed the entry now (default: memory.embed_on_save).")
@json_option
@click.pass_obj
@handle_errors
def save(state: State, text: tuple[str, ...], type_: str, tags: tuple[str, ...], files: tuple[str, ...],
         embed: bool | None, as_json: bool) -> None:
    """Append an entry to this month's journal; it is searchable when the command returns.

    TEXT is the entry (several words are joined; `-` reads it from stdin).

    \b
    Examples:
      mindex memory save "Chose SQLite WAL over a server: one file, no daemon" --type decision --tag storage
      git log -1 --format=%B | mindex memory save - --type progress
    """
    with state.open(create=True) as index:
        saved = index.memory.save(_text(text), type_, tags, files, embed=embed)
    if as_json:
        emit_json(saved.to_dict())
    else:
        out.print(escape(saved.said()), highlight=False)


@memory.command("search")
@click.argument("query", type=TEXT, callback=not_blank)
@click.option("-n", "--limit", default=10, show_default=True, type=click.IntRange(1, 1000))
@click.option("--mode", type=click.Choice(MODES), help="Search mode (default: hybrid when vectors exist).")
@_filters
@click.option("--until", metavar="DATE", help="Only entries before DATE.")
@click.option("--decay/--no-decay", default=True, show_default=True,
              help="Rank newer entries up (half-life search.half_life_days.memory, 30 days, stretched to the "
              "results' span) and a newer decision above the ones it restates.")
@click.option("--dates/--no-dates", default=True, show_default=True,
              help="Read a time the query names (last week, in May, on 2026-03-04) as --since/--until.")
@json_option
@click.pass_obj
@handle_errors
def search_cmd(state: State, query: str, limit: int, mode: str | None, types: tuple[str, ...], tags: tuple[str, ...],
               since: str | None, days: float | None, files: tuple[str, ...], until: str | None, decay: bool,
               dates: bool, as_json: bool) -> None:
    """Search the journal by keywords and meaning; filters apply before ranking. A time
    named in the query becomes a filter (the note on stderr says how it was read).

    \b
    Examples:
      mindex memory search "why did we pick WAL mode"
      mindex memory search "flaky test" --type issue --days 14 --json
      mindex memory search "what did we decide about caching last week"
    """
    from mindex.memory.book import entry_of, parse_since, parse_time

    with state.open(create=True) as index:
        result = index.memory.search(query, limit, types, tags, parse_since(since, days), files, mode, decay,
                                     until=parse_time(until), dates=dates)
    items = [entry_of(hit) for hit in result.hits]
    if result.note:
        err.print(f"[dim]note: {escape(result.note)}[/]", highlight=False)
    if as_json:
        emit_json({"query": result.query, "mode": result.mode, "took_ms": round(result.took_ms, 2),
                   "note": result.note, "results": items})
    else:
        _print_entries(items)


def _list(state: State, limit: int, types: tuple[str, ...], tags: tuple[str, ...], since: str | None,
          days: float | None, files: tuple[str, ...], as_json: bool) -> None:
    from mindex.memory.book import entry_of, parse_since

    with state.open(create=True) as index:
        hits = index.memory.recent(limit, types, tags, parse_since(since, days), files)
    items = [entry_of(hit) for hit in hits]
    for item in items:
        item.pop("score")
    if as_json:
        emit_json({"results": items})
    else:
        _print_entries(items)


for _name, _doc in (("list", "List entries, newest first."), ("recent", "The latest entries, newest first (as list).")):
    @memory.command(_name, help=_doc + "\n\n\b\nExamples:\n  mindex memory " + _name + " --type decision --limit 5\n"
                    "  mindex memory " + _name + " --file src/api --json")
    @click.option("-n", "--limit", default=20, show_default=True, type=click.IntRange(1, 10_000))
    @_filters
    @json_option
    @click.pass_obj
    @handle_errors
    def _listing(state: State, limit: int, types: tuple[str, ...], tags: tuple[str, ...], since: str | None,
                 days: float | None, files: tuple[str, ...], as_json: bool) -> None:
        _list(state, limit, types, tags, since, days, files, as_json)


@memory.command("show")
@click.argument("entry_id", type=TEXT)
@json_option
@click.pass_obj
@handle_errors
def show(state: State, entry_id: str, as_json: bool) -> None:
    """Show one memory entry or knowledge entity in full.

    \b
    Example:
      mindex memory show m-20261123-044512-7f3a --json

    \b
    Examples:
      mindex memory show m-20261123-044512-9f3a2c1e
      mindex memory show m-20261123 --json
    """
    with state.open() as index:
        item = index.memory.show(entry_id)
    if as_json:
        emit_json(item)
    else:
        _print_entries([item])
        out.print(f"[dim]{escape(item['file'])}[/]", highlight=False)


@memory.command("forget")
@click.argument("entry_id", type=TEXT)
@json_option
@click.pass_obj
@handle_errors
def forget(state: State, entry_id: str, as_json: bool) -> None:
    """Remove exactly one entry from its journal file (atomically) and from the index.

    \b
    Example:
      mindex memory forget m-20261123-044512-7f3a

    \b
    Examples:
      mindex memory forget m-20261123-044512-9f3a2c1e
    """
    with state.open() as index:
        item = index.memory.forget(entry_id)
    if as_json:
        emit_json({"forgotten": item["id"], "file": item["file"]})
    else:
        out.print(f"forgot {escape(item['id'])} ({escape(item['file'])})", highlight=False)


def _report(reports: dict[str, Any], as_json: bool) -> None:
    if as_json:
        emit_json({name: report.to_dict() for name, report in reports.items()})
        return
    for name, report in reports.items():
        out.print(f"{name}: {report.added + report.updated + report.unchanged} files, {report.chunks} chunks "
                  f"read again, {len(report.skipped)} problems", highlight=False)
        for skipped in report.skipped:
            err.print(f"  {escape(skipped.path)}: {escape(skipped.reason)}", highlight=False)


@memory.command("rebuild")
@json_option
@click.pass_obj
@handle_errors
def rebuild(state: State, as_json: bool) -> None:
    """Recreate every memory and knowledge row of the index from the files on disk.

    \b
    Example:
      mindex memory rebuild --json

    \b
    Examples:
      mindex memory rebuild
      mindex memory rebuild --json
    """
    with state.open(create=True) as index:
        reports = index.memory.rebuild()
    _report(reports, as_json)


@click.group()
def knowledge() -> None:
    """Learnings, patterns, mistakes and topics: markdown files in .mindex/knowledge, linked
    to code areas and files in a knowledge graph.

    \b
    Examples:
      mindex knowledge add learning "Retry with jitter, or every client retries at once" --file src/fetch/http.py
      mindex knowledge add mistake "Retried without jitter and overloaded the API" --area src/fetch --confidence 0.9
      mindex knowledge query --file src/fetch/http.py
      mindex knowledge query --text "retry storms" --json
    """


@knowledge.command("add")
@click.argument("type_", metavar="TYPE", type=click.Choice(["learning", "pattern", "mistake", "topic"]))
@click.argument("text", nargs=-1, type=TEXT, required=True)
@click.option("--title", type=TEXT, help="A short title (default: the text's first line).")
@click.option("--area", "areas", type=TEXT, multiple=True, help="A code area it is about (repeatable).")
@click.option("--file", "files", type=TEXT, multiple=True, help="A file it is about (repeatable).")
@click.option("--confidence", default=0.7, show_default=True, type=FiniteRange(0, 1))
@click.option("--supersedes", type=TEXT, multiple=True, metavar="ID", help="An entity this one replaces (hidden from then on).")
@click.option("--led-to", type=TEXT, multiple=True, metavar="ID", help="An entity this one led to (a mistake → its learning).")
@click.option("--issue", "issues", type=TEXT, multiple=True, help="An issue number it is about.")
@click.option("--tag", "tags", type=TEXT, multiple=True, help="A tag (repeatable).")
@json_option
@click.pass_obj
@handle_errors
def add(state: State, type_: str, text: tuple[str, ...], title: str | None, areas: tuple[str, ...],
        files: tuple[str, ...], confidence: float, supersedes: tuple[str, ...], led_to: tuple[str, ...],
        issues: tuple[str, ...], tags: tuple[str, ...], as_json: bool) -> None:
    """Write a knowledge file (front matter + text) and index it.

    \b
    Example:
      mindex knowledge add pattern "Every command takes --json" --area src/mindex/serve --supersedes k-20261001-101010-0c0c

    \b
    Examples:
      mindex knowledge add learning "Always add jitter to retries" --area src/fetch
      mindex knowledge add mistake "Retried without jitter" --file src/fetch/http.py --led-to k-3f2a9c01
    """
    with state.open(create=True) as index:
        item = index.memory.add_knowledge(type_, _text(text), title, areas, files, confidence, supersedes, led_to,
                                          issues, tags)
    if as_json:
        emit_json(item)
    else:
        out.print(f"added {escape(item['id'])} ({escape(item['file'])})", highlight=False)


@knowledge.command("query")
@click.option("--area", type=TEXT, help="A code area.")
@click.option("--file", "file", type=TEXT, help="A file (its area's knowledge comes too).")
@click.option("--issue", type=TEXT, help="An issue number.")
@click.option("--text", type=TEXT, help="A question, searched in the entities' text.")
@click.option("--depth", default=2, show_default=True, type=click.IntRange(1, 3), help="Hops through the graph.")
@click.option("--all", "show_all", is_flag=True, help="Also superseded entities.")
@click.option("-n", "--limit", default=20, show_default=True, type=click.IntRange(1, 1000))
@json_option
@click.pass_obj
@handle_errors
def query(state: State, area: str | None, file: str | None, issue: str | None, text: str | None, depth: int,
          show_all: bool, limit: int, as_json: bool) -> None:
    """Knowledge about an area, a file, an issue or a question, ranked by relevance,
    confidence and recency.

    \b
    Examples:
      mindex knowledge query --file src/fetch/http.py --depth 2
      mindex knowledge query --area src/fetch --all --json
    """
    with state.open(create=True) as index:
        items = index.memory.query(area, file, issue, text, depth, show_all, limit)
        links = index.memory.code_links(sorted({f for item in items for f in item["files"]})) if items else {}
    for item in items:
        item["code"] = [links[f] for f in item["files"] if f in links]
    if as_json:
        emit_json({"results": items})
        return
    if not items:
        err.print("no knowledge matches")
    for item in items:
        flag = " [dim](superseded)[/]" if item["superseded"] else ""
        out.print(f"[bold]{escape(item['id'])}[/]  {escape(item['type'])}  {item['score']:.3f}{flag}", highlight=False)
        out.print(f"  {escape(item['title'])}", highlight=False)
        out.print(f"  [dim]via {escape(' '.join(item['via']))}[/]", highlight=False)


@click.command("context")
@click.option("--files", "files", type=TEXT, multiple=True, metavar="PATH", help="Files the agent works on (repeatable; "
              "several may follow one --files).")
@click.option("--issue", type=TEXT, help="The issue being worked on.")
@click.option("--query", type=TEXT, help="What the agent is about to do (loads the model for a meaning search).")
@click.option("--budget", default=2000, show_default=True, type=click.IntRange(50, 200_000), help="Tokens (characters / 4).")
@json_option
@click.argument("more_files", nargs=-1, type=TEXT, metavar="")
@click.pass_obj
@handle_errors
def context(state: State, files: tuple[str, ...], issue: str | None, query: str | None, budget: int,
            more_files: tuple[str, ...], as_json: bool) -> None:
    """Markdown for an agent's context: learnings, patterns, mistakes and recent memory for
    the files, issue and query, grouped by code area, never over the token budget.

    \b
    Examples:
      mindex context --files src/a.py src/b.py --issue 123 --budget 1500
      mindex context --query "add retries to the uploader" --json
    """
    with state.open(create=True) as index:
        result = index.memory.context((*files, *more_files), issue, query, budget)
    if as_json:
        emit_json(result)
    else:
        click.echo(visible_controls(result["markdown"]), nl=False)

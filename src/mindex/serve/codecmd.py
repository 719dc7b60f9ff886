"""Code commands: `mindex grep`, `mindex symbols`, `mindex graph`, `mindex watch`."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click
from mindex.textsafe import markup_escape as escape, visible_controls

from mindex.serve.clikit import TEXT, FiniteRange, State, emit_json, err, handle_errors, json_option, not_blank, out
from mindex.serve.words import Places, count, impact_verb

from mindex.modes import DEFAULT_MIN_CONFIDENCE

if TYPE_CHECKING:
    from mindex.graph_types import Calls, SymbolRef
    from mindex.grep import GrepMatch

NO_MATCH = 3  # the "not found" exit code



@click.command()
@click.argument("pattern", type=TEXT)
@click.option("-i", "--ignore-case", is_flag=True, help="Match case-insensitively.")
@click.option("-S", "--smart-case", is_flag=True, help="Case-insensitive unless the pattern has an upper-case letter.")
@click.option("-F", "--fixed-strings", is_flag=True, help="PATTERN is text, not a regex.")
@click.option("-w", "--word-regexp", is_flag=True, help="Only matches at word boundaries.")
@click.option("-U", "--multiline", is_flag=True, help="Let matches span lines (`.` still stops at a newline unless `(?s)`).")
@click.option("--path", "path_glob", type=TEXT, metavar="GLOB", help="Only files matching GLOB, e.g. 'src/**' or '*.py'.")
@click.option("--source", type=TEXT, help="Only this source.")
@click.option("--language", type=TEXT, help="Only files in this language (python, go, ...).")
@click.option("-A", "--after-context", "after", default=0, type=click.IntRange(0, 100), help="Lines after each match.")
@click.option("-B", "--before-context", "before", default=0, type=click.IntRange(0, 100), help="Lines before each match.")
@click.option("-C", "--context", "around", type=click.IntRange(0, 100), help="Lines before and after each match.")
@click.option("-m", "--max-count", type=click.IntRange(1), help="At most this many matching lines per file.")
@click.option("-n", "--limit", default=200, show_default=True, type=click.IntRange(1, 100_000), help="At most this many matches in all.")
@click.option("-l", "--files-with-matches", "files_only", is_flag=True, help="Print only the paths of files with a match.")
@click.option("--timeout", default=30.0, show_default=True, type=FiniteRange(min=0.1, max=86400.0),
              help="Seconds the pattern may run (Python's re backtracks on patterns like (a|aa)+).")
@json_option
@click.pass_obj
@handle_errors
def grep(state: State, pattern: str, ignore_case: bool, smart_case: bool, fixed_strings: bool, word_regexp: bool,
         multiline: bool, path_glob: str | None, source: str | None, language: str | None, after: int, before: int,
         around: int | None, max_count: int | None, limit: int, files_only: bool, timeout: float,
         as_json: bool) -> None:
    """Regex search over indexed code, with exact line numbers (Python `re` syntax).

    Lines are reported the way ripgrep reports them; a trigram index picks the files that
    can match, so selective patterns stay fast on large trees. Exit code 0 with matches,
    3 with none.

    \b
    Examples:
      mindex grep 'def \\w+_handler\\(' --path 'src/**'
      mindex grep -i 'todo|fixme' --language python -C 2
      mindex grep -F 'retry(' --json | jq '.matches[] | "\\(.path):\\(.line)"'
      mindex grep -U 'try:\\n\\s+import'
    """
    if around is not None:
        before = after = around
    with state.open() as index:
        result = index.grep(pattern, ignore_case=ignore_case, smart_case=smart_case, fixed=fixed_strings,
                            word=word_regexp, multiline=multiline, source=source, path=path_glob,
                            language=language, before=before, after=after, max_count=max_count, limit=limit,
                            timeout=timeout)
        places = Places(index.roots())
    if as_json:
        emit_json(result.to_dict())
    elif files_only:
        for name, path in dict.fromkeys((m.source, m.path) for m in result.matches):
            click.echo(places.path(name, path))
    else:
        _print_matches(result.matches, places, context=before > 0 or after > 0)
    if result.note:
        err.print(f"[dim]note: {escape(result.note)}[/]", highlight=False)
    if result.truncated:
        err.print(f"[dim]stopped at {limit} matches; raise --limit or narrow with --path[/]", highlight=False)
    if not result.matches:
        sys.exit(NO_MATCH)


def _print_matches(matches: list[GrepMatch], places: Places, context: bool) -> None:
    """ripgrep's no-heading layout: `path:line:text`, context as `path-line-text`, `--` between groups."""
    color = sys.stdout.isatty()

    def style(text: str, fg: str) -> str:
        return click.style(text, fg=fg) if color else text

    last: tuple[str, str, int] | None = None
    for match in matches:
        shown = places.path(match.source, match.path)
        rows = [(n, t, "-") for n, t in match.before]
        rows += [(match.line + k, t, ":") for k, t in enumerate(match.text.split("\n"))]
        rows += [(n, t, "-") for n, t in match.after]
        if context and last is not None and (last[:2] != (match.source, match.path) or rows[0][0] > last[2] + 1):
            click.echo("--")
        for n, text, sep in rows:
            if last is not None and last[:2] == (match.source, match.path) and n <= last[2]:
                continue  # already printed as context of the previous match
            click.echo(f"{style(shown, 'magenta')}{sep}{style(str(n), 'green')}{sep}{visible_controls(text)}")
        last = (match.source, match.path, rows[-1][0])


@click.group()
def symbols() -> None:
    """Definitions in indexed code: find them by name."""


@symbols.command("find")
@click.argument("name", type=TEXT, callback=not_blank)
@click.option("--kind", type=TEXT, help="Only this kind: function, method, class, interface, type, constant, ...")
@click.option("--path", "path_glob", type=TEXT, metavar="GLOB", help="Only files matching GLOB.")
@click.option("-n", "--limit", default=20, show_default=True, type=click.IntRange(1, 1000), help="How many.")
@json_option
@click.pass_obj
@handle_errors
def symbols_find(state: State, name: str, kind: str | None, path_glob: str | None, limit: int, as_json: bool) -> None:
    """Find definitions by name: exact (`Session.send` or `send`), then prefix, then fuzzy.

    \b
    Examples:
      mindex symbols find Session
      mindex symbols find send --kind method --json
      mindex symbols find sesion            # fuzzy: finds Session
    """
    with state.open() as index:
        found = index.graph().find(name, kind, path_glob, limit)
        places = Places(index.roots())
    if as_json:
        emit_json({"query": name, "symbols": [{"match": how, **s.to_dict()} for how, s in found]})
        if not found:  # one rule, as grep: a lookup that finds nothing exits 3, with --json too
            sys.exit(NO_MATCH)
        return
    for how, symbol in found:
        out.print(f"[bold]{escape(symbol.name)}[/] [dim]{symbol.kind} · {how}[/]  "
                  f"{_at(places, symbol.source, symbol.path)}:{symbol.start_line}-{symbol.end_line}  "
                  f"{escape(symbol.signature)}",
                  highlight=False)
    if not found:
        err.print(escape(f"no definition matches {name!r}"), highlight=False)
        sys.exit(NO_MATCH)


@click.group()
def graph() -> None:
    """The code graph: callers, callees, impact, exports and outlines of indexed code.

    Calls are resolved through imports and scopes; each edge carries a confidence and the
    reason (`defined in this file`, `imported from pkg.models`, `ambiguous: 3 definitions
    named get`, ...). Unresolved calls are listed, never guessed.
    """


_SYMBOL_ARG = click.argument("symbol", type=TEXT)
_PATH_OPT = click.option("--path", "path_glob", type=TEXT, metavar="GLOB", help="Only definitions in files matching GLOB (to pick one of several).")


def _at(places: Places, source: str, path: str) -> str:
    """A file in the text output, escaped: as the user opens it, its source named when there
    are several."""
    named = places.source(source)
    return escape(places.path(source, path)) + (f" [dim]({escape(named)})[/]" if named else "")


def _edges_out(kind: str, found: list[Calls], places: Places, as_json: bool) -> None:
    if as_json:
        emit_json({kind: [calls.to_dict() for calls in found]})
        return
    for calls in found:
        target = calls.target
        out.print(f"[bold]{escape(target.name)}[/] [dim]({escape(places.path(target.source, target.path))}:"
                  f"{target.start_line})[/] — {kind}:", highlight=False)
        for edge in calls.edges:
            # callers: who calls, and where; callees: what is called (as written when it
            # resolves to nothing indexed, or to too many), and where it is defined (else
            # where it is called)
            shown = edge.scope or "<module>"
            where = f"{places.path(edge.source, edge.path)}:{edge.line}"
            if kind == "callees":
                shown = edge.target.name if edge.target else edge.call
                if edge.target:
                    where = f"{places.path(edge.target.source, edge.target.path)}:{edge.target.start_line}"
                if len(edge.lines) > 1:
                    shown += f" (×{len(edge.lines)})"
            out.print(f"  {escape(shown):40} {escape(where):40} [dim]{edge.confidence:.2f} {escape(edge.reason)}[/]",
                      highlight=False)
        if not calls.edges:
            out.print("  [dim](none)[/]")
        if calls.left_out:
            out.print(f"  [dim]{count(calls.left_out, 'call')} under the minimum confidence "
                      f"{calls.min_confidence:g} left out (--min-confidence 0 lists them)[/]", highlight=False)


_MIN_CONFIDENCE_OPT = click.option(
    "--min-confidence", default=DEFAULT_MIN_CONFIDENCE, show_default=True, type=FiniteRange(0, 1),
    help="Leave out calls resolved with less confidence (a name that 3+ definitions share is under 0.2); "
         "a callee whose every candidate is under it is listed once, with how many it might be.")


@graph.command()
@_SYMBOL_ARG
@_PATH_OPT
@_MIN_CONFIDENCE_OPT
@json_option
@click.pass_obj
@handle_errors
def callers(state: State, symbol: str, path_glob: str | None, min_confidence: float, as_json: bool) -> None:
    """What calls SYMBOL (`Class.method` or a name), most certain first.

    \b
    Examples:
      mindex graph callers Session.send
      mindex graph callers clean --path 'pkg/**' --json
      mindex graph callers get --min-confidence 0     # every guess too
    """
    with state.open() as index:
        found = index.graph().calls(symbol, "callers", path_glob, min_confidence)
        places = Places(index.roots())
    _edges_out("callers", found, places, as_json)


@graph.command()
@_SYMBOL_ARG
@_PATH_OPT
@_MIN_CONFIDENCE_OPT
@json_option
@click.pass_obj
@handle_errors
def callees(state: State, symbol: str, path_glob: str | None, min_confidence: float, as_json: bool) -> None:
    """What SYMBOL calls, in line order, each call once; unresolved calls (library code) included.

    \b
    Examples:
      mindex graph callees Session.send
      mindex graph callees Flask.wsgi_app --min-confidence 0.5 --json
    """
    with state.open() as index:
        found = index.graph().calls(symbol, "callees", path_glob, min_confidence)
        places = Places(index.roots())
    _edges_out("callees", found, places, as_json)


@graph.command()
@_SYMBOL_ARG
@_PATH_OPT
@click.option("--depth", default=2, show_default=True, type=click.IntRange(1, 10), help="How many levels of callers.")
@click.option("--min-confidence", default=0.5, show_default=True, type=FiniteRange(0, 1),
              help="Leave out calls resolved with less confidence.")
@json_option
@click.pass_obj
@handle_errors
def impact(state: State, symbol: str, path_glob: str | None, depth: int, min_confidence: float, as_json: bool) -> None:
    """Blast radius of changing SYMBOL: transitive callers and importers, grouped by file.

    \b
    Examples:
      mindex graph impact Session.send --depth 3
      mindex graph impact parse_config --json | jq '.impact[0].files[].path'
    """
    with state.open() as index:
        code = index.graph()
        targets = code.targets(symbol, path_glob)
        found = {t.id: code.impact(t, depth, min_confidence) for t in targets}
        places = Places(index.roots())
    if as_json:
        emit_json({"impact": [{"target": t.to_dict(), "files": found[t.id]} for t in targets]})
        return
    for target in targets:
        files = found[target.id]
        out.print(f"[bold]{escape(target.name)}[/] [dim]({escape(places.path(target.source, target.path))}:"
                  f"{target.start_line})[/] — "
                  f"{count(len(files), 'file')} affected", highlight=False)
        for entry in files:
            out.print(f"  [bold]{_at(places, entry['source'], entry['path'])}[/] [dim](depth {entry['depth']})[/]",
                      highlight=False)
            for hit in entry["hits"]:
                out.print(f"    {hit['line']:>5}  {escape(hit['scope'] or '<module>')} {escape(impact_verb(hit))} "
                          f"[dim]{hit['confidence']:.2f}[/]", highlight=False)


@graph.command()
@click.argument("file", type=TEXT)
@click.option("--source", type=TEXT, help="The source the file belongs to (when several hold that path).")
@json_option
@click.pass_obj
@handle_errors
def exports(state: State, file: str, source: str | None, as_json: bool) -> None:
    """What FILE offers other files: its visible top-level definitions.

    \b
    Examples:
      mindex graph exports src/pkg/api.py
    """
    with state.open() as index:
        code = index.graph()
        found = code.exports(code.document(file, source))
    _symbols_out(file, found, as_json, "exports")


@graph.command()
@click.argument("file", type=TEXT)
@click.option("--source", type=TEXT, help="The source the file belongs to (when several hold that path).")
@json_option
@click.pass_obj
@handle_errors
def outline(state: State, file: str, source: str | None, as_json: bool) -> None:
    """Every definition in FILE, nested, with lines and signatures.

    \b
    Examples:
      mindex graph outline src/pkg/api.py
    """
    with state.open() as index:
        code = index.graph()
        found = code.outline(code.document(file, source))
    _symbols_out(file, found, as_json, "symbols")


def _symbols_out(file: str, found: list[SymbolRef], as_json: bool, key: str) -> None:
    if as_json:
        emit_json({"file": file, key: [s.to_dict() for s in found]})
        return
    for symbol in found:
        depth = symbol.name.count(".")
        hidden = "" if symbol.exported else " [dim](private)[/]"
        out.print(f"{'  ' * depth}{symbol.start_line:>5}-{symbol.end_line:<5} [bold]{escape(symbol.signature)}[/] "
                  f"[dim]{symbol.kind}[/]{hidden}", highlight=False)


@click.command()
@click.argument("names", nargs=-1, type=TEXT, metavar="[SOURCE]...")
@click.option("--debounce", default=500, show_default=True, type=click.IntRange(10, 60_000),
              help="Group a burst of saves for at most this many milliseconds.")
@click.option("--reconcile", default=60.0, show_default=True, type=FiniteRange(1),
              help="Re-check every source this often (seconds), events or not.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per update, a line each.")
@click.pass_obj
@handle_errors
def watch(state: State, names: tuple[str, ...], debounce: int, reconcile: float, as_json: bool) -> None:
    """Keep the index live while you edit: re-index sources (all, or those named) within about
    a second of a save. Creates, renames, deletes and new folders are picked up; a periodic
    scan heals missed events. Stop with Ctrl-C.

    \b
    Examples:
      mindex watch
      mindex watch myrepo --debounce 200
      mindex watch --json | jq -c 'select(.touched)'
    """
    import json as jsonlib
    import time

    from mindex.watch import Update
    from mindex.watch import watch as run_watch

    def show(update: Update) -> None:
        if as_json:
            click.echo(jsonlib.dumps({"reason": update.reason, "changed": update.changed, "touched": update.touched,
                                      "seconds": round(update.seconds, 3), "error": update.error,
                                      "sources": {n: r.to_dict() for n, r in update.reports.items()}}))
            return
        stamp = time.strftime("%H:%M:%S")
        if update.error:
            err.print(f"{stamp} [red]update failed:[/] {escape(update.error)} (will retry)", highlight=False)
            return
        for name, report in update.reports.items():
            if report.errors:
                err.print(f"{stamp} {escape(name)}: [red]{escape('; '.join(report.errors))}[/]", highlight=False)
            elif update.reason == "start" or report.added or report.updated or report.removed:
                out.print(f"{stamp} {escape(name)}: {report.added} added, {report.updated} updated, "
                          f"{report.removed} removed ({update.seconds:.2f} s, {update.reason})", highlight=False)

    with state.open() as index:
        if not as_json:
            err.print("[dim]watching; Ctrl-C to stop[/]")
        run_watch(index, names, show, debounce_ms=debounce, reconcile_s=reconcile)

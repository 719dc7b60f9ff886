"""How the code operations (`mindex.ops.code`) look: lines for the terminal, markdown within
a token budget for an agent."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from itertools import islice
from typing import TYPE_CHECKING, Any

from mindex.serve.words import Places, count, impact_verb, within_budget
from mindex.textsafe import markup_escape as escape, visible_controls

if TYPE_CHECKING:
    from rich.console import Console

    from mindex.grep import GrepResult
    from mindex.ops.code import CallGraph, Definitions, FileSymbols, Impact
    from mindex.serve.opscli import View


def at(places: Places, source: str, path: str) -> str:
    """A file in the text output, escaped: as the user opens it, its source named when there
    are several."""
    named = places.source(source)
    return escape(places.path(source, path)) + (f" [dim]({escape(named)})[/]" if named else "")


# -- grep ---------------------------------------------------------------------------------


def print_grep(console: Console, result: GrepResult, view: View) -> None:
    """ripgrep's no-heading layout: `path:line:text`, context as `path-line-text`, `--`
    between groups; with --files-with-matches, each file's path once."""
    import click

    places = view.places
    if view.values.get("files_only"):
        for name, path in dict.fromkeys((source, path) for source, path, _, _ in result.lines()):
            click.echo(places.path(name, path))
        return
    around = view.values.get("context")
    context = around > 0 if around is not None else view.values["before"] > 0 or view.values["after"] > 0
    color = sys.stdout.isatty()

    def style(text: str, fg: str) -> str:
        return click.style(text, fg=fg) if color else text

    # A file's shown path is worked out once, not once a match.
    shown_as: dict[tuple[str, str], str] = {}

    def shown_path(source: str, path: str) -> str:
        key = (source, path)
        if key not in shown_as:
            shown_as[key] = style(places.path(source, path), "magenta")
        return shown_as[key]

    def laid_out() -> Iterator[str]:
        last: tuple[str, str, int] | None = None
        for match in result.matches:
            key = (match.source, match.path)
            rows = [(n, t, "-") for n, t in match.before]
            rows += [(match.line + k, t, ":") for k, t in enumerate(match.text.split("\n"))]
            rows += [(n, t, "-") for n, t in match.after]
            if context and last is not None and (last[:2] != key or rows[0][0] > last[2] + 1):
                yield "--"
            for n, text, sep in rows:
                if last is not None and last[:2] == key and n <= last[2]:
                    continue  # already printed as context of the previous match
                yield f"{shown_path(*key)}{sep}{style(str(n), 'green')}{sep}{visible_controls(text)}"
            last = (match.source, match.path, rows[-1][0])

    if not context and not color and not any("\n" in text for _, _, _, text in result.lines()):
        # The common case, a line a match and nothing around it: 1 µs a line instead of 2.7,
        # and no match made (`GrepResult.lines`).
        lines: Iterable[str] = (f"{shown_path(source, path)}:{line}:{visible_controls(text)}"
                                for source, path, line, text in result.lines())
    else:
        lines = laid_out()
    # A few hundred lines a write: `click.echo` flushes each call, and 40,000 matches written
    # one by one took a second of system calls.
    pending = iter(lines)
    while batch := list(islice(pending, 500)):
        click.echo("\n".join(batch))


def grep_notes(console: Console, result: GrepResult, view: View) -> None:
    """Why matches may be missing, and a limit reached (stderr, with --json too)."""
    if result.note:
        console.print(f"[dim]note: {escape(result.note)}[/]", highlight=False)
    if result.truncated:
        console.print(f"[dim]stopped at {view.values['limit']} matches; raise --limit or narrow with --path[/]",
                      highlight=False)


def grep_markdown(result: GrepResult, budget_tokens: int) -> str:
    """grep matches as `path:line: text` lines within the budget."""
    blocks = []
    for match in result.matches:
        block = [f"{match.path}-{k}- {t}" for k, t in match.before]
        block += [f"{match.path}:{match.line + k}: {t}" for k, t in enumerate(match.text.split("\n"))]
        block += [f"{match.path}-{k}- {t}" for k, t in match.after]
        if match.symbol:
            block[0] += f"    [in {match.symbol}, chunk {match.chunk_id}]"
        blocks.append(block)
    head = (f"{count(len(result.matches), 'match')} in {count(result.files_searched, 'file')} searched"
            + (" (stopped at the limit)" if result.truncated else "") + (f"\nNote: {result.note}" if result.note else ""))
    return within_budget(head, blocks, budget_tokens,
                         lambda left: f"… {count(left, 'more match')} cut for the token budget; narrow with path")


# -- definitions --------------------------------------------------------------------------


def print_definitions(console: Console, result: Definitions, view: View) -> None:
    """One definition a line: name, kind and how it matched, where, signature."""
    for how, symbol in result.found:
        console.print(f"[bold]{escape(symbol.name)}[/] [dim]{symbol.kind} · {how}[/]  "
                      f"{at(view.places, symbol.source, symbol.path)}:{symbol.start_line}-{symbol.end_line}  "
                      f"{escape(symbol.signature)}", highlight=False)
    if not result.found:
        view.err.print(escape(f"no definition matches {result.query!r}"), highlight=False)


def _symbol_lines(symbols: list[dict[str, Any]]) -> str:
    if not symbols:
        return "No definition found."
    return "\n".join(
        f"- `{s['name']}` {s['kind']} — {s['path']}:{s['start_line']}-{s['end_line']} `{s['signature']}`"
        + ("" if s["exported"] else " (private)") + (f" [{s['match']}]" if s.get("match") else "")
        + f" (chunk {s['chunk_id']})" for s in symbols)


def symbols_markdown(result: Definitions, budget_tokens: int) -> str:
    """Definitions found by name, one a line."""
    return _symbol_lines([{**s.to_dict(), "match": how} for how, s in result.found])


def file_symbols_markdown(result: FileSymbols, budget_tokens: int) -> str:
    """A file's definitions, one a line."""
    return _symbol_lines([s.to_dict() for s in result.symbols])


def print_file_symbols(console: Console, result: FileSymbols, view: View) -> None:
    """A file's definitions, nested by their dotted names."""
    for symbol in result.symbols:
        depth = symbol.name.count(".")
        hidden = "" if symbol.exported else " [dim](private)[/]"
        console.print(f"{'  ' * depth}{symbol.start_line:>5}-{symbol.end_line:<5} [bold]{escape(symbol.signature)}[/] "
                      f"[dim]{symbol.kind}[/]{hidden}", highlight=False)


# -- the call graph -----------------------------------------------------------------------


def short_call(call: str) -> str:
    """A call as written, for reading: each argument list `(…)`, a chain of calls over several
    lines on one (`Command::new(…).arg(…).output`; the JSON keeps it as written). A receiver
    that the stored text cuts short is closed before the name called."""
    receiver, dot, name = call.rpartition(".")
    if dot and receiver and name.isidentifier():
        return f"{_arguments_elided(receiver)}.{name}"
    return _arguments_elided(call)


def _arguments_elided(call: str) -> str:
    out: list[str] = []
    depth, quote, inside = 0, "", False
    for ch in " ".join(call.split()):
        if not depth:
            depth, inside = (1, False) if ch == "(" else (0, inside)
            out.append(ch)
            continue
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'`":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if not depth:
                out.append("…)" if inside else ")")
                continue
        inside = True
    return ("".join(out) + ("…)" if depth else "")).replace(" .", ".")


def print_edges(console: Console, result: CallGraph, view: View) -> None:
    """Per matched definition, its callers (who calls, and where) or callees (what is called,
    and where it is defined)."""
    places, kind = view.places, result.kind
    for calls in result.found:
        target = calls.target
        console.print(f"[bold]{escape(target.name)}[/] [dim]({escape(places.path(target.source, target.path))}:"
                      f"{target.start_line})[/] — {kind}:", highlight=False)
        for edge in calls.edges:
            # callees: as written when it resolves to nothing indexed (or to too many), and
            # where it is defined (else where it is called)
            shown = edge.scope or "<module>"
            where = f"{places.path(edge.source, edge.path)}:{edge.line}"
            if kind in ("subclasses", "implementations") and edge.target and edge.target.id != target.id:
                shown += f" (of {edge.target.name})"
            if kind == "callees":
                shown = edge.target.name if edge.target else short_call(edge.call)
                if edge.target:
                    where = f"{places.path(edge.target.source, edge.target.path)}:{edge.target.start_line}"
                if len(edge.lines) > 1:
                    shown += f" (×{len(edge.lines)})"
            console.print(f"  {escape(shown):40} {escape(where):40} [dim]{edge.confidence:.2f} {escape(edge.reason)}[/]",
                          highlight=False)
        if not calls.edges:
            console.print("  [dim](none)[/]")
        if calls.left_out:
            console.print(f"  [dim]{count(calls.left_out, 'call')} under the minimum confidence "
                          f"{calls.min_confidence:g} left out (--min-confidence 0 lists them)[/]", highlight=False)


def edges_markdown(result: CallGraph, budget_tokens: int) -> str:
    """Callers or callees per matched definition."""
    out, kind = [], result.kind
    for entry in result.structured()["results"]:
        target = entry["target"]
        out.append(f"## {target['name']} ({target['path']}:{target['start_line']}) — {kind}")
        for edge in entry["edges"]:
            if kind == "callees":
                reached = edge["target"]
                where = f"{reached['name']} at {reached['path']}:{reached['start_line']}" if reached else (
                    f"{edge['candidates']} possible definitions" if edge.get("candidates") else "unresolved")
                lines = edge.get("lines") or [edge["line"]]
                shown = f"line {lines[0]}" if len(lines) == 1 else f"lines {', '.join(map(str, lines))}"
                out.append(f"- {shown}: `{short_call(edge['call'])}` → {where} ({edge['confidence']}, {edge['reason']})")
            elif kind in ("subclasses", "implementations"):
                out.append(f"- `{edge['scope']}` at {edge['path']}:{edge['line']} names `{edge['call']}` "
                           f"({edge['confidence']}, {edge['reason']}, chunk {edge['chunk_id']})")
            else:
                out.append(f"- {edge['path']}:{edge['line']} in `{edge['scope'] or '<module>'}`: `{short_call(edge['call'])}` "
                           f"({edge['confidence']}, {edge['reason']}, chunk {edge['chunk_id']})")
        if not entry["edges"]:
            out.append("- none")
        if entry.get("left_out"):
            out.append(f"- ({count(entry['left_out'], 'more call')} under the minimum confidence "
                       f"{entry['min_confidence']:g}: lower min_confidence to list them)")
    return "\n".join(out)


def print_impact(console: Console, result: Impact, view: View) -> None:
    """Per matched definition, the files a change reaches, each with the lines that reach it."""
    places = view.places
    for target in result.targets:
        files = result.files[target.id]
        console.print(f"[bold]{escape(target.name)}[/] [dim]({escape(places.path(target.source, target.path))}:"
                      f"{target.start_line})[/] — {count(len(files), 'file')} affected", highlight=False)
        for entry in files:
            console.print(f"  [bold]{at(places, entry['source'], entry['path'])}[/] [dim](depth {entry['depth']})[/]",
                          highlight=False)
            for hit in entry["hits"]:
                console.print(f"    {hit['line']:>5}  {escape(hit['scope'] or '<module>')} {escape(impact_verb(hit))} "
                              f"[dim]{hit['confidence']:.2f}[/]", highlight=False)


def impact_markdown(result: Impact, budget_tokens: int) -> str:
    """Impact per matched definition, grouped by file."""
    out = []
    for entry in result.results:
        target = entry["target"]
        out.append(f"## Changing {target['name']} ({target['path']}:{target['start_line']}) reaches "
                   f"{count(len(entry['files']), 'file')}")
        for group in entry["files"]:
            out.append(f"- {group['path']} (depth {group['depth']})")
            for hit in group["hits"]:
                out.append(f"  - line {hit['line']}: `{hit['scope'] or '<module>'}` {impact_verb(hit)}")
    return "\n".join(out)

"""How the memory and knowledge operations (`mindex.ops.memory`) look: lines for the
terminal, markdown within a token budget for an agent."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mindex.textsafe import markup_escape as escape, visible_controls

if TYPE_CHECKING:
    from rich.console import Console

    from mindex.ops.memory import Context, Entries, Entry
    from mindex.serve.opscli import View


def _print_items(console: Console, items: list[dict[str, Any]], view: View, empty: str = "no entries match") -> None:
    if not items:
        view.err.print(empty)
        return
    for item in items:
        tags = f" [{', '.join(item.get('tags') or [])}]" if item.get("tags") else ""
        score = f"  {item['score']:.3f}" if "score" in item else ""
        console.print(f"[bold]{escape(item['id'])}[/]  {escape(str(item.get('at', ''))[:16])}  "
                      f"{escape(item.get('type', ''))}{escape(tags)}{score}", highlight=False)
        console.print(escape(item["text"].strip()), highlight=False, markup=True)
        if item.get("files"):
            console.print(f"[dim]files: {escape(', '.join(item['files']))}[/]", highlight=False)
        console.print()


def print_entries(console: Console, result: Entries, view: View) -> None:
    """Each entry: id, time, type, tags (and score), its text, its files."""
    _print_items(console, result.items, view)


def print_shown(console: Console, result: Entry, view: View) -> None:
    """One entry in full, then the file that holds it."""
    _print_items(console, [result.item], view)
    console.print(f"[dim]{escape(result.item['file'])}[/]", highlight=False)


def print_said(console: Console, result: Entry, view: View) -> None:
    """The line that reports a save, a forget or an addition."""
    console.print(escape(result.said), highlight=False)


def print_knowledge(console: Console, result: Entries, view: View) -> None:
    """Each entity: id, type, score (superseded or not), title, how the graph reached it."""
    if not result.items:
        view.err.print(result.empty)
    for item in result.items:
        flag = " [dim](superseded)[/]" if item["superseded"] else ""
        console.print(f"[bold]{escape(item['id'])}[/]  {escape(item['type'])}  {item['score']:.3f}{flag}",
                      highlight=False)
        console.print(f"  {escape(item['title'])}", highlight=False)
        console.print(f"  [dim]via {escape(' '.join(item['via']))}[/]", highlight=False)


def search_note(console: Console, result: Entries, view: View) -> None:
    """How a time named in the query was read (stderr, with --json too)."""
    if result.note:
        console.print(f"[dim]note: {escape(result.note)}[/]", highlight=False)


def print_context(console: Console, result: Context, view: View) -> None:
    """The markdown, as text."""
    import click

    click.echo(visible_controls(result.data["markdown"]), nl=False)


def entries_markdown(result: Entries, budget: int) -> str:
    """Entries while the budget lasts: a head line (id, date, type, tags), then the text."""
    items = result.items
    if not items:
        return result.empty
    lines, used = [], 0
    for n, item in enumerate(items):
        tags = f" [{', '.join(item.get('tags') or [])}]" if item.get("tags") else ""
        head = f"**{item['id']}** · {str(item.get('at', ''))[:10]} · {item.get('type', '')}{tags}"
        body = item.get("text") or item.get("title") or ""
        block = f"{head}\n{body}\n"
        if used + len(block) > budget * 4:
            lines.append(f"({len(items) - n} more: ask with a smaller limit or read them with memory_search filters)")
            break
        lines.append(block)
        used += len(block)
    return "\n".join(lines)


def search_markdown(result: Entries, budget: int) -> str:
    """The note on how a named time was read, then the entries."""
    text = entries_markdown(result, budget)
    return f"_{result.note}_\n\n{text}" if result.note else text


def said_markdown(result: Entry, budget: int) -> str:
    return result.said


def synaptic_markdown(result: Any, budget: int) -> str:
    """Synaptic's own answer text: its JSON, indented."""
    import json

    return json.dumps(result.data, indent=2, ensure_ascii=False)


def forgot_markdown(result: Entry, budget: int) -> str:
    return f"forgot {result.item['id']}"


def context_markdown(result: Context, budget: int) -> str:
    return str(result.data["markdown"])

"""How the changelog operations (`mindex.ops.changelogs`) look: lines for the terminal,
markdown within a token budget for an agent."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mindex.textsafe import markup_escape as escape

if TYPE_CHECKING:
    from rich.console import Console

    from mindex.ops.changelogs import Changes, Release, Rows, Synergy
    from mindex.serve.opscli import View


def _print_items(console: Console, items: list[dict[str, Any]]) -> None:
    last = None
    for item in items:
        head = (item["product"], item["version"])
        if head != last:
            console.print(f"[bold]{escape(item['product'])} {escape(str(item['version']))}[/]"
                          + (f"  {item['date']}" if item.get("date") else ""), highlight=False)
            last = head
        entities = f"  [dim]{escape(', '.join(item['entities'][:6]))}[/]" if item.get("entities") else ""
        console.print(f"  [{item['kind']}] {escape(' '.join(item['text'].split()))}{entities}", highlight=False)


def print_changes(console: Console, result: Changes | Release, view: View) -> None:
    """Changes under a `product version` line per release; why there are none on stderr."""
    if not result.items:
        view.err.print(escape(result.empty), highlight=False)
    _print_items(console, result.items)


def print_each_change(console: Console, result: Changes, view: View) -> None:
    """Search results, each under its release's line (ranked, so releases interleave)."""
    for item in result.items:
        _print_items(console, [item])


def search_note(console: Console, result: Changes, view: View) -> None:
    """Why the ranking is not what was asked (a reranker skipped), on stderr, with --json too."""
    note = (result.head or {}).get("note")
    if note:
        console.print(f"[dim]note: {escape(note)}[/]", highlight=False)


def changes_markdown(result: Changes | Release, budget: int) -> str:
    """Changes under a bold line per release, while the budget lasts."""
    items = result.items
    note = (getattr(result, "head", None) or {}).get("note")
    if not items:
        return result.empty + (f" (note: {note})" if note else "")
    lines, used, last = [f"note: {note}\n"] if note else [], 0, None
    for n, item in enumerate(items):
        head = (item["product"], item["version"])
        block = ""
        if head != last:
            block = f"**{item['product']} {item['version']}**" + (f" ({item['date']})" if item.get("date") else "") + "\n"
            last = head
        block += f"- [{item['kind']}] {' '.join(item['text'].split())} `{item['id']}`\n"
        if used + len(block) > budget * 4:
            lines.append(f"({len(items) - n} more: narrow with product, kind or version filters)")
            break
        lines.append(block)
        used += len(block)
    return "".join(lines)


def print_products(console: Console, result: Rows, view: View) -> None:
    """A product a line: name, strategy, where it comes from, what is stored."""
    for row in result.items:
        have = f"{row['releases']} releases, latest {row['latest']}" if row["releases"] else "not fetched"
        console.print(f"[bold]{escape(row['name'])}[/]  {row.get('strategy') or 'imported'}  "
                      f"{escape(str(row.get('source') or ''))}  [dim]{have}[/]", highlight=False)


def products_markdown(result: Rows, budget: int) -> str:
    """The products with releases stored, then those known but not fetched."""
    items = result.items
    lines = [f"- {i['name']}: {i['releases']} releases, latest {i['latest']}"
             + (f" ({i['latest_date']})" if i.get("latest_date") else "") for i in items if i["releases"]]
    waiting = [i["name"] for i in items if not i["releases"]]
    if waiting:
        lines.append(f"Known but not fetched ({len(waiting)}; the user fetches them with `mindex changelog fetch "
                     f"NAME`): {', '.join(waiting)}")
    return "\n".join(lines)


def print_synergies(console: Console, result: Rows, view: View) -> None:
    """A synergy a line: name, title, products."""
    for s in result.items:
        console.print(f"[bold]{escape(s['name'])}[/]  {escape(s['title'])}  [dim]{escape(', '.join(s['products']))}[/]",
                      highlight=False)


def synergies_markdown(result: Rows, budget: int) -> str:
    """A synergy a line."""
    return "\n".join(f"- {s['name']}: {s['title']} ({', '.join(s['products'])})" for s in result.items) \
        or "no synergies"


def print_synergy(console: Console, result: Synergy, view: View) -> None:
    """Title and products, numbered steps, notes, evidence."""
    item = result.item
    console.print(f"[bold]{escape(item['title'])}[/]  ({escape(', '.join(item['products']))})", highlight=False)
    for n, step in enumerate(item["steps"], 1):
        console.print(f"{n}. {escape(step)}", highlight=False)
    console.print(f"\n{escape(item['body'])}\n", highlight=False)
    if item["evidence"]:
        console.print("[dim]evidence:[/]", highlight=False)
        for line in evidence_lines(item["evidence"]):
            console.print(f"  {escape(line)}", highlight=False)


def evidence_lines(evidence: list[dict[str, Any]]) -> list[str]:
    """One line a cited change: product, version, kind and its text on one line (200
    characters at most), or why it cannot be shown."""
    from mindex.memory.contextmd import shorten

    lines = []
    for change in evidence:
        if change.get("missing"):
            lines.append(f"{change['id']}: not indexed (fetch or import this synergy's products' release notes)")
        else:
            lines.append(f"{change['product']} {change['version']} ({change['kind']}): "
                         f"{shorten(str(change.get('text') or ''), 200)} [{change['id']}]")
    return lines


def synergy_markdown(result: Synergy, budget: int) -> str:
    """Title, numbered steps, notes, evidence."""
    item = result.item
    return (f"**{item['title']}**\n" + "\n".join(f"{n}. {s}" for n, s in enumerate(item["steps"], 1))
            + f"\n\n{item['body']}\n\nEvidence:\n" + "\n".join(f"- {line}" for line in evidence_lines(item["evidence"])))

"""How the search operations (`mindex.ops.search`) look: the terminal's rendering and the
agent's markdown are `mindex.serve.render`'s (imported when used, so a search printing
JSON never loads it); these adapt them to the declarations."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mindex.textsafe import markup_escape as escape

if TYPE_CHECKING:
    from rich.console import Console

    from mindex.models import LocateResult, SearchResult
    from mindex.ops.search import Chunk
    from mindex.serve.opscli import View


def print_search(console: Console, result: SearchResult, view: View) -> None:
    from mindex.serve import render

    render.print_search(console, result, bool(view.values.get("explain")), view.places)


def search_note(console: Console, result: SearchResult | LocateResult, view: View) -> None:
    """Why results may be missing or fewer (stderr, with --json too)."""
    if result.note:
        console.print(f"[dim]note: {escape(result.note)}[/]", highlight=False)


def search_markdown(result: SearchResult, budget: int) -> str:
    from mindex.serve import render

    return render.search_markdown(result, budget)


def print_locate(console: Console, result: LocateResult, view: View) -> None:
    from mindex.serve import render

    render.print_locate(console, result, view.places)


def locate_markdown(result: LocateResult, budget: int) -> str:
    from mindex.serve import render

    return render.locate_markdown(result, budget)


def print_chunk(console: Console, result: Chunk, view: View) -> None:
    from mindex.serve import render

    render.print_chunk(console, result.hit, view.places)


def chunk_markdown(result: Chunk, budget: int) -> str:
    from mindex.serve import render

    return render.chunk_markdown(result.hit, budget)

"""How a research run (`mindex.ops.research`) looks: the answer and its evidence on the
terminal, markdown within a token budget for an agent."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mindex.textsafe import markup_escape as escape, visible_controls

if TYPE_CHECKING:
    from rich.console import Console

    from mindex.research import Research
    from mindex.serve.opscli import View


def print_research(console: Console, result: Research, view: View) -> None:
    """The answer (with a model), then each piece of evidence: where, how it was found, and
    its first lines."""
    places = view.places
    if result.answer:
        console.print(escape(result.answer) + "\n", highlight=False)
    if result.dropped:
        console.print(f"[dim]{len(result.dropped)} citation(s) the evidence does not hold were removed: "
                      f"{escape(', '.join(result.dropped))}[/]", highlight=False)
    console.print(f"[bold]Evidence[/] ({len(result.evidence)} chunks, {result.took_ms / 1000:.1f} s)", highlight=False)
    for item in result.evidence:
        shown = places.path(item.source, item.path)
        console.print(f"\n[bold]{escape(shown)}:{item.start_line}-{item.end_line}[/]"
                      + (f" {escape(item.symbol)}" if item.symbol else "")
                      + f"  [dim]{escape('; '.join(item.found_by[:3]))}[/]", highlight=False)
        lines = item.text.split("\n")
        for line in lines[:6]:
            console.print("    " + escape(visible_controls(line)), highlight=False)
        if len(lines) > 6:
            console.print(f"    [dim]… {len(lines) - 6} more lines (mindex get {item.chunk_id})[/]", highlight=False)
    if result.stopped:
        view.err.print(f"[dim]note: stopped early: {escape(result.stopped)}[/]", highlight=False)


def research_markdown(result: Research, budget: int) -> str:
    """The answer and its citations, then the evidence (path:start-end, how found, the code)
    while the budget lasts."""
    out = []
    if result.answer:
        out.append(result.answer)
        if result.dropped:
            out.append(f"\n(removed {len(result.dropped)} citation(s) the evidence does not hold: "
                       f"{', '.join(result.dropped)})")
        out.append("\n## Evidence")
    if result.stopped:
        out.append(f"(stopped early: {result.stopped})")
    used = sum(len(part) for part in out)
    for n, item in enumerate(result.evidence):
        block = (f"\n### {item.path}:{item.start_line}-{item.end_line}" + (f" {item.symbol}" if item.symbol else "")
                 + f" (chunk {item.chunk_id}; {'; '.join(item.found_by[:3])})\n```\n{item.text}\n```")
        if used + len(block) > budget * 4:
            out.append(f"\n({len(result.evidence) - n} more chunks: read them with get_chunk, or raise the budget)")
            break
        out.append(block)
        used += len(block)
    if not result.evidence:
        out.append("no evidence found: try other words, or check list_sources for code")
    return "\n".join(out)

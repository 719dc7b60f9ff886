"""The markdown `mindex context` writes for an agent: entries grouped by kind, within a
budget."""


from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING


if TYPE_CHECKING:
    pass


_SECTIONS = {"mistake": "Mistakes to avoid", "learning": "Learnings", "pattern": "Patterns", "topic": "Topics",
             "memory": "Recent memory"}


def line_of_block(path: Path, block: str) -> int:
    """The line a block just appended to `path` starts on (reads the file: for the rare saves
    the index cannot place at once)."""
    data = path.read_bytes()
    return data.count(b"\n", 0, len(data) - len(block.encode("utf-8"))) + 1


def shorten(text: str, width: int) -> str:
    """`text` on one line, cut to `width` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1].rstrip() + "…"


def render_context(chosen: list[tuple[float, str, str, str]], left_out: int) -> str:
    if not chosen and not left_out:
        return "No memory or knowledge yet for this context.\n"
    areas: dict[str, dict[str, list[str]]] = {}
    for _, area, section, line in chosen:
        areas.setdefault(area, {}).setdefault(section, []).append(line)
    out = ["# Project memory (mindex)"]
    for area, sections in areas.items():
        out.append(f"\n## {area}")
        for key in ("mistake", "learning", "pattern", "topic", "memory"):
            if key in sections:
                out.append(f"### {_SECTIONS[key]}")
                out += sections[key]
    if left_out:
        out.append(f"\n_{left_out} more left out for the token budget; narrow the files or raise --budget._")
    return "\n".join(out) + "\n"

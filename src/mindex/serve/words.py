"""Small wording helpers shared by the text output of several commands (no rich needed)."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


def count(n: int, noun: str, plural: str | None = None) -> str:
    """`1 match`, `3 matches`, `1,024 chunks`: a number with its noun in the right number."""
    if n == 1:
        return f"1 {noun}"
    return f"{n:,} {plural or (noun + 'es' if noun.endswith(('s', 'x', 'ch', 'sh')) else noun + 's')}"


def estimate_tokens(text: str) -> int:
    """chars/4: within a few percent in aggregate for English and code, and free."""
    return (len(text) + 3) // 4


def within_budget(head: str, blocks: list[list[str]], budget_tokens: int, cut: Callable[[int], str]) -> str:
    """`head`, then whole blocks of lines while they fit the budget, then `cut(blocks left)`."""
    lines, used = [head], estimate_tokens(head)
    for n, block in enumerate(blocks):
        cost = estimate_tokens("\n".join(block))
        if used + cost > budget_tokens:
            lines.append(cut(len(blocks) - n))
            break
        lines += block
        used += cost
    return "\n".join(lines)


def impact_verb(hit: dict[str, Any]) -> str:
    """What an impact hit does: `calls Service.validate`, or `imports pkg.service.Service
    (which holds Service.validate)` for an import of the module or class around it."""
    if hit["via"] in ("extends", "implements"):
        return f"{hit['via']} {hit['of']}"
    if hit["via"] != "import":
        return f"calls {hit['of']}"
    imported = hit["call"]
    return f"imports {imported}" if imported.endswith(hit["of"]) else f"imports {imported} (which holds {hit['of']})"


def shown_path(root: str | None, path: str) -> str:
    """A file as a person can open it from here: relative to the working folder when inside
    it, else absolute (a path of an unknown source stays as stored)."""
    if root is None:
        return path
    full = os.path.join(root, path)
    rel = os.path.relpath(full)
    return full if rel.startswith("..") else rel


@dataclass(frozen=True)
class Places:
    """The one rule for files in the CLI's text output: every command shows a file as
    `shown_path` does (ripgrep's rule), and names its source beside it when the index has
    more than one. `--json` keeps `path` relative to the source, with `source`."""

    roots: dict[str, str]

    def path(self, source: str, path: str) -> str:
        """The file as the user opens it, on one line (control characters and newlines in its
        name shown as escapes)."""
        from mindex.textsafe import visible_name

        return visible_name(shown_path(self.roots.get(source), path))

    def source(self, source: str) -> str:
        """The source's name where it tells something (more than one source), else ''."""
        return source if len(self.roots) > 1 else ""


def local_time(t: float) -> str:
    """An epoch time as the user's local date and minute, e.g. 2026-11-26 17:45."""
    import time

    return time.strftime("%Y-%m-%d %H:%M", time.localtime(t))

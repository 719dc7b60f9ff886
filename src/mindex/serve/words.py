"""Small wording helpers shared by the text output of several commands (no rich needed)."""

from __future__ import annotations

from typing import Any


def count(n: int, noun: str, plural: str | None = None) -> str:
    """`1 match`, `3 matches`, `1,024 chunks`: a number with its noun in the right number."""
    if n == 1:
        return f"1 {noun}"
    return f"{n:,} {plural or (noun + 'es' if noun.endswith(('s', 'x', 'ch', 'sh')) else noun + 's')}"


def impact_verb(hit: dict[str, Any]) -> str:
    """What an impact hit does: `calls Service.validate`, or `imports pkg.service.Service
    (which holds Service.validate)` for an import of the module or class around it."""
    if hit["via"] != "import":
        return f"calls {hit['of']}"
    imported = hit["call"]
    return f"imports {imported}" if imported.endswith(hit["of"]) else f"imports {imported} (which holds {hit['of']})"

"""Definitions by name for `symbols find` and a graph question's suggestions: exact
(qualified or last part), then prefix, then fuzzy (close spellings, the closest first, then
substrings; case-insensitive)."""

from __future__ import annotations

import difflib
from typing import Any

from mindex.pathglob import glob_match
from mindex.store.base import Store

Row = tuple[int, int, str, str, int, int, str, int]  # a symbol: id, file, name, kind, lines, signature, exported


def ranked_rows(store: Store, files: dict[int, Any], exact: list[Row], query: str, kind: str | None,
                path: str | None, limit: int) -> list[tuple[str, Row]]:
    """The `limit` best (match type, row) for `query`, `exact` being its exact rows. Rows are
    ranked before they become symbols: a short name that thousands of definitions start with
    would read the chunks of every file they are in."""
    found: dict[int, tuple[str, Row]] = {}
    last = query.rsplit(".", 1)[-1]
    for row in exact:
        found.setdefault(row[0], ("exact", row))
    like = last.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    for row in store.symbol_rows("short_like", like + "%"):
        found.setdefault(row[0], ("prefix", row))

    def fits(row: Row) -> bool:
        return (kind is None or row[3] == kind) and glob_match(path, files.get(row[1], ("", "?"))[1])

    close: list[str] = []
    if sum(1 for _, row in found.values() if fits(row)) < limit:  # fuzzy ones rank after: only with room
        # Misspellings keep about the same length: comparing only those keeps this fast.
        spellings = {s.lower() for s in store.symbol_shorts() if abs(len(s) - len(last)) <= 2}
        close = difflib.get_close_matches(last.lower(), spellings, n=10, cutoff=0.75)  # the closest first
        rows = [r for spelling in close for r in store.symbol_rows("short_nocase", spelling)]
        for row in rows + store.symbol_rows("short_like", "%" + like + "%"):
            found.setdefault(row[0], ("fuzzy", row))
    order = {"exact": 0, "prefix": 1, "fuzzy": 2}
    closeness = {spelling: n for n, spelling in enumerate(close)}

    def rank(match: tuple[str, Row]) -> tuple[int, int, int, str, str, int]:
        how, row = match
        near = closeness.get(row[2].rsplit(".", 1)[-1].lower(), len(close)) if how == "fuzzy" else 0
        source, file = files.get(row[1], ("?", "?", None))[:2]
        return order[how], near, len(row[2]), source, file, row[4]

    return [(how, row) for how, row in sorted(found.values(), key=rank) if fits(row)][:limit]

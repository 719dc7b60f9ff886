"""What the code graph says hangs on a definition: the classes that extend or implement it,
followed down their own subclasses (`graph subclasses`, `graph implementations`), and what
may break if it changes (`graph impact`: callers, heirs and importers, transitively)."""

from __future__ import annotations

import time
from typing import Any

from mindex.graph import CodeGraph
from mindex.graph_types import CLASSLIKE, SUPERTYPES_ALIKE, Calls, SymbolRef
from mindex.modes import DEFAULT_MIN_CONFIDENCE


def heirs(graph: CodeGraph, query: str, kinds: tuple[str, ...], path: str | None = None, depth: int = 5,
          min_confidence: float = DEFAULT_MIN_CONFIDENCE) -> list[Calls]:
    """Each definition `query` names with the classes that extend (or implement: `kinds`) it,
    and theirs, up to `depth` levels, each class once; each edge's target is the class its
    heir names.

    Raises:
        NotFoundError: no definition has that name.
    """
    found = []
    for target in graph.targets(query, path):
        seen, frontier, edges, under = {target.id}, [target], [], 0
        first = ("extends", "implements") if target.kind == "interface" and target.language in SUPERTYPES_ALIKE else kinds
        for level in range(depth):
            following = []
            for base in frontier:
                for _, edge in graph.direct_heirs(base, first if level == 0 else ("extends", "implements")):
                    if edge.confidence < min_confidence:
                        under += 1
                        continue
                    heir = graph.scope_symbol(edge)
                    if heir is not None and heir.id in seen:
                        continue  # a class reached through two of its bases is listed once
                    edges.append(edge)
                    if heir is not None:
                        seen.add(heir.id)
                        following.append(heir)
            frontier = following
        found.append(Calls(target, edges, under, min_confidence))
    return found


def impact(graph: CodeGraph, target: SymbolRef, depth: int = 2, min_confidence: float = 0.5) -> list[dict[str, Any]]:
    """What may break if `target` changes: callers, their callers, ... up to `depth`, and
    the files importing it, grouped by file. Edges under `min_confidence` are left out."""
    started = time.perf_counter()
    seen = {target.id}
    frontier = [target]
    rows: list[dict[str, Any]] = []
    for level in range(1, depth + 1):
        following: list[SymbolRef] = []
        for symbol in frontier:
            for edge in graph.importers(symbol) if level == 1 or symbol.exported else []:
                rows.append({"depth": level, "via": "import", "of": symbol.name, **edge.to_dict()})
            heirs = graph.direct_heirs(symbol) if symbol.kind in CLASSLIKE else []
            for via, edge in [*(("call", e) for e in graph.callers(symbol, min_confidence)), *heirs]:
                if edge.confidence < min_confidence:
                    continue
                rows.append({"depth": level, "via": via, "of": symbol.name, **edge.to_dict()})
                caller = graph.scope_symbol(edge)
                if caller is not None and caller.id not in seen:
                    seen.add(caller.id)
                    following.append(caller)
        frontier = following
        if not frontier:
            break
    grouped: dict[tuple[str, str], dict[str, Any]] = {}
    seen_hits: set[tuple[str, str, str, int, str, str]] = set()
    for row in rows:
        # An import line is one hit, however many of the definitions it brings in were
        # reached (a module import repeated once per method of its class before).
        key = (row["source"], row["path"], row["via"], row["line"], row["call"],
               "" if row["via"] == "import" else row["of"])
        if key in seen_hits:
            continue
        seen_hits.add(key)
        entry = grouped.setdefault((row["source"], row["path"]),
                                   {"source": row["source"], "path": row["path"], "depth": row["depth"], "hits": []})
        entry["depth"] = min(entry["depth"], row["depth"])
        entry["hits"].append({k: row[k] for k in ("depth", "via", "of", "line", "scope", "call",
                                                   "confidence", "reason", "chunk_id")})
    out = sorted(grouped.values(), key=lambda g: (g["depth"], g["source"], g["path"]))
    graph.logged("impact", {"symbol": target.name, "path": target.path, "depth": depth}, len(out), started)
    return out

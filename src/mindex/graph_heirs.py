"""Class hierarchies from the code graph: the classes that extend or implement a
definition, followed down their own subclasses (`graph subclasses`, `graph implementations`)."""

from __future__ import annotations

from mindex.graph import CodeGraph
from mindex.graph_types import SUPERTYPES_ALIKE, Calls
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

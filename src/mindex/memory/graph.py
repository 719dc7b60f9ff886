"""The knowledge graph: derived from the knowledge files' entity records, walked in memory.

Entities: learning, pattern, mistake, topic (files) and CodeArea (`area:<name>`), File
(`file:<path>`), Issue (`issue:<n>`) implied by what the entities name. Relations: ABOUT
(entity → area, issue, topic), IN_FILE (entity → file), IN_AREA (file → area), LED_TO,
APPLIES_TO, SUPERSEDES and any other a file's `relations:` table names.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, cast

from mindex.memory.knowledge import area_of

EntityRow = tuple[str, str, str, float | None, float | None, str | None]


def derive(records: Iterable[tuple[str, dict[str, Any]]], areas: dict[str, list[str]]
           ) -> tuple[list[EntityRow], list[tuple[str, str, str]]]:
    """Entities and relations from (path, entity record) pairs."""
    entities: dict[str, EntityRow] = {}
    relations: set[tuple[str, str, str]] = set()

    def implied(eid: str, kind: str, title: str) -> str:
        entities.setdefault(eid, (eid, kind, title, None, None, None))
        return eid

    for path, rec in records:
        eid = rec["id"]
        entities[eid] = (eid, rec["type"], rec.get("title", ""), rec.get("confidence"), rec.get("at"), path)
        for area in rec.get("areas", []):
            relations.add((eid, "ABOUT", implied(f"area:{area}", "CodeArea", area)))
        for file in rec.get("files", []):
            fid = implied(f"file:{file}", "File", file)
            relations.add((eid, "IN_FILE", fid))
            area = area_of(file, areas)
            relations.add((fid, "IN_AREA", implied(f"area:{area}", "CodeArea", area)))
        for issue in rec.get("issues", []):
            relations.add((eid, "ABOUT", implied(f"issue:{str(issue).lstrip('#')}", "Issue", f"#{str(issue).lstrip('#')}")))
        for rel, other in rec.get("relations", []):
            relations.add((eid, rel, other))
    return list(entities.values()), sorted(relations)


@dataclass
class Graph:
    """The graph in memory: entities by id and edges both ways."""

    entities: dict[str, EntityRow]
    out: dict[str, list[tuple[str, str]]] = field(default_factory=lambda: defaultdict(list))
    into: dict[str, list[tuple[str, str]]] = field(default_factory=lambda: defaultdict(list))

    @classmethod
    def load(cls, rows: list[tuple[Any, ...]], relations: list[tuple[str, str, str]]) -> Graph:
        graph = cls({row[0]: cast(EntityRow, tuple(row)) for row in rows})
        for src, rel, dst in relations:
            graph.out[src].append((rel, dst))
            graph.into[dst].append((rel, src))
        return graph

    def superseded(self) -> set[str]:
        """Entities another one supersedes."""
        return {dst for dst, edges in self.into.items() if any(rel == "SUPERSEDES" for rel, _ in edges)}

    def neighbours(self, node: str) -> list[tuple[str, str]]:
        """(relation, entity) pairs one hop away, either direction."""
        return [*self.out.get(node, []), *self.into.get(node, [])]

    def walk(self, starts: dict[str, int], depth: int) -> dict[str, tuple[int, list[str]]]:
        """Knowledge entities (learning, pattern, mistake, topic) within `depth` hops of the
        starts (each with the hops it already counts as): their distance and the path that
        reached them. Hops go through areas, files and issues, and along entity links."""
        found: dict[str, tuple[int, list[str]]] = {}
        frontier = [(s, [s], hops) for s, hops in starts.items()
                    if s in self.entities or s in self.into or s in self.out]
        seen = {s for s, _, _ in frontier}
        while frontier:
            nxt = []
            for node, path, hops in frontier:
                if hops >= depth:
                    continue
                for rel, other in self.neighbours(node):
                    if other in seen:
                        continue
                    seen.add(other)
                    step = [*path, rel, other]
                    if self.entities.get(other, ("", "?"))[1] in ("learning", "pattern", "mistake", "topic"):
                        found[other] = (hops + 1, step)
                    nxt.append((other, step, hops + 1))
            frontier = nxt
        return found

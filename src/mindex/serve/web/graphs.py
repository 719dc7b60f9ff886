"""Graphs as Cytoscape.js elements (`{"data": {...}}` nodes and edges): the impact of a
change to a definition, and the knowledge graph. The page hands them to the vendored
Cytoscape as JSON; every label is text, never markup."""

from __future__ import annotations

from typing import Any

MAX_NODES = 500  # beyond this a graph is cut (and says so): it must stay interactive


def impact_elements(results: list[dict[str, Any]]) -> dict[str, Any]:
    """The definitions a name matched, the definitions that call or import them (grouped in
    their files), and edges labelled with how sure each link is."""
    nodes: dict[str, dict[str, Any]] = {}
    edges: dict[tuple[str, str], dict[str, Any]] = {}
    cut = False

    def add(node_id: str, data: dict[str, Any]) -> bool:
        nonlocal cut
        if node_id not in nodes:
            if len(nodes) >= MAX_NODES:
                cut = True
                return False
            nodes[node_id] = {"data": {"id": node_id, **data}}
        return True

    for result in results:
        target = result["target"]
        target_id = f"def:{target['path']}:{target['name']}:{target['start_line']}"
        add(f"file:{target['source']}:{target['path']}", {"label": target["path"], "type": "file"})
        add(target_id, {"label": target["name"], "type": "target", "parent": f"file:{target['source']}:{target['path']}",
                        "chunk": target.get("chunk_id") or ""})
        names = {target["name"]: target_id}
        for file in result["files"]:
            file_id = f"file:{file['source']}:{file['path']}"
            if not add(file_id, {"label": file["path"], "type": "file"}):
                continue
            for hit in sorted(file["hits"], key=lambda h: h.get("depth", 1)):
                scope = hit.get("scope") or "(module)"
                node_id = f"def:{file['path']}:{scope}"
                if not add(node_id, {"label": scope, "type": "caller", "parent": file_id,
                                     "chunk": hit.get("chunk_id") or "", "depth": hit.get("depth", 1)}):
                    continue
                names.setdefault(scope.rpartition(".")[2], node_id)
                goes_to = names.get(str(hit.get("of", "")), target_id)
                key = (node_id, goes_to)
                confidence = float(hit.get("confidence", 1.0))
                if key not in edges or edges[key]["data"]["confidence"] < confidence:
                    edges[key] = {"data": {"id": f"e{len(edges)}", "source": node_id, "target": goes_to,
                                           "confidence": round(confidence, 2), "label": f"{hit.get('via', 'call')} "
                                           f"{confidence:.2f}", "line": hit.get("line")}}
    return {"elements": [*nodes.values(), *edges.values()], "cut": cut, "nodes": len(nodes)}


def knowledge_elements(graph: Any, around: str | None = None, depth: int = 2) -> dict[str, Any]:
    """The knowledge graph's entities (by type) and relations (labelled); with `around`, only
    what lies within `depth` hops of that node."""
    keep: set[str] | None = None
    if around is not None:
        keep, frontier = {around}, [around]
        for _ in range(depth):
            frontier = [other for node in frontier for _, other in graph.neighbours(node) if other not in keep]
            keep.update(frontier)
    nodes: list[dict[str, Any]] = []
    edges: list[dict[str, Any]] = []
    cut = False
    shown: set[str] = set()
    for eid, row in graph.entities.items():
        if keep is not None and eid not in keep:
            continue
        if len(shown) >= MAX_NODES:
            cut = True
            break
        shown.add(eid)
        nodes.append({"data": {"id": eid, "label": row[2] or eid, "type": row[1],
                               "center": "yes" if eid == around else "no"}})
    for src, out in graph.out.items():
        for rel, dst in out:
            if src in shown and dst in shown:
                edges.append({"data": {"id": f"e{len(edges)}", "source": src, "target": dst, "label": rel}})
    return {"elements": [*nodes, *edges], "cut": cut, "nodes": len(nodes)}

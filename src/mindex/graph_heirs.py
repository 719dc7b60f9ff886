"""What the code graph says hangs on a definition: the classes that extend or implement it,
followed down their own subclasses (`graph subclasses`, `graph implementations`), and what
may break if it changes (`graph impact`: callers, heirs and importers, transitively)."""

from __future__ import annotations

import time
from typing import Any

from mindex.graph import CodeGraph
from mindex.graph_modules import file_stem
from mindex.graph_types import CLASSLIKE, FAMILY, FOLDER_PACKAGES, SUPERTYPES_ALIKE, CallRef, Calls, Edge, SymbolRef, package_of
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
                for _, edge in direct_heirs(graph, base, first if level == 0 else ("extends", "implements")):
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
            heirs = direct_heirs(graph, symbol) if symbol.kind in CLASSLIKE else []
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


def direct_heirs(graph: CodeGraph, base: SymbolRef, kinds: tuple[str, ...] = ("extends", "implements")
                 ) -> list[tuple[str, Edge]]:
    """Classes whose declaration names `base` as a base (`extends`) or an interface
    (`implements`): (kind, edge) with the heir as the edge's scope, resolved as calls are
    (same file 1.0, imported from its module 0.95, the only class of that name 0.6, one of
    n 0.5 / n)."""
    short = base.name.rsplit(".", 1)[-1]
    family = FAMILY.get(base.language or "", base.language)
    rivals = [s for s in graph.named(short) if s.kind in CLASSLIKE
              and FAMILY.get(s.language or "", s.language) == family]
    found = []
    # a base imported under another name (`import {ERC20 as Base}`, `from a import Base as B`)
    renamed = {alias for row in graph.store.ref_rows("name", short, "import")
               if (alias := CallRef(*row).alias) and alias != short}
    for kind in kinds:
        for row in [r for name in (short, *sorted(renamed)) for r in graph.store.ref_rows("name", name, kind)]:
            ref = CallRef(*row)
            language = graph.files.get(ref.document_id, ("", "", None))[2]
            if ref.document_id not in graph.files or FAMILY.get(language or "", language) != family:
                continue
            imported = [graph.module_files(ref.document_id, imp.qualifier, imp.name)
                        for imp in graph.imports(ref.document_id) if short in (imp.name, imp.alias)
                        and (ref.name == short or (imp.name == short and imp.alias == ref.name))]
            if ref.name != short and not imported:
                continue  # another class that happens to be named as some file's alias
            if ref.document_id == base.document_id:
                confidence, reason = 1.0, "defined in this file"
            elif any(base.document_id in files for files in imported):
                confidence, reason = 0.95, f"{short} is imported from its file"
            elif family == "c" and file_stem(base.path) in graph.included(ref.document_id):
                confidence, reason = 0.95, f"{short} is declared in an included header"
            elif any(imported) or any(s.document_id == ref.document_id for s in rivals):
                continue  # the heir means the class of that name it imports, or its own file's
            elif family in FOLDER_PACKAGES and (ref_source := graph.files[ref.document_id])[0] == base.source and \
                    package_of(ref_source[1]) == package_of(base.path):
                confidence, reason = 0.9, "same package"  # as Java sees its package's classes unimported
            elif family == "csharp" and "." in base.name and ref.scope.rpartition(".")[0] == base.name.rpartition(".")[0]:
                confidence, reason = 0.9, "same namespace"
            elif len(rivals) <= 1:
                confidence, reason = 0.6, f"the only class named {short}"
            else:
                confidence, reason = round(0.5 / len(rivals), 3), f"ambiguous: {len(rivals)} classes named {short}"
            found.append((kind, graph.edge(ref, base, confidence, reason)))
    return sorted(found, key=lambda k_e: (-k_e[1].confidence, k_e[1].source, k_e[1].path, k_e[1].line))

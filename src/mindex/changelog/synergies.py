"""Synergies: curated notes on using products together, as markdown files with front matter
(title, products, steps, evidence: change ids that back the note). mindex ships a few
(`mindex/changelog/synergies/`); a project adds its own in `.mindex/changelog/synergies/`
(same name: the project's wins). `ingest` reads them into the index (table `synergies`), so
listing and reading them does not touch the files.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import yaml

if TYPE_CHECKING:
    from mindex.engine import Engine
    from mindex.store.sqlite import SQLiteStore

SHIPPED = Path(__file__).with_name("synergies")


def read_synergy(path: Path) -> dict[str, Any] | str:
    """A synergy file as a dict, or why it cannot be read (`file:line: why`)."""
    text = path.read_text(encoding="utf-8", errors="replace").replace("\r\n", "\n")
    if not text.startswith("---\n") or text.find("\n---", 4) < 0:
        return f"{path.name}:1: no front matter (title, products, steps, evidence)"
    end = text.find("\n---", 4)
    try:
        meta = yaml.safe_load(text[4:end]) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        return f"{path.name}:{mark.line + 2 if mark else 1}: front matter is not valid YAML"
    if not isinstance(meta, dict) or not meta.get("title") or not isinstance(meta.get("products"), list):
        return f"{path.name}:2: front matter needs a title and a list of products"
    return {"name": path.stem, "title": str(meta["title"]), "products": [str(p) for p in meta["products"]],
            "steps": [str(s) for s in meta.get("steps") or []], "evidence": [str(e) for e in meta.get("evidence") or []],
            "body": text[end + 4 :].strip(), "file": str(path)}


def cache_synergies(index: Engine, folder: Path) -> list[str]:
    """Replace the cached synergies with the shipped ones and the project's; returns problems."""
    store = cast("SQLiteStore", index.store)
    found: dict[str, dict[str, Any]] = {}
    problems = []
    for base in (SHIPPED, folder):
        for path in sorted(base.glob("*.md")) if base.is_dir() else []:
            item = read_synergy(path)
            if isinstance(item, str):
                problems.append(item)
            else:
                found[item["name"]] = item
    store.replace_synergies([(s["name"], s["title"], json.dumps(s["products"]), json.dumps(s["steps"]),
                              json.dumps(s["evidence"]), s["body"], s["file"]) for s in found.values()])
    return problems


def list_synergies(index: Engine) -> list[dict[str, Any]]:
    store = cast("SQLiteStore", index.store)
    return [{"name": n, "title": t, "products": json.loads(p), "steps": len(json.loads(s))}
            for n, t, p, s, _, _ in store.synergy_rows()]


def get_synergy(index: Engine, name: str) -> dict[str, Any] | None:
    store = cast("SQLiteStore", index.store)
    rows = store.synergy_rows(name)
    if not rows:
        return None
    n, t, p, s, e, b = rows[0]
    return {"name": n, "title": t, "products": json.loads(p), "steps": json.loads(s),
            "evidence": resolve_evidence(index, json.loads(e)), "body": b}


def resolve_evidence(index: Engine, ids: list[str]) -> list[dict[str, Any]]:
    """Each change id a synergy cites, as the change it is (product, version, kind, text), in
    the file's order; an id whose release notes are not indexed says so (`missing`)."""
    from mindex.models import Facets

    found = {str(hit.facets.get("id")): hit for hit in index.store.faceted_hits("changelog", Facets(ids=tuple(ids)),
                                                                                  max(len(ids), 1))
             if hit.facets}
    out: list[dict[str, Any]] = []
    for cid in ids:
        hit = found.get(cid)
        if hit is None or hit.facets is None:
            out.append({"id": cid, "missing": True})
        else:
            out.append({"id": cid, "product": hit.facets.get("product"), "version": hit.facets.get("version"),
                        "kind": hit.facets.get("type"), "text": hit.text})
    return out

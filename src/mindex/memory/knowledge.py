"""Knowledge entities: one markdown file each, with YAML front matter holding the type,
code areas, files, confidence and relations. Pure parsing and rendering, plus code areas.

::

    ---
    id: k-20261123-044512-ab12
    type: learning
    title: Retries need jitter
    created: 2026-11-23T04:45:12+00:00
    confidence: 0.8
    areas: [src/mindex]
    files: [src/mindex/fetch/http.py]
    supersedes: [k-20261001-101010-0c0c]
    ---
    Without jitter every client retried at the same instant ...
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from mindex.errors import MemoryInputError
from mindex.pathglob import glob_match

KNOWLEDGE_TYPES = ("learning", "pattern", "mistake", "topic")
# Front-matter keys that hold relations to other entities, and the relation each makes.
RELATION_KEYS = {"supersedes": "SUPERSEDES", "led_to": "LED_TO", "applies_to": "APPLIES_TO", "about": "ABOUT"}
_ID = re.compile(r"^[A-Za-z0-9][\w.:/-]{0,120}$")


@dataclass(frozen=True)
class Entity:
    """A learning, pattern, mistake or topic as its file holds it."""

    id: str
    type: str
    title: str
    text: str
    created: datetime
    confidence: float = 0.7
    areas: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    issues: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    relations: tuple[tuple[str, str], ...] = ()  # (RELATION, other entity id)
    extra: dict[str, Any] = field(default_factory=dict)


def slug(text: str) -> str:
    """A file-name-safe slug of a title (at most 48 characters)."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    return "-".join(words)[:48].strip("-") or "entry"


def render(entity: Entity) -> str:
    """The entity's file text: front matter, then the text."""
    import yaml

    if not entity.text.strip():
        raise MemoryInputError("knowledge needs some text; say what was learned")
    if entity.type not in KNOWLEDGE_TYPES:
        raise MemoryInputError(f"unknown knowledge type {entity.type!r}; use one of: {', '.join(KNOWLEDGE_TYPES)}")
    if not 0.0 <= entity.confidence <= 1.0:
        raise MemoryInputError(f"confidence {entity.confidence} is outside 0-1")
    head: dict[str, Any] = {"id": entity.id, "type": entity.type, "title": entity.title,
                            "created": entity.created.isoformat(timespec="seconds"),
                            "confidence": entity.confidence}
    for key, values in (("areas", entity.areas), ("files", entity.files), ("issues", entity.issues),
                        ("tags", entity.tags)):
        if values:
            head[key] = list(values)
    by_key: dict[str, list[str]] = {}
    names = {rel: key for key, rel in RELATION_KEYS.items()}
    for rel, other in entity.relations:
        by_key.setdefault(names.get(rel, rel.lower()), []).append(other)
    head.update(by_key)
    front = yaml.safe_dump(head, sort_keys=False, allow_unicode=True, width=1000)
    return f"---\n{front}---\n{entity.text.strip()}\n"


def _strings(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, (str, int, float)):
        value = [value]
    if not isinstance(value, list):
        raise ValueError(f"expected a list, got {type(value).__name__}")
    return tuple(dict.fromkeys(str(v).strip() for v in value if str(v).strip()))


def parse(text: str, name: str, default_time: float) -> tuple[Entity | None, str | None]:
    """The entity a file holds, or None and why (`name:line: why`). A file without an id
    takes its name as id; one without a time takes `default_time` (its mtime)."""
    from mindex.parse.markdown import split_front_matter

    head, body, _ = split_front_matter(text)
    if not text.startswith("---"):
        return None, f"{name}:1: no front matter; start the file with '---', type: learning|pattern|mistake|topic, '---'"
    error = head.get("front_matter_error")
    if error:
        where = re.search(r"at line (\d+)", error)
        return None, f"{name}:{where.group(1) if where else 1}: {error}; the file is not indexed until it is fixed"
    try:
        kind = str(head.get("type", ""))
        if kind not in KNOWLEDGE_TYPES:
            raise ValueError(f"type {kind!r} is not one of {', '.join(KNOWLEDGE_TYPES)}")
        eid = str(head.get("id") or re.sub(r"\.md$", "", name.rsplit("/", 1)[-1]))
        if not _ID.match(eid):
            raise ValueError(f"id {eid!r} may use letters, digits and . _ : / - only")
        created = head.get("created")
        if created:
            at = datetime.fromisoformat(str(created).replace("Z", "+00:00"))
            at = at if at.tzinfo else at.replace(tzinfo=timezone.utc)
        else:
            at = datetime.fromtimestamp(default_time, timezone.utc)
        confidence = float(head.get("confidence", 0.7))
        if not 0.0 <= confidence <= 1.0:
            raise ValueError(f"confidence {confidence} is outside 0-1")
        relations = [(rel, other) for key, rel in RELATION_KEYS.items() for other in _strings(head.get(key))]
        more = head.get("relations") or {}
        if not isinstance(more, dict):
            raise ValueError("relations should map a relation name to a list of ids")
        relations += [(str(rel).upper(), other) for rel, ids in more.items() for other in _strings(ids)]
        title = str(head.get("title") or body.strip().split("\n", 1)[0][:80] or eid)
        entity = Entity(eid, kind, title, body.strip(), at, confidence, _strings(head.get("areas")),
                        tuple(f.replace("\\", "/") for f in _strings(head.get("files"))),
                        _strings(head.get("issues")), _strings(head.get("tags")), tuple(dict.fromkeys(relations)))
    except (TypeError, ValueError) as exc:
        return None, f"{name}:1: {exc}; the file is not indexed until it is fixed"
    if not entity.text:
        return None, f"{name}:1: no text after the front matter; it is not indexed"
    return entity, None


def area_of(path: str, areas: dict[str, list[str]]) -> str:
    """The code area of a path: the first configured area whose globs match it, else the
    top folder (two levels under src/, lib/, packages/ or apps/), else the file itself."""
    path = path.strip("/").replace("\\", "/")
    for name, globs in areas.items():
        if any(glob_match(g, path) for g in globs):
            return name
    parts = path.split("/")
    if len(parts) > 2 and parts[0] in ("src", "lib", "packages", "apps", "crates", "cmd", "internal"):
        return "/".join(parts[:2])
    return parts[0] if len(parts) > 1 else path

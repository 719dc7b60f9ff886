"""The knowledge source: one markdown file with front matter per entity, under
`.mindex/knowledge/` (see mindex.memory.knowledge). The entity travels in the document's
metadata, from which the index derives the knowledge graph's tables."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from mindex.chunk import CONTEXT_SEPARATOR, chunk_hash, split_text
from mindex.memory.graph import derive
from mindex.memory.knowledge import Entity, parse
from mindex.models import Chunk, Document, Source, SkippedFile
from mindex.sources.docs import LoadResult, LoadTask, decode, read_changed
from mindex.sources.memory import piece_id
from mindex.sources.walk import FileEntry, walk_files
from mindex.terms import search_terms

if TYPE_CHECKING:
    from mindex.config import MemorySettings
    from mindex.store.base import Store


class _Engine(Protocol):
    """What the after-index hook reads of the engine that calls it."""

    store: Store
    memory_settings: MemorySettings


def entity_record(entity: Entity) -> dict[str, object]:
    """The entity as the document's metadata keeps it (JSON)."""
    return {"id": entity.id, "type": entity.type, "title": entity.title, "confidence": entity.confidence,
            "at": entity.created.timestamp(), "areas": list(entity.areas), "files": list(entity.files),
            "issues": list(entity.issues), "tags": list(entity.tags),
            "relations": [list(pair) for pair in entity.relations]}


def load(task: LoadTask) -> LoadResult:
    """Read and parse one entity file. Runs in a worker process; never raises."""
    entry = task.entry
    read = read_changed(task)
    if not isinstance(read, tuple):
        return read
    data, digest = read
    text, encoding = decode(data)
    entity, problem = parse(text.replace("\r\n", "\n"), entry.rel, entry.mtime_ns / 1e9)
    if entity is None:
        assert problem is not None
        return SkippedFile(entry.rel, problem.split(": ", 1)[1] if ": " in problem else problem)
    context = CONTEXT_SEPARATOR.join(("knowledge", entity.type, entity.title))
    facets = {"id": entity.id, "type": entity.type, "at": entity.created.isoformat(timespec="seconds"),
              "tags": list(entity.tags), "files": list(entity.files), "areas": list(entity.areas),
              "issues": list(entity.issues), "confidence": entity.confidence}
    body_line = text[: text.find("\n---", 3) + 4].count("\n") + 2
    chunks = []
    for piece, (part, first, last) in enumerate(split_text(entity.text, task.chunk_size, task.chunk_overlap)):
        chunks.append(Chunk(
            id=piece_id(task.source, entry.rel, entity.id, piece), ordinal=piece, title=entity.title,
            context=context, text=part,
            hash=chunk_hash(context, part),
            start_line=body_line + first, end_line=body_line + last,
            terms=search_terms(" ".join(entity.files), part), at=entity.created.timestamp(), facets=facets))
    return Document(entry.rel, "knowledge", entity.title, len(data), entry.mtime_ns, digest,
                    {"format": "knowledge", "encoding": encoding, "entity": entity_record(entity)}, tuple(chunks))


def discover(source: Source) -> tuple[list[FileEntry], list[SkippedFile]]:
    """The entity files (`*.md`) under the knowledge folder, at any depth."""
    return walk_files(source.root, [".md"], None, None)


def rebuild_graph(store: Store, areas: dict[str, list[str]]) -> None:
    """Derive the knowledge graph's tables from the indexed knowledge files' entity records."""
    records = [(path, meta["entity"]) for _, path, meta in store.document_metadata("knowledge") if "entity" in meta]
    entities, relations = derive(records, areas)
    store.replace_graph(entities, relations)


def after_index(engine: _Engine) -> None:
    """After a knowledge source is indexed: its graph follows its files."""
    rebuild_graph(engine.store, engine.memory_settings.areas)

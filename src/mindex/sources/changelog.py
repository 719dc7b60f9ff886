"""The changelog source: release files `products/<product>/releases/<version>.md` (front matter
product, version, date, url; see mindex.changelog.parse), one chunk per change.

A chunk carries the release date (`Chunk.at`: filters and recency decay) and facets: the
change id, its kind (as `type`), product, version, a sortable version key (`vkey`, for
version ranges) and the entities it names, all filterable before top-k.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from mindex.changelog import parse as notes
from mindex.changelog.versions import clean, key
from mindex.chunk import CONTEXT_SEPARATOR, chunk_hash
from mindex.models import Chunk, Document, Source, SkippedFile
from mindex.sources.docs import LoadResult, LoadTask, decode, read_changed
from mindex.sources.walk import FileEntry, walk_files
from mindex.terms import search_terms


def release_chunks(product: str, release: notes.Release, body_line: int, first_ordinal: int = 0) -> list[Chunk]:
    """One chunk per change of a release."""
    version = clean(release.version)
    day = release.date.isoformat() if release.date else "undated"
    at = datetime(release.date.year, release.date.month, release.date.day, tzinfo=timezone.utc).timestamp() \
        if release.date else None
    chunks: list[Chunk] = []
    for change in notes.split_changes(release.body):
        cid = change.id(product, version)
        context = CONTEXT_SEPARATOR.join(
            ("changelog", product, version, day, *((change.section,) if change.section else ())))
        values = [value for _, value in change.entities]
        facets = {"id": cid, "type": change.kind, "product": product, "version": version, "vkey": key(version),
                  "entities": values, "entity_kinds": [kind for kind, _ in change.entities],
                  **({"date": day} if release.date else {}), **({"url": release.url} if release.url else {})}
        chunks.append(Chunk(
            id=cid, ordinal=first_ordinal + len(chunks), title=f"{product} {version}", context=context,
            text=change.text, hash=chunk_hash(context, change.text),
            start_line=body_line + change.line - 1, end_line=body_line + change.end_line - 1,
            terms=search_terms(" ".join(values), change.text), at=at, facets=facets))
    return chunks


def load(task: LoadTask) -> LoadResult:
    """Read and split one release file. Runs in a worker process; never raises."""
    entry = task.entry
    read = read_changed(task)
    if not isinstance(read, tuple):
        return read
    data, digest = read
    text, encoding = decode(data)
    parsed = notes.read_release(text, entry.rel)
    if isinstance(parsed, str):
        return SkippedFile(entry.rel, parsed.split(": ", 1)[1] if ": " in parsed else parsed)
    product, release, body_line = parsed
    chunks = release_chunks(product, release, body_line)
    metadata = {"format": "release", "encoding": encoding, "product": product, "version": clean(release.version),
                "vkey": key(release.version), "date": release.date.isoformat() if release.date else None,
                "url": release.url, "changes": len(chunks)}
    return Document(entry.rel, "changelog", f"{product} {clean(release.version)}", len(data), entry.mtime_ns, digest,
                    metadata, tuple(chunks))


def batch_group(path: str) -> str:
    """Release files are written one product at a time: `products/<product>/...` is a group."""
    parts = Path(path).parts
    return parts[1] if len(parts) > 1 else path


def discover(source: Source) -> tuple[list[FileEntry], list[SkippedFile]]:
    """The release files under `products/*/releases/`."""
    files, skipped = walk_files(source.root, [".md"], None, None)
    return [f for f in files if Path(f.rel).parts[0] == "products" and len(Path(f.rel).parts) == 4
            and Path(f.rel).parts[2] == "releases"], skipped

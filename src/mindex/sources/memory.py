"""The memory source: the journal files of `.mindex/memory/` (see mindex.memory.journal).

One document per journal file, one chunk per entry (pieces of a huge entry share its id).
A chunk carries the entry's time (`Chunk.at`, for filters and recency decay) and its facets
(id, type, tags, files) for filters applied before top-k. Blocks a human broke are
reported as skipped (`file:line`) and the rest of the file is still indexed.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from mindex.chunk import CONTEXT_SEPARATOR, chunk_hash, split_text
from mindex.memory import journal
from mindex.models import Chunk, Document, Source, SkippedFile
from mindex.sources.docs import LoadResult, LoadTask, decode, read_changed
from mindex.sources.walk import FileEntry, walk_files
from mindex.terms import search_terms


def piece_id(source: str, path: str, entry_id: str, piece: int) -> str:
    """A chunk id fixed by the entry, not its text: an edited entry keeps its id."""
    key = "\0".join((source, path, entry_id, str(piece)))
    return hashlib.sha1(key.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def entry_chunks(source: str, path: str, entries: list[journal.Entry], size: int, overlap: int,
                 first_ordinal: int = 0) -> list[Chunk]:
    """The chunks of journal entries, in order."""
    chunks: list[Chunk] = []
    for entry in entries:
        date = entry.at.date().isoformat()
        # The type is a filter and a label (facets), not words to match: in the title or the
        # context line, "login issues" ranked every `issue` entry up.
        context = CONTEXT_SEPARATOR.join(("memory", date, *((", ".join(entry.tags),) if entry.tags else ())))
        facets = {"id": entry.id, "type": entry.type, "at": entry.at.isoformat(timespec="seconds"),
                  "tags": list(entry.tags), "files": list(entry.files)}
        text_line = entry.line + 2 + (1 if entry.tags else 0) + (1 if entry.files else 0) + 1
        for piece, (text, first, last) in enumerate(split_text(entry.text, size, overlap)):
            chunks.append(Chunk(
                id=piece_id(source, path, entry.id, piece), ordinal=first_ordinal + len(chunks),
                title=f"memory {date}", context=context, text=text, hash=chunk_hash(context, text),
                start_line=text_line + first, end_line=text_line + last,
                terms=search_terms(" ".join(entry.files), text), at=entry.at.timestamp(), facets=facets))
    return chunks


def load(task: LoadTask) -> LoadResult:
    """Read and parse one journal file. Runs in a worker process; never raises."""
    entry = task.entry
    read = read_changed(task)
    if not isinstance(read, tuple):
        return read
    data, digest = read
    text, encoding = decode(data)
    parsed = journal.parse(text.replace("\r\n", "\n"), entry.rel)
    chunks = entry_chunks(task.source, entry.rel, parsed.entries, task.chunk_size, task.chunk_overlap)
    # `lines`: where a save's next block starts without reading the file again (Memory.save).
    metadata = {"format": "memory", "encoding": encoding, "entries": len(parsed.entries),
                "problems": parsed.problems, "lines": data.count(b"\n")}
    return Document(entry.rel, "memory", Path(entry.rel).stem, len(data), entry.mtime_ns, digest, metadata,
                    tuple(chunks))


def discover(source: Source) -> tuple[list[FileEntry], list[SkippedFile]]:
    """The journal files (`*.md`) under the memory folder."""
    return walk_files(source.root, [".md"], None, None)

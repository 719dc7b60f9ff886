"""`Memory`: what the memory and knowledge commands and MCP tools call (via `Index.memory`;
it takes an engine, `mindex.engine.Engine`).

The files under the index's folder are the truth (`memory/`, `knowledge/` beside
`index.db`, so `.mindex/memory` in a project); every method that writes changes a file
first, under a file lock, then brings the index's rows up to date before it returns.
"""

from __future__ import annotations

import math
import os
from contextlib import suppress
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mindex.config import STATE_DIR, STATE_GITIGNORE
from mindex.errors import IndexLockedError, MemoryInputError, MindexError, NotFoundError
from mindex.memory import journal
from mindex.memory.graph import Graph
from mindex.memory.knowledge import KNOWLEDGE_TYPES, Entity, area_of, render, slug
from mindex.models import Chunk, Facets, Hit, IndexReport, SearchResult, Source
from mindex.memory.contextmd import line_of_block, render_context, shorten
from mindex.memory.ranking import SUPERSEDE_DEPTH, relevant_only, supersede

if TYPE_CHECKING:
    from mindex.engine import Engine


MEMORY, KNOWLEDGE = "memory", "knowledge"
MAX_ENTRY_CHARS = 200_000
# The same text, type, tags and files saved again within this many seconds is the same entry
# (an agent retrying a tool call, a hook firing twice): the save keeps the first one.
DUPLICATE_SECONDS = 600


@dataclass(frozen=True)
class Saved:
    """A saved memory entry and where it went."""

    entry: journal.Entry
    file: str
    line: int
    pending: str | None = None  # why the entry is in the journal but not yet in the index
    duplicate: bool = False  # the same entry was saved moments ago: that one is kept, nothing written

    def to_dict(self) -> dict[str, Any]:
        e = self.entry
        return {"id": e.id, "at": e.at.isoformat(timespec="seconds"), "type": e.type, "tags": list(e.tags),
                "files": list(e.files), "text": e.text, "file": self.file, "line": self.line,
                **({"pending": self.pending} if self.pending else {}), **({"duplicate": True} if self.duplicate else {})}

    def said(self) -> str:
        """The line a person reads: where it went, and when it is not searchable yet, why."""
        if self.duplicate:
            return (f"already saved as {self.entry.id} at {self.file}:{self.line} "
                    f"({self.entry.at.isoformat(timespec='seconds')}); kept that one, wrote nothing")
        return f"saved {self.entry.id} to {self.file}:{self.line}" + (f" ({self.pending})" if self.pending else "")


def check_text(text: str) -> None:
    """Refuse text an entry cannot hold: a NUL byte, or more than MAX_ENTRY_CHARS.

    Raises:
        MemoryInputError: with the next step.
    """
    if "\x00" in text:
        raise MemoryInputError("the text holds a NUL byte; save text, not binary data")
    if len(text) > MAX_ENTRY_CHARS:
        raise MemoryInputError(f"the entry is {len(text):,} characters, over {MAX_ENTRY_CHARS:,}; "
                               "save a summary and keep the rest in a file of the project")


def parse_since(since: str | None, days: float | None, now: datetime | None = None) -> float | None:
    """The epoch seconds a `--since` date (ISO date or time) or `--days N` stands for."""
    if since and days is not None:
        raise MemoryInputError("give --since or --days, not both")
    if days is not None:
        if days < 0:
            raise MemoryInputError("--days cannot be negative")
        try:
            return ((now or datetime.now(timezone.utc)) - timedelta(days=days)).timestamp()
        except OverflowError:  # more days than the calendar holds: no lower bound
            return None
    return parse_time(since, "--since")


def parse_time(value: str | None, flag: str = "--until") -> float | None:
    """The epoch seconds of an ISO date or time given to `flag` (no zone: UTC)."""
    if not value:
        return None
    try:
        at = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise MemoryInputError(f"{flag} {value!r} is not a date; write it as 2026-10-01 or 2026-10-01T09:00") from None
    return (at if at.tzinfo else at.replace(tzinfo=timezone.utc)).timestamp()


def entry_of(hit: Hit) -> dict[str, Any]:
    """The JSON shape of a memory or knowledge hit: its facets, text, file and score."""
    facets = dict(hit.facets or {})
    return {**facets, "kind": hit.kind, "text": hit.text, "file": f"{hit.kind}/{hit.path}", "line": hit.start_line,
            "score": round(hit.score, 6), "chunk": hit.id}


class Memory:
    """Agent memory and knowledge of one index."""

    def __init__(self, index: Engine) -> None:
        self.index = index
        self.folder = index.db_path.parent
        self.memory_dir = self.folder / "memory"
        self.knowledge_dir = self.folder / "knowledge"
        self.settings = index.memory_settings
        self._sources: dict[str, Source] = {}

    # -- sources ---------------------------------------------------------------------------

    def source(self, kind: str) -> Source:
        """The memory or knowledge source, registered (with its folder) on first use."""
        if kind in self._sources:
            return self._sources[kind]
        folder = self.memory_dir if kind == MEMORY else self.knowledge_dir
        ignore = self.folder / ".gitignore"
        if self.folder.name == STATE_DIR and not folder.exists() and not ignore.exists():  # first use
            with suppress(OSError):  # a read-only folder: the write that follows says so
                self.folder.mkdir(parents=True, exist_ok=True)
                ignore.write_text(STATE_GITIGNORE)
        source = self._sources[kind] = self.index.own_source(folder, kind, kind, "memory")
        return source

    def journal_changed(self) -> bool:
        """Whether a journal file differs from what the index holds (a hand edit, or an entry a
        hook wrote while an indexer held the index): a stat a file, no write."""
        registered = self._sources.get(MEMORY) or next(
            (s.source for s in self.index.sources() if s.source.name == MEMORY), None)
        if registered is None or not self.memory_dir.is_dir():
            return False
        self._sources[MEMORY] = registered
        held = self.index.store.document_markers(registered.id or 0)
        for path in self.memory_dir.glob("*.md"):
            info = path.stat()
            if held.get(path.name, (None, None))[:2] != (info.st_size, info.st_mtime_ns):
                return True
        return False

    def _catch_up(self) -> None:
        """Index journal entries written while an indexer held the index (or edited by hand)
        before reading; when the index is busy or read-only, read what it has."""
        try:
            if self.journal_changed():
                self.refresh((MEMORY,), embed=False)
        except MindexError:
            pass

    def refresh(self, kinds: tuple[str, ...] = (MEMORY, KNOWLEDGE), embed: bool | None = None) -> dict[str, IndexReport]:
        """Index the memory and knowledge folders (hand edits, deletions, renames)."""
        for kind in kinds:
            self.source(kind)
        wanted = self.settings.embed_on_save if embed is None else embed
        return self.index.index(kinds, embed=wanted)

    def rebuild_graph(self) -> None:
        """Derive the knowledge graph's tables from the indexed knowledge files."""
        from mindex.sources.knowledge import rebuild_graph

        rebuild_graph(self.index.store, self.settings.areas)

    # -- the journal -----------------------------------------------------------------------

    def save(self, text: str, type: str = "progress", tags: tuple[str, ...] | list[str] = (),
             files: tuple[str, ...] | list[str] = (), at: datetime | None = None, embed: bool | None = None,
             index: bool = True) -> Saved:
        """Append an entry to this month's journal and index it; searchable on return. With
        `index=False` only the journal is written (it is the record; the index is derived):
        for a hook that finds an indexer holding the index, the next run picks the entry up.

        Raises:
            MemoryInputError: empty text, an unknown type, a bad tag or path, a huge entry.
        """
        check_text(text)
        kind = journal.check_type(type, tuple(self.settings.types))
        when = (at or datetime.now(timezone.utc).astimezone()).replace(microsecond=0)
        entry = journal.Entry(journal.new_id(when), when, kind, text.replace("\r\n", "\n").strip(),
                              journal.clean_list(tuple(tags), "tag"), journal.clean_list(tuple(files), "file"))
        block = journal.render(entry)
        name = journal.journal_name(when)
        path = self.memory_dir / name
        if not index:
            self.memory_dir.mkdir(parents=True, exist_ok=True)
            with journal.locked(self.memory_dir):
                if twin := self._recent_twin(path, entry):
                    return twin
                journal.append(path, block)
                line = line_of_block(path, block)
            return Saved(replace(entry, line=line), f"{self.memory_dir.name}/{name}", line)
        source = self.source(MEMORY)
        from mindex.sources.memory import entry_chunks

        conf = self.index.settings
        made: list[tuple[journal.Entry, list[Chunk]]] = []

        def placed(lines_before: int, lead: int) -> tuple[list[Chunk], int]:
            """The entry's chunks once its line is known: after the file's lines before it and
            the blank line `append` put first; and the file's line count after it."""
            placed_entry = replace(entry, line=lines_before + lead + 1)
            chunks = entry_chunks(source.name, name, [placed_entry], conf.chunk_size, conf.chunk_overlap)
            made.append((placed_entry, chunks))
            return chunks, lines_before + lead + block.count("\n")

        with journal.locked(self.memory_dir):
            if twin := self._recent_twin(path, entry):  # under the lock: two saves at once keep one
                return twin
            before = self._markers(path)
            lead = journal.append(path, block)
            stat = path.stat()
            # The same cost at any journal size: the line comes from the line count the index
            # keeps for the file, and no hash of the whole month is taken (the index reads the
            # file again only if its size or time changes otherwise).
            after = (stat.st_size, stat.st_mtime_ns)
            try:
                appended = before is not None and self.index.store.append_chunks(
                    source.id or 0, name, before, after, lambda lines: placed(lines, lead))
                if not appended:  # a new month, a hand edit, an index of an older mindex: read it whole
                    self.index.index([MEMORY], embed=False)
            except IndexLockedError as exc:  # the entry is in the journal already: saved, not yet found
                why = f"in the journal; searchable once the index is free: {exc}"
                line = line_of_block(path, block)
                return Saved(replace(entry, line=line), f"{self.memory_dir.name}/{name}", line, why)
            if not appended:  # under the lock: a save after this one would move the file's end
                entry = replace(entry, line=line_of_block(path, block))
        if appended:
            entry, chunks = made[-1]
        if appended and (self.settings.embed_on_save if embed is None else embed):
            self.index.embed_chunks([c.hash for c in chunks])  # only this entry: no scan of the index
        else:
            self._embed(embed)
        return Saved(entry, f"{self.memory_dir.name}/{name}", entry.line)

    def _recent_twin(self, path: Path, entry: journal.Entry) -> Saved | None:
        """The same entry saved in the last DUPLICATE_SECONDS (read from the journal's tail),
        as a duplicate `Saved`; None when there is none."""
        for old in reversed(journal.tail_entries(path, entry.text)):
            if (old.text, old.type, old.tags, old.files) == (entry.text, entry.type, entry.tags, entry.files) \
                    and abs((entry.at - old.at).total_seconds()) <= DUPLICATE_SECONDS:
                # Lines of the tail are counted from its start: find the entry's own line (rare: read it all).
                line = journal.line_of_entry(path, old.id)
                return Saved(replace(old, line=line), f"{self.memory_dir.name}/{path.name}", line, duplicate=True)
        return None

    @staticmethod
    def _markers(path: Path) -> tuple[int, int] | None:
        try:
            stat = path.stat()
        except FileNotFoundError:
            return None
        return stat.st_size, stat.st_mtime_ns

    def _embed(self, embed: bool | None) -> None:
        wanted = self.settings.embed_on_save if embed is None else embed
        if wanted and self.index.embedder() is not None:
            self.index.embed()

    def search(self, query: str, limit: int = 10, types: tuple[str, ...] = (), tags: tuple[str, ...] = (),
               since: float | None = None, files: tuple[str, ...] = (), mode: str | None = None,
               decay: bool = True, kind: str = MEMORY, current_only: bool = True, until: float | None = None,
               dates: bool = True, now: datetime | None = None) -> SearchResult:
        """Search memory (or knowledge) by keyword, meaning or both; filters apply before
        top-k; recency (half-life per kind, `search.half_life_days`, see `mindex.search.decay`)
        and, for memory, newer decisions above the ones they restate (`supersede`) unless
        `decay` is off.
        With `dates` and no `since`/`until`, a time the query names ("last week", "on
        2026-03-04", "in May"; see mindex.memory.when) becomes the window, in `now`'s zone
        (default: the local one)."""
        from mindex.memory.when import search_with_dates

        self.source(kind)
        if kind == MEMORY:
            self._catch_up()

        restated = decay and kind == MEMORY and bool(self.settings.supersede_types)
        # Decisions restated later may rank further down: look deeper, then cut to `limit`.
        depth = max(limit, SUPERSEDE_DEPTH) if restated else limit

        def run(text: str, start: float | None, end: float | None) -> SearchResult:
            facets = Facets(types=tuple(types), tags=tuple(tags), files=tuple(files), since=start, until=end,
                            current_only=current_only and kind == KNOWLEDGE)
            return self.index.search(text, depth, mode=mode, kind=kind, facets=facets, decay_on=decay, merge=False)

        if not dates or since is not None or until is not None:
            found = run(query, since, until)
        else:
            found = search_with_dates(run, query, now or datetime.now().astimezone())
        if restated:
            hits = list(found.hits)
            hits = supersede(hits, self.index.stored_vectors(hits), set(self.settings.supersede_types),
                             self.settings.supersede_similarity)
            found = replace(found, hits=tuple(hits[:limit]))
        return relevant_only(found, self.settings.min_similarity, kind)

    def recent(self, limit: int = 20, types: tuple[str, ...] = (), tags: tuple[str, ...] = (),
               since: float | None = None, files: tuple[str, ...] = (), kind: str = MEMORY) -> list[Hit]:
        """Entries newest first, filtered."""
        if kind == MEMORY:
            self._catch_up()
        facets = Facets(types=tuple(types), tags=tuple(tags), files=tuple(files), since=since)
        return self.index.store.faceted_hits(kind, facets, limit)

    def show(self, entry_id: str) -> dict[str, Any]:
        """One entry or entity in full.

        Raises:
            NotFoundError: no such id in the index (run `mindex index` after hand edits).
        """
        self._catch_up()
        for kind in (MEMORY, KNOWLEDGE):
            pieces = self.index.store.entry_pieces(kind, entry_id)
            if pieces:
                first = entry_of(pieces[0])
                first["text"] = "\n\n".join(p.text for p in pieces)  # pieces overlap a little; the file is exact
                folder = self.memory_dir if kind == MEMORY else self.knowledge_dir
                first["file"] = f"{folder.name}/{pieces[0].path}"
                first.pop("score", None)
                return first
        raise NotFoundError(f"no memory or knowledge entry {entry_id!r}; see `mindex memory list`")

    def forget(self, entry_id: str) -> dict[str, Any]:
        """Remove one entry's block from its journal file (atomically) and its rows.

        Raises:
            NotFoundError: no entry with that id.
        """
        shown = self.show(entry_id)
        if shown["kind"] == KNOWLEDGE:
            path = self.knowledge_dir / shown["file"].split("/", 1)[1]
            with journal.locked(self.knowledge_dir):
                path.unlink()
            self.refresh((KNOWLEDGE,), embed=False)
            return shown
        path = self.memory_dir / shown["file"].split("/", 1)[1]
        with journal.locked(self.memory_dir):
            journal.remove_block(path, entry_id)
            self.index.index([MEMORY], embed=False)
        return shown

    def edit(self, entry_id: str, text: str | None = None, type: str | None = None,
             tags: tuple[str, ...] | None = None, files: tuple[str, ...] | None = None,
             embed: bool | None = None) -> Saved:
        """Rewrite one journal entry in place (same id and time; what is not given stays),
        atomically, and index it again: the journal stays the record.

        Raises:
            NotFoundError: no such entry (a knowledge entity is a file: supersede it instead).
            MemoryInputError: empty text, an unknown type, a bad tag or path, a huge entry.
        """
        shown = self.show(entry_id)
        if shown["kind"] == KNOWLEDGE:
            raise MemoryInputError(f"{shown['id']} is a knowledge entity (a file of its own); replace it with "
                                   "`mindex knowledge add ... --supersedes ID` or edit the file")
        name = shown["file"].split("/", 1)[1]
        path = self.memory_dir / name
        if text is not None:
            check_text(text)
        with journal.locked(self.memory_dir):
            old = next((e for e in journal.parse(path.read_text(encoding="utf-8"), name).entries
                        if e.id == shown["id"]), None)
            if old is None:
                raise NotFoundError(f"no intact entry {shown['id']} in {name}; run `mindex index` if the file was "
                                    "edited by hand")
            entry = replace(
                old, text=old.text if text is None else text.replace("\r\n", "\n").strip(),
                type=old.type if type is None else journal.check_type(type, tuple(self.settings.types)),
                tags=old.tags if tags is None else journal.clean_list(tuple(tags), "tag"),
                files=old.files if files is None else journal.clean_list(tuple(files), "file"))
            journal.replace_block(path, old.id, journal.render(entry))
            self.index.index([MEMORY], embed=False)
            line = journal.line_of_entry(path, entry.id)
        self._embed(embed)
        return Saved(replace(entry, line=line), f"{self.memory_dir.name}/{name}", line)

    def rebuild(self) -> dict[str, IndexReport]:
        """Recreate every memory and knowledge row from the files on disk: each file is read
        and parsed again (a run killed half-way is finished by the next `index`)."""
        for kind in (MEMORY, KNOWLEDGE):
            source = self.source(kind)
            self.index.store.forget_markers(source.id or 0)
        return self.refresh(embed=None)

    # -- knowledge -------------------------------------------------------------------------

    def add_knowledge(self, type: str, text: str, title: str | None = None, areas: tuple[str, ...] = (),
                      files: tuple[str, ...] = (), confidence: float = 0.7, supersedes: tuple[str, ...] = (),
                      led_to: tuple[str, ...] = (), issues: tuple[str, ...] = (), tags: tuple[str, ...] = (),
                      embed: bool | None = None, applies_to: tuple[str, ...] = ()) -> dict[str, Any]:
        """Write a knowledge entity's file and index it.

        Raises:
            MemoryInputError: empty text, an unknown type, a confidence outside 0-1, an
                unknown entity to supersede.
        """
        if type not in KNOWLEDGE_TYPES:
            raise MemoryInputError(f"unknown knowledge type {type!r}; use one of: {', '.join(KNOWLEDGE_TYPES)}")
        if not text.strip():
            raise MemoryInputError("knowledge needs some text; say what was learned")
        source = self.source(KNOWLEDGE)
        known = {row[0] for row in self.index.store.graph_rows()[0]}
        missing = [eid for eid in (*supersedes, *led_to, *applies_to) if eid not in known]
        if missing:
            raise MemoryInputError(f"no knowledge entity {missing[0]!r} to link to; see `mindex knowledge query`")
        when = datetime.now(timezone.utc).astimezone().replace(microsecond=0)
        eid = journal.new_id(when, "k")
        body = text.replace("\r\n", "\n").strip()
        head = title or body.split("\n", 1)[0][:80]
        relations = tuple([("SUPERSEDES", s) for s in supersedes] + [("LED_TO", s) for s in led_to]
                          + [("APPLIES_TO", s) for s in applies_to])
        entity = Entity(eid, type, head, body, when, confidence, journal.clean_list(tuple(areas), "area"),
                        journal.clean_list(tuple(files), "file"), tuple(i.lstrip("#") for i in issues),
                        journal.clean_list(tuple(tags), "tag"), relations)
        rel = f"{type}/{slug(head)}-{eid}.md"
        path = self.knowledge_dir / rel
        data = render(entity)
        with journal.locked(self.knowledge_dir):
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}.tmp")
            with open(tmp, "w", encoding="utf-8") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        self.index.index([source.name], embed=False)
        self._embed(embed)
        return {"id": eid, "type": type, "title": head, "file": f"{self.knowledge_dir.name}/{rel}",
                "confidence": confidence, "areas": list(entity.areas), "files": list(entity.files),
                "supersedes": list(supersedes), "led_to": list(led_to)}

    def graph(self) -> Graph:
        """The knowledge graph as indexed."""
        self.source(KNOWLEDGE)
        return Graph.load(*self.index.store.graph_rows())

    def query(self, area: str | None = None, file: str | None = None, issue: str | None = None,
              text: str | None = None, depth: int = 2, all: bool = False, limit: int = 20,
              now: float | None = None, graph: Graph | None = None) -> list[dict[str, Any]]:
        """Knowledge for an area, a file, an issue and/or a question, ranked by relevance ×
        confidence × recency (on the entries' own clock, as `mindex.search.decay`). The graph walk goes up to `depth` hops (file → area →
        learnings; mistake → LED_TO → learning); `text` adds a search of the entities' text.
        Superseded entities are left out unless `all`. `graph` spares a caller that asks
        several questions a load of the graph per question."""
        if not 1 <= depth <= 3:
            raise MemoryInputError("--depth must be 1-3")
        graph = graph or self.graph()
        starts: dict[str, int] = {}
        if file:
            file = file.strip("/").replace("\\", "/")
            inside = [e for e in graph.entities if e == f"file:{file}" or e.startswith(f"file:{file}/")]
            starts.update(dict.fromkeys(inside, 0))
            if not inside:  # no entity names the file: start from its area, one hop already made
                starts[f"area:{area_of(file, self.settings.areas)}"] = 1
        if area:
            starts[f"area:{area}"] = 0
        if issue:
            starts[f"issue:{issue.lstrip('#')}"] = 0
        relevance: dict[str, float] = {}
        why: dict[str, list[str]] = {}
        for eid, (hops, path) in graph.walk(starts, depth).items():
            relevance[eid] = 1.0 / hops
            why[eid] = path
        # One more step along LED_TO / APPLIES_TO between entities found (mistake → learning).
        for eid in list(relevance):
            for rel, other in graph.out.get(eid, []):
                if rel != "SUPERSEDES" and graph.entities.get(other, ("", ""))[1] in KNOWLEDGE_TYPES and other not in relevance:
                    relevance[other] = relevance[eid] * 0.5
                    why[other] = [*why[eid], rel, other]
        if text:
            found = self.search(text, limit=max(50, limit), kind=KNOWLEDGE, decay=False, current_only=not all,
                                dates=False)
            for rank, hit in enumerate(found.hits):
                hit_id = str((hit.facets or {}).get("id", ""))
                if not hit_id or relevance.get(hit_id, 0.0) >= 1.0:
                    continue
                share = 1.0 / (1 + rank)  # rank-based: scores of the two legs are not comparable
                relevance[hit_id] = relevance.get(hit_id, 0.0) + share
                why.setdefault(hit_id, ["text match"])
        if not starts and not text:
            relevance = {eid: 1.0 for eid, row in graph.entities.items() if row[1] in KNOWLEDGE_TYPES}
        superseded = graph.superseded()
        hidden = set() if all else superseded
        from mindex.search import recency_clock

        shown = [eid for eid in relevance if eid not in hidden and eid in graph.entities]
        # Recency as in search: on the candidates' own clock, stretched to their span.
        half_life = self.index.search_settings.half_life_days.get(KNOWLEDGE, 0.0)
        times = [at for eid in shown if (at := graph.entities[eid][4])]
        newest, days = recency_clock(times, half_life, now) if half_life and times else (0.0, 0.0)
        out: list[dict[str, Any]] = []
        for eid in shown:
            weight = relevance[eid]
            _, kind, title, confidence, at, entity_file = graph.entities[eid]
            recency = 0.5 ** (max(0.0, newest - (at or newest)) / 86400 / days) if days else 1.0
            score = weight * (confidence if confidence is not None else 0.7) * recency
            out.append({"id": eid, "type": kind, "title": title, "confidence": confidence,
                        "at": datetime.fromtimestamp(at, timezone.utc).isoformat(timespec="seconds") if at else None,
                        "file": f"{self.knowledge_dir.name}/{entity_file}" if entity_file else None, "score": round(score, 6),
                        "via": why.get(eid, []), "superseded": eid in superseded,
                        "areas": sorted({dst[5:] for r, dst in graph.out.get(eid, []) if dst.startswith("area:")}),
                        "files": sorted({dst[5:] for r, dst in graph.out.get(eid, []) if dst.startswith("file:")})})
        out.sort(key=lambda item: (-float(item["score"]), str(item["id"])))
        return out[:limit]

    def code_links(self, files: list[str]) -> dict[str, dict[str, Any]]:
        """For File entities: the indexed code file of that path and its definitions."""
        from mindex.graph import CodeGraph

        links: dict[str, dict[str, Any]] = {}
        graph: CodeGraph = self.index.graph()
        code = [s.source.name for s in self.index.sources() if s.source.kind == "code"]  # once, not per file
        for file in files:
            for source in code:
                try:
                    doc = graph.document(file, source)
                except NotFoundError:
                    continue
                links[file] = {"source": source, "path": file,
                               "symbols": [s.name for s in graph.symbols_in(doc)][:20]}
                break
        return links

    # -- context for agents ----------------------------------------------------------------

    def context(self, files: tuple[str, ...] = (), issue: str | None = None, query: str | None = None,
                budget: int = 2000, memories: int = 20) -> dict[str, Any]:
        """Markdown for an agent's context: the most relevant learnings, patterns, mistakes and
        recent memories for the files, issue and question, grouped by code area, within
        `budget` tokens (characters / 4; never more). Loads no model unless `query` is given.
        Returns {"markdown", "tokens", "budget", "included", "left_out"}."""
        if budget < 50:
            raise MemoryInputError("--budget must be at least 50 tokens")
        files = tuple(f.strip("/").replace("\\", "/") for f in files if f.strip("/"))
        found: dict[str, dict[str, Any]] = {}
        graph = self.graph()
        for file in files or (None,):
            for item in self.query(file=file, issue=issue, text=query, limit=50, graph=graph):
                if item["id"] not in found or found[item["id"]]["score"] < item["score"]:
                    found[item["id"]] = item
        candidates: list[tuple[float, str, str, str]] = []  # (score, area, section, line)
        for item in found.values():
            pieces = self.index.store.entry_pieces(KNOWLEDGE, item["id"])
            text = shorten(pieces[0].text if pieces else item["title"], 400)
            area = (item["areas"] or [area_of(f, self.settings.areas) for f in item["files"]] or ["general"])[0]
            line = f"- **{shorten(item['title'], 100)}** ({(item['at'] or '')[:10]}, confidence {item['confidence']}, {item['id']})"
            if text != item["title"]:
                line += f": {text}"
            candidates.append((item["score"], area, item["type"], line))
        if query:
            hits = list(self.search(query, limit=memories).hits)
        else:
            hits = self.recent(limit=memories, files=files) if files else []
            if issue:
                hits += self.recent(limit=memories, tags=(f"#{issue.lstrip('#')}",))
            if not files and not issue:
                hits = self.recent(limit=memories)
        seen = set()
        for rank, hit in enumerate(hits):
            facets = hit.facets or {}
            if facets.get("id") in seen:
                continue
            seen.add(facets.get("id"))
            area = ([area_of(f, self.settings.areas) for f in facets.get("files", [])] or ["general"])[0]
            tags = f" [{', '.join(facets.get('tags', []))}]" if facets.get("tags") else ""
            line = f"- {str(facets.get('at', ''))[:10]} {facets.get('type', '')}{tags} ({facets.get('id')}): {shorten(hit.text, 400)}"
            candidates.append((0.5 / (1 + rank), area, "memory", line))
        candidates.sort(key=lambda c: -c[0])
        limit_chars = budget * 4
        chosen: list[tuple[float, str, str, str]] = []
        for candidate in candidates:
            trial = render_context([*chosen, candidate], len(candidates) - len(chosen) - 1)
            if len(trial) <= limit_chars:
                chosen.append(candidate)
        text = render_context(chosen, len(candidates) - len(chosen))
        while len(text) > limit_chars and chosen:  # the left-out line grew: make room for it
            chosen.pop()
            text = render_context(chosen, len(candidates) - len(chosen))
        if len(text) > limit_chars:
            text = text[:limit_chars]
        left = [c for c in candidates if c not in chosen]
        counts: dict[str, int] = {}
        for c in left:
            counts[c[2]] = counts.get(c[2], 0) + 1
        return {"markdown": text, "tokens": math.ceil(len(text) / 4), "budget": budget, "included": len(chosen),
                "left_out": counts}

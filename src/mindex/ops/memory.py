"""Operations on agent memory (the markdown journal) and knowledge (learnings, patterns,
mistakes and topics in a graph): save, search, list, show, forget, add and query knowledge,
and the context an agent starts a task with."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from mindex.modes import MODES
from mindex.ops import Operation, Param

if TYPE_CHECKING:
    from mindex.index import Index
    from mindex.memory.book import Saved

KNOWLEDGE_TYPES = ("learning", "pattern", "mistake", "topic")


class Entries(NamedTuple):
    """Memory entries or knowledge entities (each a dict), with what was asked in `head`;
    `empty` says what none means, `note` how a time named in the query was read."""

    items: list[dict[str, Any]]
    head: dict[str, Any] | None = None
    empty: str = "no entries match"
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {**(self.head or {}), "results": self.items}


class Entry(NamedTuple):
    """One entry: saved, shown, forgotten or added (`said` is the line that reports it)."""

    item: dict[str, Any]
    said: str
    shape: dict[str, Any] | None = None

    @property
    def items(self) -> list[dict[str, Any]]:
        return [self.item]

    def to_dict(self) -> dict[str, Any]:
        return self.item if self.shape is None else self.shape

    def structured(self) -> dict[str, Any]:
        return {"results": [self.item]}


class Synaptic(NamedTuple):
    """An answer in the shape Synaptic's own tools give (its context_save, context_search)."""

    data: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return self.data


class Context(NamedTuple):
    """Markdown for an agent's context within a token budget, and what it holds."""

    data: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return self.data


def _one(values: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(v for v in values if v)


def save(index: Index, text: str, type: str = "progress", tags: tuple[str, ...] = (), files: tuple[str, ...] = (),
         embed: bool | None = None) -> Entry:
    """Append an entry to this month's journal; searchable at once."""
    saved: Saved = index.memory.save(text, type, tags, files, embed=embed)
    return Entry(saved.to_dict(), saved.said())


def search(index: Index, query: str, limit: int = 10, mode: str | None = None, type: tuple[str, ...] = (),
           tag: tuple[str, ...] = (), since: str | None = None, days: float | None = None,
           file: tuple[str, ...] = (), until: str | None = None, decay: bool = True, dates: bool = True) -> Entries:
    """The journal by keywords and meaning; filters apply before ranking."""
    from mindex.memory.book import entry_of, parse_since, parse_time

    result = index.memory.search(query, limit, _one(type), _one(tag), parse_since(since, days), _one(file), mode,
                                 decay, until=parse_time(until), dates=dates)
    head = {"query": result.query, "mode": result.mode, "took_ms": round(result.took_ms, 2), "note": result.note}
    return Entries([entry_of(hit) for hit in result.hits], head, "no memory matches", result.note)


def synaptic_save(index: Index, content: str, type: str = "progress", tags: tuple[str, ...] = ()) -> Synaptic:
    """Save as Synaptic's context_save does (its parameter names), answering in its shape."""
    saved = save(index, content, type, tags)
    item = saved.item
    return Synaptic({"success": True, "id": item["id"], "date": item["at"][:10], "time": item["at"][11:19],
                     **{k: item[k] for k in ("duplicate", "pending") if k in item}})


def synaptic_search(index: Index, query: str, type: str | None = None, days: int | None = None,
                    limit: int = 20) -> Synaptic:
    """Search as Synaptic's context_search does, answering in its shape (`content` for text)."""
    found = search(index, query, limit, type=(type,) if type else (), days=days)
    items = [{"id": e["id"], "date": e["at"][:10], "time": e["at"][11:19], "type": e["type"], "tags": e["tags"],
              "content": e["text"]} for e in found.items]
    return Synaptic({"results": items, "total": len(items)})


def recent(index: Index, limit: int = 20, type: tuple[str, ...] = (), tag: tuple[str, ...] = (),
           since: str | None = None, days: float | None = None, file: tuple[str, ...] = ()) -> Entries:
    """The latest entries, newest first."""
    from mindex.memory.book import entry_of, parse_since

    items = [entry_of(hit) for hit in index.memory.recent(limit, _one(type), _one(tag), parse_since(since, days),
                                                         _one(file))]
    for item in items:
        item.pop("score")
    return Entries(items, empty="no memories yet")


def show(index: Index, id: str) -> Entry:
    """One entry or entity in full."""
    item = index.memory.show(id)
    return Entry(item, item["file"])


def forget(index: Index, id: str) -> Entry:
    """Remove exactly one entry from its journal file and from the index."""
    item = index.memory.forget(id)
    return Entry(item, f"forgot {item['id']} ({item['file']})", {"forgotten": item["id"], "file": item["file"]})


def edit(index: Index, id: str, text: str | None = None, type: str | None = None, tags: str | None = None,
         files: str | None = None, embed: bool | None = None) -> Entry:
    """Rewrite one journal entry in place; what is not given stays as it was."""
    def listed(value: str | None) -> tuple[str, ...] | None:
        return None if value is None else tuple(part.strip() for part in value.split(",") if part.strip())

    saved: Saved = index.memory.edit(id, text, type, listed(tags), listed(files), embed=embed)
    return Entry(saved.to_dict(), f"edited {saved.entry.id} ({saved.file}:{saved.line})")


def add_knowledge(index: Index, type: str, text: str, title: str | None = None, areas: tuple[str, ...] = (),
                  files: tuple[str, ...] = (), confidence: float = 0.7, supersedes: tuple[str, ...] = (),
                  led_to: tuple[str, ...] = (), issues: tuple[str, ...] = (), tags: tuple[str, ...] = (),
                  applies_to: tuple[str, ...] = ()) -> Entry:
    """Write a knowledge file (front matter and text) and index it."""
    item = index.memory.add_knowledge(type, text, title, areas, files, confidence, supersedes, led_to, issues, tags,
                                      applies_to=applies_to)
    return Entry(item, f"added {item['id']} ({item['file']})")


def query_knowledge(index: Index, area: str | None = None, file: str | None = None, issue: str | None = None,
                    text: str | None = None, depth: int = 2, all: bool = False, limit: int = 20,
                    question: str | None = None) -> Entries:
    """Knowledge about an area, a file, an issue or a question (`text`, or the CLI's words
    after the command: `question`), each with the code its files hold."""
    if question and text and question != text:
        raise ValueError("give the question once: as words after the command or as --text")
    items = index.memory.query(area, file, issue, text or question or None, depth, all, limit)
    links = index.memory.code_links(sorted({f for item in items for f in item["files"]})) if items else {}
    for item in items:
        item["code"] = [links[f] for f in item["files"] if f in links]
    return Entries(items, empty="no knowledge matches")


def context(index: Index, files: tuple[str, ...] = (), issue: str | None = None, query: str | None = None,
            budget: int = 2000, more_files: tuple[str, ...] = ()) -> Context:
    """Learnings, patterns, mistakes and recent memory for the files, issue and task.
    `more_files` are the CLI's words after `--files`: one that holds a space and names no file
    here is words meant for `--query` (`mindex context "add retries"` said only that nothing
    was known about a file of that name)."""
    from pathlib import Path

    for word in more_files:
        if any(ch.isspace() for ch in word) and not Path(word).exists():
            raise ValueError(f"{word!r} is not a file here: name files with --files, and say what you are about "
                             f"to do with --query (mindex context --query {word!r})")
    return Context(index.memory.context((*files, *more_files), issue, query, budget))



_HERE = "mindex.ops.memory"
_VIEWS = "mindex.serve.memoryviews"
_ENTRIES: dict[str, Any] = {"markdown": f"{_VIEWS}:entries_markdown", "text": f"{_VIEWS}:print_entries",
            "schema": "mindex.serve.mcp_models:EntriesOut"}
_ONE: dict[str, Any] = {"markdown": f"{_VIEWS}:said_markdown", "text": f"{_VIEWS}:print_said",
        "schema": "mindex.serve.mcp_models:EntriesOut"}
_TYPE = Param("type", str, "Only entries of this type (repeatable).", default=None, many=True, metavar="TYPE",
              agent_help="only this type (or these)")
_TAG = Param("tag", str, "Only entries with this tag (repeat: all of them).", default=None, many=True, metavar="TAG",
             agent_help="only entries with this tag (several: all of them)")
_SINCE = Param("since", str, "Only entries at or after DATE (2026-10-01 or an ISO time).", default=None, metavar="DATE",
               agent_help="only entries at or after this date (2026-10-01 or an ISO time)")
_DAYS = Param("days", float, "Only entries of the last N days.", default=None, ge=0,
              agent_help="only the last N days")
_FILE = Param("file", str, "Only entries about this file, folder or glob.", default=None, many=True, metavar="PATH",
              agent_help="only entries about this file, folder or glob")
_FILTERS = (_TYPE, _TAG, _SINCE, _DAYS, _FILE)
_ID = Param("id", str, "The entry's id, e.g. m-20261123-044512-7f3a2c1e.", argument=True,
            metavar="ENTRY_ID", agent_help="the memory's id, e.g. m-20261123-044512-7f3a2c1e")
_SAVE_HELP = ("Save a memory for later sessions: a decision and its reason, what you learned, what you finished or "
              "left for next time. Appended to the project's markdown journal (.mindex/memory), searchable at once. "
              "Types: decision, progress, issue, handoff, insight, reference. Name the files it concerns so "
              "get_context finds it.")
_SEARCH_HELP = ("Search saved memories by keywords and meaning, relevance first with newer entries ranked up a "
                "little, and a newer decision above the older ones it restates (decay=false turns both off). Filters "
                "apply before ranking; a time the query names (\"last week\", \"in May\", \"on 2026-03-04\") filters "
                "by date unless days is given (dates=false reads it as words).")


def _memory(name: str, tool: str, help: str, agent_help: str, **more: Any) -> Operation:
    """A memory operation: under `mindex memory`, opening the index where none exists yet."""
    settings: dict[str, Any] = {"run": f"{_HERE}:{name}", "creates": True, **_ENTRIES, **more}
    return Operation(name=name, tool=tool, cli=("memory", name), help=help, agent_help=agent_help, **settings)


OPERATIONS = (
    _memory(
        "save", "memory_save",
        "Append an entry to this month's journal; it is searchable when the command returns.\n\nTEXT is the entry "
        "(several words are joined; `-` reads it from stdin).",
        _SAVE_HELP, writes=True, **_ONE,
        params=(Param("text", str, "The entry.", argument=True, rest=True, agent_help="the memory, in a few sentences"),
                Param("type", str, "decision, progress, issue, handoff, insight, reference (more in memory.types).",
                      default="progress",
                      agent_help="decision, progress, issue, handoff, insight or reference"),
                Param("tags", str, "A tag (repeatable).", default=None, many=True, flags=("--tag",),
                      agent_help="tags, e.g. ['http']"),
                Param("files", str, "A file the entry is about, relative to the project (repeatable).", default=None,
                      many=True, flags=("--file", "--files"), agent_help="project files it concerns"),
                Param("embed", bool, "Embed the entry now (default: memory.embed_on_save).", default=None,
                      flags=("--embed/--no-embed",), agent_help="embed the entry now (default: memory.embed_on_save)")),
        examples=('mindex memory save "Chose SQLite WAL over a server: one file, no daemon" --type decision --tag '
                  'storage', "git log -1 --format=%B | mindex memory save - --type progress")),
    _memory(
        "search", "memory_search",
        "Search the journal by keywords and meaning; filters apply before ranking. A time named in the query becomes "
        "a filter (the note on stderr says how it was read).",
        _SEARCH_HELP, stderr=f"{_VIEWS}:search_note",
        markdown=f"{_VIEWS}:search_markdown",
        params=(Param("query", str, "What to recall.", argument=True, blank=False, agent_help="what to recall, in words"),
                Param("limit", int, "How many entries.", default=10, ge=1, le=1000, flags=("-n", "--limit"),
                      agent_help="how many results"),
                Param("mode", str, "Search mode (default: hybrid when vectors exist).", default=None, choices=MODES,
                      agent_help="keyword, semantic or hybrid (default: hybrid when vectors exist)"),
                *_FILTERS,
                Param("until", str, "Only entries before DATE.", default=None, metavar="DATE",
                      agent_help="only entries before this date"),
                Param("decay", bool, "Rank newer entries up (half-life search.half_life_days.memory, 30 days, "
                      "stretched to the results' span) and a newer decision above the ones it restates.",
                      default=True, flags=("--decay/--no-decay",),
                      agent_help="rank newer entries up a little and restated decisions above the ones they replace"),
                Param("dates", bool, "Read a time the query names (last week, in May, on 2026-03-04) as "
                      "--since/--until.", default=True, flags=("--dates/--no-dates",),
                      agent_help="read a time the query names (last week, in May) as a date filter")),
        examples=('mindex memory search "why did we pick WAL mode"',
                  'mindex memory search "flaky test" --type issue --days 14 --json',
                  'mindex memory search "what did we decide about caching last week"')),
    # Synaptic's own tools, for agents set up for it: its parameter names and answer shapes.
    Operation(
        name="context-save", tool="context_save", cli=("context", "save"), faces=("mcp",), writes=True,
        creates=True, help="Save a context entry (Synaptic's context_save).",
        agent_help="Save a context entry (decision, progress, issue, handoff, insight, reference) to the project's "
                   "memory; the same as memory_save, with Synaptic's parameter names and answer.",
        run=f"{_HERE}:synaptic_save", markdown=f"{_VIEWS}:synaptic_markdown", text=f"{_VIEWS}:print_said",
        schema="mindex.serve.mcp_models:SynapticSaveOut",
        params=(Param("content", str, "The context content to save.", blank=False),
                Param("type", str, "Type of context entry.", default="progress",
                      choices=("decision", "progress", "issue", "handoff", "insight", "reference")),
                Param("tags", str, "Tags for categorization (e.g. project names, topics).", default=None, many=True))),
    Operation(
        name="context-search", tool="context_search", cli=("context", "search"), faces=("mcp",), creates=True,
        help="Search saved context entries (Synaptic's context_search).",
        agent_help="Search saved context entries by keywords and meaning; the same as memory_search, with "
                   "Synaptic's parameter names and answer (content, date, time).",
        run=f"{_HERE}:synaptic_search", markdown=f"{_VIEWS}:synaptic_markdown", text=f"{_VIEWS}:print_said",
        schema="mindex.serve.mcp_models:SynapticSearchOut",
        params=(Param("query", str, "Search query (hybrid semantic + keyword search).", blank=False),
                Param("type", str, "Filter by entry type.", default=None,
                      choices=("decision", "progress", "issue", "handoff", "insight", "reference")),
                Param("days", int, "Only search entries from last N days.", default=None, ge=1),
                Param("limit", int, "Maximum results to return.", default=20, ge=1, le=100))),
    _memory(
        "list", "memory_list",
        "List entries, newest first.",
        "The latest memories, newest first, optionally filtered by type, tag, age or file: what happened recently in "
        "this project (each with its id, time, type, tags and text). Use memory_search instead to recall something "
        "by its content.",
        run=f"{_HERE}:recent", cli_aliases=("recent",),
        params=(Param("limit", int, "How many entries.", default=20, ge=1, le=10_000, flags=("-n", "--limit"),
                      agent_help="how many results"), *_FILTERS),
        examples=("mindex memory list --type decision --limit 5", "mindex memory list --file src/api --json")),
    _memory(
        "show", "memory_show", "Show one memory entry or knowledge entity in full.",
        "One memory entry or knowledge entity in full.",
        creates=False, faces=("cli", "web"), text=f"{_VIEWS}:print_shown", params=(_ID,),
        examples=("mindex memory show m-20261123-044512-9f3a2c1e", "mindex memory show k-3f2a9c01 --json")),
    _memory(
        "forget", "memory_forget",
        "Remove exactly one entry from its journal file (atomically) and from the index.",
        "Remove one memory (or knowledge entity) that is wrong or obsolete, by its id (from memory_search or "
        "memory_list). Only that entry's block leaves its journal file; for knowledge that is outdated rather than "
        "wrong, prefer knowledge_add with supersedes.",
        creates=False, writes=True, **{**_ONE, "markdown": f"{_VIEWS}:forgot_markdown"}, params=(_ID,),
        examples=("mindex memory forget m-20261123-044512-9f3a2c1e",)),
    _memory(
        "edit", "memory_edit",
        "Rewrite one entry in its journal file (same id and time) and index it again; what is not given stays.",
        "Correct a memory that is wrong or incomplete, by its id (from memory_search or memory_list): new text, type, "
        "tags or files; what you leave out stays. The entry keeps its id and time in the journal. To replace a "
        "decision that changed, save a new one instead (it ranks above the one it restates).",
        creates=False, writes=True, **_ONE,
        params=(_ID,
                Param("text", str, "The new text (`-` reads it from stdin).", default=None, stdin=True,
                      agent_help="the corrected text"),
                Param("type", str, "The new type.", default=None, agent_help="the new type"),
                Param("tags", str, "The new tags, separated by commas ('' removes them all).", default=None,
                      metavar="TAG,...", agent_help="the new tags, comma-separated ('' removes all)", clears=True),
                Param("files", str, "The new files, separated by commas ('' removes them all).", default=None,
                      metavar="PATH,...", agent_help="the new files, comma-separated ('' removes all)", clears=True),
                Param("embed", bool, "Embed the entry now (default: memory.embed_on_save).", default=None,
                      flags=("--embed/--no-embed",), agent_help="embed the entry now (default: memory.embed_on_save)")),
        examples=('mindex memory edit m-20261123-044512-9f3a2c1e --text "Chose WAL: one file, readers never block"',
                  "mindex memory edit m-20261123-044512-9f3a2c1e --tags storage,sqlite --type decision")),
    Operation(
        name="add", tool="knowledge_add", cli=("knowledge", "add"),
        help="Write a knowledge file (front matter + text) and index it.",
        agent_help="Record lasting knowledge about the code: a learning, a pattern to follow, a mistake not to "
                   "repeat. Stored as a reviewable markdown file in .mindex/knowledge and linked to its code areas "
                   "and files.",
        run=f"{_HERE}:add_knowledge", creates=True, writes=True, **_ONE,
        params=(Param("type", str, "What kind of knowledge.", argument=True, choices=KNOWLEDGE_TYPES,
                      metavar="TYPE", agent_help="what kind of knowledge"),
                Param("text", str, "The learning, pattern or mistake.", argument=True, rest=True,
                      agent_help="the learning, pattern or mistake, in a few sentences"),
                Param("title", str, "A short title (default: the text's first line).", default=None,
                      agent_help="a short title (default: the first line)"),
                Param("areas", str, "A code area it is about (repeatable).", default=None, many=True,
                      flags=("--area",), agent_help="code areas, e.g. ['src/api']"),
                Param("files", str, "A file it is about (repeatable).", default=None, many=True,
                      flags=("--file", "--files"), agent_help="project files it concerns"),
                Param("confidence", float, "How sure, 0-1.", default=0.7, ge=0, le=1, agent_help="how sure, 0-1"),
                Param("supersedes", str, "An entity this one replaces (hidden from then on).", default=None,
                      many=True, metavar="ID", agent_help="ids of entities this replaces"),
                Param("led_to", str, "An entity this one led to (a mistake → its learning).", default=None, many=True,
                      metavar="ID", agent_help="ids of entities this led to (mistake → learning)"),
                Param("applies_to", str, "An entity this one applies to (a pattern → the topic or learning it "
                      "serves).", default=None, many=True, metavar="ID",
                      agent_help="ids of entities this applies to (a pattern → its topic)"),
                Param("issues", str, "An issue number it is about (repeatable).", default=None, many=True,
                      flags=("--issue",), agent_help="issue numbers it is about"),
                Param("tags", str, "A tag (repeatable).", default=None, many=True, flags=("--tag",),
                      agent_help="tags")),
        examples=('mindex knowledge add learning "Always add jitter to retries" --area src/fetch',
                  'mindex knowledge add mistake "Retried without jitter" --file src/fetch/http.py --led-to k-3f2a9c01')),
    Operation(
        name="query", tool="knowledge_query", cli=("knowledge", "query"),
        help="Knowledge about an area, a file, an issue or a question, ranked by relevance, confidence and recency.",
        agent_help="Learnings, patterns and mistakes about an area, a file, an issue or a question, ranked by "
                   "relevance, confidence and recency (superseded ones hidden), each with the definitions its files "
                   "hold.",
        run=f"{_HERE}:query_knowledge", creates=True, markdown=f"{_VIEWS}:entries_markdown",
        text=f"{_VIEWS}:print_knowledge", schema="mindex.serve.mcp_models:EntriesOut",
        params=(Param("area", str, "A code area.", default=None, agent_help="a code area"),
                Param("file", str, "A file (its area's knowledge comes too).", default=None,
                      agent_help="a file; its area's knowledge comes too"),
                Param("issue", str, "An issue number.", default=None, agent_help="an issue number"),
                Param("text", str, "A question, searched in the entities' text.", default=None,
                      agent_help="a question about the entities' text"),
                Param("depth", int, "Hops through the graph.", default=2, ge=1, le=3,
                      agent_help="hops through the graph"),
                Param("all", bool, "Also superseded entities.", default=False, agent_help="also superseded entities"),
                Param("limit", int, "How many.", default=20, ge=1, le=1000, flags=("-n", "--limit"),
                      agent_help="how many results"),
                Param("question", str, "The question as words after the command (as --text).", default=None,
                      argument=True, rest=True, faces=("cli",), metavar="[QUESTION]")),
        examples=("mindex knowledge query --file src/fetch/http.py --depth 2",
                  'mindex knowledge query "retry storms"',
                  "mindex knowledge query --area src/fetch --all --json")),
    Operation(
        name="context", tool="get_context",
        help="Markdown for an agent's context: learnings, patterns, mistakes and recent memory for the files, issue "
             "and query, grouped by code area, never over the token budget.",
        agent_help="Start a task with this: the project's learnings, patterns, mistakes and recent memory for the "
                   "files, issue and task, grouped by code area, within the budget.",
        run=f"{_HERE}:context", creates=True, markdown=f"{_VIEWS}:context_markdown", text=f"{_VIEWS}:print_context",
        schema="mindex.serve.mcp_models:ContextOut",
        params=(Param("files", str, "Files the agent works on (repeatable; several may follow one --files).",
                      default=None, many=True, metavar="PATH", agent_help="files you are about to work on"),
                Param("issue", str, "The issue being worked on.", default=None,
                      agent_help="the issue being worked on"),
                Param("query", str, "What the agent is about to do (loads the model for a meaning search).",
                      default=None, agent_help="what you are about to do"),
                Param("budget", int, "Tokens (characters / 4).", default=2000, ge=50, le=200_000,
                      agent_help="tokens (characters / 4)"),
                Param("more_files", str, "More files.", argument=True, many=True, rest=True, default=None,
                      faces=("cli",), metavar="")),
        examples=("mindex context --files src/a.py src/b.py --issue 123 --budget 1500",
                  'mindex context --query "add retries to the uploader" --json')),
)

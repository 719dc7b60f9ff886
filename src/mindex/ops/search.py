"""Searching the index: everything at once (`search`), documentation or code alone (the
agent's `search_docs` and `search_code`, the same operation with its kind fixed), the files
an issue is about (`locate`), and one chunk in full (`get`)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, NamedTuple

from mindex.modes import MODES
from mindex.ops import Operation, Param

if TYPE_CHECKING:
    from mindex.engine import Engine
    from mindex.models import Hit, LocateResult, SearchResult

KINDS = ("docs", "code", "memory", "knowledge", "changelog")


class Chunk(NamedTuple):
    """One chunk in full."""

    hit: Hit

    def to_dict(self) -> dict[str, Any]:
        data = self.hit.to_dict()
        data.pop("score")
        data.pop("snippet")
        return data


def parse_weights(text: str) -> dict[str, float]:
    """`keyword=0.5,semantic=1` as the fusion's weights.

    Raises:
        ValueError: a part that is not LEG=NUMBER, an unknown leg, or a weight below 0.
    """
    weights: dict[str, float] = {}
    for part in text.split(","):
        leg, _, value = part.partition("=")
        try:
            weights[leg.strip()] = float(value)
        except ValueError:
            raise ValueError(f"{part!r} is not LEG=NUMBER") from None
        if leg.strip() not in ("keyword", "semantic") or not 0 <= weights[leg.strip()] < math.inf:
            raise ValueError("legs are keyword and semantic, weights 0 or more (finite)")
    return weights


def search(index: Engine, query: str, limit: int = 10, offset: int = 0, mode: str | None = None,
           source: str | None = None, kind: str | None = None, path: str | None = None, language: str | None = None,
           symbol_kind: str | None = None, rerank: bool | None = None, merge_adjacent: bool | None = None,
           hops: int = 0, weights: dict[str, float] | None = None, group_by: str | None = None,
           type: tuple[str, ...] = (), tag: tuple[str, ...] = (), since: str | None = None,
           until: str | None = None) -> SearchResult:
    """Ranked chunks of every kind, or of one; `weights` as `parse_weights` reads them; `type`,
    `tag`, `since` and `until` keep the entries (memory, knowledge, changelogs) that have them."""
    facets = None
    if type or tag or since or until:
        from mindex.memory.book import parse_time
        from mindex.models import Facets

        facets = Facets(types=tuple(type or ()), tags=tuple(tag or ()), since=parse_time(since, "--since"),
                        until=parse_time(until))
    return index.search(query, limit, offset, mode, source, kind, path, rerank=rerank, merge=merge_adjacent,
                        hops=hops, weights=weights or None, language=language,
                        symbol_kind=symbol_kind, group_by=group_by, facets=facets)


def search_docs(index: Engine, query: str, **options: Any) -> SearchResult:
    """Ranked chunks of documentation only."""
    return search(index, query, kind="docs", **options)


def search_code(index: Engine, query: str, **options: Any) -> SearchResult:
    """Ranked chunks of code only."""
    return search(index, query, kind="code", **options)


def locate(index: Engine, issue: str, limit: int = 10, mode: str | None = None, source: str | None = None,
           kind: str | None = None, path: str | None = None, language: str | None = None) -> LocateResult:
    """The files an issue's text is about, best first."""
    return index.locate(issue, limit, mode, source, path, language, kind)


def get(index: Engine, chunk_id: str) -> Chunk:
    """One chunk by id or a unique prefix."""
    return Chunk(index.get(chunk_id))


_VIEWS = "mindex.serve.searchviews"
_LIMIT = Param("limit", int, "How many results.", default=10, ge=1, le=1000, flags=("-n", "--limit"),
               agent_help="how many results")
_MODE = Param("mode", str, "Search mode (default: hybrid when vectors exist, else keyword).", default=None,
              choices=MODES, agent_help="omit for the best mode available")
_SOURCE = Param("source", str, "Only this source.", default=None, agent_help="only this source (see list_sources)")
_KIND = Param("kind", str, "Only this kind: docs (a code source's README and markdown too), code, memory, ...",
              default=None, choices=KINDS,
              agent_help="only this kind (docs includes a repository's own README and markdown); omit for all")
_PATH = Param("path", str, "Only files matching GLOB, e.g. 'guide/**' or '*.md'.", default=None, metavar="GLOB",
              agent_help="only files matching this glob, e.g. 'src/**'")
_LANGUAGE = Param("language", str, "Code only: files in this language (python, go, typescript, ...).", default=None,
                  agent_help="only this language: python, go, typescript, ...")
_SYMBOL_KIND = Param("symbol_kind", str, "Code only: chunks holding a definition of this kind (function, method, "
                     "class, ...).", default=None,
                     agent_help="only chunks with a definition of this kind: function, method, class, ...")
_RERANK = Param("rerank", bool, "Rerank the top results (default: on when search.rerank.provider is set).",
                default=None, flags=("--rerank/--no-rerank",),
                agent_help="rerank the top results (omit: as configured)")
_MERGE = Param("merge_adjacent", bool, "Merge neighbouring chunks of one file into one result.", default=None,
               flags=("--merge/--no-merge",), agent_help="join neighbouring chunks of a file into one result")
_OFFSET = Param("offset", int, "Skip this many results (paging).", default=0, ge=0,
                agent_help="skip this many results (paging)")
_HOPS = Param("hops", int, "Multi-hop: also find chunks close to the top results.", default=0, ge=0, le=3,
              agent_help="also find chunks close to the top results (0-3 hops)")
_WEIGHTS = Param("weights", str, "Fusion weights, e.g. 'keyword=0.5,semantic=1'.", default=None,
                 metavar="LEG=W,...", parse="mindex.ops.search:parse_weights",
                 agent_help="fusion weights, e.g. 'keyword=0.5,semantic=1'")
_ENTRY_TYPE = Param("type", str, "Only entries of this type (decision, learning, a change's kind; repeatable): "
                   "memory, knowledge and changelogs.", default=None, many=True, metavar="TYPE",
                   agent_help="only memory, knowledge or changelog entries of this type (or these)")
_ENTRY_TAG = Param("tag", str, "Only entries with this tag (repeat: all of them).", default=None, many=True,
                   metavar="TAG", agent_help="only entries with this tag (several: all of them)")
_ENTRY_SINCE = Param("since", str, "Only dated entries at or after DATE (2026-10-01 or an ISO time).", default=None,
                     metavar="DATE", agent_help="only dated entries (memory, knowledge, releases) at or after this date")
_ENTRY_UNTIL = Param("until", str, "Only dated entries before DATE.", default=None, metavar="DATE",
                     agent_help="only dated entries before this date")
_GROUP_BY = Param("group_by", str, "One result per file (its best chunk).", default=None, choices=("file",),
                  agent_help="'file': one result per file (its best chunk)")
_SEARCH: dict[str, Any] = {"markdown": f"{_VIEWS}:search_markdown", "text": f"{_VIEWS}:print_search",
           "stderr": f"{_VIEWS}:search_note", "schema": "mindex.serve.mcp_models:SearchOut"}


def _query(help: str, agent_help: str) -> Param:
    return Param("query", str, help, argument=True, blank=False, agent_help=agent_help)


OPERATIONS = (
    Operation(
        name="search", tool="search",
        help="Search the index. Any text but an empty one is a valid query; \"quoted words\" match as a phrase.",
        agent_help="Search everything indexed at once: documentation, code, memory, knowledge and changelogs, ranked "
                   "together. Use it when the answer could be in any of them; prefer search_docs for documentation "
                   "and search_code for code, which rank within one kind.\n\nReturns chunks best first, each with its "
                   "source, kind, breadcrumb, path and line span, chunk id and text while the token budget lasts.",
        run="mindex.ops.search:search", **_SEARCH,
        params=(_query("Words, a question, identifiers, or \"a quoted phrase\".",
                       "words, a question, identifiers, or \"a quoted phrase\""),
                _LIMIT, _OFFSET, _MODE, _SOURCE, _KIND, _PATH, _LANGUAGE, _SYMBOL_KIND, _RERANK, _MERGE, _HOPS,
                _WEIGHTS, _GROUP_BY, _ENTRY_TYPE, _ENTRY_TAG, _ENTRY_SINCE, _ENTRY_UNTIL,
                Param("explain", bool, "Show each leg's rank and score, the fused score, rerank and decay.",
                      default=False, faces=("cli",), display=True)),
        examples=('mindex search "how do I configure retries" --limit 5',
                  "mindex search \"connection pool\" --json | jq '.results[].path'",
                  "mindex search 'foo.bar()' --path 'api/**'",
                  'mindex search "how are retries configured" --mode hybrid --explain',
                  'mindex search "pool sizing" --rerank --merge --weights keyword=2,semantic=1',
                  'mindex search "retry with backoff" --kind code --language python --symbol-kind function',
                  'mindex search "session expiry" --group-by file',
                  'mindex search "cache" --type decision --since 2026-10-01')),
    Operation(
        name="search-docs", tool="search_docs", faces=("mcp",),
        help="Search documentation only (the command line's `mindex search --kind docs`).",
        agent_help="Search the indexed documentation (docs sources, and the README and markdown of code repositories; "
                   "no code, memory or changelogs). Use it first "
                   "for any question about how a library, tool or this project works, its configuration, APIs or "
                   "behaviour.\n\nReturns the best-matching chunks, best first: each with its breadcrumb (file › "
                   "heading), file path and line span, chunk id and full text while the token budget lasts; further "
                   "hits are listed by id. Read one in full with get_chunk. Any text is a valid query; quote words "
                   "to match them as a phrase.",
        run="mindex.ops.search:search_docs", **_SEARCH,
        params=(_query("Words, a question, or \"a quoted phrase\".", "words, a question, or \"a quoted phrase\""),
                _LIMIT, _MODE, _SOURCE,
                Param("path", str, _PATH.help, default=None, metavar="GLOB",
                      agent_help="only files matching this glob, e.g. 'guide/**'"),
                _RERANK, _MERGE)),
    Operation(
        name="search-code", tool="search_code", faces=("mcp",),
        help="Search code only (the command line's `mindex search --kind code`).",
        agent_help="Search indexed source code by meaning and keywords (\"where are retries with backoff "
                   "configured\", \"parse config file\"). Use it to find where something is implemented when you do "
                   "not know the exact identifier; use grep for exact text or regexes and find_symbol for a known "
                   "name.\n\nReturns chunks (whole functions or classes where they fit) best first, each with path, "
                   "exact line span, language, the symbol it holds and its text while the token budget lasts.",
        run="mindex.ops.search:search_code", **_SEARCH,
        params=(_query("What the code does, in words, or identifiers.", "what the code does, in words, or identifiers"),
                _LIMIT, _LANGUAGE, _SYMBOL_KIND, _PATH, _SOURCE)),
    Operation(
        name="locate", tool="locate_files",
        help="The files an issue, a bug report or a stack trace is about, best first.\n\nQUESTION is the text (`-` "
             "reads it from stdin). Each file comes with its best chunks (lines and the definition they hold) and "
             "the definitions in it that the text names.",
        agent_help="Which files is this issue about? Give the whole text of a bug report, a feature request or a "
                   "stack trace; get the files most likely to need reading or changing, best first, each with its "
                   "best chunks (line spans, the definition they hold, chunk ids for get_chunk) and the definitions "
                   "in it that the text names. Use it at the start of a task, before reading code.",
        run="mindex.ops.search:locate", markdown=f"{_VIEWS}:locate_markdown", text=f"{_VIEWS}:print_locate",
        stderr=f"{_VIEWS}:search_note", schema="mindex.serve.mcp_models:LocateOut",
        params=(Param("issue", str, "The issue's text.", argument=True, blank=False, stdin=True, metavar="QUESTION",
                      agent_help="an issue's text, a bug report, an error message or a stack trace"),
                Param("limit", int, "How many files.", default=10, ge=1, le=100, flags=("-n", "--limit"),
                      agent_help="how many files"),
                _MODE, _SOURCE,
                Param("kind", str, "Only this kind of source.", default=None, choices=("docs", "code"),
                      agent_help="only sources of this kind (docs or code); omit for both"),
                _PATH,
                Param("language", str, "Only files in this language.", default=None,
                      agent_help="only this language")),
        examples=('mindex locate "Sessions expire too early when the clock goes back"',
                  "gh issue view 123 --json body -q .body | mindex locate - --kind code",
                  "mindex locate - --json < traceback.txt")),
    Operation(
        name="get", tool="get_chunk",
        help="Show one chunk in full, by id (or a unique prefix of 6+ characters).",
        agent_help="Read one chunk in full by its id (from any search tool), with its file path, line span and "
                   "heading breadcrumb. Use it when a search result looks relevant but was listed without its text "
                   "or cut short.",
        run="mindex.ops.search:get", markdown=f"{_VIEWS}:chunk_markdown", text=f"{_VIEWS}:print_chunk",
        schema="mindex.serve.mcp_models:ChunkOut",
        params=(Param("chunk_id", str, "The chunk's id.", argument=True, agent_help="an id from a search result"),),
        examples=("mindex get 3f9a1c2b", "mindex get 3f9a1c2b4e5d6a7b --json | jq -r .text")),
)

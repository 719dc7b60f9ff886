"""Operations over indexed code: grep, find a definition, callers, callees, impact, a file's
outline and exports."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from mindex.modes import DEFAULT_MIN_CONFIDENCE as MIN_CONFIDENCE
from mindex.ops import Operation, Param

if TYPE_CHECKING:
    from mindex.engine import Engine
    from mindex.graph_types import Calls, SymbolRef
    from mindex.grep import GrepResult

class Definitions(NamedTuple):
    """The definitions a name matched, each with how (exact, prefix, fuzzy)."""

    query: str
    found: list[tuple[str, SymbolRef]]

    def to_dict(self) -> dict[str, Any]:
        return {"query": self.query, "symbols": [{"match": how, **s.to_dict()} for how, s in self.found]}


class CallGraph(NamedTuple):
    """Callers or callees (`kind`) of each definition a name matched."""

    kind: str
    found: list[Calls]

    def to_dict(self) -> dict[str, Any]:
        return {self.kind: [calls.to_dict() for calls in self.found]}

    def structured(self) -> dict[str, Any]:
        return {"results": [calls.to_dict() for calls in self.found]}


class Impact(NamedTuple):
    """Per definition a name matched, the files a change to it may break."""

    targets: list[SymbolRef]
    files: dict[int, list[dict[str, Any]]]

    @property
    def results(self) -> list[dict[str, Any]]:
        return [{"target": t.to_dict(), "files": self.files[t.id]} for t in self.targets]

    def to_dict(self) -> dict[str, Any]:
        return {"impact": self.results}

    def structured(self) -> dict[str, Any]:
        return {"results": self.results}


class FileSymbols(NamedTuple):
    """One file's definitions (`key` "symbols": its outline) or what it offers ("exports")."""

    file: str
    key: str
    symbols: list[SymbolRef]

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, self.key: [s.to_dict() for s in self.symbols]}

    def structured(self) -> dict[str, Any]:
        return {"symbols": [s.to_dict() for s in self.symbols]}


def grep(index: Engine, pattern: str, ignore_case: bool = False, smart_case: bool = False, fixed: bool = False,
         word: bool = False, multiline: bool = False, path: str | None = None, source: str | None = None,
         language: str | None = None, before: int = 0, after: int = 0, context: int | None = None,
         max_count: int | None = None, limit: int = 200, timeout: float | None = None) -> GrepResult:
    """Regex matches over indexed code; `context` sets `before` and `after` at once, and no
    `timeout` leaves grep's own limit (`mindex.grep.TIMEOUT`)."""
    if context is not None:
        before = after = context
    limits = {} if timeout is None else {"timeout": timeout}
    return index.grep(pattern, ignore_case=ignore_case, smart_case=smart_case, fixed=fixed, word=word,
                      multiline=multiline, source=source, path=path, language=language, before=before,
                      after=after, max_count=max_count, limit=limit, **limits)


def find_symbol(index: Engine, name: str, kind: str | None = None, path: str | None = None,
                limit: int = 20) -> Definitions:
    """Definitions by name: exact, then prefix, then fuzzy."""
    return Definitions(name, index.graph().find(name, kind, path, limit))


def callers(index: Engine, symbol: str, path: str | None = None,
            min_confidence: float = MIN_CONFIDENCE) -> CallGraph:
    """Who calls each definition `symbol` names."""
    return CallGraph("callers", index.graph().calls(symbol, "callers", path, min_confidence))


def callees(index: Engine, symbol: str, path: str | None = None,
            min_confidence: float = MIN_CONFIDENCE) -> CallGraph:
    """What each definition `symbol` names calls."""
    return CallGraph("callees", index.graph().calls(symbol, "callees", path, min_confidence))


def subclasses(index: Engine, symbol: str, path: str | None = None, depth: int = 5,
               min_confidence: float = MIN_CONFIDENCE) -> CallGraph:
    """The classes that extend each definition `symbol` names, and theirs."""
    from mindex.graph_heirs import heirs

    return CallGraph("subclasses", heirs(index.graph(), symbol, ("extends",), path, depth, min_confidence))


def implementations(index: Engine, symbol: str, path: str | None = None, depth: int = 5,
                    min_confidence: float = MIN_CONFIDENCE) -> CallGraph:
    """The classes that implement each interface `symbol` names (or extend it, for an
    interface that others extend), and their subclasses."""
    from mindex.graph_heirs import heirs

    return CallGraph("implementations", heirs(index.graph(), symbol, ("implements",), path, depth, min_confidence))


def impact(index: Engine, symbol: str, path: str | None = None, depth: int = 2,
           min_confidence: float = 0.5) -> Impact:
    """Transitive callers and importers of each definition `symbol` names, by file."""
    from mindex.graph_heirs import impact as affected

    code = index.graph()
    targets = code.targets(symbol, path)
    return Impact(targets, {t.id: affected(code, t, depth, min_confidence) for t in targets})


def outline(index: Engine, path: str, source: str | None = None) -> FileSymbols:
    """Every definition in a file, in order."""
    code = index.graph()
    return FileSymbols(path, "symbols", code.outline(code.document(path, source)))


def exports(index: Engine, path: str, source: str | None = None) -> FileSymbols:
    """A file's visible top-level definitions."""
    code = index.graph()
    return FileSymbols(path, "exports", code.exports(code.document(path, source)))



_PATH = Param("path", str, "Only files matching GLOB, e.g. 'src/**' or '*.py'.", default=None, metavar="GLOB",
              agent_help="only files matching this glob, e.g. 'src/**/*.py'")
_SOURCE = Param("source", str, "Only this source.", default=None, agent_help="only this source (see list_sources)")
_LANGUAGE = Param("language", str, "Only files in this language (python, go, ...).", default=None,
                  agent_help="only this language")
_SYMBOL = Param("symbol", str, "Class.method or a function name.", argument=True, blank=False,
                agent_help="Class.method or a function name")
_DEFINITION_PATH = Param("path", str, "Only definitions in files matching GLOB (to pick one of several).",
                         default=None, metavar="GLOB", agent_help="only definitions in files matching this glob")
_CALL_CONFIDENCE = Param(
    "min_confidence", float,
    "Leave out calls resolved with less confidence (a name that 3+ definitions share is under 0.2); a callee whose "
    "every candidate is under it is listed once, with how many it might be.",
    default=MIN_CONFIDENCE, ge=0, le=1,
    agent_help="leave out calls resolved with less confidence; 0 lists every guess")
_FILE = Param("path", str, "The file, as its source holds it (src/pkg/api.py).", argument=True, metavar="FILE",
              agent_help="a file's path within its source, e.g. src/pkg/api.py")
_FILE_SOURCE = Param("source", str, "The source the file belongs to (when several hold that path).", default=None,
                     agent_help="the source, when several hold that path")
_VIEWS = "mindex.serve.codeviews"

OPERATIONS = (
    Operation(
        name="grep",
        tool="grep",
        help=("Regex search over indexed code, with exact line numbers (Python `re` syntax).\n\n"
              "Lines are reported the way ripgrep reports them; a trigram index picks the files that can match, "
              "so selective patterns stay fast on large trees. Exit code 0 with matches, 3 with none."),
        agent_help=("Regex search over indexed code with exact line numbers, like ripgrep: every line that matches, "
                    "in path order. Use it for exact identifiers, strings, error messages or patterns "
                    "(`def \\w+_handler\\(`); use search_code when you only know what the code does.\n\n"
                    "Each match has path:line:column, the line, the chunk id holding it (read more with get_chunk) "
                    "and the innermost definition around it."),
        run="mindex.ops.code:grep",
        markdown=f"{_VIEWS}:grep_markdown",
        text=f"{_VIEWS}:print_grep",
        stderr=f"{_VIEWS}:grep_notes",
        schema="mindex.serve.mcp_models:GrepOut",
        missing="count",
        params=(
            Param("pattern", str, "A Python regex (or text with -F).", argument=True,
                  agent_help="a Python regex (or plain text with fixed=true)"),
            Param("ignore_case", bool, "Match case-insensitively.", default=False, flags=("-i", "--ignore-case"),
                  agent_help="match case-insensitively"),
            Param("smart_case", bool, "Case-insensitive unless the pattern has an upper-case letter.", default=False,
                  flags=("-S", "--smart-case")),
            Param("fixed", bool, "PATTERN is text, not a regex.", default=False, flags=("-F", "--fixed-strings"),
                  agent_help="the pattern is plain text, not a regex"),
            Param("word", bool, "Only matches at word boundaries.", default=False, flags=("-w", "--word-regexp")),
            Param("multiline", bool, "Let matches span lines (`.` still stops at a newline unless `(?s)`).",
                  default=False, flags=("-U", "--multiline"), agent_help="let matches span lines"),
            _PATH, _SOURCE, _LANGUAGE,
            Param("after", int, "Lines after each match.", default=0, ge=0, le=100, flags=("-A", "--after-context")),
            Param("before", int, "Lines before each match.", default=0, ge=0, le=100,
                  flags=("-B", "--before-context")),
            Param("context", int, "Lines before and after each match.", default=None, ge=0, le=100,
                  flags=("-C", "--context"), agent_help="lines of context before and after"),
            Param("max_count", int, "At most this many matching lines per file.", default=None, ge=1,
                  flags=("-m", "--max-count")),
            Param("limit", int, "At most this many matches in all.", default=200, agent_default=100, ge=1,
                  le=100_000, flags=("-n", "--limit"), agent_help="at most this many matches"),
            Param("files_only", bool, "Print only the paths of files with a match.", default=False,
                  flags=("-l", "--files-with-matches"), faces=("cli",), display=True),
            Param("timeout", float, "Seconds the pattern may run (default 30; Python's re backtracks on patterns "
                  "like (a|aa)+).", default=None, ge=0.1, le=86400.0,
                  agent_help="seconds the pattern may run (default 30)"),
        ),
        examples=("mindex grep 'def \\w+_handler\\(' --path 'src/**'",
                  "mindex grep -i 'todo|fixme' --language python -C 2",
                  "mindex grep -F 'retry(' --json | jq '.matches[] | \"\\(.path):\\(.line)\"'",
                  "mindex grep -U 'try:\\n\\s+import'"),
    ),
    Operation(
        name="find",
        tool="find_symbol",
        cli=("symbols", "find"),
        help="Find definitions by name: exact (`Session.send` or `send`), then prefix, then fuzzy.",
        agent_help=("Find where functions, methods, classes, types and constants are defined, by name: exact "
                    "matches first (qualified `Class.method` or the bare name), then prefix, then fuzzy "
                    "(misspellings, substrings). Each has file, line span, signature, whether it is exported, and a "
                    "chunk id for get_chunk."),
        run="mindex.ops.code:find_symbol",
        markdown=f"{_VIEWS}:symbols_markdown",
        text=f"{_VIEWS}:print_definitions",
        schema="mindex.serve.mcp_models:SymbolsOut",
        missing="found",
        params=(
            Param("name", str, "A definition's name: Session.send, send, or part of one.", argument=True,
                  blank=False, agent_help="a definition's name: Session.send, send, or part of one"),
            Param("kind", str, "Only this kind: function, method, class, interface, type, constant, ...",
                  default=None, agent_help="only this kind: function, method, class, interface, type, constant"),
            Param("path", str, "Only files matching GLOB.", default=None, metavar="GLOB",
                  agent_help="only files matching this glob"),
            Param("limit", int, "How many.", default=20, ge=1, le=1000, flags=("-n", "--limit"),
                  agent_help="how many definitions"),
        ),
        examples=("mindex symbols find Session", "mindex symbols find send --kind method --json",
                  "mindex symbols find sesion            # fuzzy: finds Session"),
    ),
    Operation(
        name="callers",
        tool="callers",
        cli=("graph", "callers"),
        help="What calls SYMBOL (`Class.method` or a name), most certain first.",
        agent_help=("Who calls this function or method: every call site (file, line, calling definition), most "
                    "certain first. Each edge has a confidence and the reason (`defined in this file`, `imported "
                    "from pkg.models`, `ambiguous: 2 definitions named get`). Calls resolved only by a name 3+ "
                    "definitions share are left out (and counted) unless min_confidence is lowered. Use it before "
                    "changing a signature."),
        run="mindex.ops.code:callers",
        markdown=f"{_VIEWS}:edges_markdown",
        text=f"{_VIEWS}:print_edges",
        schema="mindex.serve.mcp_models:EdgesOut",
        params=(_SYMBOL, _DEFINITION_PATH, _CALL_CONFIDENCE),
        examples=("mindex graph callers Session.send", "mindex graph callers clean --path 'pkg/**' --json",
                  "mindex graph callers get --min-confidence 0     # every guess too"),
    ),
    Operation(
        name="callees",
        tool="callees",
        cli=("graph", "callees"),
        help="What SYMBOL calls, in line order, each call once; unresolved calls (library code) included.",
        agent_help=("What this function or method calls, in order, each call once, resolved to its definition "
                    "with a confidence; calls into libraries outside the index are listed as unresolved, and a "
                    "call whose name too many definitions share as one line saying how many it might reach."),
        run="mindex.ops.code:callees",
        markdown=f"{_VIEWS}:edges_markdown",
        text=f"{_VIEWS}:print_edges",
        schema="mindex.serve.mcp_models:EdgesOut",
        params=(_SYMBOL, _DEFINITION_PATH, _CALL_CONFIDENCE),
        examples=("mindex graph callees Session.send",
                  "mindex graph callees Flask.wsgi_app --min-confidence 0.5 --json"),
    ),
    Operation(
        name="impact",
        tool="impact",
        cli=("graph", "impact"),
        help="Blast radius of changing SYMBOL: transitive callers and importers, grouped by file.",
        agent_help=("What may break if this definition changes: its callers, their callers up to `depth`, and "
                    "files importing it, grouped by file (each once) with the depth each is reached at. Use it to "
                    "plan a refactor and pick the tests to run."),
        run="mindex.ops.code:impact",
        markdown=f"{_VIEWS}:impact_markdown",
        text=f"{_VIEWS}:print_impact",
        schema="mindex.serve.mcp_models:EdgesOut",
        params=(
            _SYMBOL, _DEFINITION_PATH,
            Param("depth", int, "How many levels of callers.", default=2, ge=1, le=10,
                  agent_help="levels of callers to follow"),
            Param("min_confidence", float, "Leave out calls resolved with less confidence.", default=0.5, ge=0, le=1,
                  agent_help="follow only calls resolved at least this surely"),
        ),
        examples=("mindex graph impact Session.send --depth 3",
                  "mindex graph impact parse_config --json | jq '.impact[0].files[].path'"),
    ),
    *(Operation(
        name=name,
        tool=name,
        cli=("graph", name),
        help=help,
        agent_help=agent_help,
        run=f"mindex.ops.code:{name}",
        markdown=f"{_VIEWS}:edges_markdown",
        text=f"{_VIEWS}:print_edges",
        schema="mindex.serve.mcp_models:EdgesOut",
        params=(_SYMBOL, _DEFINITION_PATH,
                Param("depth", int, "How many levels (a subclass's subclasses are level 2).", default=5, ge=1, le=20,
                      agent_help="levels to follow (subclasses of subclasses are level 2)"),
                _CALL_CONFIDENCE),
        examples=examples,
    ) for name, help, agent_help, examples in (
        ("subclasses", "The classes that extend SYMBOL, and theirs, each with how sure the link is.",
         "The classes that extend this class (and their subclasses, up to depth), each with its file, line, the "
         "base it names, a confidence and the reason (same file, imported, or by name alone). Use it before "
         "changing a base class's methods or constructor.",
         ("mindex graph subclasses BaseStore", "mindex graph subclasses Exception --path 'src/**' --json")),
        ("implementations", "The classes that implement the interface SYMBOL, and their subclasses.",
         "The classes that implement this interface or trait (`implements`, or an interface that extends it), "
         "and their subclasses, each with its file, line, a confidence and the reason. Use it before changing "
         "an interface.",
         ("mindex graph implementations Store", "mindex graph implementations Handler --depth 1 --json")),
    )),
    Operation(
        name="outline",
        tool="file_outline",
        cli=("graph", "outline"),
        help="Every definition in FILE, nested, with lines and signatures.",
        agent_help=("Every definition in one file, in order, with line spans, signatures and whether each is "
                    "exported: a map of the file before reading it."),
        run="mindex.ops.code:outline",
        markdown=f"{_VIEWS}:file_symbols_markdown",
        text=f"{_VIEWS}:print_file_symbols",
        schema="mindex.serve.mcp_models:SymbolsOut",
        params=(_FILE, _FILE_SOURCE),
        examples=("mindex graph outline src/pkg/api.py",),
    ),
    Operation(
        name="exports",
        tool="file_exports",
        cli=("graph", "exports"),
        faces=("cli", "web"),
        help="What FILE offers other files: its visible top-level definitions.",
        agent_help="What a file offers other files: its visible top-level definitions.",
        run="mindex.ops.code:exports",
        markdown=f"{_VIEWS}:file_symbols_markdown",
        text=f"{_VIEWS}:print_file_symbols",
        schema="mindex.serve.mcp_models:SymbolsOut",
        params=(_FILE, _FILE_SOURCE),
        examples=("mindex graph exports src/pkg/api.py",),
    ),
)

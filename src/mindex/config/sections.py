"""The settings' sections: one dataclass per part of mindex, each field with its default,
bounds and description (see `mindex.config`)."""


from __future__ import annotations

import json
import math
import os
import re
import sys
from dataclasses import MISSING, dataclass, field, fields
from pathlib import Path
from typing import Any, ClassVar

from mindex.roots import STATE_DIR as STATE_DIR  # re-exported: the config names it too

DB_NAME = "index.db"
# What `.mindex/.gitignore` keeps out of git from the moment the folder is made: the index
# and its lock files are per machine; memory/, knowledge/ and config.toml are for the team.
STATE_GITIGNORE = "# written by mindex: commit memory/ and knowledge/, never the index\nindex.db*\n*.lock\n"


def make_state_dir(folder: Path) -> None:
    """Make a project's `.mindex` folder (and the folders above it) with its `.gitignore`,
    so the first `git add -A` after `mindex add` leaves the index out. A folder that is
    there already is left as it is (a deleted `.gitignore` stays deleted)."""
    if folder.is_dir():
        return
    folder.mkdir(parents=True, exist_ok=True)
    if folder.name == STATE_DIR:
        (folder / ".gitignore").write_text(STATE_GITIGNORE, encoding="utf-8")


class SecretStr:
    """A key that never shows in a repr, a log or `config show`."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def get_secret_value(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "SecretStr('**********')"

    def __str__(self) -> str:
        return "**********" if self._value else ""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SecretStr) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)


class InvalidSettings(ValueError):
    """One or more values refused; each problem is `key: what is wrong`."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


def setting(default: Any = None, *, ge: float | None = None, le: float | None = None, gt: float | None = None,
            choices: tuple[str, ...] | None = None, doc: str = "", factory: Any = None) -> Any:
    """A field with its bounds and description (read by `build_section` and `config` commands)."""
    meta = {"ge": ge, "le": le, "gt": gt, "choices": choices, "doc": doc}
    if factory is not None:
        return field(default_factory=factory, metadata=meta)
    return field(default=default, metadata=meta)


class Section:
    """What every settings section shares: values checked after construction."""

    SECTIONS: ClassVar[dict[str, type[Section]]] = {}

    def __init_subclass__(cls) -> None:
        Section.SECTIONS[cls.__name__] = cls

    def __post_init__(self) -> None:
        # Values given in Python are taken as a file's would be: "k" for a key, a dict
        # for a section (`Settings(serve={"token_budget": 200})`), "3" for a number.
        problems: list[str] = []
        for f in fields(self):  # type: ignore[arg-type]
            value = _coerce(getattr(self, f.name), str(f.type), f.name, problems)
            if value is MISSING:
                continue
            setattr(self, f.name, value)
            problem = _out_of_bounds(value, f.metadata)
            if problem:
                problems.append(f"{f.name}: {problem}")
        if problems:
            raise InvalidSettings(problems)
        self._finish()

    def _finish(self) -> None:
        """Checks across fields and derived defaults; raise ValueError with the message."""


def _out_of_bounds(value: Any, meta: Any) -> str | None:
    if value is None or isinstance(value, bool) or not meta:
        return None
    if meta.get("choices") and value not in meta["choices"]:
        return "should be one of " + ", ".join(repr(c) for c in meta["choices"])
    if isinstance(value, (int, float)):
        for bound, test, words in (("ge", value.__ge__, "greater than or equal to"),
                                   ("le", value.__le__, "less than or equal to"),
                                   ("gt", value.__gt__, "greater than")):
            limit = meta.get(bound)
            if limit is not None and not test(limit):
                return f"should be {words} {limit:g}"
    return None


def user_dir(kind: str) -> Path:
    """The user's config or cache folder for mindex (XDG on Linux; platformdirs elsewhere)."""
    if sys.platform.startswith("linux"):
        variable, fallback = {"config": ("XDG_CONFIG_HOME", ".config"), "cache": ("XDG_CACHE_HOME", ".cache")}[kind]
        base = os.environ.get(variable, "").strip()
        return Path(base if base else Path.home() / fallback) / "mindex"
    import platformdirs

    return Path(platformdirs.user_config_dir("mindex") if kind == "config" else platformdirs.user_cache_dir("mindex"))


@dataclass
class IndexSettings(Section):
    """How documents become chunks."""

    chunk_size: int = setting(1500, ge=200, le=20000)
    chunk_overlap: int = setting(200, ge=0, le=5000, doc="characters of a chunk repeated at the start of the next")
    overlap: str = setting("paragraphs", choices=("paragraphs", "sentences"),
                           doc="what the overlap repeats: the last whole paragraphs that fit, or also the last "
                               "sentences of a longer one")
    max_file_bytes: int = setting(20 * 1024 * 1024, ge=1024)
    workers: int = setting(0, ge=0, doc="parser processes; 0 = one per core")
    lock_timeout: float = setting(30.0, ge=0, doc="seconds a writer waits for the lock")

    def _finish(self) -> None:
        if self.chunk_overlap >= self.chunk_size // 2:
            raise InvalidSettings(["index.chunk_overlap must be under half of index.chunk_size"])


# The model each provider uses when embed.model is not set.
DEFAULT_MODELS = {
    "onnx": "all-MiniLM-L6-v2",
    "ollama": "nomic-embed-text",
    "openai": "text-embedding-3-small",
    "voyage": "voyage-3.5",
}
_KEY_ENV = {"openai": "OPENAI_API_KEY", "voyage": "VOYAGE_API_KEY"}


def _key_from_env(given: SecretStr | None, variable: str | None) -> SecretStr | None:
    """A key set in a file wins; else the named environment variable's value, if set.

    Keys are read here, at the front door, so nothing below reads the environment.
    """
    value = os.environ.get(variable) if given is None and variable else None
    return SecretStr(value) if value else given


@dataclass
class ContextSettings(Section):
    """Optional LLM-written context per chunk, embedded before the chunk (off by default)."""

    provider: str = setting("none", doc="none, or llm (any OpenAI-compatible chat endpoint)")
    base_url: str | None = setting(None, doc="chat endpoint base, with /v1")
    model: str = setting("", doc="chat model that writes the context")
    api_key: SecretStr | None = setting(None)
    api_key_env: str | None = setting(None, doc="variable holding the key; default OPENAI_API_KEY")
    concurrency: int = setting(4, ge=1, le=64)
    timeout: float = setting(60.0, gt=0)
    retries: int = setting(4, ge=0, le=20)
    backoff: float = setting(0.5, ge=0)
    max_requests: int | None = setting(None, ge=1, doc="stop a run after this many chat requests")
    max_tokens: int | None = setting(None, ge=1, doc="stop a run after about this many tokens")

    def _finish(self) -> None:
        if self.provider != "none":
            self.api_key = _key_from_env(self.api_key, self.api_key_env or "OPENAI_API_KEY")


@dataclass
class EmbedSettings(Section):
    """Which embedding model makes vectors, and how (local ONNX or an HTTP provider)."""

    provider: str = setting("onnx", doc="onnx (local), ollama, openai, voyage, or none")
    model: str = setting("", doc="model name, or a folder with model.onnx; empty: provider default")
    batch_size: int | None = setting(None, ge=1, le=2048, doc="texts a request; empty: provider default")
    threads: int = setting(0, ge=0, doc="ONNX Runtime threads for a query, and lanes of model runs side by "
                           "side for chunks; 0 = one per core (up to 4 lanes)")
    chunk_tokens: int | None = setting(
        None, ge=16, doc="local model: tokens of each chunk it reads; empty: the model's own (MiniLM 256); "
        "128 embeds about 1.7x faster (quality per set in docs/configuration.md)")
    models_dir: Path | None = setting(None, doc="where `models add` keeps converted models; empty: user cache")
    base_url: str | None = setting(None, doc="HTTP providers: server URL (OpenAI-compatible: with /v1)")
    api_key: SecretStr | None = setting(None, doc="HTTP providers: key (prefer api_key_env)")
    api_key_env: str | None = setting(None, doc="variable holding the key; default OPENAI_API_KEY / VOYAGE_API_KEY")
    dimensions: int | None = setting(None, ge=1, doc="ask the provider for this many dimensions")
    concurrency: int = setting(2, ge=1, le=64, doc="HTTP requests in flight at once")
    timeout: float = setting(60.0, gt=0, doc="seconds to wait for one HTTP answer")
    retries: int = setting(4, ge=0, le=20, doc="retries on 429, 5xx, timeouts, dropped connections")
    backoff: float = setting(0.5, ge=0, doc="first retry wait in seconds; doubles, with jitter")
    max_requests: int | None = setting(None, ge=1, doc="stop an embedding run after this many requests")
    max_tokens: int | None = setting(None, ge=1, doc="stop an embedding run after about this many tokens")
    query_prefix: str | None = setting(None, doc="instruction put before queries (e5: 'query: ')")
    document_prefix: str | None = setting(None, doc="instruction put before documents (e5: 'passage: ')")
    context: ContextSettings = setting(factory=ContextSettings)

    def _finish(self) -> None:
        if self.models_dir is None:
            self.models_dir = user_dir("cache") / "models"
        if not self.model:
            self.model = DEFAULT_MODELS.get(self.provider, "")
        self.api_key = _key_from_env(self.api_key, self.api_key_env or _KEY_ENV.get(self.provider))


_RERANK_KEY_ENV = {"cohere": "COHERE_API_KEY", "voyage": "VOYAGE_API_KEY", "llm": "OPENAI_API_KEY"}


@dataclass
class RerankSettings(Section):
    """Optional second-stage ranking of the top fused candidates (off by default)."""

    provider: str = setting("none", doc="none, local, http (Cohere/TEI auto), tei, cohere, voyage, llm")
    model: str = setting("", doc="local: a model from `models add`; remote: the model name")
    base_url: str | None = setting(None, doc="http/tei/llm: server URL (llm: OpenAI-compatible, with /v1)")
    api_key: SecretStr | None = setting(None)
    api_key_env: str | None = setting(
        None, doc="variable holding the key; default COHERE_API_KEY / VOYAGE_API_KEY / OPENAI_API_KEY")
    candidates: int = setting(30, ge=2, le=200, doc="how many fused results are reranked")
    timeout: float = setting(5.0, gt=0, doc="seconds before falling back to the fused order")
    batch_size: int | None = setting(None, ge=1, le=1000, doc="passages a request (local: a model run); empty: the "
                                     "provider's (local 16, http and tei 32, cohere and voyage 1000)")

    def _finish(self) -> None:
        self.api_key = _key_from_env(self.api_key, self.api_key_env or _RERANK_KEY_ENV.get(self.provider))


@dataclass
class ResearchSettings(Section):
    """`mindex research` / `research_code`: the chat model that plans lookups and writes the
    answer (any OpenAI-compatible endpoint); without one the gathered evidence is returned."""

    base_url: str | None = setting(None, doc="an OpenAI-compatible /v1 URL; empty: evidence only, no answer")
    model: str = setting("", doc="the chat model's name")
    api_key: SecretStr | None = setting(None)
    api_key_env: str | None = setting(None, doc="variable holding the key; default OPENAI_API_KEY")
    timeout: float = setting(60.0, gt=0, doc="seconds a model answer may take")
    max_rounds: int = setting(8, ge=1, le=50, doc="model turns (each may ask for several lookups)")
    budget_tokens: int = setting(8000, ge=500, le=200_000, doc="tokens (chars/4) of evidence gathered")
    max_tokens: int = setting(60_000, ge=100, doc="tokens (estimated) sent to the model in one run")
    time_budget: float = setting(120.0, gt=0, doc="seconds one research run may take")

    def _finish(self) -> None:
        self.api_key = _key_from_env(self.api_key, self.api_key_env or "OPENAI_API_KEY")


DEFAULT_HALF_LIVES: dict[str, float] = {"memory": 30.0, "knowledge": 180.0, "changelog": 180.0}


@dataclass
class SearchSettings(Section):
    """How results are fused and ranked."""

    fusion: str = setting("auto", choices=("auto", "learned", "rrf"),
                          doc="how hybrid combines its legs: auto (rrf when most candidates are docs, else the "
                          "learned ranker), learned (the shipped ranker) or rrf")
    rrf_k: int = setting(60, ge=1, doc="reciprocal rank fusion constant (fusion = rrf)")
    keyword_weight: float = setting(1.0, ge=0, doc="weight of the keyword leg in fusion")
    semantic_weight: float = setting(1.0, ge=0, doc="weight of the vector leg in fusion")
    merge_adjacent: bool = setting(False, doc="merge neighbouring chunks of one file into one result")
    # On the loc-tests set any penalty from e^3 up ranked alike (tests after the code they
    # test, unless far better matches); e^1 gained half as much (benchmarks/README.md).
    test_penalty: float = setting(
        4.0, ge=0, doc="unless a question is about tests, a test file's odds are divided by e^this (0: off)")
    half_life_days: dict[str, float] = setting(
        factory=lambda: dict(DEFAULT_HALF_LIVES),
        doc="recency decay per source kind (none for code and docs); 0 turns it off")
    rerank: RerankSettings = setting(factory=RerankSettings)

    def _finish(self) -> None:
        # A table in a file or the environment adds to the defaults instead of replacing
        # them (set a kind to 0 to turn its decay off).
        self.half_life_days = {**DEFAULT_HALF_LIVES, **self.half_life_days}
        bad = [kind for kind, days in self.half_life_days.items() if days < 0]
        if bad:
            raise InvalidSettings([f"search.half_life_days.{bad[0]}: should be greater than or equal to 0"])


@dataclass
class ServeSettings(Section):
    """How the MCP server answers."""

    token_budget: int = setting(4000, ge=200, doc="max tokens (chars/4) of a tool answer")
    host: str = setting("127.0.0.1")
    port: int = setting(8765, ge=1, le=65535)
    token: str | None = setting(None, doc="bearer token the HTTP server requires")
    concurrency: int = setting(4, ge=1, le=64, doc="tool calls answered at once on a PostgreSQL index, each "
                               "with its own connections and copy of the vectors (SQLite: one at a time)")


DEFAULT_MEMORY_TYPES = ("decision", "progress", "issue", "handoff", "insight", "reference")


@dataclass
class MemorySettings(Section):
    """Agent memory: the journal's entry types and the code areas knowledge is filed under."""

    types: list[str] = setting(factory=lambda: list(DEFAULT_MEMORY_TYPES),
                               doc="memory entry types `memory save --type` accepts")
    areas: dict[str, list[str]] = setting(
        factory=dict, doc="code areas by name, each a list of path globs (default: a path's top folder)")
    embed_on_save: bool = setting(True, doc="embed a saved entry at once, when a model is available")
    min_similarity: float = setting(
        0.3, ge=-1, le=1, doc="memory and knowledge search (hybrid): an entry only the meaning leg found needs at least "
        "this cosine similarity, or it is not relevant (all-MiniLM-L6-v2's scale; another model may need another value)")
    supersede_types: list[str] = setting(
        factory=lambda: ["decision"], doc="entry types that state what holds: a newer such entry about the same "
        "thing ranks above the older ones it restates (empty: off)")
    supersede_similarity: float = setting(
        0.8, ge=-1, le=1, doc="how alike (cosine of their stored vectors) two entries must be to be about the same "
        "thing (all-MiniLM-L6-v2's scale)")

    def _finish(self) -> None:
        bad = [t for t in self.types if not re.match(r"^[a-z][a-z0-9_-]{0,31}$", t)]
        if bad:
            raise InvalidSettings([f"memory.types: {bad[0]!r} should be lowercase letters, digits, _ or -"])


@dataclass
class ChangelogSettings(Section):
    """Fetching release notes: endpoints, time limits, the browser for client-rendered pages."""

    github_api: str = setting("https://api.github.com", doc="GitHub REST API base URL (GitHub Enterprise: its /api/v3)")
    timeout: float = setting(30.0, gt=0, doc="seconds per HTTP request")
    total_timeout: float = setting(600.0, gt=0, doc="seconds a whole fetch run may take; products not reached fail")
    retries: int = setting(3, ge=0, doc="retries on 429, 5xx, timeouts and dropped connections")
    backoff: float = setting(0.5, ge=0, doc="first wait in seconds; doubles, with jitter; Retry-After wins")
    max_pages: int = setting(10, ge=1, doc="pages read per product and run (GitHub: 100 releases a page)")
    chromium: str | None = setting(None, doc="the Chromium executable for the playwright strategy")


@dataclass
class AgentSettings(Section):
    """Coding agents: session hooks, workflow checkpoints, query metrics."""

    issue_pattern: str = setting(r"(?:^|[/_-])(?:issue|gh|GH)?[-_#]?(\d{1,7})(?=$|[-_/])",
                                 doc="regex whose first group is the issue number in a branch name")
    budget: int = setting(1500, ge=100, doc="tokens (chars/4) the session-start hook may inject")
    hook_lock_timeout: float = setting(2.0, ge=0.1, doc="seconds a hook waits for a locked index before giving up")
    query_log: bool = setting(False, doc="log search, grep and graph queries (kind, parameters, results, ms)")

    def _finish(self) -> None:
        try:
            compiled = re.compile(self.issue_pattern)
        except re.error as exc:
            raise InvalidSettings([f"agents.issue_pattern: not a regex ({exc})"]) from None
        if compiled.groups < 1:
            raise InvalidSettings(["agents.issue_pattern: needs a group around the number, e.g. (\\d+)"])


@dataclass
class Settings(Section):
    """Every setting mindex reads; see the module docstring for precedence."""

    db: Path | None = setting(None)
    index: IndexSettings = setting(factory=IndexSettings)
    embed: EmbedSettings = setting(factory=EmbedSettings)
    search: SearchSettings = setting(factory=SearchSettings)
    serve: ServeSettings = setting(factory=ServeSettings)
    memory: MemorySettings = setting(factory=MemorySettings)
    agents: AgentSettings = setting(factory=AgentSettings)
    changelog: ChangelogSettings = setting(factory=ChangelogSettings)
    research: ResearchSettings = setting(factory=ResearchSettings)


_TRUE = {"true", "1", "yes", "on", "y", "t"}
_FALSE = {"false", "0", "no", "off", "n", "f"}


def _coerce(value: Any, annotation: str, loc: str, problems: list[str]) -> Any:
    """`value` (from TOML, the environment or a flag) as the field's type, or a problem."""
    kind, optional = annotation.removesuffix(" | None"), annotation.endswith(" | None")
    if value is None and optional:
        return None
    if kind in Section.SECTIONS:
        section = Section.SECTIONS[kind]
        if isinstance(value, section):
            return value
        if isinstance(value, str):
            value = _json(value, loc, problems)
        if isinstance(value, dict):
            return build_section(section, value, loc, problems)
        problems.append(f"{loc}: should be a table of settings")
        return MISSING
    try:
        if kind == "int":
            if isinstance(value, bool):
                raise ValueError
            if isinstance(value, float) and value.is_integer():
                return int(value)
            return value if isinstance(value, int) else int(str(value).strip())
        if kind == "float":
            if isinstance(value, bool):
                raise ValueError
            number = float(value) if isinstance(value, (int, float)) else float(str(value).strip())
            if not math.isfinite(number):  # TOML reads nan and inf; no setting means either
                raise ValueError
            return number
        if kind == "bool":
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            if text in _TRUE or text in _FALSE:
                return text in _TRUE
            raise ValueError
        if kind == "str":
            if not isinstance(value, str):
                raise ValueError
            return value
        if kind == "Path":
            if not isinstance(value, (str, Path)):
                raise ValueError
            return Path(value)
        if kind == "SecretStr":
            if isinstance(value, SecretStr):
                return value
            if not isinstance(value, str):
                raise ValueError
            return SecretStr(value)
        if kind == "dict[str, float]":
            table = _json(value, loc, problems) if isinstance(value, str) else value
            if not isinstance(table, dict):
                raise ValueError
            return {str(k): _coerce(v, "float", f"{loc}.{k}", problems) for k, v in table.items()}
        if kind == "list[str]":
            items = _json(value, loc, problems) if isinstance(value, str) and value.lstrip().startswith("[") else value
            if isinstance(items, str):
                items = [part.strip() for part in items.split(",") if part.strip()]
            if not isinstance(items, list) or not all(isinstance(v, str) for v in items):
                raise ValueError
            return list(items)
        if kind == "dict[str, list[str]]":
            table = _json(value, loc, problems) if isinstance(value, str) else value
            if not isinstance(table, dict):
                raise ValueError
            return {str(k): _coerce(v, "list[str]", f"{loc}.{k}", problems) for k, v in table.items()}
    except (TypeError, ValueError):
        words = {"int": "an integer", "float": "a finite number", "bool": "true or false", "str": "a string",
                 "Path": "a path", "SecretStr": "a string", "dict[str, float]": "a table of numbers",
                 "list[str]": "a list of strings", "dict[str, list[str]]": "a table of lists of strings"}
        problems.append(f"{loc}: should be {words.get(kind, kind)}, not {value!r}")
        return MISSING
    raise TypeError(f"no coercion for {annotation}")  # a field of a type this module does not know


def _json(text: str, loc: str, problems: list[str]) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        problems.append(f"{loc}: should be a JSON table, not {text!r}")
        return None


def build_section(cls: type[Section], data: dict[str, Any], prefix: str = "",
           problems: list[str] | None = None) -> Any:
    """Section `cls` from a (merged) table; raises InvalidSettings naming every bad key,
    or adds to `problems` when the caller collects them."""
    collect = problems if problems is not None else []
    before = len(collect)
    known = {f.name: f for f in fields(cls)}  # type: ignore[arg-type]
    values = {}
    for key, value in data.items():
        loc = f"{prefix}.{key}" if prefix else key
        f = known.get(key)
        if f is None:
            collect.append(f"{loc}: not a setting; keys under {prefix or 'the top level'}: {', '.join(known)}")
            continue
        coerced = _coerce(value, str(f.type), loc, collect)
        if coerced is not MISSING:
            values[key] = coerced
    result: Any = MISSING
    if len(collect) == before:
        try:
            result = cls(**values)
        except InvalidSettings as exc:
            collect.extend(p if "." in p.split(":")[0] or not prefix else f"{prefix}.{p}" for p in exc.problems)
    if problems is None and collect:
        raise InvalidSettings(collect)
    return result

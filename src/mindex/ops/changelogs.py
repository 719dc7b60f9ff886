"""Operations over the release notes of the tools a project depends on: search, what changed
since a version, an entity's history, one release, the products, and the synergies."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from mindex.modes import CHANGE_KINDS, MODES
from mindex.ops import Operation, Param

if TYPE_CHECKING:
    from mindex.index import Index


class Changes(NamedTuple):
    """Changes (each a dict: product, version, date, kind, text, entities, ...) under `key`,
    with what was asked in `head`; `empty` says why there are none."""

    items: list[dict[str, Any]]
    key: str
    head: dict[str, Any] | None = None
    empty: str = "no changes match"

    def to_dict(self) -> dict[str, Any]:
        return {**(self.head or {}), self.key: self.items}

    def structured(self) -> dict[str, Any]:
        return {"results": self.items}


class Release(NamedTuple):
    """One release: its product, version, date, link and changes in order."""

    data: dict[str, Any]
    empty: str = "no changes"

    @property
    def items(self) -> list[dict[str, Any]]:
        return list(self.data["changes"])

    def to_dict(self) -> dict[str, Any]:
        return self.data

    def structured(self) -> dict[str, Any]:
        return {"results": self.items}


class Rows(NamedTuple):
    """Products or synergies (each a dict) under `key`."""

    items: list[dict[str, Any]]
    key: str

    def to_dict(self) -> dict[str, Any]:
        return {self.key: self.items}

    def structured(self) -> dict[str, Any]:
        return {"results": self.items}


class Synergy(NamedTuple):
    """One synergy: title, products, steps, notes and the changes that back it."""

    item: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return self.item

    def structured(self) -> dict[str, Any]:
        return {"results": [self.item]}


def search(index: Index, query: str, limit: int = 10, mode: str | None = None, product: tuple[str, ...] = (),
           kinds: tuple[str, ...] = (), since: str | None = None, until: str | None = None,
           entities: tuple[str, ...] = (), decay: bool = True) -> Changes:
    """Changes by keywords and meaning; the filters apply before ranking."""
    from mindex.changelog.book import bound, change_of

    result = index.changelog.search(query, limit, product, kinds, bound(since, "since"), bound(until, "until"),
                                    entities, mode, decay)
    return Changes([change_of(h) for h in result.hits], "results",
                   {"query": query, "mode": result.mode, "took_ms": round(result.took_ms, 2),
                    **({"note": result.note} if result.note else {})})


def since(index: Index, product: str, version: str, kinds: tuple[str, ...] = ()) -> Changes:
    """Every change of `product` after `version`, oldest first."""
    from mindex.changelog.book import change_of

    found = [change_of(h) for h in index.changelog.since(product, version, kinds)]
    empty = f"nothing in {product} after {version}"
    if not found and kinds and (others := len(index.changelog.since(product, version))):
        empty = (f"no {' or '.join(kinds)} change in {product} after {version} "
                 f"({others:,} of other kinds; drop --kind to list them)")
    return Changes(found, "changes", {"product": product, "since": version}, empty)


def entity(index: Index, name: str, product: tuple[str, ...] = ()) -> Changes:
    """Every change naming an entity, oldest first."""
    from mindex.changelog.book import change_of

    return Changes([change_of(h) for h in index.changelog.entity(name, product)], "changes", {"entity": name},
                   f"no change names {name}")


def release(index: Index, product: str, version: str) -> Release:
    """One release's changes, in order."""
    return Release(index.changelog.release(product, version))


def products(index: Index) -> Rows:
    """Every product known, with what is stored of it."""
    return Rows(index.changelog.catalog(), "products")


def synergies(index: Index) -> Rows:
    """The synergies (after ingesting what changed)."""
    from mindex.changelog.synergies import list_synergies

    index.changelog.ingest()
    return Rows(list_synergies(index), "synergies")


def synergy(index: Index, name: str) -> Synergy:
    """One synergy.

    Raises:
        NotFoundError: no synergy of that name.
    """
    from mindex.changelog.synergies import get_synergy
    from mindex.errors import NotFoundError

    index.changelog.ingest()
    item = get_synergy(index, name)
    if item is None:
        raise NotFoundError(f"no synergy {name!r}; list them with `mindex changelog synergies`")
    return Synergy(item)



_VIEWS = "mindex.serve.changelogviews"
_KINDS = Param("kinds", str, "Only changes of this kind (repeatable).", default=None, choices=CHANGE_KINDS,
               many=True, flags=("--kind",), agent_help="only changes of these kinds")
_PRODUCT = Param("product", str, "A product name (see `mindex changelog products`), e.g. claude-code.", argument=True,
                 agent_help="a product name from changelog_products, e.g. claude-code")
_SOME_PRODUCTS = Param("product", str, "Only this product (repeatable).", default=None, many=True, metavar="P",
                       agent_help="only this product (or these)")


def _op(name: str, tool: str, help: str, agent_help: str, **more: Any) -> Operation:
    """A changelog operation: under `mindex changelog`, opening the index where none exists yet."""
    defaults: dict[str, Any] = {"markdown": f"{_VIEWS}:changes_markdown", "text": f"{_VIEWS}:print_changes",
                                "schema": "mindex.serve.mcp_models:ChangesOut"}
    return Operation(name=name, tool=tool, cli=("changelog", name), help=help, agent_help=agent_help,
                     run=f"mindex.ops.changelogs:{name}", creates=True, **{**defaults, **more})


OPERATIONS = (
    _op("search", "changelog_search",
        "Search changes by keywords and meaning; filters apply before ranking.",
        "Search the release notes of the tools this project depends on (SDKs, CLIs, MCP servers): single changes "
        "with their kind, version and date, newest releases ranked up. Use it before writing code against an SDK or "
        "CLI feature that may have changed.",
        text=f"{_VIEWS}:print_each_change", stderr=f"{_VIEWS}:search_note",
        params=(
            Param("query", str, "What changed, in words.", argument=True, blank=False,
                  agent_help="what changed, in words, e.g. 'prompt caching'"),
            Param("limit", int, "How many changes.", default=10, ge=1, le=1000, flags=("-n", "--limit"),
                  agent_help="how many results"),
            Param("mode", str, "Search mode (default: hybrid when vectors exist).", default=None, choices=MODES,
                  agent_help="keyword, semantic or hybrid (default: hybrid when vectors exist)"),
            _SOME_PRODUCTS, _KINDS,
            Param("since", str, "Releases after version V, or on/after DATE.", default=None, metavar="V|DATE",
                  agent_help="releases after this version, or on/after this date"),
            Param("until", str, "Releases up to version V, or before DATE.", default=None, metavar="V|DATE",
                  agent_help="releases up to this version, or before this date"),
            Param("entities", str, "Changes naming this entity (repeatable).", default=None, many=True,
                  flags=("--entity",), metavar="E", agent_help="only changes naming this entity (or these)"),
            Param("decay", bool, "Rank newer releases up (180-day half-life).", default=True,
                  flags=("--decay/--no-decay",), agent_help="rank newer releases up (180-day half-life)"),
        ),
        examples=('mindex changelog search "prompt caching" --product anthropic-sdk-python --kind added',
                  'mindex changelog search "http2" --since 2024-01-01 --json')),
    _op("since", "changelog_since",
        "Every change of PRODUCT in the releases after VERSION, oldest first.",
        "Everything that changed in a product after the version you use, oldest first: what an upgrade brings, and "
        "with kinds=['breaking'] what it may break.",
        params=(_PRODUCT,
                Param("version", str, "The version you use.", argument=True,
                      agent_help="the version you use, e.g. 0.40 or v2.1.200"),
                _KINDS),
        examples=("mindex changelog since anthropic-sdk-python 0.40",
                  "mindex changelog since claude-code 2.1.230 --kind breaking --kind removed")),
    _op("entity", "changelog_entity",
        "Changes that name an entity (ANTHROPIC_MODEL, /compact, --max-turns, a model id, a CVE), oldest first: the "
        "first is where it appeared.",
        "Every change that names an entity, oldest first: the first is the release that introduced it, the later "
        "ones what changed about it since.",
        params=(Param("name", str, "An entity: an environment variable, slash command, flag, model id, config key or "
                      "CVE.", argument=True,
                      agent_help="an environment variable, slash command, CLI flag, model id, config key or CVE, "
                                 "e.g. ANTHROPIC_MODEL"),
                _SOME_PRODUCTS),
        examples=("mindex changelog entity ANTHROPIC_MODEL",
                  "mindex changelog entity --product claude-code /compact --json")),
    _op("release", "changelog_release",
        "One release's changes, in order.",
        "One release of a product: its date, link and every change in it, in order, each with its kind and the "
        "entities it names. Use it to read the whole release a search result or changelog_since points to.",
        params=(_PRODUCT, Param("version", str, "The release's version.", argument=True,
                                agent_help="the release's version")),
        examples=("mindex changelog release claude-code 2.1.239", "mindex changelog release httpx 0.28.1 --json")),
    _op("products", "changelog_products",
        "The registry (shipped products and yours from .mindex/changelog/products.yaml) with what is stored of each.",
        "Every product mindex knows (shipped and the project's own), each with what is stored of it: release count, "
        "latest version and date, or \"not fetched\". Use it to know what changelog_search and changelog_since can "
        "answer now, and what the user could fetch.",
        markdown=f"{_VIEWS}:products_markdown", text=f"{_VIEWS}:print_products",
        examples=("mindex changelog products", "mindex changelog products --json | jq '.products[].name'")),
    _op("synergies", "changelog_synergies",
        "Curated notes on using products together (shipped, and yours in .mindex/changelog/synergies).",
        "Curated notes on using the products together (which versions to combine, in what order), each backed by "
        "the changes that made it possible; read one with changelog_synergy.",
        markdown=f"{_VIEWS}:synergies_markdown", text=f"{_VIEWS}:print_synergies",
        examples=("mindex changelog synergies", "mindex changelog synergies --json")),
    _op("synergy", "changelog_synergy",
        "One synergy: its steps, the changes that back it, and its notes.",
        "One synergy: its steps, its notes and the ids of the changes that back it (look them up with "
        "changelog_search or the release they belong to).",
        markdown=f"{_VIEWS}:synergy_markdown", text=f"{_VIEWS}:print_synergy",
        params=(Param("name", str, "A synergy's name (see `mindex changelog synergies`).", argument=True,
                      agent_help="a synergy's name from changelog_synergies"),),
        examples=("mindex changelog synergy prompt-caching",)),
)

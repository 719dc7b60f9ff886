"""MCP tools over changelogs: search, since, entity, release, products and synergies."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult
from pydantic import BaseModel, Field

from mindex.index import Index
from mindex.serve.mcp_core import _Core, _Limit, _result


class ChangesOut(BaseModel):
    """Changes from release notes (product, version, date, kind, text, entities), or products
    or synergies."""

    results: list[dict[str, Any]]


def _changes_markdown(items: list[dict[str, Any]], budget: int, empty: str) -> str:
    if not items:
        return empty
    lines, used, last = [], 0, None
    for n, item in enumerate(items):
        head = (item["product"], item["version"])
        block = ""
        if head != last:
            block = f"**{item['product']} {item['version']}**" + (f" ({item['date']})" if item.get("date") else "") + "\n"
            last = head
        block += f"- [{item['kind']}] {' '.join(item['text'].split())} `{item['id']}`\n"
        if used + len(block) > budget * 4:
            lines.append(f"({len(items) - n} more: narrow with product, kind or version filters)")
            break
        lines.append(block)
        used += len(block)
    return "".join(lines)


_Product = Annotated[str, Field(description="a product name from changelog_products, e.g. claude-code")]
_Kinds = Annotated[list[Literal["added", "changed", "fixed", "breaking", "deprecated", "security", "removed",
                                "performance", "docs"]] | None, Field(description="only changes of these kinds")]


def register_changelog_tools(server: MCPServer, core: _Core, budget: int) -> None:
    """changelog_search, changelog_since, changelog_entity, changelog_products,
    changelog_release, changelog_synergies, changelog_synergy."""
    from mindex.changelog.book import bound, change_of

    @server.tool()
    async def changelog_search(
        query: Annotated[str, Field(description="what changed, in words, e.g. 'prompt caching'")],
        product: Annotated[str | None, Field(description="only this product")] = None,
        kinds: _Kinds = None,
        since: Annotated[str | None, Field(description="releases after this version, or on/after this date")] = None,
        until: Annotated[str | None, Field(description="releases up to this version, or before this date")] = None,
        limit: _Limit = 10,
    ) -> Annotated[CallToolResult, ChangesOut]:
        """Search the release notes of the tools this project depends on (SDKs, CLIs, MCP
        servers): single changes with their kind, version and date, newest releases ranked up.
        Use it before writing code against an SDK or CLI feature that may have changed."""
        result = await core.call(lambda ix: ix.changelog.search(
            query, limit, (product,) if product else (), tuple(kinds or ()), bound(since, "since"),
            bound(until, "until")), create=True)
        items = [change_of(h) for h in result.hits]
        return _result(_changes_markdown(items, budget, "no change matches"), ChangesOut(results=items))

    @server.tool()
    async def changelog_since(
        product: _Product,
        version: Annotated[str, Field(description="the version you use, e.g. 0.40 or v2.1.200")],
        kinds: _Kinds = None,
    ) -> Annotated[CallToolResult, ChangesOut]:
        """Everything that changed in a product after the version you use, oldest first:
        what an upgrade brings, and with kinds=['breaking'] what it may break."""
        hits = await core.call(lambda ix: ix.changelog.since(product, version, tuple(kinds or ())), create=True)
        items = [change_of(h) for h in hits]
        return _result(_changes_markdown(items, budget, f"nothing in {product} after {version}"), ChangesOut(results=items))

    @server.tool()
    async def changelog_entity(
        name: Annotated[str, Field(description="an environment variable, slash command, CLI flag, model id, "
                                               "config key or CVE, e.g. ANTHROPIC_MODEL")],
        product: Annotated[str | None, Field(description="only this product")] = None,
    ) -> Annotated[CallToolResult, ChangesOut]:
        """Every change that names an entity, oldest first: the first is the release that
        introduced it, the later ones what changed about it since."""
        hits = await core.call(lambda ix: ix.changelog.entity(name, (product,) if product else ()), create=True)
        items = [change_of(h) for h in hits]
        return _result(_changes_markdown(items, budget, f"no change names {name}"), ChangesOut(results=items))

    @server.tool()
    async def changelog_release(
        product: _Product,
        version: Annotated[str, Field(description="the release's version")],
    ) -> Annotated[CallToolResult, ChangesOut]:
        """One release of a product: its date, link and every change in it, in order, each
        with its kind and the entities it names."""
        data = await core.call(lambda ix: ix.changelog.release(product, version), create=True)
        return _result(_changes_markdown(data["changes"], budget, "no changes"), ChangesOut(results=data["changes"]))

    @server.tool()
    async def changelog_products() -> Annotated[CallToolResult, ChangesOut]:
        """Every product mindex knows (shipped and the project's own), each with what is
        stored of it: release count, latest version and date, or "not fetched". Use it to
        know what changelog_search and changelog_since can answer now, and what the user
        could fetch."""
        items = await core.call(lambda ix: ix.changelog.catalog(), create=True)
        stored = [i for i in items if i["releases"]]
        lines = [f"- {i['name']}: {i['releases']} releases, latest {i['latest']}"
                 + (f" ({i['latest_date']})" if i.get("latest_date") else "") for i in stored]
        waiting = [i["name"] for i in items if not i["releases"]]
        if waiting:
            lines.append(f"Known but not fetched ({len(waiting)}; the user fetches them with `mindex changelog fetch "
                         f"NAME`): {', '.join(waiting)}")
        return _result("\n".join(lines), ChangesOut(results=items))

    @server.tool()
    async def changelog_synergies() -> Annotated[CallToolResult, ChangesOut]:
        """Curated notes on using the products together (which versions to combine, in what
        order), each backed by the changes that made it possible; read one with changelog_synergy."""
        def work(ix: Index) -> list[dict[str, Any]]:
            from mindex.changelog.synergies import list_synergies

            ix.changelog.ingest()
            return list_synergies(ix)

        items = await core.call(work, create=True)
        return _result("\n".join(f"- {s['name']}: {s['title']} ({', '.join(s['products'])})" for s in items)
                       or "no synergies", ChangesOut(results=items))

    @server.tool()
    async def changelog_synergy(
        name: Annotated[str, Field(description="a synergy's name from changelog_synergies")],
    ) -> Annotated[CallToolResult, ChangesOut]:
        """One synergy: its steps, its notes and the ids of the changes that back it (look them
        up with changelog_search or the release they belong to)."""
        def work(ix: Index) -> dict[str, Any]:
            from mindex.changelog.synergies import get_synergy
            from mindex.errors import NotFoundError

            item = get_synergy(ix, name)
            if item is None:
                raise NotFoundError(f"no synergy {name!r}; list them with changelog_synergies")
            return item

        item = await core.call(work, create=True)
        text = f"**{item['title']}**\n" + "\n".join(f"{n}. {s}" for n, s in enumerate(item["steps"], 1)) + \
            f"\n\n{item['body']}\n\nevidence: {', '.join(item['evidence'])}"
        return _result(text, ChangesOut(results=[item]))

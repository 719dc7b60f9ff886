"""`mindex changelog ...`: release notes of the tools a project depends on."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from mindex.modes import MODES
from mindex.serve.clikit import TEXT, State, emit_json, err, handle_errors, json_option, not_blank, out
from mindex.textsafe import markup_escape as escape

KIND_CHOICES = ("added", "changed", "fixed", "breaking", "deprecated", "security", "removed", "performance", "docs")


def _print_changes(items: list[dict[str, Any]], empty: str = "no changes match") -> None:
    if not items:
        err.print(empty)
        return
    last = None
    for item in items:
        head = (item["product"], item["version"])
        if head != last:
            out.print(f"[bold]{escape(item['product'])} {escape(str(item['version']))}[/]"
                      + (f"  {item['date']}" if item.get("date") else ""), highlight=False)
            last = head
        entities = f"  [dim]{escape(', '.join(item['entities'][:6]))}[/]" if item.get("entities") else ""
        out.print(f"  [{item['kind']}] {escape(' '.join(item['text'].split()))}{entities}", highlight=False)


def _problems(report: Any) -> list[str]:
    """What ingest could not read (a synergy file without front matter, say), each on stderr."""
    for problem in report.errors:
        err.print(f"[yellow]warning[/] {escape(problem)}", highlight=False)
    return list(report.errors)


@click.group()
def changelog() -> None:
    """Release notes of the tools you depend on, split into classified changes.

    Release files live in .mindex/changelog/products/<product>/releases/<version>.md; fetch
    writes them, ingest indexes them (each change: a kind and the entities it names).

    \b
    Examples:
      mindex changelog fetch claude-code anthropic-sdk-python
      mindex changelog import aider HISTORY.md         # a changelog file you have
      mindex changelog since anthropic-sdk-python 0.40 --kind breaking
      mindex changelog entity ANTHROPIC_MODEL
      mindex changelog search "prompt caching" --product anthropic-sdk-python
    """


@changelog.command("products")
@json_option
@click.pass_obj
@handle_errors
def products_cmd(state: State, as_json: bool) -> None:
    """The registry (shipped products and yours from .mindex/changelog/products.yaml) with
    what is stored of each.

    \b
    Examples:
      mindex changelog products
      mindex changelog products --json | jq '.products[].name'
    """
    with state.open(create=True) as index:
        rows = index.changelog.catalog()
    if as_json:
        emit_json({"products": rows})
        return
    for row in rows:
        have = f"{row['releases']} releases, latest {row['latest']}" if row["releases"] else "not fetched"
        out.print(f"[bold]{escape(row['name'])}[/]  {row.get('strategy') or 'imported'}  "
                  f"{escape(str(row.get('source') or ''))}  [dim]{have}[/]", highlight=False)


@changelog.command("add-product")
@click.argument("name", type=TEXT)
@click.option("--strategy", required=True,
              type=click.Choice(("gh-releases", "rss", "atom", "raw-changelog", "keep-a-changelog", "html-scrape",
                                 "playwright", "catalog")))
@click.option("--source", "source", required=True, help="owner/repo, or a URL")
@click.option("--title", help="A display name.")
@json_option
@click.pass_obj
@handle_errors
def add_product(state: State, name: str, strategy: str, source: str, title: str | None, as_json: bool) -> None:
    """Add (or replace) a product in the project's products file.

    \b
    Examples:
      mindex changelog add-product httpx --strategy gh-releases --source encode/httpx
      mindex changelog add-product mytool --strategy rss --source https://example.com/releases.xml --title 'My tool'
    """
    from mindex.changelog.registry import add_product as add

    path = state.project_products()
    product = add(path, name, strategy, source, title)
    emit_json({"product": product.to_dict(), "file": str(path)}) if as_json else \
        err.print(f"added {name} to {path}")


@changelog.command("fetch")
@click.argument("products", nargs=-1, type=TEXT)
@click.option("--since", metavar="DATE", help="Only releases on or after DATE (first fetch of a product).")
@click.option("--no-ingest", is_flag=True, help="Write the release files only.")
@json_option
@click.pass_obj
@handle_errors
def fetch_cmd(state: State, products: tuple[str, ...], since: str | None, no_ingest: bool, as_json: bool) -> None:
    """Fetch new release notes (all products with releases stored, or those named); each
    product pulls only what is new since its last fetch, and one failing never stops the
    others. Then ingest.

    \b
    Examples:
      mindex changelog fetch claude-code anthropic-sdk-python
      mindex changelog fetch --since 2026-01-01 --json
    """
    from mindex.changelog.fetch import fetch_products
    from mindex.changelog.parse import parse_date
    from mindex.changelog.registry import load_registry

    registry = load_registry(state.project_products())
    day = parse_date(since) if since else None
    if since and day is None:
        raise click.BadParameter(f"{since!r} is not a date such as 2026-10-01", param_hint="--since")
    with state.open(create=True) as index:
        results = fetch_products(index, registry, products, day, progress=lambda text: err.print(text, highlight=False),
                                 settings=state.settings.changelog)
        report = None if no_ingest else index.changelog.ingest()
    failed = [r for r in results if r.status == "failed"]
    problems = [] if report is None else _problems(report)
    if as_json:
        emit_json({"results": [r.to_dict() for r in results],
                   "ingested": None if report is None else {"added": report.added, "updated": report.updated,
                                                            "unchanged": report.unchanged, "changes": report.chunks,
                                                            "problems": problems}})
    else:
        for r in results:
            out.print(f"{escape(r.product):28} {r.status:9} {r.new:4} new  {escape(r.detail or '')}", highlight=False)
    if failed and len(failed) == len(results):
        sys.exit(1)


@changelog.command("import")
@click.argument("product", type=TEXT)
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(("auto", "markdown", "rst", "debian")), default="auto",
              show_default=True)
@json_option
@click.pass_obj
@handle_errors
def import_cmd(state: State, product: str, file: Path, fmt: str, as_json: bool) -> None:
    """Split a changelog file you have (CHANGELOG.md, HISTORY.md, NEWS.rst, debian/changelog)
    into release files of PRODUCT, and ingest them.

    \b
    Examples:
      mindex changelog import aider HISTORY.md
      mindex changelog import mytool debian/changelog --format debian
    """
    from mindex.changelog.registry import check_name

    check_name(product)
    text = file.read_text(encoding="utf-8", errors="replace")
    with state.open(create=True) as index:
        counts = index.changelog.import_changelog(product, text, fmt, source=f"import:{file.name}")
        report = index.changelog.ingest()
    problems = _problems(report)
    if as_json:
        emit_json({"product": product, **counts, "changes_indexed": report.chunks, "problems": problems})
    else:
        err.print(f"{product}: {counts['releases']} releases ({counts['written']} new or changed), "
                  f"{report.chunks} changes indexed")


@changelog.command("ingest")
@json_option
@click.pass_obj
@handle_errors
def ingest_cmd(state: State, as_json: bool) -> None:
    """Index the release files (changed ones only) and cache the synergies.

    \b
    Examples:
      mindex changelog ingest
      mindex changelog ingest --json
    """
    with state.open(create=True) as index:
        report = index.changelog.ingest()
    data = {"added": report.added, "updated": report.updated, "unchanged": report.unchanged,
            "removed": report.removed, "changes": report.chunks, "skipped": [{"path": s.path, "reason": s.reason} for s in report.skipped],
            "problems": _problems(report)}
    emit_json(data) if as_json else err.print(
        f"{report.added} new, {report.updated} changed, {report.unchanged} unchanged release files; "
        f"{report.chunks} changes indexed" + (f"; {len(report.skipped)} skipped" if report.skipped else ""))


_FILTERS = (
    click.option("--product", "products", type=TEXT, multiple=True, metavar="P", help="Only this product (repeatable)."),
    click.option("--kind", "kinds", multiple=True, type=click.Choice(KIND_CHOICES), help="Only this kind (repeatable)."),
    click.option("--since", metavar="V|DATE", help="Releases after version V, or on/after DATE."),
    click.option("--until", metavar="V|DATE", help="Releases up to version V, or before DATE."),
    click.option("--entity", "entities", type=TEXT, multiple=True, metavar="E", help="Changes naming this entity."),
)


def _filters(func: Any) -> Any:
    for option in reversed(_FILTERS):
        func = option(func)
    return func


@changelog.command("search")
@click.argument("query", type=TEXT, callback=not_blank)
@click.option("-n", "--limit", default=10, show_default=True, type=click.IntRange(1, 1000))
@click.option("--mode", type=click.Choice(MODES), help="Search mode (default: hybrid when vectors exist).")
@_filters
@click.option("--decay/--no-decay", default=True, show_default=True, help="Rank newer releases up (180-day half-life).")
@json_option
@click.pass_obj
@handle_errors
def search_cmd(state: State, query: str, limit: int, mode: str | None, products: tuple[str, ...],
               kinds: tuple[str, ...], since: str | None, until: str | None, entities: tuple[str, ...], decay: bool,
               as_json: bool) -> None:
    """Search changes by keywords and meaning; filters apply before ranking.

    \b
    Examples:
      mindex changelog search "prompt caching" --product anthropic-sdk-python --kind added
      mindex changelog search "http2" --since 2024-01-01 --json
    """
    from mindex.changelog.book import bound, change_of

    with state.open(create=True) as index:
        result = index.changelog.search(query, limit, products, kinds, bound(since, "--since"), bound(until, "--until"),
                                        entities, mode, decay)
    items = [change_of(h) for h in result.hits]
    if as_json:
        emit_json({"query": query, "mode": result.mode, "took_ms": round(result.took_ms, 2), "results": items})
    else:
        for item in items:
            _print_changes([item])


@changelog.command("since")
@click.argument("product", type=TEXT)
@click.argument("version", type=TEXT)
@click.option("--kind", "kinds", multiple=True, type=click.Choice(KIND_CHOICES))
@json_option
@click.pass_obj
@handle_errors
def since_cmd(state: State, product: str, version: str, kinds: tuple[str, ...], as_json: bool) -> None:
    """Every change of PRODUCT in the releases after VERSION, oldest first.

    \b
    Examples:
      mindex changelog since anthropic-sdk-python 0.40
      mindex changelog since claude-code 2.1.230 --kind breaking --kind removed
    """
    from mindex.changelog.book import change_of

    with state.open(create=True) as index:
        items = [change_of(h) for h in index.changelog.since(product, version, kinds)]
    emit_json({"product": product, "since": version, "changes": items}) if as_json else _print_changes(
        items, f"nothing in {product} after {version}")


@changelog.command("entity")
@click.argument("name", type=TEXT)
@click.option("--product", "products", type=TEXT, multiple=True, metavar="P")
@json_option
@click.pass_obj
@handle_errors
def entity_cmd(state: State, name: str, products: tuple[str, ...], as_json: bool) -> None:
    """Changes that name an entity (ANTHROPIC_MODEL, /compact, --max-turns, a model id, a
    CVE), oldest first: the first is where it appeared.

    \b
    Examples:
      mindex changelog entity ANTHROPIC_MODEL
      mindex changelog entity --product claude-code /compact --json
    """
    from mindex.changelog.book import change_of

    with state.open(create=True) as index:
        items = [change_of(h) for h in index.changelog.entity(name, products)]
    emit_json({"entity": name, "changes": items}) if as_json else _print_changes(items, f"no change names {name}")


@changelog.command("release")
@click.argument("product", type=TEXT)
@click.argument("version", type=TEXT)
@json_option
@click.pass_obj
@handle_errors
def release_cmd(state: State, product: str, version: str, as_json: bool) -> None:
    """One release's changes, in order.

    \b
    Examples:
      mindex changelog release claude-code 2.1.239
      mindex changelog release httpx 0.28.1 --json
    """
    with state.open(create=True) as index:
        data = index.changelog.release(product, version)
    emit_json(data) if as_json else _print_changes(data["changes"])


@changelog.command("synergies")
@json_option
@click.pass_obj
@handle_errors
def synergies_cmd(state: State, as_json: bool) -> None:
    """Curated notes on using products together (shipped, and yours in .mindex/changelog/synergies).

    \b
    Examples:
      mindex changelog synergies
      mindex changelog synergies --json
    """
    from mindex.changelog.synergies import list_synergies

    with state.open(create=True) as index:
        index.changelog.ingest()
        items = list_synergies(index)
    if as_json:
        emit_json({"synergies": items})
        return
    for s in items:
        out.print(f"[bold]{escape(s['name'])}[/]  {escape(s['title'])}  [dim]{escape(', '.join(s['products']))}[/]",
                  highlight=False)


@changelog.command("synergy")
@click.argument("name", type=TEXT)
@json_option
@click.pass_obj
@handle_errors
def synergy_cmd(state: State, name: str, as_json: bool) -> None:
    """One synergy: its steps, the changes that back it, and its notes.

    \b
    Examples:
      mindex changelog synergy prompt-caching
    """
    from mindex.changelog.synergies import get_synergy
    from mindex.errors import NotFoundError

    with state.open(create=True) as index:
        index.changelog.ingest()
        item = get_synergy(index, name)
    if item is None:
        raise NotFoundError(f"no synergy {name!r}; list them with `mindex changelog synergies`")
    if as_json:
        emit_json(item)
        return
    out.print(f"[bold]{escape(item['title'])}[/]  ({escape(', '.join(item['products']))})", highlight=False)
    for n, step in enumerate(item["steps"], 1):
        out.print(f"{n}. {escape(step)}", highlight=False)
    out.print(escape(item["body"]), highlight=False)
    if item["evidence"]:
        out.print(f"[dim]evidence: {escape(', '.join(item['evidence']))}[/]", highlight=False)

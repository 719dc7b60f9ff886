"""`mindex changelog ...`: release notes of the tools a project depends on."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from mindex.serve.clikit import TEXT, State, emit_json, err, handle_errors, json_option, out
from mindex.serve.opscli import attach
from mindex.textsafe import markup_escape as escape

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
        report = None if no_ingest else _ingest(index)
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


def _ingest(index: Any) -> Any:
    """`ChangelogBook.ingest` with the new changes embedded, progress on stderr as `mindex
    index` gives it (a search by meaning finds a change only once it has a vector)."""
    from mindex.serve.progress import IndexProgress

    with IndexProgress(err) as progress:
        return index.changelog.ingest(embed=True, progress=progress.update)


@changelog.command("import")
@click.argument("product", type=TEXT)
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(("auto", "markdown", "rst", "asciidoc", "rdoc", "org", "debian")), default="auto",
              show_default=True)
@json_option
@click.pass_obj
@handle_errors
def import_cmd(state: State, product: str, file: Path, fmt: str, as_json: bool) -> None:
    """Split a changelog file you have (CHANGELOG.md, HISTORY.md, NEWS.rst, History.rdoc, NEWS.org, debian/changelog)
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
        if not counts["releases"]:
            from mindex.errors import ConfigError

            raise ConfigError(f"{file.name}: no release found in it (a heading that holds a version, as `## 1.2.0`, "
                              "`== 1.2.0` or an underlined `1.2.0`, or a Debian entry); if it is one of them, name "
                              "its format with --format markdown, rst, asciidoc, rdoc, org or debian")
        report = _ingest(index)
    problems = _problems(report)
    if as_json:
        emit_json({"product": product, **counts, "changes_indexed": report.chunks, "problems": problems})
    else:
        merged = f"; {counts['merged']} headings of a version written before, each read into it" if counts["merged"] else ""
        err.print(f"{product}: {counts['releases']} releases ({counts['written']} new or changed{merged}), "
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
        report = _ingest(index)
    data = {"added": report.added, "updated": report.updated, "unchanged": report.unchanged,
            "removed": report.removed, "changes": report.chunks, "skipped": [{"path": s.path, "reason": s.reason} for s in report.skipped],
            "problems": _problems(report)}
    emit_json(data) if as_json else err.print(
        f"{report.added} new, {report.updated} changed, {report.unchanged} unchanged release files; "
        f"{report.chunks} changes indexed" + (f"; {len(report.skipped)} skipped" if report.skipped else ""))


attach(changelog)

"""`Changelogs`: what the changelog commands and MCP tools call (via `Index.changelog`; it takes an engine, `mindex.engine.Engine`).

The release files under the index's folder are the truth (`changelog/products/<product>/
releases/<version>.md`, so `.mindex/changelog` in a project); `ingest` indexes them (a file
whose bytes did not change is skipped, so a second ingest is a no-op) and caches the
synergies; queries read the index.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mindex.changelog.parse import KINDS, Release, parse_date, render_release, split_releases
from mindex.changelog.versions import clean, key, looks_like_version
from mindex.config import make_state_dir
from mindex.errors import ConfigError, NotFoundError
from mindex.models import Facets, Hit, IndexReport, SearchResult, Source

if TYPE_CHECKING:
    from mindex.engine import Engine

KIND = "changelog"


@dataclass(frozen=True)
class Bound:
    """A `--since` / `--until` value: a date (epoch seconds) or a version (its key)."""

    at: float | None = None
    vkey: str | None = None


def bound(value: str | None, flag: str) -> Bound:
    """`2026-11-01` is a date; `0.40`, `v1.2.3`, `2.1.200` are versions."""
    if not value:
        return Bound()
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}(?:[T ][\d:]+)?", value.strip()):
        day = parse_date(value.strip()[:10])
        assert day is not None
        return Bound(at=datetime(day.year, day.month, day.day, tzinfo=timezone.utc).timestamp())
    if looks_like_version(value) or re.fullmatch(r"v?\d+", value.strip()):
        return Bound(vkey=key(value))
    raise ConfigError(f"{flag} {value!r} is neither a date (2026-11-01) nor a version (0.40, v1.2.3)")


def change_of(hit: Hit) -> dict[str, Any]:
    """The JSON shape of one change."""
    facets = dict(hit.facets or {})
    return {"id": facets.get("id", hit.id), "product": facets.get("product"), "version": facets.get("version"),
            "date": facets.get("date"), "kind": facets.get("type"), "section": _section(hit.context),
            "text": hit.text, "entities": facets.get("entities", []), "url": facets.get("url"),
            "file": f"{KIND}/{hit.path}", "line": hit.start_line, "score": round(hit.score, 6)}


def _section(context: str) -> str | None:
    parts = context.split(" › ")
    return parts[4] if len(parts) > 4 else None


class Changelogs:
    """Release notes of the products a project depends on, kept beside its index."""

    def __init__(self, index: Engine) -> None:
        self.index = index
        self.folder = index.db_path.parent / KIND
        self._source: Source | None = None

    def source(self) -> Source:
        """The changelog source, registered (with its folder) on first use."""
        if self._source is not None:
            return self._source
        make_state_dir(self.folder.parent)  # on PostgreSQL the project's .mindex may be new
        (self.folder / "products").mkdir(parents=True, exist_ok=True)
        self._source = self.index.own_source(self.folder, KIND, KIND, "changelogs")
        return self._source

    # -- writing ----------------------------------------------------------------------------

    def release_path(self, product: str, version: str) -> Path:
        safe = re.sub(r"[^A-Za-z0-9._+-]+", "_", clean(version)).strip("._") or "unversioned"
        return self.folder / "products" / product / "releases" / f"{safe}.md"

    def write_release(self, product: str, release: Release, source: str | None = None) -> bool:
        """Write one release file (temp file + rename); False when it is already there as is."""
        path = self.release_path(product, release.version)
        text = render_release(product, release, source)
        if path.exists() and path.read_text(encoding="utf-8", errors="replace") == text:
            return False
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
        return True

    def import_changelog(self, product: str, text: str, fmt: str = "auto", source: str | None = None) -> dict[str, int]:
        """Split a whole changelog (markdown, rst, debian) into release files; a version
        written twice is one release holding both bodies (`merged` counts the second ones:
        each wrote over the first, and its changes were lost)."""
        found = split_releases(text, fmt)
        releases: dict[str, Release] = {}
        for release in found:
            if (first := releases.get(release.version)) is not None:
                release = replace(first, body=f"{first.body}\n\n{release.body}", date=first.date or release.date)
            releases[release.version] = release
        written = sum(self.write_release(product, r, source) for r in releases.values())
        return {"releases": len(releases), "written": written, "merged": len(found) - len(releases)}

    def ingest(self, embed: bool = False, progress: Callable[[str, int, int], None] | None = None) -> IndexReport:
        """Index the release files (unchanged files are skipped) and cache the synergies; a
        synergy file that cannot be read is left out and named in the report's errors. With
        `embed` and a model, new and changed changes are embedded too (the CLI's import, fetch
        and ingest: without vectors, a search by meaning found no change and hybrid was
        keyword alone); a read that ingests first to be current does not wait for that."""
        source = self.source()
        report = self.index.index([source.name], progress=progress, embed=embed)[source.name]
        from mindex.changelog.synergies import cache_synergies

        report.errors += [f"synergy {problem}; fix the file and run `mindex changelog ingest`"
                          for problem in cache_synergies(self.index, self.folder / "synergies")]
        return report

    # -- reading ----------------------------------------------------------------------------

    def _facets(self, products: tuple[str, ...] = (), kinds: tuple[str, ...] = (), entities: tuple[str, ...] = (),
                since: Bound = Bound(), until: Bound = Bound()) -> Facets:
        for kind in kinds:
            if kind not in KINDS:
                raise ConfigError(f"unknown change kind {kind!r}; use one of: {', '.join(KINDS)}")
        until_vkey = until.vkey
        return Facets(types=tuple(kinds), products=tuple(products), entities=tuple(entities), since=since.at,
                      until=until.at, version_after=since.vkey, version_until=until_vkey)

    def search(self, query: str, limit: int = 10, products: tuple[str, ...] = (), kinds: tuple[str, ...] = (),
               since: Bound = Bound(), until: Bound = Bound(), entities: tuple[str, ...] = (),
               mode: str | None = None, decay: bool = True) -> SearchResult:
        """Changes by keyword, meaning or both; filters apply before top-k; newer releases rank
        up (half-life search.half_life_days.changelog, 180 days) unless `decay` is off."""
        self.source()
        facets = self._facets(products, kinds, entities, since, until)
        return self.index.search(query, limit, mode=mode, kind=KIND, facets=facets, decay_on=decay, merge=False)

    def changes(self, products: tuple[str, ...] = (), kinds: tuple[str, ...] = (), entities: tuple[str, ...] = (),
                since: Bound = Bound(), until: Bound = Bound(), limit: int = 5000) -> list[Hit]:
        """Changes passing the filters, oldest release first (by version, then date), in
        their order within a release."""
        hits = self.index.store.faceted_hits(KIND, self._facets(products, kinds, entities, since, until), limit)
        return sorted(hits, key=lambda h: (str((h.facets or {}).get("product")), (h.facets or {}).get("vkey") or "",
                                           h.path, h.start_line or 0))

    def since(self, product: str, version: str, kinds: tuple[str, ...] = ()) -> list[Hit]:
        """Every change of `product` in releases after `version`, oldest first."""
        self._known(product)
        return self.changes((product,), kinds, since=Bound(vkey=key(version)))

    def entity(self, name: str, products: tuple[str, ...] = ()) -> list[Hit]:
        """Changes that name an entity, oldest first (the first is where it appeared)."""
        found = self.changes(products, entities=(name,))
        if not found and name.upper() == name:
            found = self.changes(products, entities=(name.strip("`"),))
        return sorted(found, key=lambda h: ((h.facets or {}).get("date") or "9999", (h.facets or {}).get("vkey") or ""))

    def release(self, product: str, version: str) -> dict[str, Any]:
        """One release: its date, url and changes in order."""
        self._known(product)
        wanted = key(version)
        rows = [h for h in self.index.store.faceted_hits(KIND, Facets(products=(product,), version_after=None,
                                                                      version_until=wanted), 5000)
                if (h.facets or {}).get("vkey") == wanted]
        if not rows:
            raise NotFoundError(f"no release {version} of {product}; see `mindex changelog since {product} 0` "
                                "for the versions there are")
        rows.sort(key=lambda h: h.start_line or 0)
        facets = rows[0].facets or {}
        return {"product": product, "version": facets.get("version"), "date": facets.get("date"),
                "url": facets.get("url"), "changes": [change_of(h) for h in rows]}

    def _known(self, product: str) -> None:
        if not (self.folder / "products" / product).is_dir():
            raise NotFoundError(f"no release notes of {product!r} yet; fetch them with `mindex changelog fetch {product}`"
                                " (`mindex changelog products` lists the names)")

    def catalog(self) -> list[dict[str, Any]]:
        """Every product mindex knows (the shipped registry, the project's
        `changelog/products.yaml` over it, and any imported without an entry), each with
        what is stored of it: the one list `changelog products` and its MCP tool show.

        Raises:
            ConfigError: the project's products file is not valid.
        """
        from mindex.changelog.registry import load_registry

        registry = load_registry(self.folder / "products.yaml")
        stored = self.stored_products()
        rows = [{**p.to_dict(), **stored.get(p.name, {"releases": 0, "changes": 0, "latest": None, "latest_date": None})}
                for p in registry.values()]
        return rows + [{"name": name, "strategy": None, "source": None, **info} for name, info in stored.items()
                       if name not in registry]

    def stored_products(self) -> dict[str, dict[str, Any]]:
        """Per product with release files: how many releases, the latest version and date."""
        out: dict[str, dict[str, Any]] = {}
        for _, path, meta in self.index.store.document_metadata(KIND):
            product = meta.get("product") or Path(path).parts[1]
            item = out.setdefault(product, {"releases": 0, "changes": 0, "latest": None, "latest_date": None, "_k": ""})
            item["releases"] += 1
            item["changes"] += int(meta.get("changes") or 0)
            if (meta.get("vkey") or "") > item["_k"]:
                item.update(latest=meta.get("version"), latest_date=meta.get("date"), _k=meta.get("vkey") or "")
        for item in out.values():
            item.pop("_k")
        return out

"""Fetch release notes: one small strategy per kind of source behind one contract, an
orchestrator that runs each product on its own (one failing never stops the others) within a
global time limit, and per-product markers so each run pulls only what is new.

Contract: `strategy(product, marker, ctx) -> Fetched` — the releases found (newest first, as
`Release`s with markdown bodies), the newest date or version seen, the validator (ETag) for
the next run, and whether the source said nothing changed.

- gh-releases: GitHub REST `GET /repos/{owner}/{repo}/releases`, 100 a page, following the
  `Link: rel="next"` header; `If-None-Match` with the last ETag (a 304 is "unchanged");
  stops at the first release not newer than the marker; drafts skipped, pre-releases unless
  `prereleases: true`; `GITHUB_TOKEN` sent when set, never logged; on a rate limit (403/429
  with `X-RateLimit-Remaining: 0` or `Retry-After`) it waits when the reset is within a
  minute, else fails that product with the reset time.
- rss / atom: RSS 2.0 items or Atom entries (stdlib XML, no external entities); the version
  is the first version-like word of the title, else the date; HTML bodies become markdown.
- raw-changelog / keep-a-changelog: one changelog file over HTTP (ETag), split into releases.
- html-scrape: CSS selectors from the registry (`release`, `version`, `date`, `body`) over
  the page; each release's HTML becomes markdown.
- catalog: MCP registries, paginated (official: `cursor`/`nextCursor`, both the current and
  the 2025 page shapes; Smithery: `page`/`totalPages`); servers published on one day become
  one release dated that day, one change per server.
- playwright: client-rendered pages through a headless Chromium (optional: the `playwright`
  package and a Chromium named by `changelog.chromium`); without them, a clear error.
"""

from __future__ import annotations

import os
import random
import re
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import urljoin, urlsplit

import httpx

from mindex.changelog.parse import Release, parse_date, split_releases
from mindex.changelog.registry import Product
from mindex.changelog.versions import clean, key, looks_like_version
from mindex.errors import ConfigError, DependencyMissingError, RemoteError
from mindex.fetch.http import capped

if TYPE_CHECKING:
    from mindex.config import ChangelogSettings
    from mindex.engine import Engine
    from mindex.store.sqlite import SQLiteStore

RETRY_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504})
MAX_BODY = 20 * 1024 * 1024


@dataclass
class Marker:
    """Where the last fetch of a product stopped."""

    newest: str | None = None  # ISO date, or a version
    etag: str | None = None


@dataclass
class Fetched:
    releases: list[Release] = field(default_factory=list)
    newest: str | None = None
    etag: str | None = None
    unchanged: bool = False
    note: str | None = None


@dataclass
class FetchResult:
    """One product's outcome, for the summary table."""

    product: str
    strategy: str
    status: str  # new, unchanged, failed
    new: int = 0
    detail: str | None = None
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"product": self.product, "strategy": self.strategy, "status": self.status, "new": self.new,
                "detail": self.detail, "seconds": round(self.seconds, 2)}


class Ctx:
    """What every strategy shares in one run: the client, the limits, the settings."""

    def __init__(self, settings: ChangelogSettings, since: date | None = None, deadline: float | None = None) -> None:
        self.settings = settings
        self.since = since
        self.deadline = deadline or time.monotonic() + settings.total_timeout
        self.client = self._new_client()
        self._stalled = False  # the watchdog closed the client under a request that would not end
        self._playwright: Any = None
        self.browser: Any = None  # one headless Chromium per run, started by the first playwright product

    def close(self) -> None:
        self.client.close()
        if self.browser is not None:
            self.browser.close()
        if self._playwright is not None:
            self._playwright.stop()

    def left(self) -> float:
        return self.deadline - time.monotonic()

    @staticmethod
    def _new_client() -> httpx.Client:
        return httpx.Client(follow_redirects=True, headers={"User-Agent": "mindex-changelog"})

    def _stall(self) -> None:
        """The watchdog: a request past its time limit while its status line and headers still
        trickle in (no body loop to notice) has its connection closed under it."""
        self._stalled = True
        self.client.close()

    def _fetch(self, url: str, headers: dict[str, str], seconds: float) -> httpx.Response | None:
        """One GET of at most `seconds` in all, however the server answers."""
        if self.client.is_closed:
            self.client = self._new_client()
        self._stalled = False
        watchdog = threading.Timer(seconds + 0.5, self._stall)
        watchdog.daemon = True
        watchdog.start()
        try:
            return capped(self.client, "GET", url, MAX_BODY, deadline=time.monotonic() + seconds, headers=headers,
                          timeout=seconds)
        finally:
            watchdog.cancel()

    def get(self, url: str, headers: dict[str, str] | None = None, what: str = "") -> httpx.Response:
        """GET with retries (429, 5xx, timeouts, dropped connections; Retry-After and GitHub's
        rate-limit reset honoured when near), within the run's deadline. A 304 is returned."""
        problem = ""
        conf = self.settings
        for attempt in range(conf.retries + 1):
            if self.left() <= 0:
                raise RemoteError(f"{what or _where(url)}: the fetch run's time limit (changelog.total_timeout) ran out")
            wait: float | None = None
            seconds = min(conf.timeout, max(1.0, self.left()))
            try:
                response = self._fetch(url, headers or {}, seconds)
            except httpx.TooManyRedirects:
                raise RemoteError(f"{what or _where(url)}: redirects in a loop (more than 20); check the product's "
                                  "URL in a browser") from None
            except httpx.TimeoutException:
                problem = f"no answer within {seconds:g} s"
            except httpx.TransportError as exc:
                problem = f"no answer within {seconds:g} s" if self._stalled else f"connection failed ({type(exc).__name__})"
            except (httpx.HTTPError, httpx.InvalidURL, RuntimeError) as exc:  # a bad encoding, a bad redirect, ...
                if self._stalled:  # the watchdog closed the client under the request
                    problem = f"no answer within {seconds:g} s"
                elif isinstance(exc, RuntimeError):
                    raise
                else:
                    raise RemoteError(f"{what or _where(url)}: {type(exc).__name__}: {exc}") from None
            else:
                if response is None:
                    raise RemoteError(f"{what or _where(url)}: the answer is over {MAX_BODY // 2**20} MiB; refused")
                if response.status_code < 400:
                    return response
                limited = _rate_limited(response)
                if limited is not None:
                    if limited > 60 or attempt == conf.retries:
                        reset = time.strftime("%H:%M", time.localtime(time.time() + limited))
                        raise RemoteError(f"{what or _where(url)}: rate limit reached (HTTP {response.status_code}); it "
                                          f"resets at {reset}; set GITHUB_TOKEN for a higher limit")
                    wait = limited
                elif response.status_code not in RETRY_STATUS:
                    raise RemoteError(f"{what or _where(url)}: HTTP {response.status_code} "
                                      f"{_reason(response)}")
                else:
                    problem = f"HTTP {response.status_code}"
                    wait = _retry_after(response)
            if attempt < conf.retries:
                if wait is None:
                    wait = random.uniform(0, min(30.0, conf.backoff * 2**attempt))
                time.sleep(max(0.0, min(wait, 60.0, self.left())))
        raise RemoteError(f"{what or _where(url)}: failed after {conf.retries + 1} attempts: {problem}")


def _where(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}{parts.path}"


def _reason(response: httpx.Response) -> str:
    try:
        body = response.json()
        message = body.get("message") if isinstance(body, dict) else None
        return f"({str(message)[:160]})" if message else ""
    except ValueError:
        return ""


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    try:
        return max(0.0, float(value)) if value else None
    except ValueError:
        return None


def _rate_limited(response: httpx.Response) -> float | None:
    """Seconds until a rate limit resets, when the answer is one."""
    if response.status_code not in (403, 429):
        return None
    after = _retry_after(response)
    if after is not None:
        return after
    if response.headers.get("x-ratelimit-remaining") == "0":
        try:
            return max(0.0, float(response.headers["x-ratelimit-reset"]) - time.time())
        except (KeyError, ValueError):
            return 3600.0  # no reset time given: do not wait for it
    return None


def _newer(day: date | None, marker: Marker, ctx: Ctx) -> bool:
    """Is a release of that date new for this run (after the marker and on/after --since)?"""
    if day is None:
        return True
    if ctx.since and day < ctx.since:
        return False
    if marker.newest and re.fullmatch(r"\d{4}-\d{2}-\d{2}", marker.newest):
        return day.isoformat() >= marker.newest  # the marker's own day again: a same-day release
    return True


# -- strategies ---------------------------------------------------------------------------------


def gh_releases(product: Product, marker: Marker, ctx: Ctx) -> Fetched:
    api = ctx.settings.github_api.rstrip("/")
    url: str | None = f"{api}/repos/{product.source}/releases?per_page=100"
    headers = {"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28"}
    token = os.environ.get("GITHUB_TOKEN")
    if token:
        headers["Authorization"] = f"Bearer {token}"
    prefix = str(product.options.get("tag_prefix") or "")
    keep_pre = bool(product.options.get("prereleases"))
    out = Fetched()
    pages = 0
    while url and pages < int(product.options.get("max_pages") or ctx.settings.max_pages):
        page_headers = dict(headers)
        if pages == 0 and marker.etag:
            page_headers["If-None-Match"] = marker.etag
        response = ctx.get(url, page_headers, f"GitHub releases of {product.source}")
        if response.status_code == 304:
            return Fetched(newest=marker.newest, etag=marker.etag, unchanged=True)
        if pages == 0:
            out.etag = response.headers.get("etag")
        items = _json(response, f"GitHub releases of {product.source}")
        if not isinstance(items, list):
            raise RemoteError(f"GitHub releases of {product.source}: expected a list, got {type(items).__name__}")
        stop = False
        for item in items:
            if not isinstance(item, dict) or item.get("draft"):
                continue
            if item.get("prerelease") and not keep_pre:
                continue
            tag = str(item.get("tag_name") or item.get("name") or "").strip()
            if not tag:
                continue
            version = clean(tag[len(prefix):] if prefix and tag.startswith(prefix) else tag)
            day = parse_date(str(item.get("published_at") or item.get("created_at") or "")[:10])
            if not _newer(day, marker, ctx):
                stop = True
                break
            out.releases.append(Release(version, day, str(item.get("body") or "").strip(),
                                        url=str(item.get("html_url") or "") or None))
        pages += 1
        url = None if stop else _next_link(response.headers.get("link"))
    out.newest = _newest(out.releases, marker)
    return out


def _next_link(header: str | None) -> str | None:
    for part in (header or "").split(","):
        m = re.match(r'\s*<([^>]+)>\s*;\s*rel="?next"?', part)
        if m:
            return m.group(1)
    return None


def _json(response: httpx.Response, what: str) -> Any:
    try:
        return response.json()
    except (ValueError, UnicodeDecodeError):
        raise RemoteError(f"{what}: the answer is not JSON (truncated or an error page)") from None


def _newest(releases: list[Release], marker: Marker) -> str | None:
    days = [r.date.isoformat() for r in releases if r.date]
    if days:
        return max([*days, *([marker.newest] if marker.newest and re.fullmatch(r"\d{4}-\d{2}-\d{2}", marker.newest)
                             else [])])
    return marker.newest


def feed(product: Product, marker: Marker, ctx: Ctx) -> Fetched:
    response = ctx.get(product.source, {"If-None-Match": marker.etag} if marker.etag else None, f"feed of {product.name}")
    if response.status_code == 304:
        return Fetched(newest=marker.newest, etag=marker.etag, unchanged=True)
    try:
        root = ET.fromstring(response.content)
    except ET.ParseError as exc:
        raise RemoteError(f"feed of {product.name}: not well-formed XML ({exc})") from None
    out = Fetched(etag=response.headers.get("etag"))
    atom = "{http://www.w3.org/2005/Atom}"
    items = root.findall(f"{atom}entry") if root.tag == f"{atom}feed" else root.findall("./channel/item")
    if not items and root.tag not in (f"{atom}feed", "rss"):
        raise RemoteError(f"feed of {product.name}: neither RSS nor Atom (root element <{root.tag}>)")
    for item in items:
        if root.tag == f"{atom}feed":
            title = (item.findtext(f"{atom}title") or "").strip()
            when = item.findtext(f"{atom}published") or item.findtext(f"{atom}updated")
            link_el = item.find(f"{atom}link[@rel='alternate']") or item.find(f"{atom}link")
            link = link_el.get("href") if link_el is not None else None
            body = item.findtext(f"{atom}content") or item.findtext(f"{atom}summary") or ""
        else:
            title = (item.findtext("title") or "").strip()
            when = item.findtext("pubDate") or item.findtext("{http://purl.org/dc/elements/1.1/}date")
            link = (item.findtext("link") or "").strip() or None
            body = item.findtext("{http://purl.org/rss/1.0/modules/content/}encoded") or item.findtext("description") or ""
        day = parse_date((when or "").strip()) if when else None
        if not _newer(day, marker, ctx):
            continue
        version = _version_in(title) or (day.isoformat() if day else title[:40] or "undated")
        markdown = html_to_markdown(body) if "<" in body else body
        heading = f"## {title}\n\n" if title and title != version else ""
        out.releases.append(Release(version, day, (heading + markdown).strip(), url=link))
    out.newest = _newest(out.releases, marker)
    return out


def _version_in(title: str) -> str | None:
    for word in re.findall(r"v?\d+(?:\.\d+)+(?:[-.][0-9A-Za-z]+)*", title):
        if looks_like_version(word):
            return clean(word)
    return None


def html_to_markdown(html: str) -> str:
    """HTML (a feed item, a page section, a release body) as markdown; tags stripped if the
    converter fails on it (replies are untrusted)."""
    import html as htmllib

    import html_to_markdown as h2m

    try:
        return str(h2m.convert(html).content or "").strip()
    except Exception:  # the converter's own error types vary by version
        return re.sub(r"[ \t]+", " ", htmllib.unescape(re.sub(r"<[^>]+>", " ", html))).strip()


def raw_changelog(product: Product, marker: Marker, ctx: Ctx) -> Fetched:
    response = ctx.get(product.source, {"If-None-Match": marker.etag} if marker.etag else None,
                       f"changelog of {product.name}")
    if response.status_code == 304:
        return Fetched(newest=marker.newest, etag=marker.etag, unchanged=True)
    text = response.content.decode("utf-8", errors="replace")
    releases = split_releases(text, str(product.options.get("format") or "auto"))
    if not releases:
        raise RemoteError(f"changelog of {product.name}: no release headings found (is format right?)")
    kept = [r for r in releases if _newer(r.date, Marker(), ctx)]
    versions = [r.version for r in kept]
    newest = max(versions, key=key) if versions else marker.newest
    return Fetched(kept, newest, response.headers.get("etag"))


def html_scrape(product: Product, marker: Marker, ctx: Ctx) -> Fetched:
    response = ctx.get(product.source, None, f"page of {product.name}")
    return _from_html(product, marker, ctx, response.content.decode(response.encoding or "utf-8", errors="replace"),
                      str(response.url))


def _from_html(product: Product, marker: Marker, ctx: Ctx, html: str, base: str) -> Fetched:
    from mindex.changelog.htmlsel import parse_html, select, text_of

    selectors = cast("dict[str, str]", product.options.get("selectors") or {})
    document = parse_html(html)
    out = Fetched()
    for element in select(document, selectors["release"]):
        version_el = next(iter(select(element, selectors["version"])), None) if selectors.get("version") else None
        title = text_of(version_el) if version_el is not None else ""
        date_el = next(iter(select(element, selectors["date"])), None) if selectors.get("date") else None
        when = (date_el.attrs.get("datetime") or text_of(date_el)) if date_el is not None else None
        day = parse_date(when) if when else None
        if day is None:
            day = parse_date(title)
        body_el = next(iter(select(element, selectors["body"])), element) if selectors.get("body") else element
        version = _version_in(title) or (day.isoformat() if day else None)
        if not version:
            continue
        if not _newer(day, marker, ctx):
            continue
        anchor = version_el.attrs.get("id") if version_el is not None else None
        out.releases.append(Release(version, day, html_to_markdown(body_el.html()),
                                    url=urljoin(base, f"#{anchor}") if anchor else base))
    if not out.releases and marker.newest is None:
        raise RemoteError(f"page of {product.name}: the selectors found no release (check `selectors` in the registry)")
    out.newest = _newest(out.releases, marker)
    return out


def catalog(product: Product, marker: Marker, ctx: Ctx) -> Fetched:
    registry = str(product.options.get("registry") or "official")
    servers: list[tuple[str, str, str, date | None]] = []  # (name, version, description, published day)
    pages = int(product.options.get("max_pages") or ctx.settings.max_pages)
    url: str | None = product.source
    for page in range(1, pages + 1):
        if url is None:
            break
        sep = "&" if "?" in url else "?"
        if registry == "smithery":
            target = f"{product.source}{sep}page={page}&pageSize=100"
        else:
            target = url if page > 1 else f"{url}{sep}limit=100"
        body = _json(ctx.get(target, {"Accept": "application/json"}, f"{product.name} catalog"), f"{product.name} catalog")
        if not isinstance(body, dict) or not isinstance(body.get("servers"), list):
            raise RemoteError(f"{product.name} catalog: expected an object with a `servers` list")
        for entry in body["servers"]:
            item = _server(entry, registry)
            if item and _newer(item[3], marker, ctx):
                servers.append(item)
        if registry == "smithery":
            total = (body.get("pagination") or {}).get("totalPages") or 1
            url = product.source if page < int(total) else None
        else:
            meta = body.get("metadata") or {}
            cursor = meta.get("nextCursor") or meta.get("next_cursor")
            url = str(httpx.URL(product.source, params={"limit": 100, "cursor": str(cursor)})) if cursor else None
    by_day: dict[date, list[str]] = {}
    for name, version, description, day in dict.fromkeys(servers):  # a server listed on two pages: once
        if day is None:
            continue
        text = " ".join(description.split())
        by_day.setdefault(day, []).append(f"- Published `{name}`" + (f" {version}" if version else "")
                                          + (f": {text}" if text else ""))
    releases = [Release(day.isoformat(), day, "\n".join(sorted(lines))) for day, lines in sorted(by_day.items(), reverse=True)]
    return Fetched(releases, _newest(releases, marker))


def _server(entry: Any, registry: str) -> tuple[str, str, str, date | None] | None:
    if not isinstance(entry, dict):
        return None
    if registry == "smithery":
        name = entry.get("qualifiedName") or entry.get("displayName")
        return (str(name), "", str(entry.get("description") or ""), parse_date(str(entry.get("createdAt") or "")[:10])) \
            if name else None
    nested = entry.get("server")
    server: dict[str, Any] = nested if isinstance(nested, dict) else entry  # 2025-09+ and 2025-05 shapes
    official = entry.get("_meta")
    meta: dict[str, Any] = (official.get("io.modelcontextprotocol.registry/official") or {}) \
        if isinstance(official, dict) else {}
    detail: dict[str, Any] = server.get("version_detail") or {}
    name = server.get("name")
    version = server.get("version") or detail.get("version") or ""
    when = meta.get("publishedAt") or meta.get("updatedAt") or detail.get("release_date") or ""
    return (str(name), str(version), str(server.get("description") or ""), parse_date(str(when)[:10])) if name else None


def playwright(product: Product, marker: Marker, ctx: Ctx) -> Fetched:
    try:
        from playwright.sync_api import sync_playwright  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        raise DependencyMissingError("playwright", "browser",
                                     f"{product.name}'s client-rendered page (and set changelog.chromium)") from None
    chromium = ctx.settings.chromium
    if not chromium or not os.path.exists(chromium):
        raise ConfigError(f"{product.name}: set changelog.chromium to a Chromium executable (now {chromium!r})")
    if ctx.browser is None:
        ctx._playwright = sync_playwright().start()
        ctx.browser = ctx._playwright.chromium.launch(executable_path=chromium, headless=True)
    page = ctx.browser.new_page()
    try:
        page.goto(product.source, timeout=ctx.settings.timeout * 1000)
        wait_for = product.options.get("wait_for") or product.options["selectors"]["release"]
        page.wait_for_selector(str(wait_for), timeout=ctx.settings.timeout * 1000)
        html = page.content()
    except Exception as exc:  # the browser's own errors (timeouts, navigation) name the cause
        raise RemoteError(f"{product.name}: the page did not render ({type(exc).__name__}: {str(exc)[:200]})") from None
    finally:
        page.close()
    return _from_html(product, marker, ctx, html, product.source)


STRATEGIES: dict[str, Callable[[Product, Marker, Ctx], Fetched]] = {
    "gh-releases": gh_releases, "rss": feed, "atom": feed, "raw-changelog": raw_changelog,
    "keep-a-changelog": raw_changelog, "html-scrape": html_scrape, "catalog": catalog, "playwright": playwright,
}


# -- the run ------------------------------------------------------------------------------------------


def _markers(store: SQLiteStore) -> dict[str, Marker]:
    return {p: Marker(n, e) for p, (n, e) in store.fetch_markers().items()}


def fetch_products(index: Engine, registry: dict[str, Product], names: Iterable[str], since: date | None = None,
                   progress: Callable[[str], None] | None = None, settings: ChangelogSettings | None = None,
                   ) -> list[FetchResult]:
    """Fetch each product (those named; else every product with release files already, or in
    the project's products file), write new release files, keep the markers. Returns one
    result per product; a failure is reported, not raised."""
    from mindex.changelog.book import Changelogs
    from mindex.config import ChangelogSettings

    names = list(dict.fromkeys(names))
    book = Changelogs(index)
    if not names:
        names = sorted(set(book.stored_products()) & set(registry))
        if not names:
            raise ConfigError("name the products to fetch (see `mindex changelog products`), e.g. "
                              "`mindex changelog fetch claude-code`; later runs fetch those again by default")
    unknown = [n for n in names if n not in registry]
    if unknown:
        raise ConfigError(f"unknown product {unknown[0]!r}; see `mindex changelog products` or add it with "
                          "`mindex changelog add-product`")
    store = cast("SQLiteStore", index.store)
    book.source()
    ctx = Ctx(settings or ChangelogSettings(), since)
    markers = _markers(store)
    results = []
    try:
        for n, name in enumerate(names, 1):
            product = registry[name]
            started = time.perf_counter()
            if progress:
                progress(f"[{n}/{len(names)}] {name} ({product.strategy})")
            marker = markers.get(name, Marker())
            try:
                fetched = STRATEGIES[product.strategy](product, marker, ctx)
                written = sum(book.write_release(name, r, product.strategy) for r in fetched.releases)
                status = "unchanged" if fetched.unchanged or written == 0 else "new"
                result = FetchResult(name, product.strategy, status, written,
                                     fetched.note or (f"newest {fetched.newest}" if fetched.newest else None))
                newest, etag = fetched.newest, fetched.etag
            except (RemoteError, ConfigError, DependencyMissingError, OSError) as exc:
                result = FetchResult(name, product.strategy, "failed", 0, str(exc))
                newest, etag = marker.newest, marker.etag
            result.seconds = time.perf_counter() - started
            store.save_marker(name, product.strategy, newest, etag, result.status, result.detail)
            results.append(result)
    finally:
        ctx.close()
    return results

"""Changelog knowledge: parsers on real changelogs in their native formats, ingest and queries
on a real index, the registry, and every fetch strategy against a real HTTP server replaying
recorded answers (origins and licences in tests/fixtures/changelog/ORIGIN.md)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from mindex import Index, IndexSettings
from mindex.changelog.fetch import fetch_products
from mindex.changelog.parse import classify, entities, split_changes, split_releases
from mindex.changelog.registry import Product, add_product, load_registry
from mindex.changelog.versions import compare, key
from mindex.config import ChangelogSettings, EmbedSettings
from mindex.errors import ConfigError
from mindex.models import Facets
from mindex.store.sqlite import SQLiteStore
from replayserver import Reply, pygithub_exchanges, replay

FIXTURES = Path(__file__).parent / "fixtures" / "changelog"
NATIVE = FIXTURES / "native"


@pytest.fixture
def ix(tmp_path: Path) -> Any:
    index = Index(tmp_path / ".mindex" / "index.db", IndexSettings(workers=1), embed=EmbedSettings(provider="none"))
    yield index
    index.close()


# -- parsers ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "releases", "changes", "first", "last"), [
    ("claude-code-CHANGELOG.md", 52, 399, ("2.1.240", None), ("0.2.21", None)),
    ("anthropic-sdk-python-CHANGELOG.md", 112, 518, ("0.121.0", date(2026, 8, 7)), ("0.39.0", date(2024, 11, 4))),
    ("aider-HISTORY.md", 169, 956, ("0.86.1", None), ("0.5.0", None)),
    ("keep-a-changelog-CHANGELOG.md", 16, 126, ("2.0.0", date(2026, 6, 7)), ("0.0.1", date(2014, 5, 31))),
    # 135: a "Misc" bullet of issue links alone (`#640 <url>`_, ...) is no change once read as links
    ("towncrier-NEWS.rst", 26, 135, ("24.8.0", date(2024, 8, 23)), ("15.0.0", None)),
    ("git-changelog.Debian", 47, 77, ("1:2.39.5-0+deb12u3", date(2025, 10, 7)), ("1:2.24.1-1", date(2019, 12, 10))),
    ("httpx-CHANGELOG.md", 77, 441, ("0.28.1", date(2024, 12, 6)), ("0.6.0", date(2019, 6, 21))),  # "6th December, 2024"
    ("attrs-CHANGELOG.md", 13, 124, ("24.2.0", date(2024, 8, 6)), ("20.1.0", date(2020, 8, 20))),
    ("black-CHANGES.md", 18, 176, ("24.10.0", None), ("23.3.0", None)),
    ("pip-NEWS.rst", 22, 271, ("24.3.1", date(2024, 10, 27)), ("22.2.2", date(2022, 8, 3))),
    ("structlog-CHANGELOG.md", 14, 82, ("24.4.0", date(2024, 7, 17)), ("21.2.0", date(2021, 10, 12))),
    ("setuptools-NEWS.rst", 41, 114, ("75.6.0", None), ("69.0.2", None)),
    ("pydantic-HISTORY.md", 19, 403, ("2.10.3", date(2024, 12, 3)), ("2.7.1", date(2024, 4, 23))),
    # AsciiDoc: `== 2.0.26 (2025-10-24) - @mojavelinux`, `Bug Fixes::` terms as sections
    ("asciidoctor-CHANGELOG.adoc", 8, 72, ("2.0.26", date(2025, 10, 24)), ("2.0.19", date(2023, 5, 17))),
])
def test_real_changelogs_split_into_releases_and_changes(name: str, releases: int, changes: int,
                                                         first: tuple[str, date | None], last: tuple[str, date | None]
                                                         ) -> None:
    found = split_releases((NATIVE / name).read_text(encoding="utf-8"))
    assert len(found) == releases
    assert sum(len(split_changes(r.body)) for r in found) == changes
    assert (found[0].version, found[0].date) == first and (found[-1].version, found[-1].date) == last


def test_a_keep_a_changelog_file_with_prose_sections_ordinal_dates_and_backticked_names(ix: Index) -> None:
    """httpx 0.28.1's CHANGELOG.md: "The deprecated `proxies` argument has now been removed."
    was `changed` (so `since --kind removed` missed it), "Bugfix: ..." too; "6th December,
    2024" was not a date (so a --since date found nothing); `verify` was not an entity."""
    from mindex.changelog.book import bound

    book = ix.changelog
    book.import_changelog("httpx", (NATIVE / "httpx-CHANGELOG.md").read_text())
    book.ingest()
    removed = [" ".join(h.text.split()) for h in book.since("httpx", "0.27.2", kinds=("removed",))]
    assert any("`proxies` argument has now been removed" in t for t in removed)
    assert any("`app` argument has now been removed" in t for t in removed)
    fixed = {" ".join(h.text.split())[:40] for h in book.since("httpx", "0.27.2", kinds=("fixed",))}
    assert "Bugfix: When passing `params={}`, always" in fixed and "Fix SSL case where `verify=False` togeth" in fixed
    assert book.release("httpx", "0.28.1")["date"] == "2024-12-06"
    recent = book.search("SSL verify", products=("httpx",), since=bound("2024-01-01", "--since"), limit=20)
    assert recent.hits and {h.facets["version"] for h in recent.hits} <= {"0.27.0", "0.27.1", "0.27.2", "0.28.0", "0.28.1"}  # type: ignore[index]
    verify = book.entity("verify", products=("httpx",))
    assert {h.facets["version"] for h in verify} >= {"0.28.0", "0.28.1"}  # type: ignore[index]
    assert any(h.facets["type"] == "deprecated" for h in verify)  # type: ignore[index]


def test_kinds_and_entities_on_samples() -> None:
    claude = {r.version: split_changes(r.body) for r in split_releases((NATIVE / "claude-code-CHANGELOG.md").read_text())}
    cost = claude["2.1.239"][0]
    assert cost.kind == "changed" and ("slash_command", "/cost") in cost.entities
    assert ("cli_flag", "--max-budget-usd") in cost.entities
    block = (NATIVE / "claude-code-CHANGELOG.md").read_text().split("## 2.1.239\n")[1].split("\n## ")[0]
    assert [c.kind for c in claude["2.1.239"]].count("fixed") == block.count("\n- Fixed ") == 38
    arn = next(c for c in claude["0.2.125"] if "Bedrock ARN" in c.text)
    assert arn.kind == "breaking" and ("env_var", "ANTHROPIC_MODEL") in arn.entities
    sdk = {r.version: split_changes(r.body) for r in
           split_releases((NATIVE / "anthropic-sdk-python-CHANGELOG.md").read_text())}
    assert [(c.kind, c.section) for c in sdk["0.121.0"][:3]] == [("added", "Features"), ("added", "Features"),
                                                                 ("removed", "Chores")]
    debian = split_releases((NATIVE / "git-changelog.Debian").read_text())
    cves = [c for c in split_changes(debian[0].body) if c.kind == "security"]
    assert [e for c in cves for e in c.entities] == [("cve", f"CVE-2025-{n}") for n in (27613, 46835, 48384, 48385)]
    attrs = {r.version: split_changes(r.body) for r in split_releases((NATIVE / "attrs-CHANGELOG.md").read_text())}
    evolve = next(c for c in attrs["24.1.0"] if "evolve()" in c.text)  # "doesn't accept": read alone, a fix
    assert (evolve.section, evolve.kind) == ("Backwards-incompatible Changes", "breaking")
    assert {c.kind for c in attrs["21.3.0"] if c.section == "Backward-incompatible Changes"} == {"breaking"}
    towncrier = split_releases((NATIVE / "towncrier-NEWS.rst").read_text())
    assert {c.section for c in split_changes(towncrier[0].body)} >= {"Features", "Bugfixes", "Deprecations and Removals"}
    # nested bullets carry their parent (a parent ending in `:` is their label, no change of
    # its own); a heading sets the kind; classification of bare text
    nested = split_changes("### Fixed\n\n- Parser:\n  - handles `a.b` keys\n  - reads CRLF\n- Crash on start\n")
    assert [c.text for c in nested] == ["Parser: handles `a.b` keys", "Parser: reads CRLF", "Crash on start"]
    assert {c.kind for c in nested} == {"fixed"} and ("config_key", "a.b") in nested[0].entities
    assert classify("BREAKING: drop Python 3.8") == "breaking" and classify("feat(api)!: new auth") == "breaking"
    assert classify("Deprecate the old flag") == "deprecated" and classify("Faster startup") == "performance"
    assert entities("see https://x.org/path/to and /compact, CVE-2024-1234, claude-opus-4-1, @scope/pkg") == (
        ("cve", "CVE-2024-1234"), ("slash_command", "/compact"), ("model_id", "claude-opus-4-1"),
        ("package", "@scope/pkg"))


def test_restructuredtext_inline_markup_is_read_as_markdown() -> None:
    """A towncrier changelog with Sphinx roles printed every change as raw markup:
    ``` ``code`` ```, `` :issue:`3924` ``, `` :user:`name` `` (an entity), `` `text <url>`_ ``,
    a link or literal wrapped onto the next line. Literals and roles naming code are now
    `code` (entities are found in them), links markdown links, :ref: its words, :issue:/:pr:
    `#N`, :user: `@name` (tox's `docs/changelog.rst`: overlined release headings too)."""
    releases = split_releases((NATIVE / "tox-changelog.rst").read_text(encoding="utf-8"))
    assert [(r.version, r.date) for r in releases[:2]] == [("4.58.0", date(2026, 7, 21)), ("4.57.2", date(2026, 7, 21))]
    assert releases[-1].version == "4.36.0"
    changes = {r.version: split_changes(r.body) for r in releases}
    first = changes["4.58.0"][0]
    assert first.text == "Test against Python 3.15 (beta) in CI and declare its classifier - by @gaborbernat. (#4001)"
    assert not any("gaborbernat" in value for _, value in first.entities)
    typeshed = " ".join(next(c for c in changes["4.53.1"] if "typeshed" in c.text).text.split())
    assert typeshed.startswith("Correct type annotations for `ArgumentParser.parse_args` and `parse_known_args` overrides "
                               "following [typeshed PR #15613](https://github.com/python/typeshed/pull/15613), which")
    errno = " ".join(next(c for c in changes["4.47.2"] if "File name too long" in c.text).text.split())
    assert "crash with `OSError: [Errno 36] File name too long` - by @yarikoptic. (#3847)" in errno
    derive = next(c for c in changes["4.56.0"] if "Derive" in c.text)
    assert " ".join(derive.text.split()).startswith("Derive virtualenv_spec automatically")  # :ref:`virtualenv_spec`
    assert ("identifier", "urlopen") in next(c for c in changes["4.53.1"] if "urlopen" in c.text).entities
    every = [c.text for found in changes.values() for c in found]
    assert not [t for t in every if re.search(r">`__?|(?<!`):[a-z]+:`|``", t)]  # `:pull:` in backticks is text
    assert split_changes("- Fixed :issue:`4000` with :pep:`517` (:pr:`12`)\n")[0].text == "Fixed :issue:`4000` with :pep:`517` (:pr:`12`)"  # markdown stays as written


def test_an_asciidoc_changelog_is_read_and_one_without_releases_says_so(tmp_path: Path) -> None:
    """Asciidoctor's CHANGELOG.adoc was read as no release, and `changelog import` said "0
    releases" and exit 0."""
    releases = split_releases((NATIVE / "asciidoctor-CHANGELOG.adoc").read_text(encoding="utf-8"))
    fixes = split_changes(releases[0].body)
    assert {(c.section, c.kind) for c in fixes} == {("Improvement", "changed"), ("Bug Fixes", "fixed")}
    assert any("xreflabel" in c.text for c in fixes if c.kind == "fixed")
    (tmp_path / ".git").mkdir()
    (tmp_path / "NOTES.md").write_text("Nothing here\n\nJust text.\n")
    done = subprocess.run([sys.executable, "-m", "mindex", "changelog", "import", "tool", "NOTES.md", "--json"],
                          cwd=tmp_path, capture_output=True, text=True, input="",
                          env={**os.environ, "MINDEX_EMBED__PROVIDER": "none"})
    error = json.loads(done.stdout)["error"]
    assert done.returncode == 1 and "no release found" in error["message"] and "--format" in error["hint"]


def test_versions_compare_by_their_scheme() -> None:
    order = ["0.4.0.dev1", "0.40", "0.40.1", "0.41", "1.0.0a1", "1.0.0b2", "1.0.0-rc.1", "1.0.0", "v1.0.1", "2.1.39",
             "2.1.240", "2024.11.3", "1:2.24.1-1"]
    assert sorted(reversed(order), key=key) == order
    assert compare("v0.40.0", "0.40") == 0 and compare("2.1.9", "2.1.10") < 0


# -- ingest and queries ----------------------------------------------------------------------------


def load_three(ix: Index) -> None:
    book = ix.changelog
    for product, name in (("claude-code", "claude-code-CHANGELOG.md"),
                          ("anthropic-sdk-python", "anthropic-sdk-python-CHANGELOG.md"), ("aider", "aider-HISTORY.md")):
        book.import_changelog(product, (NATIVE / name).read_text())
    book.ingest()


def test_ingest_then_since_entity_release_and_filtered_search(ix: Index) -> None:
    load_three(ix)
    book = ix.changelog
    report = book.ingest()
    assert report.added == 0 and report.unchanged == 52 + 112 + 169  # a second ingest is a no-op
    store = ix.store
    assert isinstance(store, SQLiteStore)
    for product in ("claude-code", "anthropic-sdk-python", "aider"):  # one transaction per product, even Aider's 169
        stamps = store.conn.execute("SELECT count(DISTINCT indexed_at), count(*) FROM documents "
                                    "WHERE path LIKE ?", (f"products/{product}/%",)).fetchone()
        assert stamps[0] == 1 and stamps[1] > 50, (product, stamps)
    since = book.since("anthropic-sdk-python", "0.119")
    assert {h.facets["version"] for h in since} == {"0.120.0", "0.120.1", "0.120.2", "0.121.0"}  # type: ignore[index]
    assert [h.facets["version"] for h in since][-1] == "0.121.0"  # type: ignore[index]  # oldest first
    breaking = book.since("claude-code", "0.2.100", kinds=("breaking",))
    assert breaking and all(h.facets["type"] == "breaking" for h in breaking)  # type: ignore[index]
    assert "0.2.125" in {h.facets["version"] for h in breaking}  # type: ignore[index]
    assert book.since("anthropic-sdk-python", "0.40", kinds=("breaking",)) == []  # "breaking change detection" is not one
    first = book.entity("ANTHROPIC_MODEL")
    assert [(h.facets["product"], h.facets["version"]) for h in first][:2] == [  # type: ignore[index]
        ("claude-code", "0.2.125"), ("claude-code", "2.1.236")]
    release = book.release("claude-code", "2.1.239")
    block = (NATIVE / "claude-code-CHANGELOG.md").read_text().split("## 2.1.239\n")[1].split("\n## ")[0]
    assert len(release["changes"]) == block.count("\n- ") == 59
    assert release["changes"][0]["entities"] == ["/cost", "--max-budget-usd"]
    found = book.search("automatic caching", products=("anthropic-sdk-python",))
    assert found.hits[0].facets["version"] == "0.83.0"  # type: ignore[index]
    from mindex.changelog.book import bound

    windowed = book.search("models", products=("anthropic-sdk-python",), since=bound("2026-07-01", "--since"), limit=50)
    assert windowed.hits and all(h.facets["date"] >= "2026-07-01" for h in windowed.hits)  # type: ignore[index]
    ranged = book.search("tool", products=("anthropic-sdk-python",), since=bound("0.100", "--since"),
                         until=bound("0.110.0", "--until"), limit=100)
    assert ranged.hits and all(compare("0.100", h.facets["version"]) < 0 <= compare("0.110.0", h.facets["version"])
                               for h in ranged.hits)  # type: ignore[index]
    with pytest.raises(ConfigError):
        bound("last tuesday", "--since")


# -- registry ----------------------------------------------------------------------------------------


def test_the_registry_ships_forty_products_and_merges_the_projects(tmp_path: Path) -> None:
    shipped = load_registry()
    assert len(shipped) >= 40 and {"claude-code", "anthropic-sdk-python", "aider", "cursor", "mcp-registry",
                                   "smithery", "windsurf", "github-copilot", "vscode-chat"} <= set(shipped)
    assert {p.strategy for p in shipped.values()} >= {"gh-releases", "rss", "raw-changelog", "html-scrape",
                                                      "playwright", "catalog"}
    mine = tmp_path / "products.yaml"
    mine.write_text("products:\n  claude-code: {tag_prefix: release-}\n  mylib: {strategy: gh-releases, source: me/mylib}\n")
    merged = load_registry(mine)
    assert merged["claude-code"].source == "anthropics/claude-code" and merged["claude-code"].options["tag_prefix"] == \
        "release-"
    assert merged["mylib"].origin == f"{mine}:3"
    for text, message in (
        ("products:\n  x:\n    strategy: ftp\n    source: a/b\n", f"{mine}:2: product x: unknown strategy 'ftp'"),
        ("products:\n  x: {strategy: rss}\n", f"{mine}:2: product x: missing source"),
        ("products:\n  x: {strategy: rss, source: a/b}\n", "needs an http(s) URL"),
        ("products: [\n", f"{mine}:2: not valid YAML"),
    ):
        mine.write_text(text)
        with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
            load_registry(mine)
    mine.write_bytes("products:\n  café: {strategy: rss, source: https://x/feed}\n".encode("latin-1"))
    with pytest.raises(ConfigError, match=f"{mine}: not UTF-8"):
        load_registry(mine)


def test_adding_a_product_to_a_broken_file_names_the_line_and_keeps_the_file(tmp_path: Path) -> None:
    mine = tmp_path / "products.yaml"
    mine.write_text("products:\n  x: [\n")
    with pytest.raises(ConfigError, match=f"{mine}:3: not valid YAML"):
        add_product(mine, "mylib", "gh-releases", "me/mylib")
    assert mine.read_text() == "products:\n  x: [\n"


# -- fetch strategies against a replaying server ----------------------------------------------------------


def settings(server_url: str, **extra: Any) -> ChangelogSettings:
    return ChangelogSettings(github_api=server_url, timeout=2.0, total_timeout=60.0, retries=2, backoff=0.01, **extra)


def github_pages(server: Any) -> None:
    pages = pygithub_exchanges(FIXTURES / "github" / "RequesterThrottleTestCase.testDeferRequests.txt")
    releases = [reply for path, reply in pages if "/releases" in path]
    not_modified = pygithub_exchanges(FIXTURES / "github" / "ConditionalRequestUpdate.testDidNotUpdate.txt")[0][1]
    etag = dict((k.lower(), v) for k, v in releases[0].headers)["etag"]

    def first(seen: Any) -> Reply:
        return not_modified if seen.headers.get("if-none-match") == etag else releases[0]

    server.route("/repos/PyGithub/PyGithub/releases?per_page=100", first)
    server.route("/repositories/3544490/releases?per_page=10&page=2", releases[1])
    server.route("/repositories/3544490/releases?per_page=10&page=3", releases[2])


def test_gh_releases_follows_links_then_answers_304_and_honours_rate_limits(ix: Index) -> None:
    registry = {"pygithub": Product("pygithub", "gh-releases", "PyGithub/PyGithub", options={"tag_prefix": "v"}),
                "limited": Product("limited", "gh-releases", "jacquev6/limited"),
                "busy": Product("busy", "gh-releases", "busy/repo")}
    limit = pygithub_exchanges(FIXTURES / "github" / "SpecificExceptions.testRateLimitExceeded.txt")[1][1]
    with replay() as server:
        github_pages(server)
        server.route("/repos/jacquev6/limited/releases?per_page=100", limit)
        server.route("/repos/busy/repo/releases?per_page=100",
                     Reply(429, [("Retry-After", "0")], b'{"message": "slow down"}'),
                     Reply(200, [("Content-Type", "application/json")], b"[]"))
        first = {r.product: r for r in fetch_products(ix, registry, ["limited", "pygithub", "busy"],
                                                      settings=settings(server.url))}
        assert first["pygithub"].status == "new" and first["pygithub"].new == 26  # 30, less 4 pre-releases
        assert first["limited"].status == "failed" and "rate limit reached (HTTP 403)" in (first["limited"].detail or "")
        assert first["busy"].status == "unchanged"  # retried after the 429, then an empty list
        ix.changelog.ingest()
        stored = ix.changelog.stored_products()["pygithub"]
        assert stored["releases"] == 26 and stored["latest"] == "1.55"
        again = fetch_products(ix, registry, ["pygithub"], settings=settings(server.url))[0]
        assert again.status == "unchanged" and again.new == 0
        assert server.seen[-1].headers.get("if-none-match", "").startswith('W/"ee105f8b')
        assert "authorization" not in server.seen[-1].headers  # no GITHUB_TOKEN here


@pytest.mark.parametrize(("reply", "message"), [
    (Reply(200, [("Content-Type", "application/json")], b'[{"tag_name": "v1", '), "not JSON"),
    (Reply(200, [("Content-Type", "application/json")], json.dumps([{"tag_name": "v1.0", "body": "x" * 400}]).encode(),
           truncate=True), "attempts"),
    (Reply(200, [], b"[]", delay=5), "no answer within 2 s"),
    (Reply(200, [], b"[]", drop=True), "connection failed"),
    (Reply(500, [], b"oops"), "HTTP 500"),
    (Reply(200, [("Content-Type", "application/json")], b'{"message": "a dict"}'), "expected a list"),
    (Reply(200, [("Content-Type", "application/json")], b'[{"tag_name": "v1", "body": "', endless=True),
     "the answer is over 20 MiB; refused"),
    # a redirect to itself: httpx's TooManyRedirects was a traceback that stopped every product
    (Reply(302, [("Location", "/repos/o/bad/releases?per_page=100")]), "redirects in a loop"),
    # a byte every 0.2 s, never silent for a whole per-read timeout: ran 127 s past both limits
    (Reply(200, [], b"[]", trickle=0.2), "no answer within 2 s"),
    (Reply(200, [], b'["x", ', trickle=0.2, trickle_body=True), "no answer within 2 s"),
])
def test_broken_answers_fail_one_product_with_the_cause(ix: Index, reply: Reply, message: str) -> None:
    registry = {"bad": Product("bad", "gh-releases", "o/bad"), "good": Product("good", "gh-releases", "o/good")}
    started = time.monotonic()
    with replay() as server:
        server.route("/repos/o/bad/releases?per_page=100", reply)
        server.route("/repos/o/good/releases?per_page=100",
                     Reply(200, [], json.dumps([{"tag_name": "v2.0", "published_at": "2026-01-02T00:00:00Z",
                                                 "body": "- Added things"}]).encode()))
        results = {r.product: r for r in fetch_products(ix, registry, ["bad", "good"], settings=settings(server.url))}
        time.sleep(0.2 if reply.endless else 0)  # the server notices the client has gone
        assert all(sent < 64 << 20 for sent in server.endless_sent)  # cut off near 20 MiB, not read to its end
    assert results["bad"].status == "failed" and message in (results["bad"].detail or "")
    assert results["good"].status == "new" and results["good"].new == 1
    # 3 tries of at most changelog.timeout (2 s) each, and the good product: far from the 60 s run limit
    assert time.monotonic() - started < 30


def test_raw_changelog_uses_etags_and_html_scrape_reads_selectors(ix: Index) -> None:
    history = (NATIVE / "aider-HISTORY.md").read_bytes()
    page = (FIXTURES / "release-15-13.html").read_bytes()
    with replay() as server:
        server.route("/aider/HISTORY.md", lambda seen: Reply(304, [("ETag", '"h1"')]) if
                     seen.headers.get("if-none-match") == '"h1"' else Reply(200, [("ETag", '"h1"')], history))
        server.route("/pg/release-15-13.html", Reply(200, [("Content-Type", "text/html; charset=utf-8")], page))
        registry = {
            "aider": Product("aider", "raw-changelog", f"{server.url}/aider/HISTORY.md", options={"format": "markdown"}),
            "postgresql": Product("postgresql", "html-scrape", f"{server.url}/pg/release-15-13.html", options={
                "selectors": {"release": "div.sect1", "version": "h2.title", "date": "p"}}),
        }
        first = {r.product: r for r in fetch_products(ix, registry, ["aider", "postgresql"], settings=settings(server.url))}
        assert first["aider"].new == 169 and first["postgresql"].new == 1
        assert fetch_products(ix, registry, ["aider"], settings=settings(server.url))[0].status == "unchanged"
    ix.changelog.ingest()
    pg = ix.changelog.release("postgresql", "15.13")
    assert pg["date"] == "2025-05-08" and len(pg["changes"]) > 30
    assert any("CVE-2025-4207" in c["entities"] for c in pg["changes"])


def test_catalog_pages_and_real_feeds(ix: Index) -> None:
    p1 = (FIXTURES / "registry-page-1.json").read_bytes()
    p2 = (FIXTURES / "registry-page-2.json").read_bytes()
    cursor = json.loads(p1)["metadata"]["next_cursor"]
    with replay() as server:
        server.route("/v0/servers?limit=100", Reply(200, [("Content-Type", "application/json")], p1))
        server.route(f"/v0/servers?limit=100&cursor={cursor}", Reply(200, [], p2))
        server.route("/releases.atom", Reply(200, [("Content-Type", "application/atom+xml"), ("ETag", '"a1"')],
                                             (FIXTURES / "feeds" / "io7m-changelog-releases.atom").read_bytes()))
        server.route("/changelog.rss", Reply(200, [("Content-Type", "application/rss+xml")],
                                             (FIXTURES / "feeds" / "axolotlsay-changelog.rss").read_bytes()))
        server.route("/broken.atom", Reply(200, [], b"<feed><entry>"))
        server.route("/not-a-feed.xml", Reply(200, [], b"<html><body>moved</body></html>"))
        server.route("/servers", Reply(200, [("Content-Type", "application/json")],
                                       (FIXTURES / "smithery-servers-example.json").read_bytes()))
        registry = {"mcp-registry": Product("mcp-registry", "catalog", f"{server.url}/v0/servers",
                                            options={"registry": "official"}),
                    "io7m-changelog": Product("io7m-changelog", "atom", f"{server.url}/releases.atom"),
                    "axolotlsay": Product("axolotlsay", "rss", f"{server.url}/changelog.rss"),
                    "broken": Product("broken", "rss", f"{server.url}/broken.atom"),
                    "moved": Product("moved", "rss", f"{server.url}/not-a-feed.xml"),
                    "smithery": Product("smithery", "catalog", f"{server.url}/servers", options={"registry": "smithery"}),
                    "windsurf": Product("windsurf", "playwright", f"{server.url}/x",
                                        options={"selectors": {"release": "article"}})}
        results = {r.product: r for r in fetch_products(ix, registry, list(registry), settings=settings(server.url))}
        assert results["mcp-registry"].new == 1 and results["io7m-changelog"].new == 11
        assert results["axolotlsay"].new == 11
        assert results["broken"].status == "failed" and "not well-formed XML" in (results["broken"].detail or "")
        assert results["moved"].status == "failed" and "neither RSS nor Atom" in (results["moved"].detail or "")
        assert results["windsurf"].status == "failed" and "changelog.chromium" in (results["windsurf"].detail or "")
        assert results["smithery"].new == 1  # five pages asked for (totalPages 5), one server
        assert [s.path for s in server.seen if s.path.startswith("/servers")] == [
            f"/servers?page={n}&pageSize=100" for n in range(1, 6)]
    ix.changelog.ingest()
    assert ix.changelog.release("smithery", "2023-01-01")["changes"][0]["text"] == (
        "Published `smithery-ai/fetch`: A server for fetching web content")
    day = ix.changelog.release("mcp-registry", "2025-05-16")
    assert [c["text"].split("`")[1] for c in day["changes"]][:2] == ["io.github.21st-dev/magic-mcp",
                                                                     "io.github.adfin-engineering/mcp-server-adfin"]
    assert len(day["changes"]) == 5
    io7m = ix.changelog.stored_products()["io7m-changelog"]
    assert io7m["latest"] == "4.0.0" and io7m["latest_date"] == "2017-11-03"
    assert ix.changelog.release("io7m-changelog", "3.0.2")["date"] == "2017-01-10"
    assert ix.changelog.stored_products()["axolotlsay"]["latest"] == "0.3.3"
    notes = ix.changelog.release("axolotlsay", "0.2.3")["changes"]
    assert any("faster npm package" in c["text"] for c in notes)


CLIENT_RENDERED = b"""<!doctype html><html><head><title>Changelog</title></head><body><div id="app">Loading</div>
<script>
const releases = [
  {v: "1.2.0", d: "2026-01-02", items: ["Added the /plan command", "Fixed a crash when MODEL_ID is unset"]},
  {v: "1.1.0", d: "2025-12-01", items: ["Deprecated the --legacy flag"]}];
setTimeout(() => {
  document.getElementById("app").innerHTML = releases.map(r =>
    `<article class="release"><h2 id="v${r.v}">Version ${r.v}</h2><time datetime="${r.d}">${r.d}</time>` +
    `<ul>${r.items.map(i => `<li>${i}</li>`).join("")}</ul></article>`).join("");
}, 300);
</script></body></html>"""


def test_playwright_reads_a_client_rendered_page_with_the_installed_chromium(ix: Index) -> None:
    import shutil

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    assert chromium, "the browser test needs Debian's chromium (apt-get install chromium); .ci/run installs it"
    with replay() as server:
        server.route("/changelog", Reply(200, [("Content-Type", "text/html")], CLIENT_RENDERED))
        server.route("/empty", Reply(200, [("Content-Type", "text/html")], b"<html><body>soon</body></html>"))
        product = Product("csr", "playwright", f"{server.url}/changelog", options={
            "selectors": {"release": "article.release", "version": "h2", "date": "time"}})
        plain = fetch_products(ix, {"csr": Product("csr", "html-scrape", product.source, options=product.options)},
                               ["csr"], settings=settings(server.url))[0]
        assert plain.status == "failed" and "found no release" in (plain.detail or "")  # only a browser sees them
        never = Product("never", "playwright", f"{server.url}/empty", options=product.options)
        results = {r.product: r for r in fetch_products(ix, {"never": never, "csr": product}, ["never", "csr"],
                                                        settings=settings(server.url, chromium=chromium))}
    assert results["never"].status == "failed" and "did not render" in (results["never"].detail or "")
    result = results["csr"]  # the same browser, after the failure
    assert result.status == "new" and result.new == 2, result.detail
    ix.changelog.ingest()
    release = ix.changelog.release("csr", "1.2.0")
    assert release["date"] == "2026-01-02" and release["url"].endswith("#v1.2.0")
    assert [(c["kind"], c["entities"]) for c in release["changes"]] == [("added", ["/plan"]), ("fixed", ["MODEL_ID"])]


# -- CLI ------------------------------------------------------------------------------------------------


def test_cli_import_embeds_the_changes_so_a_search_by_meaning_finds_them(tmp_path: Path) -> None:
    """`changelog import` (and fetch, ingest) indexed the changes without vectors: a search
    by meaning found none and hybrid was the keyword leg alone, until a `mindex index` or
    `mindex embed` the commands never mentioned. They now embed what they index."""
    (tmp_path / ".git").mkdir()

    def run(*args: str) -> Any:
        proc = subprocess.run([sys.executable, "-m", "mindex", *args, "--json"], cwd=tmp_path, capture_output=True,
                              text=True, input="", env={k: v for k, v in os.environ.items() if k != "MINDEX_EMBED__PROVIDER"})
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout)

    assert run("changelog", "import", "towncrier", str(NATIVE / "towncrier-NEWS.rst"))["changes_indexed"] == 135
    found = run("changelog", "search", "the program looks in parent folders for its settings file", "--mode", "semantic",
                "-n", "3")["results"]
    assert found and all(h["product"] == "towncrier" for h in found)
    assert any("traverse back up directories looking for the configuration file" in h["text"] for h in found)
    assert run("status")["vectors"] >= 135


def test_cli_import_queries_fetch_summary_and_synergies(tmp_path: Path) -> None:
    env = {**os.environ, "MINDEX_EMBED__PROVIDER": "none"}
    (tmp_path / ".git").mkdir()

    def run(*args: str, code: int = 0) -> Any:
        proc = subprocess.run([sys.executable, "-m", "mindex", *args, "--json"], cwd=tmp_path, env=env,
                              capture_output=True, text=True, input="")
        assert proc.returncode == code, proc.stderr
        return json.loads(proc.stdout)

    done = run("changelog", "import", "claude-code", str(NATIVE / "claude-code-CHANGELOG.md"))
    assert done["releases"] == 52 and done["changes_indexed"] == 399
    run("changelog", "import", "anthropic-sdk-python", str(NATIVE / "anthropic-sdk-python-CHANGELOG.md"))
    since = run("changelog", "since", "anthropic-sdk-python", "0.120.1")["changes"]
    assert {c["version"] for c in since} == {"0.120.2", "0.121.0"}
    none_of_kind = subprocess.run([sys.executable, "-m", "mindex", "changelog", "since", "anthropic-sdk-python",
                                   "0.120.1", "--kind", "security"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert none_of_kind.returncode == 0 and not none_of_kind.stdout  # the empty list says why, on stderr
    assert (f"no security change in anthropic-sdk-python after 0.120.1 ({len(since)} of other kinds; drop --kind "
            "to list them)") in none_of_kind.stderr
    assert run("changelog", "entity", "ANTHROPIC_MODEL")["changes"][0]["version"] == "0.2.125"
    hits = run("changelog", "search", "Bedrock proxy", "--product", "claude-code", "--kind", "fixed")["results"]
    assert hits and all(h["kind"] == "fixed" and h["product"] == "claude-code" for h in hits)
    # A reranker that is down: the answer says so in --json too (it was on stderr alone).
    env.update(MINDEX_SEARCH__RERANK__PROVIDER="http", MINDEX_SEARCH__RERANK__BASE_URL="http://127.0.0.1:9")
    skipped = run("changelog", "search", "Bedrock proxy", "--product", "claude-code")
    assert "rerank skipped" in skipped["note"] and skipped["results"]
    del env["MINDEX_SEARCH__RERANK__PROVIDER"], env["MINDEX_SEARCH__RERANK__BASE_URL"]
    products = {p["name"]: p for p in run("changelog", "products")["products"]}
    assert products["claude-code"]["releases"] == 52 and products["cursor"]["releases"] == 0
    missing = run("changelog", "since", "nope", "1.0", code=3)["error"]
    assert missing["code"] == "NOT_FOUND" and "changelog fetch nope" in missing["hint"]
    with replay() as server:
        server.route("/repos/o/lib/releases?per_page=100", Reply(500, [], b"down"))
        run("changelog", "add-product", "lib", "--strategy", "gh-releases", "--source", "o/lib")
        env.update(MINDEX_CHANGELOG__GITHUB_API=server.url, MINDEX_CHANGELOG__RETRIES="0")
        summary = run("changelog", "fetch", "lib", code=1)
    assert summary["results"][0]["status"] == "failed" and "HTTP 500" in summary["results"][0]["detail"]
    synergies = run("changelog", "synergies")["synergies"]
    assert len(synergies) >= 3
    one = run("changelog", "synergy", synergies[0]["name"])
    assert one["steps"] and one["evidence"]
    mine = tmp_path / ".mindex" / "changelog" / "synergies"
    mine.mkdir()
    (mine / "broken.md").write_text("---\ntitle: Half\nproducts: [aider\n---\nbody\n")
    (mine / "mine.md").write_text("---\ntitle: Mine\nproducts: [aider]\n---\nbody\n")
    ingested = run("changelog", "ingest")
    assert ingested["problems"] == ["synergy broken.md:3: front matter is not valid YAML; fix the file and run "
                                    "`mindex changelog ingest`"]
    assert {s["name"] for s in run("changelog", "synergies")["synergies"]} == {s["name"] for s in synergies} | {"mine"}


def test_every_shipped_synergy_is_backed_by_real_changes(ix: Index) -> None:
    load_three(ix)
    from mindex.changelog.synergies import get_synergy, list_synergies

    names = [s["name"] for s in list_synergies(ix)]
    assert len(names) >= 12
    from mindex.changelog.registry import load_registry

    registry = set(load_registry(None))
    for name in names:
        synergy = get_synergy(ix, name)
        assert synergy is not None and synergy["steps"] and set(synergy["products"]) <= registry, name
        evidence = synergy["evidence"]
        assert len(evidence) >= 2 and not [e["id"] for e in evidence if e.get("missing")], name
        assert {e["product"] for e in evidence} <= set(synergy["products"]), name
        for change in evidence:  # resolved inline: the change itself, as indexed
            found = ix.store.faceted_hits("changelog", Facets(ids=(change["id"],)), 1)[0]
            assert (change["version"], change["kind"], change["text"]) == (
                found.facets["version"], found.facets["type"], found.text)  # type: ignore[index]
            assert change["version"] in " ".join(synergy["steps"]), (name, change["version"])


def test_a_synergy_shows_its_evidence_as_the_changes_and_says_which_are_not_indexed(ix: Index) -> None:
    from mindex.changelog.synergies import get_synergy
    from mindex.ops.changelogs import Synergy
    from mindex.serve.changelogviews import evidence_lines, synergy_markdown

    ix.changelog.import_changelog("aider", (NATIVE / "aider-HISTORY.md").read_text())
    ix.changelog.ingest()
    synergy = get_synergy(ix, "thinking-budgets")
    assert synergy is not None
    lines = evidence_lines(synergy["evidence"])
    assert lines[0].startswith("aider 0.76.0 (added): Improved support for thinking") and "[1cc6bfa5745949d2]" in lines[0]
    missing = [line for line in lines if "not indexed" in line]
    assert missing and all(line.split(":")[0] in ("8b49d37eb0c7987a", "3232a977aaef53d4") for line in missing)
    assert "- aider 0.77.0 (added): Added `/think-tokens`" in synergy_markdown(Synergy(synergy), 4000)


def test_changelog_tools_through_a_real_mcp_client(tmp_path: Path) -> None:
    import anyio
    from mcp.client import Client

    from click.testing import CliRunner

    from mindex.config import Settings
    from mindex.serve.cli import cli as cli_main
    from mindex.serve.mcp_server import build_server

    settings = Settings()
    settings.embed.provider = "none"
    db = tmp_path / ".mindex" / "index.db"
    with Index(db, IndexSettings(workers=1), embed=EmbedSettings(provider="none")) as index:
        load_three(index)
    server = build_server(db, settings)

    async def main() -> None:
        async with Client(server) as client:
            products = await client.call_tool("changelog_products", {})
            listed = {p["name"]: p for p in products.structured_content["results"]}
            cli = CliRunner().invoke(cli_main, ["--db", str(db), "changelog", "products", "--json"])
            assert cli.exit_code == 0 and listed == {p["name"]: p for p in json.loads(cli.output)["products"]}
            assert {n for n, p in listed.items() if p["releases"]} == {"claude-code", "aider", "anthropic-sdk-python"}
            assert len(listed) >= 42  # the shipped registry too, as the CLI lists it (it said "none stored")
            assert "Known but not fetched" in products.content[0].text and "no release notes" not in products.content[0].text
            since = await client.call_tool("changelog_since", {"product": "anthropic-sdk-python", "version": "0.120.1"})
            assert {c["version"] for c in since.structured_content["results"]} == {"0.120.2", "0.121.0"}
            assert "**anthropic-sdk-python 0.120.2**" in since.content[0].text
            entity = await client.call_tool("changelog_entity", {"name": "ANTHROPIC_MODEL"})
            assert entity.structured_content["results"][0]["kind"] == "breaking"
            found = await client.call_tool("changelog_search", {"query": "prompt cache", "product": "claude-code",
                                                                "kinds": ["fixed"], "since": "2.1.236"})
            assert found.structured_content["results"] and all(
                compare(c["version"], "2.1.236") > 0 for c in found.structured_content["results"])
            release = await client.call_tool("changelog_release", {"product": "claude-code", "version": "2.1.240"})
            assert release.structured_content["results"][0]["text"] == "Bug fixes and reliability improvements"
            listed = await client.call_tool("changelog_synergies", {})
            name = listed.structured_content["results"][0]["name"]
            one = await client.call_tool("changelog_synergy", {"name": name})
            assert one.structured_content["results"][0]["evidence"]
            bad = await client.call_tool("changelog_since", {"product": "nope", "version": "1"})
            assert bad.is_error and "changelog fetch nope" in bad.content[0].text

    anyio.run(main)


def test_a_broken_release_file_is_skipped_with_its_line_and_the_rest_indexed(ix: Index) -> None:
    book = ix.changelog
    book.import_changelog("keep-a-changelog", (NATIVE / "keep-a-changelog-CHANGELOG.md").read_text())
    releases = book.folder / "products" / "keep-a-changelog" / "releases"
    (releases / "9.9.9.md").write_text("---\nproduct: keep-a-changelog\nversion: [unclosed\n---\n\n- Added x\n")
    (releases / "no-front-matter.md").write_text("- Added y\n")
    (releases / "binary.md").write_bytes(b"---\nproduct: p\nversion: 1\n---\n\n- \xff\xfe bytes\n")
    report = book.ingest()
    reasons = {s.path: s.reason for s in report.skipped}
    assert "front matter is not valid YAML" in reasons["products/keep-a-changelog/releases/9.9.9.md"]
    assert "no front matter" in reasons["products/keep-a-changelog/releases/no-front-matter.md"]
    assert report.added == 16 + 1  # the sixteen real releases, and the one with odd bytes (decoded, kept)
    assert ix.changelog.release("keep-a-changelog", "2.0.0")["changes"]


def test_an_undated_release_never_outranks_dated_ones_of_the_same_relevance(ix: Index) -> None:
    """Undated releases took their file's time (when they were fetched) and so recency 1.0:
    under decay they outranked every dated release that said the same thing."""
    book = ix.changelog
    book.import_changelog("tool", "# Changelog\n\n## 3.0.0\n\n- Faster zebra parsing.\n\n"
                                  "## 2.0.0 - 2025-06-01\n\n- Faster zebra parsing.\n\n"
                                  "## 1.0.0 - 2023-01-01\n\n- Faster zebra parsing.\n")
    book.ingest()
    flat = book.search("zebra parsing", products=("tool",), mode="keyword", decay=False).hits
    assert flat[0].facets["version"] == "3.0.0"  # type: ignore[index]  # a shorter context line: a hair ahead
    hits = {h.facets["version"]: h for h in book.search("zebra parsing", products=("tool",), mode="keyword").hits}  # type: ignore[index]
    ranked = sorted(hits, key=lambda v: -hits[v].score)
    assert ranked[0] == "2.0.0"  # the newest dated release, not the undated one
    undated, oldest = hits["3.0.0"].explain["recency"], hits["1.0.0"].explain["recency"]  # type: ignore[index]
    assert undated["undated"] and undated["factor"] == oldest["factor"] < hits["2.0.0"].explain["recency"]["factor"]  # type: ignore[index]


def test_restructuredtext_markup_of_any_length_is_read_in_linear_time() -> None:
    """A line of 20,000 `:a` before a backtick took 2.7 s (a role's name could hold colons,
    each tried again from every start); ten times as many would take some five minutes so."""
    text = "v1.0\n====\n\n- " + ":a" * 200_000 + "` done\n"
    (release,) = split_releases(text, "rst")
    assert split_changes(release.body)[0].text.endswith("` done")


def test_a_pre_release_written_after_a_space_is_its_own_release(ix: Index) -> None:
    """gson's changelog has `Version 1.3 beta1` to `beta3` before `Version 1.3`: the four were
    read as one version, 1.3, and three releases' notes were written over ("45 releases", 42
    files). A pre-release after a space is its own version (`1.3-beta3`, sorted before 1.3),
    and a version written twice is one release holding both bodies."""
    book = ix.changelog
    counts = book.import_changelog("gson", (NATIVE / "gson-CHANGELOG.md").read_text())
    assert counts == {"releases": 45, "written": 45, "merged": 0}
    book.ingest()
    assert [r.version for r in split_releases((NATIVE / "gson-CHANGELOG.md").read_text())][33:38] == [
        "1.4-BETA", "1.3", "1.3-beta3", "1.3-beta2", "1.3-beta1"]
    beta = book.release("gson", "1.3 beta2")  # as a person types it
    assert beta["version"] == "1.3-beta2" and beta["changes"]
    after = [h.facets["version"] for h in book.since("gson", "1.3-beta3")]  # type: ignore[index]
    assert "1.3" in after and "1.3-beta3" not in after and "1.3-beta1" not in after
    twice = book.import_changelog("tool", "## 2.0.0\n\n- Added zebras.\n\n## 2.0.0\n\n- Fixed lions.\n\n## 1.0.0\n\n- Began.\n")
    assert twice == {"releases": 2, "written": 2, "merged": 1}
    book.ingest()
    assert {c["text"] for c in book.release("tool", "2.0.0")["changes"]} == {"Added zebras.", "Fixed lions."}


def test_an_rdoc_history_with_labelled_bullets(ix: Index) -> None:
    """minitest's History.rdoc (`=== 6.0.4 / 2026-04-14`) was refused: "no release found in
    it". Its changes sit under labelled bullets (`* 7 bug fixes:`), which were changes of
    their own and gave their changes no kind; its code is RDoc's (`<tt>ENV["N"]</tt>`, read as
    the slash command `/tt`)."""
    text = (NATIVE / "minitest-History.rdoc").read_text()
    releases = split_releases(text)
    assert len(releases) == 159 and (releases[0].version, str(releases[0].date)) == ("6.0.4", "2026-04-14")
    six = split_changes(next(r for r in releases if r.version == "6.0.0").body)
    assert not [c for c in six if c.text.rstrip().endswith(":")]  # the labels are no changes
    kinds = {c.text.split(": ", 1)[1][:30]: c.kind for c in six if ": " in c.text}
    assert kinds["Deleted all use of Marshal for"] == "removed"  # `8 deaths in the family(!!):`: by its verb
    assert kinds["Plugin loading is now opt-in!"] == "breaking"  # `7 major (oft incompatible) changes:`
    assert kinds["Added minitest-server."] == "added"
    fixed = split_changes(next(r for r in releases if r.version == "6.0.2").body)
    assert len(fixed) == 7 and {c.kind for c in fixed} == {"fixed"}  # `7 bug fixes:`, though few say "fix"
    renamed = next(c for c in six if "options[:filter]" in c.text)
    assert "`options[:filter]`" in renamed.text and ("cli_flag", "--include") in renamed.entities
    assert not [e for c in six for e in c.entities if e[1] == "/tt"]
    assert ix.changelog.import_changelog("minitest", text)["releases"] == 159


def test_an_org_changelog(ix: Index) -> None:
    """magit's changelog (`* v4.7.0    2026-08-01`, Org) was refused, and in any format a
    heading `v4.7.0 2026-08-01` was read as version 2026-08-01 (the `v4.7.0 ` taken for a
    word before the version)."""
    text = (NATIVE / "magit-CHANGELOG.org").read_text()
    releases = split_releases(text)
    assert [(r.version, str(r.date)) for r in releases] == [
        ("4.7.0", "2026-08-01"), ("4.6.0", "2026-07-01"), ("4.5.0", "2026-01-01"), ("4.4.2", "2025-10-06"),
        ("4.4.1", "2025-10-06")]
    first = split_changes(releases[0].body)
    assert first[0].text.startswith("If the region marks a single commit, `magit-patch-create` now creates")
    renames = next(c for c in first if "--find-renames" in c.text)
    assert ("cli_flag", "--find-renames") in renames.entities and "`git diff`" in renames.text
    assert next(c for c in first if c.text.startswith("Added new command `magit-log-reflog`")).kind == "added"
    assert [r.version for r in split_releases("## v2.0.0 2024-05-01\n\n* Fixed a\n* Added b\n")] == ["2.0.0"]
    markdown = split_releases("# Changes\n\n## 1.1\n\n* 1.0 users: run the migration\n* Fixed b\n\n## 1.0\n\n* Began\n")
    assert [r.version for r in markdown] == ["1.1", "1.0"]  # bullets at column 0 are no Org headings
    assert ix.changelog.import_changelog("magit", text)["releases"] == 5


def test_a_heading_with_a_long_run_of_spaces_is_read_in_linear_time() -> None:
    """`* v1.0` then 40,000 spaces then a word took 34 s (the markdown heading pattern read its
    closing `#`s by backtracking, cubic; the not-yet-released check, quadratic); these, five
    times longer, would take hours so."""
    n = 200_000
    for text in ("* v1.0" + " " * n + "x\n\n- Fixed.\n\n* v0.9\n\n- Began.\n",
                 "## 1.0" + " " * n + "x ##\n\n- Fixed.\n\n## 0.9 " + " " * n + "(pending)\n\n- Soon.\n"):
        releases = split_releases(text)
        assert [r.version for r in releases] == (["1.0", "0.9"] if text.startswith("*") else ["1.0"])
        assert split_changes(releases[0].body)[0].text == "Fixed."
    assert [r.version for r in split_releases("## C#\n\n- a\n\n## 2.0 ##  \n\n- b\n")] == ["2.0"]


def test_a_version_whose_heading_says_it_is_not_out_is_no_release() -> None:
    """jsoup's `## 1.23.2 (pending)` was imported as its latest release; it is an Unreleased
    section by another name. A heading that only mentions the word later stays a release."""
    text = (
        "## 1.23.2 (pending)\n\n- Soon.\n\n## [1.6.0] (unreleased)\n\n- Later.\n\n## 1.5 - TBD\n\n- Maybe.\n\n"
        "## 1.4.0 (2023-12-01) Bug fixes for pending issues\n\n- Fixed.\n\n## 1.3.0\n\n- First.\n")
    assert [r.version for r in split_releases(text)] == ["1.4.0", "1.3.0"]

"""The web UI as a person uses it: `mindex ui` started as a real process on a project with
hostile files, driven in Debian's Chromium through Playwright, and probed with raw HTTP
requests an attacker would send (another Host, another Origin, no CSRF token)."""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

MINDEX = str(Path(sys.executable).with_name("mindex"))
HOSTILE = '<script>document.title="pwned"</script><img src=x onerror="document.title=\'pwned\'">'


class UI:
    """A running `mindex ui` and its project."""

    def __init__(self, project: Path, env: dict[str, str], *args: str) -> None:
        self.project, self.env = project, env
        self.log = open(project.parent / "ui-stderr.log", "a")  # a pipe nobody reads could fill and stall it
        self.process = subprocess.Popen([MINDEX, "ui", "--no-open", "--json", *args], cwd=project, env=env,
                                        stdout=subprocess.PIPE, stderr=self.log, text=True)
        lines = []
        while not lines or lines[-1] not in ("}\n", ""):  # --json prints one object once serving
            lines.append(self.process.stdout.readline())  # type: ignore[union-attr]
        assert lines[-1], (project.parent / "ui-stderr.log").read_text()
        self.url = json.loads("".join(lines))["url"]

    def get(self, path: str, **kw: Any) -> httpx.Response:
        return httpx.get(self.url.rstrip("/") + path, timeout=30, **kw)

    def post(self, path: str, **kw: Any) -> httpx.Response:
        return httpx.post(self.url.rstrip("/") + path, timeout=30, **kw)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=20)
        self.process.stdout.close()  # type: ignore[union-attr]
        self.log.close()


def cli(project: Path, env: dict[str, str], *args: str) -> str:
    done = subprocess.run([MINDEX, *args], cwd=project, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """Docs (one page hostile, one file named with markup), code that calls itself, memory,
    knowledge and a workflow; keyword-only, as the suite's other projects."""
    root = tmp_path_factory.mktemp("web")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MINDEX_")}
    env.update(MINDEX_CONFIG=str(root / "user-config.toml"), XDG_CACHE_HOME=str(root / "cache"),
               MINDEX_EMBED__PROVIDER="none", HOME=str(root / "home"), MINDEX_BACKGROUND="0")
    project = root / "project"
    (project / "docs").mkdir(parents=True)
    (project / "src").mkdir()
    (project / "docs" / "guide.md").write_text(
        "# Guide\n\n## Retries\n\nRetries back off exponentially with jitter, capped at thirty seconds.\n")
    (project / "docs" / "evil.md").write_text(f"# Evil {HOSTILE}\n\nThe zebracorn page {HOSTILE} ends here.\n")
    (project / "docs" / "x<img src=y onerror=alert(1)>.md").write_text("# Named\n\nA quagga lives in this file.\n")
    (project / "src" / "net.py").write_text(
        "def get(url):\n    return send(url)\n\n\ndef send(url):\n    return url\n\n\n"
        "class Client:\n    def fetch(self, url):\n        return get(url)\n\n\n"
        "def main():\n    return Client().fetch('http://x')\n")
    (project / "src" / "NOTES.md").write_text("# Notes\n\n## Caching\n\nThe wombat cache keeps a fetched page an hour.\n")
    # Form feeds (Emacs Lisp, GNU C, Python's email package), CRLF endings and one cp1252 byte
    (project / "src" / "paged.py").write_bytes(
        b"# Pages of one module\r\n\x0c\r\ndef first_page():\r\n    return 'caf\xe9'\r\n\x0c\r\n\x0c\r\n\r\n"
        b"def okapi_total(x):\r\n    \"\"\"Sum the okapi.\"\"\"\r\n    return x + 1\r\n")
    (project / "src" / "h").mkdir()
    for n in range(12):  # a name that a dozen definitions share
        again = "\n    def again(self):\n        return self.handle()\n" if n == 3 else ""
        (project / "src" / "h" / f"h{n}.py").write_text(f"class H{n}:\n    def handle(self):\n        return {n}\n{again}")
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    cli(project, env, "add", "docs")
    cli(project, env, "add", "src", "--kind", "code")
    cli(project, env, "index", "-q")
    cli(project, env, "memory", "save", "Retries use backoff capped at thirty seconds", "--type", "decision",
        "--tag", "http", "--file", "src/net.py")
    cli(project, env, "memory", "save", f"A hostile note {HOSTILE}", "--type", "insight")
    learned = json.loads(cli(project, env, "knowledge", "add", "learning", "Always add jitter to retries",
                             "--file", "src/net.py", "--json"))["id"]
    cli(project, env, "knowledge", "add", "mistake", "Retried without jitter", "--file", "src/net.py",
        "--led-to", learned)
    cli(project, env, "workflow", "create", "12", "feat/retries")
    return project, env


@pytest.fixture(scope="module")
def ui(project: tuple[Path, dict[str, str]]) -> Iterator[UI]:
    server = UI(*project)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    assert chromium, "the UI tests need Debian's chromium (apt-get install chromium); .ci/run installs it"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A page that records what would mean a hostile text ran, or the policy blocked ours."""
    page = browser.new_page()
    page.dialogs, page.console_errors = [], []  # type: ignore[attr-defined]
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))  # type: ignore[attr-defined]
    page.on("console", lambda m: m.type == "error" and page.console_errors.append(m.text))  # type: ignore[attr-defined]
    yield page
    page.close()


def entry_ids(project: Path, env: dict[str, str], kind: str) -> list[str]:
    listed = json.loads(cli(project, env, "memory", "list", "--type", kind, "--json"))["results"]
    return [e["id"] for e in listed]


def test_a_code_sources_prose_is_labelled_docs_as_the_docs_filter_finds_it(ui: UI) -> None:
    """A README or notes file inside a code source is read and ranked as docs, and `kind docs`
    finds it: its result says docs, not code (the JSON keeps the document's kind)."""
    shown = ui.get("/search?query=wombat+cache")
    assert shown.status_code == 200
    assert re.search(r'<span class="tag">docs</span>\s*src › NOTES\.md › Notes › Caching', shown.text)
    link = re.search(r'href="(/chunk/[0-9a-f]+)#', shown.text)
    assert link and '<span class="tag">docs</span>' in ui.get(link.group(1)).text
    code = ui.get("/search?query=fetch+url")
    assert re.search(r'<span class="tag">code</span>\s*src › ', code.text)


def test_search_finds_a_result_and_opens_it_in_its_file_with_lines_marked(ui: UI, page: Any) -> None:
    page.goto(ui.url + "search?query=exponentially")
    first = page.locator("li.hit").first
    assert "guide.md" in first.inner_text()
    assert first.locator("mark").count() >= 1  # the matched words, highlighted
    first.locator("a.title").click()
    page.wait_for_url(re.compile(r"/chunk/[0-9a-f]{16}"))
    assert page.locator("div.file .linenos").count() == 1
    assert "Retries back off exponentially" in " ".join(page.locator("div.file .hll").all_inner_texts())
    # `q` is `query`, as a browser's search keyword writes it
    page.goto(ui.url + "search?q=exponentially")
    assert "guide.md" in page.locator("li.hit").first.inner_text()
    assert page.locator("form input[name=query]").last.input_value() == "exponentially"
    # Filters are the search command's: kind=code finds code only.
    page.goto(ui.url + "search?query=fetch&kind=code")
    assert {t.strip() for t in page.locator("li.hit .crumb .tag").all_inner_texts()} == {"code"}


def test_a_chunk_is_shown_on_its_own_lines_of_its_file_whatever_ends_them(ui: UI) -> None:
    """A form feed is text inside its line, CRLF ends one line and a cp1252 file reads as
    cp1252, as the index numbers and decodes them: the marked lines are the chunk's, under
    the numbers grep gives (`str.splitlines` read each form feed as a line break)."""
    hit = re.search(r'href="(/chunk/[0-9a-f]+)#L-(\d+)"', ui.get("/search?query=okapi_total").text)
    assert hit and hit.group(2) == "8"
    page = ui.get(hit.group(1)).text
    code = page.split('<td class="code">', 1)[1].split("</td>", 1)[0]
    shown = {int(n): re.sub(r"<[^>]+>", "", part).rstrip("\n")
             for n, part in re.findall(r'<a id="L-(\d+)" name="L-\d+"></a>(.*?)(?=<a id="L-|</code>)', code, re.S)}
    marked = [n for n, part in re.findall(r'<a id="L-(\d+)" name="L-\d+"></a>(.*?)(?=<a id="L-|</code>)', code, re.S)
              if 'class="hll"' in part]
    assert [int(n) for n in marked] == [8, 9, 10]
    assert [html.unescape(shown[n]) for n in (1, 2, 3, 4, 8, 10)] == [
        "# Pages of one module", "\x0c", "def first_page():", "    return 'café'", "def okapi_total(x):",
        "    return x + 1"]
    assert "the file changed since" not in page


def test_hostile_text_and_file_names_show_as_text_and_never_run(ui: UI, page: Any) -> None:
    for path in ("search?query=zebracorn", "search?query=quagga", "memory", "search?query=hostile+note"):
        page.goto(ui.url + path)
        page.wait_for_load_state("networkidle")
        assert page.title() != "pwned" and not page.dialogs, path
        assert page.locator("img[src=x], img[src=y], main script").count() == 0, path
    page.goto(ui.url + "search?query=zebracorn")
    assert '<script>document.title="pwned"</script>' in page.locator("li.hit").first.inner_text()
    page.locator("li.hit a.title").first.click()
    page.wait_for_url(re.compile(r"/chunk/"))
    assert "<script>" in page.locator("div.file").inner_text() and page.title() != "pwned"
    page.goto(ui.url + "search?query=quagga")
    assert "x<img src=y onerror=alert(1)>.md" in page.locator("li.hit").first.inner_text()
    assert not page.dialogs
    answer = ui.get("/search?query=zebracorn")
    policy = answer.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy and "frame-ancestors 'none'" in policy
    assert answer.headers["x-content-type-options"] == "nosniff"


def test_a_memory_edited_in_the_browser_is_rewritten_in_the_journal_and_found_at_once(
        ui: UI, page: Any, project: tuple[Path, dict[str, str]]) -> None:
    root, env = project
    entry = entry_ids(root, env, "decision")[0]
    journal = next((root / ".mindex" / "memory").glob("*.md"))
    before = journal.read_text()
    page.goto(ui.url + "memory?type=decision")
    page.locator(f"a[href='/memory/{entry}']").first.click()
    page.fill("textarea[name=text]", "Retries use backoff capped at sixty seconds, with jitter")
    page.fill("input[name=tags]", "http, retries")
    page.locator("form.edit button").click()
    page.wait_for_url(re.compile(rf"/memory/{entry}\?saved=1"))
    assert "Saved to" in page.inner_text("main")
    after = journal.read_text()
    assert "capped at sixty seconds, with jitter" in after and "capped at thirty seconds" not in after
    assert after.count("<!-- mindex:memory ") == before.count("<!-- mindex:memory ")
    assert "tags: http, retries" in after
    found = json.loads(cli(root, env, "memory", "search", "sixty", "--mode", "keyword", "--json"))["results"]
    assert [r["id"] for r in found] == [entry]
    # A blank tags field that was sent removes the tags (a blank elsewhere means the default).
    csrf = re.search(r'name="csrf" value="([^"]+)"', ui.get(f"/memory/{entry}").text).group(1)  # type: ignore[union-attr]
    cleared = ui.post(f"/memory/{entry}/edit", data={"csrf": csrf, "tags": ""},
                      headers={"Origin": ui.url.rstrip("/")})
    assert cleared.status_code == 303 and "tags:" not in journal.read_text().split(entry)[1].split("<!--")[0]
    assert "capped at sixty seconds, with jitter" in journal.read_text()  # the text left as it was


def test_writes_need_the_pages_token_and_our_origin_and_a_host_of_ours(
        ui: UI, project: tuple[Path, dict[str, str]]) -> None:
    root, env = project
    entry = entry_ids(root, env, "insight")[0]
    journal = next((root / ".mindex" / "memory").glob("*.md"))
    before = journal.read_bytes()
    no_token = ui.post(f"/memory/{entry}/forget", data={})
    assert no_token.status_code == 403 and "token" in no_token.text
    csrf = re.search(r'name="csrf" value="([^"]+)"', ui.get(f"/memory/{entry}").text).group(1)  # type: ignore[union-attr]
    other_site = ui.post(f"/memory/{entry}/forget", data={"csrf": csrf}, headers={"Origin": "https://evil.example"})
    assert other_site.status_code == 403 and "another site" in other_site.text
    assert journal.read_bytes() == before
    # A page on another site that resolves its own name to 127.0.0.1 (DNS rebinding) is refused.
    rebound = ui.get("/memory", headers={"Host": "evil.example"})
    assert rebound.status_code == 421 and "Retries" not in rebound.text
    too_big = ui.post(f"/memory/{entry}/edit", content=b"x" * (2 << 20),
                      headers={"content-type": "application/x-www-form-urlencoded"})
    assert too_big.status_code == 413
    assert journal.read_bytes() == before
    # Bad values get the same checks as on the other faces, said as such.
    bad = ui.post(f"/memory/{entry}/edit", data={"csrf": csrf, "type": "nope"})
    assert bad.status_code == 400 and "unknown memory type" in bad.text
    assert journal.read_bytes() == before


def test_the_impact_graph_and_the_knowledge_graph_are_drawn_and_clickable(ui: UI, page: Any) -> None:
    page.goto(ui.url + "impact?symbol=get&depth=2")
    page.wait_for_selector("#graph[data-drawn]")
    assert int(page.get_attribute("#graph", "data-drawn")) >= 4  # get, its callers and their files
    assert "net.py" in page.inner_text("main")
    page.goto(ui.url + "knowledge")
    page.wait_for_selector("#graph[data-drawn]")
    assert int(page.get_attribute("#graph", "data-drawn")) >= 4  # two entities, the file, its area
    assert not [e for e in page.console_errors if "Content Security Policy" in e and "script" in e]
    page.locator("table.rows a", has_text="Always add jitter to retries").click()
    page.wait_for_url(re.compile(r"/knowledge/k-"))
    assert "LED_TO" in page.inner_text("main") and "Retried without jitter" in page.inner_text("main")
    page.goto(ui.url + "code?name=get")
    assert "Client.fetch" in page.inner_text("main")  # a caller, with its confidence


def test_a_name_a_dozen_definitions_share_lists_them_and_each_opens_its_own_calls(ui: UI) -> None:
    listed = ui.get("/code?name=handle").text
    assert "More than 10 definitions share this name" in listed and "<h2>Callers</h2>" not in listed
    assert listed.count("<span class=\"tag\">method</span>") == 12
    link = re.search(r'href="/code\?(name=H3\.handle&amp;path=[^"]+)"', listed)
    assert link, listed
    own = ui.get("/code?" + link.group(1).replace("&amp;", "&")).text
    assert "<h2>Callers</h2>" in own and "H3.again" in own and "method of the enclosing class" in own
    assert "More than 10" not in own


def test_search_everything_filters_entries_by_type_tag_and_date(ui: UI, project: tuple[Path, dict[str, str]]) -> None:
    cli(*project, "memory", "save", "Retries reuse the pooled sockets", "--type", "reference", "--tag", "pool")
    everything = ui.get("/search?query=retries+pooled+sockets").text
    assert "guide.md" in everything and "sockets" in everything
    entries = ui.get("/search?query=retries+pooled+sockets&type=reference&tag=pool").text
    assert "sockets" in entries and "guide.md" not in entries  # docs carry no type
    assert "No results" in ui.get("/search?query=retries+pooled+sockets&type=reference&since=2999-01-01").text
    assert "No results" in ui.get("/search?query=retries+pooled+sockets&tag=nonexistent").text
    bad = ui.get("/search?query=retries&since=yesterdayish").text
    assert "is not a date" in bad
    listed = json.loads(cli(*project, "search", "retries pooled sockets", "--type", "reference", "--json"))["results"]
    assert listed and {hit["kind"] for hit in listed} == {"memory"}


def test_keyboard_focus_themes_and_200_percent_zoom(ui: UI, browser: Any) -> None:
    # 200% zoom on a 1280-pixel window lays the page out 640 CSS pixels wide
    page = browser.new_page(viewport={"width": 640, "height": 800}, device_scale_factor=2)
    try:
        for path in ("search?query=retries", "code?name=get", "impact?symbol=get", "memory", "context", "knowledge",
                     "workflows", "changelogs", "sources", "ops"):
            answer = page.goto(ui.url + path)
            assert answer is not None and answer.ok, path
            assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"), path
        page.goto(ui.url + "memory")
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.className") == "skip"
        assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") != "none"  # focus is seen
        page.keyboard.press("Enter")
        assert page.evaluate("document.activeElement.id") == "main"
        assert page.get_attribute("header nav a[href='/memory']", "aria-current") == "page"
        light = page.evaluate("getComputedStyle(document.body).backgroundColor")
        page.click("#theme")
        assert page.get_attribute("html", "data-theme") == "dark"
        dark = page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert dark != light
        page.reload()  # the choice is remembered
        assert page.get_attribute("html", "data-theme") == "dark"
        assert page.evaluate("getComputedStyle(document.body).backgroundColor") == dark
    finally:
        page.close()
    system_dark = browser.new_page(color_scheme="dark")
    try:
        system_dark.goto(ui.url + "search?query=retries")
        assert system_dark.evaluate("getComputedStyle(document.body).backgroundColor") == dark
    finally:
        system_dark.close()


def test_reindex_from_the_sources_page_shows_progress_until_done(ui: UI, page: Any) -> None:
    page.goto(ui.url + "sources")
    row = page.locator("tr", has_text="docs").first
    row.locator("button", has_text="Re-index").click()
    page.wait_for_url(re.compile(r"/jobs/[0-9a-f]+"))
    page.wait_for_selector("#progress[data-done=yes]", timeout=60_000)
    assert "Done. docs:" in page.inner_text("#progress")


def test_every_operation_has_a_web_form_with_the_parameters_of_its_other_faces(ui: UI) -> None:
    from mindex.serve.web.forms import web_operations

    ops = web_operations()
    assert {"search", "grep", "memory_edit", "memory_forget", "impact", "index_status"} <= set(ops)
    for tool, op in ops.items():
        form = ui.get(f"/op/{tool}")
        assert form.status_code == 200, tool
        names = set(re.findall(r'name="([a-z_]+)"', form.text)) - {"csrf", "run", "query"}
        expected = {p.name for p in op.params_on("web")} - {"query"}
        assert expected <= names, (tool, expected - names)
    ran = ui.get("/op/grep?pattern=def+send&run=1")
    assert ran.status_code == 200 and "net.py" in ran.text
    bad = ui.get("/op/grep?pattern=x&limit=lots&run=1")
    assert bad.status_code == 400 and "limit must be a whole number" in bad.text
    too_high = ui.get("/op/callers?symbol=get&min_confidence=7&run=1")
    assert too_high.status_code == 400 and "min_confidence must be 1 or less" in too_high.text


def test_read_only_and_off_loopback_servers(project: tuple[Path, dict[str, str]]) -> None:
    root, env = project
    server = UI(root, env, "--read-only")
    try:
        entry = entry_ids(root, env, "insight")[0]
        page = server.get(f"/memory/{entry}")
        assert "Read-only" in page.text and "form.edit" not in page.text and 'name="csrf"' not in page.text
        csrf = re.search(r'name="csrf" value="([^"]+)"', server.get("/op/memory_save").text)
        refused = server.post(f"/memory/{entry}/forget", data={"csrf": csrf.group(1) if csrf else ""})
        assert refused.status_code == 403
        assert entry in entry_ids(root, env, "insight")
    finally:
        server.stop()
    naked = subprocess.run([MINDEX, "ui", "--no-open", "--host", "0.0.0.0", "--json"], cwd=root, env=env,
                           capture_output=True, text=True, timeout=60)
    assert naked.returncode != 0 and "CONFIG_ERROR" in naked.stdout and "token" in naked.stdout
    guarded = UI(root, {**env, "MINDEX_TOKEN": "s3cret-token"}, "--host", "0.0.0.0")
    try:
        assert guarded.url.endswith("?token=s3cret-token")
        plain = guarded.url.split("?")[0].replace("0.0.0.0", "127.0.0.1")
        assert httpx.get(plain, timeout=30).status_code == 401
        assert httpx.get(plain, headers={"Authorization": "Bearer wrong"}, timeout=30).status_code == 401
        with httpx.Client(timeout=30) as browser_like:
            first = browser_like.get(plain + "?token=s3cret-token")
            assert first.status_code == 303 and "HttpOnly" in first.headers["set-cookie"]
            assert browser_like.get(plain + "search?query=retries").status_code == 200  # the cookie
    finally:
        guarded.stop()


def test_the_context_page_shows_what_the_session_start_hook_would_inject(ui: UI) -> None:
    shown = ui.get("/context")
    assert shown.status_code == 200
    assert "# Session context (mindex)" in shown.text and "Always add jitter to retries" in shown.text


def test_serve_http_with_ui_answers_the_ui_and_mcp_on_one_port(project: tuple[Path, dict[str, str]]) -> None:
    import socket
    import time

    root, env = project
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    log = open(root.parent / "serve-stderr.log", "w")
    server = subprocess.Popen([MINDEX, "serve", "--http", "--ui", "--port", str(port)], cwd=root, env=env,
                              stdout=subprocess.DEVNULL, stderr=log)
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                page = httpx.get(base + "/search?query=quagga", timeout=10)
                break
            except httpx.ConnectError:
                time.sleep(0.2)
        assert page.status_code == 200 and "quagga" in page.text
        assert "script-src 'self'" in page.headers["content-security-policy"]
        hello = httpx.post(base + "/mcp", timeout=30, headers={"accept": "application/json, text/event-stream"},
                           json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                               "protocolVersion": "2025-06-18", "capabilities": {},
                               "clientInfo": {"name": "t", "version": "1"}}})
        assert hello.status_code == 200 and '"serverInfo"' in hello.text and "mindex" in hello.text
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()
    assert "the UI is at http://127.0.0.1:" in (root.parent / "serve-stderr.log").read_text()


def test_an_index_on_read_only_storage_refuses_edits_with_a_clear_message(
        project: tuple[Path, dict[str, str]]) -> None:
    """The storage is read-only for real (a read-only bind mount in a private mount
    namespace, as tests/test_readonly.py does): pages read, an edit says INDEX_READ_ONLY and
    the journal is unchanged."""
    root, env = project
    entry = entry_ids(root, env, "insight")[0]
    journal = next((root / ".mindex" / "memory").glob("*.md"))
    before = journal.read_bytes()
    script = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"'
    log = open(root.parent / "ro-stderr.log", "w")
    server = subprocess.Popen(["unshare", "-rm", "sh", "-c", script, str(root / ".mindex"), MINDEX, "ui", "--no-open",
                               "--json"], cwd=root, env=env, stdout=subprocess.PIPE, stderr=log, text=True)
    try:
        lines = []
        while not lines or lines[-1] not in ("}\n", ""):
            lines.append(server.stdout.readline())  # type: ignore[union-attr]
        assert lines[-1], (root.parent / "ro-stderr.log").read_text()
        url = json.loads("".join(lines))["url"].rstrip("/")
        shown = httpx.get(f"{url}/memory/{entry}", timeout=30)
        assert shown.status_code == 200 and "A hostile note" in shown.text
        csrf = re.search(r'name="csrf" value="([^"]+)"', shown.text).group(1)  # type: ignore[union-attr]
        refused = httpx.post(f"{url}/memory/{entry}/edit", data={"csrf": csrf, "text": "changed"}, timeout=30)
        assert refused.status_code == 403 and "INDEX_READ_ONLY" in refused.text
    finally:
        server.terminate()
        server.wait(timeout=20)
        server.stdout.close()  # type: ignore[union-attr]
        log.close()
    assert journal.read_bytes() == before

"""Draw the screenshots of docs/ui.md and the README: `python docs/screenshots/make.py`.

Builds a small index in a temporary folder from this repository's own files (its docs as a docs
source, `src/mindex` as code), three changelogs from tests/fixtures/changelog (their origins and
licences are in that folder's ORIGIN.md), a few memory entries, knowledge entries and a
workflow; starts `mindex ui` on it and has Debian's Chromium (Playwright) draw each page at
1200 x 800, light theme, and the search page again in the dark one. Keyword search only, so it
runs without a model. Writes docs/screenshots/*.png.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
MINDEX = str(Path(sys.executable).with_name("mindex"))


def cli(project: Path, env: dict[str, str], *args: str) -> str:
    done = subprocess.run([MINDEX, *args], cwd=project, env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"mindex {' '.join(args)}: {done.stdout}{done.stderr}")
    return done.stdout


def build(root: Path) -> tuple[Path, dict[str, str]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MINDEX_")}
    env.update(MINDEX_CONFIG=str(root / "config.toml"), XDG_CACHE_HOME=str(root / "cache"), HOME=str(root / "home"),
               MINDEX_EMBED__PROVIDER="none")
    project = root / "mindex"
    shutil.copytree(REPO / "docs", project / "docs", ignore=shutil.ignore_patterns("screenshots"))
    shutil.copytree(REPO / "src" / "mindex", project / "src" / "mindex",
                    ignore=shutil.ignore_patterns("__pycache__", "static", "*.json"))
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    cli(project, env, "add", "docs")
    cli(project, env, "add", "src", "--kind", "code")
    native = REPO / "tests" / "fixtures" / "changelog" / "native"
    for product, name in (("httpx", "httpx-CHANGELOG.md"), ("black", "black-CHANGES.md"),
                          ("pydantic", "pydantic-HISTORY.md")):
        cli(project, env, "changelog", "import", product, str(native / name))
    cli(project, env, "index", "-q")
    for text, kind, tags, files in (
            ("MiniLM stays the one default model: e5 ranked memory lower inside mindex (0.442 against 0.450)",
             "decision", ["models"], ["src/mindex/embedding.py"]),
            ("Recency is a prior aged against the journal's own span, not the wall clock", "decision",
             ["ranking", "memory"], ["src/mindex/search.py"]),
            ("The code page lists a name shared by more than ten definitions instead of drawing every table",
             "progress", ["ui"], ["src/mindex/serve/web/pages.py"]),
            ("Chromium sends Origin: null under Referrer-Policy no-referrer; same-origin keeps CSRF checks working",
             "insight", ["ui", "security"], ["src/mindex/serve/web/app.py"]),
            ("Next: languages for issue 34 (Groovy, MATLAB, Objective-C, Vue)", "handoff", ["parsing"], [])):
        args = ["memory", "save", text, "--type", kind]
        for tag in tags:
            args += ["--tag", tag]
        for file in files:
            args += ["--file", file]
        cli(project, env, *args)
    learned = re.search(r'"id": "([^"]+)"', cli(project, env, "knowledge", "add", "learning",
                                                 "Resolve a call once for every definition sharing its name",
                                                 "--file", "src/mindex/graph.py", "--json")).group(1)  # type: ignore[union-attr]
    cli(project, env, "knowledge", "add", "mistake", "Resolved each call once per definition: 18 s pages",
        "--file", "src/mindex/graph.py", "--led-to", learned)
    cli(project, env, "knowledge", "add", "pattern", "Rank rows before making symbols of them",
        "--file", "src/mindex/graph.py")
    cli(project, env, "workflow", "create", "33", "feat/web-ui")
    return project, env


def shoot(url: str, out: Path) -> None:
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        raise SystemExit("needs Debian's chromium (apt-get install chromium)")
    pages = (("search", "search?query=recency+decay+half+life"),
             ("chunk", None),
             ("code", "code?name=CodeGraph.links"),
             ("impact", "impact?symbol=glob_match&depth=2"),
             ("memory", "memory"),
             ("knowledge", "knowledge"),
             ("workflows", "workflows"),
             ("changelogs", "changelogs?product=httpx&version=0.25.0"),
             ("sources", "sources"))
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, headless=True)
        page = browser.new_page(viewport={"width": 1200, "height": 800})
        page.goto(url + "search?query=recency+decay+half+life")
        chunk = page.locator("a[href^='/chunk/']").first.get_attribute("href")
        for name, path in pages:
            page.goto(url + (path or (chunk or "").lstrip("/")))
            if page.locator("#graph").count():
                page.wait_for_selector("#graph[data-drawn]")
            page.screenshot(path=str(out / f"{name}.png"))
        page.emulate_media(color_scheme="dark")
        page.goto(url + "search?query=recency+decay+half+life")
        page.screenshot(path=str(out / "search-dark.png"))
        browser.close()


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="mindex-shots-") as tmp:
        project, env = build(Path(tmp))
        ui = subprocess.Popen([MINDEX, "ui", "--no-open", "--json"], cwd=project, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            lines: list[str] = []
            while not lines or lines[-1] not in ("}\n", ""):  # --json prints one object once serving
                lines.append(ui.stdout.readline() if ui.stdout else "")
            url = json.loads("".join(lines))["url"]
            url = url if url.endswith("/") else url + "/"
            time.sleep(0.5)
            shoot(url, HERE)
        finally:
            ui.terminate()
            ui.wait(timeout=30)
    for png in sorted(HERE.glob("*.png")):
        print(f"{png.name}: {png.stat().st_size / 1024:.0f} KB")


if __name__ == "__main__":
    main()

"""The web UI's server time per page on a large index, and its graphs in a real browser.

    python benchmarks/bench_ui.py [--chunks 100000] [--memories 10000] [--rounds 20] [--no-vectors]

Builds (once, kept in benchmarks/.work/ui) an index of at least `--chunks` chunks: copies of
this machine's Python standard library (`/usr/lib/python3.*`, PSF licence) as a code source,
then `--memories` journal entries spread over twelve months (sentences of the standard
library's docstrings, six types, tags and files drawn at random, seeded) and 300 knowledge
entities that name its files (the knowledge graph for the drawing test), then embeds every
chunk with the default model unless `--no-vectors`. Then it starts `mindex ui` and asks each
page `--rounds` times with different values, reading the server's own time from the
`Server-Timing` header the UI sends (the time from the request's arrival to its answer's
first byte). Last, Debian's Chromium draws the largest impact graph and the knowledge graph
(up to 500 nodes), timing the drawing and the frames of a drag across the graph.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).parent.parent / "src"))
sys.path.insert(0, str(Path(__file__).parent))

from tables import pct  # noqa: E402

WORK = Path(__file__).parent / ".work" / "ui"
MINDEX = str(Path(sys.executable).with_name("mindex"))
TYPES = ("decision", "progress", "issue", "handoff", "insight", "reference")


def run(*args: str, cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run([MINDEX, *args], cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"mindex {' '.join(args)} failed: {done.stdout}{done.stderr}")
    return done.stdout


def stdlib() -> Path:
    found = sorted(Path("/usr/lib").glob("python3.*"))
    if not found:
        raise SystemExit("no /usr/lib/python3.* to copy")
    return found[-1]


def build(project: Path, env: dict[str, str], chunks: int, memories: int, vectors: bool) -> None:
    from mindex.memory import journal

    plain = {**env, "MINDEX_EMBED__PROVIDER": "none"}  # vectors come at the end, all at once
    tree = project / "code"
    lib = stdlib()
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    tree.mkdir(parents=True, exist_ok=True)
    copies = len(list(tree.iterdir()))  # a build stopped midway goes on from its copies
    while True:
        if (project / ".mindex" / "index.db").exists():
            run("index", "-q", cwd=project, env=plain)
            have = json.loads(run("status", "--json", cwd=project, env=plain))["chunks"]
            print(f"  {copies} copies: {have:,} chunks", file=sys.stderr)
            if have >= chunks:
                break
        target = tree / f"copy{copies}"
        target.mkdir()
        for path in lib.glob("*.py"):
            shutil.copy(path, target / path.name)
        copies += 1
        if not (project / ".mindex" / "index.db").exists():
            run("add", "code", "--kind", "code", cwd=project, env=plain)
    rng = random.Random(7)
    sentences = [s.strip() for path in sorted(lib.glob("*.py"))[:200]
                 for s in re.findall(r'"""(.{40,300}?)[."]', path.read_text(errors="replace"), re.S)]
    files = [f"code/copy0/{p.name}" for p in sorted(lib.glob("*.py"))]
    run("memory", "list", cwd=project, env=plain)  # registers the memory source
    start = datetime(2025, 11, 1, tzinfo=timezone.utc)
    by_month: dict[str, list[str]] = {}
    for k in range(memories):
        at = start + timedelta(seconds=rng.randrange(365 * 86400))
        entry = journal.Entry(journal.new_id(at), at, rng.choice(TYPES), " ".join(rng.sample(sentences, 2)),
                              tuple(rng.sample(("http", "cache", "tests", "parser", "ui", "db"), 2)),
                              (rng.choice(files),))
        by_month.setdefault(journal.journal_name(at), []).append(journal.render(entry))
    folder = project / ".mindex" / "memory"
    folder.mkdir(parents=True, exist_ok=True)
    for name, blocks in by_month.items():
        (folder / name).write_text("\n".join(blocks), encoding="utf-8")
    for k in range(300):
        kind = ("learning", "pattern", "mistake")[k % 3]
        run_args = ["knowledge", "add", kind, rng.choice(sentences), "--file", rng.choice(files[:60]),
                    "--area", f"code/area{k % 12}"]
        if k % 5 == 0:
            run_args += ["--issue", str(100 + k % 40)]
        run(*run_args, cwd=project, env=plain)
    run("index", "-q", cwd=project, env=plain)
    if vectors:
        started = time.perf_counter()
        run("embed", "-q", cwd=project, env=env)
        print(f"  embedded in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    (project / "built").write_text("ok")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--no-vectors", action="store_true")
    args = parser.parse_args()
    project = WORK / f"c{args.chunks}-m{args.memories}{'-kw' if args.no_vectors else ''}"
    env = {**os.environ, "MINDEX_CONFIG": str(WORK / "config.toml")}
    if args.no_vectors:
        env["MINDEX_EMBED__PROVIDER"] = "none"
    if not (project / "built").exists():
        shutil.rmtree(project / ".mindex" / "memory", ignore_errors=True)
        shutil.rmtree(project / ".mindex" / "knowledge", ignore_errors=True)
        project.mkdir(parents=True, exist_ok=True)
        build(project, env, args.chunks, args.memories, not args.no_vectors)
    status = json.loads(run("status", "--json", cwd=project, env=env))
    ui = subprocess.Popen([MINDEX, "ui", "--no-open", "--json"], cwd=project, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True)
    lines = []
    while not lines or lines[-1] not in ("}\n", ""):
        lines.append(ui.stdout.readline())  # type: ignore[union-attr]
    url = json.loads("".join(lines))["url"].rstrip("/")
    rng = random.Random(11)
    client = httpx.Client(timeout=120)
    try:
        words = ["socket timeout", "parse a date", "thread lock", "encode json", "read a zip file", "http header",
                 "temporary directory", "regular expression", "decimal rounding", "email address", "queue empty",
                 "path exists", "shutil copy tree", "csv writer", "base64 decode", "logging handler",
                 "random seed", "struct pack", "subprocess pipe", "gzip compress"]
        hits = client.get(url + "/op/search?" + str(httpx.QueryParams(query="socket", limit=50, run=1))).text
        chunk_ids = re.findall(r"/chunk/([0-9a-f]{16})", hits)
        symbols = ["open", "get", "close", "read", "write", "_check_closed", "join", "split", "parse", "format"]
        defined = []  # each name's first definition, for its own page (the name alone lists them)
        for symbol in symbols:
            html = client.get(url + "/code?" + str(httpx.QueryParams(name=symbol))).text
            defined.append(re.findall(r'href="/code\?name=[^&"]+&amp;path=([^"]+)"', html)[0].replace("%2F", "/").replace("%2B", "+"))
        listed = client.get(url + "/memory?limit=100")
        memory_ids = re.findall(r"/memory/(m-[0-9a-z-]+)", listed.text)
        if not memory_ids or not chunk_ids:
            raise SystemExit(f"no memory entries or chunks to ask for: {listed.status_code} {listed.text[:500]}")
        pages = {
            "home": lambda k: "/",
            "search (hybrid, everything)": lambda k: "/search?" + str(httpx.QueryParams(query=words[k % 20])),
            "search, kind=code": lambda k: "/search?" + str(httpx.QueryParams(query=words[k % 20], kind="code")),
            "a chunk in its file": lambda k: f"/chunk/{chunk_ids[k % len(chunk_ids)]}",
            "code: a name's definitions": lambda k: "/code?" + str(httpx.QueryParams(name=symbols[k % 10])),
            "code: one definition's callers, callees": lambda k: "/code?" + str(httpx.QueryParams(
                name=symbols[k % 10], path=defined[k % 10])),
            "impact graph": lambda k: "/impact?" + str(httpx.QueryParams(symbol=symbols[k % 10])),
            "memory timeline": lambda k: "/memory",
            "memory search": lambda k: "/memory?" + str(httpx.QueryParams(query=words[k % 20])),
            "memory, filtered (type, tag)": lambda k: "/memory?" + str(httpx.QueryParams(
                type=TYPES[k % 6], tag="cache")),
            "a memory entry": lambda k: f"/memory/{memory_ids[k % len(memory_ids)]}",
            "knowledge graph": lambda k: "/knowledge",
            "workflows": lambda k: "/workflows",
            "changelogs": lambda k: "/changelogs",
            "sources": lambda k: "/sources",
            "grep (a form)": lambda k: "/op/grep?" + str(httpx.QueryParams(pattern=f"def {symbols[k % 10]}\\(", run=1,
                                                                            limit=50)),
        }
        rows = []
        for name, path in pages.items():
            client.get(url + path(0))  # the first call of each page opens what it needs
            spent = []
            for k in range(args.rounds):
                answer = client.get(url + path(k + rng.randrange(1000)))
                assert answer.status_code == 200, (name, answer.status_code, answer.text[:300])
                spent.append(float(re.search(r"dur=([0-9.]+)", answer.headers["server-timing"]).group(1)))  # type: ignore[union-attr]
            rows.append((name, pct(spent, 50), pct(spent, 95), max(spent)))
        print(f"Index: {status['chunks']:,} chunks ({status['vectors']:,} vectors), {args.memories:,} memories, "
              f"{status['db_bytes'] / 1e6:,.0f} MB; {args.rounds} requests a page after one warm-up\n")
        print("| page | p50 | p95 | max |\n| --- | ---: | ---: | ---: |")
        for name, p50, p95, top in rows:
            print(f"| {name} | {p50:.1f} ms | {p95:.1f} ms | {top:.1f} ms |")
        graphs(url, symbols)
    finally:
        client.close()
        ui.terminate()
        ui.wait(timeout=30)


def graphs(url: str, symbols: list[str]) -> None:
    """Draw the biggest impact graph among the symbols and the knowledge graph in Chromium:
    time to draw, and frames during a two-second drag."""
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        print("\n(no chromium: graphs not drawn)")
        return
    print("\n| graph | nodes | drawn after | frames during a 2 s drag | slowest frame |\n| --- | ---: | ---: | ---: | ---: |")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, headless=True)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        sizes = []
        for symbol in symbols:
            page.goto(f"{url}/impact?symbol={symbol}&depth=2")
            sizes.append((int(page.get_attribute("#graph", "data-drawn") or 0) if page.locator("#graph").count()
                          else 0, symbol))
        for name, path in ((f"impact of {max(sizes)[1]}, depth 2", f"/impact?symbol={max(sizes)[1]}&depth=2"),
                           ("knowledge", "/knowledge")):
            started = time.perf_counter()
            page.goto(url + path)
            page.wait_for_selector("#graph[data-drawn]", timeout=120_000)
            drawn = time.perf_counter() - started
            nodes = int(page.get_attribute("#graph", "data-drawn") or 0)
            box = page.locator("#graph").bounding_box()
            page.evaluate("""() => { window.__frames = []; let last = performance.now();
                const tick = (t) => { window.__frames.push(t - last); last = t;
                  if (window.__frames.length < 1000) requestAnimationFrame(tick); };
                requestAnimationFrame(tick); }""")
            page.mouse.move(box["x"] + 50, box["y"] + 50)
            page.mouse.down()
            for step in range(60):
                page.mouse.move(box["x"] + 50 + step * 8, box["y"] + 50 + step * 4)
                page.wait_for_timeout(33)
            page.mouse.up()
            frames = page.evaluate("window.__frames")
            print(f"| {name} | {nodes} | {drawn * 1000:.0f} ms | {len(frames)} | {max(frames):.0f} ms |")
        browser.close()


if __name__ == "__main__":
    main()

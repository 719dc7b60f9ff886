"""Memory speed: save → searchable, memory search, get_context and rebuild at N entries.

    python benchmarks/bench_memory.py [--entries 10000] [--embed]

Builds a synthetic journal of N entries (12 months, 6 types, 40 tags, 200 files) and 2% as
many knowledge files in a temporary folder, indexes it keyword-only (no model: embedding
10k entries is a separate cost, see bench_speed.py), then times in process: a save until
its entry is found by search (p50 of 30), keyword memory search with and without filters
(p50/p95 of 50 queries), `context` for one file with no query (p50 of 30, no model), and
`rebuild` of everything; then, as whole processes (`mindex memory save`, then `mindex memory
search` for the saved word, keyword-only), save → found by the CLI (p50 of 10). With `--embed`
the entries are embedded with the packaged model first and hybrid memory search is timed too.
Prints a markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from mindex import Index, IndexSettings
from mindex.config import EmbedSettings, MemorySettings
from mindex.memory import journal
from mindex.memory.knowledge import Entity, render, slug

WORDS = ("cache retry token session schema index query lock migration parser worker budget timeout "
         "config embed vector fusion journal graph area file test fixture release deploy error").split()
TYPES = ("decision", "progress", "issue", "handoff", "insight", "reference")


def build(root: Path, n: int, rng: random.Random) -> None:
    memory = root / ".mindex" / "memory"
    memory.mkdir(parents=True)
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    blocks: dict[str, list[str]] = {}
    for i in range(n):
        at = start + timedelta(minutes=i * (330 * 24 * 60 // n))
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(12, 60)))
        entry = journal.Entry(f"m-{i:07d}", at, rng.choice(TYPES), text, (f"t{rng.randrange(40)}",),
                              (f"src/pkg{rng.randrange(10)}/f{rng.randrange(20)}.py",))
        blocks.setdefault(journal.journal_name(at), []).append(journal.render(entry))
    for name, items in blocks.items():
        (memory / name).write_text("\n".join(items))
    knowledge = root / ".mindex" / "knowledge" / "learning"
    knowledge.mkdir(parents=True)
    for i in range(max(1, n // 50)):
        text = " ".join(rng.choice(WORDS) for _ in range(30))
        entity = Entity(f"k-{i:06d}", "learning", text[:40], text, start, 0.7, (f"src/pkg{i % 10}",),
                        (f"src/pkg{i % 10}/f{i % 20}.py",))
        (knowledge / f"{slug(entity.title)}-{entity.id}.md").write_text(render(entity))


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--embed", action="store_true", help="embed the entries and time hybrid search too")
    args = parser.parse_args()
    rng = random.Random(7)
    hybrid: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        build(root, args.entries, rng)
        embed = EmbedSettings(provider="onnx") if args.embed else EmbedSettings(provider="none")
        with Index(root / ".mindex" / "index.db", IndexSettings(), embed=embed, memory=MemorySettings()) as ix:
            started = time.perf_counter()
            ix.memory.refresh()
            first = time.perf_counter() - started
            saves = []
            for i in range(30):
                word = f"uniqueword{i}"
                t0 = time.perf_counter()
                ix.memory.save(f"{word} saved during the benchmark", "progress", ["bench"], ["src/pkg1/f1.py"])
                assert ix.memory.search(word, mode="keyword").hits
                saves.append((time.perf_counter() - t0) * 1000)
            plain, filtered = [], []
            for _ in range(50):
                query = " ".join(rng.sample(WORDS, 3))
                t0 = time.perf_counter()
                ix.memory.search(query, mode="keyword")
                plain.append((time.perf_counter() - t0) * 1000)
                t0 = time.perf_counter()
                ix.memory.search(query, mode="keyword", types=("decision",), tags=(f"t{rng.randrange(40)}",),
                                 since=datetime(2026, 6, 1, tzinfo=timezone.utc).timestamp())
                filtered.append((time.perf_counter() - t0) * 1000)
            contexts = []
            for _ in range(30):
                t0 = time.perf_counter()
                ix.memory.context(files=(f"src/pkg{rng.randrange(10)}/f{rng.randrange(20)}.py",), budget=2000)
                contexts.append((time.perf_counter() - t0) * 1000)
            if args.embed:
                for _ in range(50):
                    query = " ".join(rng.sample(WORDS, 3))
                    t0 = time.perf_counter()
                    ix.memory.search(query, mode="hybrid")
                    hybrid.append((time.perf_counter() - t0) * 1000)
            t0 = time.perf_counter()
            ix.memory.rebuild()
            rebuild = time.perf_counter() - t0
        cli = cli_saves(root, 10)
        hooks = hook_starts(root, 20)
    print(f"| measure ({args.entries:,} entries, {max(1, args.entries // 50):,} knowledge files) | p50 | p95 |")
    print("| --- | --- | --- |")
    print(f"| first index of the journal and knowledge | {first:.2f} s | |")
    print(f"| save → found by search, in process | {statistics.median(saves):.1f} ms | {pct(saves, 0.95):.1f} ms |")
    print(f"| memory search, keyword | {statistics.median(plain):.1f} ms | {pct(plain, 0.95):.1f} ms |")
    print(f"| memory search, keyword, type + tag + since filters | {statistics.median(filtered):.1f} ms | "
          f"{pct(filtered, 0.95):.1f} ms |")
    print(f"| context for one file, no query (no model) | {statistics.median(contexts):.1f} ms | "
          f"{pct(contexts, 0.95):.1f} ms |")
    if hybrid:
        print(f"| memory search, hybrid (entries embedded, model loaded) | {statistics.median(hybrid):.1f} ms | "
              f"{pct(hybrid, 0.95):.1f} ms |")
    print(f"| rebuild | {rebuild:.2f} s | |")
    print(f"| save → found, as two CLI processes (save, then search) | {statistics.median(cli):.0f} ms | "
          f"{pct(cli, 0.95):.0f} ms |")
    print(f"| `mindex hook session-start`, whole process (git branch, workflow, 5 files in flight) | "
          f"{statistics.median(hooks):.0f} ms | {pct(hooks, 0.95):.0f} ms |")


def _env(root: Path) -> dict[str, str]:
    home = root / "home"
    return {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / "config"), "XDG_CACHE_HOME": str(home / "cache"),
            "XDG_DATA_HOME": str(home / "data"), "MINDEX_EMBED__PROVIDER": "none", "GIT_AUTHOR_NAME": "b",
            "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@b"}


def hook_starts(root: Path, n: int) -> list[float]:
    """Wall time of the session-start hook as Claude Code runs it: a process reading the hook
    JSON on stdin, in a git repository on an issue branch with a running workflow."""
    env = _env(root)
    exe = shutil.which("mindex") or sys.exit("mindex is not on PATH")
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "init"],
                 ["checkout", "-q", "-b", "feat/123-retry"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)
    for i in range(5):
        (root / f"src/pkg{i}").mkdir(parents=True, exist_ok=True)
        (root / f"src/pkg{i}/f{i}.py").write_text("x = 1\n")
    subprocess.run([exe, "workflow", "create", "123", "feat/123-retry"], cwd=root, env=env, check=True,
                   capture_output=True)
    payload = json.dumps({"session_id": "bench", "transcript_path": "", "cwd": str(root),
                          "hook_event_name": "SessionStart", "source": "startup"})
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        done = subprocess.run([exe, "hook", "session-start"], cwd=root, env=env, input=payload, capture_output=True,
                              text=True, check=True)
        times.append((time.perf_counter() - t0) * 1000)
        assert "Workflow wf-123" in json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"], done.stderr
    return times


def cli_saves(root: Path, n: int) -> list[float]:
    """Wall time of `mindex memory save` followed by `mindex memory search` finding it, keyword
    only (no model), with a home of its own."""
    env = _env(root)
    exe = shutil.which("mindex") or sys.exit("mindex is not on PATH")
    times = []
    for i in range(n):
        word = f"cliword{i}"
        t0 = time.perf_counter()
        subprocess.run([exe, "memory", "save", f"{word} from the CLI", "--type", "progress"], cwd=root, env=env,
                       check=True, capture_output=True)
        found = subprocess.run([exe, "memory", "search", word, "--mode", "keyword", "--json"], cwd=root, env=env,
                               check=True, capture_output=True, text=True)
        times.append((time.perf_counter() - t0) * 1000)
        assert json.loads(found.stdout)["results"], found.stderr
    return times


if __name__ == "__main__":
    main()

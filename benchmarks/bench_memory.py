"""Memory speed: save → searchable, memory search, get_context and rebuild at N entries.

    python benchmarks/bench_memory.py [--entries 10000]

Builds a synthetic journal of N entries (12 months, 6 types, 40 tags, 200 files) and 2% as
many knowledge files in a temporary folder, indexes it keyword-only (no model: embedding
10k entries is a separate cost, see bench_speed.py), then times in process: a save until
its entry is found by search (p50 of 30), keyword memory search with and without filters
(p50/p95 of 50 queries), `context` for one file with no query (p50 of 30, no model), and
`rebuild` of everything. Prints a markdown table.
"""

from __future__ import annotations

import argparse
import random
import statistics
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
    args = parser.parse_args()
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        build(root, args.entries, rng)
        with Index(root / ".mindex" / "index.db", IndexSettings(), embed=EmbedSettings(provider="none"),
                   memory=MemorySettings()) as ix:
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
            t0 = time.perf_counter()
            ix.memory.rebuild()
            rebuild = time.perf_counter() - t0
    print(f"| measure ({args.entries:,} entries, {max(1, args.entries // 50):,} knowledge files) | p50 | p95 |")
    print("| --- | --- | --- |")
    print(f"| first index of the journal and knowledge | {first:.2f} s | |")
    print(f"| save → found by search, in process | {statistics.median(saves):.1f} ms | {pct(saves, 0.95):.1f} ms |")
    print(f"| memory search, keyword | {statistics.median(plain):.1f} ms | {pct(plain, 0.95):.1f} ms |")
    print(f"| memory search, keyword, type + tag + since filters | {statistics.median(filtered):.1f} ms | "
          f"{pct(filtered, 0.95):.1f} ms |")
    print(f"| context for one file, no query (no model) | {statistics.median(contexts):.1f} ms | "
          f"{pct(contexts, 0.95):.1f} ms |")
    print(f"| rebuild | {rebuild:.2f} s | |")


if __name__ == "__main__":
    main()

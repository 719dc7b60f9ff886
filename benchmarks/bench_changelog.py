"""Changelog speed on the real fixtures (tests/fixtures/changelog/native: claude-code,
anthropic-sdk-python, Aider, Keep a Changelog, towncrier, git's Debian changelog): split into
release files, ingest (changes/s), a second ingest (a no-op), and query p50/p95 for search,
since, entity and release, keyword-only, in process.

    python benchmarks/bench_changelog.py [--copies 10]

`--copies N` ingests N copies of every product (as product-2, product-3, ...) for a larger store.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "src"))

from mindex import Index, IndexSettings  # noqa: E402
from mindex.config import EmbedSettings  # noqa: E402

NATIVE = HERE.parent / "tests" / "fixtures" / "changelog" / "native"
FILES = {"claude-code": "claude-code-CHANGELOG.md", "anthropic-sdk-python": "anthropic-sdk-python-CHANGELOG.md",
         "aider": "aider-HISTORY.md", "keep-a-changelog": "keep-a-changelog-CHANGELOG.md",
         "towncrier": "towncrier-NEWS.rst", "git": "git-changelog.Debian"}
QUERIES = ["prompt caching", "Bedrock proxy", "model selection", "MCP server reconnect", "breaking change",
           "repo map", "CVE", "timeout", "streaming", "plugin"]


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def timed(fn, runs: int = 30) -> list[float]:  # type: ignore[no-untyped-def]
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--copies", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        with Index(Path(tmp) / ".mindex" / "index.db", IndexSettings(), embed=EmbedSettings(provider="none")) as ix:
            book = ix.changelog
            t0 = time.perf_counter()
            for n in range(args.copies):
                for product, name in FILES.items():
                    book.import_changelog(product if n == 0 else f"{product}-{n + 1}", (NATIVE / name).read_text())
            split = time.perf_counter() - t0
            t0 = time.perf_counter()
            report = book.ingest()
            ingest = time.perf_counter() - t0
            t0 = time.perf_counter()
            book.ingest()
            again = time.perf_counter() - t0
            q = iter(QUERIES * 10)
            search = timed(lambda: book.search(next(q), mode="keyword"))
            filtered = timed(lambda: book.search(next(q), mode="keyword", products=("claude-code",), kinds=("fixed",)))
            since = timed(lambda: book.since("anthropic-sdk-python", "0.100"))
            entity = timed(lambda: book.entity("ANTHROPIC_MODEL"))
            release = timed(lambda: book.release("claude-code", "2.1.239"))
    changes = report.chunks
    print(f"| measure ({report.added:,} releases, {changes:,} changes) | p50 | p95 |")
    print("| --- | --- | --- |")
    print(f"| split changelog files into release files | {split:.2f} s | |")
    print(f"| ingest | {ingest:.2f} s ({changes / ingest:,.0f} changes/s) | |")
    print(f"| ingest again (nothing changed) | {again * 1000:.0f} ms | |")
    for label, values in (("search, keyword", search), ("search, keyword, product + kind filters", filtered),
                          ("since anthropic-sdk-python 0.100", since), ("entity ANTHROPIC_MODEL", entity),
                          ("release claude-code 2.1.239", release)):
        print(f"| {label} | {statistics.median(values):.2g} ms | {pct(values, 0.95):.2g} ms |")


if __name__ == "__main__":
    main()

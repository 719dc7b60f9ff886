"""Does a memory save cost the same at any journal size? CPU per `Memory.save` (p50 of 30,
in process, keyword-only) into a month's journal that holds 0, then N entries.

    python benchmarks/bench_save_growth.py [--entries 10000]
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent / "src"))

from mindex import Index, IndexSettings  # noqa: E402
from mindex.config import EmbedSettings, MemorySettings  # noqa: E402
from mindex.memory import journal  # noqa: E402


def cpu_ms() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return (usage.ru_utime + usage.ru_stime) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--entries", type=int, default=10000)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp())
    at = datetime(2026, 11, 2, tzinfo=timezone.utc)
    rows = []
    with Index(root / ".mindex" / "index.db", IndexSettings(workers=1), embed=EmbedSettings(provider="none"),
               memory=MemorySettings()) as ix:
        for size in (0, args.entries):
            if size:
                with open(root / ".mindex" / "memory" / "2026-11.md", "a", encoding="utf-8") as handle:
                    handle.write("".join("\n" + journal.render(journal.Entry(
                        journal.new_id(at), at, "progress", f"filler entry number {k} about caches", ("t",)))
                        for k in range(size)))
                ix.index(embed=False)
            spent = []
            for k in range(30):
                started = cpu_ms()
                ix.memory.save(f"measured save {size} {k}", "decision", at=at)
                spent.append(cpu_ms() - started)
            rows.append((size, sorted(spent)[len(spent) // 2]))
    print("| entries in the month | CPU per save, p50 |\n| ---: | ---: |")
    for size, ms in rows:
        print(f"| {size:,} | {ms:.2f} ms |")


if __name__ == "__main__":
    main()

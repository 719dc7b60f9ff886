"""A real second process holding an index's write lock, as a running indexer would."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def held_by_another_process(db: Path) -> Iterator[None]:
    """Hold `db`'s write lock in a child process until the block ends."""
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys, time\nfrom pathlib import Path\nfrom mindex.store.lock import WriteLock\n"
        "lock = WriteLock(Path(sys.argv[1]), 60)\nlock.__enter__()\nprint('held', flush=True)\ntime.sleep(60)\n"),
        str(db)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        yield
    finally:
        holder.kill()
        holder.wait()
        if holder.stdout is not None:
            holder.stdout.close()

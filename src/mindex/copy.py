"""`mindex copy`: move a whole index between backends (SQLite → PostgreSQL and back).

Table by table, parents first, in batches: each batch is read from the source in key order
and written to the target in one transaction that also records how far that table got
(`copy:<table>` in the target's schema_meta). A copy that dies is resumed by running the same
command again; a finished one clears those marks. Ids are kept, so chunk ids, vectors (keyed
by chunk hash) and the graph come out the same; the embedding model pin is copied with the
rest of schema_meta, so the target searches at once. A target that already holds an index is
refused unless `replace`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mindex.errors import ConfigError

Progress = Callable[[str, int, int], None]
BATCH = 5000


@dataclass
class CopyReport:
    """What one run of `copy` moved, per table, and whether it resumed an earlier run."""

    rows: dict[str, int] = field(default_factory=dict)
    resumed: bool = False
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"rows": self.rows, "resumed": self.resumed, "seconds": round(self.seconds, 2)}


def _open(target: Path | str, create: bool) -> Any:
    from mindex.config import db_target

    where = db_target(target)
    if isinstance(where, str):
        from mindex.store.postgres import PostgresStore

        return PostgresStore(where, create=create)
    from mindex.store.sqlite import SQLiteStore

    return SQLiteStore(where, create=create)


def copy_index(source: Path | str, target: Path | str, replace: bool = False, batch: int = BATCH,
               progress: Progress | None = None) -> CopyReport:
    """Copy every table of the index at `source` into `target` (a file path or a postgresql://
    URL); see the module docstring.

    Raises:
        ConfigError: source and target are the same, or the target holds another index.
        StoreError: either side cannot be opened.
    """
    import time

    from mindex.store.sqlite import COPY_TABLES

    started = time.perf_counter()
    if str(source) == str(target):
        raise ConfigError("--from and --to name the same index; give two different places")
    src = _open(source, create=False)
    dst = None
    try:
        dst = _open(target, create=True)
        marks = {t: dst.get_meta(f"copy:{t}") for t in COPY_TABLES}
        report = CopyReport(resumed=any(v is not None for v in marks.values()))
        if replace:
            dst.clear_all()
            marks, report.resumed = dict.fromkeys(COPY_TABLES), False
        elif not report.resumed and (dst.count_rows("sources") or dst.count_rows("documents")):
            raise ConfigError(f"{_name(target)} already holds an index; add --replace to overwrite it, or copy into "
                              "an empty database or a new file")
        for table in COPY_TABLES:
            mark = marks.get(table)
            if mark == "done":
                continue
            after = json.loads(mark) if mark else None
            total, done = src.count_rows(table), 0
            while True:
                rows = src.dump_rows(table, after, batch)
                if not rows:
                    break
                keys = len(_key_columns(table))
                after = list(rows[-1][:keys])  # the key columns lead each table's columns
                with dst.transaction() as db:
                    dst.load_rows(table, rows, db)
                    db.execute("INSERT OR REPLACE INTO schema_meta VALUES (?, ?)", (f"copy:{table}", json.dumps(after)))
                done += len(rows)
                report.rows[table] = report.rows.get(table, 0) + len(rows)
                if progress:
                    progress(table, done, total)
            dst.set_meta({f"copy:{table}": "done"})
        dst.copy_done()
        dst.set_meta({f"copy:{t}": None for t in COPY_TABLES})
        report.seconds = time.perf_counter() - started
        return report
    finally:
        src.close()
        if dst is not None:
            dst.close()


def _key_columns(table: str) -> tuple[str, ...]:
    from mindex.store.sqlite import copy_table

    return copy_table(table)[1]


def _name(target: Path | str) -> str:
    from mindex.store.postgres import redact

    return redact(str(target))

"""Opening an index file: the migrations, a look without opening, and the errors that
name why a file cannot be opened and what to do."""


from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from mindex.errors import (
    IndexLockedError,
    ReadOnlyIndexError,
    StoreError,
)


def _migrations() -> list[tuple[int, Path]]:
    """The numbered migration files, oldest first (their text is read only to migrate)."""
    folder = Path(__file__).parent.parent / "migrations"
    return sorted((int(name.split("_", 1)[0]), folder / name) for name in os.listdir(folder) if name.endswith(".sql"))


MIGRATIONS = _migrations()
SCHEMA_VERSION = MIGRATIONS[-1][0]


def peek(path: Path) -> tuple[int, list[tuple[str, str, str, float | None]]]:
    """(schema version, sources as (name, kind, root, indexed_at)) of an index file, read
    without migrating or locking it (what `mindex doctor` reports).

    Raises:
        sqlite3.DatabaseError: the file is not an index (empty, cut short, something else).
    """
    if empty_file(path):
        raise sqlite3.DatabaseError(f"it is empty (0 bytes), cut short or overwritten; {WAY_BACK}")
    with sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=2) as conn:
        row = conn.execute("SELECT value FROM schema_meta WHERE key = 'schema_version'").fetchone()
        sources = conn.execute("SELECT name, kind, root, indexed_at FROM sources ORDER BY name").fetchall()
    return (int(row[0]) if row else 0), sources


def read_only_file(path: Path) -> bool:
    """True when the index file (if any) or its folder cannot be written: a read-only file
    system, or permissions. WAL needs both: the file, and its folder for -wal and -shm."""
    folder = path.parent
    if not folder.exists():
        return False
    return not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK))


def wal_pending(path: Path) -> bool:
    """True when a -wal file holds pages not yet copied into the database (an unclean stop)."""
    try:
        return os.path.getsize(f"{path}-wal") > 0
    except OSError:
        return False


# The way back from a damaged index file: what is in it is derived, except the list of
# sources (registered again by hand) and nothing else (memory and knowledge are their files).
WAY_BACK = ("move it aside, register your folders again (`mindex add FOLDER` for each) and "
             "run `mindex index`; memory and knowledge come back from .mindex/memory and .mindex/knowledge with "
             "`mindex memory rebuild`")


def empty_file(path: Path) -> bool:
    """True for an index file of 0 bytes with no write-ahead log holding its pages."""
    try:
        return path.stat().st_size == 0 and not wal_pending(path)
    except OSError:
        return False


def open_failure(path: Path, exc: sqlite3.DatabaseError | None, read_only: bool) -> StoreError:
    """Say why a database could not be opened, with advice that never destroys a healthy one."""
    message = str(exc)
    if "not a database" in message or "malformed" in message:
        return StoreError(f"{path} is not a usable mindex index ({message}); {WAY_BACK}")
    if read_only and wal_pending(path):
        return ReadOnlyIndexError(
            f"cannot read {path}: it is read-only and its -wal file holds writes not yet merged; "
            "open it once where it is writable (any mindex command), then it reads anywhere"
        )
    if ("disk I/O error" in message or "full" in message) and 0 <= _free_bytes(path.parent) < 1 << 20:
        return StoreError(f"cannot open {path}: the disk holding it is full, and SQLite needs room beside the "
                          "index (its -wal and -shm files) even to read it; free some space and retry")
    need = "readable" if read_only else "readable and writable"
    return StoreError(f"cannot open {path} ({message}); check that the file and its folder are {need}")


def _free_bytes(folder: Path) -> int:
    """Room left for an unprivileged writer on the file system holding `folder` (-1: unknown)."""
    try:
        info = os.statvfs(folder)
    except OSError:
        return -1
    return info.f_bavail * info.f_frsize


def explain_open_error(exc: sqlite3.OperationalError, path: Path,
             then: str = "the index still holds every batch committed before this one. Free some space and "
                         "rerun `mindex index` to finish") -> Exception:
    """Turn SQLite's failures that users can fix into errors that say how; keep the rest.
    `then`: what the index holds now, and the next step."""
    message = str(exc)
    if "full" in message or "disk I/O error" in message:
        # A write past a file size limit (ulimit -f) reaches SQLite as an I/O error, a full disk as "full".
        cause = "is full" if "full" in message else "failed a write (a full or failing disk, or a file size limit)"
        return StoreError(f"the disk holding {path} {cause}; {then}")
    if "locked" in message or "busy" in message:
        return IndexLockedError(
            f"{path} stayed locked by another process past the timeout; "
            "wait for it to finish, or raise index.lock_timeout"
        )
    return exc

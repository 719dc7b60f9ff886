"""A cross-process write lock beside the database file, with the holder written inside.

SQLite's own lock only says "busy"; this one lets a second writer wait with a message and,
on timeout, tell the user which process holds the index and since when.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from types import TracebackType

from mindex.errors import IndexLockedError
from mindex.logs import get_logger

log = get_logger("mindex")

try:
    import fcntl
except ImportError:  # Windows: fall back to SQLite's busy timeout alone
    fcntl = None  # type: ignore[assignment]


class WriteLock:
    """Exclusive lock on `<db>.lock` (or `<db>.<what>.lock`); re-entrant within one object.
    `doing` says what a process waiting for it is waiting on."""

    def __init__(self, db_path: Path, timeout: float, what: str = "", doing: str = "writing") -> None:
        self.path = db_path.with_name(db_path.name + (f".{what}" if what else "") + ".lock")
        self.timeout = timeout
        self.doing = doing
        self._fd: int | None = None
        self._depth = 0

    def holder(self) -> str:
        """Describe the process that wrote the lock file last (best effort)."""
        try:
            info = json.loads(self.path.read_text() or "{}")
        except (OSError, ValueError):
            return "another process"
        if not isinstance(info, dict) or "pid" not in info:  # written by its holder a moment from now
            return "another process"
        since = time.strftime("%H:%M:%S", time.localtime(info.get("since", 0)))
        return f"pid {info.get('pid')} ({info.get('command', '?')}) since {since}"

    def acquire(self, timeout: float | None = None) -> None:
        """Take the lock, waiting up to `timeout` seconds (default: the lock's own; 0: one try).

        Raises:
            IndexLockedError: another process kept the lock past the timeout.
        """
        timeout = self.timeout if timeout is None else timeout
        self._depth += 1
        if self._depth > 1 or fcntl is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = time.monotonic() + timeout
        warned = False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    self._depth -= 1
                    raise IndexLockedError(
                        f"the index {self.path.with_suffix('')} is being written by {self.holder()}; "
                        f"wait for it to finish, or raise index.lock_timeout (now {timeout:g}s)"
                    ) from None
                if not warned:
                    log.warning("waiting for %s, which is %s this index", self.holder(), self.doing)
                    warned = True
                time.sleep(0.05)
        os.ftruncate(fd, 0)
        command = " ".join(os.path.basename(a) for a in sys.argv[:2]) or "python"
        os.write(fd, json.dumps({"pid": os.getpid(), "command": command, "since": time.time()}).encode())
        self._fd = fd

    def release(self) -> None:
        """Release one level of the lock; the file lock goes with the last."""
        self._depth -= 1
        if self._depth > 0 or self._fd is None:
            return
        assert fcntl is not None
        fcntl.flock(self._fd, fcntl.LOCK_UN)
        os.close(self._fd)
        self._fd = None

    def __enter__(self) -> WriteLock:
        self.acquire()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()

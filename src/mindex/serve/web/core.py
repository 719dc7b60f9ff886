"""The web UI's index, and where its templates and static files are."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from mindex.config import Settings
from mindex.index import Index

T = TypeVar("T")

STATIC = Path(__file__).with_name("static")
TEMPLATES = Path(__file__).with_name("templates")


class Core:
    """The UI's index, opened on first use; one call at a time (one connection), in a worker
    thread so the server keeps answering."""

    def __init__(self, db: Path | str, settings: Settings) -> None:
        self.db, self.settings = db, settings
        self._index: Index | None = None
        self._lock = threading.Lock()

    def open(self) -> Index:
        return Index.with_settings(self.db, self.settings)

    async def call(self, work: Callable[[Index], T]) -> T:
        from starlette.concurrency import run_in_threadpool

        def run() -> T:
            with self._lock:
                if self._index is None:
                    self._index = self.open()
                return work(self._index)

        return await run_in_threadpool(run)

    def close(self) -> None:
        with self._lock:
            if self._index is not None:
                self._index.close()
                self._index = None

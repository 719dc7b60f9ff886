"""Keep the index live: watch every source folder and re-index the ones that change.

File events (inotify on Linux, via `watchfiles`) are grouped: a burst of saves becomes one
update once the folder has been quiet for `quiet_ms`, or after `debounce_ms` at most. An
update is the ordinary incremental `index` of the touched sources, so creates, renames,
deletes, new folders and ignore rules all behave exactly as in `mindex index`, and unchanged
files cost a stat. Every `reconcile_s` seconds all sources are reconciled whether or not an
event came, which heals anything the watcher missed (events dropped under load). A source
folder that is deleted, made again or appears later (a docs build that empties its output
first, a checkout, a mount) is noticed within a second or two: it is watched anew, then indexed.
An error in one update is reported and the watcher goes on.
"""

from __future__ import annotations

import os
import stat
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from mindex.index import Index
from mindex.models import IndexReport
from mindex.logs import get_logger

log = get_logger("mindex")


@dataclass
class Update:
    """One round of the watcher: why it ran, what it did, how long it took."""

    reason: str  # "start", "change", "reconcile"
    reports: dict[str, IndexReport] = field(default_factory=dict)
    changed: int = 0  # file events in the batch
    seconds: float = 0.0
    error: str | None = None

    @property
    def touched(self) -> bool:
        """Whether anything in the index changed."""
        return any(r.added or r.updated or r.removed for r in self.reports.values())


def _own_files(index: Index) -> Callable[[object, str], bool]:
    """A watchfiles filter: the default ignores (.git, __pycache__, ...) minus our own
    database files, whose writes must not wake the watcher."""
    from watchfiles import DefaultFilter

    default = DefaultFilter()
    db = str(index.db_path.resolve())
    state_dir = os.path.dirname(db)

    def keep(change: object, path: str) -> bool:
        if path.startswith(db) or os.path.dirname(path) == state_dir:
            return False
        return bool(default(change, path))  # type: ignore[arg-type]

    return keep


def watch(
    index: Index,
    names: Iterable[str] = (),
    on_update: Callable[[Update], None] | None = None,
    stop: threading.Event | None = None,
    debounce_ms: int = 500,
    quiet_ms: int = 100,
    reconcile_s: float = 60.0,
) -> None:
    """Index once, then re-index sources as their files change, until `stop` is set (or
    Ctrl-C, which raises KeyboardInterrupt as usual). `on_update` hears about every round
    that ran, but of the quiet check once the watch is up, only one that found something."""
    wanted = list(names)
    chosen = [index.source(n) for n in wanted] if wanted else [s.source for s in index.sources()]
    roots = {s.name: os.path.realpath(s.root) for s in chosen}
    stop = stop or threading.Event()

    def run(reason: str, sources: list[str], changed: int = 0, quiet: bool = False) -> None:
        started = time.perf_counter()
        update = Update(reason, changed=changed)
        try:
            update.reports = index.index(sources)
        except Exception as exc:  # a bad round must not end the watch; the next one retries
            log.debug("watch update failed", exc_info=True)
            update.error = f"{type(exc).__name__}: {exc}"
        update.seconds = time.perf_counter() - started
        if on_update and not (quiet and not update.touched and not update.error):
            on_update(update)

    _rounds(index, roots, run, stop, debounce_ms, quiet_ms, reconcile_s)


def _rounds(index: Index, roots: dict[str, str], run: Callable[..., None], stop: threading.Event,
            debounce_ms: int, quiet_ms: int, reconcile_s: float) -> None:
    from watchfiles import watch as file_events

    run("start", list(roots))
    last_full = time.monotonic()
    wake_s = min(reconcile_s, 1)
    watched = _folders(roots)
    # Sources to index once the folders as they are now are watched. After the first round
    # that is every source, quietly: a save made while it ran and before the watch was up
    # would otherwise wait for the reconcile scan.
    pending: list[str] = list(watched)
    settling = True
    while not stop.is_set():
        if not watched:  # no source folder exists: nothing to watch; look again shortly
            stop.wait(wake_s)
        batches = file_events(*(roots[name] for name in watched), watch_filter=_own_files(index),
                              debounce=debounce_ms, step=quiet_ms, stop_event=stop, rust_timeout=int(wake_s * 1000),
                              yield_on_timeout=True) if watched else iter([set()])
        restart = False
        try:
            for batch in batches:
                if stop.is_set():
                    return
                done = pending
                if pending:  # the new watch is up (it yields only once it is): what came before it is read now
                    run("change", pending, quiet=settling)
                    pending, settling = [], False
                if batch:
                    hit = sorted({name for _, path in batch for name, root in roots.items()
                                  if (path == root or path.startswith(root + os.sep)) and name not in done})
                    if hit:
                        run("change", hit, len(batch))
                if time.monotonic() - last_full >= reconcile_s:
                    run("reconcile", list(roots))
                    last_full = time.monotonic()
                restart = _folders(roots) != watched
                if restart:
                    # A source folder went away, came back or was made anew (a docs build that
                    # deletes its output first): its watch went with the old folder.
                    break
        except FileNotFoundError:  # a folder went away between looking at it and watching it
            restart = True
            stop.wait(0.1)
        if restart:  # watch the folders as they are now, then index the sources that moved
            now = _folders(roots)
            pending = sorted(set(pending) | {name for name in roots if now.get(name) != watched.get(name)})
            watched = now
        elif watched:  # the file watcher ended by itself (its stop event)
            return


def _folders(roots: dict[str, str]) -> dict[str, tuple[int, int]]:
    """The sources whose folder exists now, each with its folder's identity (device, inode):
    a folder deleted and made again under the same name is another folder to watch."""
    found = {}
    for name, root in roots.items():
        try:
            info = os.stat(root)
        except OSError:
            continue
        if stat.S_ISDIR(info.st_mode):
            found[name] = (info.st_dev, info.st_ino)
    return found

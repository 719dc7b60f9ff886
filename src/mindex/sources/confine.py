"""Keeping every read inside a source's root, symlinks and rename races included.

A symlink is followed only when what it resolves to stays inside the root; anything else is
skipped with `LEAVES_SOURCE` as the reason. Listing checks each entry after resolving it, and
reading checks again on the open file itself (through `/proc/self/fd` where it exists), so a
file or folder swapped for a link between listing and reading cannot step out either.
"""

from __future__ import annotations

import errno
import os
import stat

LEAVES_SOURCE = "symlink leaves the source"


class OutsideRootError(OSError):
    """The path, once resolved, is not inside the source root."""


def inside(root: str, path: str) -> bool:
    """True when `path` (already resolved) is `root` or lies below it; `root` is resolved too."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _resolve(path: str) -> str | None:
    """`path` with every symlink resolved, or None when a link on the way cannot be read
    (a link to an exited process's `/proc/N/exe` says it is a link, then has no target)."""
    try:
        return os.path.realpath(path)
    except OSError:
        return None


def link_skipped(root: str, path: str) -> str | None:
    """Why a symlink at `path` is not followed (it leads out of the resolved `root`, or cannot
    be resolved), or None when it stays inside."""
    target = _resolve(path)
    if target is None:
        return "broken symlink"
    return None if inside(root, target) else LEAVES_SOURCE


def _opened_path(fd: int, path: str) -> str:
    """Where an open file really is: the kernel's answer when it gives one, else the path
    resolved now and checked to be the same file as the one open."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        real = os.path.realpath(path)
        opened, named = os.fstat(fd), os.stat(real)
        if (opened.st_dev, opened.st_ino) != (named.st_dev, named.st_ino):
            raise OutsideRootError(f"{path} changed while it was opened") from None
        return real


def read_inside(root: str, path: str, limit: int | None = None) -> bytes:
    """Read a regular file's bytes (up to `limit`), refusing one outside the resolved `root`.

    Raises:
        OutsideRootError: the file resolves outside the root.
        OSError: the file cannot be opened or read, or is not a regular file.
    """
    # O_NONBLOCK: a FIFO swapped in after listing must not hang the run.
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    try:
        if not inside(root, _opened_path(fd, path)):
            raise OutsideRootError(LEAVES_SOURCE)
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read() if limit is None else handle.read(limit)
    finally:
        os.close(fd)

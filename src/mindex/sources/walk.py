"""Finding files under a source root: .gitignore and .mindexignore honoured, loops survived."""

from __future__ import annotations

import errno
import os
import stat as statmod
from collections.abc import Iterable
from dataclasses import dataclass

import pathspec

from mindex.models import SkippedFile
from mindex.sources.confine import LEAVES_SOURCE, link_skipped, read_inside
from mindex.textsafe import escape_surrogates

IGNORE_FILES = (".gitignore", ".mindexignore")
# Folders that hold tooling state or third-party copies, never a user's documentation.
SKIP_DIRS = {
    ".git", ".hg", ".svn", ".mindex", "node_modules", ".venv", "venv", "__pycache__", ".tox",
    ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache", "site-packages", ".idea", ".cache",
}


@dataclass(frozen=True)
class FileEntry:
    """A candidate file: path relative to the root (`/`-separated; an undecodable byte of a
    name shows as `\\xNN`, see `mindex.textsafe`), where it is, and its change markers."""

    rel: str
    abspath: str
    size: int
    mtime_ns: int


def read_ignore_file(root: str, path: str) -> list[str]:
    """The lines of an ignore file, or none when it is missing, unreadable or leads outside
    the (resolved) root."""
    try:
        return read_inside(root, path, 1 << 20).decode("utf-8", "replace").splitlines()
    except OSError:
        return []


def _spec_for(root: str, folder: str) -> pathspec.GitIgnoreSpec | None:
    lines = [line for name in IGNORE_FILES for line in read_ignore_file(root, os.path.join(folder, name))]
    return pathspec.GitIgnoreSpec.from_lines(lines) if lines else None


def _ignored(specs: list[tuple[str, pathspec.GitIgnoreSpec]], rel: str, is_dir: bool) -> bool:
    """Apply ignore files from the root down; a deeper file's verdict overrides."""
    verdict = False
    for base, spec in specs:
        sub = rel[len(base) + 1 :] if base else rel
        result = spec.check_file(sub + "/" if is_dir else sub)
        if result.include is not None:
            verdict = result.include
    return verdict


def walk_files(
    root: str, wanted: Iterable[str] | None, include: pathspec.GitIgnoreSpec | None,
    exclude: pathspec.GitIgnoreSpec | None,
) -> tuple[list[FileEntry], list[SkippedFile]]:
    """List files under `root` with a wanted suffix (any, for None), honouring ignore files and globs.

    A symlink is followed only when it resolves inside the root (else it is skipped as
    `LEAVES_SOURCE`); symlinked folders are followed once, and a loop back to a folder
    already visited is reported as skipped instead of recursing forever. Each folder is
    checked again when it is read, so one swapped for a link meanwhile cannot lead out.
    """
    suffixes = {s.lower() for s in wanted} if wanted is not None else None
    files: list[FileEntry] = []
    skipped: list[SkippedFile] = []
    seen: set[tuple[int, int]] = set()
    real_root = os.path.realpath(root)
    root_stat = os.stat(real_root)
    seen.add((root_stat.st_dev, root_stat.st_ino))
    # Each folder with the identity (device, inode) it had when it was listed as inside the
    # root: read only if it still is that folder. (Resolving every folder's path again cost
    # a look-up per level: 1,000 nested folders took seconds, 10,000 did not finish.)
    stack: list[tuple[str, str, list[tuple[str, pathspec.GitIgnoreSpec]], tuple[int, int]]] = [
        (root, "", [], (root_stat.st_dev, root_stat.st_ino))]
    while stack:
        folder, rel_folder, specs, key = stack.pop()
        if not _still(folder, key):
            skipped.append(SkippedFile(rel_folder, LEAVES_SOURCE))
            continue
        own = _spec_for(real_root, folder)
        if own is not None:
            specs = specs + [(rel_folder, own)]
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            skipped.append(SkippedFile(rel_folder or ".", f"folder unreadable ({exc.strerror})"))
            continue
        for entry in entries:
            rel = f"{rel_folder}/{escape_surrogates(entry.name)}" if rel_folder else escape_surrogates(entry.name)
            if entry.is_symlink() and (why := link_skipped(real_root, entry.path)):
                skipped.append(SkippedFile(rel, why))
                continue
            try:
                info = entry.stat()  # follows symlinks
            except OSError as exc:
                if entry.is_symlink():
                    skipped.append(SkippedFile(rel, "broken symlink"))
                elif exc.errno == errno.ENAMETOOLONG:  # nested past the system's path limit (4,096 bytes on Linux)
                    skipped.append(SkippedFile(rel, f"path too long for the system ({len(entry.path):,} characters)"))
                elif exc.errno != errno.ENOENT:  # gone since the listing: nothing to say
                    skipped.append(SkippedFile(rel, f"unreadable ({exc.strerror})"))
                continue
            if statmod.S_ISDIR(info.st_mode):
                if entry.name in SKIP_DIRS or _ignored(specs, rel, True):
                    continue
                key = (info.st_dev, info.st_ino)
                if key in seen:
                    skipped.append(SkippedFile(rel, "symlink loop (folder already visited)"))
                    continue
                seen.add(key)
                stack.append((entry.path, rel, specs, key))
                continue
            if suffixes is not None and os.path.splitext(entry.name)[1].lower() not in suffixes:
                continue
            if _ignored(specs, rel, False):
                continue
            if include is not None and not include.match_file(rel):
                continue
            if exclude is not None and exclude.match_file(rel):
                continue
            if not statmod.S_ISREG(info.st_mode):
                # Opening a FIFO would wait for a writer forever; a device never ends.
                skipped.append(SkippedFile(rel, f"not a regular file ({_file_type(info.st_mode)})"))
                continue
            files.append(FileEntry(rel, entry.path, info.st_size, info.st_mtime_ns))
    files.sort(key=lambda f: f.rel)
    return files, skipped


def _still(folder: str, key: tuple[int, int]) -> bool:
    """Whether `folder` is still the folder that was listed (a folder, or a folder on its
    path, swapped for a link since then resolves to another one, or to nothing)."""
    try:
        info = os.stat(folder)
    except OSError:
        return False
    return statmod.S_ISDIR(info.st_mode) and (info.st_dev, info.st_ino) == key


def _file_type(mode: int) -> str:
    """What a non-regular file is, in a word."""
    for test, name in ((statmod.S_ISFIFO, "named pipe"), (statmod.S_ISSOCK, "socket"),
                       (statmod.S_ISCHR, "character device"), (statmod.S_ISBLK, "block device")):
        if test(mode):
            return name
    return "special file"

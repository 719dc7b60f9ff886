"""The memory journal: markdown files of delimited entry blocks. Pure parsing plus the two
writes (append under a file lock, atomic removal of one block).

A block, as `save` writes it::

    <!-- mindex:memory m-20261123-044512-7f3a09c1 -->
    ### 2026-11-23T04:45:12+00:00 · decision
    tags: http, retries
    files: src/mindex/fetch/http.py

    Retries use exponential backoff capped at 30 s.
    <!-- /mindex:memory -->

Anything between blocks is a human's and is left alone (and not indexed).
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from mindex.errors import MemoryInputError, NotFoundError, ReadOnlyIndexError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: saves are not locked against each other
    fcntl = None  # type: ignore[assignment]

DEFAULT_TYPES = ("decision", "progress", "issue", "handoff", "insight", "reference")
OPEN = re.compile(r"^<!-- mindex:memory ([A-Za-z0-9][\w.-]{0,80}) -->\s*$")
CLOSE = re.compile(r"^<!-- /mindex:memory -->\s*$")
_HEADER = re.compile(r"^###\s+(\S+)\s+·\s+([\w-]+)\s*$")
_META = re.compile(r"^(tags|files):\s*(.*)$")
_TYPE = re.compile(r"^[a-z][a-z0-9_-]{0,31}$")
LOCK_NAME = ".lock"


@dataclass(frozen=True)
class Entry:
    """One journal entry as parsed (or about to be written)."""

    id: str
    at: datetime  # timezone-aware
    type: str
    text: str
    tags: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    line: int = 0  # 1-based line of the opening marker in its file (0: not from a file)
    end_line: int = 0


@dataclass
class Parsed:
    """A journal file's entries and what could not be read, as `file:line: why`."""

    entries: list[Entry] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def new_id(now: datetime, prefix: str = "m") -> str:
    """A sortable id unique without coordination: UTC time plus 8 random hex digits (with 4,
    thirty entries saved within one second collided in about one run in 150)."""
    return f"{prefix}-{now.astimezone(timezone.utc):%Y%m%d-%H%M%S}-{secrets.token_hex(4)}"


def _split_list(value: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(part.strip() for part in value.split(",") if part.strip()))


def clean_list(values: tuple[str, ...] | list[str], what: str) -> tuple[str, ...]:
    """Tags or file paths as stored: trimmed, no commas or line breaks, no duplicates."""
    out = []
    for value in values:
        value = value.strip()
        if not value:
            continue
        if any(c in value for c in ",\n\r"):
            raise MemoryInputError(f"{what} {value!r} holds a comma or a line break; give one per flag")
        out.append(value.replace("\\", "/") if what == "file" else value)
    return tuple(dict.fromkeys(out))


def check_type(kind: str, types: tuple[str, ...]) -> str:
    """The type, validated against the configured list."""
    if kind not in types:
        raise MemoryInputError(f"unknown memory type {kind!r}; use one of: {', '.join(types)} "
                               "(add more with `mindex config set memory.types ...`)")
    return kind


def render(entry: Entry) -> str:
    """The block's text, ending with a newline."""
    if not entry.text.strip():
        raise MemoryInputError("a memory needs some text; say what was decided, learned or done")
    body = entry.text.strip("\n")
    if any(OPEN.match(line) or CLOSE.match(line) for line in body.split("\n")):
        raise MemoryInputError("the text holds a line that looks like a mindex:memory marker; reword that line")
    lines = [f"<!-- mindex:memory {entry.id} -->", f"### {entry.at.isoformat(timespec='seconds')} · {entry.type}"]
    if entry.tags:
        lines.append("tags: " + ", ".join(entry.tags))
    if entry.files:
        lines.append("files: " + ", ".join(entry.files))
    return "\n".join([*lines, "", body, "<!-- /mindex:memory -->"]) + "\n"


def parse(text: str, name: str, types: tuple[str, ...] | None = None) -> Parsed:
    """The entries of a journal file's text; a broken block is reported (`name:line: why`)
    and skipped, the others are kept. `types=None` accepts any well-formed type."""
    out = Parsed()
    lines = text.split("\n")
    i, n = 0, len(lines)
    seen: set[str] = set()
    while i < n:
        opened = OPEN.match(lines[i])
        if not opened:
            if CLOSE.match(lines[i]):
                out.problems.append(f"{name}:{i + 1}: a closing marker without its opening one; left as it is")
            i += 1
            continue
        start = i
        j = i + 1
        while j < n and not CLOSE.match(lines[j]) and not OPEN.match(lines[j]):
            j += 1
        if j >= n or OPEN.match(lines[j]):
            out.problems.append(f"{name}:{start + 1}: entry {opened.group(1)} has no closing "
                                "'<!-- /mindex:memory -->' line; it is not indexed until one is added")
            i = j
            continue
        entry, why = _entry(opened.group(1), lines[start + 1 : j], start + 1, j + 1, types)
        if entry is None:
            out.problems.append(f"{name}:{start + 2}: entry {opened.group(1)}: {why}; it is not indexed")
        elif entry.id in seen:
            out.problems.append(f"{name}:{start + 1}: entry id {entry.id} appears twice; the later copy is not indexed")
        else:
            seen.add(entry.id)
            out.entries.append(entry)
        i = j + 1
    return out


def _entry(eid: str, body: list[str], line: int, end: int, types: tuple[str, ...] | None) -> tuple[Entry | None, str]:
    if not body:
        return None, "empty block"
    header = _HEADER.match(body[0])
    if not header:
        return None, "the line after the marker should read '### <ISO time> · <type>'"
    try:
        at = datetime.fromisoformat(header.group(1).replace("Z", "+00:00"))
    except ValueError:
        return None, f"{header.group(1)!r} is not an ISO-8601 time"
    if at.tzinfo is None:
        at = at.replace(tzinfo=timezone.utc)
    kind = header.group(2)
    if not _TYPE.match(kind) or (types is not None and kind not in types):
        return None, f"unknown type {kind!r}"
    meta: dict[str, tuple[str, ...]] = {}
    k = 1
    while k < len(body) and (match := _META.match(body[k])):
        meta[match.group(1)] = _split_list(match.group(2))
        k += 1
    text = "\n".join(body[k:]).strip("\n")
    if not text.strip():
        return None, "no text"
    return Entry(eid, at, kind, text, meta.get("tags", ()), meta.get("files", ()), line, end), ""


def tail_entries(path: Path, holding: str, size: int = 64 * 1024) -> list[Entry]:
    """The entries in the last `size` bytes of a journal file that hold the text `holding`
    (lines counted from the start of that tail, not of the file): what was saved lately,
    without reading the whole month, and without parsing unless the text is there at all."""
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            start = max(0, handle.tell() - size)
            handle.seek(start)
            data = handle.read()
    except FileNotFoundError:
        return []
    if holding.encode("utf-8", "surrogateescape") not in data:
        return []
    if start:
        data = data[data.find(b"\n") + 1:]  # from the first whole line
    return [e for e in parse(data.decode("utf-8", "replace"), path.name).entries if e.text == holding]


def journal_name(at: datetime) -> str:
    """The journal file an entry goes to: one per UTC month."""
    return f"{at.astimezone(timezone.utc):%Y-%m}.md"


@contextmanager
def locked(folder: Path) -> Iterator[None]:
    """An exclusive lock on the folder's `.lock` file (every process saving or forgetting
    takes it, so blocks never interleave and a removal never loses a concurrent save).

    Raises:
        ReadOnlyIndexError: the folder cannot be written (a read-only file system or folder):
            nothing is saved, and the message says so instead of an OSError traceback.
    """
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(folder / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        if exc.errno not in (errno.EROFS, errno.EACCES, errno.EPERM):
            raise
        raise ReadOnlyIndexError(f"{folder} is read-only ({exc.strerror}): nothing was saved; reading and searching "
                                 "work. Save from a checkout you can write to, or make the folder writable") from None
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def append(path: Path, block: str) -> int:
    """Append one block: a single O_APPEND write (a blank line first when the file does not
    already end with one), then fsync; returns how many newlines went in before the block.
    Caller holds `locked`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        size = os.fstat(fd).st_size
        lead = b""
        if size:
            with open(path, "rb") as handle:
                handle.seek(max(0, size - 2))
                tail = handle.read()
            lead = b"" if tail.endswith(b"\n\n") else b"\n" if tail.endswith(b"\n") else b"\n\n"
        data = lead + block.encode("utf-8")
        written = os.write(fd, data)
        if written != len(data):  # a full disk: take back the part that went in
            os.ftruncate(fd, size)
            raise OSError(28, "short write (disk full?)")
        os.fsync(fd)
        return lead.count(b"\n")
    finally:
        os.close(fd)


def line_of_entry(path: Path, entry_id: str) -> int:
    """The 1-based line of an entry's opening marker (reads the whole file: rare paths only)."""
    data = path.read_bytes()
    return data[:data.find(f"<!-- mindex:memory {entry_id} -->".encode())].count(b"\n") + 1


def remove_block(path: Path, entry_id: str) -> None:
    """Remove exactly one entry's block (and one blank line after it) from the file,
    atomically. Caller holds `locked`.

    Raises:
        NotFoundError: no intact block with that id in the file.
    """
    _rewrite_block(path, entry_id, None)


def replace_block(path: Path, entry_id: str, block: str) -> None:
    """Put `block` (from `render`) where one entry's block is, atomically; the rest of the
    file stays byte for byte. Caller holds `locked`.

    Raises:
        NotFoundError: no intact block with that id in the file.
    """
    _rewrite_block(path, entry_id, block.encode("utf-8"))


def _rewrite_block(path: Path, entry_id: str, replacement: bytes | None) -> None:
    """The file with one entry's block replaced (None: removed with the blank line after it):
    the rest goes to a temp file that replaces the original."""
    data = path.read_bytes()
    opener = re.compile(rb"^<!-- mindex:memory " + re.escape(entry_id.encode()) + rb" -->[ \t\r]*$", re.M)
    found = opener.search(data)
    closer = re.compile(rb"^<!-- /mindex:memory -->[ \t\r]*(\n|$)", re.M)
    end = closer.search(data, found.end()) if found else None
    other = re.compile(rb"^<!-- mindex:memory ", re.M).search(data, found.end()) if found else None
    if found is None or end is None or (other is not None and other.start() < end.start()):
        raise NotFoundError(f"no intact entry {entry_id} in {path.name}; run `mindex index` if the file was edited")
    stop = end.end()
    if replacement is None and data[stop : stop + 1] == b"\n":
        stop += 1  # the blank line that separated it from the next block
    if replacement is not None and not data[end.start():stop].endswith(b"\n"):
        replacement = replacement[:-1]  # the block ended the file without a newline
    rest = data[: found.start()] + (replacement or b"") + data[stop:]
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(rest)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, path.stat().st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise

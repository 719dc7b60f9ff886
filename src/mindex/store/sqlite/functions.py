"""SQL functions registered on every connection: code files' lines and texts (inflated,
cached), and the aggregates that pack a document's references and definitions."""


from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any

from mindex.models import ReferenceRow, SymbolRow
from mindex.store.base import (
    inflate,
    pack_refs,
    pack_symbols,
    unpack_refs,
    unpack_symbols,
)


# Inflated code files kept for the next grep (a long-lived server greps the same files
# again and again); keyed by document id and content hash, so an edit is never served stale.
TEXT_CACHE_CHARS = 32_000_000


class TextCache:
    """Least recently used values up to a total size in characters: inflated texts (grep),
    files' lines (chunk texts). A value over a quarter of the limit is not kept, or, with
    `keep_any`, is kept while it is the newest, the older ones making room.

    A caller that reads many values in turn (grep over every file) names them first
    (`new_pass`): until the next pass, a value the pass asks for is never pushed out to make
    room, so a pass over more than the limit keeps the limit's worth for the next pass instead
    of losing every value before it is asked for again (plain LRU's worst case), and a
    narrower pass (grep over the files holding a literal) makes room only from values it does
    not ask for. Before, a narrow pass's new values pushed out the next full pass's, which then
    pushed out one another: a full grep after a narrow one inflated nearly every file."""

    def __init__(self, limit: int, keep_any: bool = False) -> None:
        self.limit, self.size = limit, 0
        self.largest = None if keep_any else limit // 4
        self.items: OrderedDict[Any, tuple[Any, int]] = OrderedDict()
        self.wanted: set[Any] = set()  # what the current pass asks for
        self.spare = 0  # values held that the current pass does not ask for

    def new_pass(self, keys: Iterable[Any]) -> None:
        """Start a pass over these keys (see the class docstring)."""
        self.wanted = set(keys)
        self.spare = sum(1 for key in self.items if key not in self.wanted)

    def get(self, key: Any) -> Any:
        found = self.items.get(key)
        if found is None:
            return None
        self.items.move_to_end(key)
        return found[0]

    def put(self, key: Any, value: Any, size: int | None = None) -> Any:
        size = len(value) if size is None else size
        if self.largest is not None and size > self.largest:
            return value
        while self.size + size > self.limit and self.items:
            oldest = next(iter(self.items))
            if oldest in self.wanted:
                if self.spare <= 0:
                    return value  # all that is held is asked for in this pass: keep it, not this one
                self.items.move_to_end(oldest)
                continue
            self.size -= self.items.pop(oldest)[1]
            self.spare -= 1
        if key in self.items:
            self.size -= self.items.pop(key)[1]
            self.spare -= key not in self.wanted
        self.items[key] = (value, size)
        self.size += size
        self.spare += key not in self.wanted
        return value


# Definitions' short names compared as symbol_names' NOCASE collation compares them: ASCII
# letters without case, every other character as it is.
ASCII_LOWER = {code: code + 32 for code in range(ord("A"), ord("Z") + 1)}


class FileLines:
    """`mindex_lines(packed, first, last)`: lines first..last (1-based, inclusive) of a code
    file's packed text, or NULL without one. Files' lines are kept for the next calls, keyed
    by the packed bytes (never stale), up to `KEEP_CHARS` characters: a document's chunks
    come one after another, and a localization question's candidates come from a hundred
    files or more (64 files kept made a cold one inflate 40% more). One instance per
    connection."""

    KEEP_CHARS = 8_000_000

    def __init__(self) -> None:
        self.kept = TextCache(self.KEEP_CHARS, keep_any=True)  # a huge file is kept while its chunks are read
        self.given: dict[str, str] = {}  # by chunk id: texts of a batch's chunks stored as ''

    def lines(self, packed: bytes) -> list[str]:
        """A code file's lines, from its packed text."""
        found: list[str] | None = self.kept.get(packed)
        if found is None:
            text = inflate(packed)
            found = self.kept.put(packed, text.split("\n"), len(text))
        return found

    def __call__(self, packed: bytes | None, first: int | None, last: int | None) -> str | None:
        if packed is None or first is None or last is None:
            return None
        return cut_lines(self.lines(packed), first, last)

    def given_text(self, chunk_id: str) -> str | None:
        """`mindex_given_text(chunk_id)`: the text of a chunk the writer is writing and stored
        as '' (`given`), or NULL: no blob read, no inflating, no lines joined again."""
        return self.given.get(chunk_id)


class PackRefs:
    """SQL aggregate `mindex_pack_refs(n, kind, name, qualifier, alias, line, scope)`: one
    document's reference rows packed as `pack_refs` packs them, in `n` order (the migration
    to schema v15)."""

    def __init__(self) -> None:
        self.rows: list[tuple[int, ReferenceRow]] = []

    def step(self, n: int, kind: str, name: str, qualifier: str, alias: str, line: int, scope: str) -> None:
        self.rows.append((n, (kind, name, qualifier, alias, line, scope)))

    def finalize(self) -> bytes:
        self.rows.sort(key=lambda row: row[0])
        return pack_refs([ref for _, ref in self.rows])


class PackSymbols:
    """SQL aggregate `mindex_pack_symbols(id, name, kind, start, end, signature, exported)`:
    one document's symbol rows packed as `pack_symbols` packs them, in id order (the migration
    to schema v18)."""

    def __init__(self) -> None:
        self.rows: list[tuple[int, SymbolRow]] = []

    def step(self, n: int, name: str, kind: str, start: int, end: int, signature: str, exported: int) -> None:
        self.rows.append((n, (name, kind, start, end, signature, bool(exported))))

    def finalize(self) -> bytes:
        self.rows.sort(key=lambda row: row[0])
        return pack_symbols([symbol for _, symbol in self.rows])


# How a packed table's row reads back (`mindex copy` counts, dumps and loads them).
UNPACK: dict[str, Callable[[bytes], list[Any]]] = {"refs": unpack_refs, "symbols": unpack_symbols}


def cut_lines(lines: list[str], first: int, last: int) -> str:
    """Lines first..last (1-based, inclusive): what a chunk stored as '' reads back as."""
    return "\n".join(lines[first - 1 : last])

"""The lines a regex may match, found by a linear-time engine (RE2), confirmed by Python's `re`.

grep reports a line when Python's `re` finds the pattern in it (ripgrep's semantics: no match
crosses a line end). Python's engine backtracks: `\\w+_\\d{3}\\b` takes 1.7 s over the 36 MB of
the standard library, where ripgrep's whole run takes 0.1 s. So, when the `google-re2` wheel
is installed, the pattern is first rewritten into a *looser* one that RE2 can run: it matches
every line the original matches (and maybe a few more), never across a line end. RE2 scans
each file's UTF-8 bytes for it in linear time, and only the lines it finds are searched with
the original pattern. The lines reported are exactly those the original finds; only the work
changes.

The rewrite keeps the pattern's shape and loosens what RE2 spells differently:
- a character class keeps its exact ASCII members (found by asking `re` itself, flags and
  all) and admits every non-ASCII character whenever the original might match one (`\\w`,
  `\\s`, a negated class), so Unicode rules need no copy; a class of ASCII characters under
  IGNORECASE admits only their non-ASCII case partners (`FOLD_PARTNERS`);
- no class admits the line end;
- word boundaries, lookarounds and `\\A`/`\\Z` are dropped (an assertion removed only admits
  more), and so is a line start followed by a literal; a back-reference becomes "any text on
  the line", a conditional either branch;
- counts above RE2's limit of 1,000 become unbounded, lazy and possessive repeats greedy.

A pattern the rewrite cannot take (a literal line end, `-U` multiline, an empty match
everywhere, something RE2 refuses) and text that is not valid UTF-8 (lone surrogates kept
from a bad file) go the way they always went: `re` over the whole text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from re import _compiler as sre_compile  # type: ignore[attr-defined]  # re's own compiler (3.11+)
from re import _constants as c  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]

RE2_MAX_COUNT = 1000  # RE2 refuses a repeat count above this
NON_ASCII = r"\x{80}-\x{10FFFF}"
_REPEATS = (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT)
# The non-ASCII characters Python's `re` matches for an ASCII one under IGNORECASE (İ and ı
# for i, the Kelvin sign for k, the long s for s); tests/test_grep_scan.py checks every code
# point against `re` itself. A folded ASCII class admits these instead of all of non-ASCII,
# which keeps `-i todo` a literal to RE2 (a scan 3× faster).
FOLD_PARTNERS: dict[int, tuple[int, ...]] = {
    ord("I"): (0x130, 0x131), ord("i"): (0x130, 0x131), ord("K"): (0x212A,), ord("k"): (0x212A,),
    ord("S"): (0x17F,), ord("s"): (0x17F,),
}


class Unsupported(Exception):
    """The pattern has no loose form RE2 can run."""


def _engine() -> Any:
    try:
        import re2  # type: ignore[import-untyped,unused-ignore]  # google-re2 (no type hints); may be missing
    except ImportError:
        return None
    return re2


Finder = Callable[[bytes, int, int], int]
"""`(data, pos, end) -> where the loose pattern's first match from `pos` starts, or -1`."""


@lru_cache(maxsize=64)
def loose_engine(pattern: str, flags: int) -> Finder | None:
    """The line finder of `re.compile(pattern, flags)`'s loose form, made once a pattern;
    None when RE2 is missing or the pattern cannot be loosened (see the module docstring)."""
    compiled = compile_loose(pattern, flags)
    return None if compiled is None else first_match(compiled)


def compile_loose(pattern: str, flags: int) -> Any:
    """The compiled RE2 form of the pattern's loose form, or None (see `loose_engine`)."""
    re2 = _engine()
    if re2 is None:
        return None
    try:
        source = loosen(pattern, flags)
    except (Unsupported, RecursionError):  # groups nested hundreds deep: `re` alone can take them
        return None
    options = re2.Options()
    options.never_capture = True
    options.max_mem = 64 << 20
    options.log_errors = False
    try:
        compiled = re2.compile(source.encode(), options)
    except re2.error:
        return None
    if compiled.search(b"") is not None:
        return None  # matches the empty string: every line is a candidate, no gain
    return compiled


def loosen(pattern: str, flags: int) -> str:
    """RE2 syntax for a pattern that matches, within one line, wherever `pattern` does.

    Raises:
        Unsupported: the pattern can match a line end, or holds something not handled.
    """
    parsed = sre_parse.parse(pattern, flags)
    fold = bool((flags | parsed.state.flags) & re.IGNORECASE)
    items = list(parsed.data)
    if (not fold and len(items) > 3 and items[0] == (c.AT, c.AT_BEGINNING)
            and all(op is c.LITERAL for op, _ in items[1:4])):
        # `^class \w+:`: a line start then a literal. Without the anchor RE2 skips from one
        # `class ` to the next (a scan of the standard library 92 -> 43 ms) instead of
        # stepping through every byte; `re` still decides on each line it finds.
        items = items[1:]
    return "(?m)" + _seq(items, fold)


def _seq(items: Any, fold: bool) -> str:
    return "".join(_item(op, av, fold) for op, av in items)


def _item(op: Any, av: Any, fold: bool) -> str:
    if op in (c.LITERAL, c.NOT_LITERAL, c.IN, c.ANY):
        return _char_class(op, av, fold)
    if op in _REPEATS:
        low, high, sub = av
        body = _seq(sub, fold)
        if not body:
            return ""
        if high == c.MAXREPEAT or high > RE2_MAX_COUNT:
            count = f"{{{min(low, RE2_MAX_COUNT)},}}"
        else:
            count = f"{{{low},{high}}}"
        return f"(?:{body}){count}"
    if op is c.SUBPATTERN:
        return f"(?:{_seq(av[3], _group_fold(fold, av))})"
    if op is c.ATOMIC_GROUP:
        return f"(?:{_seq(av, fold)})"
    if op is c.BRANCH:
        return "(?:" + "|".join(_seq(branch, fold) for branch in av[1]) + ")"
    if op is c.GROUPREF:
        return r"[^\n]*"
    if op is c.GROUPREF_EXISTS:
        _, yes, no = av
        return "(?:" + _seq(yes, fold) + "|" + (_seq(no, fold) if no is not None else "") + ")"
    if op in (c.ASSERT, c.ASSERT_NOT):
        return ""
    if op is c.AT:
        if av is c.AT_BEGINNING:
            return "^"
        if av is c.AT_END:
            return "$"
        return ""  # \b \B \A \Z: dropped, which only admits more
    raise Unsupported(str(op))


def _group_fold(fold: bool, av: Any) -> bool:
    """Whether a group's inside matches case-insensitively: its own flags (`(?i:...)`,
    `(?-i:...)`) over the pattern's."""
    _, add, remove, _ = av
    return (fold or bool(add & re.IGNORECASE)) and not remove & re.IGNORECASE


def _char_class(op: Any, av: Any, fold: bool) -> str:
    if op is c.LITERAL and not fold and 32 <= av < 127:
        return chr(av) if chr(av).isalnum() else rf"\x{{{av:02x}}}"
    if op is c.LITERAL and av == 10:
        raise Unsupported("a literal line end")  # ripgrep refuses it outside multiline mode
    members, ascii_only, partners = _class_of(op, av, fold)
    parts = _ranges(members)
    if not ascii_only:
        parts.append(NON_ASCII)
    else:  # under IGNORECASE an ASCII letter also matches its few non-ASCII case partners
        parts.extend(rf"\x{{{code:x}}}" for code in partners)
    if not parts:
        return r"[^\x{0}-\x{10FFFF}]"  # matches nothing
    return "[" + "".join(parts) + "]"


def _class_of(op: Any, av: Any, fold: bool) -> tuple[tuple[int, ...], bool, tuple[int, ...]]:
    """(the ASCII characters one character item matches, whether it can match no other
    character than those and its `partners`, the non-ASCII case partners it admits)."""
    members = _ascii_members(op, _frozen(av), fold)
    ascii_only = (op is c.LITERAL and av < 128) or (
        op is c.IN and all(kind in (c.LITERAL, c.RANGE) for kind, _ in av)
        and all((value if kind is c.LITERAL else value[1]) < 128 for kind, value in av))
    partners = tuple(sorted({p for m in members for p in FOLD_PARTNERS.get(m, ())})) if fold and ascii_only else ()
    return members, ascii_only, partners


def _ranges(codes: tuple[int, ...]) -> list[str]:
    """Sorted character codes as RE2 class ranges (`\\x{30}-\\x{39}`)."""
    parts: list[str] = []
    i = 0
    while i < len(codes):
        j = i
        while j + 1 < len(codes) and codes[j + 1] == codes[j] + 1:
            j += 1
        parts.append(rf"\x{{{codes[i]:02x}}}" + (rf"-\x{{{codes[j]:02x}}}" if j > i else ""))
        i = j + 1
    return parts


def _frozen(av: Any) -> Any:
    return tuple(av) if isinstance(av, list) else av


@lru_cache(maxsize=512)
def _ascii_members(op: Any, av: Any, fold: bool) -> tuple[int, ...]:
    """The ASCII characters (the line end left out) that one character item matches, asked of
    Python's `re` itself so its flags and categories need no copy here."""
    state = sre_parse.State()
    flags = re.IGNORECASE if fold else 0
    state.flags = flags
    item = (op, list(av) if isinstance(av, tuple) and op is c.IN else av)
    regex = sre_compile.compile(sre_parse.SubPattern(state, [item]), flags)
    return tuple(code for code in range(128) if code != 10 and regex.fullmatch(chr(code)))


def first_match(engine: Any) -> Finder:
    """The `Finder` of a compiled RE2 pattern: through the wheel's compiled object directly
    where it has one (its `search` builds a match object for each call: a third of the
    scan's time when thousands of lines are found), else through `search`."""
    import re2  # type: ignore[import-untyped,unused-ignore]

    low, anchor = getattr(engine, "_regexp", None), getattr(getattr(re2, "_Anchor", None), "UNANCHORED", None)
    if low is not None and anchor is not None and hasattr(low, "Match"):
        match = low.Match

        def direct(data: bytes, pos: int, end: int) -> int:
            return int(match(anchor, data, pos, end)[0][0])
        try:  # a private call: a release that changed it gets the public one
            if direct(b"", 0, 0) >= -1:
                return direct
        except Exception:  # noqa: BLE001
            pass

    def public(data: bytes, pos: int, end: int) -> int:
        hit = engine.search(data, pos, end)
        return -1 if hit is None else int(hit.start())
    return public


# A pass of `bytes.find` each: about 0.4 ns a byte for a short string, 0.2 for a long one,
# where RE2's one pass over an alternation takes about 1.7 (`TODO|FIXME|XXX` was slower
# as three passes, `ThreadPoolExecutor|ProcessPoolExecutor` 6 -> 4 ms as two). More strings
# (up to MAX_SPLIT) when grep knows, for each, the files that may hold it (its trigrams):
# each file then gets a pass for the strings it may hold only.
MAX_LITERALS = 2
MAX_SPLIT = 8


@lru_cache(maxsize=64)
def literals_of(pattern: str, flags: int, most: int = MAX_LITERALS) -> tuple[str, ...] | None:
    """The fixed strings `re.compile(pattern, flags)` matches when it matches nothing else:
    one (`import socket`, `self\\.assertEqual\\(`, any `-F` pattern without `-i`/`-w`) or up
    to `most` (`ThreadPoolExecutor|ProcessPoolExecutor`, `(?:get|set)_value`), none holding
    another; else None. Such a pattern needs no regex engine: `bytes.find` finds its lines and
    `str.find` the first place on each, where RE2 and `re` took two thirds of a scan's time on
    a pattern matching 24,000 lines."""
    if flags & re.IGNORECASE:
        return None
    try:
        parsed = sre_parse.parse(pattern, flags)
    except (re.error, RecursionError):
        return None
    if parsed.state.flags & re.IGNORECASE:
        return None
    found = _strings(list(parsed.data), most)
    if not found or "" in found:
        return None
    kept = tuple(sorted(t for t in found if not any(o != t and o in t for o in found)))
    try:
        for text in kept:
            text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: the stored bytes spell it otherwise
        return None
    return kept


def _strings(items: list[tuple[Any, Any]], most: int) -> set[str] | None:
    """Every string a sequence of parsed items matches, when they are few (at most `most`)
    and fixed; None otherwise."""
    made = {""}
    for op, av in items:
        if op is c.LITERAL and av != 10:
            options: set[str] | None = {chr(av)}
        elif op is c.IN and all(kind is c.LITERAL and value != 10 for kind, value in av):
            options = {chr(value) for _, value in av}
        elif op is c.BRANCH:
            branches = [_strings(list(branch), most) for branch in av[1]]
            options = None if any(b is None for b in branches) else set().union(*branches)  # type: ignore[arg-type]
        elif op is c.SUBPATTERN and not av[1] and not av[2]:  # a group that changes no flag
            options = _strings(list(av[3]), most)
        else:
            return None
        if options is None or len(made) * len(options) > most:
            return None
        made = {head + tail for head in made for tail in options}
    return made


# A run of characters every match holds (`[A-Z_]{12,}`: twelve of `A`-`Z` and `_` in a row),
# found without a regex engine: a file's bytes are mapped to 1 (in the run's class) or 0 by
# `bytes.translate` and the run is a string of 1s for `bytes.find`, about 0.8 ns a byte where
# RE2 steps through every byte of a pattern that starts with no literal at about 1.7. Only the
# lines holding a run are looked at (by `re`, after RE2 where the pattern may backtrack: see
# `RunScan.direct`). Worth it only when runs are rare: the odds of a run
# at a place are judged from each ASCII character's rough share of source text (lowercase
# letters about 2% each, a space 28%, digits and capitals 0.2%: the standard library's
# shares; a class's characters come together, so the odds of a run of n are taken as those
# of n / 2 independent ones), and a run is used when they are below RARE_RUN: twelve capitals
# or underscores, six digits, but not three digits (`\w+_\d{3}\b` was 8% slower with it).
RARE_RUN = 1e-4
MAX_RUN = 64  # the needle's length at most
# What a run costs, in bytes RE2 steps through in the same time: mapping a byte (a quarter of
# one) and a line holding the run that RE2 then turns down (about a kilobyte). A grep gives
# the run up, for the rest of the file and the files after, once it has cost more than the
# bytes it let RE2 skip, beyond RUN_SLACK: where lines holding one are many (`\d{3}`) or
# matches are dense (`[A-Z]{5}`: RE2 skips little between them), RE2 alone is as fast.
TRANSLATE_BYTES = 0.25
MISS_BYTES = 1024
RUN_SLACK = 64 << 10
NON_ASCII_SHARE = 0.01  # the share of bytes outside ASCII (comments in other scripts)


def _share(code: int) -> float:
    if 97 <= code <= 122:
        return 0.019
    if 65 <= code <= 90 or 48 <= code <= 57:
        return 0.002
    if code in (32, 9):
        return 0.28
    return 0.004


Run = tuple[bytes, bytes]
"""(a `bytes.translate` table mapping a class's bytes to 1 and the rest to 0, a needle of 1s)."""


@lru_cache(maxsize=64)
def run_of(pattern: str, flags: int, rare: float = RARE_RUN) -> Run | None:
    """The rarest run of characters from one class that every match of the pattern holds,
    when its odds at a place are below `rare` (see `RARE_RUN`); None otherwise."""
    try:
        parsed = sre_parse.parse(pattern, flags)
        fold = bool((flags | parsed.state.flags) & re.IGNORECASE)
        runs = list(_runs(list(parsed.data), fold))
    except (re.error, Unsupported, RecursionError):
        return None
    best: tuple[float, frozenset[int], int] | None = None
    for members, length in runs:
        if length < 1:
            continue
        share = sum(_share(m) if m < 128 else 0 for m in members) + (NON_ASCII_SHARE if 128 in members else 0)
        odds = min(share, 1.0) ** (length / 2)  # a class's characters come in runs (digits, capitals)
        if best is None or odds < best[0]:
            best = (odds, members, length)
    if best is None or best[0] >= rare:
        return None
    _, members, length = best
    table = bytes(1 if code in members or (code >= 128 and 128 in members) else 0 for code in range(256))
    return table, b"\x01" * min(length, MAX_RUN)


class RunScan:
    """A run (`run_of`) over one grep's files, given up once it stops paying (`MISS_BYTES`)."""

    def __init__(self, run: Run, direct: bool = False) -> None:
        self.table, self.needle = run
        self.direct = direct  # `re` may decide each line holding the run without RE2 (no risk of backtracking)
        self.balance = float(RUN_SLACK)  # bytes skipped less the cost, as bytes (`MISS_BYTES`)

    def paying(self) -> bool:
        """Whether the run has so far spared more than it cost."""
        return self.balance >= 0


def _runs(items: list[tuple[Any, Any]], fold: bool) -> Any:
    """(class, least length) of runs every match of `items` holds, a class being ASCII codes
    plus 128 for "any byte outside ASCII": each item that consumes characters of one class
    only, and each stretch of such items in a row with the union of their classes. A
    zero-width item (`\b`, `^`, a lookaround) leaves a stretch whole; a group every match
    goes through is searched inside too."""
    stretch: set[int] = set()
    length = 0
    for op, av in items:
        chars = _chars([(op, av)], fold)  # a zero-width item: no characters, none needed
        if chars is not None:
            members, least = chars
            if least:
                yield frozenset(members), least
            stretch |= members
            length += least
            continue
        if length:
            yield frozenset(stretch), length
        stretch, length = set(), 0
        if op is c.SUBPATTERN:
            yield from _runs(list(av[3]), _group_fold(fold, av))
        elif op in _REPEATS and av[0] >= 1:
            yield from _runs(list(av[2]), fold)
        elif op is c.ATOMIC_GROUP:
            yield from _runs(list(av), fold)
    if length:
        yield frozenset(stretch), length


def _chars(items: list[tuple[Any, Any]], fold: bool) -> tuple[set[int], int] | None:
    """(the class of every character `items` can consume, the least number they consume),
    or None when they hold something else than characters, repeats and groups of them."""
    members: set[int] = set()
    least = 0
    for op, av in items:
        if op in (c.LITERAL, c.NOT_LITERAL, c.IN, c.ANY):
            if op is c.LITERAL and av == 10:
                return None
            ascii_codes, ascii_only, partners = _class_of(op, av, fold)
            members.update(ascii_codes)
            if not ascii_only or partners:
                members.add(128)
            least += 1
        elif op in _REPEATS:
            low, _, sub = av
            inner = _chars(list(sub), fold)
            if inner is None:
                return None
            members |= inner[0]
            least += low * inner[1]
        elif op is c.SUBPATTERN:
            inner = _chars(list(av[3]), _group_fold(fold, av))
            if inner is None:
                return None
            members |= inner[0]
            least += inner[1]
        elif op is c.BRANCH:
            options = [_chars(list(branch), fold) for branch in av[1]]
            if any(option is None for option in options):
                return None
            members = members.union(*(option[0] for option in options if option))
            least += min(option[1] for option in options if option)
        elif op in (c.AT, c.ASSERT, c.ASSERT_NOT):
            continue
        else:
            return None
    return members, least


# A lone surrogate as `pack` stores it ("surrogatepass"): not UTF-8, so RE2 would not see it
# as one character where `re` does.
_SURROGATE = re.compile(rb"\xed[\xa0-\xbf]")


def scan_lines(first_at: Finder, regex: re.Pattern[str], data: bytes,
               run: RunScan | None = None) -> list[tuple[int, int, str]] | None:
    """(line number, column, line) of each line of a text's UTF-8 bytes (as the store keeps
    them) that `regex` finds, 1-based, visiting only the lines `first_at` (from
    `loose_engine`) finds, and with a `run` only lines holding it while it pays; None when
    the bytes are not valid UTF-8 (a lone surrogate kept from a bad file: the caller
    searches the text the old way)."""
    if b"\xed" in data and _SURROGATE.search(data):
        return None
    found: list[tuple[int, int, str]] = []
    find, rfind, count = data.find, data.rfind, data.count
    at, line, pos, size = 0, 1, 0, len(data)
    if run is not None and run.paying():
        at, line, pos = _scan_run(run, first_at, regex, data, found)
    while pos <= size:
        hit = first_at(data, pos, size)
        if hit < 0:
            break
        start = rfind(b"\n", 0, hit) + 1
        end = find(b"\n", hit)
        end = size if end == -1 else end
        line += count(b"\n", at, start)
        at = start
        row = data[start:end].decode("utf-8")
        confirmed = regex.search(row)
        if confirmed is not None:
            found.append((line, confirmed.start() + 1, row))
        pos = end + 1
    return found


def _scan_run(run: RunScan, first_at: Finder, regex: re.Pattern[str], data: bytes,
              found: list[tuple[int, int, str]]) -> tuple[int, int, int]:
    """`scan_lines` over the lines holding the run, until the run stops paying: (a line
    start's position, its number, where RE2 alone goes on; past the end when done)."""
    size = len(data)
    balance = run.balance - size * TRANSLATE_BYTES
    marks, needle = data.translate(run.table).find, run.needle
    find, rfind, count, search, add = data.find, data.rfind, data.count, regex.search, found.append
    check = None if run.direct else first_at
    at, line, pos = 0, 1, 0
    while True:
        # No line before the first run's holds a match (a match's line holds a run).
        seen = marks(needle, pos)
        if seen < 0:
            run.balance = balance + size - pos
            return at, line, size + 1
        start = rfind(b"\n", 0, seen) + 1
        end = find(b"\n", seen)
        if end == -1:
            end = size
        balance += start - pos
        pos = end + 1
        confirmed = None
        if check is None or check(data, start, end) >= 0:
            row = data[start:end].decode("utf-8")
            confirmed = search(row)
        if confirmed is None:
            balance -= MISS_BYTES
            if balance < 0:
                run.balance = balance
                return at, line, pos  # RE2 alone from the next line on
            continue
        line += count(b"\n", at, start)
        at = start
        add((line, confirmed.start() + 1, row))


def scan_literal(literals: tuple[str, ...], data: bytes) -> list[tuple[int, int, str]] | None:
    """`scan_lines` for a pattern that matches the fixed `literals` only (`literals_of`):
    each line holding one, with the column of the first; None for bytes that are not valid
    UTF-8."""
    if b"\xed" in data and _SURROGATE.search(data):
        return None
    if len(literals) > 1:
        return _scan_several(literals, data)
    literal = literals[0]
    needle = literal.encode("utf-8")
    find, rfind, count = data.find, data.rfind, data.count
    found: list[tuple[int, int, str]] = []
    at, line = 0, 1
    hit = find(needle)
    while hit >= 0:
        start = rfind(b"\n", 0, hit) + 1
        end = find(b"\n", hit)
        if end == -1:
            end = len(data)
        line += count(b"\n", at, start)
        at = start
        row = data[start:end].decode("utf-8")
        found.append((line, row.find(literal) + 1, row))
        hit = find(needle, end + 1)
    return found


def _scan_several(literals: tuple[str, ...], data: bytes) -> list[tuple[int, int, str]]:
    """`scan_literal` for two strings or more: each one's lines, then every line once, in
    order, with the first column any of them takes."""
    find, rfind = data.find, data.rfind
    ends: dict[int, int] = {}  # where each line holding a string starts, and where it ends
    for literal in literals:
        needle = literal.encode("utf-8")
        hit = find(needle)
        while hit >= 0:
            end = find(b"\n", hit)
            end = len(data) if end == -1 else end
            ends[rfind(b"\n", 0, hit) + 1] = end
            hit = find(needle, end + 1)
    found: list[tuple[int, int, str]] = []
    count, at, line = data.count, 0, 1
    for start in sorted(ends):
        line += count(b"\n", at, start)
        at = start
        row = data[start:ends[start]].decode("utf-8")
        found.append((line, min(p for p in (row.find(t) for t in literals) if p >= 0) + 1, row))
    return found

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
        _, add, remove, sub = av
        inner = fold
        if add & re.IGNORECASE:
            inner = True
        if remove & re.IGNORECASE:
            inner = False
        return f"(?:{_seq(sub, inner)})"
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


def _char_class(op: Any, av: Any, fold: bool) -> str:
    if op is c.LITERAL and not fold and 32 <= av < 127:
        return chr(av) if chr(av).isalnum() else rf"\x{{{av:02x}}}"
    if op is c.LITERAL and av == 10:
        raise Unsupported("a literal line end")  # ripgrep refuses it outside multiline mode
    members = _ascii_members(op, _frozen(av), fold)
    ascii_only = (op is c.LITERAL and av < 128) or (
        op is c.IN and all(kind in (c.LITERAL, c.RANGE) for kind, _ in av)
        and all((value if kind is c.LITERAL else value[1]) < 128 for kind, value in av))
    parts = _ranges(members)
    if not ascii_only:
        parts.append(NON_ASCII)
    elif fold:  # under IGNORECASE an ASCII letter also matches its few non-ASCII case partners
        parts.extend(rf"\x{{{code:x}}}" for code in sorted({p for m in members for p in FOLD_PARTNERS.get(m, ())}))
    if not parts:
        return r"[^\x{0}-\x{10FFFF}]"  # matches nothing
    return "[" + "".join(parts) + "]"


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
# as three passes, `ThreadPoolExecutor|ProcessPoolExecutor` 6 -> 4 ms as two).
MAX_LITERALS = 2


@lru_cache(maxsize=64)
def literals_of(pattern: str, flags: int) -> tuple[str, ...] | None:
    """The fixed strings `re.compile(pattern, flags)` matches when it matches nothing else:
    one (`import socket`, `self\\.assertEqual\\(`, any `-F` pattern without `-i`/`-w`) or two
    (`ThreadPoolExecutor|ProcessPoolExecutor`, `(?:get|set)_value`), neither holding the
    other; else None. Such a pattern needs no regex engine: `bytes.find` finds its lines and
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
    found = _strings(list(parsed.data))
    if not found or "" in found:
        return None
    kept = tuple(sorted(t for t in found if not any(o != t and o in t for o in found)))
    try:
        for text in kept:
            text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: the stored bytes spell it otherwise
        return None
    return kept


def _strings(items: list[tuple[Any, Any]]) -> set[str] | None:
    """Every string a sequence of parsed items matches, when they are few (at most
    `MAX_LITERALS`) and fixed; None otherwise."""
    made = {""}
    for op, av in items:
        if op is c.LITERAL and av != 10:
            options: set[str] | None = {chr(av)}
        elif op is c.IN and all(kind is c.LITERAL and value != 10 for kind, value in av):
            options = {chr(value) for _, value in av}
        elif op is c.BRANCH:
            branches = [_strings(list(branch)) for branch in av[1]]
            options = None if any(b is None for b in branches) else set().union(*branches)  # type: ignore[arg-type]
        elif op is c.SUBPATTERN and not av[1] and not av[2]:  # a group that changes no flag
            options = _strings(list(av[3]))
        else:
            return None
        if options is None or len(made) * len(options) > MAX_LITERALS:
            return None
        made = {head + tail for head in made for tail in options}
    return made


# A lone surrogate as `pack` stores it ("surrogatepass"): not UTF-8, so RE2 would not see it
# as one character where `re` does.
_SURROGATE = re.compile(rb"\xed[\xa0-\xbf]")


def scan_lines(first_at: Finder, regex: re.Pattern[str], data: bytes) -> list[tuple[int, int, str]] | None:
    """(line number, column, line) of each line of a text's UTF-8 bytes (as the store keeps
    them) that `regex` finds, 1-based, visiting only the lines `first_at` (from
    `loose_engine`) finds; None when the bytes are not valid UTF-8 (a lone surrogate kept
    from a bad file: the caller searches the text the old way)."""
    if b"\xed" in data and _SURROGATE.search(data):
        return None
    found: list[tuple[int, int, str]] = []
    find, rfind, count = data.find, data.rfind, data.count
    at, line, pos, size = 0, 1, 0, len(data)
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

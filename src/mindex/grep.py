"""Regex search over indexed code, line by line like ripgrep, narrowed by a trigram index.

A pattern is parsed with Python's own regex parser to find the literals every match must
contain (`def \\w+_handler\\(` needs `def ` and `_handler(`). Their trigrams become an FTS5
query over the `code_trigrams` index, so only files holding all of them are read; a pattern
without a literal of three characters or more (`\\w+\\d`) scans every file. The regex then
runs on each candidate's stored text.

Semantics follow ripgrep: a match never spans lines unless `multiline` is set (then `.` still
stops at a newline unless the pattern says `(?s)`); `^` and `$` anchor at line starts and
ends; a line is reported once however many matches it holds. Columns are 1-based and count
characters. Line numbers are those of the indexed text: keep the index live with
`mindex watch`.
"""

from __future__ import annotations

import bisect
import re
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from mindex.errors import ConfigError, GrepTimeoutError, MindexError
from mindex.grep_scan import (MAX_LITERALS, MAX_SPLIT, RunScan, literals_of, loose_engine, run_of, scan_lines,
                              scan_literal)
from mindex.models import Changeable
from mindex.store.base import ChunkSpan, Painted, SpanCache, Store, painted

from re import _constants as sre_constants  # type: ignore[attr-defined]  # re's own parser (3.11+)
from re import _parser as sre_parse  # type: ignore[attr-defined]

MAX_TRIGRAMS = 24  # per query: more makes FTS5 slower without narrowing much further
# Seconds a pattern may run over the files (`--timeout`): Python's `re` backtracks, so
# `(a|aa)+$` on a line of forty a's would run for ages where ripgrep's engine is linear.
TIMEOUT = 30.0
# A pattern that looks around a match sees across line ends when run on a whole file.
_LOOKAROUND = re.compile(r"\(\?<?[=!]|\\[AZ]")


@dataclass(frozen=True)
class GrepMatch(Changeable):
    """One matching line (or, in multiline mode, one match's lines) with its context."""

    source: str
    path: str
    line: int
    column: int
    end_line: int
    text: str
    language: str | None = None
    chunk_id: str | None = None
    symbol: str | None = None
    before: tuple[tuple[int, str], ...] = ()
    after: tuple[tuple[int, str], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape of a match."""
        return {
            "source": self.source, "path": self.path, "line": self.line, "column": self.column,
            "end_line": self.end_line, "text": self.text, "language": self.language,
            "chunk_id": self.chunk_id, "symbol": self.symbol,
            "before": [{"line": n, "text": t} for n, t in self.before],
            "after": [{"line": n, "text": t} for n, t in self.after],
        }


class GrepResult:
    """Matches in path order, plus what a caller needs to judge them.

    A grep's matches are made when `matches` is first read: each gets the chunk and the
    innermost definition holding its line, line by line in Python (half of a grep matching
    24,000 lines), and `mindex grep`'s text layout shows neither: it reads `lines()`. What
    that join needs from the index is read during the grep, so a result outlives its index."""

    def __init__(self, pattern: str, matches: list[GrepMatch] | None = None, files_searched: int = 0,
                 narrowed: bool = False, truncated: bool = False, took_ms: float = 0.0,
                 note: str | None = None) -> None:
        self.pattern, self.files_searched, self.narrowed = pattern, files_searched, narrowed
        self.truncated = truncated  # stopped at the limit
        self.took_ms = took_ms
        self.note = note  # why the answer may be incomplete, and what to do
        self._matches = matches if matches is not None else []
        self._found: list[Found] = []  # the matches still to be made, while `_join` is set
        self._join: Callable[[], list[GrepMatch]] | None = None

    @property
    def matches(self) -> list[GrepMatch]:
        """Each match with its chunk and definition (made now if the grep left them)."""
        if self._join is not None:
            self._matches, self._join, self._found = self._join(), None, []
        return self._matches

    @matches.setter
    def matches(self, value: list[GrepMatch]) -> None:
        self._matches, self._join, self._found = value, None, []

    @property
    def count(self) -> int:
        """How many matches, without making them."""
        return len(self._found) if self._join is not None else len(self._matches)

    def lines(self) -> Iterator[tuple[str, str, int, str]]:
        """(source, path, first line, text) of each match in order, without making matches."""
        if self._join is not None:
            return ((found[1], found[2], found[3], found[6]) for found in self._found)
        return ((m.source, m.path, m.line, m.text) for m in self._matches)

    def _fields(self) -> tuple[Any, ...]:
        return (self.pattern, self.matches, self.files_searched, self.narrowed, self.truncated, self.took_ms,
                self.note)

    def __eq__(self, other: object) -> bool:
        return self._fields() == other._fields() if isinstance(other, GrepResult) else NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, as the dataclass it was

    def __repr__(self) -> str:
        names = ("pattern", "matches", "files_searched", "narrowed", "truncated", "took_ms", "note")
        return "GrepResult(" + ", ".join(f"{n}={v!r}" for n, v in zip(names, self._fields())) + ")"

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape of a grep answer."""
        return {
            "pattern": self.pattern, "matches": [m.to_dict() for m in self.matches],
            "files_searched": self.files_searched, "narrowed": self.narrowed,
            "truncated": self.truncated, "took_ms": round(self.took_ms, 2), "note": self.note,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GrepResult:
        """The result `to_dict` wrote (a grep run in a child process)."""
        matches = [GrepMatch(m["source"], m["path"], m["line"], m["column"], m["end_line"], m["text"],
                             m["language"], m["chunk_id"], m["symbol"],
                             tuple((c["line"], c["text"]) for c in m["before"]),
                             tuple((c["line"], c["text"]) for c in m["after"])) for m in data["matches"]]
        return cls(data["pattern"], matches, data["files_searched"], data["narrowed"], data["truncated"],
                   data["took_ms"], data["note"])


def compile_pattern(pattern: str, ignore_case: bool = False, smart_case: bool = False,
                    fixed: bool = False, word: bool = False, multiline: bool = False) -> re.Pattern[str]:
    """The regex as grep runs it (MULTILINE always: `^`/`$` are line anchors).

    Raises:
        ConfigError: the pattern is not a valid Python regex (the message says where).
    """
    source = re.escape(pattern) if fixed else pattern
    if word:
        source = rf"\b(?:{source})\b"
    flags = re.MULTILINE
    if ignore_case or (smart_case and not any(c.isupper() for c in pattern)):
        flags |= re.IGNORECASE
    try:
        return re.compile(source, flags)
    except re.error as exc:
        where = f" at position {exc.pos}" if exc.pos is not None else ""
        raise ConfigError(f"bad regex {pattern!r}: {exc.msg}{where}; grep uses Python `re` syntax "
                          "(use -F to search for the text as it is)") from None
    except RecursionError:  # `re`'s parser recurses once a group
        raise ConfigError(f"bad regex {pattern[:60]!r}…: its groups nest deeper than Python's `re` can parse; "
                          "flatten the pattern (use -F to search for the text as it is)") from None


# -- required literals -----------------------------------------------------------------------

Need = str | tuple[list[Any], ...]
"""A literal every match contains, or alternatives (each a list of needs, all required)."""


def required(regex: re.Pattern[str]) -> list[Need]:
    """The literals (3+ characters) every match of `regex` must contain; [] when none."""
    parsed = sre_parse.parse(regex.pattern, regex.flags & ~re.MULTILINE)
    fold = bool(parsed.state.flags & re.IGNORECASE)
    return _needs(list(parsed), fold)


def _needs(items: list[tuple[Any, Any]], fold: bool) -> list[Need]:
    needs: list[Need] = []
    run: list[str] = []

    def flush() -> None:
        if len(run) >= 3:
            needs.append("".join(run))
        run.clear()

    for op, arg in items:
        if op is sre_constants.LITERAL and not (fold and arg > 127) and arg != 10:
            run.append(chr(arg))
            continue
        if op is sre_constants.SUBPATTERN:
            sub_fold = fold or bool(arg[1] & re.IGNORECASE)
            inner = _exact(list(arg[3]), sub_fold)
            if inner is not None:
                run.extend(inner)
                continue
            flush()
            needs.extend(_needs(list(arg[3]), sub_fold))
            continue
        flush()
        if op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT,
                  getattr(sre_constants, "POSSESSIVE_REPEAT", None)) and arg[0] >= 1:
            needs.extend(_needs(list(arg[2]), fold))
        elif op is getattr(sre_constants, "ATOMIC_GROUP", None):
            needs.extend(_needs(list(arg), fold))
        elif op is sre_constants.BRANCH:
            options = [_needs(list(alt), fold) for alt in arg[1]]
            if all(options):  # an alternative that needs nothing makes the whole branch free
                needs.append(tuple(options))
    flush()
    return needs


def _exact(items: list[tuple[Any, Any]], fold: bool) -> list[str] | None:
    """The characters of a group made of literals only, else None."""
    chars: list[str] = []
    for op, arg in items:
        if op is not sre_constants.LITERAL or (fold and arg > 127) or arg == 10:
            return None
        chars.append(chr(arg))
    return chars


def trigram_query(needs: list[Need]) -> str | None:
    """An FTS5 query over trigrams for the needs (None: nothing to narrow by)."""
    budget = [MAX_TRIGRAMS]

    def one(need: Need) -> str | None:
        if isinstance(need, str):
            grams = list(dict.fromkeys(need[i:i + 3] for i in range(len(need) - 2)))
            room = max(1, budget[0])
            if len(grams) > room:  # spread the ones we keep over the whole literal
                grams = list(dict.fromkeys(grams[i * (len(grams) - 1) // max(1, room - 1)] for i in range(room)))
            budget[0] -= len(grams)
            return " AND ".join('"' + g.replace('"', '""') + '"' for g in grams)
        options = [all_of(alt) for alt in need]
        if any(o is None for o in options):
            return None
        return "(" + " OR ".join(f"({o})" for o in options if o) + ")"

    def all_of(group: list[Need]) -> str | None:
        parts = [p for p in (one(n) for n in group) if p]
        return " AND ".join(parts) or None

    return all_of(needs)


# -- time limit ------------------------------------------------------------------------------

_REPEATS = (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT, sre_constants.POSSESSIVE_REPEAT)

def risky(regex: re.Pattern[str]) -> bool:
    """True when Python's backtracking engine may take exponential (or steep polynomial)
    time on some line: a repeat holding another repeat or an alternation (`(a+)+`,
    `(a|aa)*`, `(.*a){25}`), or three unbounded repeats in a row (`.*.*.*x`). Such a
    pattern cannot be stopped from a thread other than the main one, so there it runs in a
    child process."""
    def walk(items: Any, inside: bool) -> bool:
        unbounded = 0
        for op, av in items:
            if op in _REPEATS:
                _, high, sub = av
                many = high == sre_constants.MAXREPEAT or high > 1
                if many and inside:
                    return True
                unbounded += high == sre_constants.MAXREPEAT
                if unbounded >= 3 or walk(sub, inside or many):
                    return True
            elif op is sre_constants.BRANCH:
                branches = av[1]
                if (inside and len(branches) > 1) or any(walk(b, inside) for b in branches):
                    return True
            elif op is sre_constants.SUBPATTERN:
                if walk(av[-1], inside):
                    return True
            elif op in (sre_constants.ASSERT, sre_constants.ASSERT_NOT):
                if walk(av[1], inside):
                    return True
            elif op is sre_constants.GROUPREF_EXISTS:
                if any(walk(b, inside) for b in av[1:] if b is not None):
                    return True
        return False

    return walk(sre_parse.parse(regex.pattern, regex.flags), False)


@contextmanager
def time_limit(seconds: float | None, pattern: str) -> Iterator[None]:
    """Raise GrepTimeoutError in the code under it after `seconds` (`re` checks for signals
    while it matches). Only the main thread receives signals, and only when nobody else
    uses SIGALRM; anywhere else this limits nothing (see `risky`)."""
    usable = (seconds is not None and hasattr(signal, "setitimer")
              and threading.current_thread() is threading.main_thread()
              and signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, signal.SIG_IGN, None))
    if not usable:
        yield
        return
    assert seconds is not None

    def expired(signum: int, frame: Any) -> None:
        raise timed_out(pattern, seconds)

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def timed_out(pattern: str, seconds: float) -> GrepTimeoutError:
    """The error of a pattern that ran past its limit."""
    return GrepTimeoutError(
        f"the pattern {pattern!r} ran past {seconds:g} s: Python's regex engine backtracks, and nested repeats "
        "such as (a+)+ or (a|aa)* can take exponential time; simplify it, use -F for plain text, or raise --timeout")


# -- matching --------------------------------------------------------------------------------


def match_lines(regex: re.Pattern[str], text: str, multiline: bool,
                literal: str | None = None) -> list[tuple[int, int, int]]:
    """(first line, last line, column) of each reported match, 1-based, in order; a line
    is reported once, like ripgrep does. `literal`, a string every match contains, lets
    single-line search visit only the lines holding it (found by `str.find`, in C)."""
    if literal and not multiline:
        return _lines_with(regex, text, literal)
    found: list[tuple[int, int, int]] = []
    per_line = not multiline and bool(_LOOKAROUND.search(regex.pattern))
    if not per_line:
        count = text.count
        at, line = 0, 1  # line number of position `at`, advanced as matches come (no line table)
        last = 0
        for m in regex.finditer(text):
            start, end = m.start(), m.end()
            line += count("\n", at, start)
            at = start
            if not multiline and end > start and count("\n", start, end):
                per_line = True  # the match took a line end: ripgrep's never do, here
                break
            span = count("\n", start, max(start, end - 1)) if end > start else 0
            first, stop = line, line + span
            if first <= last:  # starts on a line reported already
                if stop > last:
                    found[-1] = (found[-1][0], stop, found[-1][2])
                    last = stop
                continue
            found.append((first, stop, start - text.rfind("\n", 0, start)))
            last = stop
    if per_line:
        found = []
        for n, row in enumerate(text.split("\n"), start=1):
            hit = regex.search(row)
            if hit is not None:
                found.append((n, n, hit.start() + 1))
    if found and found[-1][0] > text.count("\n") and text.endswith("\n"):
        found.pop()  # the empty string after the final newline is not a line
    return found


def _lines_with(regex: re.Pattern[str], text: str, literal: str) -> list[tuple[int, int, int]]:
    found: list[tuple[int, int, int]] = []
    find, rfind, count = text.find, text.rfind, text.count
    at, line = 0, 1
    pos = find(literal)
    while pos != -1:
        start = rfind("\n", 0, pos) + 1
        end = find("\n", pos)
        end = len(text) if end == -1 else end
        line += count("\n", at, start)
        at = start
        hit = regex.search(text[start:end])
        if hit is not None:
            found.append((line, line, hit.start() + 1))
        pos = find(literal, end + 1)
    return found


def prefilter(regex: re.Pattern[str], needs: list[Need]) -> str | None:
    """The longest literal every match holds, when plain `str.find` can look for it (the
    pattern is case-sensitive); None otherwise."""
    if regex.flags & re.IGNORECASE:
        return None
    literals = [n for n in needs if isinstance(n, str)]
    return max(literals, key=len) if literals else None


def grep(
    store: Store, pattern: str, *, ignore_case: bool = False, smart_case: bool = False,
    fixed: bool = False, word: bool = False, multiline: bool = False, source: str | None = None,
    path: str | None = None, language: str | None = None, before: int = 0, after: int = 0,
    max_count: int | None = None, limit: int = 200, timeout: float | None = TIMEOUT,
    spans: SpanCache | None = None,
) -> GrepResult:
    """Search the stored text of code files for `pattern` (see the module docstring).
    `timeout`: seconds the matching may take (in the main thread: see `time_limit`);
    `spans`: a cache of chunk spans kept between calls (the engine's).

    Raises:
        ConfigError: a bad regex, or a negative context or limit.
        GrepTimeoutError: the matching ran past `timeout`.
    """
    if before < 0 or after < 0 or limit < 1 or (max_count is not None and max_count < 1):
        raise ConfigError("context lines must be 0 or more, --limit and --max-count 1 or more")
    started = time.perf_counter()
    regex = compile_pattern(pattern, ignore_case, smart_case, fixed, word, multiline)
    needs = required(regex)
    query, literal = trigram_query(needs), prefilter(regex, needs)
    if query is not None and not store.trigram_index_ready():  # read-only, never built: read every file
        query = None
    result = GrepResult(pattern, narrowed=query is not None)
    found: list[Found] = []
    plain = None if multiline else literals_of(regex.pattern, regex.flags, MAX_SPLIT)
    holders = _holders(store, plain) if plain is not None and len(plain) > MAX_LITERALS and query else None
    if holders is None and plain is not None and len(plain) > MAX_LITERALS:
        plain = None  # a pass each over every file: RE2's one pass over the alternation is faster
    loose = None if multiline or plain is not None else loose_engine(regex.pattern, regex.flags)
    rare = run_of(regex.pattern, regex.flags) if loose is not None and not needs else None  # no literal to skip by
    run = RunScan(rare, direct=not risky(regex)) if rare is not None else None
    with time_limit(timeout, pattern):
        for doc_id, src, rel, lang, data in store.code_texts(query, source, path, language):
            result.files_searched += 1
            mine = tuple(t for t in plain if doc_id in holders[t]) if holders is not None and plain else plain
            if mine == ():
                continue  # holds none of the strings' trigrams (the query over all of them keeps fewer)
            scanned = (scan_literal(mine, data) if mine is not None
                       else scan_lines(loose, regex, data, run) if loose is not None else None)
            rows: dict[int, str] | None = None  # the matched lines' text, when the scan kept it
            text = ""  # the whole text, decoded only where it is needed
            if scanned is None:
                text = data.decode("utf-8", "surrogatepass")
                hits = match_lines(regex, text, multiline, literal)
            elif not scanned:
                continue
            elif not (before or after):  # the common case, made without a line table
                room = limit - len(found)
                kept = scanned[:min(room, max_count or room)]
                found += [(doc_id, src, rel, n, column, n, row, lang, (), ()) for n, column, row in kept]
                if len(found) >= limit and len(kept) < len(scanned[:max_count]):
                    result.truncated = True
                    break
                continue
            else:
                hits, rows = [(n, n, column) for n, column, _ in scanned], {n: row for n, _, row in scanned}
            if not hits:
                continue
            if max_count is not None:
                hits = hits[:max_count]
            text = text or data.decode("utf-8", "surrogatepass")
            lines = text.split("\n") if rows is None or before or after else []
            if lines and text.endswith("\n"):
                lines.pop()  # the empty string after the final newline is not a line
            for first, last, column in hits:
                if len(found) >= limit:
                    result.truncated = True
                    break
                shown = rows[first] if rows is not None else "\n".join(lines[first - 1:last])
                found.append((doc_id, src, rel, first, column, last, shown, lang,
                              tuple((n, lines[n - 1]) for n in range(max(1, first - before), first)) if before else (),
                              tuple((n, lines[n - 1]) for n in range(last + 1, min(len(lines), last + after) + 1))
                              if after else ()))
            if result.truncated:
                break
    result._found, result._join = found, _join_chunks(store, found, spans)
    result.took_ms = (time.perf_counter() - started) * 1000
    return result


def _holders(store: Store, texts: tuple[str, ...]) -> dict[str, set[int]] | None:
    """For each fixed string, the files holding its trigrams (every file that holds it, and
    a few more); None when one is too short to have any."""
    queries = {text: trigram_query([text]) for text in texts}
    if any(query is None for query in queries.values()):
        return None
    return {text: store.code_files_matching(query) for text, query in queries.items() if query}


FEW_LINES = 4  # a file with this many matched lines or fewer has them looked up one by one
Found = tuple[int, str, str, int, int, int, str, str | None, tuple[tuple[int, str], ...], tuple[tuple[int, str], ...]]
"""A match before its chunk is known: document id, then `GrepMatch`'s fields without chunk and symbol."""


def _join_chunks(store: Store, found: list[Found], cache: SpanCache | None) -> Callable[[], list[GrepMatch]]:
    """What makes each match, with the id of the chunk holding its first line and the
    innermost definition around it (per file, from the definitions' runs of lines:
    `painted`); what it needs from the index is read now. A file with many matched lines
    has its chunks' spans read once and walked in line order; one with a few has each
    line's chunk looked up in SQL, which reads no chunk into Python (`return None` in the
    standard library: 840 lines in 278 files, 106 -> 30 ms). `found` comes a file at a time;
    each file's lines are worked on as lists in line order, not as a dictionary keyed by
    (file, line)."""
    runs: list[tuple[int, int, int, list[int]]] = []  # (document id, first match, end, its lines in order)
    begin = 0
    for at in range(1, len(found) + 1):
        if at == len(found) or found[at][0] != found[begin][0]:
            lines = [item[3] for item in found[begin:at]]
            if any(a >= b for a, b in zip(lines, lines[1:])):
                lines = sorted(set(lines))
            runs.append((found[begin][0], begin, at, lines))
            begin = at
    many = sorted(doc_id for doc_id, _, _, lines in runs if len(lines) > FEW_LINES)
    chunk_of = store.chunks_holding([(doc_id, line) for doc_id, _, _, lines in runs
                                     if len(lines) <= FEW_LINES for line in lines])
    spans = cache(store, many) if cache is not None else store.chunk_spans(many)
    documents = sorted({doc_id for doc_id, _, _, _ in runs})
    symbols = (cache.innermost(store, documents) if cache is not None
               else {doc_id: painted(held) for doc_id, held in store.symbol_spans(documents).items()})
    return lambda: _made(found, runs, chunk_of, spans, symbols)


def _made(found: list[Found], runs: list[tuple[int, int, int, list[int]]], chunk_of: dict[tuple[int, int], str | None],
          spans: dict[int, list[ChunkSpan]], symbols: dict[int, Painted]) -> list[GrepMatch]:
    """The matches `_join_chunks` prepared."""
    made: list[GrepMatch] = []
    right = bisect.bisect_right
    nothing: Painted = ([0], [None])
    for doc_id, begin, end, lines in runs:
        starts, named = symbols.get(doc_id, nothing)
        names = [named[right(starts, line) - 1] for line in lines] if len(starts) > 1 else [None] * len(lines)
        if len(lines) <= FEW_LINES:
            ids = [chunk_of[doc_id, line] for line in lines]
        else:  # as `chunk_at`: the last chunk starting at or before the line, if it reaches it
            held, at, ids = spans.get(doc_id, []), -1, []
            last_at = len(held) - 1
            for line in lines:
                while at < last_at and held[at + 1][0] <= line:
                    at += 1
                ids.append(held[at][2] if at >= 0 and held[at][1] >= line else None)
        if len(lines) == end - begin:  # one match a line, in order: the k-th match is the k-th line
            order: Iterable[int] = range(end - begin)
        else:
            where = {line: k for k, line in enumerate(lines)}
            order = [where[item[3]] for item in found[begin:end]]
        made += [_grep_match({"source": src, "path": rel, "line": line, "column": column, "end_line": last,
                              "text": text, "language": lang, "chunk_id": ids[k], "symbol": names[k],
                              "before": before, "after": after})
                 for (_, src, rel, line, column, last, text, lang, before, after), k in zip(found[begin:end], order)]
    return made


_new, _set = object.__new__, object.__setattr__


def _grep_match(values: dict[str, Any]) -> GrepMatch:
    """`GrepMatch(**values)` (every field given) without the frozen dataclass's `__init__`,
    which sets each field through `object.__setattr__`: 3.3 µs a match against 0.4 (40,015
    matches: 0.1 s)."""
    made: GrepMatch = _new(GrepMatch)
    _set(made, "__dict__", values)
    return made


def grep_in_child(location: object, pattern: str, options: dict[str, Any]) -> GrepResult:
    """`mindex grep --json` on the index at `location` (a path or a server URL) in a child
    process, killed after the time limit."""
    import json
    import os
    import subprocess
    import sys

    timeout = float(options.get("timeout") or TIMEOUT)
    flags = {"ignore_case": "-i", "smart_case": "-S", "fixed": "-F", "word": "-w", "multiline": "-U"}
    values = {"source": "--source", "path": "--path", "language": "--language", "before": "-B",
              "after": "-A", "max_count": "-m", "limit": "-n"}
    args = [flag for key, flag in flags.items() if options.get(key)]
    args += [part for key, flag in values.items() if options.get(key) is not None
             for part in (flag, str(options[key]))]
    command = [sys.executable, "-P", "-m", "mindex", "grep", "--json", "--timeout", str(timeout), *args, "--", pattern]
    # The index by environment, not argument: a server URL's password stays out of `ps`.
    env = {**os.environ, "MINDEX_DB": str(location)}
    try:
        # The child stops itself at the limit; the kill is for a child that cannot.
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout + 10, env=env)
    except subprocess.TimeoutExpired:
        raise timed_out(pattern, timeout) from None
    try:
        data = json.loads(done.stdout)
    except ValueError:
        raise MindexError(f"grep in a child process failed (exit {done.returncode}): "
                          f"{done.stderr.strip()[-500:] or 'no output'}") from None
    if "error" in data:
        error = GrepTimeoutError if data["error"].get("code") == GrepTimeoutError.code else MindexError
        raise error(data["error"]["message"] + (f"; {data['error']['hint']}" if data["error"].get("hint") else ""))
    return GrepResult.from_dict(data)

"""The FTS5 expressions `mindex.search` writes (quoted words and phrases, a `*` for a prefix,
AND, OR and brackets): their parts, the terms of a top-level OR, and a bound on what a term
can add to a chunk's BM25 (both backends rank an OR of terms faster with it)."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator

_TOKEN = re.compile(r'\s*(?:"((?:[^"]|"")*)"(\*)?|(\()|(\))|(AND|OR|NOT)\b)')
# FTS5's BM25: k1 1.2, so one phrase adds under (k1 + 1) × its idf to a row's score,
# however often the row holds it and whatever the column weights.
SATURATION = 2.2


def match_tokens(match: str) -> Iterator[tuple[str | None, bool, str | None]]:
    """The parts of one of our FTS5 expressions, in order: (quoted text unescaped, its `*`,
    None) for a quoted word, phrase or trigram, else (None, False, "(" / ")" / "AND" / "OR").
    Anything else (NOT, stray characters) is skipped, so no input is a syntax error."""
    pos = 0
    while pos < len(match):
        found = _TOKEN.match(match, pos)
        if not found:
            pos += 1
            continue
        pos = found.end()
        quoted, star, opening, closing, op = found.groups()
        if quoted is not None:
            yield quoted.replace('""', '"'), bool(star), None
        elif opening or closing:
            yield None, False, opening or closing
        elif op in ("AND", "OR"):
            yield None, False, op


def or_terms(match: str) -> list[str]:
    """The terms of an expression that is an OR at its top level (brackets kept whole), or
    [match] when it is anything else."""
    parts, depth, start, quoted = [], 0, 0, False
    i = 0
    while i < len(match):
        ch = match[i]
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch == "(":
            depth += 1
        elif not quoted and ch == ")":
            depth -= 1
        elif not quoted and depth == 0:
            if match.startswith(" AND ", i):
                return [match]
            if match.startswith(" OR ", i):
                parts.append(match[start:i].strip())
                start = i + 4
                i += 3
        i += 1
    parts.append(match[start:].strip())
    return [p for p in parts if p] or [match]


def phrases(term: str) -> list[str]:
    """Each quoted word or phrase of a term as an FTS5 expression of its own (`"a b"`, `"c"*`):
    the units BM25 scores."""
    return ['"' + text.replace('"', '""') + '"' + ("*" if star else "")
            for text, star, _ in match_tokens(term) if text is not None]


def idf(rows: int, holding: int) -> float:
    """FTS5's inverse document frequency of a phrase `holding` of `rows` rows hold (never
    below 1e-6, as FTS5 has it)."""
    return max(math.log((rows - holding + 0.5) / (holding + 0.5)), 1e-6)


def varints(block: bytes) -> list[int]:
    """The SQLite varints of an FTS5 record (its averages record, a row's sizes), in order."""
    out, value, n = [], 0, 0
    for byte in block:
        if n == 8:
            out.append((value << 8) | byte)
            value, n = 0, 0
            continue
        value = (value << 7) | (byte & 0x7F)
        n += 1
        if byte < 0x80:
            out.append(value)
            value, n = 0, 0
    return out


def fts_rows(block: bytes) -> int:
    """The row count at the head of an FTS5 table's averages record (its `_data` row 1): the
    N of every idf, a SQLite varint."""
    found = varints(block[:9])
    if not found:
        raise ValueError("truncated varint")
    return found[0]

"""Sections into chunks: headings first, then paragraphs, then sentences. Pure, no I/O.

Fenced code blocks and tables are not cut: they travel whole (a block larger than the
budget becomes a chunk of its own), unless one is over `WHOLE` times the budget (a page of
source, a generated table of thousands of rows): that one is cut between lines into pieces
of the budget, each fenced again or under the table's header rows.

Overlap repeats the end of the previous chunk in the same section, up to `overlap` characters, never code or tables: its last whole paragraphs (the
default), or with `sentences` also the last sentences of a longer paragraph, cut where a
sentence starts (`index.overlap = "sentences"`; measured worse on three of four docs sets,
benchmarks/README.md).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from mindex.models import Chunk, ParsedDocument, Section
from mindex.terms import search_terms

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_TABLE = re.compile(r"^\s*(\||\+[-=])")
_RULE = re.compile(r"^\s*\|?\s*:?-+:?\s*\|")  # a markdown table's line under its header
WHOLE = 8  # a code block or table up to this many budgets long stays one piece
_SENTENCE_END = re.compile(r"(?<=[.!?。])[\"')\]]*\s+(?=\S)")
CONTEXT_SEPARATOR = " › "


@dataclass(frozen=True)
class _Unit:
    """A piece that is never split further: a block, a sentence or a word run."""

    text: str
    first: int  # 0-based line index inside the section text
    last: int
    block: int
    atomic: bool


def _blocks(lines: list[str]) -> list[tuple[int, int, bool]]:
    """Group lines into (first, last, atomic) blocks: fences, tables and paragraphs."""
    blocks: list[tuple[int, int, bool]] = []
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        fence = _FENCE.match(line)
        j = i
        if fence:
            marker = fence.group(1)
            j = i + 1
            while j < n:
                close = _FENCE.match(lines[j])
                if close and close.group(1)[0] == marker[0] and len(close.group(1)) >= len(marker):
                    break
                j += 1
            blocks.append((i, min(j, n - 1), True))
        elif _TABLE.match(line):
            while j + 1 < n and _TABLE.match(lines[j + 1]):
                j += 1
            blocks.append((i, j, True))
        else:
            while j + 1 < n and lines[j + 1].strip() and not _FENCE.match(lines[j + 1]):
                if _TABLE.match(lines[j + 1]):
                    break
                j += 1
            blocks.append((i, j, False))
        i = j + 1
    return blocks


def _split_long(text: str, first_line: int, block: int, size: int) -> list[_Unit]:
    """Split an over-long paragraph at sentence ends, and a huge sentence at spaces."""
    units: list[_Unit] = []
    starts = [0] + [m.end() for m in _SENTENCE_END.finditer(text)]
    at, lines_before = 0, 0  # newlines before `at`: counted onwards, not from the start each time

    def line_of(position: int) -> int:
        nonlocal at, lines_before
        lines_before += text.count("\n", at, position)
        at = position
        return first_line + lines_before

    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(text)
        piece_start = start
        while piece_start < end:
            piece_end = end
            if piece_end - piece_start > size:
                cut = text.rfind(" ", piece_start + 1, piece_start + size)
                piece_end = cut if cut > piece_start else piece_start + size
            piece = text[piece_start:piece_end].strip()
            if piece:
                line = line_of(piece_start)
                units.append(_Unit(piece, line, line + text.count("\n", piece_start, piece_end), block, False))
            piece_start = piece_end
    return units


def _units(text: str, size: int) -> list[_Unit]:
    lines = text.split("\n")
    units: list[_Unit] = []
    for number, (first, last, atomic) in enumerate(_blocks(lines)):
        body = "\n".join(lines[first : last + 1])
        if atomic and len(body) > WHOLE * size:
            units.extend(_cut_block(lines, first, last, number, size))
        elif atomic or len(body) <= size:
            units.append(_Unit(body, first, last, number, atomic))
        else:
            units.extend(_split_long(body, first, number, size))
    return units


def _cut_block(lines: list[str], first: int, last: int, block: int, size: int) -> list[_Unit]:
    """A huge fenced block or table as pieces of at most `size` characters, cut between
    lines: each piece of a fence opens and closes as the block does, each piece of a table
    starts with its header rows."""
    fence = _FENCE.match(lines[first])
    if fence:
        head, tail = [lines[first]], [fence.group(1)]
        body = range(first + 1, last if last > first and _FENCE.match(lines[last]) else last + 1)
    else:
        rows = 2 if first + 1 <= last and _RULE.match(lines[first + 1]) else 0
        head, tail, body = lines[first : first + rows], [], range(first + rows, last + 1)
    room = max(1, size - sum(len(line) + 1 for line in head + tail))
    units: list[_Unit] = []
    taken: list[int] = []

    def close(end: int) -> None:
        start = first if not units else taken[0]
        units.append(_Unit("\n".join([*head, *(lines[i] for i in taken), *tail]), start, end, block, True))

    length = 0
    for i in body:
        if taken and length + len(lines[i]) + 1 > room:
            close(taken[-1])
            taken, length = [], 0
        taken.append(i)
        length += len(lines[i]) + 1
    if taken or not units:
        close(last)
    return units


def _pack(units: list[_Unit], size: int, overlap: int, sentences: bool = False) -> list[list[_Unit]]:
    """Greedily fill chunks up to `size` characters, carrying an overlap between them."""
    groups: list[list[_Unit]] = []
    current: list[_Unit] = []
    length = 0
    for unit in units:
        if current and length + len(unit.text) + 2 > size:
            groups.append(current)
            carry: list[_Unit] = []
            carried = 0
            for previous in reversed(current):
                if previous.atomic:
                    break
                if carried + len(previous.text) > overlap:
                    tail = _tail(previous, overlap - carried) if sentences else None
                    if tail is not None:  # the paragraph's last sentences that fit
                        carry.insert(0, tail)
                        carried += len(tail.text) + 2
                    break
                carry.insert(0, previous)
                carried += len(previous.text) + 2
            if len(carry) == len(current) or carried + len(unit.text) > size:
                carry, carried = [], 0
            current, length = carry, carried
        current.append(unit)
        length += len(unit.text) + 2
    if current:
        groups.append(current)
    return groups


def _tail(unit: _Unit, room: int) -> _Unit | None:
    """The trailing sentences of a paragraph that fit in `room` characters (cut at a
    sentence's start, never inside one), or None when not even its last sentence fits."""
    text = unit.text
    for match in _SENTENCE_END.finditer(text):
        if len(text) - match.end() <= room:
            start = match.end()
            return _Unit(text[start:].strip(), unit.first + text.count("\n", 0, start), unit.last, unit.block, False)
    return None


def _join(units: list[_Unit]) -> str:
    out = units[0].text
    for before, unit in zip(units, units[1:]):
        out += (" " if unit.block == before.block and not unit.atomic else "\n\n") + unit.text
    return out


def split_text(text: str, size: int = 1500, overlap: int = 200, sentences: bool = False) -> list[tuple[str, int, int]]:
    """Split free text as a section's text is split: (piece, first line, last line), lines
    0-based inside `text`. Memory entries use it so a huge entry is searched in pieces."""
    return [(_join(group), group[0].first, max(u.last for u in group))
            for group in _pack(_units(text, size), size, overlap, sentences)]


def _span(section: Section, first: int, last: int) -> tuple[int | None, int | None]:
    if section.line_map:
        top = len(section.line_map) - 1
        start, end = section.line_map[min(first, top)][0], section.line_map[min(last, top)][1]
        return start, max(start, end)
    if section.start_line is None:
        return None, None
    return section.start_line + first, section.start_line + last


def chunk_id(source: str, path: str, context: str, text: str, repeat: int) -> str:
    """A stable id: the same text at the same place keeps its id across re-indexing."""
    key = "\0".join((source, path, context, text, str(repeat)))
    return hashlib.sha1(key.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def chunk_hash(context: str, text: str) -> str:
    """A chunk's content hash, what its vector is keyed by (see `text_hash`)."""
    return text_hash(f"{context}\n{text}")


def text_hash(text: str) -> str:
    """16 hex characters (64 bits of the SHA-1; schema v17, 40 before): enough to tell apart
    billions of texts in a fraction of the bytes. Chunk hashes and the keys of LLM-written
    contexts are made by it."""
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def chunk_identity(source: str, path: str, context: str, text: str, seen: dict[str, int]) -> tuple[str, str]:
    """The stable id and the content hash of a chunk; `seen` counts hashes already used in
    this document, so identical chunks of one file get distinct ids."""
    digest = chunk_hash(context, text)
    repeat = seen.get(digest, 0)
    seen[digest] = repeat + 1
    return chunk_id(source, path, context, text, repeat), digest


def chunk_document(
    source: str, path: str, parsed: ParsedDocument, size: int = 1500, overlap: int = 200, sentences: bool = False
) -> tuple[Chunk, ...]:
    """Turn a parsed document into chunks with context lines, spans, hashes and stable ids
    (`sentences`: overlap by a longer paragraph's last sentences too, see the module docstring)."""
    chunks: list[Chunk] = []
    seen: dict[str, int] = {}
    for section in parsed.sections:
        context = CONTEXT_SEPARATOR.join((path, *section.heading_path))
        title = section.heading_path[-1] if section.heading_path else parsed.title
        for group in _pack(_units(section.text, size), size, overlap, sentences):
            text = _join(group)
            start, end = _span(section, group[0].first, max(u.last for u in group))
            cid, digest = chunk_identity(source, path, context, text, seen)
            chunks.append(
                Chunk(
                    id=cid,
                    ordinal=len(chunks),
                    title=title,
                    context=context,
                    text=text,
                    hash=digest,
                    start_line=start,
                    end_line=end,
                    page=section.page,
                    terms=search_terms(context, text),
                )
            )
    return tuple(chunks)

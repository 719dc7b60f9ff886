"""reStructuredText into sections: titles are lines under- (and maybe over-) lined by punctuation.

Section levels follow the order in which adornment styles first appear, as docutils does.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from mindex.models import ParsedDocument, Section

_ADORNMENT = re.compile(r"^([=\-`:'\"~^_*+#<>.!$%&(),/;?@\[\]\\{|}])\1{2,}\s*$")
_FIELD = re.compile(r"^:(\w[\w -]*):\s*(.*)$")


def _titles(lines: list[str]) -> list[tuple[int, int, str, tuple[str, bool]]]:
    """Find titles: (first line index, last line index, title, style)."""
    found: list[tuple[int, int, str, tuple[str, bool]]] = []
    i = 0
    while i < len(lines) - 1:
        text, under = lines[i], lines[i + 1]
        over = lines[i - 1] if i > 0 else ""
        if text.strip() and not _ADORNMENT.match(text) and _ADORNMENT.match(under):
            if len(under.rstrip()) >= len(text.rstrip()) or len(text.strip()) <= 3:
                has_over = bool(_ADORNMENT.match(over)) and over.strip()[0] == under.strip()[0]
                start = i - 1 if has_over else i
                if found and start <= found[-1][1]:
                    i += 1
                    continue
                found.append((start, i + 1, text.strip(), (under.strip()[0], has_over)))
                i += 2
                continue
        i += 1
    return found


def parse_rst(text: str, path: str) -> ParsedDocument:
    """Parse a reStructuredText file; leading `:field: value` lines become metadata."""
    lines = text.split("\n")
    meta: dict[str, str] = {}
    for line in lines[:40]:
        match = _FIELD.match(line)
        if match and not match.group(1).startswith(("param", "type", "return")):
            meta[match.group(1)] = match.group(2)
    titles = _titles(lines)
    styles: list[tuple[str, bool]] = []
    starts: list[tuple[int, int, str]] = []
    for start, _end, title, style in titles:
        if style not in styles:
            styles.append(style)
        starts.append((start, styles.index(style) + 1, title))
    sections: list[Section] = []
    if not starts or starts[0][0] > 0:
        starts.insert(0, (0, 0, ""))
    trail: list[tuple[int, str]] = []
    for n, (start, level, title) in enumerate(starts):
        end = starts[n + 1][0] if n + 1 < len(starts) else len(lines)
        if level:
            trail = [(lvl, name) for lvl, name in trail if lvl < level] + [(level, title)]
        body = "\n".join(lines[start:end]).rstrip()
        if body.strip():
            sections.append(Section(tuple(name for _, name in trail), body, start + 1))
    title = meta.get("title") or (titles[0][2] if titles else PurePosixPath(path).stem)
    return ParsedDocument(title, tuple(sections), dict(meta))

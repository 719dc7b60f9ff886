"""AsciiDoc into sections: a line `= Title` is the document's title, `== Section` to `======`
its sections (Asciidoctor also reads markdown's `#`), and no line inside a delimited block
(`----` listing, `....` literal, `++++` passthrough, `////` comment, `====` example, `****`
sidebar, `____` quote, `|===` table) is a heading. The text is kept as written; the header's
`:name: value` attributes become metadata. A folder of `.adoc` pages (Spring's, Asciidoctor's
own) was indexed as nothing, without a word said.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from mindex.languages import ASCIIDOC_BLOCK
from mindex.models import ParsedDocument
from mindex.parse.markdown import cut_sections, heading_text

_HEADING = re.compile(r"^(={1,6}|#{1,6})[ \t]+(\S.*)$")  # a closing `==` is taken off after (linear)
_ATTRIBUTE = re.compile(r"^:(!?[\w][\w-]*!?):[ \t]*(.*)$")


def parse_asciidoc(text: str, path: str) -> ParsedDocument:
    """Parse an AsciiDoc file: sections at its titles, header attributes as metadata."""
    lines = text.split("\n")
    meta: dict[str, str] = {}
    starts: list[tuple[int, int, str]] = []  # (line index, level, title)
    block: str | None = None
    for i, line in enumerate(lines):
        delimiter = ASCIIDOC_BLOCK.match(line)
        if block is not None:
            if delimiter and delimiter.group(1) == block:
                block = None
            continue
        if delimiter:
            block = delimiter.group(1)
            continue
        if line.startswith("//"):  # a comment line
            continue
        heading = _HEADING.match(line)
        if heading:
            title, marks = heading.group(2).rstrip(), heading.group(1)
            if title.endswith(marks) and title[: -len(marks)].endswith((" ", "\t")):  # `== Title ==`
                title = title[: -len(marks)].rstrip()
            starts.append((i, len(marks), heading_text(title)))
        elif (attribute := _ATTRIBUTE.match(line)) and all(level == 1 for _, level, _ in starts):
            meta[attribute.group(1)] = attribute.group(2).strip()  # the header's, before any section
    sections = cut_sections(lines, starts, 1)
    title = next((name for _, level, name in starts if level == 1 and name), "")
    if not title:
        title = next((s.heading_path[0] for s in sections if s.heading_path), "") or PurePosixPath(path).stem
    return ParsedDocument(title, tuple(sections), dict(meta))

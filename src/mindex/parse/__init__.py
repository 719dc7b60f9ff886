"""Pure parsers: file text in, `ParsedDocument` (title, metadata, sections) out.

`PARSERS` maps a file suffix to the function that parses it; adding a format is one entry.
"""

from __future__ import annotations

from collections.abc import Callable

from mindex.models import ParsedDocument
from mindex.parse.html import parse_html
from mindex.parse.markdown import parse_markdown, parse_mdx
from mindex.parse.rst import parse_rst
from mindex.parse.text import parse_text

TextParser = Callable[[str, str], ParsedDocument]

PARSERS: dict[str, TextParser] = {
    ".md": parse_markdown,
    ".markdown": parse_markdown,
    ".mdx": parse_mdx,
    ".html": parse_html,
    ".htm": parse_html,
    ".rst": parse_rst,
    ".txt": parse_text,
}

# PDF is binary and optional (the `pdf` extra): handled apart, see `mindex.parse.pdf`.
BINARY_SUFFIXES = {".pdf"}

__all__ = ["PARSERS", "BINARY_SUFFIXES", "TextParser"]

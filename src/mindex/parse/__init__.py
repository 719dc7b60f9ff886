"""Pure parsers: file text in, `ParsedDocument` (title, metadata, sections) out.

`PARSERS` maps a file suffix to the function that parses it; adding a format is one entry.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from importlib import import_module

from mindex.models import ParsedDocument

TextParser = Callable[[str, str], ParsedDocument]


class UnreadableInput(ValueError):
    """A file a parser cannot read for what it holds (a notebook that is not a notebook's
    JSON): its message is the reason a person reads, not a parser's failure to report."""


class _Parsers(Mapping[str, TextParser]):
    """Suffix → parser, each parser's module imported on first use (a run that parses no
    HTML never loads the HTML converter; a no-op run loads none)."""

    def __init__(self, where: dict[str, str]) -> None:
        self._where = where

    def __getitem__(self, suffix: str) -> TextParser:
        module, _, name = self._where[suffix].partition(":")
        parser: TextParser = getattr(import_module(module), name)
        return parser

    def __iter__(self) -> Iterator[str]:
        return iter(self._where)

    def __len__(self) -> int:
        return len(self._where)


PARSERS: Mapping[str, TextParser] = _Parsers({
    ".md": "mindex.parse.markdown:parse_markdown",
    ".markdown": "mindex.parse.markdown:parse_markdown",
    ".mdx": "mindex.parse.markdown:parse_mdx",
    ".html": "mindex.parse.html:parse_html",
    ".htm": "mindex.parse.html:parse_html",
    ".rst": "mindex.parse.rst:parse_rst",
    ".txt": "mindex.parse.text:parse_text",
    ".adoc": "mindex.parse.asciidoc:parse_asciidoc",
    ".asciidoc": "mindex.parse.asciidoc:parse_asciidoc",
    ".ipynb": "mindex.parse.notebook:parse_notebook",
    ".org": "mindex.parse.markup:parse_org",
    ".rdoc": "mindex.parse.markup:parse_rdoc",
    ".pod": "mindex.parse.markup:parse_pod",
    **{suffix: "mindex.parse.markup:parse_texinfo" for suffix in (".texi", ".texinfo", ".txi")},
    **{suffix: "mindex.parse.roff:parse_roff" for suffix in (".1", ".2", ".3", ".4", ".5", ".6", ".7", ".8", ".9", ".man",
                                                             ".mdoc")},
})

# PDF is binary and optional (the `pdf` extra): handled apart, see `mindex.parse.pdf`.
BINARY_SUFFIXES = {".pdf"}

__all__ = ["PARSERS", "BINARY_SUFFIXES", "TextParser", "UnreadableInput"]

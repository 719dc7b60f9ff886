"""Every chunk of real HTML manuals (Sphinx, MkDocs, hand-written, Texinfo) reports lines of
the page that hold its text; page chrome (navigation bars, inline image bytes) is not indexed."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from mindex.chunk import chunk_document
from mindex.parse.html import parse_html

# Sphinx's name indexes (in sphinx-build/) are pages no docs source indexes: lists of names.
PAGES = sorted(p for p in (Path(__file__).parent / "fixtures" / "html").glob("*/*.html")
               if p.name not in ("genindex.html", "search.html", "py-modindex.html"))

# What the reader of a page sees of the source: no tags, comments, scripts or styles.
_HIDDEN = re.compile(r"<!--.*?-->|<(script|style)\b[^>]*>.*?</\1\s*>", re.DOTALL | re.IGNORECASE)
_TAG = re.compile(r"<[^>]*>", re.DOTALL)
# What markdown adds that the page's text does not hold: fences, list numbers, link targets,
# images (their alt text was an attribute), a link cut in two by a chunk's edge.
_FENCE = re.compile(r"^[\s>]*(```|~~~).*$", re.MULTILINE)
_LIST = re.compile(r"^[\s>]*(?:[-*+]|\d+[.)])(?:\s+|$)", re.MULTILINE)
_IMAGE = re.compile(r"!\[[^\]]*\]\((?:<[^>]*>|[^)]*)\)")
_TARGET = re.compile(r"\]\((?:<[^>]*>|(?:[^()\s]|\([^()]*\))*)(?:\s+\"[^\"]*\")?\)")
_CUT_LINK = re.compile(r"^[^\[\]]*\]\([^)]*\)|\]\([^)]*$")
_WORD = re.compile(r"[^\W_]{3,}")


def _page_words(source: str) -> str:
    return " ".join(_WORD.findall(html.unescape(_TAG.sub(" ", _HIDDEN.sub(" ", source))).casefold()))


def _chunk_words(text: str) -> list[str]:
    for pattern, by in ((_FENCE, ""), (_LIST, ""), (_IMAGE, " "), (_TARGET, "] "), (_CUT_LINK, " ")):
        text = pattern.sub(by, text)
    return _WORD.findall(text.casefold())


@pytest.mark.parametrize("page", PAGES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_chunk_span_holds_the_chunk_text(page: Path) -> None:
    source = page.read_text(encoding="utf-8")
    lines = source.split("\n")
    chunks = chunk_document("s", page.name, parse_html(source, page.name))
    assert len(chunks) >= 2
    checked = 0
    for chunk in chunks:
        words = _chunk_words(chunk.text)
        if len(words) < 3:
            continue
        assert chunk.start_line is not None and chunk.end_line is not None
        region = _page_words("\n".join(lines[chunk.start_line - 1 : chunk.end_line]))
        for word in words[:3] + words[-3:]:
            assert word in region, (chunk.start_line, chunk.end_line, word, chunk.text[:200])
        checked += 1
    assert checked >= len(chunks) - 1  # at most one chunk too short to check


def test_spans_cover_a_wrapped_paragraph_not_one_line() -> None:
    page = next(p for p in PAGES if p.name == "sandbox.html")
    chunks = chunk_document("s", page.name, parse_html(page.read_text(encoding="utf-8"), page.name))
    one_line = sum(c.start_line == c.end_line for c in chunks)
    assert one_line <= len(chunks) // 10


def test_texinfo_navigation_bars_and_inline_image_bytes_are_not_indexed() -> None:
    for page in PAGES:
        text = "\n".join(c.text for c in chunk_document("s", page.name, parse_html(page.read_text(encoding="utf-8"), page.name)))
        assert not re.search(r"^\W*Next:.*(Previous|Up):", text, re.MULTILINE), page
        assert "data:image" not in text and "base64," not in text, page

"""HTML into markdown sections, dropping navigation, sidebars and footers.

Conversion changes the line layout, so each converted line is aligned back to the lines of
the original file that hold its text. Both sides are reduced to their letters and digits,
case folded (blind to tags, entities, spacing, punctuation and markdown syntax), the source
as one stream that remembers each character's line. Each converted line is then found in
that stream after the previous one: its head gives the first line, its tail the last, so a
paragraph the source wraps over ten lines spans those ten lines.
"""

from __future__ import annotations

import html as htmllib
import re
from array import array
from pathlib import PurePosixPath

from mindex.models import ParsedDocument, Section
from mindex.parse.markdown import markdown_sections, split_front_matter

# Page chrome of common generators (Sphinx, MkDocs, Docusaurus, DocBook as used by
# PostgreSQL, Javadoc, Texinfo) plus the semantic HTML5 elements for it.
NAV_SELECTORS = [
    "nav", "footer", "aside", "script", "style", "noscript", "body > header",
    "[role=navigation]", "[role=banner]", "[role=contentinfo]", "[role=search]",
    ".sidebar", ".sphinxsidebar", ".related", ".navbar", ".nav", ".navigation", ".breadcrumb",
    ".breadcrumbs", ".toc", ".md-sidebar", ".md-header", ".md-footer", ".headerlink",
    ".navheader", ".navfooter", ".theme-doc-sidebar-container", ".pagination-nav",
    ".skip-link", ".top-nav", ".bottom-nav", ".subNav",
    "div.header", ".nav-panel",  # Texinfo 6 and 7: "Next: … Previous: … Up: …"
]
# A navigation line that survives as text: at least two of Next/Previous/Up with a colon.
_NAV_LINE = re.compile(r"^\W*(?:(?:Next|Previous|Prev|Up)\s*:.*?){2,}$", re.IGNORECASE)
_DATA_URI = re.compile(r"\(data:[^)\s]*\)")
# A heading inside a list item (Javadoc puts each member's `<h3>` in an `<li>`): the
# converter writes `  * ### isBlank`, which no markdown reader takes for a heading.
_LISTED_HEADING = re.compile(r"^[ \t]*(?:[-*+]|\d+[.)])[ \t]+(#{1,6}[ \t]+\S.*)$")
_MARKUP = re.compile(
    r"<!--.*?-->|<(script|style|noscript|template)\b[^>]*>.*?</\1\s*>|<!\[CDATA\[.*?\]\]>|<[^>]*>",
    re.DOTALL | re.IGNORECASE)
# A markdown link or image: a link's text stays; its target and title, and an image's alt
# text, go (in the page they were attributes).
_MD_LINK = re.compile(r'(!?)\[((?:[^\[\]]|\[[^\]]*\])*)\]\((?:<[^>]*>|(?:[^()\s]|\([^()]*\))*)(?:\s+"[^"]*")?\)')
_NON_WORD = re.compile(r"[\W_]+", re.UNICODE)
# The converter drops, without a word, the text of elements nested more than about 1,020
# deep; a page nested deeper than this is read as plain text (no real page comes close).
MAX_DEPTH = 800
_TAG = re.compile(r"<(/?)([A-Za-z][\w:-]*)[^>]*>")
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
# Elements that hold nothing, or whose end tag may be left out (HTML closes them itself).
_SELF_CLOSING = frozenset("""area base br col embed hr img input link meta param source track wbr
    p li dt dd tr td th thead tbody tfoot option optgroup colgroup caption rp rt""".split())
# A list item's marker: the page's <ol> numbers are not in its text.
_LIST_MARKER = re.compile(r"^[\s>]*(?:[-*+]|\d+[.)])(?:\s+|$)")
_HEAD = 48  # characters of a line's head searched for anywhere ahead (precise)
_SHORT = 16  # a shorter head, searched nearby only, survives differences later in the line
_NEARBY = 20_000
_CLOSE = 1_000  # how far a probe shorter than _SHORT may be looked for: short text recurs
_TINY, _BESIDE = 6, 200  # a probe this short is looked for only this close: `3` or `if` recur
_FENCE = re.compile(r"^\s*(```|~~~)")


def nesting_depth(source: str) -> int:
    """How deep the page's elements nest, counting only elements that must be closed (an
    unclosed `<p>` or `<li>` closes itself, a `<br>` holds nothing)."""
    depth = deepest = 0
    for closing, name in _TAG.findall(_COMMENT.sub("", source)):
        name = name.lower()
        if name in _SELF_CLOSING:
            continue
        depth = max(0, depth - 1) if closing else depth + 1
        deepest = max(deepest, depth)
    return deepest


def _text_only(source: str) -> str:
    """The page's text without its markup: what is indexed when the converter cannot help."""
    return re.sub(r"[ \t]+", " ", htmllib.unescape(_MARKUP.sub(" ", source)))


def _to_markdown(source: str) -> str:
    import html_to_markdown as h2m

    options = h2m.ConversionOptions(exclude_selectors=NAV_SELECTORS, extract_metadata=True)
    if nesting_depth(source) > MAX_DEPTH:  # the converter would drop what is below
        text = _text_only(source)
    else:
        try:
            text = str(h2m.convert(source, options).content)
        except Exception:  # the converter's own error types vary by version
            text = _text_only(source)
    text = _DATA_URI.sub("()", text)  # an inline image's bytes are not text to search
    return "\n".join("" if _NAV_LINE.match(line) else _LISTED_HEADING.sub(r"\1", line) for line in text.split("\n"))


def plain_source(source: str) -> tuple[str, array[int]]:
    """The page's text outside tags, comments, scripts and styles, reduced to letters and
    digits and case folded, with the 1-based source line of every character."""
    parts: list[str] = []
    lines: array[int] = array("i")
    line, pos = 1, 0

    def take(text: str, first: int) -> None:
        for n, piece in enumerate(text.split("\n")):
            plain = _NON_WORD.sub("", htmllib.unescape(piece)).casefold()
            if plain:
                parts.append(plain)
                lines.extend([first + n] * len(plain))

    for markup in _MARKUP.finditer(source):
        take(source[pos : markup.start()], line)
        line += source.count("\n", pos, markup.end())
        pos = markup.end()
    take(source[pos:], line)
    return "".join(parts), lines


def plain_markdown(line: str) -> str:
    """A converted line reduced like `plain_source`: link targets dropped, text kept."""
    text = _MD_LINK.sub(lambda m: " " if m.group(1) else m.group(2) + " ", _LIST_MARKER.sub("", line))
    return _NON_WORD.sub("", text).casefold()


def _locate(plain: str, probe: str, cursor: int) -> tuple[int, int] | None:
    """Where `probe` sits in `plain` at or after `cursor`: (first, last) character offsets."""
    head = probe[:_HEAD]
    if len(head) < _SHORT:
        start = plain.find(head, cursor, cursor + (_BESIDE if len(head) < _TINY else _CLOSE))
    else:
        start = plain.find(head, cursor)
        if start < 0:
            head = probe[:_SHORT]
            start = plain.find(head, cursor, cursor + _NEARBY)
    if start < 0:
        return None
    tail = probe[-_SHORT:]
    end = plain.find(tail, start, start + len(probe) + _NEARBY)
    # Without its tail, the line ends where its head did: an overshoot would skip text.
    last = end + len(tail) - 1 if end >= 0 else start + len(head) - 1
    return start, max(start, last)


def align_lines(converted: list[str], source: str) -> list[tuple[int, int]]:
    """Map each converted line to the (first, last) 1-based lines of the original HTML that
    hold its text, in order; a line with no text of its own (a fence, a rule) or text the
    source does not have gets the line where the previous one ended."""
    plain, line_of = plain_source(source)
    if not plain:
        return [(1, 1)] * len(converted)
    cursor = 0
    spans: list[tuple[int, int]] = []
    for text in converted:
        probe = "" if _FENCE.match(text) else plain_markdown(text)  # a fence's language is not text
        found = _locate(plain, probe, cursor) if probe else None
        if found is None:
            here = line_of[min(cursor, len(plain) - 1)]
            spans.append((here, here))
            continue
        first, last = found
        spans.append((line_of[first], line_of[last]))
        cursor = last + 1
    return spans


def parse_html(text: str, path: str) -> ParsedDocument:
    """Parse an HTML page: convert to markdown, drop page chrome, keep original line spans."""
    meta, body, _ = split_front_matter(_to_markdown(text))
    spans = align_lines(body.split("\n"), text)
    sections = []
    for section in markdown_sections(body, first_line=1):
        first = (section.start_line or 1) - 1
        count = section.text.count("\n") + 1
        sections.append(
            Section(section.heading_path, section.text, spans[first][0], line_map=tuple(spans[first : first + count]))
        )
    title = meta.get("title")
    if not isinstance(title, str) or not title.strip():
        title = next((s.heading_path[0] for s in sections if s.heading_path), PurePosixPath(path).stem)
    meta = {k: v for k, v in meta.items() if k != "title"} | {"title": str(title).strip()}
    return ParsedDocument(str(title).strip(), tuple(sections), meta)

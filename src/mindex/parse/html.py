"""HTML into markdown sections, dropping navigation, sidebars and footers.

Conversion changes the line layout, so each converted line is aligned back to the line of
the original file where its text appears (a forward-only search), and chunks report
original-file line spans.
"""

from __future__ import annotations

import html as htmllib
import re
from pathlib import PurePosixPath

from mindex.models import ParsedDocument, Section
from mindex.parse.markdown import markdown_sections, split_front_matter

# Page chrome of common generators (Sphinx, MkDocs, Docusaurus, DocBook as used by
# PostgreSQL, Javadoc) plus the semantic HTML5 elements for it.
NAV_SELECTORS = [
    "nav", "footer", "aside", "script", "style", "noscript", "body > header",
    "[role=navigation]", "[role=banner]", "[role=contentinfo]", "[role=search]",
    ".sidebar", ".sphinxsidebar", ".related", ".navbar", ".nav", ".navigation", ".breadcrumb",
    ".breadcrumbs", ".toc", ".md-sidebar", ".md-header", ".md-footer", ".headerlink",
    ".navheader", ".navfooter", ".theme-doc-sidebar-container", ".pagination-nav",
    ".skip-link", ".top-nav", ".bottom-nav", ".subNav",
]
_TAG = re.compile(r"<[^>]*>")
_MD_SYNTAX = re.compile(r"!?\[([^\]]*)\]\([^)]*\)|[#*_`|>~]+|^\s*(?:[-+]|\d+\.)\s+")
_NON_WORD = re.compile(r"\W+", re.UNICODE)
_ALIGN_WINDOW = 400


def _to_markdown(source: str) -> str:
    import html_to_markdown as h2m

    options = h2m.ConversionOptions(exclude_selectors=NAV_SELECTORS, extract_metadata=True)
    try:
        return str(h2m.convert(source, options).content)
    except Exception:  # the converter's own error types vary by version; fall back below
        text = htmllib.unescape(_TAG.sub(" ", source))
        return re.sub(r"[ \t]+", " ", text)


def _plain_lines(source: str) -> list[str]:
    """The original file's lines reduced to their word characters, case folded.

    Comparing word characters only makes the match blind to what conversion changes:
    tags, entities, spacing, punctuation and markdown syntax.
    """
    return [_NON_WORD.sub("", htmllib.unescape(_TAG.sub(" ", line))).casefold() for line in source.split("\n")]


def _find(plain: list[str], probe: str, start: int) -> int | None:
    for i in range(start, min(len(plain), start + _ALIGN_WINDOW)):
        if probe in plain[i]:
            return i
    return None


def align_lines(converted: list[str], source: str) -> list[int]:
    """Map each converted line to a 1-based line of the original HTML (monotone)."""
    plain = _plain_lines(source)
    pos = 0
    mapping: list[int] = []
    for line in converted:
        words = _NON_WORD.sub("", _MD_SYNTAX.sub(r"\1 ", line)).casefold()
        # A long probe is precise; a short one survives a line break inside the source.
        for probe in (words[:24], words[:10]):
            found = _find(plain, probe, pos) if len(probe) >= 4 else None
            if found is not None:
                pos = found
                break
        mapping.append(pos + 1)
    return mapping


def parse_html(text: str, path: str) -> ParsedDocument:
    """Parse an HTML page: convert to markdown, drop page chrome, keep original line spans."""
    meta, body, _ = split_front_matter(_to_markdown(text))
    line_of = align_lines(body.split("\n"), text)
    sections = []
    for section in markdown_sections(body, first_line=1):
        first = (section.start_line or 1) - 1
        count = section.text.count("\n") + 1
        sections.append(
            Section(
                section.heading_path,
                section.text,
                line_of[first],
                line_map=tuple(line_of[first : first + count]),
            )
        )
    title = meta.get("title")
    if not isinstance(title, str) or not title.strip():
        title = next((s.heading_path[0] for s in sections if s.heading_path), PurePosixPath(path).stem)
    meta = {k: v for k, v in meta.items() if k != "title"} | {"title": str(title).strip()}
    return ParsedDocument(str(title).strip(), tuple(sections), meta)

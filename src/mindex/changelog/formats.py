"""Changelogs written in other markups, read as markdown line for line (so a change's line
number is its file's): AsciiDoc and RDoc (`== 1.2.0`, `=== 6.0.4 / 2026-04-14`), Org
(`* v4.7.0    2026-08-01`, magit's) and reStructuredText (towncrier's NEWS.rst)."""

from __future__ import annotations

import re

from mindex.languages import ASCIIDOC_BLOCK
from mindex.parse.markup import ORG_BLOCK, ORG_HEADING, RDOC_CODE, org_untagged

# A markdown heading: what every other format is read into (`changelog.parse` cuts at them).
# Its closing `#` run is taken off by `markdown_heading`, not by the pattern: written as
# `(.+?)\s*#*\s*$` it took cubic time on a long run of spaces inside a heading.
MARKDOWN_HEADING = re.compile(r"^\s{0,3}(?P<marks>#{1,6})\s+(?P<text>.+)$")


def markdown_heading(line: str) -> tuple[int, str] | None:
    """(level, title) of a markdown heading line, its closing `#` run and spaces dropped."""
    heading = MARKDOWN_HEADING.match(line)
    if heading is None:
        return None
    text = heading.group("text")
    return len(heading.group("marks")), text.rstrip().rstrip("#").rstrip() or text[:1]

_ADOC_TITLE = re.compile(r"^(={1,6})[ \t]+(\S.*)$")
_ADOC_TERM = re.compile(r"^([A-Z][\w ,/&'()-]{0,60})::[ \t]*$")  # `Bug Fixes::`, a section of changes


def is_asciidoc(lines: list[str]) -> bool:
    """An AsciiDoc or RDoc changelog (both write titles with `=`): its title is `= Title`, or
    its releases are `== 1.2.0` (or `=== 6.0.4 / 2026-04-14`, minitest's History.rdoc)."""
    first = next((line for line in lines if line.strip()), "")
    return first.startswith("= ") or sum(
        1 for line in lines[:400] if (title := _ADOC_TITLE.match(line)) and len(title.group(1)) >= 2) >= 2


def asciidoc_to_markdown(lines: list[str]) -> list[str]:
    """`= Title` and `== 1.2.0 (date)` become `#` headings, a `Bug Fixes::` term a heading below
    them (Asciidoctor's own changelog), outside delimited blocks; a line each, numbers kept."""
    out, block, deepest = [], None, 1
    for line in lines:
        delimiter = ASCIIDOC_BLOCK.match(line)
        if block is not None:
            block = None if delimiter and delimiter.group(1) == block else block
            out.append(line)
            continue
        if delimiter:
            block = delimiter.group(1)
            out.append(line)
            continue
        line = RDOC_CODE.sub(lambda m: f"`{m.group(1) or m.group(2)}`", line)  # `/tt` is no slash command
        title, term = _ADOC_TITLE.match(line), _ADOC_TERM.match(line)
        if title:
            deepest = max(deepest, len(title.group(1)))
            out.append("#" * len(title.group(1)) + " " + title.group(2).strip())
        elif term:
            out.append("#" * min(6, deepest + 1) + " " + term.group(1).strip())
        else:
            out.append(line)
    return out


def is_rst(lines: list[str]) -> bool:
    return any(re.fullmatch(r"(=+|-+|~+|\^+)", b.strip() or " ") and a.strip() and len(b.strip()) >= len(a.strip()) - 2
               for a, b in zip(lines, lines[1:], strict=False)) and not any(MARKDOWN_HEADING.match(x) for x in lines[:50])


# reStructuredText's inline markup, read as markdown (`_rst_inline`).
_RST_LITERAL = re.compile(r"``(.+?)``", re.DOTALL)
_RST_ROLE = re.compile(r":(?P<role>[a-z][\w+.-]*(?::[a-z][\w+.-]*)?):`(?P<text>[^`]+)`")  # `py:func`: one domain
_RST_LINK = re.compile(r"`(?P<text>[^`<]+?)\s*<(?P<url>[^`>]+)>`__?")
_RST_NAMED = re.compile(r"`(?P<text>[^`<]+)`__?(?!\w)")
_PEOPLE = {"user", "github", "gh"}  # :user:`name`, a person: @name, never an entity
_NUMBERS = {"issue", "issues", "pr", "pull", "bug", "ghissue"}  # :issue:`123`: #123
_WORDS = {"ref", "doc", "std:ref", "std:doc", "any", "term", "numref", "abbr", "title", "emphasis", "strong", "pep"}


def _rst_role(m: re.Match[str]) -> str:
    role, text = m.group("role"), m.group("text").strip()
    target = re.match(r"(?P<shown>.*?)\s*<(?P<to>[^<>]+)>$", text)
    shown = (target.group("shown") or target.group("to")) if target else text
    if role in _PEOPLE:
        return f"@{shown}"
    if role in _NUMBERS:
        return f"#{shown}" if shown.isdigit() else shown
    if role in _WORDS:
        return f"PEP {shown}" if role == "pep" else shown
    if shown.startswith("~"):  # :func:`~pkg.mod.f` shows `f`
        shown = shown[1:].rsplit(".", 1)[-1]
    return f"`{shown.lstrip('!')}`"  # a name: func, meth, class, confval, envvar, option, py:data, ...


def _rst_inline(line: str) -> str:
    """A line's reStructuredText inline markup as markdown: ``code`` and roles naming code
    as `code` (so entities are found in them), `text <url>`_ as a link, :ref: and :doc: as
    their words, :issue:`123` as #123 and :user:`name` as @name (pytest's and setuptools'
    towncrier files printed every change as raw markup)."""
    if "`" not in line:
        return line
    kept: list[str] = []

    def keep(text: str) -> str:  # literals first, so nothing inside them is read as markup
        kept.append(text)
        return f"\0{len(kept) - 1}\0"
    line = _RST_LITERAL.sub(lambda m: keep(f"`{m.group(1)}`"), line)
    line = _RST_ROLE.sub(lambda m: keep(_rst_role(m)), line)
    line = _RST_LINK.sub(lambda m: keep(f"[{m.group('text').strip()}]({m.group('url').strip()})"), line)
    line = _RST_NAMED.sub(lambda m: m.group("text"), line)
    return re.sub(r"\0(\d+)\0", lambda m: kept[int(m.group(1))], line)


def rst_to_markdown(lines: list[str]) -> list[str]:
    """Underlined headings become `#` headings by the order their underline first appears;
    inline markup becomes markdown's (`_rst_inline`)."""
    order: list[str] = []
    out: list[str] = []
    skip = False
    for i, line in enumerate(lines):
        if skip:
            skip = False
            continue
        under = lines[i + 1].strip() if i + 1 < len(lines) else ""
        if line.strip() and re.fullmatch(r"(=+|-+|~+|\^+|\*+)", under or " ") and len(under) >= len(line.strip()) - 2:
            char = under[0]
            if char not in order:
                order.append(char)
            out.append("#" * min(6, order.index(char) + 1) + " " + line.strip())
            skip = True
            continue
        out.append(line)
    # Inline markup a paragraph at a time: a link or a literal may wrap onto the next line
    # (tox's "`typeshed PR\n#15613 <https://...>`_"), never past a blank line. A paragraph
    # that lost a line break keeps its lines' count with an empty line after it, so every
    # later line keeps its number.
    parts = []
    for part in re.split(r"(\n[ \t]*\n)", "\n".join(out)):
        made = _rst_inline(part)
        parts.append(made + "\n" * (part.count("\n") - made.count("\n")))
    return "".join(parts).split("\n")


# -- Org ---------------------------------------------------------------------------------------

_ORG_RELEASE = re.compile(r"^\*{1,3}[ \t]+(?:\S+[ \t]+)?v?\d+\.\d+")  # `* v4.7.0 ...`, `* Version 9.7`
# Org's ~code~ and =verbatim=, between a non-word (or line) edge and a non-space inside.
_ORG_CODE = re.compile(r"(?<![\w~=])([~=])([^\s~=](?:[^\n]*?[^\s])??)\1(?![\w~=])")


def is_org(lines: list[str]) -> bool:
    """An Org changelog: it says so (`-*- mode: org -*-`, `#+title:`), or two of its first
    headings are `*` lines holding a version and no markdown `#` heading comes before them."""
    first = next((line for line in lines if line.strip()), "")
    if "mode: org" in first.lower() or first.lower().startswith("#+title:"):
        return True
    return (sum(1 for line in lines[:400] if _ORG_RELEASE.match(line)) >= 2
            and not any(MARKDOWN_HEADING.match(line) for line in lines[:400]))


def org_to_markdown(lines: list[str]) -> list[str]:
    """`*` headings become `#` headings (tags dropped), `#+begin_src` blocks fences, `~code~`
    and `=code=` backticks, keyword and comment lines blank; a line each."""
    out: list[str] = []
    block = False
    for line in lines:
        fence = ORG_BLOCK.match(line)
        if fence:
            block = fence.group(1).lower() == "begin"
            out.append("```")
            continue
        if block:
            out.append(line)
            continue
        heading = ORG_HEADING.match(line)
        title = heading.group(2).rstrip(" \t") if heading else ""
        if heading and len(heading.group(1)) <= 6 and title:  # markdown's depths, a title
            out.append("#" * len(heading.group(1)) + " " + org_untagged(title))
        elif line.startswith(("#+", "# ")) or line == "#":
            out.append("")
        else:
            out.append(_ORG_CODE.sub(lambda m: f"`{m.group(2)}`", line))
    return out

"""Four more documentation markups into sections at their headings, the text kept as written
(as reStructuredText and AsciiDoc are): a folder of them was indexed as nothing, without a
word said.

- Org (`.org`: Emacs packages' READMEs and manuals): `* Heading` to any depth; a heading's TODO
  keyword, priority and tags are not its title; no heading inside a `#+begin_` block; the
  `#+title:` and the other keywords before the first heading are metadata.
- RDoc (`.rdoc`: Ruby gems' READMEs and histories): `= Heading` to `======`.
- POD (`.pod`: Perl's manuals): `=head1` to `=head6`; the NAME section's line is the title
  (`Mojolicious::Guides::FAQ - Frequently Asked Questions`).
- Texinfo (`.texi`, `.texinfo`, `.txi`: GNU and Emacs manuals): `@top`, `@chapter`,
  `@section`, ... and their unnumbered and appendix kinds; a section starts at the `@node` line
  before its heading; `@settitle` is the title; no heading inside `@ignore` or an example.

A heading reads as its text: Org's `[[target][text]]`, RDoc's `{text}[url]`, POD's `L<text|x>`
and `C<code>`, Texinfo's `@code{x}` are their text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import PurePosixPath

from mindex.models import ParsedDocument, Section
from mindex.parse.markdown import cut_sections

Starts = list[tuple[int, int, str]]  # (line index, level, title)


def _document(lines: list[str], starts: Starts, title: str, path: str, meta: dict[str, str]) -> ParsedDocument:
    sections: list[Section] = cut_sections(lines, starts, 1)
    if not title:
        title = next((s.heading_path[0] for s in sections if s.heading_path), "") or PurePosixPath(path).stem
    return ParsedDocument(title, tuple(sections), dict(meta))


# --- Org -------------------------------------------------------------------------------------

# The patterns read a heading's title to the line's end and the code strips its trailing
# spaces: `(.*?)[ \t]*$` took quadratic time on a long run of spaces inside a line.
ORG_HEADING = re.compile(r"^(\*+)[ \t]+(.*)$")
_ORG_TAGS = re.compile(r":[\w@#%:]+:")
_ORG_KEYWORD = re.compile(r"^#\+(\w+):[ \t]*(.*)$")
ORG_BLOCK = re.compile(r"^[ \t]*#\+(begin|end)_(\w+)", re.IGNORECASE)
_ORG_LINK = re.compile(r"\[\[([^\[\]]*)\](?:\[([^\]]*)\])?\]")  # no `[` in a target: linear on `[[[[`
_ORG_TODO_WORDS = re.compile(r"^(?:TODO|SEQ_TODO|TYP_TODO)$", re.IGNORECASE)


def parse_org(text: str, path: str) -> ParsedDocument:
    """Parse an Org file: sections at its headings, the keywords before the first as metadata."""
    lines = text.split("\n")
    meta: dict[str, str] = {}
    todo = {"TODO", "DONE"}
    starts: Starts = []
    block: str | None = None
    for i, line in enumerate(lines):
        fence = ORG_BLOCK.match(line)
        if block is not None:
            if fence and fence.group(1).lower() == "end" and fence.group(2).lower() == block:
                block = None
            continue
        if fence and fence.group(1).lower() == "begin":
            block = fence.group(2).lower()
            continue
        keyword = _ORG_KEYWORD.match(line)
        if keyword:
            name, value = keyword.group(1), keyword.group(2).strip()
            if _ORG_TODO_WORDS.match(name):
                todo.update(word for word in value.replace("|", " ").split() if word.isupper())
            elif not starts:
                meta.setdefault(name.lower(), value)
            continue
        heading = ORG_HEADING.match(line)
        if heading:
            starts.append((i, len(heading.group(1)), _org_title(heading.group(2).rstrip(" \t"), todo)))
    return _document(lines, starts, meta.get("title", ""), path, meta)


def org_untagged(title: str) -> str:
    """An Org heading's title without its tags (`Reporting issues :bug:ui:`)."""
    cut = max(title.rfind(" "), title.rfind("\t"))
    return title[:cut].rstrip(" \t") if cut >= 0 and _ORG_TAGS.fullmatch(title[cut + 1:]) else title


def _org_title(raw: str, todo: set[str]) -> str:
    raw = org_untagged(raw)
    first, _, rest = raw.partition(" ")
    if first in todo and rest:
        raw = rest.lstrip()
    if raw.startswith("[#") and raw[3:4] == "]":  # a priority cookie
        raw = raw[4:].lstrip()
    return _ORG_LINK.sub(lambda m: m.group(2) or m.group(1), raw).strip()


# --- RDoc ------------------------------------------------------------------------------------

_RDOC_HEADING = re.compile(r"^(={1,6})[ \t]*(\S.*)$")
# A link's label from a word's start (each word's first character tried once: linear).
_RDOC_LINK = re.compile(r"\{([^{}]*)\}\[[^\]]*\]|(?<!\S)(\S+)\[(?:https?|mailto|link|rdoc-ref):[^\]]*\]")
# Code as RDoc writes it, `<tt>ENV["N"]</tt>` and `+options[:filter]+` (AsciiDoc's `+literal+` alike).
RDOC_CODE = re.compile(r"<(?:tt|code)>(.+?)</(?:tt|code)>|(?<![\w+])\+([^\s+](?:[^+\n]*?[^\s+])?)\+(?![\w+])")


def _headings(lines: list[str], pattern: re.Pattern[str], read: Callable[[re.Match[str]], tuple[int, str]]) -> Starts:
    """(line index, level, title) of each line `pattern` matches, `read` giving level and title."""
    return [(i, *read(heading)) for i, line in enumerate(lines) if (heading := pattern.match(line))]


def _rdoc_heading(heading: re.Match[str]) -> tuple[int, str]:
    title = _RDOC_LINK.sub(lambda m: m.group(1) if m.group(1) is not None else m.group(2), heading.group(2).rstrip(" \t"))
    return len(heading.group(1)), RDOC_CODE.sub(lambda m: m.group(1) or m.group(2), title)


def parse_rdoc(text: str, path: str) -> ParsedDocument:
    """Parse an RDoc file: sections at its `=` headings."""
    lines = text.split("\n")
    starts = _headings(lines, _RDOC_HEADING, _rdoc_heading)
    title = next((name for _, level, name in starts if level == 1), "")
    return _document(lines, starts, title, path, {})


# --- POD -------------------------------------------------------------------------------------

_POD_HEAD = re.compile(r"^=head([1-6])[ \t]*(.*)$")
TITLE_CHARS = 2000
_POD_CODE = re.compile(r"([A-Z])<<+[ \t](.*?)[ \t]>>+|([A-Z])<([^<>]*)>")
_POD_ESCAPES = {"lt": "<", "gt": ">", "verbar": "|", "sol": "/"}


def parse_pod(text: str, path: str) -> ParsedDocument:
    """Parse a POD file: sections at `=head1` to `=head6`, its NAME line as the title."""
    lines = text.split("\n")
    starts = _headings(lines, _POD_HEAD, lambda heading: (int(heading.group(1)), pod_text(heading.group(2).rstrip(" \t"))))
    title = ""
    for at, level, name in starts:
        if level == 1 and name.upper() == "NAME":
            following = [line.strip() for line in lines[at + 1:at + 12]]
            paragraph = next((line for line in following if line and not line.startswith("=")), "")
            title = pod_text(paragraph)
            break
    return _document(lines, starts, title, path, {})


def pod_text(raw: str) -> str:
    """POD's formatting codes read as text: `C<x>` and `B<< x >>` are `x`, `L<text|target>`
    is `text`, `E<gt>` is `>`, `Z<>` nothing. A text longer than `TITLE_CHARS` is kept as
    written (an unclosed `C<< ` scans to the line's end, for each one)."""
    if len(raw) > TITLE_CHARS:
        return raw.strip()
    return _innermost_first(lambda text: _POD_CODE.sub(_pod_code, text), raw).strip()


def _innermost_first(substitute: Callable[[str], str], raw: str, rounds: int = 8) -> str:
    """`substitute` applied again until nothing changes (codes inside codes, innermost first),
    `rounds` times at most."""
    for _ in range(rounds):
        done = substitute(raw)
        if done == raw:
            break
        raw = done
    return raw


def _pod_code(match: re.Match[str]) -> str:
    code, inner = (match.group(1), match.group(2)) if match.group(1) else (match.group(3), match.group(4))
    if code == "E":
        number = int(inner) if inner.isdigit() and len(inner) < 8 else -1
        return _POD_ESCAPES.get(inner, chr(number) if 0 < number <= 0x10FFFF else inner)
    if code == "L":
        label, bar, target = inner.partition("|")
        return label if bar else target.replace('"', "") or inner.replace('"', "")
    return "" if code in "ZX" else inner


# --- Texinfo ---------------------------------------------------------------------------------

_TEXI_LEVELS = {
    **dict.fromkeys(("top",), 1),
    **dict.fromkeys(("chapter", "unnumbered", "appendix", "majorheading", "chapheading"), 2),
    **dict.fromkeys(("section", "unnumberedsec", "appendixsec", "appendixsection", "heading"), 3),
    **dict.fromkeys(("subsection", "unnumberedsubsec", "appendixsubsec", "subheading"), 4),
    **dict.fromkeys(("subsubsection", "unnumberedsubsubsec", "appendixsubsubsec", "subsubheading"), 5),
}
_TEXI_COMMAND = re.compile(r"^@(\w+)(?:[ \t]+(.*?))?[ \t]*$")
_TEXI_BRACES = re.compile(r"@(\w+)\{([^{}]*)\}")
_TEXI_QUIET = frozenset({"ignore", "verbatim", "example", "smallexample", "lisp", "smalllisp", "tex", "html",
                         "display", "format"})
# A definition (`@defun magit-insert-heading args`, `@deffn {Interactive Command} magit-status`):
# a section of its own below the heading it is under, titled by the name it defines, after
# this many words (a category, a type) on its line.
_TEXI_DEFS = {**dict.fromkeys(("defun", "defmac", "defspec", "defvar", "defopt", "defmethod", "defop"), 0),
              **dict.fromkeys(("deffn", "defvr", "deftp", "deftypefun", "deftypevar"), 1),
              **dict.fromkeys(("deftypefn", "deftypevr", "deftypemethod"), 2)}
_TEXI_WORD = re.compile(r"\{[^{}]*\}|\S+")


def parse_texinfo(text: str, path: str) -> ParsedDocument:
    """Parse a Texinfo file: sections at its sectioning commands, from the `@node` line before
    each, and at its definitions (`@defun`, `@deffn`, ...) below them; `@settitle` is the title."""
    lines = text.split("\n")
    meta: dict[str, str] = {}
    starts: Starts = []
    block: str | None = None
    node: int | None = None  # the last `@node` line not yet followed by a heading
    depth = 1  # the level of the heading the lines are under
    for i, line in enumerate(lines):
        command = _TEXI_COMMAND.match(line)
        name = command.group(1) if command else ""
        if block is not None:
            if name == "end" and (command.group(2) or "").strip() == block:  # type: ignore[union-attr]
                block = None
            continue
        if name in _TEXI_QUIET:
            block = name
        elif name == "node":
            node = i
        elif name in _TEXI_LEVELS and command is not None:
            starts.append((node if node is not None else i, _TEXI_LEVELS[name], texinfo_text(command.group(2) or "")))
            node, depth = None, _TEXI_LEVELS[name]
        elif command is not None and name in _TEXI_DEFS and len(
                words := _TEXI_WORD.findall(command.group(2) or "")) > _TEXI_DEFS[name]:
            starts.append((i, min(6, depth + 1), texinfo_text(words[_TEXI_DEFS[name]])))
        elif name == "settitle" and command is not None:
            meta["title"] = texinfo_text(command.group(2) or "")
        elif line.strip() and name not in ("c", "comment", "anchor", "cindex", "findex", "kindex", "vindex"):
            node = None  # text between a node and a heading: the node is not the heading's
    return _document(lines, starts, meta.get("title", ""), path, meta)


def texinfo_text(raw: str) -> str:
    """Texinfo's inline commands read as text: `@code{x}` is `x`, `@dots{}` `...`, `@@` `@`."""
    raw = _innermost_first(
        lambda text: _TEXI_BRACES.sub(lambda m: "..." if m.group(1) == "dots" else m.group(2).split(",")[0], text), raw)
    return raw.replace("@@", "\0").replace("@{", "{").replace("@}", "}").replace("\0", "@").strip()

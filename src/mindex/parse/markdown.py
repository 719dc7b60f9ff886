"""Markdown (and MDX) into heading-delimited sections, with front-matter as metadata."""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any

import yaml

from mindex.models import ParsedDocument, Section

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_MDX_TOPLEVEL = re.compile(r"^(import|export)\s")
# In a heading's text outside code spans: an image or inline link (its text), an HTML tag
# (dropped), a backslash escape of ASCII punctuation (the character). No part can run past
# the next bracket it does not take, so a line of a thousand `[` costs what it is long.
_HEADING_PARTS = re.compile(r"!?\[([^\[\]]*)\]\([^()]*\)|</?[A-Za-z][^<>]*>|\\([!-/:-@\[-`{-~])")
_TICKS = re.compile(r"`+")


def heading_text(raw: str) -> str:
    """A heading as it reads: `[text](url)` and images are their text, HTML tags go, entities
    (`&ensp;`) and escapes (`\\_`) are the characters they stand for; code spans are kept as
    written (a link's text may hold one; a link that would end inside one is text). One pass,
    left to right, each part found once."""
    import html

    spans = _code_spans(raw)
    pieces: list[str] = []
    pos, n = 0, 0
    found = _HEADING_PARTS.search(raw)
    while True:
        while n < len(spans) and spans[n][1] <= pos:  # inside a link's text, taken with it
            n += 1
        if found is not None and found.start() < pos:
            found = _HEADING_PARTS.search(raw, pos)
        span = spans[n] if n < len(spans) else None
        if found is not None and (span is None or found.end() <= span[0] or (
                found.start() < span[0] and found.end() >= span[1])):
            pieces.append(html.unescape(raw[pos:found.start()]))
            pieces.append(found.group(2) if found.group(2) is not None else found.group(1) or "")
            pos = found.end()
        elif span is not None:
            pieces.append(html.unescape(raw[pos:span[0]]))
            pieces.append(raw[span[0]:span[1]])
            pos = span[1]
        else:
            pieces.append(html.unescape(raw[pos:]))
            return " ".join("".join(pieces).split())


def _code_spans(text: str) -> list[tuple[int, int]]:
    """Where code spans are: a run of n backticks opens one that the next run of exactly n
    closes (a run with no such partner is text; a backtick after an escaping backslash is
    text too). One pass over the runs, whatever their number."""
    runs = []
    for match in _TICKS.finditer(text):
        start = back = match.start()
        while back and text[back - 1] == "\\":
            back -= 1
        escaped = (start - back) % 2
        if start + escaped < match.end():
            runs.append((start + escaped, match.end()))
    partner: list[int | None] = [None] * len(runs)
    later: dict[int, int] = {}
    for n in range(len(runs) - 1, -1, -1):
        length = runs[n][1] - runs[n][0]
        partner[n] = later.get(length)
        later[length] = n
    spans, n = [], 0
    while n < len(runs):
        closing = partner[n]
        if closing is None:
            n += 1
            continue
        spans.append((runs[n][0], runs[closing][1]))
        n = closing + 1
    return spans


def split_front_matter(text: str) -> tuple[dict[str, Any], str, int]:
    """Split YAML front-matter off `text`: (metadata, body, lines consumed before body).

    Invalid YAML never fails the file: the block stays out of the body and the metadata
    records `front_matter_error`, so the summary can say why the fields are missing.
    """
    if not text.startswith("---"):
        return {}, text, 0
    lines = text.split("\n")
    if lines[0].strip() != "---":
        return {}, text, 0
    for end in range(1, len(lines)):
        if lines[end].strip() in ("---", "..."):
            break
    else:
        return {}, text, 0
    block = "\n".join(lines[1:end])
    body = "\n".join(lines[end + 1 :])
    try:
        data = yaml.safe_load(block)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""
        return {"front_matter_error": f"invalid YAML front-matter{where}"}, body, end + 1
    if data is None:
        data = {}
    if not isinstance(data, dict):
        return {"front_matter_error": "front-matter is not a mapping"}, body, end + 1
    return _jsonable(data), body, end + 1


def _jsonable(value: Any) -> Any:
    """Make YAML values (dates, sets) JSON-safe so metadata round-trips through the store."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def markdown_sections(body: str, first_line: int = 1) -> list[Section]:
    """Split markdown at ATX and setext headings, never inside fenced code.

    Each section's text starts with its own heading line; `first_line` is the 1-based line
    number of `body`'s first line in the original file.
    """
    lines = body.split("\n")
    starts: list[tuple[int, int, str]] = []  # (line index, level, title)
    fence: str | None = None
    for i, line in enumerate(lines):
        match = _FENCE.match(line)
        if fence is not None:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
                fence = None
            continue
        if match:
            fence = match.group(1)
            continue
        atx = _ATX.match(line)
        if atx:
            starts.append((i, len(atx.group(1)), heading_text(atx.group(2) or "")))
        elif i > 0 and _SETEXT.match(line) and _is_paragraph_line(lines[i - 1]):
            if starts and starts[-1][0] == i - 1:
                continue
            level = 1 if line.strip()[0] == "=" else 2
            starts.append((i - 1, level, heading_text(lines[i - 1])))
    return cut_sections(lines, starts, first_line)


def _is_paragraph_line(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith(("#", ">", "-", "*", "|", "```", "~~~"))


def cut_sections(lines: list[str], starts: list[tuple[int, int, str]], first_line: int) -> list[Section]:
    """`lines` cut at `starts` (line index, level, title) into sections with their heading
    trail; text before the first start is a section of no heading (markdown, AsciiDoc)."""
    sections: list[Section] = []
    bounds = [(0, 0, "")] + starts if not starts or starts[0][0] > 0 else starts
    trail: list[tuple[int, str]] = []
    for n, (start, level, title) in enumerate(bounds):
        end = bounds[n + 1][0] if n + 1 < len(bounds) else len(lines)
        if level:
            trail = [(lvl, name) for lvl, name in trail if lvl < level] + [(level, title)]
        text = "\n".join(lines[start:end]).rstrip()
        if text.strip():
            sections.append(
                Section(tuple(name for _, name in trail if name), text, first_line + start)
            )
    return sections


def _title_of(meta: dict[str, Any], sections: list[Section], path: str) -> str:
    title = meta.get("title")
    if isinstance(title, str) and title.strip():
        return title.strip()
    for section in sections:
        if section.heading_path:
            return section.heading_path[0]
    return PurePosixPath(path).stem


def parse_markdown(text: str, path: str) -> ParsedDocument:
    """Parse a markdown file: front-matter into metadata, headings into sections."""
    meta, body, consumed = split_front_matter(text)
    sections = markdown_sections(body, first_line=consumed + 1)
    return ParsedDocument(_title_of(meta, sections, path), tuple(sections), meta)


def parse_mdx(text: str, path: str) -> ParsedDocument:
    """Parse MDX as markdown, blanking top-level `import`/`export` lines (code, not prose)."""
    lines = text.split("\n")
    fence = False
    for i, line in enumerate(lines):
        if _FENCE.match(line):
            fence = not fence
        elif not fence and _MDX_TOPLEVEL.match(line):
            lines[i] = ""
    return parse_markdown("\n".join(lines), path)

"""Release notes into single changes: a kind and the entities each mentions.

- `split_releases` cuts a whole changelog in its native format into releases: markdown with a
  heading per version (claude-code, Keep a Changelog `## [1.0.0] - 2017-06-20`, release-please
  `## 0.121.0 (2026-08-07)`, Aider `### Aider v0.86.0`), reStructuredText headings underlined
  with `===`/`---` (towncrier's NEWS.rst), AsciiDoc `== 1.2.0` titles, and Debian changelogs.
- `split_changes` cuts one release's body into bullets (nested ones too); a heading such as
  "Bug fixes" or "### Features" sets the kind of the bullets under it; a body without bullets
  gives one change per paragraph.
- `classify` gives each change one of KINDS; `entities` finds environment variables, slash
  commands, CLI flags, model ids, CVE ids, config keys, versions and package names.
- `read_release` / `render_release`: the release files fetch writes and ingest reads
  (`products/<product>/releases/<version>.md`, front matter product, version, date, url).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import date, datetime, timezone

from mindex.changelog.formats import (asciidoc_to_markdown, is_asciidoc, is_org, is_rst, markdown_heading,
                                     org_to_markdown, rst_to_markdown)
from mindex.changelog.versions import SPACED_PRE, clean, looks_like_version

KINDS = ("added", "changed", "fixed", "breaking", "deprecated", "security", "removed", "performance", "docs")

_SECTION_KINDS = [
    (r"breaking|incompatib|⚠", "breaking"),  # "Backward(s)-incompatible Changes" (towncrier's)
    (r"security|vulnerab", "security"), (r"deprecat", "deprecated"),
    (r"remov|dropped", "removed"), (r"bug ?fix|fix(?:ed|es)?\b|bugs\b|patch", "fixed"),
    (r"perf|speed|faster", "performance"), (r"doc", "docs"),
    (r"add|new|feature|introduc|highlight", "added"),
    (r"chang|improv|updat|enhanc|refactor|chore|misc|build|internal|other|dependenc", "changed"),
]
_TEXT_KINDS = [
    (r"^\W*(?:\*\*)?breaking(?: changes?)?\b|\bbreaking changes?:|\bis a breaking change\b|(?-i:\bBREAKING\b)",
     "breaking"),
    (r"\bCVE-\d{4}-\d+|\bsecurity (?:fix|issue|vulnerab)|\bvulnerabilit", "security"),
    # The rest read the change without a scope prefix (`**api:** `), in this order. Written
    # on five changelogs and measured on eight more (benchmarks/bench_changelog_quality.py).
    (r"^\W*(?:bug ?fix(?:es|ed)?\b|fix(?:ed|es|ing)?\b|resolved?\b|correct(?:ed|ly)?\b|prevent(?:ed|s)?\b|"
     r"add(?:ed|s)? (?:the |a )?missing\b|"
     r"repair(?:ed)?\b|avoid(?:ed|s)?\b|restored?\b|reintroduced?\b|properly\b|"
     r"(?:do not|don't|does not|doesn't|never) (?!support)\w+)|\bnow correctly\b", "fixed"),
    (r"^\W*deprecat|\b(?:is|are|was|were|has|have)(?: now)?(?: been)? deprecated\b|\bmark(?:ed|s)? .{1,60} as deprecated\b",
     "deprecated"),
    (r"^\W*(?:remove[sd]?|drop(?:ped|s)?|delete[sd]?|no longer (?:support|ship|provide|accept)(?:s|ed)?)\b|"
     r"\b(?:is|are|was|were|has|have)(?: now)?(?: been)? (?:removed|dropped)\b|\b(?:is|are) no longer supported\b", "removed"),
    (r"^\W*(?:improve[sd]? (?:the )?(?:performance|speed|startup|latency)|optimi[sz](?:e[sd]?|ation)\b|"
     r"(?:faster|speed(?:s|ed)? up)\b|reduced? (?:memory|latency|cpu|startup))|\b(?:significantly |much )?faster\b",
     "performance"),
    (r"^\W*(?:add(?:ed|s)?|new|introduc(?:e|ed|es)|support(?:s|ed)?\b|now support|enable[sd]?|allow(?:s|ed)?|"
     r"implement(?:s|ed)?|expose[sd]?|provide[sd]?)\b|\b(?:can now|now (?:supports?|accepts?|allows?|handles?))\b|"
     r"\b(?:is|are) now (?:officially )?(?:supported|available)\b",
     "added"),
    (r"^\W*(?:docs?|documentation|document(?:s|ed)?|readme)\b|\btypos?\b", "docs"),
    # A fix told by what went wrong, once no verb above said what the change does.
    (r"\b(?:crash(?:es|ed)?|regression|race condition|memory leak|deadlock|incorrect(?:ly)?|wrongly|erroneous(?:ly)?|"
     r"mistakenly|accidentally|no longer (?:crash|fail|raise|hang|error)s?)\b", "fixed"),
]
# release-please's scopes that say the kind themselves
_SCOPE_KINDS = {"docs": "docs", "readme": "docs", "perf": "performance", "security": "security"}
_CONVENTIONAL = re.compile(r"^\W*(?:\*\*)?(feat|fix|perf|docs|refactor|chore|build|ci|style|test|revert|deps|security)"
                           r"(?:\([^)]*\))?(!)?(?:\*\*)?:\s*", re.IGNORECASE)
_CONVENTIONAL_KINDS = {"feat": "added", "fix": "fixed", "perf": "performance", "docs": "docs", "security": "security",
                       "revert": "changed"}

ENTITY_PATTERNS: list[tuple[str, re.Pattern[str]]] = [(name, re.compile(rx)) for name, rx in (
    ("cve", r"\bCVE-\d{4}-\d{4,7}\b"),
    ("env_var", r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b"),
    ("slash_command", r"(?<![\w/.:~\-])/[a-z][a-z0-9-]{1,30}\b(?![/.\w])"),
    ("cli_flag", r"(?<![\w\-])--[a-z][a-z0-9][a-z0-9-]{0,40}\b"),
    ("model_id", r"\b(?:claude|gpt|o[1-9]|gemini|llama|mistral|deepseek|qwen|grok)-[a-z0-9][a-z0-9.\-]*[a-z0-9]\b"),
    ("config_key", r"`([a-z][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)+|[a-z]+[A-Z][A-Za-z0-9]+)`"),
    ("package", r"(?<![\w/])@[a-z0-9][a-z0-9-]*/[a-z0-9][a-z0-9._-]*\b|\b[a-z][a-z0-9_-]*(?===|>=|~=)"),
    ("version", r"(?<![\w.])v?\d+\.\d+\.\d+(?:-[a-z0-9.]+)?\b|(?<![\w.])v\d+\.\d+\b"),
    # Any other name in backticks: an argument, function, class or module (`verify`,
    # `verify=False`, `Request()`, `httpx.Client`), the name without its call or value.
    ("identifier", r"`([A-Za-z_]\w+(?:\.[A-Za-z_]\w*)*)(?:\(\)|=[^`\s]*)?`"),
)]
_NOISE = re.compile(r"^\s*(?:\*\*)?(?:full changelog|compare|what's changed|new contributors|contributors|"
                    r"commits?|diff)\b.*:?", re.IGNORECASE)


@dataclass(frozen=True)
class Change:
    """One change: its text (markdown, one bullet), kind, section heading, entities, line."""

    text: str
    kind: str
    section: str | None
    entities: tuple[tuple[str, str], ...]
    line: int  # 1-based line in the release body
    end_line: int

    def id(self, product: str, version: str) -> str:
        """Stable: the same change of the same release has the same id in any run."""
        key = "\0".join((product, clean(version), " ".join(self.text.split())))
        return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:16]


@dataclass(frozen=True)
class Release:
    """One release: version, date (may be unknown), body, and where it starts in its file."""

    version: str
    date: date | None
    body: str
    line: int = 1
    url: str | None = None
    extra: dict[str, object] = field(default_factory=dict)


def section_kind(heading: str) -> str | None:
    text = heading.strip().lower()
    for rx, kind in _SECTION_KINDS:
        if re.search(rx, text):
            return kind
    return None


def classify(text: str, section: str | None = None) -> str:
    """The change's kind: an explicit breaking or security mark first, then the section's
    kind, then a conventional-commit prefix, then the leading verb; else `changed`."""
    flat = " ".join(text.split())
    scope = re.match(r"^\W*\*\*([^*:]+):?\*\*:?\s*", flat)  # "**api:** add ..." (release-please scopes)
    stripped = flat[scope.end():] if scope else flat
    for rx, kind in _TEXT_KINDS[:2]:
        if re.search(rx, flat, re.IGNORECASE):
            return kind
    conventional = _CONVENTIONAL.match(flat)
    if conventional:
        return "breaking" if conventional.group(2) else _CONVENTIONAL_KINDS.get(conventional.group(1).lower(), "changed")
    by_section = section_kind(section) if section else None
    if by_section and by_section != "changed":  # a generic section (Chores, Misc) lets the verb speak
        return by_section
    if scope and scope.group(1).strip().lower() in _SCOPE_KINDS:
        return _SCOPE_KINDS[scope.group(1).strip().lower()]
    for rx, kind in _TEXT_KINDS[2:]:
        if re.search(rx, stripped, re.IGNORECASE):
            return kind
    return "changed"


def entities(text: str) -> tuple[tuple[str, str], ...]:
    """(kind, value) of every entity the text names, in order, once each. Links' targets are
    not read (a URL's path is not a slash command)."""
    plain = re.sub(r"\]\([^)]*\)", "]", text)
    plain = re.sub(r"https?://\S+", " ", plain)
    found: dict[tuple[str, str], None] = {}
    taken: list[tuple[int, int]] = []
    for name, pattern in ENTITY_PATTERNS:
        for m in pattern.finditer(plain):
            start, end = m.span(1) if m.groups() and m.group(1) else m.span()
            if any(s <= start < e for s, e in taken):
                continue  # inside an entity already found (a version inside a model id)
            value = m.group(1) if m.groups() and m.group(1) else m.group(0)
            if name == "env_var" and len(value) < 4:
                continue
            found.setdefault((name, value), None)
            taken.append((start, end))
    return tuple(found)


# -- one release body into changes ------------------------------------------------------------

_BULLET = re.compile(r"^(?P<indent>[ \t]*)(?:[-*+•]|\d{1,3}[.)])\s+(?P<text>\S.*)$")
_BOLD_HEADING = re.compile(r"^\s*(?:\*\*|__)(?P<text>[^*_]{2,60}?)(?:\*\*|__)\s*:?\s*$")


def split_changes(body: str) -> list[Change]:
    """The changes of one release body, in order."""
    lines = body.replace("\r\n", "\n").split("\n")
    section: str | None = None
    items: list[tuple[int, int, str, str | None, str | None]] = []  # (first line, last line, text, section, label)
    parents: list[tuple[int, str, int]] = []  # (indent, text, line) of open bullets
    labels: dict[int, str] = {}  # a bullet ending in `:` that holds bullets: a label, not a change
    current: list[str] = []
    start = 0
    in_code = False

    def close(last: int) -> None:
        nonlocal current
        if current:
            label = next((labels[p[2]] for p in reversed(parents[:-1]) if p[2] in labels), None)
            # a label that names a kind (`* 7 bug fixes:`, minitest's) is the section of its bullets
            items.append((start, last, "\n".join(current).strip(),
                          label if label and section_kind(label) else section, label))
            current = []

    for number, line in enumerate(lines, 1):
        if line.strip().startswith("```"):
            in_code = not in_code
            if current:
                current.append(line)
            continue
        if in_code:
            if current:
                current.append(line)
            continue
        heading = markdown_heading(line)
        bold = None if heading else _BOLD_HEADING.match(line)
        if heading or bold:
            close(number - 1)
            section = (heading[1] if heading else bold.group("text")).strip().strip("*_:").strip()  # type: ignore[union-attr]
            parents = []
            continue
        bullet = _BULLET.match(line)
        if bullet:
            close(number - 1)
            indent = len(bullet.group("indent").expandtabs(4))
            parents = [p for p in parents if p[0] < indent]
            text = bullet.group("text").strip()
            if parents and parents[-1][1].rstrip().endswith(":"):
                labels[parents[-1][2]] = parents[-1][1].rstrip().rstrip(":").strip()
                text = f"{labels[parents[-1][2]]}: {text}"
            parents.append((indent, bullet.group("text").strip(), number))
            current, start = [text], number
            continue
        if not line.strip():
            if current and not items_continue(lines, number):
                close(number - 1)
            continue
        if current and (line.startswith((" ", "\t")) or not items_have_bullets(lines)):
            current.append(line.strip())
            continue
        close(number - 1)
        current, start = [line.strip()], number  # a paragraph
    close(len(lines))
    has_bullets = any(_BULLET.match(line) for line in lines)
    changes = []
    seen: set[str] = set()
    for first, last, text, sec, label in items:
        if (has_bullets and not _BULLET.match(lines[first - 1])) or first in labels:
            continue  # prose around the bullets (an intro, a "Full Changelog" line), or a label
        if not text or _NOISE.match(text) or re.fullmatch(r"\W*(?:\[[^\]]*\]\([^)]*\)\W*)+", text):
            continue
        norm = " ".join(text.split())
        if norm in seen:
            continue
        seen.add(norm)
        own = text[len(label) + 2:] if label and text.startswith(label + ": ") else text  # its words, not its label's
        changes.append(Change(text, classify(own, sec), sec, entities(text), first, last))
    if not changes and body.strip():  # only a code block, a table or a heading: keep it whole
        text = "\n".join(line for line in lines if not line.strip().startswith("```")).strip()
        if text and not _NOISE.match(text):
            changes.append(Change(text, classify(text), section, entities(text), 1, len(lines)))
    return changes


def items_continue(lines: list[str], number: int) -> bool:
    """After a blank line, does an indented line continue the bullet above?"""
    following = lines[number] if number < len(lines) else ""
    return bool(following.strip()) and following.startswith(("  ", "\t")) and not _BULLET.match(following)


def items_have_bullets(lines: list[str]) -> bool:
    return any(_BULLET.match(line) for line in lines)


# -- a whole changelog into releases -----------------------------------------------------------

_VERSION_IN_HEADING = re.compile(
    r"^\[?(?:(?![vV]\d)[A-Za-z][\w .-]*?\s+)?(?P<version>v?\d+(?:[.\-]\d+)*(?:[.\-+~]?[0-9A-Za-z]+(?:[.\-][0-9A-Za-z]+)*)?"
    rf"(?:[ \t]+{SPACED_PRE}\.?\d*\b)?)\]?"  # gson's `Version 1.3 beta3`
    r"(?:\s*(?:[-–—(/]|\bon\b)\s*\(?(?P<date>\d{4}-\d{2}-\d{2}|\d{4}/\d{2}/\d{2}|"
    r"[A-Z][a-z]+\.? \d{1,2}(?:st|nd|rd|th)?,? \d{4}|\d{1,2}(?:st|nd|rd|th)? [A-Z][a-z]+\.?,? \d{4})\)?)?")
_DATE_ANYWHERE = re.compile(r"(\d{4}-\d{2}-\d{2})")
# A version's heading that says it is not out yet (jsoup's `## 1.23.2 (pending)`): like an
# Unreleased section, no release.
_NOT_YET = re.compile(r"(?i)^\]?[ \t]*(?:[-–—:(\[][ \t]*)?(?:unreleased|pending|in progress|in development|upcoming"
                      r"|not yet released|tbd|tba)\b")
_DEBIAN_HEAD = re.compile(r"^(?P<pkg>[a-z0-9][a-z0-9.+-]+) \((?P<version>[^)]+)\) (?P<dist>[^;]+);")
_DEBIAN_TRAILER = re.compile(r"^ -- .+?<[^>]*>\s+(?P<date>\w{3}, +\d{1,2} \w{3} \d{4} \d\d:\d\d:\d\d [+-]\d{4})")


def parse_date(text: str | None) -> date | None:
    """A date written as 2026-08-07, 2026/08/07, August 7, 2026, 7 August 2026, 6th December,
    2024 (httpx), Dec. 6 2024 or an RFC 2822 time."""
    if not text:
        return None
    text = text.strip()
    # Ordinals, commas and abbreviation dots say nothing strptime needs.
    words = " ".join(re.sub(r"(?<=\d)(?:st|nd|rd|th)\b|[,.](?=\s|$)", "", text).split())
    for fmt in ("%Y-%m-%d", "%Y/%m/%d", "%B %d %Y", "%b %d %Y", "%d %B %Y", "%d %b %Y"):
        try:
            return datetime.strptime(words if "%B" in fmt or "%b" in fmt else text, fmt).date()
        except ValueError:
            continue
    try:
        from email.utils import parsedate_to_datetime

        return parsedate_to_datetime(text).astimezone(timezone.utc).date()
    except (TypeError, ValueError, IndexError):
        pass
    m = _DATE_ANYWHERE.search(text)
    if m:
        try:
            return datetime.strptime(m.group(1), "%Y-%m-%d").date()
        except ValueError:
            return None
    return None


def split_releases(text: str, fmt: str = "auto") -> list[Release]:
    """The releases of a whole changelog, newest first as written. `fmt`: auto, markdown,
    rst, asciidoc, rdoc (read as AsciiDoc: the same titles), org or debian (`changelog.formats`
    reads all but debian as markdown). Unreleased sections (`## Unreleased`, `## 1.4.0
    (pending)`) and headings without a version are not releases."""
    text = text.replace("\r\n", "\n")
    if fmt == "debian" or (fmt == "auto" and _DEBIAN_HEAD.match(text.lstrip("\n").split("\n", 1)[0])):
        return _debian(text)
    lines = text.split("\n")
    if fmt in ("asciidoc", "rdoc") or (fmt == "auto" and is_asciidoc(lines)):
        lines = asciidoc_to_markdown(lines)
    elif fmt == "org" or (fmt == "auto" and is_org(lines)):
        lines = org_to_markdown(lines)
    elif fmt == "rst" or (fmt == "auto" and is_rst(lines)):
        lines = rst_to_markdown(lines)
    heads: list[tuple[int, int, str, date | None]] = []  # (line index, level, version, date)
    level = None
    for i, line in enumerate(lines):
        heading = markdown_heading(line)
        if not heading:
            continue
        marks, title = heading[0], heading[1].strip()
        found = _version_heading(title)
        if found is None:
            continue
        if level is None:
            level = marks
        if marks == level:
            heads.append((i, marks, found[0], found[1]))
    releases = []
    for n, (i, _, version, when) in enumerate(heads):
        end = heads[n + 1][0] if n + 1 < len(heads) else len(lines)
        body = "\n".join(lines[i + 1 : end]).strip("\n")
        releases.append(Release(version, when, body, i + 2))
    return releases


def _version_heading(title: str) -> tuple[str, date | None] | None:
    plain = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", title).strip()  # [1.0.0](compare link)
    if re.match(r"^\[?unreleased\]?", plain, re.IGNORECASE):
        return None
    m = _VERSION_IN_HEADING.match(plain)
    if not m or not looks_like_version(m.group("version")) or _NOT_YET.match(plain[m.end("version"):]):
        return None
    when = parse_date(m.group("date")) if m.group("date") else None
    if when is None:
        rest = plain[m.end("version"):]
        dm = _DATE_ANYWHERE.search(rest)
        when = parse_date(dm.group(1)) if dm else None
    return clean(m.group("version")), when


def _debian(text: str) -> list[Release]:
    releases = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        head = _DEBIAN_HEAD.match(lines[i])
        if not head:
            i += 1
            continue
        start = i
        body: list[str] = []
        when = None
        i += 1
        while i < len(lines) and not _DEBIAN_HEAD.match(lines[i]):
            trailer = _DEBIAN_TRAILER.match(lines[i])
            if trailer:
                when = parse_date(trailer.group("date"))
                i += 1
                break
            body.append(lines[i][2:] if lines[i].startswith("  ") else lines[i])
            i += 1
        releases.append(Release(head.group("version"), when, "\n".join(body).strip("\n"), start + 2,
                                extra={"distribution": head.group("dist").strip()}))
    return releases


# -- release files -------------------------------------------------------------------------------


def render_release(product: str, release: Release, source: str | None = None) -> str:
    """A release file: YAML front matter (product, version, date, url, source) and the body."""
    import yaml

    meta: dict[str, object] = {"product": product, "version": release.version}
    if release.date:
        meta["date"] = release.date.isoformat()
    if release.url:
        meta["url"] = release.url
    if source:
        meta["source"] = source
    head = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, default_flow_style=False).strip()
    return f"---\n{head}\n---\n\n{release.body.strip()}\n"


def read_release(text: str, name: str) -> tuple[str, Release, int] | str:
    """(product, release, line where the body starts) of a release file, or why it cannot be read."""
    import yaml

    text = text.replace("\r\n", "\n")
    if not text.startswith("---\n"):
        return f"{name}:1: no front matter (a release file starts with ---, then product, version, date)"
    end = text.find("\n---", 4)
    if end < 0:
        return f"{name}:1: the front matter is not closed by a --- line"
    try:
        meta = yaml.safe_load(text[4:end]) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark is not None else 1
        return f"{name}:{line}: front matter is not valid YAML ({getattr(exc, 'problem', None) or exc})"
    if not isinstance(meta, dict):
        return f"{name}:2: front matter must be key: value lines"
    product, version = meta.get("product"), meta.get("version")
    if not product or version is None or str(version).strip() == "":
        return f"{name}:2: front matter needs product and version"
    when = meta.get("date")
    day = when if isinstance(when, date) else parse_date(str(when)) if when else None
    if isinstance(day, datetime):
        day = day.date()
    body_start = text[: end + 4].count("\n") + 2
    body = text[end + 4 :].lstrip("\n")
    body_start += len(text[end + 4 :]) - len(text[end + 4 :].lstrip("\n")) - 1
    return str(product), Release(str(version), day, body, body_start, str(meta["url"]) if meta.get("url") else None), \
        body_start

"""Text that cannot be encoded as UTF-8 (lone surrogates) made safe to store, search and print.

Python gives undecodable bytes of file names and command-line arguments as lone surrogates
(`surrogateescape`); SQLite, tokenizers and UTF-8 output refuse them. They become visible
escapes instead: an undecodable byte 0xE9 reads `\\xe9` (what `backslashreplace` shows for
the raw bytes), any other lone surrogate `\\udXXX`. The same mapping serves file paths and
queries, so a `--path` filter naming such a file matches the stored path.
"""

from __future__ import annotations

import re

_SURROGATE = re.compile("[\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"


def escape_surrogates(text: str) -> str:
    """`text` with every lone surrogate written as a visible escape (unchanged otherwise)."""
    return text if text.isascii() else _SURROGATE.sub(_escape, text)


# Control characters but tab and newline: ESC starts the terminal's escape sequences (a window
# title, a cleared screen, the clipboard through OSC 52), BEL ends some, CR rewrites a line.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def visible_controls(text: str) -> str:
    """`text` for a terminal: each control character but tab and newline written as a visible
    escape (`\\x1b`), so an indexed file cannot drive the terminal it is printed to."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text) if _CONTROL.search(text) else text


_NAME_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def visible_name(text: str) -> str:
    """A file name or breadcrumb for a terminal: as `visible_controls`, and newlines and tabs
    too (`\\x0a`), since a name is printed on one line: `evil\\nname.md` must not start a
    line of its own that reads like another result."""
    return _NAME_CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text) if _NAME_CONTROL.search(text) else text


# What rich reads as a markup tag: `[` then a letter, `#`, `/` or `@`, up to the next `]`.
_TAG = re.compile(r"(\\*)(\[[a-z#/@][^[]*?])")


def markup_escape(text: str) -> str:
    """`text` for a rich console string, printed literally whether or not markup follows it,
    control characters as visible escapes (`visible_controls`): every tag-like `[...]` gets a
    backslash (backslashes before it doubled). Rich reads a run of backslashes as escapes only
    before a tag, so a trailing run is doubled and closed by an empty tag pair: it prints as
    is, alone or before `[/]` (rich's own `escape` gets one of the two wrong). Needs no rich
    import, for commands that print nothing."""
    text = _TAG.sub(lambda m: f"{m.group(1)}{m.group(1)}\\{m.group(2)}", visible_controls(text))
    trailing = len(text) - len(text.rstrip("\\"))
    return text + "\\" * trailing + "[dim][/dim]" if trailing else text


_TICKS = re.compile(r"`{3,}")


def fence(text: str, tag: str = "") -> str:
    """`text` in a markdown code fence (tagged `tag`) longer than any run of backticks in it,
    so nothing in the text can close it."""
    ticks = "`" * max(3, max((len(run) for run in _TICKS.findall(text)), default=0) + 1)
    return f"{ticks}{tag}\n{text}\n{ticks}"


# A snippet marks the words that match with `**`; a `*` or `\` of the text itself is escaped
# with a backslash (as markdown escapes them), so Python's `**kwargs`, an Org `** heading` or
# markdown's own bold can neither open nor close a mark (`def f(**options)` read
# `(****options**)`, and the terminal showed an Org heading's stars as a highlighted word).
_MARK_PARTS = re.compile(r"\\(.)|(\*\*)|([^\\*]+|.)", re.DOTALL)


def escape_marks(text: str) -> str:
    """`text` with each `\\` and `*` escaped by a backslash, for a snippet's marks."""
    return text.replace("\\", "\\\\").replace("*", "\\*") if "*" in text or "\\" in text else text


def marked_parts(snippet: str) -> list[tuple[str, bool]]:
    """A snippet (`search.make_snippet`) as (text, marked) pieces in order, its escapes
    undone; an unpaired `**` is text."""
    parts: list[tuple[str, bool]] = []
    piece: list[str] = []
    marked = False
    for match in _MARK_PARTS.finditer(snippet):
        if match.group(2):
            parts.append(("".join(piece), marked))
            piece, marked = [], not marked
        else:
            piece.append(match.group(1) if match.group(1) is not None else match.group(3))
    parts.append(("".join(piece), marked))
    if marked:  # the last mark was never closed: it and what follows are text
        text, _ = parts.pop()
        parts.append(("**" + text, False))
    return [(text, mark) for text, mark in parts if text]

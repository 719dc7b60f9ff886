"""Edit one key of a JSON-with-comments file (VS Code's `mcp.json`) as text, so every comment
and the layout of the rest stay byte for byte: set or remove `container.name` in the top-level
object. The file must parse as JSON once its comments are taken out."""

from __future__ import annotations

import json
import re
from typing import Any

_TOKEN = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/|[{}\[\]:,]|\s+|[^\s{}\[\]:,"/]+', re.DOTALL)


def _tokens(text: str) -> list[tuple[int, int, str]]:
    """(start, end, kind) of each token: str, comment, space, punct, word."""
    out = []
    for m in _TOKEN.finditer(text):
        value = m.group(0)
        kind = ("str" if value[0] == '"' else "comment" if value.startswith(("//", "/*")) else
                "space" if value.isspace() else "punct" if value in "{}[]:," else "word")
        out.append((m.start(), m.end(), kind))
    return out


def _members(text: str, toks: list[tuple[int, int, str]], open_at: int) -> tuple[list[tuple[str, int, int, int]], int]:
    """The members of the object whose `{` is token `open_at`: (key, key token index, value
    start offset, value end offset), and the index of its closing `}`."""
    members: list[tuple[str, int, int, int]] = []
    depth = 0
    i = open_at + 1
    key: tuple[str, int] | None = None
    value_start: int | None = None
    while i < len(toks):
        start, end, kind = toks[i]
        value = text[start:end]
        if kind in ("space", "comment"):
            i += 1
            continue
        if depth == 0 and key is None and kind == "str":
            key = (json.loads(value), i)
        elif depth == 0 and key is not None and value_start is None and value == ":":
            pass
        elif depth == 0 and value == "}" and value_start is None:
            return members, i
        elif value_start is None and key is not None:
            value_start = start
            if value in "{[":
                depth = 1
            else:
                members.append((key[0], key[1], start, end))
                key, value_start = None, None
        elif value in "{[":
            depth += 1
        elif value in "}]":
            depth -= 1
            if depth == 0 and value_start is not None and key is not None:
                members.append((key[0], key[1], value_start, end))
                key, value_start = None, None
            elif depth < 0:
                return members, i
        elif depth == 0 and value == "}":
            return members, i
        i += 1
    raise ValueError("unbalanced object")


def _top(text: str, toks: list[tuple[int, int, str]]) -> int:
    for i, (start, end, kind) in enumerate(toks):
        if kind == "punct" and text[start:end] == "{":
            return i
        if kind not in ("space", "comment"):
            break
    raise ValueError("the file is not a JSON object")


def _indent_of(text: str, offset: int) -> str:
    line_start = text.rfind("\n", 0, offset) + 1
    return re.match(r"[ \t]*", text[line_start:]).group(0)  # type: ignore[union-attr]


def set_member(text: str, container: str, name: str, value: Any) -> str:
    """`text` with `container.name` set to `value` (the container created when missing)."""
    toks = _tokens(text)
    top = _top(text, toks)
    members, close = _members(text, toks, top)
    found = next((m for m in members if m[0] == container), None)
    if found is None:
        inner = json.dumps({name: value}, indent=2)
        return _insert(text, toks, top, members, close, container, inner)
    _, key_index, start, end = found
    if text[start] != "{":
        raise ValueError(f"`{container}` is not an object")
    sub_open = next(i for i, t in enumerate(toks) if t[0] == start)
    sub_members, sub_close = _members(text, toks, sub_open)
    existing = next((m for m in sub_members if m[0] == name), None)
    indent = _indent_of(text, toks[key_index][0])
    rendered = json.dumps(value, indent=2).replace("\n", "\n" + indent + "  ")
    if existing is not None:
        return text[: existing[2]] + rendered + text[existing[3] :]
    return _insert(text, toks, sub_open, sub_members, sub_close, name, rendered, indent + "  ")


def _insert(text: str, toks: list[tuple[int, int, str]], open_index: int, members: list[tuple[str, int, int, int]],
            close_index: int, key: str, rendered: str, indent: str | None = None) -> str:
    """Add `"key": rendered` as the last member of an object."""
    close_at = toks[close_index][0]
    if indent is None:
        indent = _indent_of(text, toks[members[0][1]][0]) if members else "  "
        rendered = rendered.replace("\n", "\n" + indent)
    entry = f'{json.dumps(key)}: {rendered}'
    if members:
        last_end = members[-1][3]
        line_end = text.find("\n", last_end)
        tail = text[last_end:line_end] if line_end >= 0 else ""
        if line_end >= 0 and line_end < close_at and re.fullmatch(r"\s*(//[^\n]*|/\*.*?\*/)?\s*", tail):
            # a comment after the last member stays on its line, after the comma
            return text[:last_end] + "," + tail + "\n" + indent + entry + text[line_end:]
        return text[:last_end] + ",\n" + indent + entry + text[last_end:]
    open_at = toks[open_index][1]
    outer = _indent_of(text, close_at)
    return text[:open_at] + "\n" + indent + entry + "\n" + outer + text[close_at:].lstrip(" \t\n") \
        if not text[open_at:close_at].strip() else text[:open_at] + "\n" + indent + entry + text[open_at:]


def remove_member(text: str, container: str, name: str) -> str:
    """`text` without `container.name` (and without the container if that left it empty and
    it held nothing else, comments included)."""
    toks = _tokens(text)
    top = _top(text, toks)
    members, _ = _members(text, toks, top)
    found = next((m for m in members if m[0] == container), None)
    if found is None or text[found[2]] != "{":
        return text
    sub_open = next(i for i, t in enumerate(toks) if t[0] == found[2])
    sub_members, sub_close = _members(text, toks, sub_open)
    index = next((n for n, m in enumerate(sub_members) if m[0] == name), None)
    if index is None:
        return text
    if len(sub_members) == 1 and not any(t[2] == "comment" for t in toks[sub_open:sub_close]):
        return _cut(text, toks, members, members.index(found))  # the container was only ours
    return _cut(text, toks, sub_members, index)


def _cut(text: str, toks: list[tuple[int, int, str]], members: list[tuple[str, int, int, int]], index: int) -> str:
    """Remove one member with the comma that separates it and the whitespace before it."""
    key_start = toks[members[index][1]][0]
    end = members[index][3]
    if index + 1 < len(members):  # cut up to the next member's key
        start = key_start
        end = toks[members[index + 1][1]][0]
        return text[:start] + text[end:]
    if index > 0:  # the last one: drop the comma after the previous value, keep what follows it
        comma = next(t[0] for t in toks if t[0] >= members[index - 1][3] and t[2] == "punct" and text[t[0]] == ",")
        line_start = text.rfind("\n", comma, key_start)
        cut_from = line_start if line_start >= 0 else key_start
        return text[:comma] + text[comma + 1 : cut_from] + text[end:]
    line_start = text.rfind("\n", 0, key_start)
    return text[: line_start if line_start >= 0 else key_start] + text[end:]

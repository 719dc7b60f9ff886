"""Path globs as users write them: `*` within a folder, `**` across folders, `?` one char.

A pattern without `/` also matches a file's base name anywhere (like .gitignore), so
`--path '*.md'` and `--path 'guide/**'` both do what they look like.

Patterns with one or two stars run as a regex. More stars would let a backtracking regex
try every way to split a path (`*a*a*a*a*a*a*b` ran for minutes on one long path), so those
run through a small automaton instead, in time proportional to path × pattern.
"""

from __future__ import annotations

import re
from functools import lru_cache


# Tokens: a literal character, "?" (one character but /), "*" (any run without /), "**"
# (any run) and "**/" (nothing, or any run that ends with /).
_REGEX = {"?": "[^/]", "*": "[^/]*", "**": ".*", "**/": "(?:.*/)?"}


@lru_cache(maxsize=256)
def _tokens(pattern: str) -> tuple[str, ...]:
    out = []
    i = 0
    while i < len(pattern):
        for token in ("**/", "**", "*", "?"):
            if pattern.startswith(token, i):
                out.append(token)
                i += len(token)
                break
        else:
            out.append(pattern[i])
            i += 1
    return tuple(out)


@lru_cache(maxsize=256)
def _compile(pattern: str) -> re.Pattern[str] | None:
    """The pattern as a regex, or None when its stars could make a regex backtrack for long."""
    tokens = _tokens(pattern)
    if sum(t in ("*", "**", "**/") for t in tokens) > 2:
        return None
    return re.compile("".join(_REGEX.get(t, re.escape(t)) for t in tokens) + r"\Z", re.DOTALL)


def _automaton_match(tokens: tuple[str, ...], path: str) -> bool:
    """Whether the whole of `path` matches, by following every state at once. A state is a
    token's index, and for "**/" whether its run has begun (then only a / ends it)."""
    end = len(tokens)

    def closure(states: set[tuple[int, bool]]) -> set[tuple[int, bool]]:
        stack, seen = list(states), set(states)
        while stack:
            i, begun = stack.pop()
            if i < end and not begun and tokens[i] in ("*", "**", "**/") and (i + 1, False) not in seen:
                seen.add((i + 1, False))
                stack.append((i + 1, False))
        return seen

    states = closure({(0, False)})
    for char in path:
        following: set[tuple[int, bool]] = set()
        for i, _ in states:
            if i == end:
                continue
            token = tokens[i]
            if token == "**" or (token == "*" and char != "/"):
                following.add((i, False))
            elif token == "**/":
                following.add((i, True))
                if char == "/":
                    following.add((i + 1, False))
            elif (token == "?" and char != "/") or token == char:
                following.add((i + 1, False))
        if not following:
            return False
        states = closure(following)
    return (end, False) in states


def _match(pattern: str, path: str) -> bool:
    regex = _compile(pattern)
    return bool(regex.match(path)) if regex is not None else _automaton_match(_tokens(pattern), path)


def glob_match(pattern: str | None, path: str | None) -> bool:
    """True when `path` (relative, `/`-separated) matches `pattern`."""
    if not pattern:
        return True
    if path is None:
        return False
    pattern = pattern.removeprefix("./")
    if pattern.endswith("/"):
        pattern += "**"
    if _match(pattern, path):
        return True
    return "/" not in pattern and _match(pattern, path.rsplit("/", 1)[-1])

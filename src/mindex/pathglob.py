"""Path globs as users write them: `*` within a folder, `**` across folders, `?` one char.

A pattern without `/` also matches a file's base name anywhere (like .gitignore), so
`--path '*.md'` and `--path 'guide/**'` both do what they look like.
"""

from __future__ import annotations

import re
from functools import lru_cache


@lru_cache(maxsize=256)
def _compile(pattern: str) -> re.Pattern[str]:
    out = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        out.append({"*": "[^/]*", "?": "[^/]"}.get(char, re.escape(char)))
        i += 1
    return re.compile("".join(out) + r"\Z", re.DOTALL)


def glob_match(pattern: str | None, path: str | None) -> bool:
    """True when `path` (relative, `/`-separated) matches `pattern`."""
    if not pattern:
        return True
    if path is None:
        return False
    pattern = pattern.removeprefix("./")
    if pattern.endswith("/"):
        pattern += "**"
    regex = _compile(pattern)
    if regex.match(path):
        return True
    return "/" not in pattern and bool(regex.match(path.rsplit("/", 1)[-1]))

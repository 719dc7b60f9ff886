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

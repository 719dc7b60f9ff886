"""The words inside identifiers, so prose and code meet in search.

`getRandomString`, `get_random_string`, `HTTPServer` and `pkg.utils.crypto` all hold words a
person would type ("random string", "http server"). SQLite's tokenizer (porter over
unicode61) splits snake_case and dotted names and stems every word, but keeps camelCase
whole: `search_terms` writes the parts the keyword index adds for a chunk. `embedding_text`
gives the embedding model a chunk's context line with its names spelled as words, which it
reads far better than camelCase or snake_case.
"""

from __future__ import annotations

import re

_IDENTIFIER = re.compile(r"[^\W\d_][\w]*", re.UNICODE)
# The same words in a text of ASCII characters only (most code), found a fifth faster.
_ASCII_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_PARTS = re.compile(r"[^\W_]+", re.UNICODE)
# Distinct terms a query searches with at most, in the order it names them: a pasted log
# or a whole file as a query (20,000 distinct words) made one FTS5 OR of every word and
# ran for minutes; the longest issue text of the dev sets has under 200 distinct words.
MAX_TERMS = 256
EMBED_FORMAT = "2"  # what `embedding_text` writes; stored vectors of another format are re-made


def identifier_parts(word: str) -> list[str]:
    """The lower-case parts of a compound identifier (`getHTTPResponse` → get, http,
    response); one part for a plain word."""
    return [p.lower() for p in _PARTS.findall(_CAMEL.sub("_", word))]


# The parts of identifiers with a capital, () for those without a hump (`HTTP`, `Foo`), as
# found: names repeat from chunk to chunk. Emptied when it grows past CACHED_WORDS.
_HUMPS: dict[str, tuple[str, ...]] = {}
CACHED_WORDS = 200_000


def search_terms(*texts: str) -> str:
    """Words the keyword index adds for some text: the parts of camelCase identifiers, each
    once (the tokenizer splits snake_case and dotted names itself, and stems every word)."""
    seen: dict[str, None] = {}
    for text in texts:
        for word in dict.fromkeys((_ASCII_IDENTIFIER if text.isascii() else _IDENTIFIER).findall(text)):
            if word.islower():  # no capital, no hump: most words end here, cheaply
                continue
            parts = _HUMPS.get(word)
            if parts is None:
                if len(_HUMPS) >= CACHED_WORDS:
                    _HUMPS.clear()
                parts = _HUMPS[word] = tuple(identifier_parts(word)) if _CAMEL.search(word) else ()
            seen.update(dict.fromkeys(parts))
    return " ".join(seen)


def split_identifiers(text: str) -> str:
    """`text` with each compound identifier written as its words (`getRandomString` → get
    random string)."""
    def words(match: re.Match[str]) -> str:
        parts = identifier_parts(match.group(0))
        return " ".join(parts) if len(parts) > 1 else match.group(0)

    return _IDENTIFIER.sub(words, text)


def embedding_text(context: str, text: str) -> str:
    """What the embedding model reads for a chunk: its context line, the same line with its
    names as words when that differs, then the text."""
    spelled = split_identifiers(context)
    return f"{context}\n{spelled}\n{text}" if spelled != context else f"{context}\n{text}"

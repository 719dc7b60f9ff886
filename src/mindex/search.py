"""Query-time logic: any user string becomes a safe FTS5 query; results become hits.

Every word is quoted before it reaches FTS5, so quotes, operators, `C++`, `foo.bar()` and
unicode never raise a syntax error. A run of word pieces glued by punctuation (`foo.bar`)
becomes a phrase; `"quoted text"` stays a phrase; a trailing `*` asks for a prefix.
All terms must match first (precise); if that finds too few, any-term matches fill up.
"""

from __future__ import annotations

import re
import time
from dataclasses import replace

from mindex.models import Hit, SearchResult
from mindex.store.base import SNIPPET_CLOSE, SNIPPET_OPEN, Store

_PHRASE = re.compile(r'"([^"]*)"')
_WORD = re.compile(r"\w+", re.UNICODE)
STOPWORDS = frozenset(
    """a an and are as at be but by can do does for from how i if in into is it its me my
    of on or so that the their then there these this to was what when where which who why
    will with you your we our should would could""".split()
)


def _term(text: str, prefix: bool = False) -> str | None:
    pieces = _WORD.findall(text)
    if not pieces:
        return None
    phrase = '"' + " ".join(pieces) + '"'
    return phrase + "*" if prefix and len(pieces) == 1 else phrase


def query_terms(query: str) -> list[str]:
    """Split a user query into quoted FTS5 terms, dropping stopwords when others remain."""
    terms: list[tuple[str, bool]] = []  # (term, is_stopword)
    for match in _PHRASE.finditer(query):
        term = _term(match.group(1))
        if term:
            terms.append((term, False))
    rest = _PHRASE.sub(" ", query).replace('"', " ")
    for word in rest.split():
        term = _term(word, prefix=word.endswith("*"))
        if term:
            terms.append((term, term.strip('"*').lower() in STOPWORDS))
    content = [t for t, stop in terms if not stop]
    chosen = content or [t for t, _ in terms]
    return list(dict.fromkeys(chosen))


def _mark(snippet: str) -> str:
    return snippet.replace(SNIPPET_OPEN, "**").replace(SNIPPET_CLOSE, "**")


def lexical_search(
    store: Store,
    query: str,
    limit: int = 10,
    offset: int = 0,
    source: str | None = None,
    kind: str | None = None,
    path: str | None = None,
) -> SearchResult:
    """BM25 keyword search: all-terms matches first, then any-term matches."""
    started = time.perf_counter()
    terms = query_terms(query)
    if not terms:
        return SearchResult(query, "keyword", 0.0, (), note="the query has no searchable words")
    wanted = offset + limit
    filters = {"source": source, "kind": kind, "path": path}
    hits: list[Hit] = store.keyword_search(" AND ".join(terms), wanted, 0, **filters)
    if len(hits) < wanted and len(terms) > 1:
        seen = {hit.id for hit in hits}
        extra = store.keyword_search(" OR ".join(terms), wanted, 0, **filters)
        hits.extend(hit for hit in extra if hit.id not in seen)
    page = tuple(replace(hit, snippet=_mark(hit.snippet)) for hit in hits[offset:wanted])
    took = (time.perf_counter() - started) * 1000
    return SearchResult(query, "keyword", took, page)

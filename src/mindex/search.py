"""Query-time logic: any user string becomes a safe FTS5 query; results become hits.

Every word is quoted before it reaches FTS5, so quotes, operators, `C++`, `foo.bar()` and
unicode never raise a syntax error. A run of word pieces glued by punctuation (`foo.bar`)
becomes a phrase; `"quoted text"` stays a phrase; a trailing `*` asks for a prefix.
Chunks are ranked by BM25 over the terms: those holding all of them are looked up first
(quick on a large index), and when they do not fill the page, chunks holding any term join
them by score; if that still finds too few, single words fill up.
"""

from __future__ import annotations

import re
import math
import time
from collections.abc import Callable, Sequence
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any

from mindex.models import Facets, Hit, SearchResult
from mindex.terms import MAX_TERMS, identifier_parts
from mindex.textsafe import escape_marks

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

    from mindex.embed.base import Embedder
    from mindex.store.base import Store
    from mindex.vectors import VectorIndex

_PHRASE = re.compile(r'"([^"]*)"')
_WORD = re.compile(r"\w+", re.UNICODE)
STOPWORDS = frozenset(
    """a an and are as at be but by can do does for from how i if in into is it its me my
    of on or so that the their then there these this to was what when where which who why
    will with you your we our should would could""".split()
)


def _term(text: str, prefix: bool = False, exact: bool = False) -> str | None:
    pieces = _WORD.findall(text)
    if not pieces:
        return None
    phrase = '"' + " ".join(pieces) + '"'
    if prefix and len(pieces) == 1:
        return phrase + "*"
    if exact:  # a "quoted phrase" means these words as written
        return phrase
    # `getRandomString` also matches get_random_string, and the words the index keeps for
    # camelCase names (chunks.terms): the same phrase with its names split into parts.
    parts = [part for piece in pieces for part in identifier_parts(piece)]
    split = '"' + " ".join(parts) + '"'
    return f"({phrase} OR {split})" if len(parts) > len(pieces) else phrase


def query_terms(query: str) -> list[str]:
    """Split a user query into quoted FTS5 terms, dropping stopwords when others remain."""
    terms: list[tuple[str, bool]] = []  # (term, is_stopword)
    for match in _PHRASE.finditer(query):
        term = _term(match.group(1), exact=True)
        if term:
            terms.append((term, False))
    rest = _PHRASE.sub(" ", query).replace('"', " ")
    for word in dict.fromkeys(rest.split()):  # each word once: a pasted log repeats its lines
        term = _term(word, prefix=word.endswith("*"))
        if term:
            terms.append((term, term.strip('"*').lower() in STOPWORDS))
    content = [t for t, stop in terms if not stop]
    chosen = content or [t for t, _ in terms]
    return list(dict.fromkeys(chosen))[:MAX_TERMS]


def one_term(name: str) -> str | None:
    """The FTS5 term a search for one name writes (`("assertEqual" OR "assert equal")`), or
    None for a stopword or a name without words."""
    return None if name.lower() in STOPWORDS else _term(name)


def query_words(query: str) -> list[str]:
    """Every word piece of a query as its own quoted term, names split into their words
    (stopwords dropped when others remain); a "quoted phrase" stays one. The most relaxed
    form, for when phrases glued by punctuation find too little."""
    phrases = [t for t in (_term(m.group(1), exact=True) for m in _PHRASE.finditer(query)) if t]
    rest = _PHRASE.sub(" ", query)
    words = [part for word in dict.fromkeys(_WORD.findall(rest)) for part in identifier_parts(word) or [word]]
    content = [w for w in words if w.lower() not in STOPWORDS] or words
    return list(dict.fromkeys([*phrases, *(f'"{w}"' for w in content)]))[:MAX_TERMS]


def make_snippet(text: str, query: str, width: int = 24) -> str:
    """About `width` words of `text` around the densest run of the query's words, each match
    marked `**like this**` (a word matches when it starts like a query word, so plurals and
    -ing forms count), with `…` where text was cut; the text's own `*` and `\\` are escaped
    with a backslash (`textsafe.marked_parts` reads it back)."""
    tokens = text.split()
    found = _stem_search(query)

    def matches(word: str) -> bool:
        return found is not None and found(word.lower()) is not None

    hits = [matches(token) for token in tokens]
    start, best = 0, sum(hits[:width])
    count = best
    for first in range(1, max(1, len(tokens) - width + 1)):  # the window slides one token
        count += hits[first + width - 1] - hits[first - 1]
        if count > best:
            start, best = first, count
    shown = [_WORD.sub(lambda m: f"**{m.group()}**" if matches(m.group()) else m.group(), token) if hit else token
             for token, hit in zip(map(escape_marks, tokens[start : start + width]), hits[start : start + width])]
    return ("…" if start else "") + " ".join(shown) + ("…" if start + width < len(tokens) else "")


@lru_cache(maxsize=32)
def _stem_search(query: str) -> Callable[[str], re.Match[str] | None] | None:
    """One alternation of the query's word stems, searched in a lower-cased word (`any(stem
    in word)`); made once a query, not once a hit."""
    stems = {w[: max(4, len(w) - 2)] for w in (p.lower() for word in set(_WORD.findall(query))
                                                for p in identifier_parts(word) or [word])
             if len(w) > 1 and w not in STOPWORDS}
    return re.compile("|".join(map(re.escape, sorted(stems)))).search if stems else None


def lexical_search(
    store: Store,
    query: str,
    limit: int = 10,
    offset: int = 0,
    source: str | None = None,
    kind: str | None = None,
    path: str | None = None,
    language: str | None = None,
    symbol_kind: str | None = None,
    snippets: bool = True,
    facets: Facets | None = None,
    texts: bool = True,
) -> SearchResult:
    """BM25 keyword search: all-terms matches, joined by any-term matches by score when they
    are too few, then matches of any single word (phrases glued by punctuation,
    `sorted(chain(*groups))`, come apart). `snippets=False` leaves them to the caller (a
    fusion that shows only some of these hits); `texts=False` (no snippets then) leaves the
    hits' texts unread, for a caller that reads only its page's."""
    started = time.perf_counter()
    terms = query_terms(query)
    if not terms:
        return SearchResult(query, "keyword", 0.0, (), note="the query has no searchable words")
    wanted = offset + limit
    filters: dict[str, Any] = {"source": source, "kind": kind, "path": path, "language": language,
                               "symbol_kind": symbol_kind, "facets": facets or None}
    # All terms first: fast, since few rows match them all. When that leaves the page short,
    # any term: a row's BM25 is the same under both queries (it sums the terms it holds), so
    # the two lists merge by score into the any-term ranking.
    # Chunks are ranked as (seq, score) rows and only the page's are read, once (a code
    # chunk's text is cut from its file's compressed text).
    ranked = store.keyword_ranked(" AND ".join(terms), wanted, 0, **filters)
    if len(ranked) < wanted and len(terms) > 1:
        found = dict(ranked)
        for seq, score in store.keyword_ranked(" OR ".join(terms), wanted, 0, **filters):
            found.setdefault(seq, score)
        ranked = sorted(found.items(), key=lambda row: -row[1])[:wanted]
    words = query_words(query)
    if len(ranked) < wanted and set(words) != set(terms):
        seen = {seq for seq, _ in ranked}
        extra = store.keyword_ranked(" OR ".join(words), wanted, 0, **filters)
        # A looser match ranks below every stricter one; its score is kept under theirs so
        # scores still fall down the list.
        for seq, score in extra:
            if seq not in seen:
                below = not ranked or score < ranked[-1][1]
                ranked.append((seq, score if below else ranked[-1][1] * 0.999))
    hits = store.hits_ranked(ranked[offset:wanted], texts)
    page = tuple(hit.but(snippet=make_snippet(hit.text, query)) if snippets and texts else hit for hit in hits)
    took = (time.perf_counter() - started) * 1000
    return SearchResult(query, "keyword", took, page)


def semantic_hits(
    store: Store, vectors: VectorIndex, embedder: Embedder, query: str, wanted: int,
    source: str | None = None, kind: str | None = None, path: str | None = None,
    language: str | None = None, symbol_kind: str | None = None, facets: Facets | None = None,
) -> list[Hit]:
    """Nearest chunks to the query by cosine similarity, filters applied before top-k."""
    return semantic_leg(store, vectors, embedder, query, wanted, source, kind, path, language, symbol_kind, facets)()


def semantic_leg(
    store: Store, vectors: VectorIndex, embedder: Embedder, query: str, wanted: int,
    source: str | None = None, kind: str | None = None, path: str | None = None,
    language: str | None = None, symbol_kind: str | None = None, facets: Facets | None = None,
) -> Callable[[], list[Hit]]:
    """Start the vector leg in a worker thread (embedding the query and the matrix product
    release the GIL, so it runs beside the keyword leg's SQL); calling the result waits for
    it and reads its hits from the store in the calling thread, which owns the connection."""
    filtered = source or kind or path or language or symbol_kind or facets
    allowed = store.filtered_seqs(source, kind, path, language, symbol_kind, facets or None) if filtered else None
    len(vectors)  # bring the matrix up to date here, where the store may be used
    future = _worker().submit(lambda: vectors.nearest(embedder.embed_query(query), wanted, allowed))

    def hits() -> list[Hit]:
        return store.hits_ranked(future.result())

    return hits


@cache
def _worker() -> ThreadPoolExecutor:
    """The thread the vector leg runs in (one for the process)."""
    from concurrent.futures import ThreadPoolExecutor

    return ThreadPoolExecutor(1, thread_name_prefix="mindex-vectors")


def with_texts(store: Store, hits: list[Hit]) -> list[Hit]:
    """`hits` with the texts of those read without (`lexical_search(texts=False)`)."""
    unread = [hit.seq for hit in hits if hit.text == "" and hit.seq is not None]
    if not unread:
        return hits
    found = store.hits_by_seq(unread)
    return [hit.but(text=found[hit.seq].text) if hit.text == "" and hit.seq in found else hit for hit in hits]


def with_snippets(hits: list[Hit], query: str) -> list[Hit]:
    """`hits` with a snippet written for each that has none (`make_snippet`)."""
    return [hit if hit.snippet else hit.but(snippet=make_snippet(hit.text, query)) for hit in hits]


def fuse(legs: dict[str, list[Hit]], weights: dict[str, float], k: int = 60) -> list[Hit]:
    """Reciprocal rank fusion: sum of weight/(k + rank) over legs, deduplicated by chunk.

    Each fused hit keeps the first leg's copy (the keyword one has a highlighted snippet) and
    an `explain` with every leg's rank and score and the fused score.
    """
    fused: dict[str, float] = {}
    first: dict[str, Hit] = {}
    explain: dict[str, dict[str, Any]] = {}
    for leg, hits in legs.items():
        for rank, hit in enumerate(hits, 1):
            fused[hit.id] = fused.get(hit.id, 0.0) + weights.get(leg, 1.0) / (k + rank)
            first.setdefault(hit.id, hit)
            explain.setdefault(hit.id, {})[leg] = {"rank": rank, "score": round(hit.score, 6)}
    order = sorted(fused, key=lambda cid: -fused[cid])
    return [
        first[cid].but(score=fused[cid], explain={**explain[cid], "fused": round(fused[cid], 6)})
        for cid in order
    ]


def hybrid_search(
    store: Store, vectors: VectorIndex, embedder: Embedder, query: str, limit: int = 10,
    offset: int = 0, source: str | None = None, kind: str | None = None, path: str | None = None,
    weights: dict[str, float] | None = None, k: int = 60, language: str | None = None,
    symbol_kind: str | None = None, fusion: str = "learned", facets: Facets | None = None,
) -> SearchResult:
    """Keyword and vector legs, each deep enough to fill the page, fused by the learned
    ranker (`mindex.rank`) or, with `fusion="rrf"`, by reciprocal rank fusion."""
    started = time.perf_counter()
    depth = max(50, 2 * (offset + limit))
    semantic = semantic_leg(store, vectors, embedder, query, depth, source, kind, path, language, symbol_kind, facets)
    keyword = lexical_search(store, query, depth, 0, source, kind, path, language, symbol_kind, snippets=False,
                             facets=facets).hits
    legs = {"keyword": list(keyword), "semantic": semantic()}
    fusion = choose_fusion(legs, query) if fusion == "auto" else fusion
    if fusion == "learned":
        from mindex.rank import learned_fusion

        hits = learned_fusion(query, legs, weights or {})
    else:
        hits = fuse(legs, weights or {}, k)
    took = (time.perf_counter() - started) * 1000
    return SearchResult(query, "hybrid", took, tuple(hits[offset : offset + limit]), fusion=fusion)


def choose_fusion(legs: dict[str, list[Hit]], query: str = "") -> str:
    """`rrf` when most of the legs' candidates are prose (`Hit.prose`), or when the query is a
    question and prose is among the first `QUESTION_DEPTH` of a leg; else `learned`.

    The learned ranker gains most on code (its features count a query's words in names) and
    is a wash on prose: over the four docs sets it was below RRF on three, and below its own
    semantic leg on one (SQLite's FAQ, a project it never saw), while RRF was at or above both
    legs on all four (benchmarks/README.md). Memory, knowledge and changelogs keep the ranker
    (memory: 0.433 against RRF's 0.421). A question ("how do I parametrize a fixture") asked of
    code and docs together has few content words, and a test's long name holds them all
    (`test_override_parametrized_fixture_with_new_parametrized_fixture`): the ranker's name
    features, fitted on docstrings of a dozen words, put forty such tests above the docs
    section both legs ranked first (pytest's sdist with its docs)."""
    seen = {h.id: h.prose for hits in legs.values() for h in hits}
    docs = sum(seen.values())
    if seen and docs * 2 > len(seen):
        return "rrf"
    if docs and is_question(query) and any(h.prose for hits in legs.values() for h in hits[:QUESTION_DEPTH]):
        return "rrf"
    return "learned"


QUESTION_DEPTH = 10
_QUESTION = re.compile(
    r"\s*(how\s+(do|does|did|can|could|should|would|to|is|are)|what('s|\s+(is|are|does|do|should|happens|can))"
    r"|why|which|where\s+(is|are|do|does|can|should)|when\s+(do|does|should|can|is|are)|can\s+(i|you|we)"
    r"|should\s+(i|we)|is\s+(there|it)\s+(a|an|any|possible))\b", re.IGNORECASE)


def is_question(text: str) -> bool:
    """Whether `text` reads as a question in words ("how do I ...", "what is ...", or a
    sentence ending in "?"), not a name or a docstring ("will append ...", "is the same as")."""
    text = text.strip()
    return text.endswith("?") or _QUESTION.match(text) is not None


def semantic_search(
    store: Store, vectors: VectorIndex, embedder: Embedder, query: str, limit: int = 10,
    offset: int = 0, source: str | None = None, kind: str | None = None, path: str | None = None,
    language: str | None = None, symbol_kind: str | None = None, facets: Facets | None = None,
) -> SearchResult:
    """Vector-only search."""
    started = time.perf_counter()
    hits = semantic_hits(store, vectors, embedder, query, offset + limit, source, kind, path, language, symbol_kind,
                         facets)
    took = (time.perf_counter() - started) * 1000
    return SearchResult(query, "semantic", took, tuple(hits[offset:]))


def weighed(score: float, factor: float, logits: bool) -> float:
    """A score times `factor`: for the learned fusion's log-odds (`logits`, any sign) the
    factor is added as its logarithm, which multiplies the odds."""
    return score + math.log(max(factor, 1e-300)) if logits else score * factor


def recency_clock(times: list[float], half_life_days: float, now: float | None = None) -> tuple[float, float]:
    """(newest, half-life in days) for ranking things by age among `times` (epoch seconds):
    ages count from the newest of them (or `now`, if earlier), and the half-life stretches to
    the span they cover. See `decay`."""
    newest = max(times) if now is None else min(max(times), now)
    return newest, max(half_life_days, (max(times) - min(times)) / 86400)


def decay(hits: list[Hit], half_lives: dict[str, float], now: float | None = None, logits: bool = False) -> list[Hit]:
    """Recency as a prior after fusion: score × 0.5^(age / half-life) for source kinds that
    have a half-life (none for code and docs by default); re-sorted, stable.

    Ages are counted on the candidates' own clock, not the wall clock alone: from the newest
    candidate of the kind (or `now`, if earlier), so a journal last written months ago is not
    ranked by how long ago that was. And the half-life stretches to the span the candidates
    cover: over a year of entries the oldest loses at most half its score (its odds, for the
    learned fusion), so a relevant old entry still beats a vaguely related new one, while within
    a span shorter than the half-life recency counts as configured. (Measured on a journal
    spanning 12 months whose questions are about any time: a fixed 30-day half-life cost 37% of
    nDCG@10; this, 0.5% through `memory search`; benchmarks/README.md.) What is current when a decision is restated
    is memory's job (`mindex.memory.book.supersede`).

    The age is the entry's own time for memory, knowledge and changelogs (a release's date),
    else the file's mtime; an undated hit of a decayed kind counts as old as its oldest
    candidate, so it never outranks dated ones of the same relevance. `logits`
    says the scores are the learned fusion's (log-odds, any sign): the factor is then added as
    its logarithm, which is the same multiplication on the odds."""
    times: dict[str, list[float]] = {}
    for hit in hits:
        if half_lives.get(hit.kind) and hit.modified is not None:
            times.setdefault(hit.kind, []).append(hit.modified)
    if not times:
        return hits
    clock = {kind: recency_clock(ts, half_lives[kind], now) for kind, ts in times.items()}
    out = []
    for hit in hits:
        if hit.kind in clock:
            newest, days = clock[hit.kind]
            # Undated (a release without a date): as old as the oldest candidate, never the newest.
            when = hit.modified if hit.modified is not None else min(times[hit.kind])
            age = max(0.0, newest - when) / 86400
            factor = 0.5 ** (age / days)
            hit = hit.but(score=weighed(hit.score, factor, logits), explain={**(hit.explain or {}), "recency": {
                "age_days": round(age, 1), "half_life_days": round(days, 1), "factor": round(factor, 4),
                **({"undated": True} if hit.modified is None else {})}})
        out.append(hit)
    return sorted(out, key=lambda h: (-h.score, h.modified is None and h.kind in clock))


def expand(
    store: Store, vectors: VectorIndex, hits: list[Hit], seeds: int = 3, per_seed: int = 3,
    hop_decay: float = 0.5, min_similarity: float = 0.5, budget_ms: float = 500.0,
) -> list[Hit]:
    """One multi-hop step: chunks near the top `seeds` results (by their stored vectors) join
    the list, or move up in it, with score = seed score × similarity × `hop_decay`; the step
    stops when its time budget is spent."""
    started = time.perf_counter()
    by_id = {h.id: h for h in hits}
    for seed in hits[:seeds]:
        if (time.perf_counter() - started) * 1000 > budget_ms or seed.seq is None:
            break
        vector = vectors.vector(seed.seq)
        if vector is None:
            continue
        near = [(seq, sim) for seq, sim in vectors.search(vector, per_seed + 1) if sim >= min_similarity]
        rows = store.hits_by_seq([seq for seq, _ in near])
        for seq, sim in near:
            hit, score = rows.get(seq), seed.score * sim * hop_decay
            if hit is None or hit.id == seed.id:
                continue
            known = by_id.get(hit.id)
            if known is not None and known.score >= score:
                continue  # already ranked at least as high on its own
            base = known or hit.but(snippet=" ".join(hit.text.split())[:240])
            by_id[hit.id] = base.but(score=score, explain={
                **(base.explain or {}), "hop": {"from": seed.id, "similarity": round(sim, 4)}})
    return sorted(by_id.values(), key=lambda h: -h.score)


def collapse_sections(hits: list[Hit]) -> list[Hit]:
    """One result per section: the pieces of one long section or function (same file, same
    context line; same entry, for memory and knowledge) after its best one leave the list, so a page of results shows more
    places (measured on the dev sets: +0.2% to +1.3%); `explain.section.chunks` counts them."""
    best: dict[tuple[str, str, str, object], Hit] = {}
    counts: dict[tuple[str, str, str, object], int] = {}
    for hit in hits:
        # memory entries of one day share a context line: a piece belongs to its entry's id
        key = (hit.source, hit.path, hit.context, (hit.facets or {}).get("id"))
        counts[key] = counts.get(key, 0) + 1
        best.setdefault(key, hit)
    return [hit if counts[key] == 1 else hit.but(explain={**(hit.explain or {}), "section": {"chunks": counts[key]}})
            for key, hit in best.items()]


# How deep a search reads its candidates to fill a page that sections, files or neighbours
# collapsed (`page_size`): the first depth times four until this.
DEEPEST = 1000


def page_size(hits: Sequence[Hit], merge: bool, group_by: str | None) -> int:
    """How many results `hits` make once grouped by file, merged with their neighbours or
    collapsed to one a section, as `Engine.search` does (the order of `hits` changes none of
    these counts, but for neighbours joined in a chain)."""
    made = group_by_file if group_by else merge_adjacent if merge else collapse_sections
    return len(made(list(hits)))


def group_by_file(hits: list[Hit]) -> list[Hit]:
    """One result per file, in the order of each file's best chunk (measured on the dev sets:
    as good as summing a file's chunks, and simpler); `explain.file.chunks` counts the file's
    chunks among the candidates."""
    best: dict[tuple[str, str], Hit] = {}
    counts: dict[tuple[str, str], int] = {}
    for hit in hits:
        key = (hit.source, hit.path)
        counts[key] = counts.get(key, 0) + 1
        best.setdefault(key, hit)
    return [hit.but(explain={**(hit.explain or {}), "file": {"chunks": counts[key]}})
            for key, hit in best.items()]


def merge_adjacent(hits: list[Hit]) -> list[Hit]:
    """Merge results that are neighbouring chunks of one file (consecutive chunks, or touching
    or overlapping line spans) into one result at the better one's place; overlapping
    paragraphs appear once. Markdown sections are neighbours across the blank line between them."""
    out: list[Hit] = []
    places: list[tuple[int, int] | None] = []  # the chunk ordinals each kept result spans
    for hit in hits:
        for i, kept in enumerate(out):
            if _adjacent(kept, places[i], hit):
                out[i] = _joined(kept, hit)
                place = places[i]
                places[i] = None if place is None or hit.ordinal is None else (
                    min(place[0], hit.ordinal), max(place[1], hit.ordinal))
                break
        else:
            out.append(hit)
            places.append(None if hit.ordinal is None else (hit.ordinal, hit.ordinal))
    return out


def _adjacent(a: Hit, place: tuple[int, int] | None, b: Hit) -> bool:
    if (a.source, a.path) != (b.source, b.path):
        return False
    if place is not None and b.ordinal is not None and place[0] - 1 <= b.ordinal <= place[1] + 1:
        return True
    if None in (a.start_line, a.end_line, b.start_line, b.end_line):
        return False
    assert a.start_line and a.end_line and b.start_line and b.end_line
    return b.start_line <= a.end_line + 1 and a.start_line <= b.end_line + 1


def _joined(a: Hit, b: Hit) -> Hit:
    first, second = (a, b) if (a.start_line or 0) <= (b.start_line or 0) else (b, a)
    head, tail = first.text.split("\n\n"), second.text.split("\n\n")
    for n in range(min(len(head), len(tail)), 0, -1):  # drop the paragraphs both chunks hold
        if head[-n:] == tail[:n]:
            tail = tail[n:]
            break
    text = "\n\n".join(head + tail)
    merged = (a.explain or {}).get("merged", [a.id]) + [b.id]
    return a.but(start_line=min(a.start_line or 0, b.start_line or 0),
                   end_line=max(a.end_line or 0, b.end_line or 0), text=text,
                   explain={**(a.explain or {}), "merged": merged})


# A file's score in `locate`: its best chunk's log-odds, plus this share of its second best
# chunk's (when positive) and this share squared of its third's. A file where several chunks
# match is likelier than one where a single chunk does. Chosen on loc and loc-tests (0.3 to
# 0.5 alike), checked on loc-go-ts and loc-tests-poetry (benchmarks/README.md).
MORE_EVIDENCE = 0.4


def file_order(hits: list[Hit] | tuple[Hit, ...], logits: bool) -> list[tuple[str, str]]:
    """The files of ranked hits, best first, as `(source, path)`: by each file's best hit,
    and where the scores are the learned fusion's log-odds also by its next two when they
    speak for it (`MORE_EVIDENCE`)."""
    return list(file_scores(hits, logits))


def file_scores(hits: list[Hit] | tuple[Hit, ...], logits: bool) -> dict[tuple[str, str], float]:
    """`file_order`'s files with the score that orders them, best first."""
    scores: dict[tuple[str, str], list[float]] = {}
    for hit in hits:
        scores.setdefault((hit.source, hit.path), []).append(hit.score)
    if not logits:
        return {file: found[0] for file, found in scores.items()}

    def score(file: tuple[str, str]) -> float:
        best, *more = scores[file][:3]
        return best + sum(MORE_EVIDENCE ** n * max(0.0, x) for n, x in enumerate(more, 1))
    scored = {file: score(file) for file in scores}
    return dict(sorted(scored.items(), key=lambda item: item[1], reverse=True))

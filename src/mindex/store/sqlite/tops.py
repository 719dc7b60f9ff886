"""The best chunks for each common word, listed beside the full-text index, so that a search
for one common word does not score every chunk that holds it.

FTS5 ranks a MATCH by computing BM25 for every matching row, then sorting: `return` is in a
quarter of a code index, 150 ms at a million chunks. For each word (an FTS5 token: stemmed,
folded) in `TOPS_FROM` chunks or more, and each common name of several words as a search
writes it (`("assertEqual" OR "assert equal")`), `build` lists the `TOPS_KEEP` best chunks,
each with what its score is made of: its length in tokens (D) and the weighted count of each
phrase in it (f). A query for the word or name then reads its list:

- while the full-text index is as the list found it (its averages and structure records
  unchanged), the list's first chunks are the page, with the scores FTS5 gives;
- after writes, the page is still exact, or not answered here: the listed chunks still in
  the index are scored again (the same f and D, the index's new row count, mean length and
  each phrase's new count of chunks), the chunks written since (sequence numbers above the
  list's floor) are scored the same way when they are few, else ranked by FTS5, and a chunk
  that is in neither scores at most what the last listed chunk scored, times the growth of
  the idfs and of the mean length (BM25 grows with each, never faster): a page whose last
  score is above that bound is exact.

Writers keep one promise for this: a chunk written after `build` gets a sequence number
above the floor (`lower_floor` moves it down when a write reuses numbers), so a listed
number that still exists is the same chunk."""

from __future__ import annotations

import json
import re
import sqlite3
from array import array
from collections.abc import Callable, Sequence
from typing import NamedTuple

from mindex.store.base import little_endian, from_little_endian
from mindex.store.sqlite.match import idf, match_tokens, phrases, varints
from mindex.store.sqlite.queries import CHUNK_TEXT

# A word in this many chunks or more gets a list: scoring 20,000 chunks costs FTS5 about
# 13 ms (0.65 µs each), about what reading a page of hits costs on a large index.
TOPS_FROM = 20_000
# Chunks listed per word: a page of keyword search asks twice its size, grouping by file 100
# chunks and `locate` 400.
TOPS_KEEP = 500
# After writes change the row count or add chunks by this share of the rows, the lists are
# made again at the end of the next index run (until then, the bound check answers).
STALE_SHARE = 0.1
# Chunks written since the lists were made that a query scores itself, at most (more are
# ranked by FTS5).
NEW_SCORED = 64
_META = "keyword_tops"
_K1, _B = 1.2, 0.75  # FTS5's BM25 constants
_TOKENIZE = re.compile(r"tokenize\s*=\s*'((?:[^']|'')*)'")


def records(db: sqlite3.Connection) -> tuple[bytes, bytes] | None:
    """The full-text index's averages record (row count, tokens a column) and structure record
    (its segments: changes with every write), or None when it has none yet."""
    rows = dict(db.execute("SELECT id, block FROM chunks_fts_data WHERE id IN (1, 10)").fetchall())
    if 1 not in rows or 10 not in rows:
        return None
    return bytes(rows[1]), bytes(rows[10])


def _averages(block: bytes) -> tuple[int, float]:
    """(rows, mean length in tokens) from the averages record."""
    numbers = varints(block)
    return numbers[0], sum(numbers[1:]) / numbers[0] if numbers[0] else 1.0


class Stemmer:
    """The tokens FTS5 makes of a text with the full-text index's own tokenizer (tables in
    the connection's temporary database: also on a read-only index)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self.ready = False

    def _ready(self) -> None:
        if self.ready:
            return
        sql = self.db.execute("SELECT sql FROM sqlite_master WHERE name = 'chunks_fts'").fetchone()
        found = _TOKENIZE.search(sql[0] if sql else "")
        tokenize = (found.group(1) if found else "unicode61").replace("''", "'").replace("'", "''")
        for table, columns in (("mindex_stem", "word"), ("mindex_rows", "title, context, text, terms")):
            self.db.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{table} USING fts5 ({columns}, tokenize = '{tokenize}')")
            self.db.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{table}_tokens USING fts5vocab(temp, {table}, instance)")
        self.ready = True

    def __call__(self, text: str) -> list[str]:
        self._ready()
        self.db.execute("INSERT INTO temp.mindex_stem (rowid, word) VALUES (1, ?)", (text,))
        try:
            return [term for (term,) in self.db.execute("SELECT term FROM temp.mindex_stem_tokens ORDER BY offset")]
        finally:
            self.db.execute("DELETE FROM temp.mindex_stem")

    def rows(self, seqs: Sequence[int], tokens: set[str]) -> list[tuple[int, str, str, int]]:
        """(seq, column, token, offset) of each of `tokens` in the full-text columns of the
        chunks `seqs`, as the index tokenized them."""
        if not seqs or not tokens:
            return []
        self._ready()
        self.db.execute(f"""INSERT INTO temp.mindex_rows (rowid, title, context, text, terms)
                       SELECT seq, title, context, {CHUNK_TEXT}, terms FROM chunks c
                       WHERE seq IN ({','.join('?' * len(seqs))})""", seqs)
        try:
            return self.db.execute(f"""SELECT doc, col, term, offset FROM temp.mindex_rows_tokens
                                  WHERE term IN ({','.join('?' * len(tokens))})""", sorted(tokens)).fetchall()
        finally:
            self.db.execute("DELETE FROM temp.mindex_rows")


def _lengths(db: sqlite3.Connection, seqs: Sequence[int]) -> dict[int, int]:
    """Each chunk's length in tokens, all columns (FTS5's `_docsize` record), by seq."""
    return {seq: sum(varints(sz)) for seq, sz in db.execute(
        f"SELECT id, sz FROM chunks_fts_docsize WHERE id IN ({','.join('?' * len(seqs))})", seqs)}


def _fts_ranked(db: sqlite3.Connection, match: str, limit: int, weights: Sequence[float],
                above: int | None = None) -> list[tuple[int, float]]:
    """(seq, BM25) of the best `limit` chunks FTS5 finds for `match` (numbered above `above`
    when given), as the store's keyword search ranks them."""
    ranked_by = ", ".join(str(w) for w in weights)
    return db.execute(f"""SELECT rowid, -bm25(chunks_fts, {ranked_by}) FROM chunks_fts
                          WHERE chunks_fts MATCH ?{' AND rowid > ?' if above is not None else ''}
                          ORDER BY bm25(chunks_fts, {ranked_by}), rowid LIMIT ?""",
                      (match, *(() if above is None else (above,)), limit)).fetchall()


def _pack(entries: Sequence[Sequence[int]]) -> bytes:
    return little_endian(array("q", [n for entry in entries for n in entry]))


def _unpack(blob: bytes, width: int) -> list[array[int]]:
    numbers = from_little_endian(array("q", blob))
    return [numbers[i:i + width] for i in range(0, len(numbers), width)]


class Made(NamedTuple):
    """What the lists were made from: the full-text index's two records (hex), its row count
    and mean length then, and the floor (chunks numbered above it were written since)."""
    averages: str
    structure: str
    rows: int
    avgdl: float
    floor: int

    def same(self, now: tuple[bytes, bytes]) -> bool:
        """Whether the full-text index is still as it was."""
        return (self.averages, self.structure) == (now[0].hex(), now[1].hex())


def state(db: sqlite3.Connection) -> Made | None:
    """What the lists were made from (None when there are none)."""
    row = db.execute("SELECT value FROM schema_meta WHERE key = ?", (_META,)).fetchone()
    return Made(**json.loads(row[0])) if row else None


def _save(db: sqlite3.Connection, made: Made) -> None:
    db.execute("INSERT OR REPLACE INTO schema_meta VALUES (?, ?)", (_META, json.dumps(made._asdict())))


def needs_build(db: sqlite3.Connection) -> bool:
    """Whether the end of an index run should make the lists (again): none made yet on an
    index large enough to have a common word, or writes since have moved the row count or
    added chunks by `STALE_SHARE` of the rows (each query then does more work)."""
    now = records(db)
    if now is None:
        return False
    rows, _ = _averages(now[0])
    made = state(db)
    if made is None:
        return rows >= TOPS_FROM
    if made.same(now):
        return False
    (high,) = db.execute("SELECT coalesce(max(seq), 0) FROM chunks").fetchone()
    return abs(rows - made.rows) > STALE_SHARE * made.rows or high - made.floor > STALE_SHARE * made.rows


def build(db: sqlite3.Connection, weights: Sequence[float], names: Sequence[tuple[str, str]] = (),
          progress: Callable[[str, int, int], None] | None = None) -> list[tuple[str, str, float, bytes]] | None:
    """The lists of the index as it is, read in the caller's read transaction, for each
    common token and for each of `names`' expressions ((name, the FTS5 expression a search for
    it writes: `("assertEqual" OR "assert equal")`) in `TOPS_FROM` chunks or more: rows of
    (key, chunks holding each phrase (JSON), the last listed chunk's score (0 when every
    chunk holding it is listed), entries). None without a full-text index. `progress`
    hears ("keyword lists", lists made, lists to make)."""
    now = records(db)
    if now is None:
        return None
    rows, avgdl = _averages(now[0])
    if rows < TOPS_FROM:
        return []
    db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.mindex_vocab USING fts5vocab(main, chunks_fts, row)")
    stem = Stemmer(db)
    asked: dict[str, str] = {}
    for token, _ in db.execute("SELECT term, doc FROM temp.mindex_vocab WHERE doc >= ?", (TOPS_FROM,)).fetchall():
        # a token as a search writes it: a word whose token it is (`false` for `fals`)
        for word in (token, token + "e", token + "s"):
            if stem(word) == [token]:
                asked[token] = '"' + word + '"'
                break
    for _, expression in names:
        if (key := list_key(stem, expression)) is not None:
            asked.setdefault(key, expression)
    out = []
    for done, (key, expression) in enumerate(asked.items()):
        if progress is not None:
            progress("keyword lists", done, len(asked))
        parts = phrases(expression)
        holding = [db.execute("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?", (part,)).fetchone()[0]
                   for part in parts]
        if sum(holding) < TOPS_FROM:
            continue
        top = _fts_ranked(db, expression, TOPS_KEEP, weights)
        seqs = [seq for seq, _ in top]
        sizes = _lengths(db, seqs)
        weights_ = [idf(rows, n) for n in holding]
        counts = _phrase_counts(stem, seqs, parts, weights) if len(parts) > 1 else \
            {seq: [_count(score, weights_[0], sizes.get(seq, 0), avgdl)] for seq, score in top}
        entries = []
        for seq, score in top:
            if seq not in sizes or _score(weights_, counts[seq], sizes[seq], avgdl) != score:
                break  # not what FTS5 computes (weights that are not whole numbers): no list
            entries.append([seq, sizes[seq], *counts[seq]])
        else:
            complete = len(entries) < TOPS_KEEP
            out.append((key, json.dumps(holding), 0.0 if complete else top[-1][1], _pack(entries)))
    if progress is not None:
        progress("keyword lists", len(asked), len(asked))
    return out


def _phrase_counts(stem: Stemmer, seqs: Sequence[int], parts: Sequence[str],
                   weights: Sequence[float]) -> dict[int, list[int]]:
    """Each phrase's weighted count in each chunk of `seqs`: its columns tokenized again by the
    index's tokenizer (`stem.rows`), and a phrase counted where its tokens stand in a row.
    (Asking FTS5 for one phrase's BM25 in given rows walks all the phrase's rows each time.)"""
    wanted = [stem(text) for part in parts for text, _, _ in match_tokens(part) if text is not None]
    positions: dict[tuple[int, str], dict[str, set[int]]] = {}
    for seq, column, token, offset in stem.rows(seqs, {t for tokens in wanted for t in tokens}):
        positions.setdefault((seq, column), {}).setdefault(token, set()).add(offset)
    weight_of = dict(zip(("title", "context", "text", "terms"), weights))
    out = {seq: [0] * len(parts) for seq in seqs}
    for (seq, column), held in positions.items():
        for n, tokens in enumerate(wanted):
            starts = held.get(tokens[0], set()) if tokens else set()
            found = sum(all(start + k in held.get(t, ()) for k, t in enumerate(tokens)) for start in starts)
            out[seq][n] += round(weight_of[column] * found)
    return out


def _count(score: float, weight: float, length: int, avgdl: float) -> int:
    """The weighted count of a phrase in a row, from its BM25 for the phrase alone."""
    share = score / weight
    return round(share * _K1 * (1 - _B + _B * length / avgdl) / (_K1 + 1.0 - share))


def _score(weights: Sequence[float], counts: Sequence[int], length: int, avgdl: float) -> float:
    """A row's BM25 for an OR of phrases, summed in their order as FTS5 sums it."""
    total = 0.0
    for weight, count in zip(weights, counts):
        total += weight * ((count * (_K1 + 1.0)) / (count + _K1 * (1 - _B + _B * length / avgdl)))
    return total


def list_key(stem: Stemmer, match: str) -> str | None:
    """What a list is found by: the tokens of each phrase of an expression that is only an
    OR of quoted phrases (brackets allowed, no `*`), or None for any other expression."""
    keys = []
    for text, star, op in match_tokens(match):
        if star or op == "AND":
            return None
        if text is not None:
            tokens = stem(text)
            if not tokens:
                return None
            keys.append(" ".join(tokens))
    return "|".join(keys) or None


def write(db: sqlite3.Connection, lists: Sequence[tuple[str, str, float, bytes]], made_from: tuple[bytes, bytes]) -> None:
    """Replace the lists with `lists`, made when the full-text index's records were
    `made_from` (in the caller's write transaction)."""
    rows, avgdl = _averages(made_from[0])
    (high,) = db.execute("SELECT coalesce(max(seq), 0) FROM chunks").fetchone()
    db.execute("DELETE FROM keyword_tops")
    db.executemany("INSERT INTO keyword_tops (term, holding, bound, entries) VALUES (?, ?, ?, ?)", lists)
    _save(db, Made(made_from[0].hex(), made_from[1].hex(), rows, avgdl, high))


def _written_since(db: sqlite3.Connection, stem: Stemmer, match: str, floor: int, wanted: int,
                   weights: Sequence[float], idfs: Sequence[float], avgdl: float) -> list[tuple[int, float]]:
    """The best `wanted` (seq, BM25) of `match` among the chunks written since the lists were
    made (numbered above `floor`). A few are scored here, each phrase counted in their own
    tokens (`_phrase_counts`) with the idfs already known: FTS5's `bm25()` would walk each
    phrase's whole list again for its idf (4 of the 4.5 ms `return` took after one memory
    save at a million chunks). Many are ranked by FTS5."""
    seqs = [seq for (seq,) in db.execute("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? AND rowid > ? LIMIT ?",
                                         (match, floor, NEW_SCORED + 1))]
    if len(seqs) <= NEW_SCORED:
        if not seqs:
            return []
        sizes = _lengths(db, seqs)
        counts = _phrase_counts(stem, seqs, phrases(match), weights)
        if len(sizes) == len(seqs):
            return sorted(((seq, _score(idfs, counts[seq], sizes[seq], avgdl)) for seq in seqs),
                          key=lambda entry: (-entry[1], entry[0]))[:wanted]
    return _fts_ranked(db, match, wanted, weights, above=floor)


def rewritten(db: sqlite3.Connection, rewrite: Callable[[], object]) -> None:
    """Run `rewrite`, a change of the full-text index's segments that keeps its rows (FTS5's
    `optimize`), in the caller's write transaction: lists that matched the index before it
    match it after (else every query would take the after-writes way)."""
    made, before = state(db), records(db)
    rewrite()
    after = records(db)
    if made is not None and before is not None and after is not None and made.same(before) and after[0] == before[0]:
        _save(db, made._replace(structure=after[1].hex()))


def lower_floor(db: sqlite3.Connection, last_seq: int) -> None:
    """A writer about to add chunks numbered from `last_seq` + 1: when that is at or under
    the lists' floor (the highest chunks were deleted, and SQLite reuses their numbers), the
    floor goes down to it, so the numbers written now count as new."""
    made = state(db)
    if made is not None and last_seq < made.floor:
        _save(db, made._replace(floor=last_seq))


def ranked(db: sqlite3.Connection, stem: Stemmer, match: str, wanted: int,
           weights: Sequence[float]) -> list[tuple[int, float]] | None:
    """The best `wanted` (seq, BM25) of `match`, exactly as FTS5 ranks them, from the lists
    (in the caller's read transaction); None when they cannot say."""
    if wanted > TOPS_KEEP:
        return None
    made = state(db)
    if made is None:
        return None
    key = list_key(stem, match)
    row = db.execute("SELECT holding, bound, entries FROM keyword_tops WHERE term = ?", (key,)).fetchone()
    now = records(db)
    if row is None or now is None:
        return None
    holding, bound = json.loads(row[0]), row[1]
    entries = _unpack(row[2], 2 + len(holding))
    if made.same(now):
        weights_ = [idf(made.rows, n) for n in holding]
        return [(int(e[0]), _score(weights_, e[2:], e[1], made.avgdl)) for e in entries[:wanted]]
    rows, avgdl = _averages(now[0])
    then = [idf(made.rows, n) for n in holding]
    parts = phrases(match)
    if len(parts) != len(then):
        return None
    # The chunks above the floor are those written since, those at or under it are the lists'
    # time's: when none of these is gone, each phrase's count grew by the new chunks' alone
    # (FTS5 seeks past the floor), else it is counted whole (10 ms for `return`'s 239,564).
    (newer,) = db.execute("SELECT count(*) FROM chunks WHERE seq > ?", (made.floor,)).fetchone()
    grown = " AND rowid > ?" if rows - newer == made.rows else ""
    weights_ = [idf(rows, db.execute(f"SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?{grown}",
                                     (part, made.floor) if grown else (part,)).fetchone()[0] + (n if grown else 0))
                for part, n in zip(parts, holding)]
    listed = [e for e in entries if e[0] <= made.floor]
    present = {seq for (seq,) in db.execute(
        f"SELECT seq FROM chunks WHERE seq IN ({','.join('?' * len(listed))})", [e[0] for e in listed])}
    new = _written_since(db, stem, match, made.floor, wanted, weights, weights_, avgdl)
    found = sorted([(int(e[0]), _score(weights_, e[2:], e[1], avgdl)) for e in listed if e[0] in present] + new,
                   key=lambda entry: (-entry[1], entry[0]))[:wanted]
    if not bound:
        return found  # every chunk that held the phrases then was listed
    # a chunk in neither scored at most `bound` then; each phrase's part grows at most by its
    # idf's growth, and by the mean length's (BM25 rises with it, never faster)
    unlisted = bound * max(w / t for w, t in zip(weights_, then)) * max(1.0, avgdl / made.avgdl)
    if len(found) == wanted and found[-1][1] > unlisted * (1 + 1e-9):
        return found
    return None

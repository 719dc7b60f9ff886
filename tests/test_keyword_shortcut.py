"""An OR of terms on SQLite is ranked without scoring every chunk a common term is in
(`ChunkTables._any_term`): a speed-up only, so every page must be the one plain BM25 over all
matches gives, scores included."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

import mindex.store.sqlite.chunks as chunks
from mindex import Index
from mindex.config import EmbedSettings, IndexSettings
from mindex.store.sqlite.match import fts_rows, or_terms, phrases

# Words by how many sections hold them: in nearly all, in many, in some, in few.
EVERYWHERE = ["return", "value"]
COMMON = ["error", "config", "handler", "request"]
SOME = ["timeout", "socket", "parser", "cache", "retry"]
RARE = ["marble", "zephyr", "quartz", "lantern"]


def _docs(folder: Path, seed: int = 7) -> None:
    """Sixty pages of ten sections, words drawn by their rarity (a word more than once in a
    section, in headings too), so that chunks tie, differ in length and share phrases."""
    rng = random.Random(seed)
    folder.mkdir()
    for page in range(60):
        sections = []
        for n in range(10):
            words = [rng.choice(EVERYWHERE) for _ in range(rng.randint(1, 6))]
            words += [rng.choice(COMMON) for _ in range(rng.randint(0, 5))]
            words += [rng.choice(SOME) for _ in range(rng.randint(0, 2))] if rng.random() < 0.4 else []
            words += [rng.choice(RARE)] if rng.random() < 0.05 else []
            words += ["config handler"] if rng.random() < 0.2 else []
            rng.shuffle(words)
            heading = rng.choice(COMMON + SOME) if rng.random() < 0.5 else "notes"
            sections.append(f"## {heading} {page} {n}\n\n" + " ".join(words) + ".\n")
        (folder / f"page{page:02}.md").write_text(f"# Page {page}\n\n" + "\n".join(sections))


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Any:
    tmp = tmp_path_factory.mktemp("shortcut")
    _docs(tmp / "docs")
    with Index(tmp / "i.db", IndexSettings(workers=1), embed=EmbedSettings(provider="none")) as ix:
        ix.add_source(tmp / "docs", name="docs", kind="docs")
        ix.index()
        yield ix


def _queries(seed: int = 3) -> list[str]:
    rng = random.Random(seed)
    pools = [EVERYWHERE, COMMON, SOME, RARE]
    found = ['"return" OR "marble"', '"value" OR "error" OR "zephyr"', '"return" OR "value"',
             '("config handler" OR "confighandler") OR "timeout"', '"ret"* OR "quartz"', '"config handler" OR "lantern"',
             '"return" OR "value" OR "error" OR "config" OR "handler" OR "request"']
    while len(found) < 60:
        words = [f'"{rng.choice(rng.choice(pools))}"' for _ in range(rng.randint(2, 5))]
        found.append(" OR ".join(dict.fromkeys(words)))
    return found


def test_every_page_of_an_or_is_the_plain_bm25_one(corpus: Index, monkeypatch: pytest.MonkeyPatch) -> None:
    store = corpus.store
    ranked, calls = type(store)._fts_ranked, []

    def spy(self: object, match: str, *args: Any) -> Any:
        calls.append(match)
        return ranked(self, match, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(type(store), "_fts_ranked", spy)

    def pages(shortcut_from: int) -> tuple[list[list[tuple[str, float]]], int]:
        monkeypatch.setattr(chunks, "SHORTCUT_FROM", shortcut_from)
        got, alone = [], 0
        for match in _queries():
            for limit, offset, filters in ((3, 0, {}), (10, 0, {}), (10, 5, {}), (20, 0, {"path": "page1*"})):
                calls.clear()
                got.append([(h.id, h.score) for h in store.keyword_search(match, limit, offset, **filters)])
                alone += match not in calls  # the whole OR never ran: the shortcut answered
        return got, alone

    fast, alone = pages(0)
    plain, never = pages(10**12)
    assert never == 0 and alone >= 60, alone  # the shortcut answered many pages by itself
    assert len(fast) == len(plain) and all(plain[:10])
    for mine, theirs in zip(fast, plain):
        assert [seq for seq, _ in mine] == [seq for seq, _ in theirs]
        assert all(abs(a - b) <= 1e-9 * max(1.0, abs(b)) for (_, a), (_, b) in zip(mine, theirs))


def test_the_shortcut_reads_one_state_of_the_index_and_leaves_a_caller_s_transaction_open(
        corpus: Index, monkeypatch: pytest.MonkeyPatch) -> None:
    store, seen = corpus.store, []
    monkeypatch.setattr(chunks, "SHORTCUT_FROM", 0)
    ranked = type(store)._fts_ranked

    def spy(self: Any, *args: Any) -> Any:
        seen.append(self.conn.in_transaction)  # the counts and both queries run in one read transaction
        return ranked(self, *args)

    monkeypatch.setattr(type(store), "_fts_ranked", spy)
    alone = store.keyword_ranked('"return" OR "marble"', 5)
    assert alone and seen and all(seen) and not store.conn.in_transaction
    store.conn.execute("BEGIN")
    try:
        assert store.keyword_ranked('"return" OR "marble"', 5) == alone and store.conn.in_transaction
    finally:
        store.conn.execute("COMMIT")


def test_searches_through_the_index_are_unchanged(corpus: Index, monkeypatch: pytest.MonkeyPatch) -> None:
    asked = ["return value marble", "handler request timeout socket", "config handler zephyr", "value error retry cache"]

    def results(shortcut_from: int) -> list[list[str]]:
        monkeypatch.setattr(chunks, "SHORTCUT_FROM", shortcut_from)
        return [[h.id for h in corpus.search(q, mode="keyword", limit=10).hits] for q in asked]

    assert results(0) == results(10**12) and all(results(0))


def test_the_row_count_is_read_from_the_full_text_index_through_edits(tmp_path: Path) -> None:
    _docs(tmp_path / "docs", seed=11)
    with Index(tmp_path / "i.db", IndexSettings(workers=1), embed=EmbedSettings(provider="none")) as ix:
        ix.add_source(tmp_path / "docs", name="docs", kind="docs")
        ix.index()

        def both() -> tuple[int, int]:
            block = ix.store.conn.execute("SELECT block FROM chunks_fts_data WHERE id = 1").fetchone()[0]
            return fts_rows(block), ix.store.conn.execute("SELECT count(*) FROM chunks").fetchone()[0]

        first = both()
        for name in ("page03.md", "page04.md"):
            (tmp_path / "docs" / name).unlink()
        (tmp_path / "docs" / "page05.md").write_text("# Short\n\nOne section now.\n")
        ix.index()
        second = both()
    assert first[0] == first[1] > 500 and second[0] == second[1] < first[1] - 15


def test_expressions_split_into_terms_and_phrases() -> None:
    assert or_terms('"a" OR ("b c" OR "b d") OR "e"*') == ['"a"', '("b c" OR "b d")', '"e"*']
    assert or_terms('"a" AND "b"') == ['"a" AND "b"'] and or_terms('"a OR b" OR "c"') == ['"a OR b"', '"c"']
    assert phrases('("b c" OR "b d")') == ['"b c"', '"b d"'] and phrases('"e"*') == ['"e"*']
    assert phrases('"say ""hi"""') == ['"say ""hi"""']
    assert fts_rows(bytes([0x05, 0x99])) == 5 and fts_rows(bytes([0x81, 0x00])) == 128
    assert fts_rows(bytes([0xBA, 0xA8, 0x11, 0xFF])) == 955_409

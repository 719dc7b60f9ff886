"""A search for one common word on SQLite reads a list of its best chunks made at the end of
an index run (`mindex.store.sqlite.tops`) instead of scoring every chunk that holds it: a
speed-up only, so every page must be the one FTS5's BM25 over all matches gives, scores
included, right after the lists are made and after any writes since."""

from __future__ import annotations

import random
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

import mindex.store.sqlite.tops as tops
from mindex import Index
from mindex.config import EmbedSettings, IndexSettings
from mindex.search import one_term

COMMON = ["return", "value", "error", "handler", "false"]  # false: its token, fals, is no word
OTHER = ["timeout", "socket", "parser", "cache", "retry", "marble", "zephyr"]


def _page(rng: random.Random, page: int, sections: int, long: bool = False) -> str:
    """A page of sections (each a chunk), common words drawn 0-6 times a section and now and
    then in a heading, with filler of any length, so chunks differ in count and length."""
    out = [f"# Page {page}\n"]
    for n in range(sections):
        words = [rng.choice(COMMON) for _ in range(rng.randint(0, 6))]
        words += [rng.choice(OTHER) for _ in range(rng.randint(0, 4))]
        words += ["filler"] * rng.randint(0, 60 if long else 12) + (["quartz"] if rng.random() < 0.03 else [])
        rng.shuffle(words)
        heading = rng.choice(COMMON + OTHER) if rng.random() < 0.3 else "notes"
        out.append(f"## {heading} {page} {n}\n\n" + " ".join(words) + ".\n")
    return "\n".join(out)


@pytest.fixture
def small_lists(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lists for words in 40 chunks or more, of 12 chunks each: every rule of the lists at
    the size of a test."""
    monkeypatch.setattr(tops, "TOPS_FROM", 40)
    monkeypatch.setattr(tops, "TOPS_KEEP", 12)


def _index(tmp: Path, pages: int = 30, seed: int = 5) -> Index:
    rng = random.Random(seed)
    (tmp / "docs").mkdir()
    for page in range(pages):
        (tmp / "docs" / f"p{page:03}.md").write_text(_page(rng, page, 8))
    ix = Index(tmp / "i.db", IndexSettings(workers=1), embed=EmbedSettings(provider="none"))
    ix.add_source(tmp / "docs", name="docs", kind="docs")
    ix.index()
    return ix


def _compare(store: Any, words: list[str]) -> int:
    """Assert each page the lists give is FTS5's own; how many they gave."""
    answered = 0
    for word in words:
        for wanted in (1, 5, 12):
            listed = store._common_word(f'"{word}"', wanted)
            plain = store._fts_ranked(f'"{word}"', wanted, [], [])
            if listed is not None:
                answered += 1
                assert [(seq, round(score, 9)) for seq, score in listed] == \
                       [(seq, round(score, 9)) for seq, score in plain], (word, wanted)
    return answered


def test_fresh_lists_give_every_page_of_a_common_word(tmp_path: Path, small_lists: None) -> None:
    with _index(tmp_path) as ix:
        store = ix.store
        listed = {term for (term,) in store.conn.execute("SELECT term FROM keyword_tops")}
        assert {"return", "valu", "error", "handler", "fals"} <= listed and "quartz" not in listed
        # every common word answered from its list; a plural or capital finds the same token
        assert _compare(store, COMMON + ["returns", "Values", "Error"]) == 3 * 8
        assert store._common_word('"quartz"', 5) is None  # a rare word: no list, FTS5 ranks it
        assert store._common_word('"return"*', 5) is None  # a prefix is not one token
        assert store._common_word('"return value"', 5) is None  # nor is a phrase
        # through search: the same page with the lists and without
        with_lists = [(h.id, h.score) for h in ix.search("return", 10, mode="keyword").hits]
        store.conn.execute("DELETE FROM schema_meta WHERE key = 'keyword_tops'")
        assert with_lists == [(h.id, h.score) for h in ix.search("return", 10, mode="keyword").hits]


def test_pages_stay_exact_through_writes(tmp_path: Path, small_lists: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rounds of edits without making the lists again: pages rewritten longer or shorter,
    deleted, added (long pages raise the mean length, which lifts unlisted chunks), and the
    last page replaced (SQLite then numbers new chunks with the numbers its chunks had)."""
    monkeypatch.setattr(tops, "STALE_SHARE", 1e9)
    rng = random.Random(11)
    with _index(tmp_path) as ix:
        store, docs = ix.store, tmp_path / "docs"
        made = tops.state(store.conn)
        assert made is not None
        # pages added only: each phrase's count is the lists' plus the new chunks'
        (docs / "added.md").write_text(_page(rng, 400, 12))
        ix.index()
        assert not made.same(tops.records(store.conn))  # type: ignore[arg-type]
        assert _compare(store, COMMON) >= 2 * len(COMMON)
        # then the last pages indexed go (the highest numbers): SQLite numbers the next
        # chunks from the highest left, so listed numbers come back for other chunks
        (docs / "added.md").unlink()
        max(docs.iterdir()).unlink()
        (docs / "a-new.md").write_text(_page(rng, 600, 12))
        ix.index()
        assert tops.state(store.conn).floor < made.floor  # type: ignore[union-attr]
        answered = _compare(store, COMMON)
        for round_ in range(8):  # edits, deletions, additions: each phrase counted whole
            pages = sorted(docs.iterdir())
            for path in rng.sample(pages, 3):
                path.write_text(_page(rng, 900 + round_, rng.randint(2, 10), long=rng.random() < 0.5))
            rng.choice([p for p in pages if p.name.startswith("p")]).unlink()
            if round_ % 2:  # the page written last (the highest numbers) goes: they come back below
                (docs / f"z{round_ - 1:02}.md").unlink()
                (docs / f"y{round_:02}.md").write_text(_page(rng, 700 + round_, 4))
            (docs / f"z{round_:02}.md").write_text(_page(rng, 500 + round_, 6, long=True))
            ix.index()
            assert tops.state(store.conn) is not None
            answered += _compare(store, COMMON)
        assert answered >= 9 * len(COMMON)  # the lists still answered most pages


def test_stale_lists_are_made_again_at_the_end_of_an_index_run(tmp_path: Path, small_lists: None) -> None:
    with _index(tmp_path) as ix:
        before = tops.state(ix.store.conn)
        assert before is not None
        (tmp_path / "docs" / "p000.md").write_text(_page(random.Random(1), 0, 3))
        ix.index()  # a small change: the lists stay and the bound answers
        assert tops.state(ix.store.conn) == before
        rng = random.Random(2)
        for page in range(10):
            (tmp_path / "docs" / f"new{page}.md").write_text(_page(rng, 100 + page, 8))
        ix.index()  # a third more chunks: made again
        after = tops.state(ix.store.conn)
        assert after is not None and after.rows > before.rows
        assert _compare(ix.store, COMMON) == 3 * len(COMMON)


def test_no_lists_below_the_size_where_scoring_is_quick(tmp_path: Path) -> None:
    with _index(tmp_path, pages=5) as ix:
        assert ix.store.conn.execute("SELECT count(*) FROM keyword_tops").fetchone()[0] == 0
        assert tops.state(ix.store.conn) is None
        assert ix.store._common_word('"return"', 5) is None


def test_the_stemmer_works_on_a_read_only_connection(tmp_path: Path, small_lists: None) -> None:
    with _index(tmp_path) as ix:
        expected = [(h.id, h.score) for h in ix.search("values", 5, mode="keyword").hits]
    shutil.copy(tmp_path / "i.db", tmp_path / "copy.db")
    conn = sqlite3.connect(f"{(tmp_path / 'copy.db').as_uri()}?mode=ro", uri=True)
    stem = tops.Stemmer(conn)
    assert stem("Returns") == ["return"] and stem("café") == ["cafe"] and stem("assertRaises") == ["assertrais"]
    assert stem("value error") == ["valu", "error"]
    conn.close()
    with Index(tmp_path / "copy.db", IndexSettings(workers=1), embed=EmbedSettings(provider="none")) as ix:
        assert [(h.id, h.score) for h in ix.search("values", 5, mode="keyword").hits] == expected


NAMES = ["assertEqual", "getValue", "ValueError"]


def _module(rng: random.Random, n: int) -> str:
    """A Python file of small functions calling common names of several words (some spelt
    with underscores: `assert_equal` holds the phrase "assert equal" but not `assertequal`)."""
    out = []
    for k in range(6):
        calls = [f"    self.{rng.choice(NAMES + ['assert_equal', 'get_value'])}(x{j})" for j in range(rng.randint(1, 5))]
        calls += [f"    y = {rng.choice(['x', 'value', 'other'])}" for _ in range(rng.randint(0, 8))]
        out.append(f"def f{n}_{k}(self, x0, x1, x2, x3, x4):\n" + "\n".join(calls) + "\n")
    return "\n\n".join(out)


def test_common_names_of_several_words_have_lists(tmp_path: Path, small_lists: None,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tops, "STALE_SHARE", 1e9)
    rng = random.Random(8)
    (tmp_path / "src").mkdir()
    for n in range(25):
        (tmp_path / "src" / f"m{n:02}.py").write_text(_module(rng, n))
    with Index(tmp_path / "i.db", IndexSettings(workers=1), embed=EmbedSettings(provider="none")) as ix:
        ix.add_source(tmp_path / "src", name="src", kind="code")
        ix.index()
        store = ix.store
        keys = {term for (term,) in store.conn.execute("SELECT term FROM keyword_tops")}
        assert {"assertequ|assert equal", "getvalu|get valu", "valueerror|valu error"} <= keys

        def compare() -> int:
            answered = 0
            for name in NAMES:
                match = one_term(name)
                assert match is not None and " OR " in match
                for wanted in (1, 5, 12):
                    listed = store._common_word(match, wanted)
                    plain = store._fts_ranked(match, wanted, [], [])
                    if listed is not None:
                        answered += 1
                        assert [(seq, round(score, 9)) for seq, score in listed] == \
                               [(seq, round(score, 9)) for seq, score in plain], (name, wanted)
            return answered

        assert compare() == 3 * len(NAMES)
        hits = [(h.id, h.score) for h in ix.search("assertEqual", 10, mode="keyword").hits]
        answered = []
        for round_ in range(4):  # after writes: still exact, and still from the lists
            for path in rng.sample(sorted((tmp_path / "src").iterdir()), 4):
                path.write_text(_module(rng, 100 + round_))
            ix.index()
            answered.append(compare())
        assert len(hits) == 10 and sum(answered) >= 4, answered


def test_making_the_lists_reports_progress(tmp_path: Path, small_lists: None) -> None:
    rng = random.Random(4)
    (tmp_path / "docs").mkdir()
    for page in range(30):
        (tmp_path / "docs" / f"p{page:03}.md").write_text(_page(rng, page, 8))
    heard: list[tuple[str, int, int]] = []
    with Index(tmp_path / "i.db", IndexSettings(workers=1), embed=EmbedSettings(provider="none")) as ix:
        ix.add_source(tmp_path / "docs", name="docs", kind="docs")
        ix.index(progress=lambda task, done, total: heard.append((task, done, total)))
        lists = ix.store.conn.execute("SELECT count(*) FROM keyword_tops").fetchone()[0]
        steps = [(done, total) for task, done, total in heard if task == "keyword lists"]
        assert lists > 0 and steps[0][0] == 0 and steps[-1][0] == steps[-1][1] >= lists
        heard.clear()
        ix.index(progress=lambda task, done, total: heard.append((task, done, total)))
        assert not [task for task, _, _ in heard if task == "keyword lists"]  # nothing changed: none made


def test_compacting_keeps_the_lists_answering(tmp_path: Path, small_lists: None) -> None:
    with _index(tmp_path) as ix:
        (tmp_path / "docs" / "p003.md").unlink()
        ix.index()  # a few segments more for optimize to merge
        store = ix.store
        store.conn.execute("DELETE FROM schema_meta WHERE key = 'keyword_tops'")
        store.refresh_keyword_tops()
        structure = tops.records(store.conn)[1]  # type: ignore[index]
        store.compact()
        assert tops.records(store.conn)[1] != structure  # type: ignore[index]
        made = tops.state(store.conn)
        assert made is not None and made.same(tops.records(store.conn))  # type: ignore[arg-type]
        assert _compare(store, COMMON) == 3 * len(COMMON)


def test_an_index_run_ends_well_when_the_lists_cannot_be_written(tmp_path: Path, small_lists: None,
                                                                  monkeypatch: pytest.MonkeyPatch,
                                                                  caplog: pytest.LogCaptureFixture) -> None:
    """The lists are an aid: a full disk (or a lock another writer keeps) while writing them
    leaves the index as it was, searches rank as before, and the run still succeeds."""

    def full(*args: Any) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(tops, "write", full)
    with _index(tmp_path) as ix:
        assert tops.state(ix.store.conn) is None
        assert ix.store.conn.execute("SELECT count(*) FROM keyword_tops").fetchone()[0] == 0
        assert "were not written" in caplog.text and "is full" in caplog.text
        assert ix.search("return", 5, mode="keyword").hits
        monkeypatch.undo()
        monkeypatch.setattr(tops, "TOPS_FROM", 40)
        monkeypatch.setattr(tops, "TOPS_KEEP", 12)
        ix.index()  # the next run makes them
        assert tops.state(ix.store.conn) is not None

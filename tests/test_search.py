from __future__ import annotations

from pathlib import Path

import pytest

from mindex import Index, IndexSettings
from mindex.config import EmbedSettings
from mindex.errors import ConfigError, SourceNotFoundError, UnsupportedModeError
from mindex.models import Hit
from mindex.search import decay, make_snippet, merge_adjacent, query_terms

HOSTILE = [
    'C++', 'foo.bar()', '"unterminated', 'AND', 'OR NOT', 'NEAR(a b)', '*', '-', '^start', 'col:value',
    "it's", '(((', '"" ""', 'retries"; DROP TABLE chunks; --', 'ünïcödé 日本語 emoji 🚀', '\\', "\x00",
    'a' * 2000, '   ', 'pool* size', '{curly} [square]', 'x:y:z', '+plus', 'retries AND',
]
SCHEMA_KEYS = {"id", "source", "kind", "path", "title", "context", "start_line", "end_line", "score", "snippet", "text"}


@pytest.mark.parametrize("query", HOSTILE)
def test_any_user_string_is_a_valid_query(indexed: Index, query: str) -> None:
    result = indexed.search(query)
    assert result.mode == "keyword"
    assert all(hit.score > 0 for hit in result.hits)


def test_punctuated_identifiers_become_phrases() -> None:
    assert query_terms("foo.bar()") == ['"foo bar"']
    assert query_terms('how do I configure "connection pool"') == ['"connection pool"', '"configure"']
    assert query_terms("pool*") == ['"pool"*']
    assert query_terms("how is it") == ['"how"', '"is"', '"it"']  # only stopwords: keep them


def test_a_pasted_log_searches_with_its_first_distinct_words_only(indexed: Index) -> None:
    """A whole file or log as a query (20,000 distinct words) searches with the first
    MAX_TERMS distinct words it names; it once made one FTS5 OR of every word."""
    from mindex.rank import query_words as ranker_words
    from mindex.search import MAX_TERMS
    from mindex.search import query_words as relaxed_words

    words = [f"word{n}" for n in range(20_000)]
    pasted = " ".join(["retries", "retries", *words])
    terms = query_terms(pasted)
    assert len(terms) == MAX_TERMS and terms[:3] == ['"retries"', '"word0"', '"word1"']
    assert relaxed_words(pasted)[:2] == ['"retries"', '"word0"'] and len(relaxed_words(pasted)) == MAX_TERMS
    assert len(ranker_words(pasted)) == MAX_TERMS and "retries" in ranker_words(pasted)
    found = indexed.search(pasted, limit=5)
    assert found.hits and found.hits[0].path == "guide/retries.md"
    assert indexed.locate(pasted, 3).files


def test_all_terms_rank_before_any_term(indexed: Index) -> None:
    hits = indexed.search("pool keepalive_expiry", limit=5).hits
    assert hits[0].title == "Keep-alive"
    assert len(hits) > 1  # any-term matches fill the rest


def test_headings_weigh_more_than_body(indexed: Index) -> None:
    hits = indexed.search("backoff").hits
    assert hits[0].title == "Backoff"


@pytest.mark.parametrize("group_by", [None, "file"])
def test_keyword_candidates_read_without_texts_give_the_pages_read_with_them(indexed: Index, group_by: str | None) -> None:
    """Keyword candidates come without their texts and only the page's are read: the page
    (ids, scores, texts, snippets) is the one a search reading every text gives."""
    from mindex.search import lexical_search, with_texts

    for query in ("connection pool", "retries backoff", "configure the cache size", "install"):
        plain = lexical_search(indexed.store, query, 20, snippets=False).hits
        late = with_texts(indexed.store, list(lexical_search(indexed.store, query, 20, snippets=False, texts=False).hits))
        assert [(h.id, h.score, h.text) for h in late] == [(h.id, h.score, h.text) for h in plain] and plain
        page = indexed.search(query, mode="keyword", limit=5, group_by=group_by).hits
        whole = {h.id: h.text for h in plain}
        assert page and all(h.text and h.snippet and h.text == whole.get(h.id, h.text) for h in page)
        merged = indexed.search(query, mode="keyword", limit=5, group_by=group_by, merge=True).hits  # reads every text
        assert all(h.text for h in merged)


def test_snippet_highlights_matches(indexed: Index) -> None:
    hits = indexed.search("pool size").hits
    assert "## **Pool** **size** `**pool_size**` caps" in hits[0].snippet
    assert make_snippet("waiting longer raises PoolTimeout.", "PoolTimeout") == "waiting longer raises **PoolTimeout**."


def test_a_snippet_marks_are_its_own_and_the_texts_stars_are_shown_as_written(tmp_path: Path) -> None:
    """`def build(*args, **options)` gave the snippet `(*args, ****options**)`: a reader of the
    marks could not tell the text's stars from them, and an Org heading's `** From source`
    lost its stars in the terminal, the word after them shown as a match."""
    from mindex.serve.web.pages import marks
    from mindex.textsafe import marked_parts

    snippet = make_snippet("def build(*args, **options):\n    return dict(**options) \\ 2", "options")
    assert snippet == "def build(\\*args, \\*\\***options**): return dict(\\*\\***options**) \\\\ 2"
    assert marked_parts(snippet) == [("def build(*args, **", False), ("options", True), ("): return dict(**", False),
                                     ("options", True), (") \\ 2", False)]
    assert str(marks(snippet)) == "def build(*args, **<mark>options</mark>): return dict(**<mark>options</mark>) \\ 2"
    assert marked_parts("a **b** c **d") == [("a ", False), ("b", True), (" c ", False), ("**d", False)]
    docs = tmp_path / "notes"
    docs.mkdir()
    (docs / "setup.org").write_text("* Installation\n** From source\nClone it, then run =make=.\n")
    with Index(tmp_path / "i.db", IndexSettings(), embed=EmbedSettings(provider="none")) as ix:
        ix.add_source(docs, name="notes", kind="docs")
        ix.index()
    from click.testing import CliRunner

    from mindex.serve.cli import cli

    shown = CliRunner().invoke(cli, ["--db", str(tmp_path / "i.db"), "search", "source", "--mode", "keyword"]).stdout
    assert "** From source Clone it, then run =make=." in shown, shown


def test_a_snippet_shows_the_densest_run_of_query_words() -> None:
    text = " ".join(["filler"] * 40 + ["the", "retry", "backoff", "doubles", "each", "retries"] + ["tail"] * 40)
    snippet = make_snippet(text, "retry backoff")
    assert snippet.startswith("…") and snippet.endswith("…")
    assert "**retry** **backoff** doubles each **retries**" in snippet


def test_filters_by_source_kind_and_path(indexed: Index, tmp_path) -> None:  # type: ignore[no-untyped-def]
    other = tmp_path / "more"
    other.mkdir()
    (other / "retry.md").write_text("# Retry elsewhere\n\nretries in another source\n")
    indexed.add_source(other, name="more")
    indexed.index()
    assert {h.source for h in indexed.search("retries", limit=50).hits} == {"docs", "more"}
    assert {h.source for h in indexed.search("retries", source="more").hits} == {"more"}
    assert {h.path for h in indexed.search("retries", path="guide/**").hits} == {"guide/retries.md"}
    assert {h.path for h in indexed.search("retries", path="*.md", source="docs").hits} == {"guide/retries.md"}
    assert indexed.search("retries", kind="docs").hits and not indexed.search("retries", kind="code").hits


def test_a_misspelt_source_or_kind_is_an_error_and_a_folder_names_its_source(indexed: Index, docs_dir: Path) -> None:
    with pytest.raises(SourceNotFoundError, match="no source named 'dcos'") as missing:
        indexed.search("retries", source="dcos")
    assert "docs" not in str(missing.value)  # a token limited to some sources learns nothing of the others
    with pytest.raises(ConfigError, match="unknown kind 'doc'.*docs, code"):
        indexed.search("retries", kind="doc")
    assert not indexed.search("zzqqxx", source="docs").hits  # a real source with nothing found: no error
    by_folder = indexed.search("retries", source=str(docs_dir)).hits
    assert by_folder and by_folder == indexed.search("retries", source="docs").hits


def test_limit_and_offset_page_through_results(indexed: Index) -> None:
    everything = [h.id for h in indexed.search("the", limit=50).hits]
    assert len(everything) > 4
    assert [h.id for h in indexed.search("the", limit=2, offset=2).hits] == everything[2:4]


def test_json_shape_is_the_documented_schema(indexed: Index) -> None:
    data = indexed.search("retries").to_dict()
    assert set(data) - {"note"} == {"query", "mode", "took_ms", "results"}
    for item in data["results"]:
        assert SCHEMA_KEYS <= set(item) <= SCHEMA_KEYS | {"page"}
    pdf = indexed.search("HTTPS_PROXY").to_dict()["results"][0]
    assert pdf["page"] == 2


def test_spans_of_results_are_lines_of_the_original_file(indexed: Index, docs_dir) -> None:  # type: ignore[no-untyped-def]
    for hit in indexed.search("retries backoff client", limit=30).hits:
        if hit.path.endswith((".md", ".rst", ".txt", ".mdx")):
            lines = (docs_dir / hit.path).read_text().split("\n")
            assert "\n".join(lines[hit.start_line - 1 : hit.end_line]) == hit.text


def test_semantic_modes_say_what_to_do_instead(indexed: Index) -> None:
    with pytest.raises(UnsupportedModeError, match="--mode keyword"):
        indexed.search("retries", mode="hybrid")
    with pytest.raises(ConfigError, match="unknown search mode"):
        indexed.search("retries", mode="fuzzy")


def test_get_accepts_full_ids_and_unique_prefixes(indexed: Index) -> None:
    hit = indexed.search("PoolTimeout").hits[0]
    assert indexed.get(hit.id).text == hit.text
    assert indexed.get(hit.id[:8]).id == hit.id


def _hit(cid: str, score: float, path: str = "a.md", lines: tuple[int, int] = (1, 5), text: str = "t",
         kind: str = "docs", modified: float | None = None) -> Hit:
    return Hit(cid, "src", kind, path, "T", "ctx", lines[0], lines[1], None, score, "", text, modified=modified)


def test_recency_decay_halves_a_score_per_half_life_for_kinds_that_decay() -> None:
    now = 1_000 * 86400.0
    hits = [
        _hit("old-memory", 1.0, kind="memory", modified=now - 5 * 86400),  # half a half-life
        _hit("new-memory", 0.75, kind="memory", modified=now),
        _hit("old-doc", 0.72, kind="docs", modified=now - 3650 * 86400),  # docs do not decay
    ]
    ranked = decay(hits, {"memory": 10.0}, now)
    assert [h.id for h in ranked] == ["new-memory", "old-doc", "old-memory"]
    assert ranked[2].score == pytest.approx(0.5**0.5)
    assert ranked[2].explain == {"recency": {"age_days": 5.0, "half_life_days": 10.0, "factor": 0.7071}}


def test_recency_counts_on_the_entries_own_clock_and_stretches_to_their_span() -> None:
    """A journal last written three years ago ranks as it did then; over a year of entries
    the oldest keeps at least half its score, so relevance still decides."""
    day = 86400.0
    then = 1_000 * day

    def journal(shift: float) -> list[Hit]:
        return [_hit("relevant-old", 1.0, kind="memory", modified=then - 365 * day + shift),
                _hit("vague-new", 0.45, kind="memory", modified=then + shift),
                _hit("mid", 0.5, kind="memory", modified=then - 100 * day + shift)]

    now = then + 3 * 365 * day
    ranked = decay(journal(0.0), {"memory": 30.0}, now)
    assert [h.id for h in ranked] == ["relevant-old", "vague-new", "mid"]
    assert [h.id for h in ranked] == [h.id for h in decay(journal(0.0), {"memory": 30.0}, then)]
    old = next(h for h in ranked if h.id == "relevant-old")
    assert old.score == pytest.approx(0.5) and old.explain["recency"]["half_life_days"] == 365.0
    # a fixed 30-day half-life would have left it 1/4500th of its score, below anything new
    assert old.score > 0.5 ** (365 / 30) * 1000


def test_adjacent_chunks_merge_without_repeating_the_overlap() -> None:
    hits = [
        _hit("b", 0.9, lines=(10, 20), text="para two\n\npara three"),
        _hit("x", 0.8, path="other.md", lines=(11, 12)),
        _hit("a", 0.7, lines=(1, 12), text="para one\n\npara two"),
        _hit("far", 0.6, lines=(40, 50)),
    ]
    merged = merge_adjacent(hits)
    assert [h.id for h in merged] == ["b", "x", "far"]
    first = merged[0]
    assert (first.start_line, first.end_line) == (1, 20)
    assert first.text == "para one\n\npara two\n\npara three"
    assert first.explain == {"merged": ["b", "a"]}


def test_merge_flag_through_the_index(indexed: Index) -> None:
    plain = indexed.search("retries backoff delay", limit=20).hits
    merged = indexed.search("retries backoff delay", limit=20, merge=True).hits
    assert len(merged) <= len(plain)
    spans = [(h.path, h.start_line, h.end_line) for h in merged if h.start_line]
    for i, (path, start, end) in enumerate(spans):
        for other in spans[i + 1 :]:
            assert other[0] != path or other[1] > end + 1 or other[2] < start - 1


def test_a_query_of_punctuated_pieces_still_fills_the_page(index: Index, tmp_path: Path) -> None:
    """`sorted(chain(*groups))` is one phrase to the strict query; when phrases find too few,
    single words fill the rest, so -n 10 gives ten results when ten chunks match a word."""
    folder = tmp_path / "many"
    folder.mkdir()
    for n in range(14):
        (folder / f"page{n}.md").write_text(f"# Page {n}\n\nThe groups are sorted here, page {n}.\n")
    index.add_source(folder, name="many")
    index.index()
    hits = index.search("Same as ``sorted(chain(*groups))[i]``.", limit=10).hits
    assert len(hits) == 10


def test_consecutive_markdown_sections_merge_across_the_blank_line(index: Index, tmp_path: Path) -> None:
    folder = tmp_path / "md"
    folder.mkdir()
    (folder / "guide.md").write_text(
        "# Pools\n\nThe walrus keeps connections.\n\n## Sizing\n\nSize it by walrus load.\n\n"
        "## Unrelated\n\nNothing here.\n\n## Timeouts\n\nWalrus timeouts are short.\n")
    index.add_source(folder, name="md")
    index.index()
    plain = index.search("walrus").hits
    assert len(plain) == 3 and all(h.ordinal is not None for h in plain)
    merged = sorted(index.search("walrus", merge=True).hits, key=lambda h: h.start_line or 0)
    assert [(h.start_line, h.end_line) for h in merged] == [(1, 7), (13, 15)]
    assert "Size it by walrus" in merged[0].text and "Nothing here" not in merged[0].text


def test_a_hit_copied_with_changes_is_what_dataclasses_replace_gives() -> None:
    import dataclasses

    from mindex.models import Hit

    hit = Hit("id", "src", "code", "a.py", "t", "ctx", 1, 2, None, 0.5, "", "text", explain={"keyword": {"rank": 1}})
    changed = hit.but(score=2.0, explain={"fused": 2.0})
    assert changed == dataclasses.replace(hit, score=2.0, explain={"fused": 2.0})
    assert (hit.score, hit.explain) == (0.5, {"keyword": {"rank": 1}}) and changed.text == "text"
    with pytest.raises(TypeError, match="no field nope"):
        hit.but(nope=1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        changed.score = 3.0  # type: ignore[misc]


def test_the_recency_clock_is_the_newest_entry_and_stretches_to_the_span() -> None:
    from mindex.search import recency_clock

    day = 86400.0
    times = [100 * day, 400 * day, 465 * day]
    assert recency_clock(times, 30.0) == (465 * day, 365.0)  # a year of entries: half-life a year
    assert recency_clock(times, 500.0) == (465 * day, 500.0)  # a longer half-life stands
    assert recency_clock(times, 30.0, now=450 * day) == (450 * day, 365.0)  # never ahead of now
    assert recency_clock([7 * day], 30.0, now=10_000 * day) == (7 * day, 30.0)  # an old journal keeps its own clock


def test_a_page_is_filled_when_one_long_section_holds_the_best_candidates(index: Index, tmp_path: Path) -> None:
    """A long section's pieces become one result (`collapse_sections`); when they took every
    candidate read, the search reads deeper instead of showing a short page (`--kind docs`
    on a project whose long API page matched first gave 5 results of 10)."""
    folder = tmp_path / "api"
    folder.mkdir()
    paragraphs = "\n\n".join(f"The walrus validator number {n} checks walrus tusks, walrus by walrus." for n in range(400))
    (folder / "api.md").write_text(f"# Validators\n\n{paragraphs}\n")
    for n in range(6):
        (folder / f"guide{n}.md").write_text(f"# Guide {n}\n\n" + "Plain words about sizing and pools. " * 20
                                             + "A walrus appears once.\n")
    index.add_source(folder, name="api")
    index.index()
    pieces = index.search("walrus", limit=60, mode="keyword").hits
    assert pieces[0].path == "api.md" and (pieces[0].explain or {})["section"]["chunks"] > 10
    hits = index.search("walrus", limit=5, mode="keyword", kind="docs").hits
    assert [h.path for h in hits][0] == "api.md" and len(hits) == 5
    assert len({(h.path, h.context) for h in hits}) == 5

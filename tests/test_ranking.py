"""Ranking parts: identifier words, query analysis, learned fusion arithmetic, files."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from mindex import Index
from mindex.models import Hit
from mindex.rank import Ranker, candidate_features, learned_fusion, load_ranker, query_words
from mindex.search import choose_fusion, collapse_sections, fuse, group_by_file, query_terms, query_words as relaxed_words
from mindex.serve.cli import cli
from mindex.terms import embedding_text, identifier_parts, search_terms, split_identifiers


@pytest.mark.parametrize("word, parts", [
    ("getRandomString", ["get", "random", "string"]),
    ("HTTPServerError", ["http", "server", "error"]),
    ("parse_config_file", ["parse", "config", "file"]),
    ("__init__", ["init"]),
    ("utf8Decode2", ["utf8", "decode2"]),
    ("plain", ["plain"]),
    ("ÉtatMajor", ["état", "major"]),
])
def test_identifier_parts_split_camel_acronyms_snake_and_unicode(word: str, parts: list[str]) -> None:
    assert identifier_parts(word) == parts


def test_search_terms_hold_only_camel_case_parts_once() -> None:
    terms = search_terms("src/sessionStore.ts › SessionStore", "function getSessionById(id) { return store_get(id) }")
    assert terms.split() == ["session", "store", "get", "by", "id"]
    assert search_terms("plain words and snake_case") == ""


def test_search_terms_of_ascii_text_are_those_of_the_unicode_rule() -> None:
    """ASCII text is read by a narrower pattern (faster); `é` sends the same text down the
    Unicode one, and adds no term of its own."""
    import random

    rng = random.Random(5)
    pieces = ["get", "HTTP", "Server", "x9Y", "_a", "9b", "fooBar", "URLOpener", "a_bC", "__init__", "Ab", "ID", " ", ".",
              "(", "\n", "2", "_", "zA", "HTMLParser"]
    for _ in range(500):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 30)))
        assert search_terms(text) == search_terms(text + " é"), text
    assert search_terms("x9Yz getHTTPServer") == "x9 yz get http server"


def test_embedding_text_spells_the_context_names_as_words() -> None:
    assert split_identifiers("pkg/httpClient.go › Client.doRequest(r)") == "pkg/http client.go › Client.do request(r)"
    text = embedding_text("pkg/httpClient.go › Client.doRequest(r)", "body")
    assert text == "pkg/httpClient.go › Client.doRequest(r)\npkg/http client.go › Client.do request(r)\nbody"
    assert embedding_text("guide.md › Install", "body") == "guide.md › Install\nbody"


def test_query_terms_offer_camel_case_words_but_quoted_phrases_stay_exact() -> None:
    assert query_terms("getRandomString") == ['("getRandomString" OR "get random string")']
    assert query_terms('"getRandomString" limits') == ['"getRandomString"', '"limits"']
    assert relaxed_words('"PoolTimeout" in userCache') == ['"PoolTimeout"', '"user"', '"cache"']


def test_query_words_drop_question_filler_and_split_names() -> None:
    assert query_words("How do I get the sessionStore size?") == frozenset({"session", "store", "size"})


def _hit(cid: str, score: float, path: str = "a.py", kind: str = "code", text: str = "x", symbol: str | None = None,
         language: str = "python") -> Hit:
    return Hit(cid, "s", kind, path, cid, f"{path} › {cid}", 1, 2, None, score, "", text, language=language,
               symbol=symbol)


def test_learned_fusion_with_rank_only_weights_is_rrf() -> None:
    """A model that weighs the two reciprocal ranks the same orders exactly as RRF does."""
    legs = {"keyword": [_hit("a", 9.0), _hit("b", 5.0), _hit("c", 1.0)],
            "semantic": [_hit("c", 0.9), _hit("d", 0.8), _hit("a", 0.7)]}
    model = Ranker(("kr", "sr"), np.zeros(2), np.ones(2), np.ones(2), {})
    learned = learned_fusion("q", legs, {}, model)
    assert [h.id for h in learned] == [h.id for h in fuse(legs, {}, 60)]
    assert learned[0].explain == {"keyword": {"rank": 1, "score": 9.0}, "semantic": {"rank": 3, "score": 0.7},
                                  "fused": round(1 / 61 + 1 / 63, 6)}
    assert learned[0].score == pytest.approx(1 / 61 + 1 / 63)
    keyword_only = learned_fusion("q", legs, {"semantic": 0.0}, model)
    assert [h.id for h in keyword_only] == ["a", "b", "c"]


def test_candidate_features_rank_score_and_code_coverage() -> None:
    legs = {"keyword": [_hit("a", 10.0, text="def load_user_cache(): pass", symbol="load_user_cache"),
                        _hit("b", 5.0, kind="docs", text="user cache")],
            "semantic": [_hit("b", 0.9, kind="docs"), _hit("a", 0.6)]}
    names = ("kr", "ks", "sr", "ss", "sgap", "both", "c_cov", "c_tcov", "c_scov")
    hits, rows = candidate_features("load the user cache", legs, names)
    row = dict(zip(names, rows[[h.id for h in hits].index("a")]))
    assert row["kr"] == pytest.approx(1 / 61) and row["ks"] == 1.0 and row["sr"] == pytest.approx(1 / 62)
    assert row["ss"] == 0.6 and row["sgap"] == pytest.approx(-0.3) and row["both"] == 1.0
    assert row["c_cov"] == 1.0 and row["c_scov"] == 1.0 and row["c_tcov"] == 0.0
    docs_row = dict(zip(names, rows[[h.id for h in hits].index("b")]))
    assert all(np.isnan(docs_row[name]) for name in ("c_cov", "c_tcov", "c_scov"))  # measured for code only
    readme = _hit("r", 4.0, text="load the user cache", language="markdown")  # a code source's README
    hits, rows = candidate_features("load the user cache", {"keyword": [readme], "semantic": []}, names)
    assert all(np.isnan(rows[0][names.index(name)]) for name in ("c_cov", "c_tcov", "c_scov"))


def test_auto_fusion_counts_a_code_sources_prose_as_docs() -> None:
    """A question over a repository registered whole (`mindex add .`) whose candidates are
    mostly its README and docs/ sections is fused as docs are (RRF), not by the code ranker."""
    prose = [_hit(f"m{n}", 5.0 - n, path=f"docs/p{n}.md", language="markdown") for n in range(3)]
    legs = {"keyword": [*prose, _hit("c", 1.0)], "semantic": prose[:2]}
    assert choose_fusion(legs) == "rrf"
    assert choose_fusion({"keyword": [_hit("c", 1.0), _hit("d", 0.5), prose[0]]}) == "learned"


def test_a_docs_chunk_both_legs_put_first_is_not_buried_under_code_in_one_list() -> None:
    """A search of code and docs together: the docs chunk first in both legs stays above a
    code chunk second in both whose text holds two of the three query words (not its name
    or heading). A docs chunk's code features count as the mean code chunk's; as 0, as they
    once did, they put it under that code chunk."""
    code_text = "def make_metavar(self): return self.option"
    legs = {"keyword": [_hit("doc", 9.0, kind="docs", text="to make an option required pass required=True"),
                        _hit("code", 8.5, text=code_text)],
            "semantic": [_hit("doc", 0.6, kind="docs"), _hit("code", 0.5, text=code_text)]}
    ranker = load_ranker()
    fused = learned_fusion("how do I make an option required", legs, {}, ranker)
    assert [h.id for h in fused] == ["doc", "code"]
    hits, rows = candidate_features("how do I make an option required", legs, ranker.features)
    doc = rows[[h.id for h in hits].index("doc")]
    neutral = np.where(np.isnan(doc), ranker.mean, doc)  # the mean code chunk's coverage
    assert fused[0].score == pytest.approx(float(ranker.score(neutral[None, :])[0]))
    assert float(ranker.score(doc[None, :])[0]) == pytest.approx(fused[0].score)


def test_the_shipped_ranker_says_how_it_was_fitted_and_checked() -> None:
    ranker = load_ranker()
    assert len(ranker.features) == len(ranker.weights) == len(ranker.mean) == len(ranker.scale)
    checked = ranker.about["leave_one_set_out"]
    assert len(checked) >= 7 and sum(v["learned"] > v["rrf"] for v in checked.values()) >= len(checked) - 1


def test_group_by_file_keeps_each_files_best_chunk_in_order() -> None:
    hits = [_hit("a1", 3, "a.py"), _hit("b1", 2, "b.py"), _hit("a2", 1, "a.py")]
    grouped = group_by_file(hits)
    assert [h.id for h in grouped] == ["a1", "b1"]
    assert grouped[0].explain == {"file": {"chunks": 2}}


@pytest.fixture
def repo_index(index: Index, tmp_path: Path) -> Index:
    root = tmp_path / "repo"
    (root / "auth").mkdir(parents=True)
    (root / "auth" / "session.py").write_text(
        "class SessionStore:\n    def expire_sessions(self, now):\n        '''Drop sessions past their expiry.'''\n"
        "        return [s for s in self.sessions if s.expiry > now]\n\n\ndef session_clock():\n    return 0\n")
    (root / "auth" / "tokens.py").write_text("def refresh_token(token):\n    return token + '!'\n")
    (root / "billing.py").write_text("def charge(card, amount):\n    return amount\n")
    index.add_source(root, name="repo", kind="code")
    index.index()
    return index


def test_locate_names_files_chunks_and_the_definitions_the_text_uses(repo_index: Index) -> None:
    issue = ("Sessions expire too early\n\nAfter the clock changes, expire_sessions drops sessions that are "
             "still valid. SessionStore should compare the expiry correctly.")
    result = repo_index.locate(issue, limit=3)
    top = result.files[0]
    assert top.path == "auth/session.py" and top.chunks
    assert {"SessionStore", "SessionStore.expire_sessions"} <= set(top.symbols)
    assert len({f.path for f in result.files}) == len(result.files)
    # the chunks shown, and only those, get their texts and snippets (read after the ranking)
    assert all(h.text and h.snippet for f in result.files for h in f.chunks)
    assert "expire_sessions" in " ".join(h.text for h in top.chunks)
    for mode in ("keyword", None):
        bare = repo_index.search(issue, 5, mode=mode, snippets=False).hits
        assert bare and not any(h.snippet for h in bare)
    grouped = repo_index.search(issue, group_by="file").hits
    assert [h.path for h in grouped][:1] == ["auth/session.py"] and len({h.path for h in grouped}) == len(grouped)


def test_locate_reads_the_issue_from_stdin_and_prints_json(repo_index: Index) -> None:
    done = CliRunner().invoke(cli, ["--db", str(repo_index.db_path), "locate", "-", "--json", "-n", "2"],
                              input="charge the card amount twice")
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)
    assert data["files"][0]["path"] == "billing.py" and data["files"][0]["symbols"] == ["charge"]
    assert len(data["files"]) <= 2


def test_collapse_sections_keeps_one_piece_of_each_section() -> None:
    long_function = [_hit("f1", 3, "a.py"), _hit("g", 2, "a.py"), _hit("f2", 1, "a.py")]
    long_function = [long_function[0], long_function[1], replace_context(long_function[2], "a.py › f1")]
    collapsed = collapse_sections(long_function)
    assert [h.id for h in collapsed] == ["f1", "g"]
    assert collapsed[0].explain == {"section": {"chunks": 2}} and collapsed[1].explain is None


def replace_context(hit: Hit, context: str) -> Hit:
    from dataclasses import replace

    return replace(hit, context=context)


def test_a_file_where_several_chunks_match_ranks_above_one_with_a_single_better_chunk() -> None:
    """`locate` orders files by their best chunk's log-odds plus part of their next two
    (when they speak for the file); other scores (BM25, cosine, RRF) keep the best chunk."""
    from mindex.search import MORE_EVIDENCE, file_order, file_scores

    hits = [_hit("a1", 2.0, "lone.py"), _hit("b1", 1.8, "many.py"), _hit("b2", 1.5, "many.py"),
            _hit("c1", 1.9, "weak.py"), _hit("c2", -3.0, "weak.py"), _hit("b3", 1.0, "many.py")]
    assert file_order(hits, logits=True) == [("s", "many.py"), ("s", "lone.py"), ("s", "weak.py")]
    assert 1.8 + MORE_EVIDENCE * 1.5 + MORE_EVIDENCE ** 2 * 1.0 > 2.0 > 1.9  # a negative chunk takes nothing away
    assert file_order(hits, logits=False) == [("s", "lone.py"), ("s", "many.py"), ("s", "weak.py")]
    assert file_order([], logits=True) == []
    # The score `locate` shows is the one that placed the file (it showed the best chunk's:
    # 1.442 above 1.706 on pytest's docs), so the scores it prints fall down the list.
    scored = file_scores(hits, logits=True)
    assert list(scored) == file_order(hits, logits=True) and list(scored.values()) == sorted(scored.values())[::-1]
    assert scored["s", "many.py"] == pytest.approx(1.8 + MORE_EVIDENCE * 1.5 + MORE_EVIDENCE ** 2 * 1.0)
    assert file_scores(hits, logits=False) == {("s", "lone.py"): 2.0, ("s", "many.py"): 1.8, ("s", "weak.py"): 1.9}


@pytest.mark.parametrize("text, question", [
    ("how do I parametrize a fixture", True), ("How can I skip a test on Windows", True),
    ("What is a conftest file", True), ("why does my fixture run twice", True), ("Is there a way to retry", True),
    ("where is the fixture finalizer run", True), ("capture stdout?", True), ("parametrize fixture", False),
    ("will append s to the end, but only if it's not yet present", False),  # Go docstrings lose the name
    ("is the same as Execute(), but sets the ctx", False), ("When any of the Observables completes", False),
    ("Return the user's cache", False), ("how_to_parse", False),
])
def test_a_question_in_words_is_told_from_a_name_or_a_docstring(text: str, question: bool) -> None:
    from mindex.search import is_question

    assert is_question(text) is question


def test_a_question_over_code_and_docs_is_fused_by_rank_not_by_names() -> None:
    """pytest's sdist with its docs: "how do I parametrize a fixture" put forty tests whose
    long names hold both words above the docs section both legs ranked first. A question with
    prose among a leg's first ten is fused by RRF; the same words as a name are not."""
    tests = [_hit(f"t{n}", 8.0 - n / 10, path="testing/python/fixtures.py",
                  text=f"def test_override_parametrized_fixture_{n}(self): pass",
                  symbol=f"test_override_parametrized_fixture_{n}") for n in range(12)]
    section = _hit("doc", 9.0, path="how-to/parametrize.rst", kind="docs", text="parametrize fixtures")
    legs = {"keyword": [section, *tests], "semantic": [section, *reversed(tests)]}
    assert choose_fusion(legs, "how do I parametrize a fixture") == "rrf"
    assert [h.id for h in fuse(legs, {}, 60)][0] == "doc"
    assert choose_fusion(legs, "parametrize fixture") == "learned"
    assert [h.id for h in learned_fusion("parametrize fixture", legs, {})][0] != "doc"  # the names win there
    buried = {"keyword": [*tests[:10], section], "semantic": [*tests[:10], section]}
    assert choose_fusion(buried, "how do I parametrize a fixture") == "learned"  # no prose in a leg's first ten
    assert choose_fusion({"keyword": tests, "semantic": tests}, "how do I parametrize a fixture") == "learned"


def test_a_question_finds_the_docs_section_over_tests_named_with_its_words(tmp_path: Path) -> None:
    """The same, through a real index with the packaged model: a project's tests, whose names
    hold the question's words, and its docs as a source of their own."""
    from mindex.config import EmbedSettings, IndexSettings

    code = tmp_path / "project"
    (code / "testing").mkdir(parents=True)
    (code / "testing" / "test_fixtures.py").write_text("".join(
        f"def test_override_parametrized_fixture_{case}(pytester):\n"
        f"    pytester.makepyfile('x = {n}')\n    result = pytester.runpytest('-v', '--strict-markers')\n"
        f"    result.stdout.fnmatch_lines(['*1 passed*'])\n    assert result.ret == 0\n\n\n"
        for n, case in enumerate(["conftest", "module", "class", "indirect", "nested", "reused", "empty",
                                  "scoped", "ids", "autouse", "twice", "deferred"])))
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "parametrize.md").write_text(
        "# How to parametrize fixtures\n\nTo parametrize a fixture, pass `params` to\n"
        "`@pytest.fixture` and read the current one from `request.param`; every test that uses\n"
        "the fixture runs once per parameter.\n\n# Markers\n\nMarks set metadata on test functions.\n")
    with Index(tmp_path / "i.db", IndexSettings(workers=1), embed=EmbedSettings(provider="onnx")) as index:
        index.add_source(code, name="project", kind="code")
        index.add_source(docs, name="docs", kind="docs")
        index.index()
        asked = index.search("how do I parametrize a fixture", 5)
        assert asked.fusion == "rrf" and asked.hits[0].path == "parametrize.md"
        named = index.search("override parametrized fixture", 5)
        assert named.fusion == "learned" and named.hits[0].path == "testing/test_fixtures.py"


def test_a_chunk_is_fenced_in_the_markup_it_keeps() -> None:
    """pytest's reStructuredText pages reached agents fenced as markdown; HTML and PDF pages
    are read as markdown, a reStructuredText or text page keeps its own markup."""
    from mindex.serve.render import fence_tag

    assert fence_tag(_hit("a", 1, "how-to/parametrize.rst", kind="docs")) == "rst"
    assert fence_tag(_hit("b", 1, "notes/todo.TXT", kind="docs")) == "text"
    assert fence_tag(_hit("c", 1, "api/index.html", kind="docs")) == "markdown"
    assert fence_tag(_hit("d", 1, "guide.md", kind="docs")) == "markdown"
    assert fence_tag(_hit("e", 1, "README.rst", language="rst")) == "rst"  # a code source's prose
    assert fence_tag(_hit("f", 1, "LICENSE.txt", language="plaintext")) == "text"
    assert fence_tag(_hit("g", 1, "src/x.go", language="go")) == "go"

"""Rerankers: Cohere/TEI (auto-detected), Voyage and LLM formats against real HTTP servers on
127.0.0.1, the local ONNX cross-encoder with real weights, and every way one can fail."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from apiserver import ApiServer, Trouble, serve
from mindex import Index, IndexSettings
from mindex.config import EmbedSettings, RerankSettings, SearchSettings
from mindex.errors import ConfigError
from mindex.rerank.llm import parse_scores
from mindex.rerank.local import LocalReranker
from mindex.serve.cli import cli

QUERY = "connection pool"


def reranked_index(tmp_path: Path, docs_dir: Path, **rerank: Any) -> Index:
    settings = SearchSettings(rerank=RerankSettings(**rerank))
    ix = Index(tmp_path / "r.db", IndexSettings(workers=1), embed=EmbedSettings(provider="none"), search=settings)
    ix.add_source(docs_dir, name="docs")
    ix.index()
    return ix


def keyword_order(ix: Index) -> list[str]:
    return [h.id for h in ix.search(QUERY, rerank=False).hits]


def backwards(count: int) -> list[float]:
    """Scores that reverse the fused order: the last candidate is best."""
    return [float(i) for i in range(count)]


def cohere_api(path: str, body: Any, headers: dict[str, str]) -> Any:
    assert path == "/v1/rerank" and body["top_n"] == len(body["documents"])
    scores = backwards(len(body["documents"]))
    results = [{"index": i, "relevance_score": s} for i, s in enumerate(scores)]
    return {"id": "r1", "results": sorted(results, key=lambda r: -r["relevance_score"]),
            "meta": {"billed_units": {"search_units": 1}}}


def tei_api(path: str, body: Any, headers: dict[str, str]) -> Any:
    assert path == "/rerank"
    if "texts" not in body:  # what TEI says to a Cohere-shaped body
        raise AssertionError("unreachable: scripted below")
    return sorted(({"index": i, "score": s} for i, s in enumerate(backwards(len(body["texts"])))),
                  key=lambda r: -r["score"])


@pytest.fixture
def cohere() -> Iterator[ApiServer]:
    yield from serve(cohere_api)


def test_cohere_format_reorders_the_top_candidates(tmp_path: Path, docs_dir: Path, cohere: ApiServer) -> None:
    with reranked_index(tmp_path, docs_dir, provider="http", base_url=cohere.url + "/v1", model="rr") as ix:
        fused = keyword_order(ix)
        result = ix.search(QUERY)
        assert [h.id for h in result.hits] == fused[::-1]
        top = result.hits[0].explain
        assert top is not None and top["rerank"]["before"] == len(fused) and top["rerank"]["rank"] == 1
        sent = cohere.requests[0].body
        assert sent["query"] == QUERY and sent["model"] == "rr" and len(sent["documents"]) == len(fused)


def test_tei_format_is_detected_once_and_remembered(tmp_path: Path, docs_dir: Path) -> None:
    def tei(path: str, body: Any, headers: dict[str, str]) -> Any:
        return tei_api(path, body, headers)

    for server in serve(tei):
        with reranked_index(tmp_path, docs_dir, provider="http", base_url=server.url) as ix:
            server.troubles.append(Trouble(422, {"error": "Json deserialize error: missing field `texts`"}))
            fused = keyword_order(ix)
            assert [h.id for h in ix.search(QUERY).hits] == fused[::-1]
            ix.search(QUERY)
        shapes = ["texts" in r.body for r in server.requests]
        assert shapes == [False, True, True]  # one failed Cohere-shaped try, then TEI only


def test_voyage_rerank_shape(tmp_path: Path, docs_dir: Path) -> None:
    def voyage(path: str, body: Any, headers: dict[str, str]) -> Any:
        assert path == "/v1/rerank" and headers["authorization"] == "Bearer vk"
        scores = backwards(len(body["documents"]))
        return {"object": "list", "model": body["model"], "usage": {"total_tokens": 10},
                "data": [{"index": i, "relevance_score": s} for i, s in enumerate(scores)]}

    for server in serve(voyage):
        with reranked_index(tmp_path, docs_dir, provider="voyage", base_url=server.url + "/v1", api_key="vk") as ix:
            fused = keyword_order(ix)
            assert [h.id for h in ix.search(QUERY).hits] == fused[::-1]
            assert server.requests[0].body["model"] == "rerank-2.5"


def test_llm_judge_reads_scores_from_a_chat_answer(tmp_path: Path, docs_dir: Path) -> None:
    def chat(path: str, body: Any, headers: dict[str, str]) -> Any:
        assert path == "/v1/chat/completions" and body["temperature"] == 0
        prompt, count = body["messages"][1]["content"], 0
        while f"\n[{count + 1}] " in prompt:
            count += 1
        content = "Here you go:\n```json\n" + json.dumps({"scores": backwards(count)}) + "\n```"
        return {"id": "c1", "object": "chat.completion",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]}

    for server in serve(chat):
        with reranked_index(tmp_path, docs_dir, provider="llm", base_url=server.url + "/v1", model="judge") as ix:
            fused = keyword_order(ix)
            assert [h.id for h in ix.search(QUERY).hits] == fused[::-1]


def test_parse_scores_accepts_a_bare_list_and_refuses_a_short_one() -> None:
    assert parse_scores("[3, 7.5]", 2) == [3.0, 7.5]
    with pytest.raises(ValueError, match="did not return 3 scores"):
        parse_scores('{"scores": [1, 2]}', 3)


@pytest.mark.parametrize("trouble, why", [
    (Trouble(200, delay=1.5), "rerank skipped: over 0.5 s"),
    (Trouble(500), "rerank skipped"),
    (Trouble(200, drop=True), "rerank skipped"),
])
def test_a_failing_reranker_keeps_the_fused_order(
    tmp_path: Path, docs_dir: Path, cohere: ApiServer, trouble: Trouble, why: str
) -> None:
    with reranked_index(tmp_path, docs_dir, provider="http", base_url=cohere.url + "/v1", timeout=0.5) as ix:
        fused = keyword_order(ix)
        cohere.troubles += [trouble, trouble]
        result = ix.search(QUERY)
        assert [h.id for h in result.hits] == fused
        assert result.note is not None and why in result.note
        assert result.hits[0].explain is not None and "skipped" in result.hits[0].explain["rerank"]


def test_indices_out_of_range_are_caught(tmp_path: Path, docs_dir: Path) -> None:
    for server in serve(lambda path, body, headers: {"results": [{"index": 99, "relevance_score": 1.0}]}):
        with reranked_index(tmp_path, docs_dir, provider="http", base_url=server.url) as ix:
            fused = keyword_order(ix)
            result = ix.search(QUERY)
            assert [h.id for h in result.hits] == fused and "index 99" in (result.note or "")


@pytest.mark.parametrize("provider, answer", [
    ("voyage", {"object": "list", "results": []}),                       # no `data`
    ("voyage", {"data": "not a list"}),
    ("voyage", [1, 2, 3]),
    ("cohere", {"results": [{"idx": 0, "relevance_score": 1.0}]}),        # entries without `index`
    ("cohere", {"results": [{"index": 0, "relevance_score": "high"}]}),
    ("cohere", {"results": [None]}),
    ("tei", {"not": "a list"}),
    ("llm", {"choices": []}),
    ("llm", {"choices": [{"message": {"content": '{"scores": [{"a": 1}]}'}}]}),
])
def test_a_reply_of_an_unexpected_shape_keeps_the_fused_order_with_a_note(
    tmp_path: Path, docs_dir: Path, provider: str, answer: Any
) -> None:
    for server in serve(lambda path, body, headers: answer):
        options = dict(provider=provider, base_url=server.url + "/v1", api_key="k", model="m")
        with reranked_index(tmp_path, docs_dir, **options) as ix:
            fused = keyword_order(ix)
            result = ix.search(QUERY)
            assert [h.id for h in result.hits] == fused
            assert result.note is not None and "rerank skipped" in result.note
            env = {f"MINDEX_SEARCH__RERANK__{key.upper()}": value for key, value in options.items()}
            text = CliRunner().invoke(cli, ["--db", str(ix.db_path), "search", QUERY, "--explain"], env=env)
            assert text.exit_code == 0 and "rerank skipped" in text.output, text.output


def test_a_malformed_retry_after_falls_back_to_the_computed_backoff(tmp_path: Path, docs_dir: Path, cohere: ApiServer) -> None:
    with reranked_index(tmp_path, docs_dir, provider="http", base_url=cohere.url + "/v1") as ix:
        fused = keyword_order(ix)
        for value in ("soon", "Mon, 99 Foo 2026", ""):
            cohere.troubles.append(Trouble(503, {"error": "busy"}, headers={"Retry-After": value}))
            assert [h.id for h in ix.search(QUERY).hits] == fused[::-1]  # retried once, then reranked


def test_rerank_flag_without_a_reranker_says_how_to_set_one(indexed: Index) -> None:
    with pytest.raises(ConfigError, match="search.rerank.provider"):
        indexed.search(QUERY, rerank=True)


def test_local_cross_encoder_scores_pairs_and_reorders(tmp_path: Path, docs_dir: Path, cross_encoder: Path) -> None:
    passages = ["pools keep connections open", "retries wait longer each time", "install with pip"]
    alone = LocalReranker("tiny-cross-encoder", cross_encoder, batch_size=1)
    scores = alone.score("connection pool", passages)
    assert len(scores) == 3 and len(set(scores)) == 3
    # One pair a batch: a pair's score does not depend on the order it was given in.
    assert alone.score("connection pool", passages[::-1])[::-1] == pytest.approx(scores, abs=1e-6)
    # Dynamic int8 picks activation scales per batch, so batch neighbours move scores a
    # little; the ranking must not move.
    ranking = sorted(range(3), key=lambda i: scores[i])
    for size in (2, 3):
        batched = LocalReranker("tiny-cross-encoder", cross_encoder, batch_size=size)
        for order in (passages, passages[::-1]):
            got = dict(zip(order, batched.score("connection pool", order)))
            assert sorted(range(3), key=lambda i: got[passages[i]]) == ranking
    settings = EmbedSettings(provider="none", models_dir=cross_encoder)
    search = SearchSettings(rerank=RerankSettings(provider="local", model="tiny-cross-encoder"))
    with Index(tmp_path / "l.db", IndexSettings(workers=1), embed=settings, search=search) as ix:
        ix.add_source(docs_dir, name="docs")
        ix.index()
        hits = ix.search(QUERY).hits
        ranked = [h.explain["rerank"]["score"] for h in hits if h.explain]
        assert len(ranked) == len(hits) and ranked == sorted(ranked, reverse=True)


def test_an_embedding_model_is_not_accepted_as_a_cross_encoder(added_minilm: Path) -> None:
    with pytest.raises(ConfigError, match="not a cross-encoder"):
        LocalReranker("all-MiniLM-L6-v2", added_minilm)


def test_candidates_go_in_batches_and_a_413_halves_the_batch_once(tmp_path: Path, docs_dir: Path) -> None:
    """30 candidates sent at once to a TEI server limited to 16 got HTTP 413 and reranking was
    skipped: now they go in batches of search.rerank.batch_size (32 for TEI when unset), a 413
    halves the batch once, and the scores are merged in passage order."""
    limit = 5

    def tei(path: str, body: Any, headers: dict[str, str]) -> Any:
        texts = body["texts"]
        if len(texts) > limit:  # TEI's own answer past --max-client-batch-size
            return Trouble(413, {"error": f"batch size {len(texts)} > maximum allowed batch size {limit}",
                                 "error_type": "Validation"})
        # a score that is the passage's place in the whole list, so a wrong merge shows
        return [{"index": i, "score": -float(order.index(t))} for i, t in enumerate(texts)]

    order: list[str] = []
    for server in serve(tei):
        with reranked_index(tmp_path, docs_dir, provider="tei", base_url=server.url, candidates=20,
                            batch_size=8) as ix:
            fused = [h for h in ix.search(QUERY, rerank=False).hits][:20]
            from mindex.rerank.base import passage

            order[:] = [passage(h) for h in fused]
            assert len(fused) > limit
            result = ix.search(QUERY)
            assert [h.id for h in result.hits][:len(fused)] == [h.id for h in fused]  # scored, not skipped
            assert all("skipped" not in (h.explain or {}).get("rerank", {}) for h in result.hits[:len(fused)])
        sizes = [len(r.body["texts"]) for r in server.requests]
        whole = len(fused)
        assert sizes == [8] + [4] * (whole // 4) + ([whole % 4] if whole % 4 else [])
    for server in serve(tei):  # a server that refuses even half: the fused order, and why
        limit = 1
        (tmp_path / "again").mkdir()
        with reranked_index(tmp_path / "again", docs_dir, provider="tei", base_url=server.url, candidates=20,
                            batch_size=8) as ix:
            result = ix.search(QUERY)
            assert "413" in result.hits[0].explain["rerank"]["skipped"]  # type: ignore[index]
        assert [len(r.body["texts"]) for r in server.requests] == [8, 4]


def test_a_tei_answer_wrapped_in_results_is_read(tmp_path: Path, docs_dir: Path) -> None:
    def wrapped(path: str, body: Any, headers: dict[str, str]) -> Any:
        return {"results": tei_api(path, body, headers)}

    for server in serve(wrapped):
        with reranked_index(tmp_path, docs_dir, provider="tei", base_url=server.url) as ix:
            fused = keyword_order(ix)
            assert [h.id for h in ix.search(QUERY).hits] == fused[::-1]


def test_what_a_hop_brings_in_is_reranked_too(tmp_path: Path, docs_dir: Path) -> None:
    """Multi-hop results joined the reranked list with their seed's score times a similarity,
    never seen by the reranker: now they are scored by it, within the same time cap."""
    from apiserver import word_vector

    def embed(path: str, body: Any, headers: dict[str, str]) -> Any:
        return {"model": body["model"], "embeddings": [word_vector(t) for t in body["input"]]}

    def judge(path: str, body: Any, headers: dict[str, str]) -> Any:  # longer passages are better
        return {"results": [{"index": i, "relevance_score": float(len(d))} for i, d in enumerate(body["documents"])]}

    for embedder in serve(embed):
        for reranker in serve(judge):
            settings = SearchSettings(rerank=RerankSettings(provider="http", base_url=reranker.url, candidates=3))
            with Index(tmp_path / "h.db", IndexSettings(workers=1), search=settings,
                       embed=EmbedSettings(provider="ollama", base_url=embedder.url, backoff=0.01)) as ix:
                ix.add_source(docs_dir, name="docs")
                ix.index()
                hits = ix.search('"pool size"', mode="keyword", limit=50, hops=1).hits
            hopped = [h for h in hits if "hop" in (h.explain or {})]
            assert hopped and len(reranker.requests) == 2  # the candidates, then what the hop brought
            assert len(reranker.requests[1].body["documents"]) == len(hopped)
            assert all("score" in h.explain["rerank"] for h in hopped)  # type: ignore[index]
            head = [h for h in hits if "score" in ((h.explain or {}).get("rerank") or {})]
            assert list(hits[:len(head)]) == head and [h.score for h in head] == sorted((h.score for h in head), reverse=True)

"""Research over code: evidence gathered by search and the code graph on a real index, and a
chat model on 127.0.0.1 speaking OpenAI's `/v1/chat/completions` with tool calls, including a
hostile answer, a model too slow for the time budget and a token budget that stops the run."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner

from apiserver import Trouble, serve
from mindex import Index, IndexSettings
from mindex.config import EmbedSettings, ResearchSettings
from mindex.research import check_citations, gather, plan, research
from mindex.serve.cli import cli

CODE = {
    "pkg/api.py": (
        "from pkg.sessions import Session\n"                                    # 1
        "\n\n"
        "def get(url, timeout=None):\n"                                         # 4
        "    \"\"\"Send a GET request; timeout in seconds.\"\"\"\n"
        "    return Session().request(url, timeout=timeout)\n"                  # 6
    ),
    "pkg/sessions.py": (
        "from pkg.adapters import HTTPAdapter\n"                                # 1
        "\n\n"
        "class Session:\n"                                                      # 4
        "    def request(self, url, timeout=None):\n"                           # 5
        "        return self.send(url, timeout)\n"
        "\n"
        "    def send(self, url, timeout):\n"                                   # 8
        "        adapter = HTTPAdapter()\n"
        "        return adapter.send(url, timeout=timeout)\n"                   # 10
    ),
    "pkg/adapters.py": (
        "import socket\n"                                                       # 1
        "\n\n"
        "class HTTPAdapter:\n"                                                  # 4
        "    def send(self, url, timeout=None):\n"                              # 5
        "        conn = socket.create_connection((url, 80))\n"
        "        conn.settimeout(timeout)\n"                                    # 7
        "        return conn\n"
    ),
    "pkg/unrelated.py": "def render_table(rows):\n    return '\\n'.join(map(str, rows))\n",
}
QUESTION = "how does a request get its timeout, from get down to the socket?"


@pytest.fixture
def ix(tmp_path: Path) -> Any:
    for rel, text in CODE.items():
        (tmp_path / "repo" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "repo" / rel).write_text(text)
    index = Index(tmp_path / ".mindex" / "index.db", IndexSettings(workers=1), embed=EmbedSettings(provider="none"))
    index.add_source(tmp_path / "repo", name="repo", kind="code")
    index.index()
    yield index
    index.close()


def test_a_question_is_planned_as_searches_and_names() -> None:
    queries, names = plan("how does `Session.send` reach HTTPAdapter, from get_connection down to the socket?")
    assert queries[0].startswith("how does") and "the socket" in queries
    assert names[:3] == ["Session.send", "HTTPAdapter", "get_connection"]


def test_without_a_model_the_evidence_comes_from_search_and_the_graph(ix: Index) -> None:
    found = gather(ix, QUESTION, budget_tokens=2000)
    places = {e.where: e for e in found.evidence}
    assert "pkg/adapters.py:5-8" in places and "pkg/api.py:4-6" in places  # from the API down to the socket
    assert any(how.startswith("called by ") or how.startswith("calls ") for e in found.evidence for how in e.found_by)
    assert {s["step"] for s in found.steps} >= {"search", "callees", "callers"}
    assert sum(e.tokens() for e in found.evidence) <= 2000
    assert len({e.chunk_id for e in found.evidence}) == len(found.evidence)
    small = gather(ix, QUESTION, budget_tokens=60)
    assert sum(e.tokens() for e in small.evidence) <= 60 and len(small.evidence) < len(found.evidence)


def test_citations_the_evidence_does_not_hold_are_removed(ix: Index) -> None:
    evidence = gather(ix, QUESTION).evidence
    text, kept, dropped = check_citations(
        "It is set in `pkg/adapters.py:5-8`, passed by pkg/sessions.py:8-10, read in ghost/net.py:1-9, and "
        "in pkg/api.py:400-410.", evidence)
    assert kept == ["pkg/adapters.py:5-8", "pkg/sessions.py:8-10"]
    assert dropped == ["ghost/net.py:1-9", "pkg/api.py:400-410"]
    assert "ghost" not in text and text.count("[citation removed: not in the evidence]") == 2


def chat_server(script: list[Any]) -> Any:
    """A chat endpoint answering from `script` in turn: a tool call, or a final answer (a
    function of the request's messages)."""
    def respond(path: str, body: Any, headers: dict[str, str]) -> Any:
        assert path == "/v1/chat/completions" and body["tools"][0]["type"] == "function"
        step = script.pop(0)
        message = step(body["messages"]) if callable(step) else step
        return {"id": "c", "object": "chat.completion", "model": body["model"],
                "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}}
    return serve(respond)


def test_a_model_asks_for_lookups_then_answers_and_only_true_citations_survive(ix: Index) -> None:
    def answer(messages: list[dict[str, Any]]) -> dict[str, Any]:
        shown = re.findall(r"### (pkg/[\w/.]+:\d+-\d+)", "\n".join(str(m.get("content")) for m in messages))
        assert messages[-1]["role"] == "tool" and "pkg/adapters.py:4-4" in messages[-1]["content"]
        return {"content": f"get passes it on (`{shown[0]}`) until the adapter sets it on the socket "
                           f"(`pkg/adapters.py:5-8`); see also nowhere/ghost.py:3-4."}

    call = {"content": None, "tool_calls": [{"id": "t1", "type": "function", "function": {
        "name": "callees", "arguments": json.dumps({"name": "Session.send"})}}]}
    for server in chat_server([call, answer]):
        settings = ResearchSettings(base_url=server.url + "/v1", model="m")
        found = research(ix, "how does the timeout reach the socket?", settings)
        assert found.answer is not None and "pkg/adapters.py:5-8" in found.answer
        assert found.dropped == ["nowhere/ghost.py:3-4"] and "ghost" not in found.answer
        assert "pkg/adapters.py:5-8" in found.citations and found.stopped is None
        # HTTPAdapter() and adapter.send (`adapter = HTTPAdapter()` says what adapter holds)
        assert {"step": "callees", "name": "Session.send", "found": 2} in found.steps
        assert len(server.requests) == 2 and server.requests[1].body["messages"][2]["tool_calls"][0]["id"] == "t1"


def test_a_slow_model_or_a_spent_budget_stops_with_the_evidence_so_far(ix: Index) -> None:
    for server in chat_server([{"content": "never read"}]):
        server.troubles += [Trouble(200, delay=3.0), Trouble(200, delay=3.0)]  # the request and its one retry
        settings = ResearchSettings(base_url=server.url + "/v1", model="m", timeout=1.0)
        found = research(ix, QUESTION, settings)
        assert found.answer is None and "could not be asked" in (found.stopped or "")
        assert any(e.path == "pkg/adapters.py" for e in found.evidence)
    for server in chat_server([]):
        settings = ResearchSettings(base_url=server.url + "/v1", model="m", max_tokens=100)
        found = research(ix, QUESTION, settings, budget_tokens=8000)
        assert "research.max_tokens" in (found.stopped or "") and found.evidence and server.requests == []
    hostile = [{"content": None, "tool_calls": [{"id": "x", "type": "function", "function": {
        "name": "callers", "arguments": "{not json"}}]}] * 3
    for server in chat_server(hostile):
        settings = ResearchSettings(base_url=server.url + "/v1", model="m", max_rounds=3)
        found = research(ix, QUESTION, settings)
        assert "research.max_rounds" in (found.stopped or "") and found.answer is None
        assert "JSON arguments" in server.requests[1].body["messages"][-1]["content"]


def test_the_command_and_the_mcp_tool(ix: Index) -> None:
    done = CliRunner().invoke(cli, ["--db", str(ix.location), "research", QUESTION, "--no-model", "--json"])
    assert done.exit_code == 0, done.output
    data = json.loads(done.output)
    assert data["answer"] is None and any(e["path"] == "pkg/adapters.py" for e in data["evidence"])
    text = CliRunner().invoke(cli, ["--db", str(ix.location), "research", QUESTION, "--no-model"]).output
    assert "Evidence" in text and "pkg/adapters.py" in text

    async def ask() -> Any:
        from mcp import Client

        from mindex.config import Settings
        from mindex.serve.mcp_server import build_server

        async with Client(build_server(ix.location, Settings())) as client:
            return await client.call_tool("research_code", {"question": QUESTION, "model": False, "budget": 1000})

    answer = anyio.run(ask)
    assert not answer.is_error and "### pkg/adapters.py:5-8" in answer.content[0].text
    assert answer.structured_content["evidence"]


def test_one_name_defined_many_times_counts_once_for_what_it_calls(tmp_path: Path) -> None:
    """pytest's docs hold five example files, each with a fixture named `order`; following the
    callees of `order` added the score of `fixture` (its decorator) once for each, and the
    three overloads of `fixture` came first for "how does pytest decide the order in which
    fixtures are torn down". Each way of finding a chunk now counts once."""
    repo = tmp_path / "repo"
    (repo / "examples").mkdir(parents=True)
    (repo / "fixtures.py").write_text("def fixture(function):\n    return function\n")
    for n in range(5):
        (repo / "examples" / f"test_order_{n}.py").write_text(
            f"from fixtures import fixture\n\n\n@fixture\ndef order():\n    return [{n}]\n")
    (repo / "teardown.py").write_text(
        'def finish_fixtures_in_order(stack):\n    """Tear fixtures down in the reverse order of their setup."""\n'
        "    while stack:\n        stack.pop()()\n")
    with Index(tmp_path / "i.db", IndexSettings(workers=1), embed=EmbedSettings(provider="none")) as index:
        index.add_source(repo, name="repo", kind="code")
        index.index()
        found = gather(index, "in which order are fixtures torn down", budget_tokens=4000)
    places = [e.where for e in found.evidence]
    called = next(e for e in found.evidence if e.where == "fixtures.py:1-2")
    assert called.found_by == ["called by order"] and called.score == pytest.approx(0.05 * 0.95)
    assert places.index("teardown.py:1-4") < places.index("fixtures.py:1-2")

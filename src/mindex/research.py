"""Research over code: a question that needs several lookups ("how does a request get its
timeout, from the public API down to the socket?") answered from evidence gathered by
searching, reading and following the code graph, within a token and a time budget.

Without a chat model (`research.base_url` unset) the evidence is the answer: chunks ranked
and deduplicated, each with where it is (`path:start-end`) and how it was found. With one
(any OpenAI-compatible `/chat/completions`), the model reads the evidence, asks for more
lookups through tool calls (search, definitions, callers, callees) until it can answer, and
writes an answer whose claims cite `path:start-end`; a citation of anything the evidence
does not hold is removed (a model's answer is untrusted input).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mindex.errors import BudgetExceededError, MindexError, NotFoundError, RemoteError

if TYPE_CHECKING:
    from mindex.config import ResearchSettings
    from mindex.engine import Engine
    from mindex.models import Hit

PER_QUERY = 8  # results read per search
FOLLOW = 5  # top definitions whose callers and callees are followed
MIN_EDGE = 0.5  # graph edges followed at this confidence or more
_IDENT = re.compile(r"`([^`]+)`|\b([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+|[a-z0-9]+_[a-z0-9_]+|"
                    r"[a-z]+[A-Z][A-Za-z0-9]*|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*|[A-Z]{2,}[a-z][A-Za-z0-9]*)\b")
_CITATION = re.compile(r"`?([\w./@+-]+\.[A-Za-z0-9]+):(\d+)(?:-(\d+))?`?")
_PARTS = re.compile(r"\s*(?:,|;|\bfrom\b|\bdown to\b|\bthrough\b|\bthen\b|\band\b|\bvia\b|\binto\b)\s*", re.I)

SYSTEM = (
    "You answer a developer's question about a codebase from evidence: code chunks, each headed by "
    "`path:start-end`. Use the tools to look up more (search by meaning, a definition by name, who calls "
    "something, what it calls) until you can answer; look up what the evidence names but does not show. "
    "Then answer concisely, and cite every claim as `path:start-end` of a chunk you were shown. Never cite "
    "anything else."
)
TOOLS = [
    {"type": "function", "function": {"name": name, "description": description, "parameters": {
        "type": "object", "properties": {arg: {"type": "string", "description": arg_help}}, "required": [arg]}}}
    for name, description, arg, arg_help in (
        ("search_code", "Search the code by meaning and keywords.", "query", "what to look for, in words"),
        ("find_definition", "The definition of a function, method or class by name.", "name",
         "a name, e.g. Session.send"),
        ("callers", "Who calls a function or method.", "name", "a name, e.g. Session.send"),
        ("callees", "What a function or method calls.", "name", "a name, e.g. Session.send"),
    )
]


@dataclass(eq=False)  # one object a chunk (the gatherer keeps them by id): compared as itself
class Evidence:
    """One chunk gathered, and how it was found."""

    chunk_id: str
    source: str
    path: str
    start_line: int
    end_line: int
    symbol: str | None
    text: str
    score: float
    found_by: list[str] = field(default_factory=list)

    @property
    def where(self) -> str:
        return f"{self.path}:{self.start_line}-{self.end_line}"

    def tokens(self) -> int:
        return len(self.text) // 4 + 16

    def to_dict(self) -> dict[str, Any]:
        return {"chunk_id": self.chunk_id, "source": self.source, "path": self.path, "start_line": self.start_line,
                "end_line": self.end_line, "symbol": self.symbol, "score": round(self.score, 4),
                "found_by": self.found_by, "text": self.text}


@dataclass
class Research:
    """What a research run found and, with a model, answered."""

    question: str
    evidence: list[Evidence]
    steps: list[dict[str, Any]]
    answer: str | None = None
    citations: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    stopped: str | None = None
    model: str | None = None
    took_ms: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"question": self.question, "answer": self.answer, "citations": self.citations,
                "dropped_citations": self.dropped, "stopped": self.stopped, "model": self.model,
                "took_ms": round(self.took_ms, 1), "steps": self.steps,
                "evidence": [e.to_dict() for e in self.evidence]}


class Gatherer:
    """Evidence by chunk id, with the lookups that found it, under a deadline."""

    def __init__(self, engine: Engine, source: str | None, path: str | None, deadline: float) -> None:
        self.engine, self.source, self.path, self.deadline = engine, source, path, deadline
        self.found: dict[str, Evidence] = {}
        self._ways: dict[str, set[str]] = {}  # the ways each chunk was found, each counted once
        self.steps: list[dict[str, Any]] = []
        self._graph: Any = None

    @property
    def graph(self) -> Any:
        if self._graph is None:
            self._graph = self.engine.graph()
        return self._graph

    def late(self) -> bool:
        return time.monotonic() > self.deadline

    def add(self, hit: Hit, score: float, how: str, key: str | None = None) -> Evidence:
        """`hit` as evidence, its score raised by `score` the first time it is found this way
        (`key`, else `how`): a fixture named `order` in five example files made the three
        overloads of `fixture` it calls the first evidence for a question about teardown
        order, five calls of one name adding up."""
        known = self.found.get(hit.id)
        if known is None:
            known = self.found[hit.id] = Evidence(hit.id, hit.source, hit.path, hit.start_line or 0,
                                                  hit.end_line or 0, hit.symbol, hit.text, 0.0)
        if (key or how) not in self._ways.setdefault(hit.id, set()):
            self._ways[hit.id].add(key or how)
            known.score += score
        if how not in known.found_by:
            known.found_by.append(how)
        return known

    def add_chunk(self, chunk_id: str | None, score: float, how: str) -> Evidence | None:
        if not chunk_id:
            return None
        if chunk_id in self.found:
            return self.add(_as_hit(self.found[chunk_id]), score, how)
        try:
            return self.add(self.engine.get(chunk_id), score, how)
        except NotFoundError:
            return None

    def search(self, query: str, weight: float = 1.0) -> list[Evidence]:
        """The code a query finds; reciprocal ranks add up across queries."""
        try:
            hits = self.engine.search(query, limit=PER_QUERY, kind="code", source=self.source, path=self.path).hits
        except MindexError as exc:
            self.steps.append({"step": "search", "query": query, "error": str(exc)})
            return []
        self.steps.append({"step": "search", "query": query, "found": len(hits)})
        return [self.add(hit, weight / (10 + rank), f"search: {query[:80]}", f"search: {query}")
                for rank, hit in enumerate(hits, 1)]

    def locate(self, question: str, files: int = 6) -> list[Evidence]:
        """The best chunk of each file `locate` ranks first for the question (a file ranked by
        its best chunks together, which one search's chunk list does not see)."""
        try:
            located = self.engine.locate(question, limit=files, kind="code", source=self.source, path=self.path)
        except MindexError as exc:
            self.steps.append({"step": "locate", "error": str(exc)})
            return []
        self.steps.append({"step": "locate", "found": len(located.files)})
        return [self.add(f.chunks[0], 1.0 / (10 + rank), "locate: one of the files the question is about")
                for rank, f in enumerate(located.files, 1) if f.chunks]

    def definition(self, name: str, weight: float = 0.1) -> list[Evidence]:
        found = [s for how, s in self.graph.find(name, path=self.path, limit=3) if how != "fuzzy"]
        self.steps.append({"step": "definition", "name": name, "found": len(found)})
        return [e for s in found if (e := self.add_chunk(s.chunk_id, weight, f"definition of {name}")) is not None]

    def edges(self, name: str, direction: str, weight: float = 0.05) -> list[Evidence]:
        """Callers (the chunk each call sits in) or callees (their definitions) of `name`."""
        try:
            calls = self.graph.calls(name, direction, self.path, MIN_EDGE)
        except NotFoundError:
            self.steps.append({"step": direction, "name": name, "found": 0})
            return []
        out = []
        for entry in calls:
            for edge in entry.edges:
                chunk = edge.chunk_id if direction == "callers" else edge.target.chunk_id if edge.target else None
                how = f"calls {name}" if direction == "callers" else f"called by {name}"
                found = self.add_chunk(chunk, weight * edge.confidence, how)
                if found is not None:
                    out.append(found)
        self.steps.append({"step": direction, "name": name, "found": len(out)})
        return out

    def ranked(self, budget_tokens: int) -> list[Evidence]:
        """The evidence best first, one chunk per place, within the budget."""
        out, used = [], 0
        for item in sorted(self.found.values(), key=lambda e: -e.score):
            if used + item.tokens() > budget_tokens:
                continue
            out.append(item)
            used += item.tokens()
        return out


def _as_hit(item: Evidence) -> Any:
    from mindex.models import Hit

    return Hit(item.chunk_id, item.source, "code", item.path, item.symbol or item.path, "", item.start_line,
               item.end_line, None, 0.0, "", item.text, symbol=item.symbol)


def plan(question: str) -> tuple[list[str], list[str]]:
    """The searches a question asks for (itself, then its parts) and the names it mentions."""
    names = list(dict.fromkeys(m.group(1) or m.group(2) for m in _IDENT.finditer(question)))
    parts = [p.strip(" ?.!") for p in _PARTS.split(question) if len(p.split()) >= 2]
    queries = list(dict.fromkeys([question.strip(), *(p for p in parts if p != question.strip())]))
    return queries[:6], [n for n in names if len(n) > 2][:8]


def gather(engine: Engine, question: str, budget_tokens: int = 8000, time_budget: float = 60.0,
           source: str | None = None, path: str | None = None) -> Research:
    """Evidence for `question` without a model: the files `locate` ranks first, its searches,
    the definitions it names, then the callers and callees of what ranks best, and searches
    for names it mentions that no chunk shows yet; ranked, deduplicated, cut to the budget."""
    from mindex.config import ResearchSettings

    return research(engine, question, ResearchSettings(), budget_tokens, time_budget, source, path)


def collect(gatherer: Gatherer, question: str) -> None:
    """The planned lookups, each round while time is left."""
    queries, names = plan(question)
    gatherer.locate(question)
    for n, query in enumerate(queries):
        if gatherer.late():
            return
        gatherer.search(query, 1.0 if n == 0 else 0.6)
    for name in names:
        if gatherer.late():
            return
        gatherer.definition(name)
    top = [e for e in sorted(gatherer.found.values(), key=lambda e: -e.score) if e.symbol][:FOLLOW]
    for item in top:
        for direction in ("callees", "callers"):
            if gatherer.late():
                return
            gatherer.edges(item.symbol or "", direction)
    shown = "\n".join(e.text for e in gatherer.found.values())
    for name in names:  # named in the question but in no chunk yet: search for it as words
        if gatherer.late():
            return
        if name.rsplit(".", 1)[-1] not in shown:
            gatherer.search(name.replace(".", " ").replace("_", " "), 0.5)


def evidence_markdown(items: list[Evidence]) -> str:
    return "\n\n".join(f"### {e.where}" + (f" ({e.symbol})" if e.symbol else "") + f"\n```\n{e.text}\n```"
                       for e in items)


def check_citations(answer: str, evidence: list[Evidence]) -> tuple[str, list[str], list[str]]:
    """The answer with every citation the evidence does not hold removed (marked), the kept
    citations and the removed ones. A citation holds when a chunk of that file (its path, or
    a path ending with it) overlaps the cited lines."""
    kept: list[str] = []
    dropped: list[str] = []

    def check(match: re.Match[str]) -> str:
        path, start = match.group(1), int(match.group(2))
        end = int(match.group(3) or start)
        holds = any((e.path == path or e.path.endswith("/" + path)) and e.start_line <= end and start <= e.end_line
                    for e in evidence)
        cited = f"{path}:{start}" + (f"-{end}" if match.group(3) else "")
        (kept if holds else dropped).append(cited)
        return match.group(0) if holds else "[citation removed: not in the evidence]"

    return _CITATION.sub(check, answer), list(dict.fromkeys(kept)), list(dict.fromkeys(dropped))


def research(engine: Engine, question: str, settings: ResearchSettings, budget_tokens: int | None = None,
             time_budget: float | None = None, source: str | None = None, path: str | None = None,
             chat: Callable[[dict[str, Any]], dict[str, Any]] | None = None) -> Research:
    """Gather evidence, then (with a chat model) let it look up more and answer with citations.
    Stops at the evidence budget, the token budget of what is sent, the time budget or the
    rounds; what was gathered is returned in every case, with why it stopped."""
    from mindex.fetch.http import Budget, RetryPolicy, estimate_tokens, new_client, post_json, bearer

    budget = budget_tokens or settings.budget_tokens
    seconds = time_budget or settings.time_budget
    started = time.monotonic()
    gatherer = Gatherer(engine, source, path, started + seconds)
    collect(gatherer, question)
    if not settings.base_url and chat is None:
        result = Research(question, gatherer.ranked(budget), gatherer.steps,
                          stopped="the time budget ran out" if gatherer.late() else None)
        result.took_ms = (time.monotonic() - started) * 1000
        return result
    client = new_client()
    key = settings.api_key.get_secret_value() if settings.api_key else None

    def post(payload: dict[str, Any]) -> dict[str, Any]:
        left = max(1.0, started + seconds - time.monotonic())
        policy = RetryPolicy(timeout=min(settings.timeout, left), retries=1, backoff=0.5)
        body = post_json(client, (settings.base_url or "").rstrip("/") + "/chat/completions", payload, bearer(key),
                         policy, "research model")
        if not isinstance(body, dict):
            raise RemoteError("research model answered in an unexpected shape (expected an object)")
        return body

    ask = chat or post
    spend = Budget(max_tokens=settings.max_tokens, setting="research")
    shown = gatherer.ranked(budget // 2)
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"Question: {question}\n\nEvidence so far:\n\n{evidence_markdown(shown)}"}]
    answer, stopped = None, None
    try:
        for _ in range(settings.max_rounds):
            if gatherer.late():
                stopped = "the time budget ran out"
                break
            payload = {"model": settings.model, "temperature": 0, "messages": messages, "tools": TOOLS}
            spend.spend(estimate_tokens([json.dumps(messages)]))
            message = _message(ask(payload))
            calls = message.get("tool_calls") or []
            if not calls:
                answer = str(message.get("content") or "").strip() or None
                break
            messages.append({"role": "assistant", "content": message.get("content") or "", "tool_calls": calls})
            for call in calls[:6]:
                messages.append({"role": "tool", "tool_call_id": str(call.get("id", "")),
                                 "content": _run_tool(gatherer, call, shown)})
        else:
            stopped = f"the model asked for lookups for {settings.max_rounds} rounds (research.max_rounds)"
    except BudgetExceededError as exc:
        stopped = str(exc)
    except RemoteError as exc:
        stopped = f"the model could not be asked: {exc}"
    finally:
        client.close()
    evidence = gatherer.ranked(budget)
    for item in shown:  # what the model was shown stays citable
        if item not in evidence:
            evidence.append(item)
    result = Research(question, evidence, gatherer.steps, stopped=stopped, model=settings.model or None)
    if answer is not None:
        result.answer, result.citations, result.dropped = check_citations(answer, evidence)
    result.took_ms = (time.monotonic() - started) * 1000
    return result


def _message(body: dict[str, Any]) -> dict[str, Any]:
    try:
        message = body["choices"][0]["message"]
    except (KeyError, IndexError, TypeError):
        raise RemoteError("research model answered without choices[0].message") from None
    if not isinstance(message, dict):
        raise RemoteError("research model answered with a message that is not an object")
    return message


def _run_tool(gatherer: Gatherer, call: Any, shown: list[Evidence]) -> str:
    """One tool call's result as markdown; the chunks it found join the evidence shown."""
    try:
        function = call["function"]
        name = str(function["name"])
        args = json.loads(function.get("arguments") or "{}")
        value = str(next(iter(args.values()))) if isinstance(args, dict) and args else ""
    except (KeyError, TypeError, ValueError, StopIteration):
        return "error: a tool call needs a function name and JSON arguments"
    if not value.strip():
        return f"error: {name} needs an argument"
    if gatherer.late():
        return "error: the time budget ran out; answer from the evidence you have"
    found = (gatherer.search(value, 0.8) if name == "search_code" else gatherer.definition(value, 0.5)
             if name == "find_definition" else gatherer.edges(value, name, 0.3) if name in ("callers", "callees")
             else None)
    if found is None:
        return f"error: no tool named {name!r}"
    found = list(dict.fromkeys(found))
    new = [e for e in found if e not in shown][:6]
    seen = [e.where for e in found if e in shown and e not in new]
    shown.extend(new)
    told = evidence_markdown(new) if new else f"{name}({value!r}) found nothing new"
    return told + (f"\n\nAlready shown: {', '.join(seen)}" if seen else "")

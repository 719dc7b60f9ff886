"""The web UI's pages. Each page runs declared operations (`mindex.ops`) with the values its
form gives, checked as the CLI and the MCP tools check them, and renders their results with
Jinja2 templates that escape everything (indexed text is hostile)."""

from __future__ import annotations

import hmac
import threading
import time
import uuid
from typing import Any
from urllib.parse import parse_qsl, urlencode

from markupsafe import Markup, escape

from mindex.errors import MindexError, NotFoundError, ReadOnlyIndexError
from mindex.graph_types import CLASSLIKE
from mindex.ops import Operation
from mindex.serve.web.core import STATIC, TEMPLATES, Core
from mindex.serve.web.forms import fields, values, web_operations
from mindex.serve.web.graphs import impact_elements, knowledge_elements
from mindex.textsafe import marked_parts

SHARED = 10  # past this many definitions of a name, the code page lists them without their calls
SECTIONS = (("/search", "Search"), ("/code", "Code"), ("/memory", "Memory"), ("/knowledge", "Knowledge"),
            ("/workflows", "Workflows"), ("/changelogs", "Changelogs"), ("/sources", "Sources"),
            ("/ops", "All operations"))


def _environment() -> Any:
    from jinja2 import Environment, FileSystemLoader, select_autoescape

    env = Environment(loader=FileSystemLoader(str(TEMPLATES)),
                      autoescape=select_autoescape(default=True, default_for_string=True),
                      trim_blocks=True, lstrip_blocks=True)
    env.filters["marks"] = marks
    env.filters["when"] = when
    env.filters["kind_of"] = kind_of
    env.globals["sections"] = SECTIONS
    return env


def marks(snippet: str) -> Markup:
    """A snippet's `**matched words**` as <mark>, everything else escaped (`marked_parts`)."""
    return Markup("".join(f"<mark>{escape(text)}</mark>" if marked else str(escape(text))
                          for text, marked in marked_parts(snippet)))


def kind_of(hit: dict[str, Any]) -> str:
    """What a result is, as `kind docs` / `kind code` filter it: a code source's prose (its
    README, notes) is docs, though its document is of a code source (the JSON's `kind`)."""
    from mindex.models import is_prose

    return "docs" if is_prose(hit.get("kind"), hit.get("language")) else str(hit.get("kind", ""))


def when(value: Any) -> str:
    """An epoch time or ISO text as `2026-11-26 22:31`."""
    if isinstance(value, (int, float)):
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(value))
    return str(value or "")[:16].replace("T", " ")


class Jobs:
    """Re-index runs started from the UI, each in a thread with an index of its own, and
    their progress as the engine reports it."""

    def __init__(self, core: Core) -> None:
        self.core = core
        self.runs: dict[str, dict[str, Any]] = {}
        self.lock = threading.Lock()

    def start(self, source: str) -> str:
        job = uuid.uuid4().hex[:12]
        state: dict[str, Any] = {"source": source, "steps": {}, "done": False, "error": None, "report": None,
                                 "started": time.time()}
        with self.lock:
            self.runs[job] = state

        def progress(name: str, done: int, total: int) -> None:
            with self.lock:
                state["steps"][name] = (done, total)

        def run() -> None:
            try:
                with self.core.open() as index:
                    reports = index.index([source], progress=progress)
                state["report"] = {name: r.to_dict() for name, r in reports.items()}
            except MindexError as exc:
                state["error"] = f"{exc.code}: {exc}"
            except Exception as exc:  # shown on the page; the index stays as its last commit left it
                state["error"] = f"{type(exc).__name__}: {exc}"
            finally:
                state["done"] = True

        threading.Thread(target=run, name=f"mindex-ui-index-{job}", daemon=True).start()
        return job

    def get(self, job: str) -> dict[str, Any] | None:
        with self.lock:
            state = self.runs.get(job)
            return None if state is None else {**state, "steps": dict(state["steps"])}


def routes(core: Core, csrf: str, origins: set[str] | None, read_only: bool) -> list[Any]:
    from starlette.requests import Request
    from starlette.responses import HTMLResponse, RedirectResponse, Response
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    env = _environment()
    ops = web_operations()
    jobs = Jobs(core)

    def page(template: str, http_status: int = 200, /, **context: Any) -> HTMLResponse:
        html = env.get_template(template).render(csrf=csrf, read_only=read_only, **context)
        return HTMLResponse(html, status_code=http_status)

    def failed(exc: Exception, title: str = "Error") -> HTMLResponse:
        if isinstance(exc, MindexError):
            status = 404 if isinstance(exc, NotFoundError) else 403 if isinstance(exc, ReadOnlyIndexError) else 400
            return page("error.html", status, title=title, code=exc.code, message=str(exc))
        return page("error.html", 400, title=title, code="BAD_VALUE", message=str(exc))

    async def run(op: Operation, given: dict[str, Any]) -> Any:
        return await core.call(lambda index: op.call(index, **given))

    async def shaped(tool: str, given: dict[str, Any]) -> dict[str, Any]:
        """The structured result of the operation `tool` with `given` values."""
        op = ops[tool]
        shape: dict[str, Any] = op.to_structured(await run(op, given))
        return shape

    async def form_of(request: Request) -> dict[str, str]:
        body = await request.body()
        return dict(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))

    def write_refused(request: Request, form: dict[str, str]) -> HTMLResponse | None:
        """A write needs the page's CSRF token and, where the browser says it, our origin."""
        origin = request.headers.get("origin")
        if origins is not None and origin is not None and origin not in origins:
            return page("error.html", 403, title="Refused", code="CSRF",
                        message=f"a write from another site ({origin}) was refused")
        if not hmac.compare_digest(form.get("csrf", "").encode(), csrf.encode()):
            return page("error.html", 403, title="Refused", code="CSRF",
                        message="the form's token is missing or stale; reload the page and submit again")
        if read_only:
            return page("error.html", 403, title="Read-only", code="INDEX_READ_ONLY",
                        message="this UI was started with --read-only: it shows the index and changes nothing")
        return None

    # -- search and reading ------------------------------------------------------------------

    async def home(request: Request) -> Response:
        try:
            status = await shaped("index_status", {})
        except MindexError as exc:
            return failed(exc, "No index yet")
        return page("home.html", status=status, title="mindex")

    async def search(request: Request) -> Response:
        op = ops["search"]
        given = dict(request.query_params)
        if "q" in given:  # `/search?q=…`, as search engines and browser keywords write it
            given.setdefault("query", given.pop("q"))
        hits, error, head = None, None, {}
        if given.get("query", "").strip():
            try:
                shape = await shaped("search", {**values(op, given), "explain": True})
                hits, head = shape.get("results", []), {k: v for k, v in shape.items() if k != "results"}
            except (MindexError, ValueError) as exc:
                error = str(exc)
        return page("search.html", title="Search", op=op, fields=fields(op, given), hits=hits, head=head,
                    error=error, query=given.get("query", ""))

    async def chunk(request: Request) -> Response:
        from mindex.serve.web.reading import in_its_file

        try:
            shape = await shaped("get_chunk", {"chunk_id": request.path_params["chunk_id"]})
            hit = shape["results"][0] if "results" in shape else shape
            roots = await core.call(lambda index: index.roots())
            shown = in_its_file(hit, roots)
        except (MindexError, ValueError) as exc:
            return failed(exc, "No such chunk")
        return page("chunk.html", title=hit.get("title") or hit.get("path"), hit=hit, shown=shown)

    # -- code ---------------------------------------------------------------------------------

    async def code(request: Request) -> Response:
        given = dict(request.query_params)
        name = given.get("name", "").strip()
        found, callers, callees, subclasses, error = None, None, None, None, None
        if name:
            try:
                path = given.get("path") or None
                if path:  # one definition's page: its definitions are the ones the callers are of
                    callers = await shaped("callers", {"symbol": name, "path": path})
                    found = {"symbols": [{"match": "exact", **c["target"]} for c in callers["results"]][:30]}
                else:
                    found = await shaped("find_symbol", {"name": name, "limit": 30})
                if sum(s["match"] == "exact" for s in found["symbols"]) > SHARED:
                    # a name that dozens of definitions share (`open`, `get`): 30 tables nobody
                    # reads took seconds; the list links each one's own page instead
                    return page("code.html", title=name, name=name, path=given.get("path", ""), found=found,
                                shared=SHARED)
                callers = callers or await shaped("callers", {"symbol": name, "path": path})
                callees = await shaped("callees", {"symbol": name, "path": path})
                if any(s["kind"] in CLASSLIKE for s in found["symbols"] if s["match"] == "exact"):
                    subclasses = await shaped("subclasses", {"symbol": name, "path": path})
            except (MindexError, ValueError) as exc:
                error = str(exc)
        return page("code.html", title=name or "Code", name=name, path=given.get("path", ""), found=found,
                    callers=callers, callees=callees, subclasses=subclasses, error=error)

    async def impact(request: Request) -> Response:
        op = ops["impact"]
        given = dict(request.query_params)
        elements, shape, error = None, None, None
        if given.get("symbol", "").strip():
            try:
                shape = await shaped("impact", values(op, given))
                elements = impact_elements(shape["results"])
            except (MindexError, ValueError) as exc:
                error = str(exc)
        return page("impact.html", title=f"Impact of {given.get('symbol', '')}".strip(), fields=fields(op, given),
                    shape=shape, elements=elements, error=error)

    # -- memory -------------------------------------------------------------------------------

    async def memory(request: Request) -> Response:
        given = dict(request.query_params)
        op = ops["memory_search"] if given.get("query", "").strip() else ops["memory_list"]
        entries, error = [], None
        try:
            entries = (await shaped(op.tool, values(op, given)))["results"]
        except (MindexError, ValueError) as exc:
            error = str(exc)
        return page("memory.html", title="Memory", entries=entries, error=error,
                    fields=fields(ops["memory_search"], given))

    async def entry(request: Request) -> Response:
        try:
            shape = await shaped("memory_show", {"id": request.path_params["id"]})
        except (MindexError, ValueError) as exc:
            return failed(exc, "No such entry")
        item = shape["results"][0]
        types = core.settings.memory.types
        return page("entry.html", title=item["id"], item=item, types=types, saved=request.query_params.get("saved"))

    async def entry_edit(request: Request) -> Response:
        form = await form_of(request)
        if refused := write_refused(request, form):
            return refused
        op = ops["memory_edit"]
        entry_id = request.path_params["id"]
        try:
            await run(op, {**values(op, form), "id": entry_id})
        except (MindexError, ValueError) as exc:
            return failed(exc, "Not saved")
        return RedirectResponse(f"/memory/{entry_id}?saved=1", status_code=303)

    async def entry_forget(request: Request) -> Response:
        form = await form_of(request)
        if refused := write_refused(request, form):
            return refused
        try:
            await run(ops["memory_forget"], {"id": request.path_params["id"]})
        except (MindexError, ValueError) as exc:
            return failed(exc, "Not forgotten")
        return RedirectResponse("/memory", status_code=303)

    async def context(request: Request) -> Response:
        from pathlib import Path

        from mindex.agents import hooks

        conf = core.settings.agents
        folder = Path(core.db).parent.parent if isinstance(core.db, Path) else Path.cwd()
        try:
            injected = await core.call(lambda index: hooks.session_start(
                index, hooks.situation(folder, conf.issue_pattern), conf.budget))
            handoffs = (await shaped("memory_list", {"type": ["handoff"], "limit": 5}))["results"]
        except (MindexError, ValueError) as exc:
            return failed(exc)
        return page("context.html", title="Session context", injected=injected, handoffs=handoffs)

    # -- knowledge ----------------------------------------------------------------------------

    async def knowledge(request: Request) -> Response:
        try:
            graph = await core.call(lambda index: index.memory.graph())
            listed = (await shaped("knowledge_query", {"all": True, "limit": 200}))["results"]
        except (MindexError, ValueError) as exc:
            return failed(exc)
        return page("knowledge.html", title="Knowledge", elements=knowledge_elements(graph), entities=listed,
                    add=fields(ops["knowledge_add"], {}))

    async def node(request: Request) -> Response:
        node_id = request.path_params["node"]
        try:
            graph = await core.call(lambda index: index.memory.graph())
        except MindexError as exc:
            return failed(exc)
        if node_id not in graph.entities:
            return failed(NotFoundError(f"no knowledge node {node_id!r}"), "No such node")
        return page("node.html", title=graph.entities[node_id][2] or node_id, node=graph.entities[node_id],
                    elements=knowledge_elements(graph, around=node_id, depth=2),
                    edges=graph.neighbours(node_id), entities=graph.entities, add=fields(ops["knowledge_add"], {}))

    async def knowledge_add(request: Request) -> Response:
        form = await form_of(request)
        if refused := write_refused(request, form):
            return refused
        op = ops["knowledge_add"]
        try:
            shape = await shaped("knowledge_add", values(op, form))
        except (MindexError, ValueError) as exc:
            return failed(exc, "Not added")
        return RedirectResponse(f"/knowledge/{shape['results'][0]['id']}", status_code=303)

    # -- workflows, changelogs, sources ------------------------------------------------------------

    async def workflows(request: Request) -> Response:
        try:
            flows = (await shaped("workflow_list", {"limit": 200}))["results"]
            milestones = (await shaped("milestone_list", {}))["results"]
        except (MindexError, ValueError) as exc:
            return failed(exc)
        columns: dict[str, list[dict[str, Any]]] = {}
        for flow in flows:
            columns.setdefault(flow["status"], []).append(flow)
        return page("workflows.html", title="Workflows", columns=columns, milestones=milestones)

    async def changelogs(request: Request) -> Response:
        given = dict(request.query_params)
        since, error = None, None
        try:
            products = (await shaped("changelog_products", {}))["results"]
            if given.get("product") and given.get("version"):
                since = await shaped("changelog_since", values(ops["changelog_since"], given))
        except (MindexError, ValueError) as exc:
            products, error = [], str(exc)
        return page("changelogs.html", title="Changelogs", products=[p for p in products if p.get("releases")],
                    known=len(products), since=since, given=given, error=error)

    async def sources(request: Request) -> Response:
        try:
            status = await shaped("index_status", {})
        except MindexError as exc:
            return failed(exc, "No index yet")
        return page("sources.html", title="Sources", status=status)

    async def reindex(request: Request) -> Response:
        form = await form_of(request)
        if refused := write_refused(request, form):
            return refused
        name = request.path_params["name"]
        try:
            await core.call(lambda index: index.source(name))
        except MindexError as exc:
            return failed(exc, "No such source")
        return RedirectResponse(f"/jobs/{jobs.start(name)}", status_code=303)

    async def job(request: Request) -> Response:
        state = jobs.get(request.path_params["job"])
        if state is None:
            return failed(NotFoundError("no such indexing run (they last as long as the server)"), "No such run")
        name = "job_progress.html" if request.url.path.endswith("/progress") else "job.html"
        return page(name, title=f"Indexing {state['source']}", job=request.path_params["job"], state=state)

    # -- every operation, generated ------------------------------------------------------------

    async def all_ops(request: Request) -> Response:
        return page("ops.html", title="All operations", ops=list(ops.values()))

    async def one_op(request: Request) -> Response:
        tool = request.path_params["tool"]
        op = ops.get(tool)
        if op is None:
            return failed(NotFoundError(f"no operation {tool!r}"), "No such operation")
        if request.method == "POST":
            given = await form_of(request)
            if op.writes and (refused := write_refused(request, given)):
                return refused
        else:
            given = dict(request.query_params)
        shape, error = None, None
        if request.method == "POST" and not op.writes:
            return page("error.html", 405, title="Refused", code="METHOD", message=f"{tool} reads: use GET")
        if (request.method == "POST") or (not op.writes and "run" in given):
            try:
                shape = await shaped(tool, values(op, given))
            except (MindexError, ValueError) as exc:
                error = f"{exc.code}: {exc}" if isinstance(exc, MindexError) else str(exc)
        return page("op.html", 400 if error else 200, title=op.tool, op=op, fields=fields(op, given), shape=shape,
                    error=error)

    highlight: list[str] = []  # the highlighting styles, made at their first request

    async def pygments_css(request: Request) -> Response:
        from pygments.formatters import HtmlFormatter

        if not highlight:  # the same for every page: made once
            light = HtmlFormatter(style="default").get_style_defs(".code")
            dark = HtmlFormatter(style="github-dark")
            highlight.append(
                f"{light}\n:root[data-theme=dark] .code {{ background: transparent; }}\n"
                f"{dark.get_style_defs(':root[data-theme=dark] .code')}\n@media (prefers-color-scheme: dark) {{\n"
                f"{dark.get_style_defs(':root:not([data-theme=light]) .code')}\n}}\n")
        return Response(highlight[0], media_type="text/css")

    def query(**given: Any) -> str:
        return urlencode({k: v for k, v in given.items() if v not in (None, "")})

    env.globals["query"] = query
    return [
        Route("/", home), Route("/search", search), Route("/chunk/{chunk_id}", chunk),
        Route("/code", code), Route("/impact", impact),
        Route("/memory", memory), Route("/memory/{id}", entry),
        Route("/memory/{id}/edit", entry_edit, methods=["POST"]),
        Route("/memory/{id}/forget", entry_forget, methods=["POST"]), Route("/context", context),
        Route("/knowledge", knowledge), Route("/knowledge/add", knowledge_add, methods=["POST"]),
        Route("/knowledge/{node:path}", node),
        Route("/workflows", workflows), Route("/changelogs", changelogs), Route("/sources", sources),
        Route("/sources/{name}/index", reindex, methods=["POST"]),
        Route("/jobs/{job}", job), Route("/jobs/{job}/progress", job),
        Route("/ops", all_ops), Route("/op/{tool}", one_op, methods=["GET", "POST"]),
        Route("/static/pygments.css", pygments_css),
        Mount("/static", app=StaticFiles(directory=str(STATIC)), name="static"),
    ]


__all__ = ["marks", "routes", "when"]

"""Operations declared once (`mindex.ops`): the CLI command and the MCP tool made from each
declaration agree on names, defaults, bounds and choices, and `sources --files` /
`list_sources(files=true)`, the operation added that way, works on both faces and both
backends, through the real CLI process and the real MCP client over stdio."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import click
import pytest
from mcp import Client, StdioServerParameters

from mindex import Index
from mindex.config import Settings
from mindex.ops import REQUIRED, Operation, Param, operations
from mindex.serve.cli import cli
from mindex.serve.mcp_server import build_server

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def tools_of(server: Any) -> dict[str, Any]:
    async def main() -> Any:
        async with Client(server) as client:
            return (await client.list_tools()).tools

    return {t.name: t for t in anyio.run(main)}


def cli_command(op: Operation) -> click.Command:
    """The command an operation's CLI words reach (`graph callers` through its group)."""
    group: Any = cli
    for word in op.path:
        group = group.get_command(click.Context(group), word)
        assert group is not None, op.path
    return group  # type: ignore[no-any-return]


def test_every_operation_has_the_same_parameters_on_the_cli_and_over_mcp(tmp_path: Path) -> None:
    tools = tools_of(build_server(tmp_path / "index.db", Settings()))
    ops = operations()
    assert {"sources", "grep", "symbols find", "graph callers", "graph impact", "changelog search",
            "workflow create", "milestone create"} <= set(ops)
    for op in ops.values():
        options = {}
        if "cli" in op.faces:
            command = cli_command(op)
            options = {p.name: p for p in command.params if p.name != "as_json"}
            assert set(options) == {p.name for p in op.params_on("cli")}, op.name
        if "mcp" not in op.faces:
            assert op.tool not in tools, op.tool
            continue
        schema = tools[op.tool].input_schema
        assert set(schema["properties"]) == {p.name for p in op.params_on("mcp")}, op.name
        assert set(schema.get("required", [])) == {p.name for p in op.params if p.required}
        for param in op.params:
            if "cli" in param.faces and "cli" in op.faces:
                option = options[param.name]
                assert option.required == param.required
                if not param.required:
                    assert option.default == param.default, param.name
                if param.choices:
                    assert tuple(option.type.choices) == param.choices  # type: ignore[attr-defined]
                if param.ge is not None:
                    assert option.type.min == param.ge  # type: ignore[attr-defined]
                if param.le is not None:
                    assert option.type.max == param.le  # type: ignore[attr-defined]
                assert param.help in (option.help or "") or param.argument
            if "mcp" in param.faces:
                prop = schema["properties"][param.name]
                typed = next((t for t in prop.get("anyOf", [prop]) if t.get("type") != "null"), prop)
                if not param.required:
                    assert prop["default"] == param.default_for("mcp"), param.name
                if param.ge is not None:
                    assert typed.get("minimum") == param.ge, param.name
                if param.le is not None:
                    assert typed.get("maximum") == param.le, param.name
                assert (param.agent_help or param.help) == prop["description"]
            else:
                assert param.display or param.name not in schema["properties"]
        assert tools[op.tool].description == op.agent_help
        for alias in op.aliases:
            assert tools[alias].input_schema == schema


def test_a_declared_parameter_is_checked_the_same_way_wherever_it_comes_from() -> None:
    limit = Param("limit", int, "how many", default=10, ge=1, le=100)
    kind = Param("kind", str, "which", default=None, choices=("docs", "code"))
    assert limit.check(5) == 5 and kind.check(None) is None and kind.check("code") == "code"
    for param, bad in ((limit, 0), (limit, 101), (limit, 2.5), (limit, True), (limit, "3"), (kind, "memory")):
        with pytest.raises(ValueError, match=param.name):
            param.check(bad)
    op = Operation("x", "x", "help", "agent help", "builtins:dict", "m:f", "m:f", "m:S",
                   params=(limit, Param("query", str, "what", argument=True)))
    assert op.param("query").required and op.param("query").default is REQUIRED
    assert op.call({}, query="q") == {"limit": 10, "query": "q"}  # defaults filled in, then the function runs
    with pytest.raises(ValueError, match="query"):
        op.call({})  # a required parameter left out


def _mindex(cwd: Path, *args: str, db: Path | str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MINDEX_DB": str(db), "MINDEX_EMBED__PROVIDER": "none"}
    return subprocess.run([sys.executable, "-m", "mindex", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120)


def test_sources_files_lists_each_indexed_file_on_both_faces(index: Index, tmp_path: Path, docs_dir: Path) -> None:
    code = tmp_path / "code"
    code.mkdir()
    (code / "app.py").write_text("def serve(port):\n    return port\n\n\nclass App:\n    def run(self):\n        pass\n")
    (code / "util.go").write_text("package util\n\nfunc Add(a, b int) int { return a + b }\n")
    index.add_source(docs_dir, name="docs")
    index.add_source(code, name="code", kind="code")
    index.index()
    db = index.location
    index.close()
    docs_files = sorted(p.relative_to(docs_dir).as_posix() for p in docs_dir.rglob("*") if p.is_file())

    plain = _mindex(tmp_path, "sources", "--json", db=db)
    assert plain.returncode == 0, plain.stderr
    assert all("files" not in s for s in json.loads(plain.stdout)["sources"])  # the old shape, unchanged
    listed = _mindex(tmp_path, "sources", "--files", "--json", db=db)
    assert listed.returncode == 0, listed.stderr
    by_name = {s["name"]: s for s in json.loads(listed.stdout)["sources"]}
    assert [f["path"] for f in by_name["code"]["files"]] == ["app.py", "util.go"]
    assert [f["language"] for f in by_name["code"]["files"]] == ["python", "go"]
    assert [f["size"] for f in by_name["code"]["files"]] == [(code / "app.py").stat().st_size,
                                                             (code / "util.go").stat().st_size]
    assert {f["path"] for f in by_name["docs"]["files"]} <= set(docs_files)
    for source in by_name.values():
        assert sum(f["chunks"] for f in source["files"]) == source["chunks"]
        assert len(source["files"]) == source["documents"]
    one = _mindex(tmp_path, "sources", "--files", "--source", "code", db=db)
    assert one.returncode == 0 and "app.py" in one.stdout and "python, " in one.stdout and "docs" not in one.stdout
    missing = _mindex(tmp_path, "sources", "--source", "nope", "--json", db=db)
    assert missing.returncode == 3 and json.loads(missing.stdout)["error"]["code"] == "SOURCE_NOT_FOUND"

    async def over_stdio() -> tuple[Any, Any, Any]:
        params = StdioServerParameters(command=sys.executable, args=["-m", "mindex", "serve"], cwd=str(tmp_path),
                                       env={**os.environ, "MINDEX_DB": str(db), "MINDEX_EMBED__PROVIDER": "none"})
        async with Client(params) as client:
            files = await client.call_tool("list_sources", {"files": True, "source": "code"})
            plain = await client.call_tool("list_sources", {})
            wrong = await client.call_tool("list_sources", {"source": "nope"})
            return files, plain, wrong

    files, plain_tool, wrong = anyio.run(over_stdio)
    structured = files.structured_content["sources"]
    assert [s["name"] for s in structured] == ["code"]
    assert structured[0]["files"] == by_name["code"]["files"]
    text = "\n".join(block.text for block in files.content)
    assert "- app.py (python, " in text and "- util.go (go, " in text
    assert [s["files"] for s in plain_tool.structured_content["sources"]] == [None, None]
    assert wrong.is_error and "no source named 'nope'" in wrong.content[0].text


def test_a_long_file_list_stays_within_the_token_budget(tmp_path: Path, index: Index) -> None:
    tree = tmp_path / "many"
    tree.mkdir()
    for n in range(400):
        (tree / f"note_{n:03}_with_a_rather_long_name_to_fill_the_budget.md").write_text(f"# Note {n}\n\nText {n}.\n")
    index.add_source(tree, name="many")
    index.index()
    from mindex.ops.sources import list_sources
    from mindex.serve.render import listing_markdown

    text = listing_markdown(list_sources(index, files=True), 500)
    assert len(text) // 4 <= 600 and "more files over the token budget" in text
    assert text.count("\n- ") + int(text.split("… ")[1].split()[0]) == 400


def test_a_listed_file_name_cannot_start_a_line_of_its_own(tmp_path: Path, index: Index) -> None:
    """A file name holding a newline or markup is printed on its one line, as text."""
    tree = tmp_path / "odd"
    tree.mkdir()
    (tree / "two\nlines.md").write_text("# Two\n\ntext\n")
    (tree / "[red]x.md").write_text("# X\n\ntext\n")
    index.add_source(tree, name="odd")
    index.index()
    db = index.location
    index.close()
    from mindex.ops.sources import list_sources
    from mindex.serve.render import listing_markdown

    shown = _mindex(tmp_path, "sources", "--files", db=db)
    assert shown.returncode == 0, shown.stderr
    assert "  two\\x0alines.md  (1 chunk)" in shown.stdout and "  [red]x.md  (1 chunk)" in shown.stdout
    with Index(db, create=False) as reopened:
        text = listing_markdown(list_sources(reopened, files=True), 1000)
    assert "- two\\x0alines.md (1 chunk)" in text and "\nlines.md" not in text


def test_the_tools_a_read_token_may_not_call_are_those_declared_as_writing() -> None:
    from mindex.serve.tokens import write_tools

    assert write_tools() == {"memory_save", "context_save", "memory_edit", "memory_forget", "knowledge_add", "workflow_create",
                             "workflow_set_phase", "workflow_log_action", "workflow_log_commit",
                             "workflow_set_status", "milestone_create"}


def test_the_agent_guide_gives_every_tool_with_its_parameters_and_defaults() -> None:
    """docs/mcp.md writes each tool as a signature; it must be the declared one."""
    import re

    guide = (Path(__file__).parent.parent / "docs" / "mcp.md").read_text(encoding="utf-8")
    written = {m.group(1): m.group(2) for m in re.finditer(r"`(\w+)\(([^`]*)\)`", guide)}
    for op in operations().values():
        if "mcp" not in op.faces:
            continue
        declared = ", ".join(p.name if p.required else f"{p.name}={p.default_for('mcp')!r}"
                             for p in op.params_on("mcp"))
        assert written.get(op.tool) == declared, op.tool

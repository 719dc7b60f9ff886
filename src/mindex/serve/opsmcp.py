"""MCP tools generated from the operations' declarations (`mindex.ops`): the tool's name,
description, JSON schema (types, defaults, bounds, choices) and answer come from the
operation, so they cannot drift from its CLI command."""

from __future__ import annotations

import inspect
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult
from pydantic import Field

from mindex.ops import Operation, Param, load, tools
from mindex.serve.mcp_core import Core, tool_result


def annotation(param: Param) -> Any:
    """The parameter's type as the MCP SDK reads it: choices as a Literal, several values
    as a list (or one), bounds and help in a pydantic Field, None allowed where it is the
    default."""
    base: Any = Literal[param.choices] if param.choices else dict[str, Any] if param.type is dict else param.type
    if param.many:
        base = list[base] | base
    if not param.required and param.default is None:
        base = base | None
    return Annotated[base, Field(description=param.agent_help or param.help, ge=param.ge, le=param.le)]


def tool_function(op: Operation, core: Core, budget: int) -> Any:
    """An async function with the operation's parameters as its signature, answering with
    its markdown and structured content."""
    schema = load(op.schema)

    async def tool(**values: Any) -> CallToolResult:
        def work(index: Any) -> Any:
            try:
                return op.call(index, **values)
            except ValueError as exc:
                raise ToolError(str(exc)) from None

        result = await core.call(work, create=op.creates)
        return tool_result(load(op.markdown)(result, budget), schema.model_validate(op.to_structured(result)))

    params = [inspect.Parameter(p.name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation(p),
                                default=inspect.Parameter.empty if p.required else p.default_for("mcp"))
              for p in op.params_on("mcp")]
    tool.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        params, return_annotation=Annotated[CallToolResult, schema])
    tool.__name__ = tool.__qualname__ = op.tool
    tool.__doc__ = op.agent_help
    return tool


def register_operations(server: MCPServer, core: Core, budget: int) -> None:
    """One tool per declared operation an agent is offered, and one per alias of an older name."""
    for name, op in tools("mcp").items():
        described = op.agent_help if name == op.tool else f"{op.agent_help} (alias of {op.tool})"
        server.add_tool(tool_function(op, core, budget), name=name, description=described)

"""Read-only tool calls answered before the MCP SDK has loaded (see `mcp_warm`).

Importing the SDK and building its server costs about 0.85 s of CPU, more than most tool calls.
Until it is needed, a `tools/call` of an operation that only reads is answered here, from the
operation's declaration, exactly as the SDK server would: the same defaults, the same text and
structured content (`tool_result`'s shape). Only the plain case is taken: arguments that are
already of their declared type and within their bounds, no progress token, and a call that
succeeds, and not one that may take long (research). Anything else (a value the SDK would
convert or refuse, an error, a write) goes to the SDK, which answers it as it always did; a read
that failed here is simply run again there.
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

from mindex.ops import Operation, Param, load, tools

_EXACT: dict[type, tuple[type, ...]] = {int: (int,), float: (int, float), str: (str,), bool: (bool,), dict: (dict,)}
# Reads that may take long (a chat model's answer): the SDK runs them, so that pings and
# cancellations are answered meanwhile.
LONG = frozenset({"research_code"})


def reads(message: dict[str, Any]) -> tuple[Operation, dict[str, Any]] | None:
    """The operation and its arguments (defaults filled in as the SDK's signature does) when
    `message` is a `tools/call` this module may answer; None otherwise."""
    params = message.get("params")
    if message.get("method") != "tools/call" or not isinstance(params, dict) or "_meta" in params:
        return None
    op = _mcp_tools().get(params.get("name"))  # type: ignore[arg-type]
    given = params.get("arguments") or {}
    if op is None or op.writes or op.tool in LONG or not isinstance(given, dict):  # `creates`: the index exists, or no answer here
        return None
    offered = {p.name: p for p in op.params_on("mcp")}
    if set(given) - set(offered) or any(p.required and p.name not in given for p in offered.values()):
        return None
    if not all(_plain(p, given[name]) for name, p in offered.items() if name in given):
        return None
    return op, {name: given.get(name, p.default_for("mcp")) for name, p in offered.items()}


@cache
def _mcp_tools() -> dict[str, Operation]:
    return tools("mcp")


def _plain(param: Param, value: Any) -> bool:
    """Whether the SDK's validation would pass `value` through unchanged."""
    if value is None:
        return not param.required and param.default_for("mcp") is None
    if param.many and isinstance(value, list):
        return all(_one(param, item) for item in value)
    return _one(param, value)


def _one(param: Param, value: Any) -> bool:
    if isinstance(value, bool) and param.type is not bool:
        return False
    if not isinstance(value, _EXACT.get(param.type, (object,))):
        return False
    if param.type is float and isinstance(value, int):
        return False  # the SDK makes it a float
    if isinstance(value, float) and not math.isfinite(value):
        return False
    if param.choices is not None and value not in param.choices:
        return False
    number: Any = value  # only numbers have bounds
    if param.ge is not None and number < param.ge:
        return False
    return param.le is None or number <= param.le


def answer(op: Operation, values: dict[str, Any], index: Any, budget: int) -> dict[str, Any]:
    """The result the SDK server gives for this call (raises whatever the operation raises)."""
    result = op.call(index, **values)
    structured = load(op.schema).model_validate(op.to_structured(result)).model_dump(mode="json")
    return {"content": [{"type": "text", "text": load(op.markdown)(result, budget)}],
            "structuredContent": structured, "isError": False}

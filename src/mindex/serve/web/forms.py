"""The web face of the operations' declarations (`mindex.ops`): a form per operation, made
from its parameters (the same names, defaults, bounds, choices and help as the CLI and the
MCP tool), and the values a submitted form gives, checked by `Param.check` as every face
checks them."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, NamedTuple

from mindex.ops import Operation, Param


class Field(NamedTuple):
    """One form field as a template draws it."""

    name: str
    label: str
    help: str
    widget: str  # text, number, select, textarea
    value: str
    required: bool
    choices: tuple[tuple[str, str], ...] = ()
    step: str = "any"
    min: str = ""
    max: str = ""


def _shown(value: Any) -> str:
    if value is None or value == ():
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value)
    return str(value)


def fields(op: Operation, given: Mapping[str, str]) -> list[Field]:
    """The operation's web parameters as form fields, filled with what was given (else blank:
    blank means the declared default, which the help states)."""
    out = []
    for p in op.params_on("web"):
        value = given.get(p.name, "")
        default = "" if p.required or p.default in (None, ()) else f" (default {_shown(p.default)})"
        help = p.help + ("" if p.required or default in p.help else default)
        label = p.name.replace("_", " ")
        if p.type is bool:
            choices = (("", f"default ({_shown(p.default) or 'unset'})"), ("true", "yes"), ("false", "no"))
            out.append(Field(p.name, label, help, "select", value, False, choices))
        elif p.choices and not p.many:
            blank = () if p.required else (("", "default" if p.default is None else f"default ({p.default})"),)
            out.append(Field(p.name, label, help, "select", value, p.required,
                             (*blank, *((c, c) for c in p.choices))))
        elif p.type in (int, float) and not p.many:
            out.append(Field(p.name, label, help, "number", value, p.required, step="1" if p.type is int else "any",
                             min="" if p.ge is None else f"{p.ge:g}", max="" if p.le is None else f"{p.le:g}"))
        elif p.type is dict or p.name in ("text", "issue", "action", "result", "message"):
            out.append(Field(p.name, label, help, "textarea", value, p.required))
        else:
            many = " Several: separate them with commas." if p.many and p.type is not dict else ""
            out.append(Field(p.name, label, help + many, "text", value, p.required))
    return out


def _one(param: Param, text: str) -> Any:
    if param.type is bool:
        if text not in ("true", "false"):
            raise ValueError(f"{param.name} must be true or false")
        return text == "true"
    if param.type is int:
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"{param.name} must be a whole number") from None
    if param.type is float:
        try:
            return float(text)
        except ValueError:
            raise ValueError(f"{param.name} must be a number") from None
    return text


def values(op: Operation, given: Mapping[str, str]) -> dict[str, Any]:
    """What a submitted form asks for, typed; a blank field takes the declared default.
    `Operation.call` checks the values as every face does.

    Raises:
        ValueError: a field that cannot be read as its type (named in the message).
    """
    out: dict[str, Any] = {}
    for p in op.params_on("web"):
        text = given.get(p.name)
        if text is None or (text.strip() == "" and not p.clears):
            continue
        if p.many and p.type is not dict:
            parts = [part.strip() for part in text.split(p.separator or ",") if part.strip()]
            out[p.name] = [_one(p, part.lstrip("#") if p.type is int else part) for part in parts]
        elif p.type is dict:
            try:
                out[p.name] = json.loads(text)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{p.name}: not JSON ({exc.msg} at character {exc.pos})") from None
        else:
            out[p.name] = _one(p, text)
    return out


def web_operations() -> dict[str, Operation]:
    """The operations the web face offers, by tool name."""
    from mindex.ops import operations

    return {op.tool: op for op in operations().values() if "web" in op.faces}


__all__ = ["Field", "fields", "values", "web_operations"]

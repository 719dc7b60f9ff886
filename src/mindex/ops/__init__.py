"""Operations: one declaration per user-visible action, from which every face is made.

An `Operation` names the action, its parameters (type, default, bounds, choices, help,
examples), the function that does it and how each face shows its result. The CLI command
(`mindex.serve.opscli`), the MCP tool (`mindex.serve.opsmcp`) and the web route are
generated from it, so a parameter declared once has the same name, default and validation
everywhere, and `--help` and the MCP tool list cannot disagree.

Declarations import nothing of the engine: what an operation calls and how a face renders
it are `"module:function"` paths, imported when the operation runs. A new operation is one
module of this package and one entry in `MODULES`.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from typing import Any

# The modules that declare operations, each with an `OPERATIONS` tuple.
MODULES = ("mindex.ops.sources",)


class Required:
    """The default of a parameter that has none."""

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = Required()


@dataclass(frozen=True)
class Param:
    """One parameter of an operation, as every face sees it.

    `type` is str, int, float or bool; `choices` limits a str; `ge`/`le` bound a number.
    `flags` are the CLI's spellings (default `--name` with dashes); `argument` makes it the
    CLI's positional argument. `agent_help` is the MCP wording where it differs from `help`.
    """

    name: str
    type: type
    help: str
    default: Any = REQUIRED
    choices: tuple[str, ...] | None = None
    ge: float | None = None
    le: float | None = None
    flags: tuple[str, ...] = ()
    argument: bool = False
    agent_help: str | None = None

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    def cli_flags(self) -> tuple[str, ...]:
        return self.flags or ("--" + self.name.replace("_", "-"),)

    def check(self, value: Any) -> Any:
        """The value, validated as every face validates it.

        Raises:
            ValueError: a value of the wrong type, out of bounds, or not among the choices.
        """
        if value is None and not self.required:
            return value
        if self.type is bool and not isinstance(value, bool):
            raise ValueError(f"{self.name} must be true or false")
        if self.type in (int, float) and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise ValueError(f"{self.name} must be a number")
        if self.type is int and value != int(value):
            raise ValueError(f"{self.name} must be a whole number")
        if self.type is str and not isinstance(value, str):
            raise ValueError(f"{self.name} must be text")
        if self.ge is not None and value < self.ge:
            raise ValueError(f"{self.name} must be {self.ge:g} or more")
        if self.le is not None and value > self.le:
            raise ValueError(f"{self.name} must be {self.le:g} or less")
        if self.choices is not None and value not in self.choices:
            raise ValueError(f"{self.name} must be one of: {', '.join(self.choices)}")
        return value


@dataclass(frozen=True)
class Operation:
    """A user-visible action and how each face offers it.

    `run(index, **params)` does the work and returns a result with `to_dict()` (the `--json`
    shape and the MCP structured content). `markdown(result, budget)` is the MCP text,
    `text(console, result)` the terminal's, `schema` the MCP output model; `writes` says
    whether it changes the index (read-only faces refuse it).
    """

    name: str
    tool: str
    help: str
    agent_help: str
    run: str
    markdown: str
    text: str
    schema: str
    params: tuple[Param, ...] = ()
    examples: tuple[str, ...] = ()
    writes: bool = False
    aliases: tuple[str, ...] = ()

    def param(self, name: str) -> Param:
        return next(p for p in self.params if p.name == name)

    def call(self, index: Any, **values: Any) -> Any:
        """Validate the values (defaults filled in) and run the operation on `index`.

        Raises:
            ValueError: a value a parameter refuses (`Param.check`).
        """
        given = {p.name: p.check(values.get(p.name, None if p.required else p.default)) for p in self.params}
        return load(self.run)(index, **given)


def load(path: str) -> Any:
    """The object a `"module:name"` path names, imported now."""
    module, _, name = path.partition(":")
    return getattr(import_module(module), name)


def operations() -> dict[str, Operation]:
    """Every declared operation by name, in declaration order."""
    found: dict[str, Operation] = {}
    for module in MODULES:
        for op in import_module(module).OPERATIONS:
            found[op.name] = op
    return found


__all__ = ["MODULES", "REQUIRED", "Operation", "Param", "load", "operations"]

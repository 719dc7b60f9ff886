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

from importlib import import_module
import math
from typing import Any, NamedTuple

# The modules that declare operations (each an `OPERATIONS` tuple), with the first words of
# the commands each declares, so a command loads its own module only.
MODULES: dict[str, tuple[str, ...]] = {
    "mindex.ops.sources": ("sources", "status"),
    "mindex.ops.code": ("grep", "symbols", "graph"),
    "mindex.ops.changelogs": ("changelog",),
    "mindex.ops.workflows": ("workflow", "milestone"),
    "mindex.ops.memory": ("memory", "knowledge", "context"),
    "mindex.ops.search": ("search", "locate", "get", "search-docs", "search-code"),
    "mindex.ops.research": ("research",),
}

FACES = ("cli", "mcp", "web")


class Required:
    """The default of a parameter that has none."""

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = Required()


class Param(NamedTuple):
    """One parameter of an operation, as every face sees it.

    `type` is str, int, float or bool; `choices` limits a str; `ge`/`le` bound a number;
    `blank=False` refuses empty text (a query). `flags` are the CLI's spellings (default
    `--name` with dashes) and `metavar` its placeholder; `argument` makes it the CLI's
    positional argument. `agent_help` is the MCP wording where it differs from `help`, and
    `agent_default` its default where an agent's answer must stay smaller than a terminal's.
    `faces` are the faces that offer it (the others run with its default); a `display`
    parameter changes how the CLI prints, not what runs, and is not passed to the function.
    `many` takes several values (a repeatable option, or one option split on `separator`;
    a list, or one value, over MCP), each checked as one and passed as a tuple (empty when
    none is given). A `dict` parameter is an object over MCP and JSON text on the command
    line; the function reads either. A `rest` argument takes the command line's remaining
    words: joined with spaces (`-` alone: standard input), or as a tuple when `many`; a
    `stdin` argument given as `-` is read from standard input. `parse` ("module:function")
    turns text into the value the function takes (`keyword=0.5,semantic=1` into weights),
    raising ValueError on text it refuses. `clears`: an empty value that was given means
    "none" (memory edit's tags: '' removes them all), where a form's blank field otherwise
    means the default.
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
    agent_default: Any = REQUIRED
    metavar: str | None = None
    blank: bool = True
    faces: tuple[str, ...] = FACES
    display: bool = False
    many: bool = False
    separator: str | None = None
    rest: bool = False
    stdin: bool = False
    parse: str | None = None
    clears: bool = False

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    def default_for(self, face: str) -> Any:
        """The default on `face` ("cli", "mcp" or "web")."""
        if face == "mcp" and self.agent_default is not REQUIRED:
            return self.agent_default
        return self.default

    def cli_flags(self) -> tuple[str, ...]:
        return self.flags or ("--" + self.name.replace("_", "-"),)

    def check(self, value: Any) -> Any:
        """The value, validated as every face validates it.

        Raises:
            ValueError: a value of the wrong type, out of bounds, or not among the choices.
        """
        if self.many:
            if isinstance(value, str) and self.separator:
                value = self._split(value)
            values = () if value is None else (value,) if isinstance(value, (str, int, float)) else value
            if not isinstance(values, (list, tuple)):
                raise ValueError(f"{self.name} must be a list")
            return tuple(self._check_one(v) for v in values)
        return self._check_one(value)

    def _split(self, text: str) -> list[Any]:
        """`12,13,#14` as [12, 13, 14] (a `separator` list given as one piece of text)."""
        parts = [part.strip().lstrip("#") for part in text.split(self.separator) if part.strip()]
        if self.type is int:
            if not all(part.isdigit() for part in parts):
                raise ValueError(f"{self.name}: give numbers separated by {self.separator!r}, e.g. 12{self.separator}13")
            return [int(part) for part in parts]
        return parts

    def _check_one(self, value: Any) -> Any:
        if value is None and not self.required:
            return value
        if self.type is dict:
            if not isinstance(value, (dict, str)):
                raise ValueError(f"{self.name} must be an object")
            return value
        if self.type is bool and not isinstance(value, bool):
            raise ValueError(f"{self.name} must be true or false")
        if self.type in (int, float) and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise ValueError(f"{self.name} must be a number")
        if self.type in (int, float) and not math.isfinite(value):
            raise ValueError(f"{self.name} must be a finite number")
        if self.type is int and value != int(value):
            raise ValueError(f"{self.name} must be a whole number")
        if self.type is str and not isinstance(value, str):
            raise ValueError(f"{self.name} must be text")
        if self.type is str and not self.blank and not value.strip():
            raise ValueError(f"{self.name} is empty; pass the words, question or identifier to search for")
        if self.parse and isinstance(value, str):
            try:
                return load(self.parse)(value)
            except ValueError as exc:
                raise ValueError(f"{self.name}: {exc}") from None
        if self.ge is not None and value < self.ge:
            raise ValueError(f"{self.name} must be {self.ge:g} or more")
        if self.le is not None and value > self.le:
            raise ValueError(f"{self.name} must be {self.le:g} or less")
        if self.choices is not None and value not in self.choices:
            raise ValueError(f"{self.name} must be one of: {', '.join(self.choices)}")
        return value


class Operation(NamedTuple):
    """A user-visible action and how each face offers it.

    `run(index, **params)` does the work and returns a result with `to_dict()` (the `--json`
    shape, and the MCP structured content unless the result has a `structured()` of its own).
    `markdown(result, budget)` is the MCP text, `text(console, result, view)` the terminal's
    (`view`: `mindex.serve.opscli.View`), `stderr(result, view)` what the terminal shows on
    stderr in both modes (notes, a limit reached), `schema` the MCP output model. `missing`
    names the result's attribute that, when empty, makes the CLI exit 3 ("nothing found"),
    and with `none_error` (formatted with the values) say so as a NOT_FOUND error, where an
    agent gets the empty result.
    `cli` is the command's path when it sits in a group (`("graph", "callers")`); `faces`
    the faces that offer it, `aliases` older tool names and `cli_aliases` other command
    names; `writes` says whether it changes the index (read-only faces and read tokens
    refuse it), `creates` that it opens (and makes) an index not made yet.
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
    cli: tuple[str, ...] = ()
    faces: tuple[str, ...] = FACES
    stderr: str | None = None
    missing: str | None = None
    none_error: str | None = None
    creates: bool = False
    cli_aliases: tuple[str, ...] = ()

    @property
    def path(self) -> tuple[str, ...]:
        """The CLI command's words: `("sources",)`, `("graph", "callers")`."""
        return self.cli or (self.name,)

    def param(self, name: str) -> Param:
        return next(p for p in self.params if p.name == name)

    def params_on(self, face: str) -> tuple[Param, ...]:
        """The parameters `face` offers."""
        return tuple(p for p in self.params if face in p.faces)

    def call(self, index: Any, **values: Any) -> Any:
        """Validate the values (defaults filled in) and run the operation on `index`;
        `display` parameters are the face's business and are not passed.

        Raises:
            ValueError: a value a parameter refuses (`Param.check`).
        """
        given = {p.name: p.check(values.get(p.name, None if p.required else p.default))
                 for p in self.params if not p.display}
        return load(self.run)(index, **given)

    def to_structured(self, result: Any) -> dict[str, Any]:
        """The MCP structured content of a result."""
        own = getattr(result, "structured", None)
        shape: dict[str, Any] = own() if own is not None else result.to_dict()
        return shape

    def found_nothing(self, result: Any) -> bool:
        """Whether the CLI should exit 3: the result's `missing` attribute is empty."""
        return self.missing is not None and not getattr(result, self.missing)


def load(path: str) -> Any:
    """The object a `"module:name"` path names, imported now."""
    module, _, name = path.partition(":")
    return getattr(import_module(module), name)


def operations(word: str | None = None) -> dict[str, Operation]:
    """Every declared operation by its command words (`"sources"`, `"graph callers"`), in
    declaration order; with `word`, only those of the module that declares commands
    starting with it (nothing else is imported).

    Raises:
        ValueError: two operations declare the same command or the same tool, or a module
            declares a command its entry in `MODULES` does not name.
    """
    found: dict[str, Operation] = {}
    tools: set[str] = set()
    for module, words in MODULES.items():
        if word is not None and word not in words:
            continue
        for op in import_module(module).OPERATIONS:
            key = " ".join(op.path)
            if key in found or op.tool in tools:
                raise ValueError(f"{module}: the command {key!r} or the tool {op.tool!r} is declared twice")
            if op.path[0] not in words:
                raise ValueError(f"{module} declares {key!r}; add {op.path[0]!r} to its entry in MODULES")
            found[key] = op
            tools.add(op.tool)
    return found


def tools(face: str) -> dict[str, Operation]:
    """Every operation `face` offers, by tool name, older names (`aliases`) included, each
    after its own."""
    found: dict[str, Operation] = {}
    for op in operations().values():
        if face in op.faces:
            found.update({name: op for name in (op.tool, *op.aliases)})
    return found


__all__ = ["FACES", "MODULES", "REQUIRED", "Operation", "Param", "load", "operations", "tools"]

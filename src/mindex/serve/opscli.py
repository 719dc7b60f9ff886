"""CLI commands generated from the operations' declarations (`mindex.ops`): options,
arguments, types, bounds, choices, help and examples come from the operation, so they
cannot drift from its MCP tool. Every command has `--json` (its errors too); a lookup that
finds nothing exits 3, as grep does."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import click

from mindex.errors import NotFoundError
from mindex.ops import Operation, Param, load, operations
from mindex.serve.clikit import TEXT, FiniteRange, State, emit_json, err, handle_errors, json_option, not_blank, out
from mindex.serve.words import Places

if TYPE_CHECKING:
    from rich.console import Console

NO_MATCH = 3  # the "nothing found" exit code


class View:
    """What a terminal renderer knows besides the result: where the sources live (to show
    paths as the user opens them; read from the open index only when a renderer asks), the
    values the command was given, and stderr."""

    __slots__ = ("_index", "_places", "err", "values")

    def __init__(self, index: Any, values: dict[str, Any], err: Console) -> None:
        self._index, self.values, self.err = index, values, err
        self._places: Places | None = None

    @property
    def places(self) -> Places:
        if self._places is None:
            self._places = Places(self._index.roots())
        return self._places


def click_type(param: Param) -> Any:
    """The click type of a parameter: a choice, a bounded number, or its plain type (text
    as mindex reads arguments, numbers finite)."""
    if param.choices:
        return click.Choice(param.choices)
    if param.separator or param.type is dict:
        return TEXT  # split or read as JSON by the declaration
    if param.type is int:
        if param.ge is None and param.le is None:
            return int
        return click.IntRange(None if param.ge is None else int(param.ge), None if param.le is None else int(param.le))
    if param.type is float:
        return FiniteRange(param.ge, param.le)
    return TEXT if param.type is str else param.type


def click_param(param: Param) -> click.Parameter:
    """The operation's parameter as a click argument or option."""
    def check(ctx: click.Context, option: click.Parameter, value: Any) -> Any:
        """As every face checks it (`Param.check`), said the way click says a bad value."""
        if value is None or (param.stdin and value == "-"):  # standard input is read when the command runs
            return value
        if not param.blank:
            value = not_blank(ctx, option, value)
        try:
            checked = param.check(value)
        except ValueError as exc:
            raise click.BadParameter(str(exc), ctx=ctx, param=option) from None
        return value if param.parse else checked  # parsed once more when the operation runs

    # A required parameter is given no default at all: click 8.3 and later take an explicit
    # `default=None` for a value and skip their "Missing argument" check.
    unless = {} if param.required else {"default": param.default}
    if param.rest:
        return click.Argument([param.name], type=click_type(param), nargs=-1, required=param.required,
                              metavar=param.metavar, callback=None if param.many else _words, **unless)
    if param.argument:
        return click.Argument([param.name], type=click_type(param), required=param.required, callback=check,
                              metavar=param.metavar, **unless)
    if param.type is bool:
        two_way = any("/" in flag for flag in param.cli_flags())  # --decay/--no-decay says which is on
        return click.Option([*param.cli_flags(), param.name], is_flag=True, help=param.help,
                            default=None if param.default is None else bool(param.default),  # None: unsaid
                            show_default=two_way and param.default is not None)
    return click.Option([*param.cli_flags(), param.name], type=click_type(param), required=param.required,
                        help=param.help, callback=check, **unless,
                        metavar=param.metavar, multiple=param.many and not param.separator,
                        show_default=param.default not in (None, False) and not param.required)


def _words(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> str | None:
    """The words of a `rest` argument as one text (`-` alone is read from standard input
    when the command runs)."""
    return " ".join(value) if value else None


def command(op: Operation, name: str | None = None) -> click.Command:
    """The `mindex` command of an operation (under `name`, one of its `cli_aliases`)."""

    @handle_errors
    def run(as_json: bool, **values: Any) -> None:
        state = click.get_current_context().find_object(State)
        assert state is not None  # the group's callback made it
        for param in op.params_on("cli"):
            if (param.stdin or param.rest and not param.many) and values.get(param.name) == "-":
                values[param.name] = sys.stdin.read()  # read now, not while parsing (--help, completion)
                if not values[param.name].strip():
                    raise click.UsageError("standard input was empty; pipe the text in, or give it as "
                                           f"{param.metavar or param.name.upper()}")
        with state.open(create=op.creates) as index:
            try:
                result = op.call(index, **values)
            except ValueError as exc:
                raise click.UsageError(str(exc)) from None
            if op.none_error and op.found_nothing(result):
                raise NotFoundError(op.none_error.format(**values))
            view = View(index, values, err)
            if as_json:
                emit_json(result.to_dict())
            else:
                load(op.text)(out, result, view)
            if op.stderr:
                load(op.stderr)(err, result, view)
        if op.found_nothing(result):
            sys.exit(NO_MATCH)

    lines, words, help = op.examples, " ".join(op.path), op.help
    if name and name != op.path[-1]:  # an alias: its examples call it by its own name
        alias = " ".join((*op.path[:-1], name))
        lines = tuple(line.replace(f"mindex {words} ", f"mindex {alias} ") for line in lines)
        help = f"{help.rstrip('.')} (as `mindex {words}`)."
    examples = "\n\n\b\nExamples:\n" + "\n".join(f"  {line}" for line in lines) if lines else ""
    params = [click_param(p) for p in op.params_on("cli")]
    # the `--json` option of every hand-written command, added last as theirs is
    return json_option(click.Command(name or op.path[-1], params=params, callback=run, help=help + examples))


def attach(group: click.Group) -> click.Group:
    """Add to `group` the commands of the operations declared under its name
    (`cli=("graph", "callers")`)."""
    for op in operations(group.name).values():
        if len(op.path) == 2 and op.path[0] == group.name and "cli" in op.faces:
            for name in (op.path[1], *op.cli_aliases):
                group.add_command(command(op, name))
    return group


def __getattr__(name: str) -> click.Command:
    """`mindex.serve.opscli:NAME`, the command of the top-level operation NAME (for
    `cli.LAZY_COMMANDS`)."""
    found = operations(name).get(name)
    if found is None or found.path != (name,):
        raise AttributeError(f"no top-level operation named {name!r}")
    return command(found)

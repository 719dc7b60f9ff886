"""CLI commands generated from the operations' declarations (`mindex.ops`): options,
arguments, types, bounds, choices, help and examples come from the operation, so they
cannot drift from its MCP tool. Every command has `--json` (its errors too)."""

from __future__ import annotations

from typing import Any

import click

from mindex.ops import Operation, Param, load
from mindex.serve.clikit import State, emit_json, handle_errors, json_option, out


def click_type(param: Param) -> Any:
    """The click type of a parameter: a choice, a bounded number, or its plain type."""
    if param.choices:
        return click.Choice(param.choices)
    if param.type is int and (param.ge is not None or param.le is not None):
        return click.IntRange(None if param.ge is None else int(param.ge), None if param.le is None else int(param.le))
    if param.type is float and (param.ge is not None or param.le is not None):
        return click.FloatRange(param.ge, param.le)
    return param.type


def click_param(param: Param) -> click.Parameter:
    """The operation's parameter as a click argument or option."""
    if param.argument:
        return click.Argument([param.name], type=click_type(param), required=param.required,
                              default=None if param.required else param.default)
    if param.type is bool:
        return click.Option([*param.cli_flags(), param.name], is_flag=True, default=bool(param.default),
                            help=param.help)
    return click.Option([*param.cli_flags(), param.name], type=click_type(param), required=param.required,
                        default=None if param.required else param.default, help=param.help,
                        show_default=param.default not in (None, False) and not param.required)


def command(op: Operation) -> click.Command:
    """The `mindex` command of an operation."""

    @handle_errors
    def run(as_json: bool, **values: Any) -> None:
        state = click.get_current_context().find_object(State)
        assert state is not None  # the group's callback made it
        with state.open(create=op.writes) as index:
            try:
                result = op.call(index, **values)
            except ValueError as exc:
                raise click.UsageError(str(exc)) from None
        if as_json:
            emit_json(result.to_dict())
        else:
            load(op.text)(out, result)

    examples = "\n\n\b\nExamples:\n" + "\n".join(f"  {line}" for line in op.examples) if op.examples else ""
    params = [click_param(p) for p in op.params]
    # the `--json` option of every hand-written command, added last as theirs is
    return json_option(click.Command(op.name, params=params, callback=run, help=op.help + examples))


def __getattr__(name: str) -> click.Command:
    """`mindex.serve.opscli:NAME`, the command of the operation NAME (for `cli.LAZY_COMMANDS`)."""
    from mindex.ops import operations

    found = operations().get(name)
    if found is None:
        raise AttributeError(f"no operation named {name!r}")
    return command(found)

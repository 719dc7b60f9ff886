"""Code commands: the `mindex symbols` and `mindex graph` groups (their commands are declared
in `mindex.ops.code`) and `mindex watch`."""

from __future__ import annotations

import click
from mindex.textsafe import markup_escape as escape

from mindex.serve.clikit import TEXT, FiniteRange, State, err, handle_errors, out
from mindex.serve.opscli import attach


class _FindByDefault(click.Group):
    """A group whose one frequent command is also its default: `mindex symbols Session.send`
    is `mindex symbols find Session.send` (the first word not a command of the group, options
    included: `mindex symbols --json send`)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("-h", "--help"):
            args = ["find", *args]
        return super().parse_args(ctx, args)


@click.group(cls=_FindByDefault)
def symbols() -> None:
    """Definitions in indexed code: find them by name.

    `mindex symbols NAME` is `mindex symbols find NAME`.

    \b
    Examples:
      mindex symbols Session.send
      mindex symbols find send --kind method --json
    """


@click.group()
def graph() -> None:
    """The code graph: callers, callees, impact, exports and outlines of indexed code.

    Calls are resolved through imports and scopes; each edge carries a confidence and the
    reason (`defined in this file`, `imported from pkg.models`, `ambiguous: 3 definitions
    named get`, ...). Unresolved calls are listed, never guessed.
    """


attach(symbols)
attach(graph)


@click.command()
@click.argument("names", nargs=-1, type=TEXT, metavar="[SOURCE]...")
@click.option("--debounce", default=500, show_default=True, type=click.IntRange(10, 60_000),
              help="Group a burst of saves for at most this many milliseconds.")
@click.option("--reconcile", default=60.0, show_default=True, type=FiniteRange(1),
              help="Re-check every source this often (seconds), events or not.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per update, a line each.")
@click.pass_obj
@handle_errors
def watch(state: State, names: tuple[str, ...], debounce: int, reconcile: float, as_json: bool) -> None:
    """Keep the index live while you edit: re-index sources (all, or those named) within about
    a second of a save. Creates, renames, deletes and new folders are picked up; a periodic
    scan heals missed events. Stop with Ctrl-C.

    \b
    Examples:
      mindex watch
      mindex watch myrepo --debounce 200
      mindex watch --json | jq -c 'select(.touched)'
    """
    import json as jsonlib
    import time

    from mindex.watch import Update
    from mindex.watch import watch as run_watch

    def show(update: Update) -> None:
        if as_json:
            click.echo(jsonlib.dumps({"reason": update.reason, "changed": update.changed, "touched": update.touched,
                                      "seconds": round(update.seconds, 3), "error": update.error,
                                      "sources": {n: r.to_dict() for n, r in update.reports.items()}}))
            return
        stamp = time.strftime("%H:%M:%S")
        if update.error:
            err.print(f"{stamp} [red]update failed:[/] {escape(update.error)} (will retry)", highlight=False)
            return
        for name, report in update.reports.items():
            if report.errors:
                err.print(f"{stamp} {escape(name)}: [red]{escape('; '.join(report.errors))}[/]", highlight=False)
            elif update.reason == "start" or report.added or report.updated or report.removed:
                out.print(f"{stamp} {escape(name)}: {report.added} added, {report.updated} updated, "
                          f"{report.removed} removed ({update.seconds:.2f} s, {update.reason})", highlight=False)

    with state.open() as index:
        if not as_json:
            err.print("[dim]watching; Ctrl-C to stop[/]")
        run_watch(index, names, show, debounce_ms=debounce, reconcile_s=reconcile)

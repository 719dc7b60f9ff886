"""Memory commands: the `mindex memory` and `mindex knowledge` groups (their commands are
declared in `mindex.ops.memory`, as is `mindex context`) and `mindex memory rebuild`."""

from __future__ import annotations

from typing import Any

import click

from mindex.serve.clikit import State, emit_json, err, handle_errors, json_option, out
from mindex.serve.opscli import attach
from mindex.textsafe import markup_escape as escape


@click.group()
def memory() -> None:
    """What agents decided, learned and did: a markdown journal in .mindex/memory, indexed.

    \b
    Examples:
      mindex memory save "Retries back off exponentially, capped at 30 s" --type decision --tag http --file src/fetch/http.py
      mindex memory search "how do we retry failed requests" --days 30
      mindex memory list --type decision --limit 5
      mindex memory show m-20261123-044512-7f3a
      mindex memory forget m-20261123-044512-7f3a
      mindex memory rebuild
    """


def _report(reports: dict[str, Any], as_json: bool) -> None:
    if as_json:
        emit_json({name: report.to_dict() for name, report in reports.items()})
        return
    for name, report in reports.items():
        out.print(f"{name}: {report.added + report.updated + report.unchanged} files, {report.chunks} chunks "
                  f"read again, {len(report.skipped)} problems", highlight=False)
        for skipped in report.skipped:
            err.print(f"  {escape(skipped.path)}: {escape(skipped.reason)}", highlight=False)


@memory.command("rebuild")
@json_option
@click.pass_obj
@handle_errors
def rebuild(state: State, as_json: bool) -> None:
    """Recreate every memory and knowledge row of the index from the files on disk.

    \b
    Example:
      mindex memory rebuild --json

    \b
    Examples:
      mindex memory rebuild
      mindex memory rebuild --json
    """
    with state.open(create=True) as index:
        reports = index.memory.rebuild()
    _report(reports, as_json)


attach(memory)


@click.group()
def knowledge() -> None:
    """Learnings, patterns, mistakes and topics: markdown files in .mindex/knowledge, linked
    to code areas and files in a knowledge graph.

    \b
    Examples:
      mindex knowledge add learning "Retry with jitter, or every client retries at once" --file src/fetch/http.py
      mindex knowledge add mistake "Retried without jitter and overloaded the API" --area src/fetch --confidence 0.9
      mindex knowledge query --file src/fetch/http.py
      mindex knowledge query --text "retry storms" --json
    """


attach(knowledge)

"""`mindex workflow` and `mindex milestone`: checkpoints of an agent's work on an issue, and
groups of issues worked in waves with a lint and typecheck baseline. Their commands are
declared in `mindex.ops.workflows`; the baseline, which runs the project's own checks, is
the command line's alone."""

from __future__ import annotations

from pathlib import Path

import click

from mindex.serve.clikit import TEXT, FiniteRange, State, emit_json, err, handle_errors, json_option, out
from mindex.serve.opscli import attach
from mindex.serve.workflowviews import print_milestone
from mindex.textsafe import markup_escape as escape


@click.group()
def workflow() -> None:
    """Checkpoints of an agent's work on an issue: phase, status, actions, commits.

    State lives in the index (.mindex/index.db), one transaction per change, so an agent that
    is compacted or restarted resumes from the saved phase.

    \b
    Examples:
      mindex workflow create 123 feat/123-retry        # or resume the running one
      mindex workflow set-phase wf-123-3fa2c1 implement
      mindex workflow log-action wf-123-3fa2c1 "ran tests" success --meta '{"passed": 40}'
      mindex workflow log-commit wf-123-3fa2c1 3fa2c1d "feat(http): retry with jitter"
      mindex workflow find 123 --json
      mindex workflow rollback-plan wf-123-3fa2c1
    """


attach(workflow)


@click.group()
def milestone() -> None:
    """Groups of issues worked in waves, with a lint and typecheck baseline.

    \b
    Examples:
      mindex milestone create "retry overhaul" --issues 12,13,14 --waves 2
      mindex milestone baseline ms-retry-overhaul-1a2b --lint "ruff check ." --typecheck "mypy"
      mindex milestone show ms-retry-overhaul-1a2b --json
    """


attach(milestone)


@milestone.command("baseline")
@click.argument("milestone_id", type=TEXT)
@click.option("--lint", metavar="COMMAND", help="e.g. \"ruff check .\", \"npx eslint .\", \"flake8\"")
@click.option("--typecheck", metavar="COMMAND", help="e.g. \"mypy\", \"npx tsc --noEmit\", \"pyright\"")
@click.option("--check", "checks", multiple=True, metavar="NAME=COMMAND", help="Any other check (repeatable).")
@click.option("--timeout", default=600.0, show_default=True, type=FiniteRange(1), help="Seconds per command.")
@json_option
@click.pass_obj
@handle_errors
def ms_baseline(state: State, milestone_id: str, lint: str | None, typecheck: str | None, checks: tuple[str, ...],
                timeout: float, as_json: bool) -> None:
    """Run the checks in the project root and store each one's exit code, error and warning
    counts (read from ruff, flake8, eslint, mypy, tsc or pyright output; for another tool
    the exit code and the number of output lines).

    \b
    Examples:
      mindex milestone baseline ms-retry-overhaul-1a2b --lint "ruff check ." --typecheck mypy
      mindex milestone baseline ms-retry-overhaul-1a2b --check tests="pytest -q"
    """
    from mindex.agents.baseline import run_check
    from mindex.config import find_project_root
    from mindex.errors import WorkflowInputError
    from mindex.store.workflows import Checkpoints

    todo = [(name, command) for name, command in (("lint", lint), ("typecheck", typecheck)) if command]
    for item in checks:
        name, sep, command = item.partition("=")
        if not sep or not name.strip() or not command.strip():
            raise WorkflowInputError(f"--check {item!r}: write it as NAME=COMMAND, e.g. test=\"pytest -q\"")
        todo.append((name.strip(), command))
    if not todo:
        raise WorkflowInputError("give at least one of --lint, --typecheck or --check NAME=COMMAND")
    with state.open(create=True) as index:
        checkpoints = Checkpoints(index.store)  # type: ignore[arg-type]
        checkpoints.milestone(milestone_id)  # fail before running anything
        root = find_project_root(Path.cwd())
        rows = []
        for name, command in todo:
            err.print(f"[dim]running {escape(name)}: {escape(command)}[/]", highlight=False)
            rows.append(run_check(name, command, root, timeout))
        ms = checkpoints.add_baseline(milestone_id, rows)
    emit_json(ms.to_dict()) if as_json else print_milestone(out, ms)

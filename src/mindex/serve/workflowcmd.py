"""`mindex workflow` and `mindex milestone`: checkpoints of an agent's work on an issue, and
groups of issues worked in waves with a lint and typecheck baseline."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from mindex.serve.words import local_time as _when
from mindex.serve.clikit import TEXT, FiniteRange, State, emit_json, err, handle_errors, json_option, out
from mindex.textsafe import markup_escape as escape, visible_controls

if TYPE_CHECKING:
    from mindex.store.workflows import Checkpoints, Milestone, Workflow
    from mindex.index import Index


PHASES = ("research", "planning", "implement", "review", "finalize", "execute", "merge", "cleanup")


def _checkpoints(index: Index) -> Checkpoints:
    from mindex.store.workflows import Checkpoints

    return Checkpoints(index.store)  # type: ignore[arg-type]


def _print_workflow(wf: Workflow, full: bool = True) -> None:
    note = "  (resumed: it was already " + wf.status + ")" if wf.resumed else ""
    out.print(f"[bold]{escape(wf.id)}[/]  issue #{wf.issue}  {escape(wf.branch)}  phase [bold]{wf.phase}[/]  "
              f"{wf.status}" + (f"  retries {wf.retries}" if wf.retries else "") + escape(note), highlight=False)
    if not full:
        return
    if wf.worktree:
        out.print(f"  worktree {escape(wf.worktree)}", highlight=False)
    for a in wf.actions:
        out.print(f"  {_when(a.at)}  {escape(a.action)} → {a.result}"
                  + (f"  {escape(str(a.metadata))}" if a.metadata else ""), highlight=False)
    for c in wf.commits:
        out.print(f"  commit {c.sha[:12]}  {escape(c.message.splitlines()[0] if c.message else '')}", highlight=False)


def _emit(wf: Workflow, as_json: bool) -> None:
    if as_json:
        emit_json(wf.to_dict())
    else:
        _print_workflow(wf)


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


@workflow.command("create")
@click.argument("issue", type=click.IntRange(0))
@click.argument("branch", type=TEXT)
@click.option("--worktree", metavar="PATH", help="The git worktree the work happens in.")
@click.option("--phase", type=click.Choice(PHASES), default="research", show_default=True)
@json_option
@click.pass_obj
@handle_errors
def wf_create(state: State, issue: int, branch: str, worktree: str | None, phase: str, as_json: bool) -> None:
    """Start a workflow for ISSUE on BRANCH (or return the running or paused one for them).

    \b
    Examples:
      mindex workflow create 123 feat/123-retry
      mindex workflow create 123 feat/123-retry --phase implement --json
    """
    with state.open(create=True) as index:
        _emit(_checkpoints(index).create(issue, branch, worktree, phase), as_json)


@workflow.command("find")
@click.argument("issue", type=click.IntRange(0))
@json_option
@click.pass_obj
@handle_errors
def wf_find(state: State, issue: int, as_json: bool) -> None:
    """The workflow to resume for ISSUE: the latest running or paused one, else the latest.
    Exit code 3 when there is none.

    \b
    Examples:
      mindex workflow find 123
      mindex workflow find 123 --json | jq -r .id
    """
    from mindex.errors import NotFoundError

    with state.open(create=True) as index:
        found = _checkpoints(index).find(issue)
    if found is None:
        raise NotFoundError(f"no workflow for issue #{issue}; start one with `mindex workflow create {issue} BRANCH`")
    _emit(found, as_json)


@workflow.command("show")
@click.argument("workflow_id", type=TEXT)
@json_option
@click.pass_obj
@handle_errors
def wf_show(state: State, workflow_id: str, as_json: bool) -> None:
    """One workflow (by id or a unique prefix) with its actions and commits.

    \b
    Examples:
      mindex workflow show wf-123-3fa2c1
    """
    with state.open(create=True) as index:
        _emit(_checkpoints(index).get(workflow_id, actions=1000), as_json)


@workflow.command("set-phase")
@click.argument("workflow_id", type=TEXT)
@click.argument("phase", type=click.Choice(PHASES))
@json_option
@click.pass_obj
@handle_errors
def wf_phase(state: State, workflow_id: str, phase: str, as_json: bool) -> None:
    """Move a running or paused workflow to PHASE (logged as an action).

    \b
    Examples:
      mindex workflow set-phase wf-123-3fa2c1 implement
    """
    with state.open(create=True) as index:
        _emit(_checkpoints(index).set_phase(workflow_id, phase), as_json)


@workflow.command("log-action")
@click.argument("workflow_id", type=TEXT)
@click.argument("action", type=TEXT)
@click.argument("result", type=click.Choice(("success", "failed", "pending")))
@click.option("--meta", metavar="JSON", help="A JSON object stored with the action.")
@json_option
@click.pass_obj
@handle_errors
def wf_action(state: State, workflow_id: str, action: str, result: str, meta: str | None, as_json: bool) -> None:
    """Add ACTION with its RESULT to the workflow's audit log.

    \b
    Examples:
      mindex workflow log-action wf-123-3fa2c1 "ran tests" success --meta '{"passed": 40}'
    """
    from mindex.store.workflows import parse_metadata

    metadata = parse_metadata(meta)
    with state.open(create=True) as index:
        _emit(_checkpoints(index).log_action(workflow_id, action, result, metadata), as_json)


@workflow.command("log-commit")
@click.argument("workflow_id", type=TEXT)
@click.argument("sha", type=TEXT)
@click.argument("message", type=TEXT)
@json_option
@click.pass_obj
@handle_errors
def wf_commit(state: State, workflow_id: str, sha: str, message: str, as_json: bool) -> None:
    """Record a commit the workflow made (kept for `rollback-plan`).

    \b
    Examples:
      mindex workflow log-commit wf-123-3fa2c1 3fa2c1d "feat(http): retry with jitter"
    """
    with state.open(create=True) as index:
        _emit(_checkpoints(index).log_commit(workflow_id, sha, message), as_json)


@workflow.command("list")
@click.option("--status", type=click.Choice(("running", "paused", "completed", "failed")))
@click.option("--issue", type=click.IntRange(0))
@click.option("-n", "--limit", default=50, show_default=True, type=click.IntRange(1, 10000))
@json_option
@click.pass_obj
@handle_errors
def wf_list(state: State, status: str | None, issue: int | None, limit: int, as_json: bool) -> None:
    """Workflows, most recently changed first.

    \b
    Examples:
      mindex workflow list --status running
      mindex workflow list --issue 123 --json
    """
    with state.open(create=True) as index:
        found = _checkpoints(index).workflows(status, issue, limit)
    if as_json:
        emit_json({"workflows": [wf.to_dict() for wf in found]})
        return
    if not found:
        err.print("no workflows" + (f" with status {status}" if status else ""))
    for wf in found:
        _print_workflow(wf, full=False)


def _status_command(name: str, status: str, doc: str) -> None:
    examples = f"\n\n\b\nExamples:\n  mindex workflow {name} wf-123-3fa2c1\n  mindex workflow {name} wf-123-3fa2c1 --json\n"

    @workflow.command(name, help=doc + examples)
    @click.argument("workflow_id", type=TEXT)
    @json_option
    @click.pass_obj
    @handle_errors
    def command(state: State, workflow_id: str, as_json: bool) -> None:
        with state.open(create=True) as index:
            _emit(_checkpoints(index).set_status(workflow_id, status), as_json)


_status_command("complete", "completed", "Mark the workflow completed.")
_status_command("fail", "failed", "Mark the workflow failed (`resume` runs it again, counting a retry).")
_status_command("pause", "paused", "Pause the workflow.")
_status_command("resume", "running", "Set a paused or failed workflow running again (a failed one counts a retry).")


@workflow.command("rollback-plan")
@click.argument("workflow_id", type=TEXT)
@json_option
@click.pass_obj
@handle_errors
def wf_rollback(state: State, workflow_id: str, as_json: bool) -> None:
    """Print the `git revert` commands that undo the workflow's commits, newest first
    (nothing is run).

    \b
    Examples:
      mindex workflow rollback-plan wf-123-3fa2c1
      mindex workflow rollback-plan wf-123-3fa2c1 --json
    """
    with state.open(create=True) as index:
        plan = _checkpoints(index).rollback_plan(workflow_id)
    if as_json:
        emit_json({"workflow": workflow_id, "commands": plan})
    elif not plan:
        err.print("the workflow logged no commits")
    else:
        for line in plan:
            click.echo(visible_controls(line))


def _issues(text: str | None) -> list[int]:
    if not text:
        return []
    try:
        return [int(part.strip().lstrip("#")) for part in text.split(",") if part.strip()]
    except ValueError:
        raise click.BadParameter("give issue numbers separated by commas, e.g. 12,13,14", param_hint="--issues") from None


def _print_milestone(ms: Milestone) -> None:
    out.print(f"[bold]{escape(ms.id)}[/]  {escape(ms.name)}  phase {ms.phase}  {ms.status}", highlight=False)
    for wave, items in sorted(ms.issues.items()):
        out.print(f"  wave {wave}: " + ", ".join(f"#{i}" + (f" ({escape(wf)})" if wf else "") for i, wf in items),
                  highlight=False)
    for b in ms.baselines:
        counts = (f"{b.errors} errors, {b.warnings} warnings" if b.errors is not None
                  else f"{b.lines} lines of output")
        out.print(f"  baseline {b.check}: exit {b.exit_code}, {counts} ({escape(b.tool or 'unknown tool')}, "
                  f"{b.seconds:.1f} s)  {escape(b.command)}", highlight=False)


@click.group()
def milestone() -> None:
    """Groups of issues worked in waves, with a lint and typecheck baseline.

    \b
    Examples:
      mindex milestone create "retry overhaul" --issues 12,13,14 --waves 2
      mindex milestone baseline ms-retry-overhaul-1a2b --lint "ruff check ." --typecheck "mypy"
      mindex milestone show ms-retry-overhaul-1a2b --json
    """


@milestone.command("create")
@click.argument("name", type=TEXT)
@click.option("--issues", metavar="N,N,...", help="Issues in the milestone, in order.")
@click.option("--waves", default=1, show_default=True, type=click.IntRange(1),
              help="Split the issues, in order, into this many waves.")
@click.option("--number", type=click.IntRange(0), help="The forge's milestone number.")
@json_option
@click.pass_obj
@handle_errors
def ms_create(state: State, name: str, issues: str | None, waves: int, number: int | None, as_json: bool) -> None:
    """Create milestone NAME.

    \b
    Examples:
      mindex milestone create "retry overhaul" --issues 12,13,14 --waves 2
    """
    with state.open(create=True) as index:
        ms = _checkpoints(index).create_milestone(name, _issues(issues), waves, number)
    emit_json(ms.to_dict()) if as_json else _print_milestone(ms)


@milestone.command("show")
@click.argument("milestone_id", type=TEXT)
@json_option
@click.pass_obj
@handle_errors
def ms_show(state: State, milestone_id: str, as_json: bool) -> None:
    """A milestone (by id, unique prefix or name): waves, workflows, baselines.

    \b
    Examples:
      mindex milestone show ms-retry-overhaul-1a2b
    """
    with state.open(create=True) as index:
        ms = _checkpoints(index).milestone(milestone_id)
    emit_json(ms.to_dict()) if as_json else _print_milestone(ms)


@milestone.command("list")
@click.option("--status", type=click.Choice(("running", "paused", "completed", "failed")))
@json_option
@click.pass_obj
@handle_errors
def ms_list(state: State, status: str | None, as_json: bool) -> None:
    """Milestones, most recently changed first.

    \b
    Examples:
      mindex milestone list
      mindex milestone list --status running --json
    """
    with state.open(create=True) as index:
        found = _checkpoints(index).milestones(status)
    if as_json:
        emit_json({"milestones": [m.to_dict() for m in found]})
        return
    if not found:
        err.print("no milestones")
    for ms in found:
        _print_milestone(ms)


@milestone.command("set")
@click.argument("milestone_id", type=TEXT)
@click.option("--phase", type=click.Choice(PHASES))
@click.option("--status", type=click.Choice(("running", "paused", "completed", "failed")))
@json_option
@click.pass_obj
@handle_errors
def ms_set(state: State, milestone_id: str, phase: str | None, status: str | None, as_json: bool) -> None:
    """Change a milestone's phase or status.

    \b
    Examples:
      mindex milestone set ms-retry-overhaul-1a2b --phase implement
      mindex milestone set ms-retry-overhaul-1a2b --status completed
    """
    with state.open(create=True) as index:
        ms = _checkpoints(index).set_milestone(milestone_id, phase, status)
    emit_json(ms.to_dict()) if as_json else _print_milestone(ms)


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

    todo = [(name, command) for name, command in (("lint", lint), ("typecheck", typecheck)) if command]
    for item in checks:
        name, sep, command = item.partition("=")
        if not sep or not name.strip() or not command.strip():
            raise WorkflowInputError(f"--check {item!r}: write it as NAME=COMMAND, e.g. test=\"pytest -q\"")
        todo.append((name.strip(), command))
    if not todo:
        raise WorkflowInputError("give at least one of --lint, --typecheck or --check NAME=COMMAND")
    with state.open(create=True) as index:
        checkpoints = _checkpoints(index)
        checkpoints.milestone(milestone_id)  # fail before running anything
        root = find_project_root(Path.cwd())
        rows = []
        for name, command in todo:
            err.print(f"[dim]running {escape(name)}: {escape(command)}[/]", highlight=False)
            rows.append(run_check(name, command, root, timeout))
        ms = checkpoints.add_baseline(milestone_id, rows)
    emit_json(ms.to_dict()) if as_json else _print_milestone(ms)

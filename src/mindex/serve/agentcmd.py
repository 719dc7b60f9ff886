"""Agent commands: `mindex workflow ...`, `mindex milestone ...`, `mindex hook ...` and
`mindex metrics`."""

from __future__ import annotations

import shutil
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from mindex.serve.clikit import TEXT, FiniteRange, State, emit_json, err, handle_errors, json_option, out
from mindex.textsafe import markup_escape as escape, visible_controls

if TYPE_CHECKING:
    from mindex.store.workflows import Checkpoints, Milestone, Workflow
    from mindex.index import Index

PHASES = ("research", "planning", "implement", "review", "finalize", "execute", "merge", "cleanup")


def _checkpoints(index: Index) -> Checkpoints:
    from mindex.store.workflows import Checkpoints

    return Checkpoints(index.store)  # type: ignore[arg-type]


def _when(t: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(t))


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


# -- milestones ----------------------------------------------------------------------------


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


# -- hooks ---------------------------------------------------------------------------------


@click.group()
def hook() -> None:
    """Session hooks for coding agents (Claude Code's hook protocol; any agent can call them).

    Each reads the hook's JSON from stdin (session_id, transcript_path, cwd, ...); with no
    input they work on the current folder. A hook never breaks the agent: on any error it
    prints nothing on stdout, says why on stderr and exits 0.

    \b
    Examples:
      mindex hook session-start < payload.json     # what Claude Code's SessionStart runs
      mindex hook session-start --format text      # the same context as markdown, by hand
      mindex hook pre-compact                      # commits → learnings, and a handoff
    """


def _stdin(wait: float = 2.0) -> str:
    """The hook payload: stdin's text, or "" from a terminal, or when nothing comes within
    `wait` seconds (an agent that leaves stdin open must not hang the hook)."""
    if sys.stdin is None or sys.stdin.isatty():
        return ""
    try:
        import select

        ready, _, _ = select.select([sys.stdin], [], [], wait)
        if not ready:
            return ""
    except (ImportError, OSError, ValueError):  # Windows pipes cannot be selected: just read
        pass
    return sys.stdin.read()


def _run_hook(event: str, fmt: str, budget: int | None) -> None:
    """Everything a hook does, inside the never-fail wrapper."""
    from mindex.agents import hooks
    from mindex.config import DB_NAME, STATE_DIR, find_project_root, load_settings

    started = time.perf_counter()
    raw = _stdin()
    payload = hooks.read_payload(raw)
    cwd = hooks.cwd_of(payload)
    settings = load_settings(cwd=cwd)
    conf = settings.agents
    where = hooks.situation(cwd, conf.issue_pattern)
    root = find_project_root(where.root or cwd)
    db = settings.db or root / STATE_DIR / DB_NAME
    session = payload.get("session_id") if isinstance(payload.get("session_id"), str) else None
    if event == "session-start":
        if not Path(db).exists():
            return  # nothing saved yet here: nothing to say
    elif where.root is None and not Path(db).exists():
        return  # outside git with no index: nothing to capture
    from mindex.errors import IndexLockedError
    from mindex.index import Index

    index_settings = replace(settings.index, lock_timeout=conf.hook_lock_timeout)
    with Index(db, index_settings, embed=settings.embed, search=settings.search, memory=settings.memory) as index:
        if event == "session-start":
            result = hooks.session_start(index, where, budget or conf.budget, session)
            text = result["markdown"]
            if fmt == "json" or (fmt == "auto" and payload.get("hook_event_name")):
                emit_json({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}})
            else:
                click.echo(visible_controls(text), nl=False)
        else:
            path = payload.get("transcript_path")
            transcript = path if isinstance(path, str) else None
            try:
                added = hooks.capture(index, where, session, event, transcript)
            except IndexLockedError:  # an indexer holds it: the handoff goes to the journal alone
                added = hooks.handoff_only(index, where, session, event)
            if fmt == "json":
                emit_json({"event": event, **added})
            print(f"mindex {event}: {added['learnings']} learnings, {added['mistakes']} mistakes from "
                  f"{added['commits']} new commits" + (f", handoff {added['handoff']}" if added["handoff"] else "")
                  + (" (to the journal only: an indexer holds the index; the next run indexes it)"
                     if added.get("deferred") else "")
                  + f" ({(time.perf_counter() - started) * 1000:.0f} ms)", file=sys.stderr)


def _hook_command(event: str, doc: str) -> None:
    examples = (f"\n\n\b\nExamples:\n  mindex hook {event} --format text\n"
                f"  echo '{{\"session_id\": \"s1\", \"cwd\": \".\"}}' | mindex hook {event} --format json\n")

    @hook.command(event, help=doc + examples)
    @click.option("--format", "fmt", type=click.Choice(("auto", "json", "text")), default="auto", show_default=True,
                  help="auto: Claude Code's JSON when the input is a hook payload, else text.")
    @click.option("--budget", type=click.IntRange(100), help="Tokens to inject (default agents.budget, 1500).")
    def command(fmt: str, budget: int | None) -> None:
        try:
            _run_hook(event, fmt, budget)
        except Exception as exc:  # a hook must never break the agent: stderr only, exit 0
            print(f"mindex hook {event}: skipped: {type(exc).__name__}: {exc}", file=sys.stderr)
        sys.exit(0)


_hook_command("session-start", "Context for a starting, resumed or compacted session: the active workflow, the "
                               "knowledge for the files in flight and the issue, the latest handoff.")
_hook_command("pre-compact", "Before compaction: the session's new conventional commits become learnings "
                             "(fix: mistake + learning), and a handoff memory records where the work stands.")
_hook_command("session-end", "At the end of a session: the same as pre-compact.")


# -- metrics -------------------------------------------------------------------------------


@click.command("metrics")
@click.option("-n", "--limit", default=20, show_default=True, type=click.IntRange(1, 10000))
@json_option
@click.pass_obj
@handle_errors
def metrics(state: State, limit: int, as_json: bool) -> None:
    """Per-session metrics the hooks recorded (files read, compactions, learnings injected
    and captured) and, when agents.query_log is on, the query log by kind.

    \b
    Examples:
      mindex metrics -n 5
      mindex config set agents.query_log true && mindex metrics --json
    """
    with state.open(create=True) as index:
        store = index.store
        sessions = store.sessions(limit)
        queries = store.query_stats()
    keys = ("session", "branch", "issue", "workflow", "started_at", "files_read", "compacted", "injected", "captured",
            "ended_at")
    rows: list[dict[str, Any]] = [dict(zip(keys, r, strict=True)) for r in sessions]
    qrows = [{"kind": k, "count": n, "avg_results": round(r or 0, 1), "avg_ms": round(a or 0, 2),
              "max_ms": round(m or 0, 2)} for k, n, r, a, m in queries]
    if as_json:
        emit_json({"sessions": rows, "queries": qrows})
        return
    if not rows and not qrows:
        err.print("no sessions recorded yet (the hooks record them) and no queries logged "
                  "(`mindex config set agents.query_log true`)")
    for r in rows:
        out.print(f"{escape(r['session'])}  {_when(r['started_at'])}  {escape(r['branch'] or '-')}  "
                  f"read {r['files_read']}, compacted {r['compacted']}, injected {r['injected']}, "
                  f"captured {r['captured']}", highlight=False)
    for q in qrows:
        out.print(f"{q['kind']}: {q['count']} queries, {q['avg_results']} results and {q['avg_ms']} ms on average",
                  highlight=False)


# -- set-up ------------------------------------------------------------------------------------

CLIENT_NAMES = ("claude-code", "cursor", "codex", "vscode", "claude-desktop")


def _scope(project_flag: bool, user_flag: bool, client: str) -> str:
    if project_flag and user_flag:
        raise click.UsageError("give --project or --user, not both")
    if user_flag or (client == "claude-desktop" and not project_flag):
        return "user"  # Claude Desktop has user settings only (--project is refused with why)
    return "project"


def _setup(client: str, project_flag: bool, user_flag: bool, dry_run: bool, as_json: bool, remove: bool) -> None:
    from mindex.agents import install
    from mindex.config import find_project_root

    scope = _scope(project_flag, user_flag, client)
    project = find_project_root(Path.cwd())
    changes = install.plan(client, scope, project, remove=remove)
    backups = [] if dry_run else install.apply(changes)
    verb = "uninstall" if remove else "install"
    if as_json:
        emit_json({"client": client, "scope": scope, "dry_run": dry_run, "command": install.command_for(scope),
                   "changes": [c.to_dict() for c in changes], "backups": [str(b) for b in backups],
                   **({"diff": "".join(c.diff() for c in changes)} if dry_run else {})})
        return
    for change in changes:
        if dry_run:
            click.echo(change.diff() or f"# {change.path}: unchanged", nl=not change.diff())
        else:
            state = change.to_dict()["action"]
            err.print(f"{escape(str(change.path))}: {state} ({escape(change.what)})", highlight=False)
    if not dry_run:
        for backup in backups:
            err.print(f"[dim]backup: {escape(str(backup))}[/]", highlight=False)
        if not any(c.changed for c in changes):
            err.print(f"nothing to {verb}: {client} ({scope}) is already {'without' if remove else 'set up with'} mindex")
        elif not remove:
            err.print(f"{client} now starts `mindex serve`" + (" and runs the session hooks" if client == "claude-code"
                                                                else "") + "; restart it to pick this up")
            if scope == "project" and shutil.which(install.NAME) is None:
                err.print(f"[yellow]note[/]: `{install.NAME}` is not on PATH here, and these project files run it by "
                          "that name: install mindex as a tool (`pipx install <checkout or wheel>` or `uv tool install "
                          "<checkout or wheel>`), or use --user, which writes this environment's absolute path",
                          highlight=False)


def _setup_command(name: str, remove: bool, doc: str) -> click.Command:
    @click.command(name, help=doc)
    @click.argument("client", type=click.Choice(CLIENT_NAMES))
    @click.option("--project", "project_flag", is_flag=True, help="This project's files (the default).")
    @click.option("--user", "user_flag", is_flag=True, help="Your user-wide files.")
    @click.option("--dry-run", is_flag=True, help="Print the diff; change nothing.")
    @json_option
    @handle_errors
    def command(client: str, project_flag: bool, user_flag: bool, dry_run: bool, as_json: bool) -> None:
        _setup(client, project_flag, user_flag, dry_run, as_json, remove)

    return command


install = _setup_command("install", False, """Set up an agent to use mindex: its MCP server entry and, for Claude Code, the
    session hooks (SessionStart, PreCompact, SessionEnd). Merges with what is there, backs
    each file up first, and changes nothing when it is already set up.

    \b
    Examples:
      mindex install claude-code                 # .mcp.json and .claude/settings.json here
      mindex install cursor --user               # ~/.cursor/mcp.json
      mindex install codex --dry-run             # show the diff of .codex/config.toml
      mindex install vscode ;  mindex install claude-desktop
    """)
uninstall = _setup_command("uninstall", True, """Remove what `mindex install` added for an agent (its server entry and mindex's hook
    handlers), leaving everything else; backs each file up first.

    \b
    Examples:
      mindex uninstall claude-code
      mindex uninstall codex --user --dry-run
    """)


@click.command("doctor")
@click.option("--no-hook-timing", is_flag=True, help="Skip timing the session-start hook.")
@json_option
@click.pass_obj
@handle_errors
def doctor(state: State, no_hook_timing: bool, as_json: bool) -> None:
    """Check what an agent needs: the index and its schema, the model, each source and how
    stale it is, the agents set up here and the command they run, the session-start hook's
    time. Exit code 1 when a check fails.

    \b
    Examples:
      mindex doctor
      mindex doctor --json
    """
    from mindex.agents import doctor as checks
    from mindex.config import find_project_root

    found = checks.run(state.db, find_project_root(Path.cwd()), state.settings, not no_hook_timing)
    if as_json:
        emit_json({"ok": all(c["status"] != "fail" for c in found), "checks": found})
    else:
        marks = {"ok": "[green]ok  [/]", "warn": "[yellow]warn[/]", "fail": "[red]fail[/]"}
        for c in found:
            out.print(f"{marks[c['status']]} {escape(c['check'])}: {escape(c['detail'])}"
                      + (f"\n       → {escape(c['hint'])}" if c["hint"] else ""), highlight=False)
    if any(c["status"] == "fail" for c in found):
        sys.exit(1)

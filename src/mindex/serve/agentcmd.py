"""Agent commands: `mindex hook ...`, `mindex metrics`, `mindex install`/`uninstall` and
`mindex doctor` (workflows and milestones: `workflowcmd`)."""

from __future__ import annotations

import shutil
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from mindex.serve.words import local_time as _when
from mindex.serve.clikit import State, emit_json, err, handle_errors, json_option, out
from mindex.textsafe import markup_escape as escape, visible_controls

if TYPE_CHECKING:
    pass


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


@click.command("metrics")
@click.option("-n", "--limit", default=20, show_default=True, type=click.IntRange(1, 10000))
@json_option
@click.pass_obj
@handle_errors
def metrics(state: State, limit: int, as_json: bool) -> None:
    """Per-session metrics the hooks recorded (files read, compactions, learnings injected
    and captured, its minutes, the review findings its workflow logged) and, when
    agents.query_log is on, the query log by kind.

    Review findings are the workflow actions named `review...` logged during the session,
    e.g. `mindex workflow log-action WF review failed --meta '{"finding": "no cap on 404"}'`.

    \b
    Examples:
      mindex metrics -n 5
      mindex config set agents.query_log true && mindex metrics --json
    """
    import time

    from mindex.errors import NotFoundError
    from mindex.store.workflows import Checkpoints

    keys = ("session", "branch", "issue", "workflow", "started_at", "files_read", "compacted", "injected", "captured",
            "ended_at")
    with state.open(create=True) as index:
        store = index.store
        rows: list[dict[str, Any]] = [dict(zip(keys, r, strict=True)) for r in store.sessions(limit)]
        queries = store.query_stats()
        checkpoints = Checkpoints(store)  # type: ignore[arg-type]
        for r in rows:
            until = r["ended_at"] or time.time()
            r["minutes"] = round((until - r["started_at"]) / 60, 1)
            try:
                actions = checkpoints.get(r["workflow"], actions=10_000).actions if r["workflow"] else []
            except NotFoundError:
                actions = []
            r["review_findings"] = [{"action": a.action, "result": a.result, **(a.metadata or {})} for a in actions
                                    if a.action.startswith("review") and r["started_at"] <= a.at <= until]
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
                  f"{r['minutes']:g} min, read {r['files_read']}, compacted {r['compacted']}, injected "
                  f"{r['injected']}, captured {r['captured']}, review findings {len(r['review_findings'])}",
                  highlight=False)
    for q in qrows:
        out.print(f"{q['kind']}: {q['count']} queries, {q['avg_results']} results and {q['avg_ms']} ms on average",
                  highlight=False)


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

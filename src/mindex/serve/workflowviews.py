"""How the workflow and milestone operations (`mindex.ops.workflows`) look: lines for the
terminal, markdown for an agent."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from mindex.serve.words import local_time
from mindex.textsafe import markup_escape as escape, visible_controls

if TYPE_CHECKING:
    from rich.console import Console

    from mindex.ops.workflows import Milestones, OneWorkflow, RollbackPlan, Workflows
    from mindex.serve.opscli import View
    from mindex.store.workflows import Milestone, Workflow


def _print_one(console: Console, wf: Workflow, full: bool = True) -> None:
    note = "  (resumed: it was already " + wf.status + ")" if wf.resumed else ""
    console.print(f"[bold]{escape(wf.id)}[/]  issue #{wf.issue}  {escape(wf.branch)}  phase [bold]{wf.phase}[/]  "
                  f"{wf.status}" + (f"  retries {wf.retries}" if wf.retries else "") + escape(note), highlight=False)
    if not full:
        return
    if wf.worktree:
        console.print(f"  worktree {escape(wf.worktree)}", highlight=False)
    for a in wf.actions:
        console.print(f"  {local_time(a.at)}  {escape(a.action)} → {a.result}"
                      + (f"  {escape(str(a.metadata))}" if a.metadata else ""), highlight=False)
    for c in wf.commits:
        console.print(f"  commit {c.sha[:12]}  {escape(c.message.splitlines()[0] if c.message else '')}",
                      highlight=False)


def print_workflow(console: Console, result: OneWorkflow, view: View) -> None:
    """The workflow's line, worktree, actions and commits."""
    if result.workflow is not None:
        _print_one(console, result.workflow)


def print_workflows(console: Console, result: Workflows, view: View) -> None:
    """A line per workflow."""
    if not result.workflows:
        view.err.print("no workflows" + (f" with status {result.status}" if result.status else ""))
    for wf in result.workflows:
        _print_one(console, wf, full=False)


def _markdown(wf: dict[str, Any] | None) -> str:
    if wf is None:
        return "no workflow"
    lines = [f"**{wf['id']}** · issue #{wf['issue']} · {wf['branch']} · phase **{wf['phase']}** · {wf['status']}"
             + (f" · {wf['retries']} retries" if wf["retries"] else "") + (" · resumed" if wf.get("resumed") else "")]
    lines += [f"- {a['at'][:16]} {a['action']} → {a['result']}" for a in wf["actions"][-10:]]
    lines += [f"- commit {c['sha'][:12]} {c['message'].splitlines()[0] if c['message'] else ''}" for c in wf["commits"]]
    return "\n".join(lines)


def workflow_markdown(result: OneWorkflow, budget: int) -> str:
    """The workflow's line, its last ten actions and its commits."""
    return _markdown(result.structured()["workflow"])


def workflows_markdown(result: Workflows, budget: int) -> str:
    """A line per workflow."""
    return "\n".join(_markdown(wf.to_dict()).split("\n")[0] for wf in result.workflows) or "no workflows"


def print_plan(console: Console, result: RollbackPlan, view: View) -> None:
    """The revert commands, one a line, as text a shell can take."""
    import click

    if not result.commands:
        view.err.print("the workflow logged no commits")
    for line in result.commands:
        click.echo(visible_controls(line))


def plan_markdown(result: RollbackPlan, budget: int) -> str:
    return "\n".join(result.commands) or "the workflow logged no commits"


def print_milestone(console: Console, ms: Milestone) -> None:
    """A milestone's line, its waves and its baselines."""
    console.print(f"[bold]{escape(ms.id)}[/]  {escape(ms.name)}  phase {ms.phase}  {ms.status}", highlight=False)
    for wave, items in sorted(ms.issues.items()):
        console.print(f"  wave {wave}: " + ", ".join(f"#{i}" + (f" ({escape(wf)})" if wf else "") for i, wf in items),
                      highlight=False)
    for b in ms.baselines:
        counts = (f"{b.errors} errors, {b.warnings} warnings" if b.errors is not None
                  else f"{b.lines} lines of output")
        console.print(f"  baseline {b.check}: exit {b.exit_code}, {counts} ({escape(b.tool or 'unknown tool')}, "
                      f"{b.seconds:.1f} s)  {escape(b.command)}", highlight=False)


def print_milestones(console: Console, result: Milestones, view: View) -> None:
    """Each milestone; "no milestones" on stderr for an empty list."""
    if not result.milestones and not result.one:
        view.err.print("no milestones")
    for ms in result.milestones:
        print_milestone(console, ms)


def created_milestone_markdown(result: Milestones, budget: int) -> str:
    ms = result.milestones[0].to_dict()
    return f"created {ms['id']}: " + "; ".join(
        f"wave {w['wave']}: " + ", ".join(f"#{i['issue']}" for i in w["issues"]) for w in ms["waves"])


def milestone_markdown(result: Milestones, budget: int) -> str:
    return json.dumps(result.milestones[0].to_dict(), indent=1)


def milestones_markdown(result: Milestones, budget: int) -> str:
    return "\n".join(f"{m.id} · {m.name} · {m.phase} · {m.status}" for m in result.milestones) or "no milestones"

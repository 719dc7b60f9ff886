"""MCP tools over workflow checkpoints and milestones."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult
from pydantic import BaseModel, Field

from mindex.index import Index
from mindex.serve.mcp_core import _Core, _Limit, _result


class WorkflowOut(BaseModel):
    """A workflow checkpoint: issue, branch, phase, status, retries, actions and commits."""

    workflow: dict[str, Any] | None


class WorkflowsOut(BaseModel):
    """Workflows or milestones, most recently changed first (rollback: git revert commands)."""

    results: list[dict[str, Any]]


def _workflow_markdown(wf: dict[str, Any] | None) -> str:
    if wf is None:
        return "no workflow"
    lines = [f"**{wf['id']}** · issue #{wf['issue']} · {wf['branch']} · phase **{wf['phase']}** · {wf['status']}"
             + (f" · {wf['retries']} retries" if wf["retries"] else "") + (" · resumed" if wf.get("resumed") else "")]
    lines += [f"- {a['at'][:16]} {a['action']} → {a['result']}" for a in wf["actions"][-10:]]
    lines += [f"- commit {c['sha'][:12]} {c['message'].splitlines()[0] if c['message'] else ''}" for c in wf["commits"]]
    return "\n".join(lines)


_Phase = Annotated[Literal["research", "planning", "implement", "review", "finalize", "execute", "merge", "cleanup"],
                   Field(description="the workflow phase")]
_WorkflowId = Annotated[str, Field(description="the workflow's id (or a unique prefix), e.g. wf-123-3fa2c1")]


def register_workflow_tools(server: MCPServer, core: _Core) -> None:
    """workflow_create, workflow_find, workflow_set_phase, workflow_log_action,
    workflow_log_commit, workflow_list, workflow_set_status, workflow_rollback_plan,
    milestone_create, milestone_show, milestone_list. Baselines run shell commands, so
    they stay on the command line (`mindex milestone baseline`), not over MCP."""
    from mindex.store.workflows import Checkpoints

    def cp(ix: Index) -> Checkpoints:
        return Checkpoints(ix.store)  # type: ignore[arg-type]

    def one(wf: Any) -> CallToolResult:
        data = wf.to_dict() if wf is not None else None
        return _result(_workflow_markdown(data), WorkflowOut(workflow=data))

    @server.tool()
    async def workflow_create(
        issue: Annotated[int, Field(ge=0, description="the issue number")],
        branch: Annotated[str, Field(description="the branch the work happens on")],
        worktree: Annotated[str | None, Field(description="the git worktree, if not the main one")] = None,
        phase: _Phase = "research",
    ) -> Annotated[CallToolResult, WorkflowOut]:
        """Start tracking work on an issue, or get back the running or paused workflow for
        that issue and branch (then `resumed` is true): call it first when you take an issue."""
        return one(await core.call(lambda ix: cp(ix).create(issue, branch, worktree, phase), create=True))

    @server.tool()
    async def workflow_find(
        issue: Annotated[int, Field(ge=0, description="the issue number")],
    ) -> Annotated[CallToolResult, WorkflowOut]:
        """The workflow to resume for an issue (the latest running or paused one, else the
        latest) with its phase, last actions and commits; workflow null when there is none."""
        return one(await core.call(lambda ix: cp(ix).find(issue), create=True))

    @server.tool()
    async def workflow_set_phase(id: _WorkflowId, phase: _Phase) -> Annotated[CallToolResult, WorkflowOut]:
        """Move a workflow to its next phase (research, planning, implement, review, finalize,
        execute, merge, cleanup), so a compacted or restarted session resumes there."""
        return one(await core.call(lambda ix: cp(ix).set_phase(id, phase), create=True))

    @server.tool()
    async def workflow_log_action(
        id: _WorkflowId,
        action: Annotated[str, Field(description="what was done, e.g. 'ran tests'")],
        result: Annotated[Literal["success", "failed", "pending"], Field(description="how it went")],
        metadata: Annotated[dict[str, Any] | None, Field(description="any details, as an object")] = None,
    ) -> Annotated[CallToolResult, WorkflowOut]:
        """Add an action to the workflow's audit log (what you did and how it went, with any
        details as an object), so a later session sees what was already tried and its result."""
        return one(await core.call(lambda ix: cp(ix).log_action(id, action, result, metadata), create=True))

    @server.tool()
    async def workflow_log_commit(
        id: _WorkflowId,
        sha: Annotated[str, Field(description="the commit id")],
        message: Annotated[str, Field(description="the commit message")],
    ) -> Annotated[CallToolResult, WorkflowOut]:
        """Record a commit the workflow made, right after you make it, so the next session
        sees what is already done and the work can be rolled back (workflow_rollback_plan)."""
        return one(await core.call(lambda ix: cp(ix).log_commit(id, sha, message), create=True))

    @server.tool()
    async def workflow_set_status(
        id: _WorkflowId,
        status: Annotated[Literal["running", "paused", "completed", "failed"],
                          Field(description="completed or failed when done; running resumes (a failed one counts a retry)")],
    ) -> Annotated[CallToolResult, WorkflowOut]:
        """Complete a workflow when its issue is done, fail it when it cannot go on, pause it,
        or set a paused or failed one running again (a failed one then counts a retry)."""
        return one(await core.call(lambda ix: cp(ix).set_status(id, status), create=True))

    @server.tool()
    async def workflow_list(
        status: Annotated[Literal["running", "paused", "completed", "failed"] | None,
                          Field(description="only workflows with this status")] = None,
        limit: _Limit = 20,
    ) -> Annotated[CallToolResult, WorkflowsOut]:
        """Workflows, most recently changed first, optionally only those with a status
        (running ones are the work in progress): id, issue, branch, phase, status, retries."""
        found = [wf.to_dict() for wf in await core.call(lambda ix: cp(ix).workflows(status, None, limit), create=True)]
        return _result("\n".join(_workflow_markdown(wf).split("\n")[0] for wf in found) or "no workflows",
                       WorkflowsOut(results=found))

    @server.tool()
    async def workflow_rollback_plan(id: _WorkflowId) -> Annotated[CallToolResult, WorkflowsOut]:
        """The git revert commands that undo the workflow's commits, newest first. Nothing is
        run: review them, then run them yourself."""
        plan = await core.call(lambda ix: cp(ix).rollback_plan(id), create=True)
        return _result("\n".join(plan) or "the workflow logged no commits",
                       WorkflowsOut(results=[{"command": line} for line in plan]))

    @server.tool()
    async def milestone_create(
        name: Annotated[str, Field(description="the milestone's name")],
        issues: Annotated[list[int], Field(description="its issues, in order")],
        waves: Annotated[int, Field(ge=1, description="split the issues, in order, into this many waves")] = 1,
    ) -> Annotated[CallToolResult, WorkflowsOut]:
        """Group issues into a milestone worked in waves: the issues, in order, are split into
        that many waves; each issue's workflow is linked when it exists or is created."""
        ms = await core.call(lambda ix: cp(ix).create_milestone(name, issues, waves).to_dict(), create=True)
        return _result(f"created {ms['id']}: " + "; ".join(
            f"wave {w['wave']}: " + ", ".join(f"#{i['issue']}" for i in w["issues"]) for w in ms["waves"]),
            WorkflowsOut(results=[ms]))

    @server.tool()
    async def milestone_show(
        id: Annotated[str, Field(description="the milestone's id, unique prefix or name")],
    ) -> Annotated[CallToolResult, WorkflowsOut]:
        """A milestone's waves, the workflow of each issue (phase and status), and its lint and
        typecheck baselines (exit codes, error and warning counts) to compare your changes with."""
        ms = await core.call(lambda ix: cp(ix).milestone(id).to_dict(), create=True)
        return _result(json.dumps(ms, indent=1), WorkflowsOut(results=[ms]))

    @server.tool()
    async def milestone_list(
        status: Annotated[Literal["running", "paused", "completed", "failed"] | None,
                          Field(description="only milestones with this status")] = None,
    ) -> Annotated[CallToolResult, WorkflowsOut]:
        """Milestones, most recently changed first, optionally only those with a status: each
        with its waves of issues, the workflows linked to them, and its baselines."""
        found = await core.call(lambda ix: [m.to_dict() for m in cp(ix).milestones(status)], create=True)
        return _result("\n".join(f"{m['id']} · {m['name']} · {m['phase']} · {m['status']}" for m in found)
                       or "no milestones", WorkflowsOut(results=found))

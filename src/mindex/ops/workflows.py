"""Operations on workflow checkpoints (an agent's work on an issue: phase, status, actions,
commits) and milestones (issues worked in waves)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from mindex.ops import Operation, Param

if TYPE_CHECKING:
    from mindex.engine import Engine
    from mindex.store.workflows import Checkpoints, Milestone, Workflow

PHASES = ("research", "planning", "implement", "review", "finalize", "execute", "merge", "cleanup")
STATUSES = ("running", "paused", "completed", "failed")


class OneWorkflow(NamedTuple):
    """A workflow with its actions and commits (None: none found)."""

    workflow: Workflow | None

    def to_dict(self) -> dict[str, Any]:
        return self.workflow.to_dict() if self.workflow is not None else {}

    def structured(self) -> dict[str, Any]:
        return {"workflow": self.workflow.to_dict() if self.workflow is not None else None}


class Workflows(NamedTuple):
    """Workflows, most recently changed first; `status` the filter asked for."""

    workflows: list[Workflow]
    status: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"workflows": [wf.to_dict() for wf in self.workflows]}

    def structured(self) -> dict[str, Any]:
        return {"results": [wf.to_dict() for wf in self.workflows]}


class RollbackPlan(NamedTuple):
    """The `git revert` commands that undo a workflow's commits, newest first."""

    workflow: str
    commands: list[str]

    def to_dict(self) -> dict[str, Any]:
        return {"workflow": self.workflow, "commands": self.commands}

    def structured(self) -> dict[str, Any]:
        return {"results": [{"command": line} for line in self.commands]}


class Milestones(NamedTuple):
    """Milestones (one, for create, show and set)."""

    milestones: list[Milestone]
    one: bool = False

    def to_dict(self) -> dict[str, Any]:
        if self.one:
            return self.milestones[0].to_dict()
        return {"milestones": [m.to_dict() for m in self.milestones]}

    def structured(self) -> dict[str, Any]:
        return {"results": [m.to_dict() for m in self.milestones]}


def _checkpoints(index: Engine) -> Checkpoints:
    from mindex.store.workflows import Checkpoints

    return Checkpoints(index.store)  # type: ignore[arg-type]


def create(index: Engine, issue: int, branch: str, worktree: str | None = None, phase: str = "research") -> OneWorkflow:
    return OneWorkflow(_checkpoints(index).create(issue, branch, worktree, phase))


def find(index: Engine, issue: int) -> OneWorkflow:
    return OneWorkflow(_checkpoints(index).find(issue))


def show(index: Engine, id: str) -> OneWorkflow:
    return OneWorkflow(_checkpoints(index).get(id, actions=1000))


def set_phase(index: Engine, id: str, phase: str) -> OneWorkflow:
    return OneWorkflow(_checkpoints(index).set_phase(id, phase))


def log_action(index: Engine, id: str, action: str, result: str,
               metadata: dict[str, Any] | str | None = None) -> OneWorkflow:
    """Add an action; `metadata` an object, or its JSON text (the command line's `--meta`)."""
    from mindex.store.workflows import parse_metadata

    details = parse_metadata(metadata) if isinstance(metadata, str) else metadata
    return OneWorkflow(_checkpoints(index).log_action(id, action, result, details))


def log_commit(index: Engine, id: str, sha: str, message: str) -> OneWorkflow:
    return OneWorkflow(_checkpoints(index).log_commit(id, sha, message))


def set_status(index: Engine, id: str, status: str) -> OneWorkflow:
    return OneWorkflow(_checkpoints(index).set_status(id, status))


def complete(index: Engine, id: str) -> OneWorkflow:
    return set_status(index, id, "completed")


def fail(index: Engine, id: str) -> OneWorkflow:
    return set_status(index, id, "failed")


def pause(index: Engine, id: str) -> OneWorkflow:
    return set_status(index, id, "paused")


def resume(index: Engine, id: str) -> OneWorkflow:
    return set_status(index, id, "running")


def list_workflows(index: Engine, status: str | None = None, issue: int | None = None, limit: int = 50) -> Workflows:
    return Workflows(_checkpoints(index).workflows(status, issue, limit), status)


def rollback_plan(index: Engine, id: str) -> RollbackPlan:
    return RollbackPlan(id, _checkpoints(index).rollback_plan(id))


def create_milestone(index: Engine, name: str, issues: tuple[int, ...] = (), waves: int = 1,
                     number: int | None = None) -> Milestones:
    return Milestones([_checkpoints(index).create_milestone(name, list(issues), waves, number)], one=True)


def show_milestone(index: Engine, id: str) -> Milestones:
    return Milestones([_checkpoints(index).milestone(id)], one=True)


def list_milestones(index: Engine, status: str | None = None) -> Milestones:
    return Milestones(_checkpoints(index).milestones(status))


def set_milestone(index: Engine, id: str, phase: str | None = None, status: str | None = None) -> Milestones:
    return Milestones([_checkpoints(index).set_milestone(id, phase, status)], one=True)



_HERE = "mindex.ops.workflows"
_VIEWS = "mindex.serve.workflowviews"
_ID = Param("id", str, "The workflow's id (or a unique prefix), e.g. wf-123-3fa2c1.", argument=True,
            metavar="WORKFLOW_ID", agent_help="the workflow's id (or a unique prefix), e.g. wf-123-3fa2c1")
_ISSUE = Param("issue", int, "The issue number.", argument=True, ge=0, agent_help="the issue number")
_PHASE = Param("phase", str, "The workflow phase.", argument=True, choices=PHASES, agent_help="the workflow phase")
_MILESTONE = Param("id", str, "The milestone's id, unique prefix or name.", argument=True, metavar="MILESTONE_ID",
                   agent_help="the milestone's id, unique prefix or name")


def _workflow(name: str, tool: str, help: str, agent_help: str, **more: Any) -> Operation:
    """A workflow operation: under `mindex workflow`, one workflow back."""
    defaults: dict[str, Any] = {
        "run": f"{_HERE}:{name.replace('-', '_')}", "markdown": f"{_VIEWS}:workflow_markdown",
        "text": f"{_VIEWS}:print_workflow", "schema": "mindex.serve.mcp_models:WorkflowOut",
        "writes": True, "creates": True}
    return Operation(name=name, tool=tool, cli=("workflow", name), help=help, agent_help=agent_help,
                     **{**defaults, **more})


def _milestone(name: str, tool: str, help: str, agent_help: str, **more: Any) -> Operation:
    """A milestone operation: under `mindex milestone`."""
    defaults: dict[str, Any] = {
        "run": f"{_HERE}:{name}_milestone", "markdown": f"{_VIEWS}:milestone_markdown",
        "text": f"{_VIEWS}:print_milestones", "schema": "mindex.serve.mcp_models:WorkflowsOut",
        "creates": True}
    return Operation(name=name, tool=tool, cli=("milestone", name), help=help, agent_help=agent_help,
                     **{**defaults, **more})


def _status(name: str, doc: str) -> Operation:
    return _workflow(name, f"workflow_{name}", doc, doc, faces=("cli", "web"), params=(_ID,),
                     examples=(f"mindex workflow {name} wf-123-3fa2c1", f"mindex workflow {name} wf-123-3fa2c1 --json"))


OPERATIONS = (
    _workflow(
        "create", "workflow_create",
        "Start a workflow for ISSUE on BRANCH (or return the running or paused one for them).",
        "Start tracking work on an issue, or get back the running or paused workflow for that issue and branch "
        "(then `resumed` is true): call it first when you take an issue.",
        params=(_ISSUE,
                Param("branch", str, "The branch the work happens on.", argument=True,
                      agent_help="the branch the work happens on"),
                Param("worktree", str, "The git worktree the work happens in.", default=None, metavar="PATH",
                      agent_help="the git worktree, if not the main one"),
                Param("phase", str, "The phase to start in.", default="research", choices=PHASES,
                      agent_help="the workflow phase")),
        examples=("mindex workflow create 123 feat/123-retry",
                  "mindex workflow create 123 feat/123-retry --phase implement --json")),
    _workflow(
        "find", "workflow_find",
        "The workflow to resume for ISSUE: the latest running or paused one, else the latest. Exit code 3 when there "
        "is none.",
        "The workflow to resume for an issue (the latest running or paused one, else the latest) with its phase, "
        "last actions and commits; workflow null when there is none.",
        writes=False, missing="workflow",
        none_error="no workflow for issue #{issue}; start one with `mindex workflow create {issue} BRANCH`",
        params=(_ISSUE,),
        examples=("mindex workflow find 123", "mindex workflow find 123 --json | jq -r .id")),
    _workflow(
        "show", "workflow_show", "One workflow (by id or a unique prefix) with its actions and commits.",
        "One workflow (by id or a unique prefix) with all its actions and commits.",
        writes=False, faces=("cli", "web"), params=(_ID,),
        examples=("mindex workflow show wf-123-3fa2c1",)),
    _workflow(
        "set-phase", "workflow_set_phase",
        "Move a running or paused workflow to PHASE (logged as an action).",
        "Move a workflow to its next phase (research, planning, implement, review, finalize, execute, merge, "
        "cleanup), so a compacted or restarted session resumes there.",
        params=(_ID, _PHASE),
        examples=("mindex workflow set-phase wf-123-3fa2c1 implement",)),
    _workflow(
        "log-action", "workflow_log_action",
        "Add ACTION with its RESULT to the workflow's audit log.",
        "Add an action to the workflow's audit log (what you did and how it went, with any details as an object), "
        "so a later session sees what was already tried and its result.",
        params=(_ID,
                Param("action", str, "What was done.", argument=True, agent_help="what was done, e.g. 'ran tests'"),
                Param("result", str, "How it went.", argument=True, choices=("success", "failed", "pending"),
                      agent_help="how it went"),
                Param("metadata", dict, "A JSON object stored with the action.", default=None, flags=("--meta",),
                      metavar="JSON", agent_help="any details, as an object")),
        examples=("mindex workflow log-action wf-123-3fa2c1 \"ran tests\" success --meta '{\"passed\": 40}'",)),
    _workflow(
        "log-commit", "workflow_log_commit",
        "Record a commit the workflow made (kept for `rollback-plan`).",
        "Record a commit the workflow made, right after you make it, so the next session sees what is already done "
        "and the work can be rolled back (workflow_rollback_plan).",
        params=(_ID, Param("sha", str, "The commit id.", argument=True, agent_help="the commit id"),
                Param("message", str, "The commit message.", argument=True, agent_help="the commit message")),
        examples=("mindex workflow log-commit wf-123-3fa2c1 3fa2c1d \"feat(http): retry with jitter\"",)),
    _workflow(
        "set-status", "workflow_set_status",
        "Set the workflow's STATUS: completed or failed when done, paused, or running again (a failed one then "
        "counts a retry).",
        "Complete a workflow when its issue is done, fail it when it cannot go on, pause it, or set a paused or "
        "failed one running again (a failed one then counts a retry).",
        params=(_ID, Param("status", str, "The new status.", argument=True, choices=STATUSES,
                           agent_help="completed or failed when done; running resumes (a failed one counts a retry)")),
        examples=("mindex workflow set-status wf-123-3fa2c1 completed",)),
    _status("complete", "Mark the workflow completed."),
    _status("fail", "Mark the workflow failed (`resume` runs it again, counting a retry)."),
    _status("pause", "Pause the workflow."),
    _status("resume", "Set a paused or failed workflow running again (a failed one counts a retry)."),
    _workflow(
        "list", "workflow_list",
        "Workflows, most recently changed first.",
        "Workflows, most recently changed first, optionally only those with a status (running ones are the work in "
        "progress): id, issue, branch, phase, status, retries.",
        run=f"{_HERE}:list_workflows", writes=False, text=f"{_VIEWS}:print_workflows",
        markdown=f"{_VIEWS}:workflows_markdown", schema="mindex.serve.mcp_models:WorkflowsOut",
        params=(Param("status", str, "Only workflows with this status.", default=None, choices=STATUSES,
                      agent_help="only workflows with this status"),
                Param("issue", int, "Only workflows of this issue.", default=None, ge=0,
                      agent_help="only workflows of this issue"),
                Param("limit", int, "How many.", default=50, agent_default=20, ge=1, le=10000,
                      flags=("-n", "--limit"), agent_help="how many results")),
        examples=("mindex workflow list --status running", "mindex workflow list --issue 123 --json")),
    _workflow(
        "rollback-plan", "workflow_rollback_plan",
        "Print the `git revert` commands that undo the workflow's commits, newest first (nothing is run).",
        "The git revert commands that undo the workflow's commits, newest first. Nothing is run: review them, then "
        "run them yourself.",
        writes=False, text=f"{_VIEWS}:print_plan", markdown=f"{_VIEWS}:plan_markdown",
        schema="mindex.serve.mcp_models:WorkflowsOut", params=(_ID,),
        examples=("mindex workflow rollback-plan wf-123-3fa2c1", "mindex workflow rollback-plan wf-123-3fa2c1 --json")),
    _milestone(
        "create", "milestone_create",
        "Create milestone NAME.",
        "Group issues into a milestone worked in waves: the issues, in order, are split into that many waves; each "
        "issue's workflow is linked when it exists or is created.",
        writes=True, markdown=f"{_VIEWS}:created_milestone_markdown",
        params=(Param("name", str, "The milestone's name.", argument=True, agent_help="the milestone's name"),
                Param("issues", int, "Issues in the milestone, in order.", default=None, many=True, separator=",",
                      metavar="N,N,...", agent_help="its issues, in order"),
                Param("waves", int, "Split the issues, in order, into this many waves.", default=1, ge=1,
                      agent_help="split the issues, in order, into this many waves"),
                Param("number", int, "The forge's milestone number.", default=None, ge=0,
                      agent_help="the forge's milestone number, if it has one")),
        examples=("mindex milestone create \"retry overhaul\" --issues 12,13,14 --waves 2",)),
    _milestone(
        "show", "milestone_show",
        "A milestone (by id, unique prefix or name): waves, workflows, baselines.",
        "A milestone's waves, the workflow of each issue (phase and status), and its lint and typecheck baselines "
        "(exit codes, error and warning counts) to compare your changes with.",
        params=(_MILESTONE,), examples=("mindex milestone show ms-retry-overhaul-1a2b",)),
    _milestone(
        "list", "milestone_list",
        "Milestones, most recently changed first.",
        "Milestones, most recently changed first, optionally only those with a status: each with its waves of "
        "issues, the workflows linked to them, and its baselines.",
        run=f"{_HERE}:list_milestones", markdown=f"{_VIEWS}:milestones_markdown",
        params=(Param("status", str, "Only milestones with this status.", default=None, choices=STATUSES,
                      agent_help="only milestones with this status"),),
        examples=("mindex milestone list", "mindex milestone list --status running --json")),
    _milestone(
        "set", "milestone_set",
        "Change a milestone's phase or status.",
        "Change a milestone's phase or status.",
        writes=True, faces=("cli", "web"),
        params=(_MILESTONE,
                Param("phase", str, "The new phase.", default=None, choices=PHASES),
                Param("status", str, "The new status.", default=None, choices=STATUSES)),
        examples=("mindex milestone set ms-retry-overhaul-1a2b --phase implement",
                  "mindex milestone set ms-retry-overhaul-1a2b --status completed")),
)

"""Workflow checkpoints: where an agent is on an issue (phase, status, retries), what it did
(an audit log of actions) and what it committed (for rollback), and milestones that group
issues into waves with a lint/typecheck baseline. Part of the store: the only place with the
SQL of these tables. Side tables of the index (schema v10):
every change is one SQLite transaction, so a killed process leaves the last whole state.
"""

from __future__ import annotations

import json
import re
import secrets
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mindex.errors import NotFoundError, WorkflowInputError

if TYPE_CHECKING:
    from mindex.store.sqlite import SQLiteStore

PHASES = ("research", "planning", "implement", "review", "finalize", "execute", "merge", "cleanup")
STATUSES = ("running", "paused", "completed", "failed")
RESULTS = ("success", "failed", "pending")
_SHA = re.compile(r"^[0-9a-fA-F]{4,64}$")


@dataclass(frozen=True)
class Action:
    """One entry of a workflow's audit log."""

    action: str
    result: str
    metadata: dict[str, Any] | None
    at: float

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.action, "result": self.result, "metadata": self.metadata, "at": _iso(self.at)}


@dataclass(frozen=True)
class Commit:
    """A commit a workflow made (kept for rollback)."""

    sha: str
    message: str
    at: float

    def to_dict(self) -> dict[str, Any]:
        return {"sha": self.sha, "message": self.message, "at": _iso(self.at)}


@dataclass(frozen=True)
class Workflow:
    """One issue's execution state; `actions` and `commits` are filled by `get`/`find`."""

    id: str
    issue: int
    branch: str
    worktree: str | None
    phase: str
    status: str
    retries: int
    created_at: float
    updated_at: float
    actions: tuple[Action, ...] = ()
    commits: tuple[Commit, ...] = ()
    resumed: bool = False  # `create` found this one running or paused and returned it

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "issue": self.issue, "branch": self.branch, "worktree": self.worktree,
                "phase": self.phase, "status": self.status, "retries": self.retries,
                "created_at": _iso(self.created_at), "updated_at": _iso(self.updated_at),
                "actions": [a.to_dict() for a in self.actions], "commits": [c.to_dict() for c in self.commits],
                **({"resumed": True} if self.resumed else {})}


@dataclass(frozen=True)
class Baseline:
    """One check a milestone's baseline ran."""

    check: str
    command: str
    tool: str | None
    exit_code: int | None
    errors: int | None
    warnings: int | None
    lines: int
    seconds: float
    at: float

    def to_dict(self) -> dict[str, Any]:
        return {"check": self.check, "command": self.command, "tool": self.tool, "exit_code": self.exit_code,
                "errors": self.errors, "warnings": self.warnings, "lines": self.lines,
                "seconds": round(self.seconds, 3), "at": _iso(self.at)}


@dataclass(frozen=True)
class Milestone:
    """Issues grouped into waves; `issues` maps wave → [(issue, workflow id or None)]."""

    id: str
    name: str
    number: int | None
    phase: str
    status: str
    waves: int
    created_at: float
    updated_at: float
    issues: dict[int, list[tuple[int, str | None]]] = field(default_factory=dict)
    baselines: tuple[Baseline, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "number": self.number, "phase": self.phase, "status": self.status,
                "waves": [{"wave": w, "issues": [{"issue": i, "workflow": wf} for i, wf in items]}
                          for w, items in sorted(self.issues.items())],
                "baselines": [b.to_dict() for b in self.baselines],
                "created_at": _iso(self.created_at), "updated_at": _iso(self.updated_at)}


def _workflow(row: tuple[Any, ...], actions: tuple[Action, ...] = (), commits: tuple[Commit, ...] = ()) -> Workflow:
    return Workflow(row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8], actions, commits)


def _iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(t))


def check_phase(phase: str) -> str:
    if phase not in PHASES:
        raise WorkflowInputError(f"unknown phase {phase!r}; use one of: {', '.join(PHASES)}")
    return phase


def check_status(status: str) -> str:
    if status not in STATUSES:
        raise WorkflowInputError(f"unknown status {status!r}; use one of: {', '.join(STATUSES)}")
    return status


def parse_metadata(text: str | None) -> dict[str, Any] | None:
    """`--meta` JSON: an object, or nothing."""
    if text is None or not text.strip():
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise WorkflowInputError(f"--meta is not JSON ({exc.msg} at column {exc.colno}); "
                                 "give an object such as '{\"tests\": 12}'") from None
    if not isinstance(value, dict):
        raise WorkflowInputError("--meta must be a JSON object such as '{\"tests\": 12}'")
    return value


class Checkpoints:
    """Workflows and milestones of one index."""

    def __init__(self, store: SQLiteStore) -> None:
        self.store = store
        self.db = store.conn

    # -- workflows -------------------------------------------------------------------------

    def create(self, issue: int, branch: str, worktree: str | None = None, phase: str = "research") -> Workflow:
        """A new running workflow for an issue and branch, or the running or paused one that
        already exists for them (returned with `resumed`: an agent calls create to resume too)."""
        if issue < 0:
            raise WorkflowInputError("the issue number cannot be negative")
        if not branch.strip():
            raise WorkflowInputError("give the branch the work happens on, e.g. feat/123-retry")
        check_phase(phase)
        with self.store.transaction() as db:
            row = db.execute("SELECT id FROM workflows WHERE issue = ? AND branch = ? AND status IN "
                             "('running', 'paused') ORDER BY updated_at DESC LIMIT 1", (issue, branch)).fetchone()
            if row is None:
                now = time.time()
                wid = f"wf-{issue}-{secrets.token_hex(3)}"
                db.execute("INSERT INTO workflows (id, issue, branch, worktree, phase, status, retries, created_at, "
                           "updated_at) VALUES (?, ?, ?, ?, ?, 'running', 0, ?, ?)",
                           (wid, issue, branch, worktree, phase, now, now))
                db.execute("UPDATE milestone_issues SET workflow_id = ? WHERE issue = ? AND workflow_id IS NULL",
                           (wid, issue))
                return self.get(wid)
        found = self.get(row[0])
        return Workflow(**{**found.__dict__, "resumed": True})

    def _resolve(self, ident: str) -> str:
        rows = self.db.execute("SELECT id FROM workflows WHERE id = ? OR id LIKE ? ESCAPE '\\' LIMIT 2",
                               (ident, ident.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
                                )).fetchall()
        if any(r[0] == ident for r in rows):
            return ident
        if len(rows) == 1:
            return str(rows[0][0])
        if not rows:
            raise NotFoundError(f"no workflow {ident!r}; list them with `mindex workflow list`")
        raise WorkflowInputError(f"{ident!r} names more than one workflow; give more of the id")

    def get(self, ident: str, actions: int = 20) -> Workflow:
        """A workflow (by id or a unique prefix) with its last `actions` actions and all commits."""
        wid = self._resolve(ident)
        row = self.db.execute("SELECT id, issue, branch, worktree, phase, status, retries, created_at, updated_at "
                              "FROM workflows WHERE id = ?", (wid,)).fetchone()
        acts = self.db.execute("SELECT action, result, metadata, at FROM workflow_actions WHERE workflow_id = ? "
                               "ORDER BY id DESC LIMIT ?", (wid, actions)).fetchall()
        commits = self.db.execute("SELECT sha, message, at FROM workflow_commits WHERE workflow_id = ? ORDER BY id",
                                  (wid,)).fetchall()
        return _workflow(row, tuple(Action(a, r, json.loads(m) if m else None, t) for a, r, m, t in reversed(acts)),
                         tuple(Commit(*c) for c in commits))

    def find(self, issue: int) -> Workflow | None:
        """The workflow to resume for an issue: the latest running or paused one, else the latest."""
        row = self.db.execute(
            "SELECT id FROM workflows WHERE issue = ? ORDER BY status IN ('running', 'paused') DESC, updated_at DESC "
            "LIMIT 1", (issue,)).fetchone()
        return self.get(row[0]) if row else None

    def active_for_branch(self, branch: str) -> Workflow | None:
        """The running or paused workflow on a branch, if any."""
        row = self.db.execute("SELECT id FROM workflows WHERE branch = ? AND status IN ('running', 'paused') "
                              "ORDER BY updated_at DESC LIMIT 1", (branch,)).fetchone()
        return self.get(row[0], actions=5) if row else None

    def workflows(self, status: str | None = None, issue: int | None = None, limit: int = 50) -> list[Workflow]:
        """Workflows, most recently changed first."""
        where: list[str] = ["1"]
        params: list[Any] = []
        if status:
            where.append("status = ?")
            params.append(check_status(status))
        if issue is not None:
            where.append("issue = ?")
            params.append(issue)
        rows = self.db.execute(
            f"SELECT id, issue, branch, worktree, phase, status, retries, created_at, updated_at FROM workflows "
            f"WHERE {' AND '.join(where)} ORDER BY updated_at DESC LIMIT ?", (*params, limit)).fetchall()
        return [_workflow(r) for r in rows]

    def _update(self, ident: str, sets: str, params: tuple[Any, ...], action: tuple[str, str, Any] | None = None,
                allowed: tuple[str, ...] = STATUSES) -> Workflow:
        wid = self._resolve(ident)
        with self.store.transaction() as db:
            status = db.execute("SELECT status FROM workflows WHERE id = ?", (wid,)).fetchone()[0]
            if status not in allowed:
                raise WorkflowInputError(f"workflow {wid} is {status}; this needs it {' or '.join(allowed)} "
                                         "(`mindex workflow resume` sets a paused or failed one running again)")
            now = time.time()
            db.execute(f"UPDATE workflows SET {sets}, updated_at = ? WHERE id = ?", (*params, now, wid))
            if action is not None:
                db.execute("INSERT INTO workflow_actions (workflow_id, action, result, metadata, at) VALUES (?, ?, ?, ?, ?)",
                           (wid, action[0], action[1], json.dumps(action[2]) if action[2] is not None else None, now))
        return self.get(wid)

    def set_phase(self, ident: str, phase: str) -> Workflow:
        check_phase(phase)
        return self._update(ident, "phase = ?", (phase,), (f"phase → {phase}", "success", None),
                            allowed=("running", "paused"))

    def log_action(self, ident: str, action: str, result: str, metadata: dict[str, Any] | None = None) -> Workflow:
        if not action.strip():
            raise WorkflowInputError("say what was done, e.g. \"ran tests\"")
        if result not in RESULTS:
            raise WorkflowInputError(f"unknown result {result!r}; use one of: {', '.join(RESULTS)}")
        return self._update(ident, "retries = retries", (), (action.strip(), result, metadata))

    def log_commit(self, ident: str, sha: str, message: str) -> Workflow:
        if not _SHA.match(sha):
            raise WorkflowInputError(f"{sha!r} is not a commit id (4 to 64 hex digits)")
        wid = self._resolve(ident)
        with self.store.transaction() as db:
            now = time.time()
            db.execute("INSERT OR IGNORE INTO workflow_commits (workflow_id, sha, message, at) VALUES (?, ?, ?, ?)",
                       (wid, sha.lower(), message.strip(), now))
            db.execute("UPDATE workflows SET updated_at = ? WHERE id = ?", (now, wid))
        return self.get(wid)

    def set_status(self, ident: str, status: str) -> Workflow:
        """complete, fail, pause; `running` again (resume) counts a retry when it had failed."""
        check_status(status)
        if status == "running":
            wid = self._resolve(ident)
            failed = self.db.execute("SELECT status FROM workflows WHERE id = ?", (wid,)).fetchone()[0] == "failed"
            return self._update(wid, "status = 'running', retries = retries + ?", (1 if failed else 0,),
                                ("resumed", "success", None), allowed=("paused", "failed", "running"))
        allowed = ("running", "paused") if status in ("completed", "paused") else ("running", "paused", "failed")
        return self._update(ident, "status = ?", (status,), (status, "success" if status != "failed" else "failed",
                                                               None), allowed=allowed)

    def rollback_plan(self, ident: str) -> list[str]:
        """`git revert` commands that undo the workflow's commits, newest first."""
        wf = self.get(ident, actions=0)
        return [f"git revert --no-edit {c.sha}  # {c.message.splitlines()[0] if c.message else ''}".rstrip(" #")
                for c in reversed(wf.commits)]

    # -- milestones ------------------------------------------------------------------------

    def create_milestone(self, name: str, issues: list[int], waves: int = 1, number: int | None = None) -> Milestone:
        """A milestone with its issues split into `waves` consecutive groups, in order."""
        if not name.strip():
            raise WorkflowInputError("give the milestone a name")
        if waves < 1:
            raise WorkflowInputError("--waves must be at least 1")
        issues = list(dict.fromkeys(issues))
        if waves > max(1, len(issues)):
            raise WorkflowInputError(f"{waves} waves for {len(issues)} issues: give at most one wave an issue")
        per = -(-len(issues) // waves) if issues else 0
        mid = f"ms-{re.sub(r'[^a-z0-9]+', '-', name.lower()).strip('-')[:30] or 'milestone'}-{secrets.token_hex(2)}"
        with self.store.transaction() as db:
            now = time.time()
            db.execute("INSERT INTO milestones (id, name, number, phase, status, waves, created_at, updated_at) "
                       "VALUES (?, ?, ?, 'planning', 'running', ?, ?, ?)", (mid, name.strip(), number, waves, now, now))
            for i, issue in enumerate(issues):
                wf = db.execute("SELECT id FROM workflows WHERE issue = ? ORDER BY updated_at DESC LIMIT 1",
                                (issue,)).fetchone()
                db.execute("INSERT INTO milestone_issues (milestone_id, issue, wave, workflow_id) VALUES (?, ?, ?, ?)",
                           (mid, issue, i // per + 1, wf[0] if wf else None))
        return self.milestone(mid)

    def _resolve_milestone(self, ident: str) -> str:
        rows = self.db.execute("SELECT id FROM milestones WHERE id = ? OR id LIKE ? OR name = ? LIMIT 2",
                               (ident, ident.replace("%", "") + "%", ident)).fetchall()
        if len(rows) == 1 or (rows and rows[0][0] == ident):
            return str(rows[0][0])
        if not rows:
            raise NotFoundError(f"no milestone {ident!r}; list them with `mindex milestone list`")
        raise WorkflowInputError(f"{ident!r} names more than one milestone; give its full id")

    def milestone(self, ident: str) -> Milestone:
        mid = self._resolve_milestone(ident)
        row = self.db.execute("SELECT id, name, number, phase, status, waves, created_at, updated_at FROM milestones "
                              "WHERE id = ?", (mid,)).fetchone()
        issues: dict[int, list[tuple[int, str | None]]] = {}
        issue: int
        for issue, wave, wf in self.db.execute("SELECT issue, wave, workflow_id FROM milestone_issues "
                                               "WHERE milestone_id = ? ORDER BY wave, rowid", (mid,)):
            issues.setdefault(wave, []).append((issue, wf))
        baselines = self.db.execute("SELECT check_name, command, tool, exit_code, errors, warnings, lines, seconds, at "
                                    "FROM baselines WHERE milestone_id = ? ORDER BY id", (mid,)).fetchall()
        return Milestone(row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], issues=issues,
                         baselines=tuple(Baseline(*b) for b in baselines))

    def milestones(self, status: str | None = None) -> list[Milestone]:
        rows = self.db.execute("SELECT id FROM milestones WHERE ? IS NULL OR status = ? ORDER BY updated_at DESC",
                               (status, status)).fetchall()
        return [self.milestone(r[0]) for r in rows]

    def set_milestone(self, ident: str, phase: str | None = None, status: str | None = None) -> Milestone:
        mid = self._resolve_milestone(ident)
        with self.store.transaction() as db:
            if phase:
                db.execute("UPDATE milestones SET phase = ?, updated_at = ? WHERE id = ?",
                           (check_phase(phase), time.time(), mid))
            if status:
                db.execute("UPDATE milestones SET status = ?, updated_at = ? WHERE id = ?",
                           (check_status(status), time.time(), mid))
        return self.milestone(mid)

    def add_baseline(self, ident: str, rows: list[Baseline]) -> Milestone:
        mid = self._resolve_milestone(ident)
        with self.store.transaction() as db:
            db.executemany("INSERT INTO baselines (milestone_id, check_name, command, tool, exit_code, errors, warnings, "
                           "lines, seconds, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                           [(mid, b.check, b.command, b.tool, b.exit_code, b.errors, b.warnings, b.lines, b.seconds, b.at)
                            for b in rows])
            db.execute("UPDATE milestones SET updated_at = ? WHERE id = ?", (time.time(), mid))
        return self.milestone(mid)

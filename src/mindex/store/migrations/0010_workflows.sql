-- mindex schema v10: workflow checkpoints and session metrics. State an agent resumes from
-- after its context is compacted or its process dies: not derived from any file, so no
-- re-index or rebuild touches these tables. Times are epoch seconds.
CREATE TABLE workflows (
    id          TEXT PRIMARY KEY,           -- wf-<issue>-<random>
    issue       INTEGER NOT NULL,
    branch      TEXT NOT NULL,
    worktree    TEXT,
    phase       TEXT NOT NULL,              -- research planning implement review finalize execute merge cleanup
    status      TEXT NOT NULL,              -- running paused completed failed
    retries     INTEGER NOT NULL DEFAULT 0,
    created_at  REAL NOT NULL,
    updated_at  REAL NOT NULL
);
CREATE INDEX workflows_by_issue ON workflows (issue, updated_at);
CREATE INDEX workflows_by_branch ON workflows (branch, updated_at);

CREATE TABLE workflow_actions (             -- the audit log
    id          INTEGER PRIMARY KEY,
    workflow_id TEXT NOT NULL REFERENCES workflows (id) ON DELETE CASCADE,
    action      TEXT NOT NULL,
    result      TEXT NOT NULL,              -- success failed pending
    metadata    TEXT,                       -- JSON
    at          REAL NOT NULL
);
CREATE INDEX workflow_actions_by_workflow ON workflow_actions (workflow_id, id);

CREATE TABLE workflow_commits (             -- kept for rollback, newest last
    id          INTEGER PRIMARY KEY,
    workflow_id TEXT NOT NULL REFERENCES workflows (id) ON DELETE CASCADE,
    sha         TEXT NOT NULL,
    message     TEXT NOT NULL,
    at          REAL NOT NULL,
    UNIQUE (workflow_id, sha)
);

CREATE TABLE milestones (
    id          TEXT PRIMARY KEY,           -- ms-<slug>-<random>
    name        TEXT NOT NULL,
    number      INTEGER,                    -- the forge's milestone number, if any
    phase       TEXT NOT NULL,
    status      TEXT NOT NULL,
    waves       INTEGER NOT NULL DEFAULT 1,
    created_at  REAL NOT NULL,
    updated_at  REAL NOT NULL
);

CREATE TABLE milestone_issues (             -- which issue goes in which wave, and its workflow once started
    milestone_id TEXT NOT NULL REFERENCES milestones (id) ON DELETE CASCADE,
    issue        INTEGER NOT NULL,
    wave         INTEGER NOT NULL,
    workflow_id  TEXT REFERENCES workflows (id) ON DELETE SET NULL,
    PRIMARY KEY (milestone_id, issue)
);

CREATE TABLE baselines (                    -- one row per command run for a milestone
    id          INTEGER PRIMARY KEY,
    milestone_id TEXT NOT NULL REFERENCES milestones (id) ON DELETE CASCADE,
    check_name  TEXT NOT NULL,              -- lint, typecheck, test, ...
    command     TEXT NOT NULL,
    tool        TEXT,                       -- ruff flake8 eslint mypy tsc pyright, or NULL (unknown)
    exit_code   INTEGER,
    errors      INTEGER,
    warnings    INTEGER,
    lines       INTEGER NOT NULL,           -- lines of output
    seconds     REAL NOT NULL,
    at          REAL NOT NULL
);
CREATE INDEX baselines_by_milestone ON baselines (milestone_id, at);

CREATE TABLE agent_sessions (               -- per agent session: what the hooks saw and did
    session_id  TEXT PRIMARY KEY,
    cwd         TEXT,
    branch      TEXT,
    issue       INTEGER,
    workflow_id TEXT,
    started_at  REAL NOT NULL,
    head        TEXT,                       -- HEAD when the session started: its commits come after
    files_read  INTEGER NOT NULL DEFAULT 0,
    compacted   INTEGER NOT NULL DEFAULT 0,
    injected    INTEGER NOT NULL DEFAULT 0, -- learnings and memories put in its context
    captured    INTEGER NOT NULL DEFAULT 0, -- learnings saved from its commits
    handoff     TEXT,                       -- digest of the last handoff saved: the same state is not saved twice
    ended_at    REAL
);

CREATE TABLE captured_commits (             -- makes pre-compact / session-end idempotent
    sha         TEXT PRIMARY KEY,
    session_id  TEXT NOT NULL,
    at          REAL NOT NULL
);

CREATE TABLE query_log (                    -- graph and search queries, when metrics.query_log is on
    id          INTEGER PRIMARY KEY,
    session_id  TEXT,
    kind        TEXT NOT NULL,              -- search, grep, callers, impact, ...
    params      TEXT NOT NULL,              -- JSON
    results     INTEGER NOT NULL,
    ms          REAL NOT NULL,
    at          REAL NOT NULL
);

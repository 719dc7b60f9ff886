"""Workflow checkpoints, baselines and session hooks: real git repositories made here, the
real CLI as a process, the JSON payloads Claude Code sends on stdin."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from mindex.agents import gitinfo
from mindex.agents.baseline import parse, run_check
from lockholder import held_by_another_process

ENV = {"MINDEX_EMBED__PROVIDER": "none"}


def mindex(cwd: Path, *args: str, code: int = 0, stdin: str | None = None, as_json: bool = True) -> Any:
    proc = subprocess.run([sys.executable, "-m", "mindex", *args, *(["--json"] if as_json else [])], cwd=cwd,
                          env={**os.environ, **ENV}, capture_output=True, text=True, input=stdin or "")
    assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    return json.loads(proc.stdout) if as_json and proc.stdout.strip() else proc


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def commit(repo: Path, name: str, text: str, message: str) -> str:
    (repo / name).parent.mkdir(parents=True, exist_ok=True)
    (repo / name).write_text(text)
    git(repo, "add", name)
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    commit(root, "src/fetch/http.py", "def get(): pass\n", "initial import")
    commit(root, "README.md", "hello\n", "docs: readme")
    return root


# -- checkpoints --------------------------------------------------------------------------


def test_workflow_commands_keep_phase_actions_and_commits(repo: Path) -> None:
    wf = mindex(repo, "workflow", "create", "123", "feat/123-retry", "--worktree", str(repo))
    assert wf["status"] == "running" and wf["phase"] == "research" and wf["id"].startswith("wf-123-")
    again = mindex(repo, "workflow", "create", "123", "feat/123-retry")  # resuming, not a second one
    assert again["id"] == wf["id"] and again["resumed"] is True
    mindex(repo, "workflow", "set-phase", wf["id"], "implement")
    mindex(repo, "workflow", "log-action", wf["id"], "ran tests", "success", "--meta", '{"passed": 40}')
    mindex(repo, "workflow", "log-commit", wf["id"], "a" * 40, "feat: first")
    mindex(repo, "workflow", "log-commit", wf["id"], "b" * 40, "fix: second")
    found = mindex(repo, "workflow", "find", "123")
    assert found["id"] == wf["id"] and found["phase"] == "implement"
    assert [a["action"] for a in found["actions"]] == ["phase → implement", "ran tests"]
    assert found["actions"][1]["metadata"] == {"passed": 40}
    plan = mindex(repo, "workflow", "rollback-plan", wf["id"])["commands"]
    assert [line.split()[3] for line in plan] == ["b" * 40, "a" * 40]  # newest first
    text = mindex(repo, "workflow", "rollback-plan", wf["id"][:12], as_json=False).stdout.splitlines()
    assert text[0].startswith("git revert --no-edit bbbb") and len(text) == 2
    assert mindex(repo, "workflow", "fail", wf["id"])["status"] == "failed"
    resumed = mindex(repo, "workflow", "resume", wf["id"])
    assert resumed["status"] == "running" and resumed["retries"] == 1
    mindex(repo, "workflow", "complete", wf["id"])
    assert mindex(repo, "workflow", "list", "--status", "completed")["workflows"][0]["id"] == wf["id"]
    assert mindex(repo, "workflow", "list", "--status", "running")["workflows"] == []
    # a completed workflow takes no new phase; create starts a new one
    err = mindex(repo, "workflow", "set-phase", wf["id"], "review", code=2)["error"]
    assert err["code"] == "WORKFLOW_INPUT" and "completed" in err["message"]
    assert mindex(repo, "workflow", "create", "123", "feat/123-retry")["id"] != wf["id"]


def test_workflow_errors_name_the_cause_and_the_exit_code(repo: Path) -> None:
    assert mindex(repo, "workflow", "find", "999", code=3)["error"]["code"] == "NOT_FOUND"
    assert mindex(repo, "workflow", "show", "wf-nope", code=3)["error"]["code"] == "NOT_FOUND"
    wf = mindex(repo, "workflow", "create", "7", "fix/7-x")
    bad = mindex(repo, "workflow", "log-action", wf["id"], "x", "success", "--meta", "{oops", code=2)["error"]
    assert bad["code"] == "WORKFLOW_INPUT" and "not JSON" in bad["message"]
    assert mindex(repo, "workflow", "log-commit", wf["id"], "not-a-sha", "m", code=2)["error"]["code"] == "WORKFLOW_INPUT"
    assert mindex(repo, "milestone", "create", "m", "--issues", "1,2", "--waves", "3", code=2)["error"]["code"] == \
        "WORKFLOW_INPUT"


KILLER = r"""
import sys, os
from pathlib import Path
from mindex import Index
from mindex.store.workflows import Checkpoints
ix = Index(Path(sys.argv[1]) / ".mindex" / "index.db")
cp = Checkpoints(ix.store)
wid = sys.argv[2]
for n in range(100000):
    cp.log_action(wid, f"step {n}", "success", {"n": n, "pad": "x" * 200})
    cp.set_phase(wid, ("implement", "review")[n % 2])
"""


def test_a_workflow_killed_mid_update_keeps_its_last_whole_state(repo: Path) -> None:
    wf = mindex(repo, "workflow", "create", "55", "feat/55-kill")
    proc = subprocess.Popen([sys.executable, "-c", KILLER, str(repo), wf["id"]], env={**os.environ, **ENV})
    db = repo / ".mindex" / "index.db"
    deadline = time.time() + 60
    while time.time() < deadline:  # let it write a while, then kill it mid-stream
        with sqlite3.connect(db) as conn:
            if conn.execute("SELECT count(*) FROM workflow_actions WHERE action LIKE 'step %'").fetchone()[0] > 40:
                break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        rows = conn.execute("SELECT action, metadata FROM workflow_actions WHERE action LIKE 'step %' ORDER BY id").fetchall()
    steps = [int(a.split()[1]) for a, _ in rows]
    assert steps == list(range(len(steps))) and len(steps) > 40  # no gap, no torn row
    assert all(json.loads(m)["n"] == n for (_, m), n in zip(rows, steps, strict=True))
    after = mindex(repo, "workflow", "log-action", wf["id"], "after the crash", "success")
    assert after["actions"][-1]["action"] == "after the crash"


# -- milestones and baselines ---------------------------------------------------------------


def test_milestone_waves_and_a_real_mypy_baseline(repo: Path) -> None:
    mindex(repo, "workflow", "create", "13", "feat/13-b")
    ms = mindex(repo, "milestone", "create", "retry overhaul", "--issues", "12,13,14", "--waves", "2")
    assert [[i["issue"] for i in w["issues"]] for w in ms["waves"]] == [[12, 13], [14]]
    assert ms["waves"][0]["issues"][1]["workflow"] is not None  # #13's workflow, found
    (repo / "typed.py").write_text("def f(x: int) -> str:\n    return x\n\nf('no')\n")
    mypy = f"{sys.executable} -m mypy --no-incremental --ignore-missing-imports typed.py"
    shown = mindex(repo, "milestone", "baseline", ms["id"], "--typecheck", mypy, "--check", "count=printf 'a\\nb\\n'")
    typecheck, other = shown["baselines"]
    assert typecheck["tool"] == "mypy" and typecheck["exit_code"] == 1 and typecheck["errors"] == 2
    assert other == {**other, "tool": None, "exit_code": 0, "errors": None, "warnings": None, "lines": 2}
    missing = mindex(repo, "milestone", "baseline", ms["id"], "--lint", "no-such-linter-xyz", code=2)["error"]
    assert "not found" in missing["message"]


@pytest.mark.parametrize(("tool", "output", "expected"), [
    ("ruff", "src/a.py:1:8: F401 [*] `os` imported but unused\nsrc/b.py:3:1: E402 Module level import\n"
             "Found 2 errors.\n[*] 1 fixable with the `--fix` option.\n", ("ruff", 2, 0)),
    ("ruff", "All checks passed!\n", ("ruff", 0, 0)),
    ("flake8", "./a.py:1:1: F401 'os' imported but unused\n./a.py:3:80: E501 line too long (88 > 79 characters)\n"
               "./b.py:2:1: W291 trailing whitespace\n", ("flake8", 2, 1)),
    ("eslint", "/p/a.js\n  1:7  error  'x' is assigned a value but never used  no-unused-vars\n"
               "  2:1  warning  Unexpected console statement  no-console\n\n"
               "\u2716 2 problems (1 error, 1 warning)\n", ("eslint", 1, 1)),
    ("mypy", "a.py:2: error: Incompatible return value type (got \"int\", expected \"str\")  [return-value]\n"
             "Found 1 error in 1 file (checked 3 source files)\n", ("mypy", 1, 0)),
    ("mypy", "Success: no issues found in 12 source files\n", ("mypy", 0, 0)),
    ("tsc", "src/a.ts(3,7): error TS2322: Type 'number' is not assignable to type 'string'.\n"
            "src/b.ts(1,1): error TS2304: Cannot find name 'x'.\n\nFound 2 errors in 2 files.\n", ("tsc", 2, 0)),
    ("pyright", "/p/a.py\n  /p/a.py:2:12 - error: Type \"int\" is not assignable\n"
                "2 errors, 1 warning, 0 informations \n", ("pyright", 2, 1)),
])
def test_baseline_summaries_are_read_with_or_without_the_command_name(tool: str, output: str,
                                                                      expected: tuple[Any, ...]) -> None:
    assert parse(tool, output) == expected
    assert parse(None, output) == expected  # detected from the output alone
    assert parse(None, "build ok\n3 files\n") == (None, None, None)


def test_a_check_that_times_out_is_kept_with_no_exit_code(tmp_path: Path) -> None:
    row = run_check("slow", f"{sys.executable} -c 'import time; print(1, flush=True); time.sleep(30)'", tmp_path,
                    timeout=1)
    assert row.exit_code is None and row.seconds < 10


# -- git ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("branch", "issue"), [
    ("feat/123-retry", 123), ("issue-123", 123), ("123-fix-login", 123), ("gh-123", 123), ("fix/gh-45-crash", 45),
    ("main", None), ("feat/oauth2-login", None), ("v1.2", None), (None, None)])
def test_the_issue_number_is_read_from_the_branch(branch: str | None, issue: int | None) -> None:
    assert gitinfo.issue_of(branch) == issue


def test_files_in_flight_are_the_working_tree_and_the_branch_since_its_merge_base(repo: Path, tmp_path: Path) -> None:
    git(repo, "checkout", "-q", "-b", "feat/9-x")
    commit(repo, "src/fetch/retry.py", "x = 1\n", "feat(fetch): retry")
    git(repo, "checkout", "-q", "main")
    commit(repo, "src/other.py", "y = 2\n", "feat: on main after the branch")  # not the branch's work
    git(repo, "checkout", "-q", "feat/9-x")
    (repo / "src" / "fetch" / "http.py").write_text("def get(): return 1\n")  # modified
    (repo / "notes.txt").write_text("new\n")  # untracked
    (repo / ".mcp.json.mindex-backup-20261120-101500").write_text("{}\n")  # an older install's backup: not work
    assert gitinfo.branch(repo) == "feat/9-x" and gitinfo.default_branch(repo) == "main"
    assert sorted(gitinfo.files_in_flight(repo)) == ["notes.txt", "src/fetch/http.py", "src/fetch/retry.py"]
    git(repo, "checkout", "-q", "--detach", "HEAD")
    assert gitinfo.branch(repo) is None and gitinfo.head(repo) is not None
    plain = tmp_path / "plain"
    plain.mkdir()
    assert gitinfo.toplevel(plain) is None and gitinfo.files_in_flight(plain) == [] and gitinfo.branch(plain) is None


def test_conventional_commits_are_parsed_with_scope_and_breaking_marks() -> None:
    assert gitinfo.parse_conventional("feat(api)!: drop v1", "") == ("feat", "api", True, "drop v1")
    assert gitinfo.parse_conventional("fix: null deref", "BREAKING CHANGE: x") == ("fix", None, True, "null deref")
    assert gitinfo.parse_conventional("perf(db): batch writes", "") == ("perf", "db", False, "batch writes")
    assert gitinfo.parse_conventional("Merge branch 'x'", "")[0] is None
    assert gitinfo.parse_conventional("WIP: stuff", "")[0] == "wip"  # well-formed, a type we keep


# -- hooks ----------------------------------------------------------------------------------


def payload(event: str, cwd: Path, session: str, **extra: str) -> str:
    return json.dumps({"session_id": session, "transcript_path": str(cwd / "transcript.jsonl"), "cwd": str(cwd),
                       "hook_event_name": event, "permission_mode": "default", **extra})


def hook(repo: Path, event: str, body: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "mindex", "hook", event], cwd=cwd or repo, input=body,
                          env={**os.environ, **ENV}, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc


def installed_hook(repo: Path, event: str, body: str) -> subprocess.CompletedProcess[str]:
    """Run the command `mindex install claude-code` wrote for an event, as Claude Code does."""
    settings = json.loads((repo / ".claude" / "settings.json").read_text())
    command = settings["hooks"][event][-1]["hooks"][0]["command"]
    proc = subprocess.run(command, shell=True, cwd=repo, input=body, env={**os.environ, **ENV}, capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr
    return proc


def test_the_whole_loop_survives_compaction(repo: Path) -> None:
    mindex(repo, "install", "claude-code")
    git(repo, "checkout", "-q", "-b", "feat/123-retry")
    wf = mindex(repo, "workflow", "create", "123", "feat/123-retry")
    mindex(repo, "workflow", "set-phase", wf["id"], "implement")
    start = installed_hook(repo, "SessionStart", payload("SessionStart", repo, "s-1", source="startup"))
    first = json.loads(start.stdout)["hookSpecificOutput"]
    assert first["hookEventName"] == "SessionStart" and "phase **implement**" in first["additionalContext"]
    # the agent works: a memory, a feature, a fix, a non-conventional commit, a transcript
    mindex(repo, "memory", "save", "Decided retries back off with jitter", "--type", "decision", "--file",
           "src/fetch/http.py", "--tag", "#123")
    feat = commit(repo, "src/fetch/http.py", "def get(): retry()\n", "feat(fetch): retry with jitter")
    fix = commit(repo, "src/fetch/http.py", "def get(): retry(max=5)\n",
                 "fix(fetch): stop retrying forever\n\nThe loop never gave up on 404.")
    commit(repo, "scratch.txt", "x\n", "wip")
    (repo / "src" / "fetch" / "cache.py").write_text("# in progress\n")
    mindex(repo, "workflow", "log-action", wf["id"], "review", "failed", "--meta", '{"finding": "no cap on 404"}')
    (repo / "transcript.jsonl").write_text("\n".join(json.dumps(line) for line in [
        {"type": "assistant", "message": {"content": [{"type": "tool_use", "name": "Read",
                                                       "input": {"file_path": "/r/src/fetch/http.py"}}]}},
        {"type": "assistant", "message": {"content": [{"type": "tool_use", "name": "Read",
                                                       "input": {"file_path": "/r/README.md"}}]}},
        {"type": "user", "message": {"content": "not a tool use"}}]) + "\nnot json at all\n")
    pre = installed_hook(repo, "PreCompact", payload("PreCompact", repo, "s-1", trigger="auto", custom_instructions=""))
    assert pre.stdout == "" and "2 learnings, 1 mistakes from 3 new commits" in pre.stderr
    knowledge = sorted(p.relative_to(repo / ".mindex" / "knowledge").parts[0]
                       for p in (repo / ".mindex" / "knowledge").rglob("*.md"))
    assert knowledge == ["learning", "learning", "mistake"]
    mistake = next((repo / ".mindex" / "knowledge" / "mistake").glob("*.md")).read_text()
    assert "led_to:" in mistake and fix[:7] in mistake and "src/fetch/http.py" in mistake
    # idempotent: the same session again adds nothing (no learnings, no second handoff)
    journal = b"".join(p.read_bytes() for p in sorted((repo / ".mindex" / "memory").glob("*.md")))
    again = installed_hook(repo, "SessionEnd", payload("SessionEnd", repo, "s-1", reason="other"))
    assert "0 learnings, 0 mistakes from 0 new commits" in again.stderr and "handoff" not in again.stderr
    assert b"".join(p.read_bytes() for p in sorted((repo / ".mindex" / "memory").glob("*.md"))) == journal
    shown = mindex(repo, "workflow", "show", wf["id"])
    assert [c["sha"] for c in shown["commits"]][:2] == [feat, fix]  # logged on the workflow for rollback
    # a new session after compaction sees the workflow, the handoff and the learnings
    text = json.loads(installed_hook(repo, "SessionStart", payload("SessionStart", repo, "s-2", source="compact")).stdout)[
        "hookSpecificOutput"]["additionalContext"]
    assert "issue #123" in text and "Latest handoff" in text and "src/fetch/cache.py" in text
    assert "stop retrying forever" in text and "Bug:" in text and "retry with jitter" in text
    assert len(text) <= 1500 * 4
    small = hook(repo, "session-start", payload("SessionStart", repo, "s-3", source="resume"))
    assert len(json.loads(small.stdout)["hookSpecificOutput"]["additionalContext"]) <= 6000
    metrics = {m["session"]: m for m in mindex(repo, "metrics")["sessions"]}
    assert metrics["s-1"]["compacted"] == 1 and metrics["s-1"]["files_read"] == 2 and metrics["s-1"]["captured"] == 3
    assert metrics["s-2"]["injected"] > 0
    assert metrics["s-1"]["review_findings"] == [{"action": "review", "result": "failed", "finding": "no cap on 404"}]
    assert metrics["s-2"]["review_findings"] == [] and 0 <= metrics["s-1"]["minutes"] < 30


def test_a_hook_never_breaks_the_agent(repo: Path, tmp_path: Path) -> None:
    # bad input: nothing on stdout, the cause on stderr, exit 0
    for body in ("not json", "[1, 2]", '{"cwd": 5}'):
        out = hook(repo, "pre-compact", body)
        assert out.stdout == "" and ("skipped" in out.stderr or "mindex pre-compact" in out.stderr)
    # no git and no index: session-start says nothing; pre-compact keeps nothing
    plain = tmp_path / "plain"
    plain.mkdir()
    for event in ("session-start", "pre-compact", "session-end"):
        out = hook(plain, event, payload("SessionStart", plain, "s-x"), cwd=plain)
        assert out.stdout == ""
    assert not (plain / ".mindex").exists()
    # a locked index: the hook gives up within its time limit and still exits 0; pre-compact
    # puts its handoff in the journal alone, and the next session start reads it in
    mindex(repo, "memory", "save", "something", "--type", "progress")
    (repo / "src" / "fetch" / "http.py").write_text("def get(): return 2\n")  # a file in flight
    with held_by_another_process(repo / ".mindex" / "index.db"):
        started = time.perf_counter()
        out = hook(repo, "pre-compact", payload("PreCompact", repo, "s-lock", trigger="manual"))
        assert time.perf_counter() - started < 20 and out.stdout == ""
        assert "to the journal only: an indexer holds the index" in out.stderr
        journal = "".join(p.read_text() for p in (repo / ".mindex" / "memory").glob("*.md"))
        assert "(pre-compact, session s-lock)" in journal and "Files in flight (1): src/fetch/http.py" in journal
        start = hook(repo, "session-start", payload("SessionStart", repo, "s-lock", source="startup"))
        assert "Session context" in json.loads(start.stdout)["hookSpecificOutput"]["additionalContext"]
    after = hook(repo, "session-start", payload("SessionStart", repo, "s-next", source="compact"))
    context = json.loads(after.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "## Latest handoff" in context and "(pre-compact, session s-lock)" in context


def test_session_start_by_hand_prints_markdown_and_reads_a_detached_head(repo: Path) -> None:
    mindex(repo, "memory", "save", "Handing over: the parser is half done", "--type", "handoff")
    git(repo, "checkout", "-q", "--detach", "HEAD")
    text = mindex(repo, "hook", "session-start", "--format", "text", as_json=False).stdout
    assert text.startswith("# Session context (mindex)") and "detached HEAD" in text
    assert "the parser is half done" in text


def test_workflow_tools_through_a_real_mcp_client(tmp_path: Path) -> None:
    import anyio
    from mcp.client import Client

    from mindex.config import Settings
    from mindex.serve.mcp_server import build_server

    settings = Settings()
    settings.embed.provider = "none"
    server = build_server(tmp_path / ".mindex" / "index.db", settings)

    async def main() -> None:
        async with Client(server) as client:
            made = await client.call_tool("workflow_create", {"issue": 42, "branch": "feat/42-x"})
            wid = made.structured_content["workflow"]["id"]
            again = await client.call_tool("workflow_create", {"issue": 42, "branch": "feat/42-x"})
            assert again.structured_content["workflow"]["resumed"] is True
            await client.call_tool("workflow_set_phase", {"id": wid, "phase": "implement"})
            await client.call_tool("workflow_log_action", {"id": wid, "action": "ran tests", "result": "failed",
                                                           "metadata": {"failed": 2}})
            await client.call_tool("workflow_log_commit", {"id": wid, "sha": "abc1234", "message": "fix: x"})
            found = await client.call_tool("workflow_find", {"issue": 42})
            wf = found.structured_content["workflow"]
            assert wf["phase"] == "implement" and wf["actions"][-1]["metadata"] == {"failed": 2}
            assert "phase **implement**" in found.content[0].text
            plan = await client.call_tool("workflow_rollback_plan", {"id": wid})
            assert plan.structured_content["results"] == [{"command": "git revert --no-edit abc1234  # fix: x"}]
            done = await client.call_tool("workflow_set_status", {"id": wid, "status": "completed"})
            assert done.structured_content["workflow"]["status"] == "completed"
            none = await client.call_tool("workflow_find", {"issue": 7})
            assert none.structured_content["workflow"] is None
            ms = await client.call_tool("milestone_create", {"name": "m1", "issues": [42, 43, 44], "waves": 3})
            mid = ms.structured_content["results"][0]["id"]
            shown = await client.call_tool("milestone_show", {"id": mid})
            assert [w["issues"][0]["workflow"] for w in shown.structured_content["results"][0]["waves"]] == [wid, None, None]
            bad = await client.call_tool("workflow_set_phase", {"id": wid, "phase": "review"})
            assert bad.is_error and "completed" in bad.content[0].text

    anyio.run(main)


def test_the_query_log_records_search_grep_and_graph_queries_when_on(repo: Path) -> None:
    commit(repo, "src/fetch/client.py", "from fetch.http import get\n\n\ndef load():\n    return get()\n", "feat: client")
    mindex(repo, "add", "src", "--kind", "code")
    mindex(repo, "index")
    mindex(repo, "search", "get")
    assert mindex(repo, "metrics")["queries"] == []  # off by default
    on = {**os.environ, **ENV, "MINDEX_AGENTS__QUERY_LOG": "true", "MINDEX_SESSION_ID": "s-log"}
    for args in (["search", "load the client"], ["grep", "def \\w+"], ["graph", "callers", "get"],
                 ["graph", "impact", "get"], ["symbols", "find", "load"], ["graph", "exports", "fetch/client.py"]):
        done = subprocess.run([sys.executable, "-m", "mindex", *args, "--json"], cwd=repo, env=on, capture_output=True,
                              text=True, input="")
        assert done.returncode == 0, done.stderr
    kinds = {q["kind"]: q for q in mindex(repo, "metrics")["queries"]}
    assert set(kinds) == {"search", "grep", "callers", "impact", "symbols", "exports"}
    assert kinds["symbols"]["count"] == 1 and kinds["exports"]["avg_results"] == 1
    assert kinds["grep"]["avg_results"] == 2 and kinds["callers"]["count"] == 1
    import sqlite3 as sq

    with sq.connect(repo / ".mindex" / "index.db") as conn:
        rows = conn.execute("SELECT session_id, kind, params FROM query_log ORDER BY id").fetchall()
    assert rows[0][0] == "s-log" and json.loads(rows[0][2])["query"] == "load the client"

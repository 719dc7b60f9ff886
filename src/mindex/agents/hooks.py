"""Session hooks: what an agent gets when a session starts, and what is kept when its
context is compacted or the session ends.

`session_start` reads the branch (and the issue it names), the files in flight and their code
areas, and returns the active workflow (phase, last actions and commits), the knowledge
context for those files and that issue, and the latest handoff memory, within a token budget
(characters / 4). It loads no model.

`capture` (pre-compact and session-end) turns the session's new conventional commits into
knowledge (a `fix` into a mistake that LED_TO a learning; `chore` and `style` are skipped),
linked to the files each commit changed, logs them on the active workflow, and saves a
handoff memory with the workflow state and the files in flight. It is idempotent: a commit is
captured once (`captured_commits`), and a handoff is saved only when the state changed.

The payload is the JSON Claude Code sends on stdin (session_id, transcript_path, cwd,
hook_event_name, source or trigger); any other agent can call the commands with no payload.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from mindex.agents import gitinfo
from mindex.memory.contextmd import shorten

if TYPE_CHECKING:
    from mindex.store.workflows import Workflow
    from mindex.index import Index
    from mindex.store.sqlite import SQLiteStore

SKIPPED_TYPES = ("chore", "style")
CONFIDENCE = {"fix": 0.8, "feat": 0.7, "perf": 0.7, "refactor": 0.6, "revert": 0.7}
MAX_TRANSCRIPT_BYTES = 64 * 1024 * 1024
MAX_FILES = 30


@dataclass(frozen=True)
class Situation:
    """Where a session is: its folder, branch, issue, HEAD and files in flight."""

    cwd: Path
    root: Path | None  # the git work tree, None outside git
    branch: str | None
    issue: int | None
    head: str | None
    files: tuple[str, ...]


def situation(cwd: Path, issue_pattern: str = gitinfo.DEFAULT_ISSUE_PATTERN) -> Situation:
    root = gitinfo.toplevel(cwd)
    if root is None:
        return Situation(cwd, None, None, None, None, ())
    name = gitinfo.branch(root)
    return Situation(cwd, root, name, gitinfo.issue_of(name, issue_pattern), gitinfo.head(root),
                     tuple(gitinfo.files_in_flight(root)))


def _when(t: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(t))


def _workflow_lines(wf: Workflow) -> list[str]:
    lines = [f"## Workflow {wf.id}: issue #{wf.issue}, phase **{wf.phase}**, {wf.status}"
             + (f", {wf.retries} retries" if wf.retries else "") + f" (branch {wf.branch})"]
    for a in wf.actions[-5:]:
        lines.append(f"- {_when(a.at)} {a.action} → {a.result}")
    if wf.commits:
        lines.append("Commits so far: " + "; ".join(f"{c.sha[:7]} {shorten(c.message, 60)}" for c in wf.commits[-5:]))
    return lines


def session_start(index: Index, where: Situation, budget: int = 1500, session_id: str | None = None) -> dict[str, Any]:
    """The context for a new (or resumed, or compacted) session, within `budget` tokens.
    Returns {"markdown", "tokens", "workflow", "issue", "branch", "files", "included"}."""
    from mindex.errors import MindexError
    from mindex.store.workflows import Checkpoints

    book = index.memory  # it reads in the handoff a pre-compact hook could only write to the journal
    checkpoints = Checkpoints(cast("SQLiteStore", index.store))
    wf = None
    if where.branch:
        wf = checkpoints.active_for_branch(where.branch)
    if wf is None and where.issue is not None:
        wf = checkpoints.find(where.issue)
        wf = wf if wf and wf.status in ("running", "paused") else None
    issue = where.issue if where.issue is not None else (wf.issue if wf else None)
    head = ["# Session context (mindex)"]
    facts = []
    if where.branch:
        facts.append(f"branch `{where.branch}`")
    elif where.root is not None:
        facts.append("detached HEAD")
    if issue is not None:
        facts.append(f"issue #{issue}")
    if where.files:
        from mindex.memory.knowledge import area_of

        areas = sorted({area_of(f, index.memory_settings.areas) for f in where.files})
        facts.append(f"{len(where.files)} file{'s' * (len(where.files) != 1)} in flight ({', '.join(where.files[:8])}"
                     + (", …" if len(where.files) > 8 else "") + f"; areas: {', '.join(areas[:6])})")
    if facts:
        head.append(" · ".join(facts))
    if wf is not None:
        head += [""] + _workflow_lines(wf)
    handoffs = book.recent(1, types=("handoff",), tags=(f"#{issue}",)) if issue is not None else []
    handoffs = handoffs or book.recent(1, types=("handoff",))
    handoff = []
    if handoffs:
        h = handoffs[0]
        facets = h.facets or {}
        handoff = ["", f"## Latest handoff ({str(facets.get('at', ''))[:16]}, {facets.get('id')})", shorten(h.text, 1200)]
    limit = budget * 4
    top = "\n".join(head + handoff) + "\n"
    if len(top) > limit:  # the state comes first; cut the handoff, then the rest, to fit
        top = ("\n".join(head) + "\n")[:limit]
    room = (limit - len(top) - 2) // 4
    included = int(wf is not None) + int(bool(handoffs))
    body = ""
    if room >= 50:
        try:
            ctx = book.context(files=where.files[:MAX_FILES], issue=str(issue) if issue is not None else None,
                               budget=room)
        except MindexError as exc:  # e.g. a locked index on the first use of knowledge: say the rest
            import sys

            print(f"mindex hook session-start: no knowledge context: {exc}", file=sys.stderr)
            ctx = {"included": 0, "markdown": ""}
        if ctx["included"]:
            body = "\n" + ctx["markdown"].replace("# Project memory (mindex)", "## What was learned here", 1)
            included += ctx["included"]
    text = (top + body)[:limit]
    if session_id:
        try:
            _record_start(index, session_id, where, wf, included)
        except MindexError as exc:  # a locked index: the context still goes out
            import sys

            print(f"mindex hook session-start: session not recorded: {exc}", file=sys.stderr)
    return {"markdown": text, "tokens": -(-len(text) // 4), "budget": budget, "included": included,
            "workflow": wf.id if wf else None, "issue": issue, "branch": where.branch, "files": list(where.files)}


def _record_start(index: Index, session_id: str, where: Situation, wf: Workflow | None, injected: int) -> None:
    """The session's row: its start and HEAD (kept from the first call), what was injected."""
    cast("SQLiteStore", index.store).open_session(session_id, str(where.cwd), where.branch, where.issue,
                                                  wf.id if wf else None, where.head, injected)


def files_read(transcript: str | None) -> int | None:
    """Distinct files the agent read in its transcript (Claude Code's JSONL: Read tool uses)."""
    if not transcript:
        return None
    path = Path(transcript).expanduser()
    try:
        if not path.is_file() or path.stat().st_size > MAX_TRANSCRIPT_BYTES:
            return None
        seen = set()
        with path.open(encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if '"tool_use"' not in line:
                    continue
                try:
                    content = json.loads(line).get("message", {}).get("content", [])
                except (json.JSONDecodeError, AttributeError):
                    continue
                for item in content if isinstance(content, list) else []:
                    if isinstance(item, dict) and item.get("type") == "tool_use" and item.get("name") == "Read":
                        target = (item.get("input") or {}).get("file_path")
                        if isinstance(target, str):
                            seen.add(target)
        return len(seen)
    except OSError:
        return None


def capture(index: Index, where: Situation, session_id: str | None, event: str,
            transcript: str | None = None) -> dict[str, Any]:
    """Pre-compact / session-end: new conventional commits → knowledge, a handoff memory.
    Returns what was added: {"learnings", "mistakes", "commits", "skipped", "handoff"}."""
    from mindex.store.workflows import Checkpoints

    store = cast("SQLiteStore", index.store)
    book = index.memory
    checkpoints = Checkpoints(store)
    sid = session_id or f"manual-{time.strftime('%Y%m%d')}"
    row = store.session_row(sid)
    if row is None:
        since = gitinfo.merge_base(where.root) if where.root else None
        store.open_session(sid, str(where.cwd), where.branch, where.issue, None, since)
        last_handoff = None
    else:
        since, last_handoff = row
    wf = checkpoints.active_for_branch(where.branch) if where.branch else None
    added: dict[str, Any] = {"learnings": 0, "mistakes": 0, "commits": 0, "skipped": 0, "handoff": None}
    found = gitinfo.commits(where.root, since) if where.root else []
    issues = (str(where.issue),) if where.issue is not None else ()
    for commit in found:
        if store.commit_captured(commit.sha):
            continue
        marker = f"commit-{commit.sha[:12]}"
        exists = store.tag_exists(marker)
        if commit.kind and commit.kind not in SKIPPED_TYPES and not exists:
            files = commit.files[:MAX_FILES]
            tags = (commit.kind, marker, *(("breaking",) if commit.breaking else ()))
            scope = f"({commit.scope})" if commit.scope else ""
            body = f"\n\n{commit.body}" if commit.body else ""
            breaking = " (breaking)" if commit.breaking else ""
            learning = book.add_knowledge(
                "learning", f"{commit.description}{breaking}{body}\n\n(from commit {commit.sha[:7]}, {commit.kind}{scope})",
                title=shorten(commit.description, 80), files=files, confidence=CONFIDENCE.get(commit.kind, 0.5),
                issues=issues, tags=tags, embed=False)
            added["learnings"] += 1
            if commit.kind == "fix":
                book.add_knowledge(
                    "mistake", f"Bug fixed in commit {commit.sha[:7]}{' ' + scope if scope else ''}: "
                               f"{commit.description}{body}",
                    title=shorten(f"Bug: {commit.description}", 80), files=files, confidence=0.8,
                    led_to=(learning["id"],), issues=issues, tags=(marker,), embed=False)
                added["mistakes"] += 1
        elif not commit.kind:
            added["skipped"] += 1
        store.mark_captured(commit.sha, sid)
        if wf is not None:
            checkpoints.log_commit(wf.id, commit.sha, commit.subject)
        added["commits"] += 1
    if wf is not None:
        wf = checkpoints.get(wf.id, actions=5)
    digest, added["handoff"] = _save_handoff(index, where, sid, event, wf, found, last_handoff)
    read = files_read(transcript)
    store.close_session(sid, digest, added["learnings"] + added["mistakes"], int(event == "pre-compact"), read,
                        event == "session-end")
    return added


def handoff_only(index: Index, where: Situation, session_id: str | None, event: str) -> dict[str, Any]:
    """`capture` when an indexer holds the index past the hooks' short wait: the handoff is
    written to the journal alone (the record; the next run indexes it) from what can be read
    now, and the commits wait for the next hook, so compaction loses no state."""
    from mindex.store.workflows import Checkpoints

    store = cast("SQLiteStore", index.store)
    sid = session_id or f"manual-{time.strftime('%Y%m%d')}"
    row = store.session_row(sid)
    since, last_handoff = row if row is not None else (gitinfo.merge_base(where.root) if where.root else None, None)
    checkpoints = Checkpoints(store)
    wf = checkpoints.active_for_branch(where.branch) if where.branch else None
    wf = checkpoints.get(wf.id, actions=5) if wf is not None else None
    found = gitinfo.commits(where.root, since) if where.root else []
    _, handoff = _save_handoff(index, where, sid, event, wf, found, last_handoff, write_index=False)
    return {"learnings": 0, "mistakes": 0, "commits": 0, "skipped": 0, "handoff": handoff, "deferred": True}


def _save_handoff(index: Index, where: Situation, sid: str, event: str, wf: Workflow | None,
                  commits: list[gitinfo.CommitInfo], last_handoff: str | None,
                  write_index: bool = True) -> tuple[str, str | None]:
    """Save the state as a handoff memory unless the session's last handoff said the same or
    there is nothing to say; returns the state's digest and the new entry's id (or None)."""
    state = _handoff_text(where, wf, commits)
    digest = hashlib.sha1(state.encode()).hexdigest()[:16]
    if digest == last_handoff or not (wf is not None or commits or where.files):
        return digest, None
    tags = ("session", *((f"#{where.issue}",) if where.issue is not None else ()))
    saved = index.memory.save(f"{state}\n\n({event}, session {sid})", "handoff", tags, where.files[:MAX_FILES],
                              embed=False, index=write_index)
    return digest, saved.entry.id


def _handoff_text(where: Situation, wf: Workflow | None, commits: list[gitinfo.CommitInfo]) -> str:
    """The state a handoff records (no times, so the same state gives the same text)."""
    lines = ["Handoff: where the work stands."]
    if where.branch or where.issue is not None:
        lines.append(f"Branch {where.branch or '(detached)'}" + (f", issue #{where.issue}" if where.issue is not None else ""))
    if wf is not None:
        lines.append(f"Workflow {wf.id}: phase {wf.phase}, {wf.status}"
                     + (f"; last action: {wf.actions[-1].action} → {wf.actions[-1].result}" if wf.actions else ""))
    if commits:
        lines.append("Commits on this branch in the session: " + "; ".join(
            f"{c.sha[:7]} {shorten(c.subject, 70)}" for c in commits[-8:]))
    if where.files:
        lines.append(f"Files in flight ({len(where.files)}): " + ", ".join(where.files[:MAX_FILES]))
    return "\n".join(lines)


def read_payload(text: str) -> dict[str, Any]:
    """The hook's stdin as a dict ({} when empty); anything else is an error the caller logs."""
    if not text.strip():
        return {}
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("the hook input is JSON but not an object")
    return data


def cwd_of(payload: dict[str, Any]) -> Path:
    cwd = payload.get("cwd")
    return Path(cwd) if isinstance(cwd, str) and cwd and os.path.isdir(cwd) else Path.cwd()

"""What the hooks read from git: the branch and the issue it names, the files in flight
(working tree plus the branch's commits since its merge-base with the default branch) and
conventional commits. Every call has a short timeout; no git, no repository or a detached
HEAD give empty answers, never an error.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

DEFAULT_ISSUE_PATTERN = r"(?:^|[/_-])(?:issue|gh|GH)?[-_#]?(\d{1,7})(?=$|[-_/])"
# type(scope)!: subject — https://www.conventionalcommits.org/en/v1.0.0/
_CONVENTIONAL = re.compile(r"^(?P<type>[a-zA-Z]+)(?:\((?P<scope>[^()\n]*)\))?(?P<bang>!)?:\s+(?P<subject>\S.*)$")
_SEP = "\x1e"  # between commits
_FIELD = "\x1f"


def git(cwd: Path, *args: str, timeout: float = 3.0) -> str | None:
    """stdout of a git command, or None when git is missing, times out or fails."""
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, errors="replace",
                              timeout=timeout, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def toplevel(cwd: Path) -> Path | None:
    out = git(cwd, "rev-parse", "--show-toplevel")
    return Path(out.strip()) if out else None


def branch(cwd: Path) -> str | None:
    """The checked-out branch, None on a detached HEAD or outside git."""
    out = git(cwd, "symbolic-ref", "--quiet", "--short", "HEAD")
    return out.strip() or None if out else None


def head(cwd: Path) -> str | None:
    out = git(cwd, "rev-parse", "--verify", "--quiet", "HEAD")
    return out.strip() or None if out else None


def issue_of(name: str | None, pattern: str = DEFAULT_ISSUE_PATTERN) -> int | None:
    """The issue number a branch names: feat/123-retry, issue-123, 123-fix, gh-123."""
    if not name:
        return None
    m = re.search(pattern, name)
    if not m:
        return None
    try:
        return int(m.group(1) if m.groups() else m.group(0))
    except ValueError:
        return None


def default_branch(cwd: Path) -> str | None:
    """origin's HEAD branch, else main, else master, if it exists."""
    out = git(cwd, "symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD")
    if out and out.strip():
        return out.strip()
    for name in ("main", "master", "trunk", "develop"):
        if git(cwd, "rev-parse", "--verify", "--quiet", f"refs/heads/{name}") is not None:
            return name
    return None


def merge_base(cwd: Path, base: str | None = None) -> str | None:
    base = base or default_branch(cwd)
    if not base:
        return None
    out = git(cwd, "merge-base", base, "HEAD")
    return out.strip() or None if out else None


def files_in_flight(cwd: Path) -> list[str]:
    """Changed files, repository-relative: the working tree and index (modified, added,
    untracked, renamed to), then those the branch changed since its merge-base; not those
    under `.mindex/`."""
    seen: dict[str, None] = {}
    status = git(cwd, "status", "--porcelain=v1", "-z", "--untracked-files=all")
    if status:
        items = status.split("\0")
        i = 0
        while i < len(items):
            item = items[i]
            i += 1
            if len(item) < 4:
                continue
            code, path = item[:2], item[3:]
            if code[0] in "RC":
                i += 1  # the next item is the old name
            if "D" not in code:
                seen.setdefault(path, None)
    base = merge_base(cwd)
    current = head(cwd)
    if base and current and base != current:
        out = git(cwd, "diff", "--name-only", "--diff-filter=d", "-z", f"{base}..HEAD")
        for path in (out or "").split("\0"):
            if path:
                seen.setdefault(path, None)
    # Our own state is not work in flight, nor are backups an older mindex install left beside
    # the files it changed (`.mcp.json.mindex-backup-20261120-101500`).
    return [path for path in seen if not path.startswith(".mindex/") and ".mindex-backup-" not in path]


@dataclass(frozen=True)
class CommitInfo:
    """A commit as the hooks read it; `kind`/`scope`/`breaking` when it is conventional."""

    sha: str
    at: float
    subject: str
    body: str
    files: tuple[str, ...]
    kind: str | None = None
    scope: str | None = None
    breaking: bool = False
    description: str = ""


def parse_conventional(subject: str, body: str) -> tuple[str | None, str | None, bool, str]:
    """(type, scope, breaking, description) of a conventional commit message, or Nones."""
    m = _CONVENTIONAL.match(subject.strip())
    if not m:
        return None, None, False, subject.strip()
    breaking = bool(m.group("bang")) or bool(re.search(r"^BREAKING[ -]CHANGE:", body, re.MULTILINE))
    return m.group("type").lower(), (m.group("scope") or "").strip() or None, breaking, m.group("subject").strip()


def commits(cwd: Path, since_rev: str | None, limit: int = 200) -> list[CommitInfo]:
    """Commits reachable from HEAD but not from `since_rev` (all of HEAD's when None), oldest
    first, with the files each changed; merges are skipped."""
    rng = [f"{since_rev}..HEAD"] if since_rev else ["HEAD"]
    out = git(cwd, "log", "--no-merges", f"--max-count={limit}", "--name-only",
              f"--format={_SEP}%H{_FIELD}%ct{_FIELD}%s{_FIELD}%b{_FIELD}", *rng, timeout=5.0)
    found = []
    for record in (out or "").split(_SEP)[1:]:
        parts = record.split(_FIELD)
        if len(parts) < 5:
            continue
        sha, ct, subject, body, names = parts[0], parts[1], parts[2], parts[3], parts[4]
        kind, scope, breaking, description = parse_conventional(subject, body)
        found.append(CommitInfo(sha, float(ct), subject, body.strip(),
                                tuple(n for n in names.strip().splitlines() if n), kind, scope, breaking, description))
    return list(reversed(found))

"""Build the superseding-decisions dev set: a year of three projects' real history as memory
journals, where a tool's pinned version changes again and again and the question asks which
one holds now.

Origin: the public git histories of psf/black (MIT), encode/httpx (BSD-3-Clause),
pydantic/pydantic (MIT), encode/starlette (BSD-3-Clause) and fastapi/fastapi (MIT), at the
commits pinned below. Read from local clones; nothing of
them but tool names, version strings and commit subjects reaches the journals, which are
written under `benchmarks/.cache/supersede` (git-ignored).

Construction, per project, over the 365 days ending at its last change of a pin:
- every commit subject of those days becomes a `progress` entry at the commit's time (the
  distractors a real journal holds: "Upgrade mypy (#4749)", "Fix mypy type issue");
- every change of a pinned version (a `rev:` of `.pre-commit-config.yaml`, a `name==version`
  of `requirements.txt` or `pyproject.toml`, an action's `uses: owner/name@v4` in a
  workflow; one entry per tool and commit) becomes a `decision` entry at the commit's time, worded by one of
  four templates picked by a hash ("Bumped mypy to v1.7.0 in .pre-commit-config.yaml (...)",
  "Decided to move ... from 1.5 to 1.7", ...), so old and new entries of a tool are not
  worded alike;
- each tool pinned at least three times in those days gives one question ("Which version of
  mypy do we pin now?", one of three templates), judged by the newest decision entry only; the
  older decisions about the tool are listed as `superseded`.
Every entry is tagged with its project; a question searches its own project (a `filter`).
"Answered newest-first" (bench_quality.py) counts a question when the newest decision is in
the top 10 and above every superseded one.

    python benchmarks/devset_supersede.py --black DIR --httpx DIR --pydantic DIR --starlette DIR --fastapi DIR

The output is deterministic for the pinned commits.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
from collections import defaultdict
from datetime import datetime, timedelta, timezone
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE))

from devset_memory import write_month  # noqa: E402
from mindex.memory import journal  # noqa: E402

PROJECTS = {  # name: head commit read; the pins followed are PINNED's files at that commit
    "black": "dff8d910",
    "httpx": "4b23574c",
    "pydantic": "d8fbf4cc5",
    "starlette": "cb8f84f5",
    "fastapi": "c3f316b7e",
}
PINNED = re.compile(r"^(?:\.pre-commit-config\.yaml|requirements\.txt|pyproject\.toml|\.github/workflows/[^/]+\.ya?ml)$")
MIN_CHANGES = 2  # a tool pinned again in the year (one decision superseded) gives a question
_REPO = re.compile(r"^\s*-\s*repo:\s*(\S+)")
_REV = re.compile(r"^\s*rev:\s*['\"]?([^'\"\s#]+)")
_REQ = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==([^\s;#'\",]+)")
_QUOTED = re.compile(r"['\"]([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==([^\s;#'\",]+)['\"]")
_USES = re.compile(r"^\s*(?:-\s*)?uses:\s*['\"]?([\w.-]+/[\w.-]+)@([\w.-]+)")
SAY = (
    "Bumped {tool} to {new} in {file} ({subject}).",
    "{tool} is now pinned at {new} in {file}; {subject}.",
    "Decided to move {tool} from {old} to {new} ({file}). Commit: {subject}.",
    "Upgrade: {file} uses {tool} {new} from today. {subject}",
)
ASK = (
    "Which version of {tool} do we pin now?",
    "What is {tool} pinned to at the moment?",
    "What {tool} version are we on?",
)


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def pins(text: str, name: str) -> dict[str, str]:
    """Tool -> pinned version in one file's text."""
    found: dict[str, str] = {}
    if name.startswith(".github/"):
        for line in text.splitlines():
            if m := _USES.match(line):
                found[m.group(1).rsplit("/", 1)[-1]] = m.group(2)
    elif name.endswith("pyproject.toml"):
        found = {m.group(1).lower(): m.group(2) for m in _QUOTED.finditer(text)}
    elif name.endswith(".yaml"):
        repo = None
        for line in text.splitlines():
            if m := _REPO.match(line):
                repo = m.group(1).rstrip("/").rsplit("/", 1)[-1].removeprefix("mirrors-").removesuffix("-pre-commit")
            elif (m := _REV.match(line)) and repo and repo != "local":
                found[repo] = m.group(1)
    else:
        for line in text.splitlines():
            if m := _REQ.match(line.strip()):
                found[m.group(1).lower()] = m.group(2)
    return found


def pick(options: tuple[str, ...], *key: str) -> str:
    return options[int(hashlib.sha256("|".join(key).encode()).hexdigest(), 16) % len(options)]


def history(repo: Path, head: str) -> tuple[list[dict], list[dict]]:
    """The year's commits (time, subject) and pin changes (time, tool, old, new, file, subject);
    a tool bumped in several files by one commit is one change."""
    changes = []
    seen = set()
    files = [f for f in git(repo, "ls-tree", "-r", "--name-only", head).splitlines() if PINNED.match(f)]
    for name in files:
        before: dict[str, str] = {}
        log = git(repo, "log", "--reverse", "--format=%H%x09%ct%x09%s", head, "--", name).splitlines()
        for line in log:
            sha, stamp, subject = line.split("\t", 2)
            try:
                now = pins(git(repo, "show", f"{sha}:{name}"), name)
            except subprocess.CalledProcessError:
                now = {}
            for tool, version in now.items():
                if re.fullmatch(r"[0-9a-f]{40}", version):  # a commit, not a version
                    continue
                if before.get(tool) not in (None, version) and (sha, tool) not in seen:
                    seen.add((sha, tool))
                    changes.append({"at": int(stamp), "tool": tool, "old": before[tool], "new": version,
                                    "file": name, "subject": subject, "sha": sha})
            before = now
    end = max(c["at"] for c in changes)
    start = end - 365 * 86400
    changes = sorted((c for c in changes if c["at"] >= start), key=lambda c: (c["at"], c["tool"]))
    commits = [{"at": int(stamp), "subject": subject} for stamp, subject in
               (line.split("\t", 1) for line in git(repo, "log", "--format=%ct%x09%s", f"--since={start}",
                                                    f"--until={end}", head).splitlines())]
    return commits, changes


def build(clones: dict[str, Path], out: Path) -> tuple[int, int]:
    journals = out / "journal"
    journals.mkdir(parents=True, exist_ok=True)
    for stale in journals.glob("*.md"):
        stale.unlink()
    entries = 0
    queries = []
    for project, head in PROJECTS.items():
        commits, changes = history(clones[project], head)
        items = [(None, journal.Entry(f"{project}-c{i:05d}", datetime.fromtimestamp(c["at"], timezone.utc),
                                      "progress", c["subject"], (project,)))
                 for i, c in enumerate(commits)]
        for i, c in enumerate(changes):
            text = pick(SAY, c["tool"], c["new"]).format(**c)
            # a decision is written a minute after its commit, so it sorts after the commit's entry
            at = datetime.fromtimestamp(c["at"], timezone.utc) + timedelta(minutes=1)
            items.append((c, journal.Entry(f"{project}-d{i:04d}", at, "decision", text, (project,))))
        items.sort(key=lambda item: item[1].at)
        by_month: dict[str, list] = defaultdict(list)
        for item in items:
            by_month[f"{project}-{item[1].at:%Y-%m}"].append(item)
        spans: dict[str, list[dict]] = defaultdict(list)  # tool -> its decisions' spans, oldest first
        for stem, month in sorted(by_month.items()):
            for change, span in write_month(journals, f"{stem}.md", month):
                if change is not None:
                    spans[change["tool"]].append(span)
            entries += len(month)
        for tool, found in sorted(spans.items()):
            if len(found) < MIN_CHANGES:
                continue
            queries.append({"qid": f"{project}-{tool}", "query": pick(ASK, project, tool).format(tool=tool),
                            "relevant": [found[-1]], "superseded": found[:-1], "filter": {"tags": [project]},
                            "tag": project, "project": project})
    with (out / "supersede.jsonl").open("w", encoding="utf-8") as fh:
        for q in queries:
            fh.write(json.dumps(q) + "\n")
    return entries, len(queries)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for name in PROJECTS:
        parser.add_argument(f"--{name}", type=Path, required=True, help=f"a clone of {name} holding its pinned commit")
    parser.add_argument("--out", type=Path, default=HERE / ".cache" / "supersede")
    args = parser.parse_args()
    entries, count = build({name: getattr(args, name) for name in PROJECTS}, args.out)
    print(f"{entries} journal entries, {count} queries in {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()

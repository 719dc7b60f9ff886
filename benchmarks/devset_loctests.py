"""Build the `loc-tests` dev set: which file to change, in trees that hold their tests, so a
ranking that puts test files first where the answer is code shows (and the other way round).

Origin: the public git histories of encode/starlette (BSD-3-Clause), encode/httpx
(BSD-3-Clause) and pydantic/pydantic (MIT), read from local clones. The corpus is each
project's tree at a release tag (`PROJECTS`: every `.py` file, the library and its tests);
the queries are the commits after that tag that change `.py` files, at most `LIMIT` a
project (along the first-parent line: pydantic merged another history in). Neither the loc set's projects (SQLAlchemy, Black) nor its construction's corpus
(an sdist, which holds no tests) are shared.

Each commit's message becomes the question as in the loc set (`devset_more.issue_text`: no
trailers, no template, no file names). It is judged by the files it changed that exist in
the corpus: the non-test files when it changed any (`category: code`; the question is about
the code even when the commit also touched tests), else its test files (`category: test`:
"Fix flaky test ...", "Add tests for ..."). A path is a test when a folder of it is `tests`
or `test`, or its name is `test_*.py`, `*_test.py` or `conftest.py`. Chores (version bumps,
release notes, typos) and messages under six words are left out.

    python benchmarks/devset_loctests.py --starlette DIR --httpx DIR --pydantic DIR
    python benchmarks/devset_loctests.py --heldout --poetry DIR      # loc-tests-poetry
    python benchmarks/devset_loctests.py --go-ts --chi DIR --ky DIR  # loc-go-ts (Go and TypeScript)

Writes the trees under `benchmarks/.cache/loc-tests/` and `benchmarks/.cache/loc-tests.jsonl`
(git-ignored; deterministic for the pinned tags and heads).
"""

from __future__ import annotations

import argparse
import io
import json
import re
import subprocess
import sys
import tarfile
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

from devset_more import issue_text  # noqa: E402

PROJECTS = {  # name: (release tag the corpus is read at, newest commit the questions come from)
    "starlette": ("0.40.0", "cb8f84f5"),
    "httpx": ("0.27.0", "4b23574c"),
    "pydantic": ("v2.11.0", "d8fbf4cc5"),
}
# `--heldout`: the `loc-tests-poetry` set, built the same way from python-poetry/poetry (MIT),
# kept apart because the test-file penalty was chosen on loc-tests: its figure checks that choice.
HELDOUT = {"poetry": ("2.0.0", "f46702336")}
# `--go-ts`: the `loc-go-ts` set, the same construction in two more languages: go-chi/chi (Go,
# MIT) and sindresorhus/ky (TypeScript, MIT).
GO_TS = {"chi": ("v5.0.0", "735ae2b"), "ky": ("v0.30.0", "3419113")}
EXTENSIONS = {"chi": ".go", "ky": ".ts"}  # others: .py
LIMIT = 120  # commits read a project, oldest first
_CHORE = re.compile(r"^(Bump|Prepare|Release|Version|- |(docs|ci|chore|build|style)\b[(:])", re.IGNORECASE)


def is_test(path: str) -> bool:
    """A test file: under a `tests`/`test` folder, or named test_*.py, *_test.py, *_test.go,
    *.test.ts, *.spec.ts or conftest.py."""
    parts = path.split("/")
    name = parts[-1]
    return (any(p in ("tests", "test") for p in parts[:-1]) or name.startswith("test_")
            or re.search(r"(_test\.(py|go)|\.(test|spec)\.ts)$", name) is not None or name == "conftest.py")


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def tree(repo: Path, tag: str, into: Path, ext: str = ".py") -> set[str]:
    """Write the tag's source files (`ext`) under `into`; return their paths."""
    data = subprocess.run(["git", "-C", str(repo), "archive", "--format=tar", tag], check=True,
                          capture_output=True).stdout
    present = set()
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        for member in tar.getmembers():
            if member.isfile() and member.name.endswith(ext) and not member.name.endswith(".d.ts"):
                target = into / member.name
                target.parent.mkdir(parents=True, exist_ok=True)
                handle = tar.extractfile(member)
                assert handle is not None
                target.write_bytes(handle.read())
                present.add(member.name)
    return present


def questions(repo: Path, name: str, tag: str, head: str, present: set[str], ext: str = ".py") -> list[dict]:
    log = git(repo, "log", "--reverse", "--first-parent", "--no-merges", "--format=%x00%H%x01%B%x02", "--name-only",
              f"{tag}..{head}", "--", f"*{ext}")
    out = []
    for record in log.split("\x00")[1:][:LIMIT]:
        sha, rest = record.split("\x01", 1)
        message, files = rest.split("\x02", 1)
        changed = [f for f in dict.fromkeys(files.split()) if f in present]
        code = [f for f in changed if not is_test(f)]
        tests = [f for f in changed if is_test(f)]
        text = issue_text(message)
        if not changed or len(text.split()) < 6 or _CHORE.match(text) or re.search(r"\btypos?\b", text.split("\n")[0], re.I):
            continue
        relevant, category = (code, "code") if code else (tests, "test")
        out.append({"qid": f"{name}:{sha[:12]}", "query": text, "project": name, "category": category,
                    "commit": sha, "relevant": [{"path": f"{name}/{f}"} for f in relevant]})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--heldout", action="store_true", help="build loc-tests-poetry from --poetry instead")
    parser.add_argument("--go-ts", action="store_true", help="build loc-go-ts from --chi and --ky instead")
    for name in [*PROJECTS, *HELDOUT, *GO_TS]:
        parser.add_argument(f"--{name}", type=Path, help=f"a clone of {name}")
    parser.add_argument("--out", type=Path, default=HERE / ".cache")
    args = parser.parse_args()
    projects, set_name = ((HELDOUT, "loc-tests-poetry") if args.heldout else (GO_TS, "loc-go-ts") if args.go_ts
                          else (PROJECTS, "loc-tests"))
    root = args.out / set_name
    queries = []
    for name, (tag, head) in projects.items():
        repo = getattr(args, name)
        if repo is None:
            parser.error(f"--{name} DIR is needed")
        ext = EXTENSIONS.get(name, ".py")
        present = tree(repo, tag, root / name, ext)
        queries += questions(repo, name, tag, head, present, ext)
    with (args.out / f"{set_name}.jsonl").open("w", encoding="utf-8") as fh:
        for q in queries:
            fh.write(json.dumps(q, ensure_ascii=False) + "\n")
    counts = {c: sum(q["category"] == c for q in queries) for c in ("code", "test")}
    print(f"{len(queries)} queries ({counts}) in {args.out / f'{set_name}.jsonl'}", file=sys.stderr)


if __name__ == "__main__":
    main()

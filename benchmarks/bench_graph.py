"""How often the code graph's call edges are right: mindex beside jedi's goto and Go's type
checker on real packages.

For every call made on a plain name (`ctx.invoke(...)`, not `self.f()` or `f()`) in a
package's Python files, jedi 0.19 (`Script.goto`, following imports, and past a line that
imports the name or binds it to another, `s = attrs`) says which definition it reaches; in Go, the standard library's type checker (`go/types`, go_calls.go: non-test
files, imports from source in GOPATH mode); in TypeScript, TypeScript 5.6's checker
(ts_calls.js: every .ts file but tests and declarations as one program; of an overloaded
method, the implementation). A call it takes to a definition in the package is
judged, one it takes elsewhere (the standard library, a dependency) counts as a call out of
the package. The
graph's edges for the call at the default minimum confidence (0.2, what `graph callers` and
`callees` show) are then:
- right: one of them is jedi's definition (a definition whose lines hold jedi's line);
- wrong: shown, none of them jedi's (for a call out of the package, any edge is wrong).
Recall is right / judged calls; precision is right / calls with an edge shown. jedi is not
always right either, and gives nothing for many calls (those are not counted).

Packages: click 8.1.7 and httpx 0.28.1 (sdists from PyPI, BSD-3-Clause), rich 14.2.0 (MIT; the
code dev set's copy, docstrings blanked, lines kept), and from the same set attrs 25.4.0's
`attr` package (MIT) and jinja2 3.1.6 (BSD-3-Clause), added in the eleventh session; in Go,
the code-go dev set's copies from Debian's packages (benchmarks/devset.py): cobra 1.6.1
(Apache-2.0), mux 1.8.0 (BSD-3-Clause), logrus 1.9.0 (MIT); in TypeScript, the code-ts dev
set's rxjs 7.8.1 (Apache-2.0) and, added in the eleventh session, @tanstack/query-core 5.59.20's
`src/` (MIT; `npm pack`); in Java (2026-11-28), javac 17's own attribution
(JavaCalls.java: every file of the main sources as one compilation, missing libraries left
unresolved) on gson's `gson/src/main/java` (github.com/google/gson at 9835b6f, Apache-2.0)
and jsoup's `src/main/java` (github.com/jhy/jsoup at 46b6208, MIT), each cloned into
`benchmarks/.cache/code-java/` (`git clone https://github.com/google/gson
benchmarks/.cache/code-java/gson`, then that commit).

    pip install jedi==0.19.2; apt install golang-go openjdk-17-jdk-headless; npm i --prefix DIR typescript@5.6.3   # the references
    TYPESCRIPT=DIR/node_modules python benchmarks/bench_graph.py [--packages click httpx rich attrs jinja2 cobra mux logrus rxjs]

`--attributes` judges calls on an attribute of `self` or `this` instead (`self.pool.get()`),
`--chains` calls on an attribute of a name (`v.logger.Info()`, `client.pool.get()`: Python by
jedi, Go by `go_calls.go -chains`), `--results` calls on what a call returns or a `new`
makes (`c.Root().ExecuteC()`, `self.get_session().send()`, `new Builder().build()`: every
language; a call written over several lines is left out), `--bare` calls of a name alone
(`lowerCase(s)`, `helper()`: a function of the file, an import, a static import, a method of
the class or its bases), `--self` calls on `self` or `this` (`self.helper()`: the class's
method or one it inherits; Python by jedi, TypeScript and Java by their checkers).

Their answers are kept in benchmarks/.work/graph (jedi takes a minute a package).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
WORK = HERE / ".work" / "graph"
sys.path.insert(0, str(HERE.parent / "src"))

PACKAGES = {  # name: (pip spec, the folder of its code inside the sdist)
    "click": ("click==8.1.7", "click-8.1.7/src/click"),
    "httpx": ("httpx==0.28.1", "httpx-0.28.1/httpx"),
    "rich": (None, "rich/rich"),  # the code dev set's copy (benchmarks/devset.py)
    "attrs": (None, "attrs/attr"),  # the code dev set's copies too
    "jinja2": (None, "jinja2/jinja2"),
    # a whole project in a src layout: its tests call the API its packages offer (`attrs.define`)
    "attrs-project": ("attrs==24.2.0", "attrs-24.2.0"),
}
GO = {  # name: its import path (the code-go dev set's copies, benchmarks/devset.py)
    "cobra": "github.com/spf13/cobra", "mux": "github.com/gorilla/mux", "logrus": "github.com/sirupsen/logrus",
    "pflag": "github.com/spf13/pflag", "go-cmp": "github.com/google/go-cmp",
}
GO_SHOWN = ("cobra", "mux", "logrus")
TS = ("rxjs", "query-core", "express")  # the code-ts dev set's rxjs; query-core's src/ and express's lib/ from npm
NPM = {"query-core": ("@tanstack/query-core@5.59.20", "src"),  # npm pack: package/src holds its TypeScript
       "express": ("express@4.21.1", "lib")}  # CommonJS JavaScript (MIT), checked by TypeScript as JavaScript
JAVASCRIPT = ("express",)
JAVA = {  # name: its main sources in its repository, cloned to benchmarks/.cache/code-java (see the docstring)
    "gson": "gson/gson/src/main/java", "jsoup": "jsoup/src/main/java"}
MIN_CONFIDENCE = 0.2
ATTRIBUTES = False  # `--attributes`: calls on an attribute of `self` or `this` (`self.session.send()`)
CHAINS = False  # `--chains`: calls on an attribute of a name (`v.logger.Info()`, `client.pool.get()`)
RESULTS = False  # `--results`: calls on what a call returns (`c.Root().ExecuteC()`)
BARE = False  # `--bare`: calls of a name alone (`helper()`)
SELF = False  # `--self`: calls on `self` or `this` (`self.helper()`)
TESTS = ("_test.go", ".spec.ts", ".test.ts", ".d.ts")  # left out in Go and TypeScript, as the references do


def package_root(name: str) -> Path:
    """The package's code, downloaded and unpacked once."""
    if name in GO:
        return HERE / ".cache" / "code-go" / name
    if name in JAVA:
        root = HERE / ".cache" / "code-java" / JAVA[name]
        if not root.exists():
            raise SystemExit(f"{root} is missing: clone the repository as the docstring says")
        return root
    if name in NPM:
        target = WORK / "src" / name
        spec, inner = NPM[name]
        if not (target / "package" / inner).exists():
            target.mkdir(parents=True, exist_ok=True)
            packed = subprocess.run(["npm", "pack", spec, "--silent"], cwd=target, check=True,
                                    capture_output=True, text=True).stdout.split()[-1]
            with tarfile.open(target / packed) as tar:
                tar.extractall(target, filter="data")
        return target / "package" / inner
    if name in TS:
        return HERE / ".cache" / "code-ts" / name
    spec, inner = PACKAGES[name]
    if spec is None:
        root = HERE / ".cache" / "code" / inner
        if not root.exists():
            raise SystemExit(f"{root} is missing: run benchmarks/devset.py first")
        return root
    target = WORK / "src" / name
    if not (target / inner).exists():
        target.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory() as folder:
            subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                            spec, "-d", folder], check=True)
            (archive,) = Path(folder).glob("*.tar.gz")
            with tarfile.open(archive) as tar:
                tar.extractall(target, filter="data")
    return target / inner


def calls_on_names(index_root: Path, db: Path) -> list[tuple[str, int, int, str, list[tuple[str, int, int]]]]:
    """(path, line, column, call, the graph's edges at MIN_CONFIDENCE as (path, first line,
    last line)) of every call on a plain name in a Python file or a Go file not a test, from
    a fresh keyword index of the package."""
    from mindex import Index, IndexSettings
    from mindex.config import EmbedSettings
    from mindex.graph_types import SELF_WORDS

    with Index(db, IndexSettings(), embed=EmbedSettings(provider="none")) as index:
        index.add_source(index_root, name="pkg", kind="code")
        index.index(embed=False)
        graph = index.graph()
        out = []
        for doc_id, (_, path, language) in sorted(graph.files.items(), key=lambda item: item[1][1]):
            if language not in ("python", "go", "typescript", "javascript", "java") or path.endswith(TESTS):
                continue
            lines = (index_root / path).read_text(encoding="utf-8", errors="replace").splitlines()
            for ref in graph.refs(doc_id, "call"):
                head, _, attribute = ref.qualifier.partition(".")
                chain = head.isidentifier() and head not in SELF_WORDS and attribute.isidentifier()
                on_self = head in ("self", "this") and attribute.removeprefix("#").isidentifier()  # `this.#cache`
                on_result = ref.qualifier.endswith(")") and ref.qualifier not in SELF_WORDS and "\n" not in ref.qualifier
                if (ATTRIBUTES and not on_self) or (CHAINS and not chain) or (RESULTS and not on_result) or (
                        BARE and ref.qualifier) or (SELF and ref.qualifier not in ("self", "this")) or (
                        not ATTRIBUTES and not CHAINS and not RESULTS and not BARE and not SELF
                        and (not ref.qualifier.isidentifier() or ref.qualifier in SELF_WORDS)):
                    continue
                written = f"{ref.qualifier}.{ref.name}"
                text = lines[ref.line - 1] if ref.line <= len(lines) else ""
                if BARE:  # the name itself, called, and not a member's name
                    alone = re.search(rf"(?<![\w.$]){re.escape(ref.name)}\s*\(", text)
                    written, column = ref.name, (alone.start() if alone else -1)
                else:
                    at = text.find(written)
                    column = at + len(ref.qualifier) + 1 if at >= 0 else -1
                if column < 0:
                    continue
                if RESULTS:  # the checkers spell the receiver `()`: a call's text is not theirs
                    written = f"().{ref.name}"
                resolution = graph.resolve(ref)
                shown = [(t.path, t.start_line, t.end_line) for t, confidence in resolution.targets
                         if confidence >= MIN_CONFIDENCE]
                out.append((path, ref.line, column, written, shown))
        return out


def jedi_answers(name: str, root: Path, calls: list[tuple[str, int, int, str, list]]) -> dict[str, object]:
    """jedi's definition of each call: "path:line" inside the package, "out" elsewhere,
    None when it finds none (kept in WORK/jedi-<name>.json)."""
    cache = WORK / f"jedi-{name}{_mode()}.json"
    known: dict[str, object] = json.loads(cache.read_text()) if cache.exists() else {}
    missing = [c for c in calls if f"{c[0]}:{c[1]}:{c[2]}" not in known]
    if missing:
        import jedi

        # A src layout's packages are imported from its `src/`, before any installed copy (the
        # venv running this holds attrs too).
        project = jedi.Project(root.parent, sys_path=[str(root / "src"), *sys.path]) if (root / "src").is_dir() \
            else jedi.Project(root.parent)
        scripts: dict[str, jedi.Script] = {}
        started = time.perf_counter()
        for path, line, column, _, _ in missing:
            if path not in scripts:
                scripts[path] = jedi.Script(path=str(root / path), project=project)
            try:
                found = scripts[path].goto(line, column, follow_imports=True)
            except Exception:  # jedi's own failures: not judged
                found = []
            answer: object = None
            for definition in found:
                for _ in range(3):  # goto can stop at the import that offers the name (a package's
                    definition = _past_import(definition, project, scripts)  # stub first): follow it
                if definition is None:  # jedi failed following it: not judged
                    break
                where = definition.module_path
                if where is None or definition.line is None:
                    continue
                where = Path(where).resolve()
                inside = root.resolve() in where.parents
                if (BARE or SELF) and inside and definition.type not in ("function", "class"):
                    break  # `func()` of a parameter or a variable (`get = table.get`): no definition to judge
                answer = f"{where.relative_to(root.resolve()).as_posix()}:{definition.line}" if inside else "out"
                break
            known[f"{path}:{line}:{column}"] = answer
        print(f"  {name}: jedi answered {len(missing):,} calls in {time.perf_counter() - started:.0f} s",
              file=sys.stderr)
        WORK.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps(known, indent=0, sort_keys=True))
    return known


def _past_import(definition: Any, project: Any, scripts: dict[str, Any]) -> Any:
    """Where the name an import line offers is defined, when jedi's answer is that line
    (`from ._make import fields` in `attr/__init__.py`); the answer itself otherwise; None
    when jedi fails to follow it (it recurses without end on attrs' `from attr import define`)."""
    import jedi

    if definition is None:
        return None
    where = definition.module_path
    if where is None or definition.line is None:
        return definition
    lines = Path(where).read_text(encoding="utf-8", errors="replace").splitlines()
    text = lines[definition.line - 1] if definition.line <= len(lines) else ""
    before = "\n".join(lines[max(0, definition.line - 30) : definition.line])
    # the line is a `from m import a, b` or inside the parentheses of one
    in_import = re.search(r"(?:^|\n)[ \t]*from[ \t]+\S+[ \t]+import[ \t]*(?:\([^)]*|[^\n(]*)$", before) is not None
    found = re.search(rf"\b{re.escape(definition.name)}\b", text)
    # or a module binds the name to another (`s = attributes = attrs` in attr/__init__.py): the
    # call reaches what the last name is, as jedi's `infer` says and its `goto` does not
    bound = re.fullmatch(r"((?:[A-Za-z_]\w*[ \t]*=[ \t]*)+)([A-Za-z_]\w*)[ \t]*(?:#.*)?", text)
    if bound and definition.name in re.findall(r"\w+", bound.group(1)):
        in_import, found = True, re.search(rf"\b{bound.group(2)}\b(?=[ \t]*(?:#.*)?$)", text)
    if not in_import or found is None:
        return definition
    key = str(where)
    if key not in scripts:
        scripts[key] = jedi.Script(path=key, project=project)
    try:
        further = scripts[key].goto(definition.line, found.start(), follow_imports=True)
    except Exception:
        return None
    return further[0] if further and (further[0].module_path, further[0].line) != (where, definition.line) else definition


def _mode() -> str:
    """The suffix of a kind of calls' cached answers."""
    return ("-attributes" if ATTRIBUTES else "-chains" if CHAINS else "-results" if RESULTS else "-bare" if BARE
            else "-self" if SELF else "")


def checker_answers(name: str, calls: list[tuple[str, int, int, str, list]]) -> dict[str, object]:
    """Go's or TypeScript's checker's declaration of each call (go_calls.go, ts_calls.js), keyed
    as `jedi_answers`: "path:line" inside the package, "out" elsewhere, None when unknown."""
    cache = WORK / f"checker-{name}{_mode()}.jsonl"
    if not cache.exists() and name in JAVA:
        WORK.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(["java", str(HERE / "JavaCalls.java"),
                               *(["-results"] if RESULTS else ["-bare"] if BARE else ["-self"] if SELF else []),
                               str(package_root(name))], check=True,
                              capture_output=True, text=True)
        cache.write_text(done.stdout)
    if not cache.exists() and name in TS:
        WORK.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "NODE_PATH": os.environ.get("TYPESCRIPT", ""), "CALLS_IN": ".js" if name in JAVASCRIPT else ".ts",
               "CALLS_ON": "results" if RESULTS else "bare" if BARE else "self" if SELF else ""}
        done = subprocess.run(["node", str(HERE / "ts_calls.js"), str(package_root(name))], env=env, check=True,
                              capture_output=True, text=True)
        cache.write_text(done.stdout)
    if not cache.exists():
        gopath = WORK / "gopath"
        for other, path in GO.items():  # each copy where its import path says, for its importers
            link = gopath / "src" / path
            link.parent.mkdir(parents=True, exist_ok=True)
            if not link.exists():
                link.symlink_to(package_root(other).resolve())
        env = {**os.environ, "GO111MODULE": "off", "GOPATH": str(gopath), "GOFLAGS": ""}
        done = subprocess.run(["go", "run", str(HERE / "go_calls.go"), *(["-chains"] if CHAINS else []),
                               *(["-results"] if RESULTS else ["-bare"] if BARE else []), GO[name]],
                              env=env, check=True,
                              capture_output=True, text=True, cwd=WORK)
        cache.write_text(done.stdout)
    by_call = {}
    for line in cache.read_text().splitlines():
        row = json.loads(line)
        answer = None if not row["def_file"] else "out" if row["def_file"] == "out" else f"{row['def_file']}:{row['def_line']}"
        by_call[f"{row['file']}:{row['line']}:{row['call']}"] = answer
    return {f"{c[0]}:{c[1]}:{c[2]}": by_call.get(f"{c[0]}:{c[1]}:{c[3]}") for c in calls}


def score(calls: list[tuple[str, int, int, str, list]], known: dict[str, object]) -> dict[str, float]:
    judged = right = shown = wrong_out = out = 0
    for path, line, column, _, edges in calls:
        answer = known.get(f"{path}:{line}:{column}")
        if answer is None:
            continue
        if answer == "out":
            out += 1
            shown += bool(edges)
            wrong_out += bool(edges)
            continue
        judged += 1
        shown += bool(edges)
        file, _, at = str(answer).rpartition(":")
        right += any(p == file and first <= int(at) <= last for p, first, last in edges)
    return {"calls": len(calls), "judged": judged, "out": out, "right": right, "shown": shown,
            "wrong out": wrong_out, "recall": right / max(judged, 1), "precision": right / max(shown, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--packages", nargs="+", default=[*PACKAGES, *GO_SHOWN, *TS, *JAVA],
                        choices=[*PACKAGES, *GO, *TS, *JAVA])
    parser.add_argument("--attributes", action="store_true",
                        help="calls on an attribute of self or this (self.session.send()) instead (Python, TypeScript)")
    parser.add_argument("--chains", action="store_true",
                        help="calls on an attribute of a name (v.logger.Info()) instead (Python, Go)")
    parser.add_argument("--results", action="store_true",
                        help="calls on what a call returns (c.Root().ExecuteC()) instead (every language)")
    parser.add_argument("--bare", action="store_true", help="calls of a name alone (helper()) instead (every language)")
    parser.add_argument("--self", action="store_true", help="calls on self or this (self.helper()) instead")
    args = parser.parse_args()
    global ATTRIBUTES, CHAINS, RESULTS, BARE, SELF
    ATTRIBUTES, CHAINS, RESULTS, BARE, SELF = args.attributes, args.chains, args.results, args.bare, args.self
    print("| package | calls on a name | reference: in the package / out | edge shown | right | out, shown | recall | precision |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name in args.packages:
        root = package_root(name)
        with tempfile.TemporaryDirectory() as folder:
            calls = calls_on_names(root, Path(folder) / "index.db")
        known = checker_answers(name, calls) if name in GO or name in TS or name in JAVA else jedi_answers(name, root, calls)
        s = score(calls, known)
        print(f"| {name} | {s['calls']:,} | {s['judged']:,} / {s['out']:,} | {s['shown']:,} | {s['right']:,} | "
              f"{s['wrong out']:,} | {s['recall']:.3f} | {s['precision']:.3f} |", flush=True)


if __name__ == "__main__":
    main()

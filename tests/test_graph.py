"""The code graph: symbols, references and their resolution on fixture repositories in eight
languages with known call graphs, and on a slice of the real standard library."""

from __future__ import annotations

import json
import shutil
import sysconfig
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner

from mindex import Index, IndexSettings
from mindex.config import EmbedSettings
from mindex.errors import NotFoundError
from mindex.graph import CodeGraph
from mindex.serve.cli import cli
from mindex.graph_heirs import direct_heirs, impact

REPO = {
    # Python: imports by name, by module alias, relative; inheritance; a call into the stdlib.
    "pkg/__init__.py": "",
    "pkg/models.py": (
        "class Base:\n"                                   # 1
        "    def save(self):\n"                           # 2
        "        return self.validate()\n"                # 3
        "\n"
        "    def validate(self):\n"                       # 5
        "        return True\n"
        "\n\n"
        "class User(Base):\n"                             # 9
        "    def rename(self, name):\n"                   # 10
        "        self.name = clean(name)\n"               # 11
        "        return self.save()\n"                    # 12
        "\n\n"
        "def clean(text):\n"                              # 15
        "    return text.strip()\n"
        "\n\n"
        "MAX_NAME = 40\n"                                 # 19
        "_cache = {}\n"
    ),
    "pkg/service.py": (
        "from pkg.models import User, clean\n"            # 1
        "from . import models\n"                          # 2
        "\n\n"
        "def create_user(name):\n"                        # 5
        "    user = User()\n"                             # 6
        "    user.rename(clean(name))\n"                  # 7
        "    return user\n"
        "\n\n"
        "def bulk(names):\n"                              # 11
        "    return [create_user(n) for n in names]\n"    # 12
        "\n\n"
        "def touch():\n"                                  # 15
        "    return models.clean('x')\n"                  # 16
        "\n\n"
        "def _private():\n"
        "    pass\n"
    ),
    "app.py": "from pkg.service import bulk\n\n\ndef main():\n    bulk(['a'])\n    print('done')\n",
    # JavaScript: a named import and a namespace import of a relative module.
    "web/util.js": "export function fmt(x) {\n  return String(x);\n}\nexport function log(x) {\n  console.log(fmt(x));\n}\n",
    "web/main.js": "import { log } from './util';\nimport * as u from './util.js';\nfunction run() {\n  log(1);\n  u.fmt(2);\n}\n",
    # TypeScript: this-calls inside a class implementing an interface.
    "web/shapes.ts": (
        "export interface Shape {\n  area(): number;\n}\n"
        "export class Square implements Shape {\n  constructor(private s: number) {}\n"
        "  area(): number {\n    return this.s * this.s;\n  }\n"
        "  describe(): string {\n    return `area ${this.area()}`;\n  }\n}\n"
    ),
    "web/view.tsx": "import { Square } from './shapes';\nexport function View() { return <b>{new Square(2).describe()}</b>; }\n",
    # Go: a method, a same-package call across files, an imported package.
    "net/conn.go": "package net\n\ntype Conn struct{}\n\nfunc (c *Conn) Close() error {\n\treturn cleanup()\n}\n\nfunc cleanup() error {\n\treturn nil\n}\n",
    "net/dial.go": "package net\n\nfunc Dial() *Conn {\n\tc := &Conn{}\n\tcleanup()\n\treturn c\n}\n",
    "cmd/main.go": "package main\n\nimport \"example.com/x/net\"\n\nfunc main() {\n\tc := net.Dial()\n\tc.Close()\n}\n",
    # Rust: associated function through a `use`, self-calls in an impl.
    "src/pool.rs": (
        "pub struct Pool;\n\nimpl Pool {\n    pub fn new() -> Self {\n        Pool\n    }\n"
        "    pub fn get(&self) -> u8 {\n        self.check();\n        1\n    }\n    fn check(&self) {}\n}\n"
    ),
    "src/main.rs": "use crate::pool::Pool;\n\nfn main() {\n    let p = Pool::new();\n    p.get();\n}\n",
    # Java: implicit this, an imported class constructed, a call through a field.
    "java/com/acme/Repo.java": "package com.acme;\n\npublic class Repo {\n    public void save() { validate(); }\n    private void validate() {}\n}\n",
    "java/com/acme/Service.java": (
        "package com.acme;\n\nimport com.acme.Repo;\n\npublic class Service {\n"
        "    private Repo repo = new Repo();\n    public void run() { repo.save(); }\n}\n"
    ),
    # C: a function declared in a header, defined in its .c file, called from another file.
    "c/util.h": "int add(int a, int b);\n",
    "c/util.c": "#include \"util.h\"\n\nint add(int a, int b) {\n    return a + b;\n}\n\nstatic int twice(int a) {\n    return add(a, a);\n}\n",
    "c/main.c": "#include \"util.h\"\n\nint main(void) {\n    return add(1, 2);\n}\n",
    # C++: implicit this, and a method inherited from a base class.
    "cpp/shape.cpp": (
        "class Shape {\npublic:\n    virtual double area() { return 0; }\n    double twice() { return 2 * area(); }\n};\n"
        "\nclass Circle : public Shape {\npublic:\n    double grow() { return twice(); }\n};\n"
    ),
}


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")


def _graph_of(index: Index, root: Path, files: dict[str, str]) -> CodeGraph:
    """`files` written under `root`, indexed as a code source named after it, and its graph."""
    _write(root, files)
    index.add_source(root, name=root.name, kind="code")
    index.index()
    return index.graph()


@pytest.fixture
def graph_index(index: Index, tmp_path: Path) -> Index:
    root = tmp_path / "repo"
    _write(root, REPO)
    index.add_source(root, name="repo", kind="code")
    index.index()
    return index


def _callers(graph: CodeGraph, name: str) -> set[tuple[str, int, str, float]]:
    (target,) = graph.targets(name)
    return {(e.path, e.line, e.scope, round(e.confidence, 2)) for e in graph.callers(target)}


def test_python_calls_resolve_through_imports_scopes_and_bases(graph_index: Index) -> None:
    graph = graph_index.graph()
    assert _callers(graph, "clean") == {
        ("pkg/models.py", 11, "User.rename", 1.0),   # defined in this file
        ("pkg/service.py", 7, "create_user", 0.95),  # from pkg.models import clean
        ("pkg/service.py", 16, "touch", 0.95),       # from . import models; models.clean()
    }
    assert _callers(graph, "Base.save") == {("pkg/models.py", 12, "User.rename", 0.9)}  # inherited
    assert _callers(graph, "Base.validate") == {("pkg/models.py", 3, "Base.save", 1.0)}
    assert _callers(graph, "bulk") == {("app.py", 5, "main", 0.95)}
    (create,) = graph.targets("create_user")
    callees = {(e.call, e.target.name if e.target else None, round(e.confidence, 2)) for e in graph.callees(create)}
    assert callees == {("User", "User", 0.95), ("user.rename", "User.rename", 0.9), ("clean", "clean", 0.95)}
    (main,) = graph.targets("main", path="app.py")
    edges = graph.callees(main)
    assert [(e.call, e.target is None, e.reason) for e in edges] == [
        ("bulk", False, "imported from pkg.service"), ("print", True, "not defined in the index")]


def test_impact_walks_callers_and_importers_grouped_by_file(graph_index: Index) -> None:
    graph = graph_index.graph()
    (clean,) = graph.targets("clean")
    files = impact(graph, clean, depth=3)
    assert [(f["path"], f["depth"]) for f in files] == [
        ("pkg/models.py", 1), ("pkg/service.py", 1), ("app.py", 3)]
    service = files[1]["hits"]
    assert {(h["via"], h["line"], h["scope"]) for h in service} >= {
        ("import", 1, None), ("call", 7, "create_user"), ("call", 16, "touch"), ("call", 12, "bulk")}
    assert [(f["path"], f["depth"]) for f in impact(graph, clean, depth=1)] == [
        ("pkg/models.py", 1), ("pkg/service.py", 1)]


@pytest.mark.parametrize(("name", "expected"), [
    ("fmt", {("web/util.js", 5, "log", 1.0), ("web/main.js", 5, "run", 0.95)}),
    ("log", {("web/main.js", 4, "run", 0.95)}),
    ("Square.area", {("web/shapes.ts", 10, "Square.describe", 1.0)}),
    ("Square.describe", {("web/view.tsx", 2, "View", 0.9)}),  # TSX shares the TypeScript queries; `new Square(2).f()`
    ("cleanup", {("net/conn.go", 6, "Conn.Close", 1.0), ("net/dial.go", 5, "Dial", 0.9)}),
    ("Dial", {("cmd/main.go", 6, "main", 0.95)}),
    ("Conn.Close", {("cmd/main.go", 7, "main", 0.9)}),  # c := net.Dial(): Dial says it returns a *Conn
    ("Pool.new", {("src/main.rs", 4, "main", 0.95)}),  # `use crate::pool::Pool` names its file
    ("Pool.check", {("src/pool.rs", 8, "Pool.get", 1.0)}),
    ("Repo.validate", {("java/com/acme/Repo.java", 4, "Repo.save", 1.0)}),
    ("Repo.save", {("java/com/acme/Service.java", 7, "Service.run", 0.9)}),  # `repo` is declared a Repo
    ("add", {("c/util.c", 8, "twice", 1.0), ("c/main.c", 4, "main", 0.9)}),
    ("Shape.area", {("cpp/shape.cpp", 4, "Shape.twice", 1.0)}),
    ("Shape.twice", {("cpp/shape.cpp", 9, "Circle.grow", 0.9)}),
])
def test_callers_in_every_graph_language(graph_index: Index, name: str, expected: set[tuple[str, int, str, float]]) -> None:
    assert _callers(graph_index.graph(), name) == expected


def test_a_name_spelled_with_double_colons_or_dots_finds_its_definition(index: Index, tmp_path: Path) -> None:
    """Rust, C++ and PHP write `Type::method` where the index names `Type.method`; a C++
    method defined outside its class (`void Foo::bar()`) is `Foo.bar` too, a method, and both
    spellings find it."""
    graph = _graph_of(index, tmp_path / "repo", {
        "src/pool.rs": REPO["src/pool.rs"], "src/main.rs": REPO["src/main.rs"],
        "cpp/a.cpp": "struct Foo { void bar(); };\nvoid Foo::bar() { helper(); }\nvoid helper() {}\n"})
    assert [t.name for t in graph.targets("Pool::new")] == ["Pool.new"]
    assert _callers(graph, "Pool::new") == {("src/main.rs", 4, "main", 0.95)}
    assert [(t.name, t.kind) for t in graph.targets("Foo.bar")] == [(t.name, t.kind) for t in graph.targets("Foo::bar")] \
        == [("Foo.bar", "method")]
    assert [(how, s.name) for how, s in graph.find("Pool::check")][:1] == [("exact", "Pool.check")]
    with pytest.raises(NotFoundError):
        graph.targets("Pool::missing")


def test_a_chain_of_calls_reads_on_one_line_with_its_arguments_elided(index: Index, tmp_path: Path) -> None:
    """semver's tests build a command over six lines: `graph callees` printed each call's
    receiver as written (argument strings, line breaks and a cut-off format string); text and
    MCP markdown now elide argument lists, and the JSON keeps the call as written."""
    from mindex.serve.codeviews import short_call

    root = tmp_path / "repo"
    _write(root, {"src/main.rs": (
        "use std::process::Command;\n\nfn main() {\n    let out = Command::new(\"node\")\n        .arg(\"-e\")\n"
        "        .arg(format!(\"console.log(require('semver').satisfies('{}', '{}'))\", 1, 2))\n"
        "        .output()\n        .unwrap();\n}\n")})
    index.add_source(root, name="repo", kind="code")
    index.index()
    runner = CliRunner()
    shown = runner.invoke(cli, ["--db", str(index.db_path), "graph", "callees", "main", "--min-confidence", "0"])
    assert shown.exit_code == 0, shown.output
    assert "Command::new(…).arg(…).arg(…).output" in shown.output and 'arg("-e")' not in shown.output
    listed = runner.invoke(cli, ["--db", str(index.db_path), "graph", "callees", "main", "--min-confidence", "0", "--json"])
    calls = [e["call"] for e in json.loads(listed.output)["callees"][0]["edges"]]
    assert any('.arg("-e")' in call and call.endswith(".output") for call in calls)
    assert short_call('a(b(c), ")").d') == "a(…).d" and short_call("foo().bar") == "foo().bar"
    assert short_call("x.y(1,\n   2).z") == "x.y(…).z" and short_call("self.client.get") == "self.client.get"


def test_each_call_of_a_chain_over_lines_is_on_the_line_of_its_name(index: Index, tmp_path: Path) -> None:
    """gson's tests build a Gson over twenty lines (`new GsonBuilder()`, then
    `.registerTypeAdapter(` twice): every call of the chain was placed on its first line, so
    `graph callers` sent an agent to `new GsonBuilder()` for both calls. Each call is now on the
    line of its name, in every language the graph reads."""
    graph = _graph_of(index, tmp_path / "repo", {
        "src/Builder.java": (
            "class Builder {\n  Builder add(int x) { return this; }\n  Builder drop() { return this; }\n"
            "  Object build() { return null; }\n}\n"),
        "src/Use.java": (
            "class Use {\n  Object make() {\n    return new Builder()\n        .add(1)\n        .drop()\n"
            "        .add(2)\n        .build();\n  }\n}\n"),
        "web/chain.ts": (
            "export function load(url: string) {\n  return fetch(url)\n    .then((r) => r.json())\n"
            "    .catch(() => null);\n}\n"),
        "py/query.py": "def rows(session):\n    return (session.query(1)\n            .filter(2)\n            .all())\n",
    })
    lines = {}
    for doc_id, (_, path, _) in graph.files.items():
        lines[path] = [(ref.name, ref.line) for ref in graph.refs(doc_id, "call")]
    assert lines["src/Use.java"] == [("Builder", 3), ("add", 4), ("drop", 5), ("add", 6), ("build", 7)]
    assert lines["web/chain.ts"] == [("fetch", 2), ("then", 3), ("json", 3), ("catch", 4)]
    assert lines["py/query.py"] == [("query", 2), ("filter", 3), ("all", 4)]
    assert sorted(line for _, line, _, _ in _callers(graph, "Builder.add")) == [4, 6]


def test_a_rust_call_through_a_module_of_the_crate_reaches_its_function(index: Index, tmp_path: Path) -> None:
    """semver's `eval::matches_req(self, version)` said "not defined in the index": `eval` is
    the module `mod eval;` declares, src/eval.rs. A module beside the file, in its own
    folder, through `crate::` and `super::` are followed; a variable's method is not."""
    graph = _graph_of(index, tmp_path / "repo", {
        "src/lib.rs": "mod eval;\nmod req;\n\npub fn matches(v: u8) -> bool {\n    eval::matches_req(v)\n}\n",
        "src/eval.rs": "pub(crate) fn matches_req(v: u8) -> bool {\n    v > 1\n}\n",
        "src/req.rs": ("mod parse;\nmod fmt;\n\npub fn check(v: u8) -> bool {\n    crate::eval::matches_req(v) && parse::digits(v)\n}\n\n"
                       "pub fn other(list: Vec<u8>) -> u8 {\n    list.digits()\n}\n"),
        "src/req/parse.rs": "pub fn digits(v: u8) -> bool {\n    super::super::eval::matches_req(v) && super::fmt::pad(v)\n}\n",
        "src/req/fmt.rs": "pub fn pad(v: u8) -> bool {\n    v > 0\n}\n",
    })
    assert _callers(graph, "matches_req") == {("src/lib.rs", 5, "matches", 0.9), ("src/req.rs", 5, "check", 0.9),
                                              ("src/req/parse.rs", 2, "digits", 0.9)}
    assert _callers(graph, "digits") == {("src/req.rs", 5, "check", 0.9)}  # not `list.digits()`
    assert _callers(graph, "pad") == {("src/req/parse.rs", 2, "digits", 0.9)}


def test_a_rust_use_from_the_crate_root_self_or_super_names_that_file(index: Index, tmp_path: Path) -> None:
    """walkdir's tests (`src/tests/recursive.rs`) `use crate::WalkDir;` and `use
    crate::tests::util::Dir;`: `crate` was dropped and nothing was left to find, so 48
    `WalkDir::new(...)` calls were "outside the index". `crate::` starts at the crate's root
    (the nearest folder above with an indexed lib.rs or main.rs), `self::` and `super::` at the
    file's own module; `super::util` here is `src/tests/util.rs`, not the crate's `src/util.rs`.
    And `WalkDir::new(x).into_iter().filter_entry()` is a method call on a value, not a call of
    a module's function `filter_entry` (the test function of that name)."""
    graph = _graph_of(index, tmp_path / "repo", {
        "src/lib.rs": ("mod tests;\nmod util;\n\npub struct WalkDir;\n\nimpl WalkDir {\n    pub fn new(p: u8) -> WalkDir {\n"
                       "        WalkDir\n    }\n\n    pub fn into_iter(self) -> IntoIter {\n        IntoIter\n    }\n}\n\n"
                       "pub struct IntoIter;\n\nimpl IntoIter {\n    pub fn filter_entry(self) -> u8 {\n        1\n    }\n}\n"),
        "src/util.rs": "pub struct Dir;\n\nimpl Dir {\n    pub fn tmp() -> Dir {\n        Dir\n    }\n}\n",
        "src/tests/mod.rs": "mod recursive;\nmod util;\n",
        "src/tests/util.rs": "pub struct Dir;\n\nimpl Dir {\n    pub fn tmp() -> Dir {\n        Dir\n    }\n}\n",
        "src/tests/recursive.rs": ("use crate::WalkDir;\nuse super::util::Dir;\nuse self::inner::helper;\n\nmod inner;\n\n"
                                   "fn filter_entry() -> u8 {\n    let d = Dir::tmp();\n    helper();\n"
                                   "    WalkDir::new(1).into_iter().filter_entry()\n}\n"),
        "src/tests/recursive/inner.rs": "pub fn helper() {}\n",
    })
    assert _callers(graph, "WalkDir.new") == {("src/tests/recursive.rs", 10, "filter_entry", 0.95)}
    tmp = {t.path: t for t in graph.targets("Dir.tmp")}
    assert {(e.path, e.line) for e in graph.callers(tmp["src/tests/util.rs"])} == {("src/tests/recursive.rs", 8)}
    assert not graph.callers(tmp["src/util.rs"])
    assert _callers(graph, "helper") == {("src/tests/recursive.rs", 9, "filter_entry", 0.95)}
    (test,) = [t for t in graph.targets("filter_entry") if t.path == "src/tests/recursive.rs"]
    reached = {(e.target.name, e.target.path) for e in graph.callees(test) if e.target and e.confidence >= 0.2}
    assert ("IntoIter.filter_entry", "src/lib.rs") in reached and ("filter_entry", "src/tests/recursive.rs") not in reached


def test_a_rust_call_and_a_use_find_the_crate_root_alike(index: Index, tmp_path: Path) -> None:
    """`use crate::x` found the crate's root by its indexed `lib.rs`, a call `crate::x::f()` by
    cutting its path at the first `src/`: in a crate whose `lib.rs` is at the top (`[lib] path`)
    a file under `tools/src/` called into `tools/src/eval.rs`, which is no module of it."""
    graph = _graph_of(index, tmp_path / "crate", {
        "lib.rs": "mod eval;\nmod tools;\n",
        "eval.rs": "pub fn matches() -> bool { true }\n",
        "tools/src/eval.rs": "pub fn matches() -> bool { false }\n",
        "tools/src/gen.rs": "fn generate() -> bool {\n    crate::eval::matches()\n}\n",
    })
    (call,) = [e for e in graph.callees(graph.targets("generate")[0]) if e.call.endswith("matches")]
    assert call.target is not None and call.target.path == "eval.rs" and call.confidence == 0.9


def test_a_name_a_python_module_binds_to_another_is_followed_both_ways(index: Index, tmp_path: Path) -> None:
    """attrs' `attr/__init__.py` says `s = attributes = attrs` and `ib = attr = attrib`, and
    attrs' own tests call `attr.s(...)` and `attr.ib()` 793 times: none reached `attrs` or
    `attrib`. And `callers` looked calls up by the target's name, so one written under another
    name (`from m import f as g; g()`) was found from the caller's side only."""
    graph = _graph_of(index, tmp_path / "repo", {
        "pkg/__init__.py": "from ._make import attrs, attrib\n\ns = attributes = attrs\nib = attr = attrib\nn = 5\n",
        "pkg/_make.py": "def attrs(maybe_cls=None):\n    return maybe_cls\n\n\ndef attrib(default=None):\n    return default\n",
        "use.py": ("import pkg\nfrom pkg import s as S\nfrom pkg._make import attrib as field\n\n\n@pkg.s\nclass C:\n"
                   "    x = pkg.ib()\n    y = field()\n\n\ndef make():\n    return S(C)\n"),
    })
    assert _callers(graph, "attrs") == {("use.py", 6, "C", 0.9), ("use.py", 13, "make", 0.9)}
    assert _callers(graph, "attrib") == {("use.py", 8, "C", 0.9), ("use.py", 9, "C", 0.95)}
    assert [t.name for t in graph.targets("pkg.s")] == ["attrs"]  # a module path through the alias
    assert [t.name for t in graph.targets("pkg.attributes")] == ["attrs"]
    with pytest.raises(NotFoundError):
        graph.targets("pkg.n")  # bound to a number, not a name


def test_a_monorepos_own_packages_and_barrel_files_are_followed(index: Index, tmp_path: Path) -> None:
    """A workspace's `@acme/react` imports `createStore` from `@acme/core`, one of the tree's own
    packages, whose `package.json` points at its build (`dist/index.js`) and whose
    `src/index.ts` passes the name on (`export * from './store'`): the call was "outside the
    index" as a package from npm, and no barrel's `export ... from` was read as an import."""
    root = tmp_path / "repo"
    _write(root, {
        "package.json": '{"name": "mono", "private": true, "workspaces": ["packages/*"]}\n',
        "packages/core/package.json": '{"name": "@acme/core", "main": "dist/index.js", "types": "dist/index.d.ts"}\n',
        "packages/core/src/store.ts": "export function createStore(initial: number) {\n  return { value: initial }\n}\n",
        "packages/core/src/query.ts": "export function fetchQuery(key: string) {\n  return key\n}\n",
        "packages/core/src/index.ts": ("export * from './store'\nexport { fetchQuery as runQuery } from './query'\n"
                                       "export * as queries from './query'\n"),
        "packages/react/package.json": '{"name": "@acme/react", "exports": {".": {"import": "./esm/index.mjs"}}}\n',
        "packages/react/src/index.ts": ("import { createStore, runQuery } from '@acme/core'\nimport { fetchQuery } from "
                                        "'@acme/core/src/query'\nimport { useThing } from 'react-thing'\n\n"
                                        "export function useStore(n: number) {\n  runQuery('k')\n  fetchQuery('j')\n"
                                        "  useThing()\n  return createStore(n)\n}\n"),
    })
    _write(root, {"packages/bad/package.json": "[\n" * 150_000})  # nested past reason: left out, no error
    index.add_source(root, name="repo", kind="code")
    index.index()
    graph = index.graph()
    assert _callers(graph, "createStore") == {("packages/react/src/index.ts", 9, "useStore", 0.9)}
    assert _callers(graph, "fetchQuery") == {("packages/react/src/index.ts", 6, "useStore", 0.9),
                                             ("packages/react/src/index.ts", 7, "useStore", 0.95)}
    (use,) = graph.targets("useStore")
    thing = next(e for e in graph.callees(use) if e.call == "useThing")
    assert thing.target is None and "outside the index" in thing.reason  # a package from npm stays outside


def test_typescript_path_aliases_of_a_tsconfig_are_followed(index: Index, tmp_path: Path) -> None:
    """An Angular-style project maps `@app/*` and `@shared` in tsconfig.json (comments and
    trailing commas, as TypeScript reads it); `@app/core/users` was read as a scoped npm
    package, outside the index."""
    root = tmp_path / "repo"
    _write(root, {
        "tsconfig.json": ('\ufeff{\n  // aliases\n  "compilerOptions": {\n    "baseUrl": "./",\n    "paths": {\n'
                          '      "@app/*": ["src/app/*"],\n      "@shared": ["src/shared/index.ts"], /* barrel */\n'
                          '      "@gone/*": ["src/gone/*"],\n    },\n  }\n}\n'),
        "src/shared/dates.ts": "export function formatDate(d: Date) {\n  return d.toISOString()\n}\n",
        "src/shared/index.ts": "export * from './dates'\n",
        "src/app/core/users.ts": "export function loadUser(id: string) {\n  return id\n}\n",
        "src/app/page.ts": ("import { loadUser } from '@app/core/users'\nimport { formatDate } from '@shared'\n"
                            "import { lost } from '@gone/x'\n\nexport function page() {\n  lost()\n"
                            "  return formatDate(new Date()) + loadUser('1')\n}\n"),
    })
    _write(root, {"other/tsconfig.json": "/*\n" * 150_000})  # unclosed comments: read in linear time
    index.add_source(root, name="repo", kind="code")
    index.index()
    graph = index.graph()
    assert _callers(graph, "loadUser") == {("src/app/page.ts", 7, "page", 0.95)}
    assert _callers(graph, "formatDate") == {("src/app/page.ts", 7, "page", 0.9)}
    (page,) = graph.targets("page")
    lost = next(e for e in graph.callees(page) if e.call == "lost")
    assert lost.target is None and "outside the index" in lost.reason


def test_ambiguous_calls_say_so_and_list_every_candidate(index: Index, tmp_path: Path) -> None:
    """A C call of a function two files define, the file including neither header: each is
    listed, a half of a guess each. A Python call of a name its file neither defines nor
    imports reaches neither of two modules' functions of that name: Python would not see
    them (it is a builtin, or an error)."""
    graph = _graph_of(index, tmp_path / "repo", {
        "c/a.c": "int clean(int x) {\n    return x;\n}\n",
        "c/b.c": "int clean(int x) {\n    return x + 1;\n}\n",
        "c/loose.c": "int go(int o) {\n    return clean(o);\n}\n",  # which one? the linker knows
        "pkg/models.py": "def clean(x):\n    return x\n",
        "pkg/other.py": "def clean(x):\n    return x\n",
        "loose.py": "def go(o):\n    return clean(o)\n",  # no import: a NameError in Python
    })
    (go,) = [t for t in graph.targets("go") if t.path == "c/loose.c"]
    edges = graph.callees(go)
    assert sorted((e.target.path if e.target else None, e.confidence, e.reason) for e in edges) == [
        ("c/a.c", 0.25, "ambiguous: 2 definitions named clean"),
        ("c/b.c", 0.25, "ambiguous: 2 definitions named clean")]
    assert len([t for t in graph.targets("clean") if t.language == "c"]) == 2  # a bare name asks about both
    (go,) = [t for t in graph.targets("go") if t.path == "loose.py"]
    assert [(e.target, e.reason) for e in graph.callees(go)] == [(None, "not defined in this file or imported")]


def test_symbols_exports_outline_and_constants(graph_index: Index) -> None:
    graph = graph_index.graph()
    outline = [(s.name, s.kind, s.start_line) for s in graph.outline(graph.document("pkg/models.py"))]
    assert outline == [("Base", "class", 1), ("Base.save", "method", 2), ("Base.validate", "method", 5),
                       ("User", "class", 9), ("User.rename", "method", 10), ("clean", "function", 15),
                       ("MAX_NAME", "constant", 19)]  # `_cache = {}` is a variable, not a constant
    assert [s.name for s in graph.exports(graph.document("pkg/service.py"))] == ["create_user", "bulk", "touch"]
    assert [s.name for s in graph.exports(graph.document("net/conn.go"))] == ["Conn"]  # cleanup is lower case
    assert [s.name for s in graph.exports(graph.document("src/pool.rs"))] == ["Pool"]
    assert [s.name for s in graph.exports(graph.document("c/util.c"))] == ["add"]  # twice is static
    assert [s.name for s in graph.exports(graph.document("web/util.js"))] == ["fmt", "log"]
    found = graph.find("Usr")
    assert found and found[0][1].name == "User" and found[0][0] == "fuzzy"
    # among close spellings the closest comes first, not the shortest
    assert [(how, s.name) for how, s in graph.find("cleanap")] == [("fuzzy", "cleanup"), ("fuzzy", "clean")]
    assert [(how, s.name) for how, s in graph.find("User")] == [("exact", "User"), ("fuzzy", "create_user")]
    assert [(how, s.name) for how, s in graph.find("ren")] == [("prefix", "User.rename")]
    (user,) = graph.targets("User")
    chunk = graph_index.get(user.chunk_id or "")
    assert chunk.path == "pkg/models.py" and "class User(Base)" in chunk.text
    with pytest.raises(NotFoundError, match="did you mean"):
        graph.targets("Usr")


def test_graph_cli_commands(graph_index: Index) -> None:
    runner = CliRunner()
    db = ["--db", str(graph_index.db_path)]

    def run(*args: str) -> dict:  # type: ignore[type-arg]
        done = runner.invoke(cli, [*db, *args, "--json"])
        assert done.exit_code == 0, done.output
        return json.loads(done.output)  # type: ignore[no-any-return]

    callers = run("graph", "callers", "clean")["callers"][0]
    assert {(e["path"], e["line"]) for e in callers["edges"]} == {
        ("pkg/models.py", 11), ("pkg/service.py", 7), ("pkg/service.py", 16)}
    assert all(e["chunk_id"] for e in callers["edges"])
    callees = run("graph", "callees", "User.rename")["callees"][0]["edges"]
    assert [(e["call"], e["target"]["name"]) for e in callees] == [("clean", "clean"), ("self.save", "Base.save")]
    impact = run("graph", "impact", "bulk", "--depth", "2")["impact"][0]["files"]
    assert [f["path"] for f in impact] == ["app.py"]
    assert [s["name"] for s in run("graph", "exports", "app.py")["exports"]] == ["main"]
    outline = run("graph", "outline", "pkg/models.py")["symbols"]
    assert [s["name"] for s in outline][:3] == ["Base", "Base.save", "Base.validate"]
    found = run("symbols", "find", "rename")["symbols"]
    assert found[0]["name"] == "User.rename" and found[0]["match"] == "exact"
    human = runner.invoke(cli, [*db, "graph", "callers", "Base.save"])
    assert "User.rename" in human.output and "inherited from Base" in human.output
    missing = runner.invoke(cli, [*db, "graph", "callers", "nope_nothing"])
    assert missing.exit_code == 3 and "no definition named" in missing.output


def test_a_slice_of_the_standard_library(tmp_path: Path) -> None:
    """Known facts of the real `json` package: who calls `JSONDecoder.raw_decode`, what
    `dumps` calls, what the package exports, what changing `raw_decode` reaches."""
    root = tmp_path / "json"
    shutil.copytree(Path(sysconfig.get_paths()["stdlib"]) / "json", root, ignore=shutil.ignore_patterns("__pycache__"))
    with Index(tmp_path / "std.db", IndexSettings(workers=1), embed=EmbedSettings(provider="none")) as ix:
        ix.add_source(root, name="json", kind="code")
        ix.index()
        graph = ix.graph()
        assert _callers(graph, "JSONDecoder.raw_decode") == {("decoder.py", 337, "JSONDecoder.decode", 1.0)}
        (dumps,) = graph.targets("dumps")
        reached = {e.target.name for e in graph.callees(dumps) if e.target is not None}
        assert "JSONEncoder.encode" in reached  # `_default_encoder.encode(obj)`
        exported = {s.name for s in graph.exports(graph.document("__init__.py"))}
        assert {"dump", "dumps", "load", "loads"} <= exported and "_default_decoder" not in exported
        raw_decode = graph.targets("JSONDecoder.raw_decode")[0]
        files = {f["path"]: f for f in impact(graph, raw_decode, depth=2)}
        assert {path: f["depth"] for path, f in files.items()} == {"decoder.py": 1, "__init__.py": 1}
        init = {(h["via"], h["depth"], h["scope"]) for h in files["__init__.py"]["hits"]}
        assert ("import", 1, None) in init  # from .decoder import JSONDecoder
        assert ("call", 2, "loads") in init  # decode ← loads: `_default_decoder.decode(s)`


def test_search_filters_by_language_and_symbol_kind(graph_index: Index) -> None:
    typed = graph_index.search("area", mode="keyword", kind="code", language="typescript").hits
    assert typed and {h.path for h in typed} == {"web/shapes.ts"}
    go = graph_index.search("cleanup", mode="keyword", language="go").hits
    assert {h.path for h in go} == {"net/conn.go", "net/dial.go"}
    assert graph_index.search("cleanup", mode="keyword", language="rust").hits == ()
    constants = graph_index.search("name cache", mode="keyword", symbol_kind="constant").hits
    assert {h.path for h in constants} == {"pkg/models.py"}  # the chunk holding MAX_NAME
    assert not graph_index.search("clean", mode="keyword", symbol_kind="constant").hits
    data = constants[0].to_dict()
    assert data["language"] == "python" and "symbol_kind" in data
    runner = CliRunner()
    done = runner.invoke(cli, ["--db", str(graph_index.db_path), "search", "cleanup", "--mode", "keyword",
                               "--language", "go", "--json"])
    assert done.exit_code == 0 and {r["path"] for r in json.loads(done.output)["results"]} == {
        "net/conn.go", "net/dial.go"}


def _mcp(server: Any, tool: str, args: dict[str, Any]) -> Any:
    from mcp import Client

    async def main() -> Any:
        async with Client(server) as client:
            return await client.call_tool(tool, args)

    return anyio.run(main)


def test_mcp_code_tools(graph_index: Index) -> None:
    from mindex.config import Settings
    from mindex.serve.mcp_server import build_server

    server = build_server(graph_index.db_path, Settings())
    found = _mcp(server, "grep", {"pattern": r"def \w+\(self", "path": "pkg/**"})
    assert not found.is_error
    lines = [(m["path"], m["line"], m["symbol"]) for m in found.structured_content["matches"]]
    assert lines == [("pkg/models.py", 2, "Base.save"), ("pkg/models.py", 5, "Base.validate"),
                     ("pkg/models.py", 10, "User.rename")]
    assert "pkg/models.py:2: " in found.content[0].text
    symbols = _mcp(server, "find_symbol", {"name": "Dial"}).structured_content["symbols"]
    assert [(s["name"], s["path"], s["match"]) for s in symbols] == [("Dial", "net/dial.go", "exact")]
    callers = _mcp(server, "callers", {"symbol": "cleanup"}).structured_content["results"][0]["edges"]
    assert {(e["path"], e["line"]) for e in callers} == {("net/conn.go", 6), ("net/dial.go", 5)}
    callees = _mcp(server, "callees", {"symbol": "main", "path": "app.py"})
    assert "unresolved" in callees.content[0].text
    impact = _mcp(server, "impact", {"symbol": "clean", "depth": 3}).structured_content["results"][0]["files"]
    assert [f["path"] for f in impact] == ["pkg/models.py", "pkg/service.py", "app.py"]
    outline = _mcp(server, "file_outline", {"path": "src/pool.rs"}).structured_content["symbols"]
    assert [(s["name"], s["exported"]) for s in outline] == [
        ("Pool", True), ("Pool", False), ("Pool.new", True), ("Pool.get", True), ("Pool.check", False)]
    found_code = _mcp(server, "search_code", {"query": "cleanup", "language": "go"})
    code = found_code.structured_content["results"]
    assert {r["path"] for r in code} == {"net/conn.go", "net/dial.go"} and code[0]["language"] == "go"
    assert "```go\n" in found_code.content[0].text and "```markdown" not in found_code.content[0].text
    chunk = _mcp(server, "get_chunk", {"chunk_id": code[0]["id"]})
    assert "```go\n" in chunk.content[0].text
    missing = _mcp(server, "callers", {"symbol": "no_such_thing"})
    assert missing.is_error and "no definition named" in missing.content[0].text


def test_text_output_names_unresolved_callees_and_what_an_import_brings(graph_index: Index) -> None:
    runner = CliRunner()
    db = ["--db", str(graph_index.db_path)]
    callees = runner.invoke(cli, [*db, "graph", "callees", "main"]).output
    lines = [line.split() for line in callees.splitlines()[1:]]
    # files as the user opens them from the working folder (the source is tmp_path/repo)
    assert ["bulk", "repo/pkg/service.py:11"] == lines[0][:2]
    assert lines[1][:2] == ["print", "repo/app.py:6"]  # unresolved: the call, not the caller's own name
    impact = runner.invoke(cli, [*db, "graph", "impact", "User.rename", "--depth", "1"]).output
    assert "imports pkg.models.User (which holds User.rename)" in impact
    assert "imports User.rename" not in impact


PACKAGE = {
    # A Python package added as the source root itself (its folder holds __init__.py).
    "mypkg/__init__.py": "",
    "mypkg/utils/__init__.py": "",
    "mypkg/utils/crypto.py": "def get_random_string(n):\n    return 'x' * n\n",
    "mypkg/views.py": "from mypkg.utils.crypto import get_random_string\n\n\ndef view():\n    return get_random_string(3)\n",
    "mypkg/other.py": "import mypkg.utils.crypto as c\n\n\ndef other():\n    return c.get_random_string(4)\n",
    "mypkg/deep/__init__.py": "",
    "mypkg/deep/late.py": "from utils.crypto import get_random_string\n\n\ndef late():\n    return get_random_string(5)\n",
    # TypeScript: a src/ root with a path alias (tsconfig's "@/*": ["src/*"], outside the root).
    "web/src/lib/slug.ts": "export function slugify(s: string): string {\n  return s.toLowerCase();\n}\n",
    "web/src/app/page.ts": "import { slugify } from \"@/lib/slug\";\n\nexport function render(t: string) {\n  return slugify(t);\n}\n",
    "web/src/app/other.ts": "import { slugify } from \"src/lib/slug\";\n\nexport function more(t: string) {\n  return slugify(t);\n}\n",
    # Go: a module's subfolder as the root (go.mod above it says `module example.com/proj`).
    "proj/go.mod": "module example.com/proj\n",
    "proj/internal/util/clean.go": "package util\n\nfunc Clean(s string) string {\n\treturn s\n}\n",
    "proj/internal/app/app.go": (
        "package app\n\nimport \"example.com/proj/internal/util\"\n\nfunc Run() string {\n\treturn util.Clean(\"x\")\n}\n"),
}


def test_cross_file_edges_survive_a_package_folder_as_the_root(index: Index, tmp_path: Path) -> None:
    for rel, text in PACKAGE.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    index.add_source(tmp_path / "mypkg", name="py", kind="code")
    index.add_source(tmp_path / "web" / "src", name="ts", kind="code")
    index.add_source(tmp_path / "proj" / "internal", name="go", kind="code")
    index.index()
    graph = index.graph()
    found = {(e.path, e.scope, e.reason) for e in graph.callers(graph.targets("get_random_string")[0])}
    assert found == {
        ("views.py", "view", "imported from mypkg.utils.crypto"),
        ("other.py", "other", "c is imported from mypkg.utils.crypto"),
        ("deep/late.py", "late", "imported from utils.crypto"),
    }
    ts = {(e.path, e.reason) for e in graph.callers(graph.targets("slugify")[0])}
    assert ts == {("app/page.ts", "imported from @/lib/slug"), ("app/other.ts", "imported from src/lib/slug")}
    go = {(e.path, e.scope, e.reason) for e in graph.callers(graph.targets("Clean")[0])}
    assert go == {("app/app.go", "Run", "util is imported from example.com/proj/internal/util")}


def test_a_module_at_the_root_resolves_by_its_single_name(index: Index, tmp_path: Path) -> None:
    """`import shutil; shutil.copyfileobj(...)` in a tree whose root holds shutil.py (the
    standard library's layout): the call resolves through the import, from any folder."""
    root = tmp_path / "lib"
    (root / "http").mkdir(parents=True)
    (root / "shutil.py").write_text("def copyfileobj(src, dst):\n    return dst\n")
    (root / "http" / "server.py").write_text("import shutil\n\n\ndef copy(a, b):\n    return shutil.copyfileobj(a, b)\n")
    (root / "zipapp.py").write_text("import shutil as sh\n\n\ndef archive(a, b):\n    sh.copyfileobj(a, b)\n")
    index.add_source(root, name="lib", kind="code")
    index.index()
    graph = index.graph()
    found = {(e.path, e.scope, round(e.confidence, 2)) for e in graph.callers(graph.targets("copyfileobj")[0])}
    assert found == {("http/server.py", "copy", 0.95), ("zipapp.py", "archive", 0.95)}


def test_importers_find_every_style_of_import_in_file_and_line_order(index: Index, tmp_path: Path) -> None:
    root = tmp_path / "imports"
    files = {
        "lib/tools.py": "def helper():\n    return 1\n",
        "a.py": "import lib.tools\nfrom lib.tools import helper as h\n",
        "b.py": "import lib.tools as lt\nfrom lib import tools\nfrom lib.tools import helper\n",
        "c.py": "from lib.other import helper\nimport json\n",  # another module's helper; an unrelated module
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    index.add_source(root, name="imports", kind="code")
    index.index()
    graph = index.graph()
    (helper,) = graph.targets("helper")
    found = [(e.path, e.line, e.reason) for e in graph.importers(helper)]
    assert found == [("a.py", 1, "imports lib.tools"), ("a.py", 2, "imports helper"), ("b.py", 1, "imports lib.tools"),
                     ("b.py", 3, "imports helper")]
    assert [(e.path, e.line, e.reason) for e in graph.importers(helper)] == found  # asked again: the same


BUSY = {
    # Four definitions named `get`; `fetch` calls `store.get` twice and `run` once.
    "kv/stores.py": "".join(f"class Store{n}:\n    def get(self, key):\n        return key\n\n\n" for n in range(4)),
    "kv/app.py": (
        "from kv import stores\n"                          # 1
        "\n\n"
        "class App:\n"                                     # 4
        "    def fetch(self, store, key):\n"               # 5
        "        first = store.get(key)\n"                 # 6
        "        again = store.get(key)\n"                 # 7
        "        return self.run(first, again)\n"          # 8
        "\n"
        "    def run(self, *values):\n"                    # 10
        "        return values\n"
        "\n"
        "    def start(self):\n"                           # 13
        "        return self.fetch(None, 1)\n"             # 14
    ),
}


def test_callees_list_each_call_once_and_fold_a_name_too_many_share(index: Index, tmp_path: Path) -> None:
    """`graph callees Flask.wsgi_app` listed 17 methods named `get` at 0.03, twice: now a
    call to one definition is one edge with its lines, and a call whose every candidate is
    under the minimum confidence is one edge saying how many it might be."""
    _write(tmp_path / "busy", BUSY)
    index.add_source(tmp_path / "busy", name="busy", kind="code")
    index.index()
    graph = index.graph()
    (fetch,) = graph.calls("App.fetch", "callees")
    shown = [(e.call, e.target.name if e.target else None, e.lines, e.candidates) for e in fetch.edges]
    assert shown == [("store.get", None, (6, 7), 4), ("self.run", "App.run", (), 0)]
    assert "4 definitions named get; each under the minimum confidence 0.2" in fetch.edges[0].reason
    (every,) = graph.calls("App.fetch", "callees", min_confidence=0)
    gets = [e for e in every.edges if e.call == "store.get"]
    assert sorted(e.target.name for e in gets if e.target) == [f"Store{n}.get" for n in range(4)]
    assert all(e.lines == (6, 7) for e in gets)  # each definition once, not once per call
    (callers,) = graph.calls("Store0.get", "callers")
    assert callers.edges == [] and callers.left_out == 2  # two guesses at 0.125, counted, not listed
    (listed,) = graph.calls("Store0.get", "callers", min_confidence=0.1)
    assert [(e.line, e.scope) for e in listed.edges] == [(6, "App.fetch"), (7, "App.fetch")]


def test_impact_lists_an_import_line_once_whatever_it_brings_in(index: Index, tmp_path: Path) -> None:
    _write(tmp_path / "busy", BUSY)
    index.add_source(tmp_path / "busy", name="busy", kind="code")
    index.index()
    graph = index.graph()
    (run,) = graph.targets("App.run")
    files = {f["path"]: f for f in impact(graph, run, depth=3)}
    hits = [(h["via"], h["line"]) for h in files["kv/app.py"]["hits"]]
    assert hits == [("call", 8), ("call", 14)]  # run ← fetch ← start
    # `from kv.cache import Cache` brings in Cache.get and Cache.get_many, which calls it:
    # the import line was listed once per definition reached.
    _write(tmp_path / "cache", {"kv/cache.py": "class Cache:\n    def get(self, k):\n        return k\n\n"
                                               "    def get_many(self, ks):\n        return [self.get(k) for k in ks]\n",
                                "kv/use.py": "from kv.cache import Cache\n\n\ndef main():\n    return Cache()\n"})
    index.add_source(tmp_path / "cache", name="cache", kind="code")
    index.index()
    graph = index.graph()
    (get,) = graph.targets("Cache.get")
    use = next(f for f in impact(graph, get, depth=2) if f["path"] == "kv/use.py")
    assert [(h["via"], h["line"], h["of"]) for h in use["hits"]] == [("import", 1, "Cache.get")]


def test_cli_and_mcp_take_a_minimum_confidence_for_callers_and_callees(index: Index, tmp_path: Path) -> None:
    from mindex.config import Settings
    from mindex.serve.mcp_server import build_server

    _write(tmp_path / "busy", BUSY)
    index.add_source(tmp_path / "busy", name="busy", kind="code")
    index.index()
    runner = CliRunner()
    db = ["--db", str(index.location)]
    text = runner.invoke(cli, [*db, "graph", "callers", "Store0.get"]).output
    assert "2 calls under the minimum confidence 0.2 left out (--min-confidence 0 lists them)" in text
    data = json.loads(runner.invoke(cli, [*db, "graph", "callers", "Store0.get", "--min-confidence", "0", "--json"]).output)
    assert [e["line"] for e in data["callers"][0]["edges"]] == [6, 7] and data["callers"][0]["left_out"] == 0
    assert runner.invoke(cli, [*db, "graph", "callees", "App.fetch", "--min-confidence", "2"]).exit_code == 2

    async def ask() -> Any:
        from mcp import Client

        async with Client(build_server(index.location, Settings())) as client:
            return (await client.call_tool("callees", {"symbol": "App.fetch"}),
                    await client.call_tool("callers", {"symbol": "Store0.get", "min_confidence": 0}))

    callees, callers = anyio.run(ask)
    assert "lines 6, 7: `store.get` → 4 possible definitions" in callees.content[0].text
    assert len(callers.structured_content["results"][0]["edges"]) == 2


HERITAGE = {
    # Python: a base imported from its file, a subclass of the subclass, and an unrelated class
    # of the same name with a subclass of its own in one file.
    "py/base.py": "class Base:\n    def save(self):\n        return 1\n",
    "py/child.py": "from py.base import Base\n\n\nclass Child(Base):\n    pass\n",
    "py/grand.py": "from py.child import Child\n\n\nclass Grand(Child):\n    pass\n",
    "py/other.py": "class Base:\n    pass\n\n\nclass Local(Base):\n    pass\n",
    # TypeScript: an interface, a class implementing it, a subclass of that class, and an
    # interface extending the first.
    "ts/shape.ts": "export interface Shape {\n  area(): number;\n}\n\n"
                   "export class Square implements Shape {\n  area() { return 1; }\n}\n",
    "ts/big.ts": "import { Square } from \"./shape\";\n\nexport class BigSquare extends Square {}\n",
    "ts/solid.ts": "import { Shape } from \"./shape\";\n\nexport interface Solid extends Shape {\n  volume(): number;\n}\n",
}


def test_subclasses_implementations_and_impact_read_what_extends_a_class(index: Index, tmp_path: Path) -> None:
    """`extends` and `implements` were recorded and never read: `graph callers BaseStore` found
    nothing and `graph impact Store` 0 files."""
    _write(tmp_path / "heritage", HERITAGE)
    index.add_source(tmp_path / "heritage", name="h", kind="code")
    index.index()
    from mindex.graph_heirs import heirs

    graph = index.graph()
    (base,) = heirs(graph, "Base", ("extends",), path="py/base.py")
    assert [(e.scope, e.path, e.target.name if e.target else None, e.confidence) for e in base.edges] == [
        ("Child", "py/child.py", "Base", 0.95), ("Grand", "py/grand.py", "Child", 0.95)]
    (local,) = heirs(graph, "Base", ("extends",), path="py/other.py")
    assert [(e.scope, e.confidence, e.reason) for e in local.edges] == [("Local", 1.0, "defined in this file")]
    (direct,) = heirs(graph, "Base", ("extends",), path="py/base.py", depth=1)
    assert [e.scope for e in direct.edges] == ["Child"]
    (shape,) = heirs(graph, "Shape", ("implements",))
    assert [(e.scope, e.target.name if e.target else None) for e in shape.edges] == [
        ("Square", "Shape"), ("BigSquare", "Square")]
    (square,) = graph.targets("Square")
    files = {f["path"]: [(h["via"], h["of"]) for h in f["hits"]] for f in impact(graph, square, depth=1)}
    assert ("extends", "Square") in files["ts/big.ts"]
    runner = CliRunner()
    db = ["--db", str(index.location)]
    text = runner.invoke(cli, [*db, "graph", "subclasses", "Base", "--path", "py/base.py"]).output
    assert "Child" in text and "Grand (of Child)" in text and "Local" not in text
    data = json.loads(runner.invoke(cli, [*db, "graph", "implementations", "Shape", "--json"]).output)
    assert [e["scope"] for e in data["implementations"][0]["edges"]] == ["Square", "BigSquare"]
    assert "extends Square" in runner.invoke(cli, [*db, "graph", "impact", "Square", "--depth", "1"]).output

    async def ask() -> Any:
        from mcp import Client

        from mindex.config import Settings
        from mindex.serve.mcp_server import build_server

        async with Client(build_server(index.location, Settings())) as client:
            return await client.call_tool("subclasses", {"symbol": "Base", "path": "py/base.py"})

    answer = anyio.run(ask)
    assert [e["scope"] for e in answer.structured_content["results"][0]["edges"]] == ["Child", "Grand"]
    assert "`Child` at py/child.py:4 names `Base`" in answer.content[0].text


def test_a_generic_or_qualified_supertype_is_read_as_its_name(index: Index, tmp_path: Path) -> None:
    """gson's fifty `extends TypeAdapter<T>` and twenty-seven `implements JsonSerializer<T>`
    were not read: `graph subclasses TypeAdapter` said "(none)". A supertype with type
    arguments, or written with its package or namespace, is now its name, in every language
    that records supertypes, and belongs to its class when a method shares the line."""
    from mindex.graph_heirs import heirs

    graph = _graph_of(index, tmp_path / "g", {
        "java/TypeAdapter.java": "public abstract class TypeAdapter<T> {}\n",
        "java/Serializer.java": "public interface Serializer<T> {}\n",
        "java/Adapters.java": (
            "class IntAdapter extends TypeAdapter<Integer> implements Serializer<Integer>, java.io.Serializable {}\n"
            "class Wide extends com.acme.TypeAdapter {}\n"
            "interface Both extends Serializer<String>, Comparable<String> {}\n"),
        "ts/repo.ts": "export interface Repo<T> { get(id: string): T }\nexport class Base<T> {}\n",
        "ts/user.ts": (
            "import { Repo, Base } from './repo';\nimport * as r from './repo';\n"
            "export class Users extends Base<string> implements Repo<string> { get(id: string) { return id; } }\n"
            "export class Admins extends r.Base<number> {}\n"
            "export interface Named extends Repo<string> {}\n"),
        "cpp/shapes.hpp": (
            "template <typename T> class Shape {};\nnamespace geo { template <typename T> class Solid {}; }\n"
            "class Square : public Shape<int> {};\nclass Cube : public geo::Solid<int> {};\n"),
        "rs/lib.rs": "pub trait Convert<T> { fn convert(t: T) -> Self; }\npub struct Meters;\n"
                     "impl Convert<u8> for Meters { fn convert(t: u8) -> Self { Meters } }\n",
    })

    def names(target: str, kinds: tuple[str, ...], path: str) -> list[str]:
        (found,) = heirs(graph, target, kinds, path=path, depth=1)
        return sorted(e.scope for e in found.edges)

    assert names("TypeAdapter", ("extends",), "java/TypeAdapter.java") == ["IntAdapter", "Wide"]
    assert names("Serializer", ("implements", "extends"), "java/Serializer.java") == ["Both", "IntAdapter"]
    assert names("Base", ("extends",), "ts/repo.ts") == ["Admins", "Users"]
    assert names("Repo", ("implements", "extends"), "ts/repo.ts") == ["Named", "Users"]
    assert names("Shape", ("extends",), "cpp/shapes.hpp") == ["Square"]
    assert names("Solid", ("extends",), "cpp/shapes.hpp") == ["Cube"]
    assert names("Convert", ("implements",), "rs/lib.rs") == ["Meters"]


def test_a_java_class_sees_its_package_and_imports_inside_its_methods(index: Index, tmp_path: Path) -> None:
    """gson's `new JsonIOException(e)` inside a method reached its class only as "the only
    definition with this name" (0.6), import or not, and `JsonArray extends JsonElement` (same
    package, no import) the same: a call without a receiver inside a Java or C++ class that is
    no method of it was guessed by name. It now goes through the file's imports, Java's package
    (`src/main/java/x` and `src/test/java/x` being one) and C++'s included headers."""
    graph = _graph_of(index, tmp_path / "j", {
        "src/main/java/com/acme/Widget.java": "package com.acme;\npublic class Widget {\n  public Widget() {}\n}\n",
        "src/main/java/com/acme/Gadget.java": "package com.acme;\npublic class Gadget extends Widget {\n}\n",
        "src/main/java/com/acme/util/Helper.java": "package com.acme.util;\npublic class Helper {\n}\n",
        "src/main/java/com/other/Lone.java": "package com.other;\npublic class Lone {\n}\n",
        "src/test/java/com/acme/WidgetTest.java": (
            "package com.acme;\nimport com.acme.util.Helper;\nclass WidgetTest {\n  void make() {\n"
            "    Widget w = new Widget();\n    Helper h = new Helper();\n    Lone l = new Lone();\n  }\n}\n"),
        "cpp/helper.h": "int helper(int x);\n",
        "cpp/helper.cpp": "#include \"helper.h\"\nint helper(int x) { return x; }\n",
        "cpp/user.cpp": "#include \"helper.h\"\nclass User {\n  int run() {\n    return helper(1);\n  }\n};\n",
    })
    assert _callers(graph, "Widget") == {("src/test/java/com/acme/WidgetTest.java", 5, "WidgetTest.make", 0.9)}
    assert _callers(graph, "Helper") == {("src/test/java/com/acme/WidgetTest.java", 6, "WidgetTest.make", 0.95)}
    assert _callers(graph, "Lone") == {("src/test/java/com/acme/WidgetTest.java", 7, "WidgetTest.make", 0.6)}
    from mindex.graph_heirs import heirs

    (widget,) = heirs(graph, "Widget", ("extends",))
    assert [(e.scope, e.confidence, e.reason) for e in widget.edges] == [("Gadget", 0.9, "same package")]
    assert _callers(graph, "helper") == {("cpp/user.cpp", 4, "User.run", 0.9)}


def test_ruby_php_csharp_and_kotlin_calls_are_read(index: Index, tmp_path: Path) -> None:
    """sinatra's `graph callers Sinatra::Base.route` said "(none)" although `get`, `post` and
    eight more call it: no call of Ruby, PHP, C# or Kotlin was read. Each now records its calls
    (a bare call in a method is the class's own), constructors (`Foo.new`, `new Foo()`,
    `Foo()`), imports (`require_relative`, `use`, `import`), supertypes and what a typed
    parameter holds."""
    from mindex.graph_heirs import heirs

    graph = _graph_of(index, tmp_path / "m", {
        "rb/lib/base.rb": (
            "module Web\n  class Base\n    def route(verb, path)\n      verb\n    end\n\n"
            "    def get(path)\n      route('GET', path)\n    end\n  end\nend\n"),
        "rb/lib/app.rb": (
            "require_relative 'base'\n\nclass App < Web::Base\n  def start\n    Web::Base.new\n  end\nend\n"),
        "php/src/ClientInterface.php": "<?php\nnamespace Acme;\ninterface ClientInterface {\n}\n",
        "php/src/Transport.php": "<?php\nnamespace Acme;\nclass Transport {\n  public function deliver($r) { return $r; }\n}\n",
        "php/src/Client.php": (
            "<?php\nnamespace Acme;\nclass Client implements ClientInterface {\n"
            "  public function __construct(private Transport $transport) {}\n"
            "  public function send($r) { return $this->wrap($this->transport->deliver($r)); }\n"
            "  private function wrap($r) { return $r; }\n}\n"),
        "php/src/Api.php": (
            "<?php\nnamespace Acme\\Api;\nuse Acme\\Client;\nclass Api extends Client {\n"
            "  public function call(Client $c) {\n    $c->send(1);\n    $made = new Client();\n  }\n}\n"),
        "cs/IStore.cs": "namespace Shop {\n  public interface IStore {\n    void Save();\n  }\n}\n",
        "cs/Store.cs": "namespace Shop {\n  public class Store : IStore {\n    public void Save() { Check(); }\n    void Check() {}\n  }\n}\n",
        "cs/Cart.cs": (
            "using Shop;\nnamespace Shop.Web {\n  public class Cart : Store {\n"
            "    public void Buy(Store store) {\n      store.Save();\n      var other = new Store();\n    }\n  }\n}\n"),
        "kt/com/acme/Engine.kt": "package com.acme\n\nopen class Engine {\n  fun run() { check() }\n  fun check() {}\n}\n",
        "kt/com/acme/app/Car.kt": (
            "package com.acme.app\n\nimport com.acme.Engine\n\nclass Car(val engine: Engine) : Engine() {\n"
            "  fun drive(spare: Engine) {\n    spare.run()\n    Engine()\n  }\n}\n"),
    })
    assert _callers(graph, "Web.Base.route") == {("rb/lib/base.rb", 8, "Web.Base.get", 1.0)}
    assert [e.scope for e in heirs(graph, "Web.Base", ("extends",))[0].edges] == ["App"]
    assert ("rb/lib/app.rb", 5, "App.start") in {c[:3] for c in _callers(graph, "Web.Base")}
    (base,) = graph.targets("Web.Base")
    assert "rb/lib/app.rb" in {f["path"] for f in impact(graph, base, depth=1)}  # it requires base.rb
    assert _callers(graph, "Client.wrap") == {("php/src/Client.php", 5, "Client.send", 1.0)}
    assert _callers(graph, "Transport.deliver") == {("php/src/Client.php", 5, "Client.send", 0.9)}  # a promoted property
    assert _callers(graph, "Client.send") == {("php/src/Api.php", 6, "Api.call", 0.9)}
    assert ("php/src/Api.php", 7, "Api.call", 0.95) in _callers(graph, "Client")
    assert [e.scope for e in heirs(graph, "Client", ("extends",))[0].edges] == ["Api"]
    (made,) = heirs(graph, "ClientInterface", ("implements",), depth=1)  # one namespace, one folder (PSR-4)
    assert [(e.scope, e.confidence, e.reason) for e in made.edges] == [("Client", 0.9, "same package")]
    assert _callers(graph, "Shop.Store.Check") == {("cs/Store.cs", 3, "Shop.Store.Save", 1.0)}
    assert _callers(graph, "Shop.Store.Save") == {("cs/Cart.cs", 5, "Shop.Web.Cart.Buy", 0.9)}
    assert [e.scope for e in heirs(graph, "Shop.Store", ("extends",))[0].edges] == ["Shop.Web.Cart"]
    assert [e.scope for e in heirs(graph, "Shop.IStore", ("implements",), depth=1)[0].edges] == ["Shop.Store"]
    assert _callers(graph, "Engine.check") == {("kt/com/acme/Engine.kt", 4, "Engine.run", 1.0)}
    assert _callers(graph, "Engine.run") == {("kt/com/acme/app/Car.kt", 7, "Car.drive", 0.9)}
    assert ("kt/com/acme/app/Car.kt", 8, "Car.drive", 0.95) in _callers(graph, "Engine")


def test_an_overloaded_method_is_chosen_by_how_many_arguments_a_call_passes(index: Index, tmp_path: Path) -> None:
    """gson's `toJson(src)` reached all eight `toJson`s, and jsoup's `el.attr("k")` reached
    Element's two-argument `attr`s where Java picks the one-argument `attr` Element inherits
    from Node. In Java, C#, Kotlin and C++ a call now reaches the nearest methods whose
    parameters take its arguments (defaults and varargs counted), and those of one name
    when none does."""
    graph = _graph_of(index, tmp_path / "o", {
        "j/Node.java": "class Node {\n  String attr(String key) { return key; }\n}\n",
        "j/Element.java": (
            "class Element extends Node {\n  Element attr(String key, String value) { return this; }\n"
            "  Element attr(String key, boolean on) { return this; }\n  int add(int a) { return add(a, 1); }\n"
            "  int add(int a, int b) { return a + b; }\n  int sum(int... xs) { return add(1); }\n}\n"),
        "j/Use.java": (
            "class Use {\n  void go(Element el) {\n    el.attr(\"k\");\n    el.attr(\"k\", \"v\");\n"
            "    el.sum(1, 2, 3);\n    el.attr();\n  }\n}\n"),
        "cs/Calc.cs": (
            "class Calc {\n  int Mul(int a, int b = 2) { return a * b; }\n"
            "  int Mul(string s, string t, string u) { return Mul(1, 3); }\n  int Use() { return Mul(1); }\n}\n"),
    })

    def reached(scope: str, line: int = 0) -> dict[int, set[tuple[int, float]]]:
        (target,) = [t for t in graph.targets(scope) if not line or t.start_line == line]
        out: dict[int, set[tuple[int, float]]] = {}
        for edge in graph.callees(target):
            for line in edge.lines or [edge.line]:
                if edge.target is not None:
                    out.setdefault(line, set()).add((edge.target.start_line, edge.confidence))
        return out

    use = reached("Use.go")
    assert use[3] == {(2, 0.85)}  # Node.attr(String), inherited
    assert use[4] == {(2, 0.9), (3, 0.9)}  # both two-argument ones take ("k", "v"): types are not read
    assert use[5] == {(6, 0.9)}  # sum(int...)
    assert use[6] == {(2, 0.9), (3, 0.9)}  # no attr takes no argument: every one Element has, as before
    (add_one,) = [t for t in graph.targets("Element.add") if t.start_line == 4]
    assert {e.target.start_line for e in graph.callees(add_one) if e.target} == {5}
    assert reached("Element.sum") == {6: {(4, 1.0)}}
    assert reached("Calc.Use") == {4: {(2, 1.0)}} and reached("Calc.Mul", 3) == {3: {(2, 1.0)}}


def test_a_method_a_class_inherits_from_outside_the_index_is_not_guessed(index: Index, tmp_path: Path) -> None:
    """jsoup's `elements.size()`, `Elements` being an `ArrayList`, reached jsoup's own `size`
    methods by name, and click's calls on its `dict` subclasses reached click's methods so: a
    class of the index that neither defines nor inherits (from the index) the method, but
    extends a class the index does not hold, reaches nothing."""
    graph = _graph_of(index, tmp_path / "x", {
        "j/Elements.java": "import java.util.ArrayList;\nclass Elements extends ArrayList<String> {\n  void own() {}\n}\n",
        "j/Attributes.java": "class Attributes {\n  int size() { return 0; }\n}\n",
        "j/Use.java": "class Use {\n  void go(Elements els) {\n    els.size();\n    els.own();\n  }\n}\n",
        "p/reg.py": "class Registry(dict):\n    def own(self):\n        return 1\n\n\nclass Other:\n    def items(self):\n        return []\n",
        "p/use.py": "from reg import Registry\n\n\ndef go(reg: Registry):\n    reg.items()\n    reg.own()\n",
    })
    java = {e.call: e for e in graph.callees(graph.targets("Use.go")[0])}
    assert java["els.size"].target is None and "extends ArrayList" in java["els.size"].reason
    assert java["els.own"].target is not None and java["els.own"].target.name == "Elements.own"
    python = {e.call: e for e in graph.callees(graph.targets("go")[0])}
    assert python["reg.items"].target is None and "extends dict" in python["reg.items"].reason
    assert python["reg.own"].target is not None and python["reg.own"].confidence == 0.9


def test_a_c_function_is_found_through_the_headers_an_included_header_includes(index: Index, tmp_path: Path) -> None:
    """jq's `util.c` calls `jv_free` 208 times through `util.h`, which includes `jv.h`: each was
    a guess by name (0.6). The headers a header includes count too, three levels deep."""
    graph = _graph_of(index, tmp_path / "c", {
        "src/jv.h": "void jv_free(int v);\n",
        "src/jv.c": "#include \"jv.h\"\nvoid jv_free(int v) {}\n",
        "src/util.h": "#include \"jv.h\"\nint util(void);\n",
        "src/util.c": "#include \"util.h\"\nint util(void) {\n  jv_free(1);\n  return 0;\n}\n",
        "other/jv_free.c": "void jv_free(int v) {}\n",
    })
    (target,) = [t for t in graph.targets("jv_free") if t.path == "src/jv.c"]
    assert {(e.path, e.line, e.confidence, e.reason) for e in graph.callers(target)} == {
        ("src/util.c", 3, 0.9, "defined with an included header")}


def test_a_guess_by_name_keeps_out_tests_and_classes_nothing_defines(index: Index, tmp_path: Path) -> None:
    """sinatra's `base.routes` (in the library) reached a test's `routes` as "the only
    definition with this name", and gson's `Integer.parseInt()` and jsoup's `Math.max()` reached
    methods of the project named so. Code that is no test never reaches a test's definition
    by name alone, and `Type.f()` on a capitalised name nothing in the index defines reaches
    nothing."""
    graph = _graph_of(index, tmp_path / "p", {
        "pkg/model.py": "class Model:\n    def validate(self):\n        return True\n\n    def home(self):\n        return 1\n",
        "pkg/core.py": "from pathlib import Path\n\n\ndef run(thing):\n    thing.validate()\n    return Home.home()\n",
        "tests/test_core.py": (
            "class FakeThing:\n    def validate(self):\n        return False\n\n\n"
            "def test_run(thing):\n    thing.validate()\n"),
    })
    (run,) = graph.targets("run")
    reached = {e.call: (e.target.name if e.target else None, e.confidence, e.reason) for e in graph.callees(run)}
    assert reached["thing.validate"] == ("Model.validate", 0.6, "the only definition with this name")
    assert reached["Home.home"][0] is None and "nothing here defines Home" in reached["Home.home"][2]
    assert {(line, confidence) for _, line, _, confidence in _callers(graph, "FakeThing.validate")} == {(7, 0.25)}


def test_swift_calls_supertypes_and_typed_names_are_read(index: Index, tmp_path: Path) -> None:
    """Swift had no reference query: every `graph callers` of an iOS project said "(none)"."""
    from mindex.graph_heirs import heirs

    graph = _graph_of(index, tmp_path / "s", {
        "Sources/Kit/Engine.swift": "class Engine {\n  func run() -> Int {\n    return check()\n  }\n  func check() -> Int { 0 }\n}\n",
        "Sources/App/Car.swift": (
            "import Kit\n\nclass Car: Engine {\n  let spare: Engine\n  init(spare: Engine) { self.spare = spare }\n"
            "  func drive(with other: Engine) {\n    other.run()\n    spare.run()\n    let made = Engine()\n    made.run()\n  }\n}\n"),
    })
    assert _callers(graph, "Engine.check") == {("Sources/Kit/Engine.swift", 3, "Engine.run", 1.0)}
    assert {(line, confidence) for _, line, _, confidence in _callers(graph, "Engine.run")} == {(7, 0.9), (8, 0.9), (10, 0.9)}
    assert [e.scope for e in heirs(graph, "Engine", ("extends",))[0].edges] == ["Car"]


def test_lua_modules_are_followed_through_require(index: Index, tmp_path: Path) -> None:
    """A Neovim plugin (lazy.nvim) defines each module's functions on a local table `M` and
    calls another module's through `local Loader = require("lazy.core.loader")`: with no Lua
    reference query, `graph callers` said "(none)"; and every module's `M.load` is `M.load`, so
    `M.other()` must mean this file's."""
    graph = _graph_of(index, tmp_path / "nvim", {
        "lua/kit/loader.lua": (
            "local M = {}\n\nfunction M.load(p)\n  return M.check(p)\nend\n\nfunction M.check(p)\n  return p\nend\n\n"
            "return M\n"),
        "lua/kit/init.lua": (
            'local Loader = require("kit.loader")\nlocal M = {}\n\nfunction M.setup(opts)\n  Loader.load(opts)\n'
            "  M.check(opts)\nend\n\nfunction M.check(o)\n  return o\nend\n\nreturn M\n"),
    })
    (load,) = [t for t in graph.targets("M.load")]
    assert {(e.path, e.line, e.confidence) for e in graph.callers(load)} == {("lua/kit/init.lua", 5, 0.95)}
    checks = {t.path: t for t in graph.targets("M.check")}
    assert {(e.path, e.line) for e in graph.callers(checks["lua/kit/loader.lua"])} == {("lua/kit/loader.lua", 4)}
    assert {(e.path, e.line) for e in graph.callers(checks["lua/kit/init.lua"])} == {("lua/kit/init.lua", 6)}


def test_shell_functions_are_called_here_and_through_sourced_scripts(index: Index, tmp_path: Path) -> None:
    """A shell script's functions had no callers ("(none)"): shell references were not read. A
    command is a call of its name: a function of the same script (1.0), of a script it sources
    (`source ./lib/util.sh`, `. "$DIR/lib/net.sh"`: 0.95), else guessed by name; a command no
    script defines (`curl`, `echo`) reaches nothing."""
    graph = _graph_of(index, tmp_path / "sh", {
        "lib/util.sh": '#!/bin/bash\nlog() { echo "$*" >&2; }\ndie() {\n  log "fatal: $*"\n  exit 1\n}\n',
        "lib/net.sh": 'fetch_url() {\n  curl -fsSL "$1" || die "cannot fetch $1"\n}\n',
        "build.sh": (
            '#!/bin/bash\nDIR="$(cd "$(dirname "$0")" && pwd)"\nsource ./lib/util.sh\n. "$DIR/lib/net.sh"\n'
            'main() {\n  log "building"\n  fetch_url https://example.org/x.tgz > x.tgz\n}\nmain "$@"\n'),
    })
    assert _callers(graph, "log") == {("lib/util.sh", 4, "die", 1.0), ("build.sh", 6, "main", 0.95)}
    assert _callers(graph, "fetch_url") == {("build.sh", 7, "main", 0.95)}
    assert _callers(graph, "die") == {("lib/net.sh", 2, "fetch_url", 0.6)}  # net.sh sources nothing
    assert _callers(graph, "main") == {("build.sh", 9, "", 1.0)}
    (main,) = graph.targets("main")
    assert {e.call for e in graph.callees(main) if e.target is not None} == {"log", "fetch_url"}
    (die,) = graph.targets("die")  # the shell's builtins are no calls; another program is one, outside the index
    assert [e.call for e in graph.callees(die)] == ["log"]
    (fetch,) = graph.targets("fetch_url")
    assert {(e.call, e.target is None) for e in graph.callees(fetch)} == {("curl", True), ("die", False)}


def test_powershell_commands_dot_sourced_scripts_modules_and_classes(index: Index, tmp_path: Path) -> None:
    """PowerShell had no reference query: a module's functions (Pester's) had no callers. A
    command is a call of its name: a function of this script (1.0), of a script it dot-sources
    (`. $PSScriptRoot\\lib\\Util.ps1`, `. "$PSScriptRoot/lib/Net.ps1"`) or of a module it imports
    (`Import-Module $PSScriptRoot\\Kit.psd1`: the manifest's `Kit.psm1`) at 0.95, of a script
    dot-sourced by the same file as this one at 0.9; a cmdlet
    (`Join-Path`) reaches nothing; `$this.M()` is the class's own method, `[Shape]::new()` makes
    the class, `class Square : Shape` extends it; the `else` of an `if` whose value is assigned
    (`$mode = if (...) {...}`, then `else {` on a line of its own) is no command."""
    from mindex.graph_heirs import heirs

    graph = _graph_of(index, tmp_path / "ps", {
        "lib/Util.ps1": "function Write-Log {\n    param($Text)\n    Write-Host $Text\n}\n",
        "lib/Net.ps1": "function Get-Page {\n    param($Url)\n    Write-Log \"get $Url\"\n}\n",
        "Kit.psm1": ". $PSScriptRoot\\lib\\Util.ps1\nfunction Invoke-Kit {\n    Write-Log 'kit'\n}\n",
        "Shapes.ps1": (
            "class Shape {\n    [int] Area() { return $this.Side() }\n    [int] Side() { return 2 }\n}\n"
            "class Square : Shape {\n}\n"),
        "build.ps1": (
            ". $PSScriptRoot\\lib\\Util.ps1\n. \"$PSScriptRoot/lib/Net.ps1\"\n"
            "Import-Module $PSScriptRoot\\Kit.psd1 -Force\n\n"
            "function Start-Build {\n    param($Out)\n    Write-Log 'building'\n"
            "    $page = Get-Page -Url 'https://example.org'\n    $path = Join-Path $Out 'x.txt'\n"
            "    $mode = if ($page) {\n        Invoke-Kit\n    }\n    else {\n        Write-Log 'empty'\n    }\n"
            "    $shape = [Shape]::new()\n    return $shape.Area()\n}\n\nStart-Build -Out ./out\n"),
    })
    assert _callers(graph, "Write-Log") == {
        ("lib/Net.ps1", 3, "Get-Page", 0.9),  # build.ps1 dot-sources Net.ps1 with Util.ps1
        ("Kit.psm1", 3, "Invoke-Kit", 0.95), ("build.ps1", 7, "Start-Build", 0.95), ("build.ps1", 14, "Start-Build", 0.95)}
    assert _callers(graph, "Get-Page") == {("build.ps1", 8, "Start-Build", 0.95)}
    assert _callers(graph, "Invoke-Kit") == {("build.ps1", 11, "Start-Build", 0.95)}
    assert _callers(graph, "Start-Build") == {("build.ps1", 20, "", 1.0)}
    assert _callers(graph, "Shape.Side") == {("Shapes.ps1", 2, "Shape.Area", 1.0)}
    assert ("build.ps1", 16, "Start-Build") in {(p, line, scope) for p, line, scope, _ in _callers(graph, "Shape")}
    (start,) = graph.targets("Start-Build")
    reached = {e.call: e.target.name if e.target else None for e in graph.callees(start)}
    assert reached["Join-Path"] is None and "else" not in reached
    assert [e.scope for e in heirs(graph, "Shape", ("extends",))[0].edges] == ["Square"]


def test_julia_modules_included_files_macros_and_methods_of_base(index: Index, tmp_path: Path) -> None:
    """Julia had no reference query (CSV.jl's functions had no callers), and `function
    Base.show(io, x)` was a definition named `Base`. A file `include`d by a module shares its
    names: a call in one reaches a function of another included by the same file (0.9) and
    sees the includer's `using` (a test file included by runtests.jl calls `Kit.helper`); a
    macro is `@check` as it is called, and `@check x` reaches no function `check`; a method head
    (`fmt(b::Box) = ...`) is no call; a method added to Base's `show` is `Base.show`, so a call
    of `show` is no sure edge to it; `struct Box{T} <: AbstractBox{T}` extends AbstractBox."""
    from mindex.graph_heirs import heirs

    graph = _graph_of(index, tmp_path / "jl", {
        "src/Kit.jl": (
            "module Kit\nusing Dates\ninclude(\"types.jl\")\ninclude(\"util.jl\")\n\n"
            "macro check(ex)\n    esc(ex)\nend\n\nfunction run(x)\n    @check x > 0\n    return helper(x)\nend\nend\n"),
        "src/types.jl": (
            "abstract type AbstractBox{T} end\n\nstruct Box{T} <: AbstractBox{T}\n    value::T\nend\n\n"
            "fmt(b::Box) = string(b.value)\n\nfunction Base.show(io::IO, b::Box)\n    print(io, fmt(b))\nend\n"),
        "src/util.jl": "function helper(x)\n    b = Box(x)\n    show(stdout, b)\n    return fmt(b)\nend\n\ncheck(x) = x\n",
        "test/runtests.jl": "using Kit\nusing Test\n\ninclude(\"basics.jl\")\n",
        "test/basics.jl": "@testset \"helper\" begin\n    @test Kit.helper(1) == \"1\"\nend\n",
    })
    assert _callers(graph, "fmt") == {("src/util.jl", 4, "helper", 0.9), ("src/types.jl", 10, "Base.show", 1.0)}
    assert _callers(graph, "Box") == {("src/util.jl", 2, "helper", 0.9)}
    assert _callers(graph, "helper") == {("src/Kit.jl", 12, "Kit.run", 0.95), ("test/basics.jl", 2, "", 0.9)}
    assert _callers(graph, "@check") == {("src/Kit.jl", 11, "Kit.run", 1.0)}
    assert _callers(graph, "check") == set()
    (show,) = graph.targets("Base.show")
    assert show.signature == "Base.show(io::IO, b::Box)" and graph.targets("fmt")[0].signature == "fmt(b::Box)"
    assert [(e.path, e.line, e.confidence) for e in graph.callers(show)] == [("src/util.jl", 3, 0.6)]  # a guess
    assert [e.scope for e in heirs(graph, "AbstractBox", ("extends",))[0].edges] == ["Box"]


def test_haskell_applications_imports_where_functions_and_the_prelude(index: Index, tmp_path: Path) -> None:
    """Haskell had no reference query (hakyll's functions had no callers). A function applied
    (`clamp 0 10 x`, `U.norm x`), passed qualified (`map U.norm xs`) or on the function's side
    of `$` and `.` is a call; a plain name passed on is a call when the file defines it (`map
    norm xs`) or imports it by name, else a value (`xs`). `import Kit.Util (clamp)`,
    `import qualified Kit.Util as U` and `import Kit` are read as Haskell reads them (the last
    brings every name), a `where` function is its own (1.0), and a name neither the file nor an
    import gives is the Prelude's (`print`), never a guess at the index's definitions of it;
    a value binding, `main = ...`, is a definition; `class Show a => Pretty a` extends Show."""
    graph = _graph_of(index, tmp_path / "hs", {
        "src/Kit/Util.hs": (
            "module Kit.Util (norm, clamp) where\n\nnorm :: Int -> Int\nnorm x = clamp 0 10 x\n\n"
            "clamp :: Int -> Int -> Int -> Int\nclamp lo hi = max lo . min hi\n\nprint :: Int -> Int\nprint = id\n\n"
            "normAll :: [Int] -> [Int]\nnormAll xs = map norm xs\n"),
        "src/Kit.hs": (
            "module Kit (run) where\n\nimport qualified Kit.Util as U\nimport Kit.Util (clamp)\nimport Data.List (sortBy)\n\n"
            "run :: [Int] -> [Int]\nrun xs = map U.norm (go xs)\n  where go ys = sortBy compare . filter (> clamp 0 1 5) $ ys\n\n"
            "class Show a => Pretty a where\n  pretty :: a -> String\n"),
        "app/Main.hs": "module Main where\n\nimport Kit\n\nmain :: IO ()\nmain = print $ run [3, 1, 2]\n",
    })
    assert _callers(graph, "clamp") == {("src/Kit/Util.hs", 4, "norm", 1.0), ("src/Kit.hs", 9, "run.go", 0.95)}
    assert _callers(graph, "norm") == {("src/Kit.hs", 8, "run", 0.95), ("src/Kit/Util.hs", 13, "normAll", 1.0)}
    assert _callers(graph, "run.go") == {("src/Kit.hs", 8, "run", 1.0)}
    assert _callers(graph, "run") == {("app/Main.hs", 6, "main", 0.95)}
    (main,) = graph.targets("main")
    assert (main.start_line, main.end_line, main.signature) == (5, 6, "main :: IO ()")  # its type and binding, one
    reached = {e.call: (e.target.name if e.target else None, e.reason) for e in graph.callees(main)}
    assert reached["print"] == (None, "not defined in this file or imported (the Prelude's, or an outside module's)")
    (go,) = graph.targets("run.go")
    assert {e.call: e.reason for e in graph.callees(go)}["sortBy"] == "outside the index: imported from Data.List"
    assert [(r.name, r.scope) for r in graph.refs(graph.document("src/Kit.hs"), "extends")] == [("Show", "Pretty")]


def test_groovy_calls_reach_groovy_and_java_classes(index: Index, tmp_path: Path) -> None:
    """Groovy had no reference query (Job DSL's methods had no callers). Its grammar is Java's,
    and so are its calls, imports and supertypes; a Groovy class reaches a Java class of its
    package (a Spock or JUnit test in `src/test/groovy` of the code in `src/main/java`), `def x
    = new Engine()` says what x holds, and a call of a name alone is the class's own method or
    an inherited one."""
    from mindex.graph_heirs import heirs

    graph = _graph_of(index, tmp_path / "groovy", {
        "src/main/java/kit/Engine.java": (
            "package kit;\n\npublic class Engine {\n  public int run(int x) { return check(x); }\n"
            "  int check(int x) { return x; }\n}\n"),
        "src/main/groovy/kit/util/Log.groovy": "package kit.util\n\nclass Log {\n    static void info(String m) { println m }\n}\n",
        "src/main/groovy/kit/Drivable.groovy": "package kit\n\ninterface Drivable {\n    def drive()\n}\n",
        "src/main/groovy/kit/Car.groovy": (
            "package kit\n\nimport kit.util.Log\n\nclass Car extends Engine implements Drivable {\n    def drive() {\n"
            "        Log.info(\"go\")\n        def spare = new Engine()\n        spare.run(1)\n        run(2)\n        honk()\n"
            "    }\n\n    void honk() { }\n}\n"),
        "src/test/groovy/kit/EngineTest.groovy": (
            "package kit\n\nclass EngineTest {\n    void runs() {\n        Engine e = new Engine()\n        e.run(3)\n    }\n}\n"),
    })
    assert _callers(graph, "Engine.run") == {
        ("src/main/groovy/kit/Car.groovy", 9, "Car.drive", 0.9), ("src/main/groovy/kit/Car.groovy", 10, "Car.drive", 0.9),
        ("src/test/groovy/kit/EngineTest.groovy", 6, "EngineTest.runs", 0.9)}
    assert _callers(graph, "Log.info") == {("src/main/groovy/kit/Car.groovy", 7, "Car.drive", 0.95)}
    assert _callers(graph, "Car.honk") == {("src/main/groovy/kit/Car.groovy", 11, "Car.drive", 1.0)}
    made = {(path, line, confidence) for path, line, _, confidence in _callers(graph, "Engine")}
    assert made == {("src/main/groovy/kit/Car.groovy", 8, 0.9), ("src/test/groovy/kit/EngineTest.groovy", 5, 0.9)}
    assert [e.scope for e in heirs(graph, "Engine", ("extends",))[0].edges] == ["Car"]
    assert [e.scope for e in heirs(graph, "Drivable", ("implements",))[0].edges] == ["Car"]


def test_ocaml_applications_opens_aliases_and_modules_seen_without_import(index: Index, tmp_path: Path) -> None:
    """OCaml had no reference query (ocaml-containers' functions had no callers). A function
    applied, piped into (`x |> f`), applied with `@@` or passed qualified (`List.map Util.norm`)
    is a call; `open Util` brings util.ml's names, `module U = Util` names it U, and any module
    of the index is seen without either (`Kit.top 3` reaches kit.ml's `top`); a local `let go ys
    = ...` is found inside its function; a name neither the file nor an open gives is Stdlib's
    (main.ml's `print_endline`, not util.ml's), and `List.rev` (no `List` in the index) reaches
    nothing."""
    graph = _graph_of(index, tmp_path / "ml", {
        "src/util.ml": "let clamp lo hi x = max lo (min hi x)\n\nlet norm x = clamp 0 10 x\n\nlet print_endline s = ignore s\n",
        "src/kit.ml": (
            "open Util\n\nmodule U = Util\n\nlet double x = x * 2\n\nlet run xs =\n"
            "  let go ys = List.map Util.norm ys in\n  go xs |> List.rev |> List.map double\n\n"
            "let top x = U.clamp 0 1 x |> norm\n"),
        "bin/main.ml": "let () = print_endline @@ string_of_int (Kit.top 3)\n",
    })
    assert _callers(graph, "norm") == {("src/kit.ml", 8, "run.go", 0.95), ("src/kit.ml", 11, "top", 0.95)}
    assert _callers(graph, "clamp") == {("src/util.ml", 3, "norm", 1.0), ("src/kit.ml", 11, "top", 0.95)}
    assert _callers(graph, "run.go") == {("src/kit.ml", 9, "run", 1.0)}
    assert graph.targets("clamp")[0].signature == "clamp lo hi x"  # the binding's head
    assert _callers(graph, "top") == {("bin/main.ml", 1, "", 0.9)}
    (run,) = graph.targets("run")
    reasons = {e.call: e.reason for e in graph.callees(run)}
    assert reasons["List.rev"] == "outside the index: nothing here defines List"
    main = graph.refs(graph.document("bin/main.ml"), "call")
    assert {r.name: graph.resolve(r).reason for r in main}["print_endline"].startswith(
        "not defined in this file or imported (Stdlib's")


def test_matlab_calls_reach_function_files_and_local_functions(index: Index, tmp_path: Path) -> None:
    """MATLAB had no reference query (export_fig's functions had no callers). `f(x)` is a call
    or an array indexed; it reaches the file's own function (1.0) or the function of `f.m`
    (0.9), as MATLAB's path finds it, never another file's local function (`scale` of
    norm01.m) nor a guess: a variable indexed (`data(2)`) reaches nothing. `pkg.sub.f(x)` is a
    call on `pkg.sub`; `classdef Shape < handle` extends handle."""
    graph = _graph_of(index, tmp_path / "mat", {
        "kit/clamp.m": "function y = clamp(x, lo, hi)\n  y = min(max(x, lo), hi);\nend\n",
        "kit/norm01.m": (
            "function y = norm01(x)\n  y = clamp(x, 0, 1);\n  y = scale(y);\nend\n\n"
            "function z = scale(q)\n  z = q * 2;\nend\n"),
        "Shape.m": (
            "classdef Shape < handle\n  methods\n    function obj = Shape(r)\n      obj.r = r;\n    end\n"
            "    function a = area(obj)\n      a = obj.r;\n    end\n  end\nend\n"),
        "main.m": "data = [1 2 3];\nv = data(2);\nr = norm01(v);\nscale(r)\nhold on\nobj = Shape(1);\nkit.util.log(obj);\n",
    })
    assert _callers(graph, "clamp") == {("kit/norm01.m", 2, "norm01", 0.9)}
    assert graph.targets("clamp")[0].signature == "y = clamp(x, lo, hi)"  # the head as written
    assert _callers(graph, "norm01") == {("main.m", 3, "", 0.9)}
    assert _callers(graph, "scale") == {("kit/norm01.m", 3, "norm01", 1.0)}
    assert ("main.m", 6, "", 0.9) in _callers(graph, "Shape")
    main = {r.name: (r.qualifier, graph.resolve(r)) for r in graph.refs(graph.document("main.m"), "call")}
    assert main["data"][1].targets == [] and main["scale"][1].targets == [] and main["hold"][1].targets == []
    assert main["log"][0] == "kit.util"
    assert [r.name for r in graph.refs(graph.document("Shape.m"), "extends")] == ["handle"]


def test_dart_chained_calls_and_what_functions_return(index: Index, tmp_path: Path) -> None:
    """Dart's grammar writes a call as a name and selectors, no call node, and a call on what a
    call gives (`Navigator.of(context).push(route)`, Flutter's most common shape) was no call at
    all; `r?.go()` neither. Both are read now, and a function's return type says what its call
    gives: `Router.of('x').push('/a').go()` reaches Router.push and Router.go (0.9), as `r?.go()`
    does after `final r = Router.of('y')`; a named constructor is a definition
    (`Router.fromJson`) and gives its class; Flutter's `context.read<Router>()` and
    `context.watch<Router>()` give a Router."""
    graph = _graph_of(index, tmp_path / "dart", {
        "lib/router.dart": (
            "class Router {\n  static Router of(String name) => Router();\n"
            "  Router push(String route) {\n    return this;\n  }\n  void go() {}\n"
            "  factory Router.fromJson(Map json) => Router();\n}\n"),
        "lib/app.dart": (
            "import 'router.dart';\n\nvoid main() {\n  Router.of('x').push('/a').go();\n"
            "  final r = Router.of('y');\n  r?.go();\n  Router.fromJson({}).go();\n}\n"),
        "lib/page.dart": (
            "import 'router.dart';\n\nvoid onTap(BuildContext context) {\n  context.read<Router>().go();\n"
            "  context.watch<Router>().push('/b');\n  context.read<Router>().missing();\n}\n"),
    })
    provided = ("lib/page.dart", 5, "onTap", 0.9)  # Flutter's provider idiom gives the T it is asked for
    assert _callers(graph, "Router.push") == {("lib/app.dart", 4, "main", 0.9), provided}
    assert _callers(graph, "Router.go") == {("lib/app.dart", 4, "main", 0.9), ("lib/app.dart", 6, "main", 0.9),
                                            ("lib/app.dart", 7, "main", 0.9),  # a named constructor gives a Router
                                            ("lib/page.dart", 4, "onTap", 0.9)}
    assert _callers(graph, "Router.fromJson") == {("lib/app.dart", 7, "main", 0.9)}
    (main,) = graph.targets("main")
    assert [e.call for e in graph.callees(main)][:3] == ["Router.of", "Router.of('x').push", "Router.of('x').push('/a').go"]


def test_perl_calls_through_use_and_package_names(index: Index, tmp_path: Path) -> None:
    """Mojolicious's subs had no callers: Perl's calls were not read. `use My::Util qw(trim)`
    makes `trim()` My/Util.pm's (0.95), `My::Util::md5()` and `My::App->new` reach the sub of
    the package's file, a sub of the same file is its own (1.0, with or without parentheses),
    pragmas (`use strict`) are no imports, and a module that only imports a name (My::Base
    uses My::Util) does not stand in for the one that defines it."""
    graph = _graph_of(index, tmp_path / "pl", {
        "lib/My/Util.pm": "package My::Util;\nuse strict;\nsub trim { my $s = shift; return $s }\nsub md5 { return 1 }\n1;\n",
        "lib/My/Base.pm": "package My::Base;\nuse My::Util qw(trim);\nsub clean { trim(shift) }\n1;\n",
        "lib/My/App.pm": (
            "package My::App;\nuse strict;\nuse My::Base;\nuse My::Util qw(trim);\n"
            "sub new { my $class = shift; return bless {}, $class }\n"
            "sub run {\n  my $self = shift;\n  my $x = trim($self->{x});\n  return My::Util::md5($x) . helper $x;\n}\n"
            "sub helper { return shift }\n1;\n"),
        "app.pl": "use lib 'lib';\nuse My::App;\nMy::App->new;\n",
        "t/util.t": "use Test::More;\nuse My::Util qw(trim);\nis(trim('a'), 'a');\ndone_testing;\n",  # a test script
    })
    assert _callers(graph, "trim") == {("lib/My/App.pm", 8, "run", 0.95), ("lib/My/Base.pm", 3, "clean", 0.95),
                                       ("t/util.t", 3, "", 0.95)}
    assert _callers(graph, "md5") == {("lib/My/App.pm", 9, "run", 0.95)}
    assert [e.reason for e in graph.callers(graph.targets("md5")[0])] == ["My::Util is imported"]
    assert _callers(graph, "helper") == {("lib/My/App.pm", 9, "run", 1.0)}
    assert _callers(graph, "new") == {("app.pl", 3, "", 0.95)}
    assert not [r for r in graph.imports(graph.document("lib/My/App.pm")) if r.qualifier == "strict"]


def test_scala_calls_imports_objects_and_traits(index: Index, tmp_path: Path) -> None:
    """Scala had no reference query: scopt's `OParser.sequence` had no callers. Calls
    (`f(x)`, `o.f(x)`, `new C(x)`, an infix word), imports (`{A, B => C}`, `O._`), supertypes
    (`extends A with B`, all `extends`: a trait's implementations are what extends it),
    annotated parameters and `new` are read; a package's files see each other's names, from
    `src/main` and `src/test` alike; `import kit.Effects._` brings an object's members, in
    a file of another name; a trait's abstract `def` is a definition."""
    from mindex.graph_heirs import heirs

    graph = _graph_of(index, tmp_path / "scala", {
        "src/main/scala/kit/Engine.scala": (
            "package kit\n\ntrait Setup {\n  def report(msg: String): Unit\n}\n\n"
            "class Engine(val setup: Setup) {\n  def run(): Int = check(1)\n  def check(n: Int): Int = n\n}\n\n"
            "object Effects {\n  case class Shown(msg: String)\n  def helper(x: Int): Int = x\n}\n"),
        "src/main/scala/app/Car.scala": (
            "package app\n\nimport kit.{Engine, Setup}\nimport kit.Effects._\nimport kit.Effects.{helper => assist}\n\n"
            "class ConsoleSetup extends Setup {\n  override def report(msg: String): Unit = println(msg)\n}\n\n"
            "class Car(spare: Engine) extends Engine(new ConsoleSetup) with Serializable {\n"
            "  def drive(other: Engine): Int = {\n    other.run()\n    spare.run()\n"
            "    val made = new Engine(new ConsoleSetup)\n    made.check(2)\n    helper(3)\n    Shown(\"x\")\n"
            "    assist(4)\n    List(1, 2) foreach println\n    run()\n  }\n}\n"),
        "src/test/scala/kit/EngineSpec.scala": "package kit\n\nclass EngineSpec {\n  def made = new Engine(null)\n}\n",
    })
    car = "src/main/scala/app/Car.scala"
    assert _callers(graph, "Engine.check") == {("src/main/scala/kit/Engine.scala", 8, "Engine.run", 1.0),
                                               (car, 16, "Car.drive", 0.9)}
    assert _callers(graph, "Engine.run") == {(car, 13, "Car.drive", 0.9), (car, 14, "Car.drive", 0.9),
                                             (car, 21, "Car.drive", 0.9)}  # `run()`: inherited
    assert _callers(graph, "Effects.helper") == {(car, 17, "Car.drive", 0.95), (car, 19, "Car.drive", 0.95)}
    assert _callers(graph, "Effects.Shown") == {(car, 18, "Car.drive", 0.95)}
    assert _callers(graph, "Engine") == {(car, 15, "Car.drive", 0.95), ("src/test/scala/kit/EngineSpec.scala", 4,
                                                                        "EngineSpec.made", 0.9)}
    (drive,) = graph.targets("Car.drive")
    assert ("foreach", "List(1, 2)") in {(e.call.rpartition(".")[2], e.call.rpartition(".")[0]) for e in graph.callees(drive)}
    assert [e.scope for e in heirs(graph, "Engine", ("extends",))[0].edges] == ["Car"]
    assert [e.scope for e in heirs(graph, "Setup", ("implements",))[0].edges] == ["ConsoleSetup"]
    assert [s.kind for s in graph.targets("Setup.report")] == ["method"]


def test_zig_types_methods_and_imports(index: Index, tmp_path: Path) -> None:
    """Zig had no reference query and its structs were no definitions (zig-clap's methods were
    `report`, not `Diagnostic.report`, and `graph callers parseEx` said "(none)"): a `const`
    holding a struct, enum, union or opaque is a definition of its kind, its functions its
    methods; `@import("x.zig")` (beside the file) and `@import("kit")` (`kit.zig`) are imports,
    `@import("x.zig").f` one name; typed parameters and `T{}`/`pkg.T{}` say what a name holds."""
    graph = _graph_of(index, tmp_path / "zig", {
        "kit.zig": (
            'const std = @import("std");\npub const util = @import("kit/util.zig");\n\n'
            "pub const Diagnostic = struct {\n    count: u8 = 0,\n\n"
            "    pub fn report(diag: *const Diagnostic) void {\n        diag.flush();\n    }\n\n"
            "    fn flush(self: Diagnostic) void {\n        _ = self;\n    }\n};\n\n"
            "pub const Kind = enum {\n    a,\n    pub fn name(k: Kind) []const u8 {\n        return @tagName(k);\n    }\n};\n\n"
            "pub fn parse(n: u8) u8 {\n    return util.twice(n);\n}\n"),
        "kit/util.zig": "pub fn twice(n: u8) u8 {\n    return n * 2;\n}\n",
        "example/main.zig": (
            'const std = @import("std");\nconst kit = @import("kit");\nconst twice = @import("../kit/util.zig").twice;\n\n'
            "pub fn main() void {\n    var diag = kit.Diagnostic{};\n    diag.report();\n"
            "    _ = kit.parse(1);\n    _ = twice(2);\n    std.debug.print(\"x\", .{});\n}\n\n"
            "fn other() void {\n    var diag: kit.Diagnostic = .{};\n    diag.report();\n}\n"),
    })
    outline = {(s.name, s.kind) for s in graph.outline(graph.document("kit.zig"))}
    assert {("Diagnostic", "struct"), ("Diagnostic.report", "method"), ("Kind", "enum"), ("Kind.name", "method"),
            ("parse", "function")} <= outline
    assert not {name for name, _ in outline} & {"std", "util"}  # an import is no type
    assert _callers(graph, "Diagnostic.flush") == {("kit.zig", 8, "Diagnostic.report", 0.9)}
    assert _callers(graph, "Diagnostic.report") == {("example/main.zig", 7, "main", 0.9),
                                                    ("example/main.zig", 15, "other", 0.9)}
    assert _callers(graph, "parse") == {("example/main.zig", 8, "main", 0.95)}
    assert _callers(graph, "twice") == {("kit.zig", 24, "parse", 0.95), ("example/main.zig", 9, "main", 0.95)}
    (main,) = graph.targets("main")
    assert [e.reason for e in graph.callees(main) if e.call == "std.debug.print"] == ["outside the index: std is imported from std"]


def test_a_base_class_imported_under_another_name_is_still_its_base(index: Index, tmp_path: Path) -> None:
    """`from base import Base as B; class C(B)`: `graph subclasses Base` listed nothing and
    `self.helper()` in C was a guess by name, as the heir names the alias, not the class."""
    from mindex.graph_heirs import heirs

    graph = _graph_of(index, tmp_path / "py", {
        "base.py": "class Base:\n    def helper(self):\n        return 1\n",
        "other.py": "class B:\n    def helper(self):\n        return 2\n",  # a class named as the alias
        "child.py": "from base import Base as B\n\n\nclass C(B):\n    def run(self):\n        return self.helper()\n",
    })
    (edge,) = heirs(graph, "Base", ("extends",))[0].edges
    assert (edge.scope, edge.confidence) == ("C", 0.95)
    assert heirs(graph, "B", ("extends",))[0].edges == []
    assert _callers(graph, "Base.helper") == {("child.py", 6, "C.run", 0.9)}


def test_solidity_calls_modifiers_events_casts_and_imports(index: Index, tmp_path: Path) -> None:
    """Solidity had no reference query (OpenZeppelin's `ERC20._transfer` had no callers): a
    contract's own and inherited functions (`_transfer()`, `super.f()`), modifiers, `emit`
    (a call of the event), a library's `SafeERC20.safeTransfer()`, a cast's `IERC20(t).f()` and
    a typed variable's `token.f()`; `import {A as B} from "./x.sol"`, `import "./x.sol"` and a
    remapped `@oz/contracts/...` path; `contract T is A, B`, an interface's implementations."""
    from mindex.graph_heirs import heirs

    graph = _graph_of(index, tmp_path / "sol", {
        "contracts/IERC20.sol": (
            "pragma solidity ^0.8.20;\ninterface IERC20 {\n    event Transfer(address from, address to);\n"
            "    function approve(address s, uint256 v) external returns (bool);\n}\n"),
        "contracts/SafeERC20.sol": (
            'import {IERC20} from "./IERC20.sol";\nlibrary SafeERC20 {\n'
            "    function safeTransfer(IERC20 token, address to) internal {\n        token.approve(to, 0);\n    }\n}\n"),
        "contracts/ERC20.sol": (
            'import "./IERC20.sol";\nabstract contract ERC20 is IERC20 {\n    modifier onlyOwner() { _; }\n'
            "    function transfer(address to) public virtual onlyOwner {\n        _transfer(msg.sender, to);\n    }\n"
            "    function _transfer(address from, address to) internal {\n        emit Transfer(from, to);\n    }\n}\n"),
        "contracts/Token.sol": (
            'import {ERC20 as Base} from "@oz/contracts/ERC20.sol";\nimport {SafeERC20} from "./SafeERC20.sol";\n'
            'import {IERC20} from "./IERC20.sol";\n\ncontract Token is Base {\n'
            "    function transfer(address to) public override {\n        super.transfer(to);\n        _transfer(to, to);\n"
            "        SafeERC20.safeTransfer(IERC20(address(this)), to);\n        IERC20(to).approve(to, 1);\n    }\n}\n"),
    })
    assert _callers(graph, "ERC20._transfer") == {("contracts/ERC20.sol", 5, "ERC20.transfer", 1.0),
                                                  ("contracts/Token.sol", 8, "Token.transfer", 0.9)}
    assert _callers(graph, "ERC20.transfer") == {("contracts/Token.sol", 7, "Token.transfer", 0.9)}  # super.
    assert _callers(graph, "ERC20.onlyOwner") == {("contracts/ERC20.sol", 4, "ERC20.transfer", 1.0)}
    assert _callers(graph, "IERC20.Transfer") == {("contracts/ERC20.sol", 8, "ERC20._transfer", 0.9)}
    assert _callers(graph, "SafeERC20.safeTransfer") == {("contracts/Token.sol", 9, "Token.transfer", 0.95)}
    assert _callers(graph, "IERC20.approve") == {("contracts/SafeERC20.sol", 4, "SafeERC20.safeTransfer", 0.9),
                                                 ("contracts/Token.sol", 10, "Token.transfer", 0.95)}
    assert [e.scope for e in heirs(graph, "IERC20", ("implements",), depth=1)[0].edges] == ["ERC20"]
    assert [e.scope for e in heirs(graph, "ERC20", ("extends",))[0].edges] == ["Token"]


def test_cpp_classes_split_between_header_and_source(index: Index, tmp_path: Path) -> None:
    """The usual C++ layout, a class in `downloader.h` and its methods in `downloader.cpp`
    (`void Downloader::log(int)`), had no graph: a `.h` was read as C (its classes lost), a
    method written outside its class was named `Downloader::log` (so no call of `log` found
    it, and its own calls had no class), and nothing tied `fetcher.cpp`'s methods to the
    `class Fetcher : public Downloader` of `fetcher.h`."""
    from mindex.graph_heirs import heirs

    graph = _graph_of(index, tmp_path / "cpp", {
        "src/downloader.h": (
            "#pragma once\nnamespace kit {\nclass Downloader {\npublic:\n  void log(int x);\n"
            "  void reset() { log(0); }\n};\n}\n"),
        "src/downloader.cpp": '#include "downloader.h"\nnamespace kit {\nvoid Downloader::log(int x) {}\n}\n',
        "src/fetcher.h": (
            '#pragma once\n#include "downloader.h"\nclass Fetcher : public kit::Downloader {\npublic:\n  void run();\n'
            "  void again();\n};\n"),
        "src/fetcher.cpp": '#include "fetcher.h"\nvoid Fetcher::run() {\n  log(1);\n  again();\n}\nvoid Fetcher::again() {}\n',
    })
    assert [(t.name, t.kind, t.language) for t in graph.targets("Downloader")] == [("kit.Downloader", "class", "cpp")]
    assert [(t.name, t.kind) for t in graph.targets("Downloader::log")] == [("kit.Downloader.log", "method")]
    assert _callers(graph, "kit.Downloader.log") == {("src/downloader.h", 6, "kit.Downloader.reset", 1.0),
                                                     ("src/fetcher.cpp", 3, "Fetcher.run", 0.9)}
    assert _callers(graph, "Fetcher.again") == {("src/fetcher.cpp", 4, "Fetcher.run", 1.0)}
    assert [(e.scope, e.confidence) for e in heirs(graph, "Downloader", ("extends",))[0].edges] == [("Fetcher", 0.95)]


def test_csharp_file_scoped_namespaces_and_partial_classes(index: Index, tmp_path: Path) -> None:
    """C# 10's `namespace Kit;` named nothing (`Downloader` beside a block namespace's
    `Kit.BaseClient`), and a partial class's methods in another file were guesses by name
    (0.6), its base (declared on another part) unseen: now the rest of the file is in the
    namespace, a partial class's methods are its own (1.0) and its bases its own (0.9), and a
    class of the same namespace extends or implements one without a `using` (0.9)."""
    from mindex.graph_heirs import heirs

    graph = _graph_of(index, tmp_path / "cs", {
        "src/Downloader.cs": "namespace Kit;\n\npublic partial class Downloader : BaseClient, IDownloader\n{\n"
                             "    public void Log(int x) { }\n}\n",
        "src/Downloader.Fetch.cs": "namespace Kit;\n\npublic partial class Downloader\n{\n    public void Fetch()\n"
                                   "    {\n        Log(1);\n        Send();\n    }\n}\n",
        "src/BaseClient.cs": "namespace Kit\n{\n    public abstract class BaseClient\n    {\n"
                             "        protected void Send() { }\n    }\n    public interface IDownloader { void Fetch(); }\n}\n",
    })
    assert {t.name for t in graph.targets("Downloader")} == {"Kit.Downloader"}
    assert _callers(graph, "Downloader.Log") == {("src/Downloader.Fetch.cs", 7, "Kit.Downloader.Fetch", 1.0)}
    assert _callers(graph, "BaseClient.Send") == {("src/Downloader.Fetch.cs", 8, "Kit.Downloader.Fetch", 0.9)}
    assert [(e.scope, e.confidence, e.reason) for e in heirs(graph, "IDownloader", ("implements",))[0].edges] == [
        ("Kit.Downloader", 0.9, "same namespace")]


def test_a_class_written_in_several_files_calls_its_own_methods(index: Index, tmp_path: Path) -> None:
    """A Swift extension in `Engine+Check.swift` and a Rust `impl` block in another module
    add methods to a class: a call of one from the class's other files was a guess by name
    (0.6), and a Java class of the same name in another file is still not the class."""
    graph = _graph_of(index, tmp_path / "open", {
        "Sources/Kit/Engine.swift": "class Engine {\n    func run() -> Int {\n        return check()\n    }\n}\n",
        "Sources/Kit/Engine+Check.swift": "extension Engine {\n    func check() -> Int {\n        return 0\n    }\n}\n",
        "src/lib.rs": "mod engine;\nmod ops;\n",
        "src/engine.rs": "pub struct Engine { pub n: u8 }\nimpl Engine {\n    pub fn run(&self) -> u8 { self.check() }\n}\n",
        "src/ops.rs": ("use crate::engine::Engine;\nimpl Engine {\n    pub fn check(&self) -> u8 { self.n }\n}\n"
                       "pub trait Drive { fn drive(&self) -> u8; }\nimpl Drive for Engine {\n"
                       "    fn drive(&self) -> u8 { self.run() }\n}\n"),
        "java/a/Engine.java": "package a;\nclass Engine {\n  int run() { return check(); }\n}\n",
        "java/b/Engine.java": "package b;\nclass Engine {\n  int check() { return 0; }\n}\n",
    })
    checks = {t.path: t for t in graph.targets("Engine.check")}
    assert {(e.path, e.line, e.confidence) for e in graph.callers(checks["Sources/Kit/Engine+Check.swift"])} == {
        ("Sources/Kit/Engine.swift", 3, 1.0)}
    assert {(e.path, e.line, e.confidence) for e in graph.callers(checks["src/ops.rs"])} == {("src/engine.rs", 3, 1.0)}
    runs = {t.path: t for t in graph.targets("Engine.run")}
    assert {(e.path, e.line, e.confidence) for e in graph.callers(runs["src/engine.rs"])} == {("src/ops.rs", 7, 1.0)}
    assert all(e.confidence < 1.0 for e in graph.callers(checks["java/b/Engine.java"]))


def test_php_traits_lend_their_methods(index: Index, tmp_path: Path) -> None:
    """A class's `use Loggable;` takes the trait's methods in: `$this->log()` was a guess by
    name (0.6); now it is inherited from the trait (0.9), and the class implements it."""
    from mindex.graph_heirs import heirs

    graph = _graph_of(index, tmp_path / "php", {
        "src/Loggable.php": "<?php\nnamespace App;\ntrait Loggable {\n    public function log($m) { return $m; }\n}\n",
        "src/Service.php": ("<?php\nnamespace App;\nclass Service {\n    use Loggable;\n"
                            "    public function run() { return $this->log('x'); }\n}\n"),
    })
    assert _callers(graph, "Loggable.log") == {("src/Service.php", 5, "Service.run", 0.9)}
    assert [e.scope for e in heirs(graph, "Loggable", ("implements",))[0].edges] == ["Service"]


def test_many_classes_of_one_name_that_extend_each_other_resolve_in_linear_time(index: Index, tmp_path: Path) -> None:
    """fmt's hundreds of `formatter<T>` specializations each extend another `formatter`: a
    call on a field looked for it in every class of the base's name, three levels deep, once
    per call (120 classes: 120^3 lookups a call, which did not end in ten minutes). Each
    class's inherited field is looked up once now."""
    files = {f"include/f{n}.h": (f"template <> struct formatter<T{n}> : formatter<T{n + 1}> {{\n"
                                 f"  void run{n}() {{ buf.push(); out.write(); }}\n}};\n") for n in range(120)}
    graph = _graph_of(index, tmp_path / "fmt", {**files, "include/buf.h": "struct Buffer {\n  void push() {}\n};\n"})
    edges = [e for t in graph.targets("formatter") for m in graph.outline(t.document_id) for e in graph.callees(m)]
    assert {e.call for e in edges} == {"buf.push", "out.write"} and len(edges) >= 240


def test_objective_c_messages_headers_and_frameworks(index: Index, tmp_path: Path) -> None:
    """Objective-C had no reference query (Mantle's methods had no callers): `[receiver
    selector:arg]` calls its selector's first part; a `.h` header holding `@interface` is read
    as Objective-C (it was C, and its classes were lost); a framework's `#import <Kit/Kit.h>`
    is the project's `Kit.h` (an umbrella header), whose headers declare the base a subclass
    names (0.95); a method defined in `Fetcher.m` inherits through the `@interface Fetcher :
    Downloader` of `Fetcher.h`; `Downloader *d` says what `d` holds."""
    from mindex.graph_heirs import heirs

    graph = _graph_of(index, tmp_path / "objc", {
        "Kit/Downloader.h": (
            "#import <Foundation/Foundation.h>\n\n@protocol Downloading\n- (void)downloadURL:(NSURL *)url;\n@end\n\n"
            "@interface Downloader : NSObject <Downloading>\n- (void)downloadURL:(NSURL *)url;\n"
            "+ (Downloader *)sharedDownloader;\n@end\n"),
        "Kit/Downloader.m": (
            '#import "Downloader.h"\n\n@implementation Downloader\n- (void)downloadURL:(NSURL *)url {\n'
            '    [self log:url];\n}\n- (void)log:(NSURL *)url {\n    NSLog(@"%@", url);\n}\n'
            "+ (Downloader *)sharedDownloader {\n    return nil;\n}\n@end\n"),
        "Kit/Kit.h": "#import <Kit/Downloader.h>\n",
        "App/Fetcher.h": "#import <Kit/Kit.h>\n\n@interface Fetcher : Downloader\n- (void)run:(NSURL *)url;\n@end\n",
        "App/Fetcher.m": (
            '#import "Fetcher.h"\n\n@implementation Fetcher\n- (void)run:(NSURL *)url {\n    [self log:url];\n'
            "    Downloader *d = [Downloader sharedDownloader];\n    [d downloadURL:url];\n}\n@end\n"),
    })
    assert [d.language for d in graph.targets("Fetcher")] == ["objc", "objc"]  # the header's and the .m's
    assert _callers(graph, "Downloader.log") == {("Kit/Downloader.m", 5, "Downloader.downloadURL", 1.0),
                                                 ("App/Fetcher.m", 5, "Fetcher.run", 0.9)}
    shared = {(e.path, e.line, e.confidence) for t in graph.targets("Downloader.sharedDownloader") for e in graph.callers(t)}
    assert shared == {("App/Fetcher.m", 6, 0.9)}
    (defined,) = [t for t in graph.targets("Downloader.downloadURL") if t.path.endswith(".m")]
    assert {(e.path, e.line, e.confidence) for e in graph.callers(defined)} == {("App/Fetcher.m", 7, 0.9)}
    assert [(e.scope, e.confidence) for e in heirs(graph, "Downloader", ("extends",), path="Kit/Downloader.h")[0].edges] \
        == [("Fetcher", 0.95)]


def test_perl_self_calls_reach_their_own_package(index: Index, tmp_path: Path) -> None:
    """Mojolicious's `$self->_connect(...)` in UserAgent.pm was a quarter-guess between its
    own `_connect` and IOLoop::Client's: `$self->m()`, `$class->m()` and `shift->m()` call the
    sub their own file defines (1.0)."""
    graph = _graph_of(index, tmp_path / "pl", {
        "lib/My/Agent.pm": ("package My::Agent;\nsub _connect { return 1 }\n"
                            "sub start {\n  my $self = shift;\n  return $self->_connect(2);\n}\n"
                            "sub again { shift->_connect(3) }\n1;\n"),
        "lib/My/Client.pm": "package My::Client;\nsub _connect { return 0 }\nsub go { my $class = shift; $class->_connect }\n1;\n",
    })
    agent, client = (t for t in sorted(graph.targets("_connect"), key=lambda t: t.path))
    assert {(e.line, e.scope, e.confidence) for e in graph.callers(agent)} == {(5, "start", 1.0), (7, "again", 1.0)}
    assert {(e.line, e.scope, e.confidence) for e in graph.callers(client)} == {(3, "go", 1.0)}


def test_elixir_calls_through_aliases_and_full_module_names(index: Index, tmp_path: Path) -> None:
    """plug's `Plug.Conn.put_resp_header` had symbols but no callers: Elixir's calls were not
    read. A bare call is its module's own function, `alias MyApp.Repo` makes `Repo.all()` reach
    `lib/my_app/repo.ex`'s `all`, a full `MyApp.Repo.one()` the same, and neither a
    definition's head nor `conn.status` (a map's field) is a call."""
    graph = _graph_of(index, tmp_path / "ex", {
        "lib/my_app/repo.ex": "defmodule MyApp.Repo do\n  def all(q), do: q\n  def one(q), do: q\nend\n",
        "lib/my_app/accounts.ex": (
            "defmodule MyApp.Accounts do\n  alias MyApp.Repo\n\n  def list(conn) do\n    conn.status\n"
            "    Repo.all(conn)\n    MyApp.Repo.one(conn)\n    helper(conn)\n  end\n\n  defp helper(x), do: x\nend\n"),
        "lib/my_app/report.ex": "defmodule MyApp.Report do\n  def run(q), do: MyApp.Repo.all(q)\nend\n",
    })
    assert _callers(graph, "MyApp.Repo.all") == {("lib/my_app/accounts.ex", 6, "MyApp.Accounts.list", 0.95),
                                                 ("lib/my_app/report.ex", 2, "MyApp.Report.run", 0.9)}  # no alias
    assert _callers(graph, "MyApp.Repo.one") == {("lib/my_app/accounts.ex", 7, "MyApp.Accounts.list", 0.95)}
    assert _callers(graph, "MyApp.Accounts.helper") == {("lib/my_app/accounts.ex", 8, "MyApp.Accounts.list", 1.0)}
    assert _callers(graph, "MyApp.Accounts.list") == set()  # its own head is no call of it


def test_dart_calls_imports_and_method_spans_are_read(index: Index, tmp_path: Path) -> None:
    """Dart had no reference query, and a method's definition ended at its signature's line
    (its body follows the signature in Dart's grammar): `graph outline` showed one-line
    methods and a grep match inside a body was given its class. Calls, `import ... as`, imports
    without a prefix, supertypes and typed fields and parameters are read now."""
    graph = _graph_of(index, tmp_path / "dart", {
        "lib/src/engine.dart": "class Engine {\n  int run() {\n    return check();\n  }\n\n  int check() => 0;\n}\n",
        "lib/src/util.dart": "int helper(int x) {\n  return x;\n}\n",
        "lib/car.dart": (
            "import 'package:kit/src/util.dart';\nimport 'src/engine.dart' as e;\n\nclass Car extends e.Engine {\n"
            "  final e.Engine spare;\n  void drive(Engine other) {\n    other.run();\n    helper(1);\n  }\n}\n"),
    })
    (run,) = graph.targets("Engine.run")
    assert (run.start_line, run.end_line) == (2, 4)  # to the body's end
    assert _callers(graph, "Engine.check") == {("lib/src/engine.dart", 3, "Engine.run", 1.0)}
    assert _callers(graph, "Engine.run") == {("lib/car.dart", 7, "Car.drive", 0.9)}
    assert _callers(graph, "helper") == {("lib/car.dart", 8, "Car.drive", 0.95)}  # through `import 'package:kit/...'`


def test_a_java_name_holds_the_class_it_is_declared_as(index: Index, tmp_path: Path) -> None:
    """gson's `Gson gson = new Gson(); gson.toJson(x)` reached each of eight `toJson`s of the
    index by name (0.06 each): Java's declared types were not read, so javac's own answer was
    among the edges shown for half of gson's calls on a name. A local variable, parameter,
    field (seen from the class's methods, with or without `this.`), loop or catch variable,
    `var x = new T()` and `var x = f()` (what `f` is declared to return) now say what the name
    holds, and a field the class inherits too; a class nested in another is found by its
    short name; a name holding a class outside the index calls nothing in it."""
    graph = _graph_of(index, tmp_path / "j", {
        "src/a/Engine.java": (
            "package a;\npublic class Engine {\n  public void run() {}\n  public static class Part {\n"
            "    public void fit() {}\n  }\n  public Part part() { return new Part(); }\n}\n"),
        "src/a/Other.java": "package a;\npublic class Other {\n  public void run() {}\n  public String getName() { return \"\"; }\n}\n",
        "src/a/Vehicle.java": (
            "package a;\nimport java.util.ArrayList;\npublic class Vehicle {\n  protected Engine motor;\n"
            "  protected ArrayList<Other> stack;\n}\n"),
        "src/a/Car.java": (
            "package a;\nimport java.lang.reflect.Field;\nimport java.util.List;\npublic class Car extends Vehicle {\n"
            "  private final Engine engine = new Engine();\n"
            "  void drive(Engine spare, List<Engine> all, Field field) {\n"
            "    engine.run();\n    this.engine.run();\n    spare.run();\n"
            "    var local = new Engine();\n    local.run();\n"
            "    for (Engine each : all) { each.run(); }\n"
            "    Engine.Part part = null;\n    part.fit();\n"
            "    field.getName();\n"
            "    var made = spare.part();\n    made.fit();\n"
            "    motor.run();\n    stack.getName();\n"
            "  }\n}\n"),
    })
    runs = sorted((line, confidence) for _, line, _, confidence in _callers(graph, "Engine.run"))
    assert runs == [(7, 0.9), (8, 0.9), (9, 0.9), (11, 0.9), (12, 0.9), (18, 0.9)]  # 18: a field Vehicle declares
    assert _callers(graph, "Other.run") == set()
    assert {(line, confidence) for _, line, _, confidence in _callers(graph, "Engine.Part.fit")} == {(14, 0.9), (17, 0.9)}
    (call,) = [e for e in graph.callees(graph.targets("Car.drive")[0]) if e.call == "field.getName"]
    assert call.target is None and "Field" in call.reason
    (call,) = [e for e in graph.callees(graph.targets("Car.drive")[0]) if e.call == "stack.getName"]
    assert call.target is None and "ArrayList" in call.reason  # not Other.getName: the field is an ArrayList


def test_the_graph_is_kept_until_this_or_another_connection_writes(index: Index, tmp_path: Path) -> None:
    assert isinstance(index.location, Path)  # SQLite: its data_version moves only for other connections
    _write(tmp_path / "kept", {"a.py": "def one():\n    return 1\n"})
    index.add_source(tmp_path / "kept", name="kept", kind="code")
    index.index()
    first = index.graph()
    assert index.graph() is first  # nothing written: the resolved calls are kept
    (tmp_path / "kept" / "a.py").write_text("def one():\n    return two()\n\n\ndef two():\n    return 2\n")
    with Index(index.location, IndexSettings(workers=1), embed=EmbedSettings(provider="none")) as other:
        other.index()  # another connection writes
    again = index.graph()
    assert again is not first and [s.name for s in again.targets("two")] == ["two"]
    assert [e.scope for c in again.calls("two", "callers") for e in c.edges] == ["one"]
    _write(tmp_path / "kept", {"b.py": "def three():\n    return 3\n"})
    index.index()  # this connection writes
    assert index.graph() is not again and index.graph().targets("three")


def _callees(graph: CodeGraph, name: str) -> set[tuple[int, str | None, float, str]]:
    """(line, target, confidence, reason) of each call the definition `name` makes."""
    caller = next(t for t in graph.targets(name) if t.name == name)
    return {(e.line, e.target.name if e.target else None, round(e.confidence, 2), e.reason) for e in graph.callees(caller)}


def _edges_from(index: Index, root: Path, name: str) -> set[tuple[int, str | None, float, str]]:
    """Index `root` as a code source; `_callees` of `name`."""
    index.add_source(root, name=root.name, kind="code")
    index.index()
    return _callees(index.graph(), name)


def test_a_call_on_a_name_reaches_the_class_its_function_says_the_name_holds(index: Index, tmp_path: Path) -> None:
    """`ctx.invoke()` where `ctx: Context` (a parameter, `Optional`, quoted), `s = Session()`
    or a name annotated at the file's top level: `Context.invoke`, where by name alone it was
    one of several `invoke`s; a method the class inherits; a builtin's method reaches nothing
    in the index; a class body's names are not seen from its methods; the binding before the
    call wins."""
    root = tmp_path / "typed"
    root.mkdir()
    (root / "core.py").write_text(
        "class Base:\n"                                              # 1
        "    def close(self):\n"                                     # 2
        "        pass\n"                                             # 3
        "class Context(Base):\n"                                     # 4
        "    def invoke(self):\n"                                    # 5
        "        pass\n"                                             # 6
        "class Runner:\n"                                            # 7
        "    def invoke(self):\n"                                    # 8
        "        pass\n"                                             # 9
        "    def items(self):\n"                                     # 10
        "        pass\n"                                             # 11
        "class Session:\n"                                           # 12
        "    ctx: Runner\n"                                          # 13
        "    def invoke(self):\n"                                    # 14
        "        pass\n"                                             # 15
        "    def run(self, ctx: 'Context', other: Optional[Context] = None, **options):\n"  # 16
        "        ctx.invoke()\n"                                     # 17
        "        other.close()\n"                                    # 18
        "        options.items()\n"                                  # 19
        "        def inner():\n"                                     # 20
        "            return ctx.invoke()\n"                          # 21
        "    def plain(self):\n"                                     # 22
        "        ctx.invoke()\n"                                     # 23
        "def main(ctx: Context):\n"                                  # 24
        "    ctx = Session()\n"                                      # 25
        "    ctx.invoke()\n"                                         # 26
        "    table = {}\n"                                           # 27
        "    table.items()\n"                                        # 28
    )
    index.add_source(root, name="typed", kind="code")
    index.index()
    graph = index.graph()
    target = next(t for t in graph.targets("Context.invoke") if t.name == "Context.invoke")
    found = {(e.line, e.scope, round(e.confidence, 2), e.reason) for e in graph.callers(target, min_confidence=0.2)}
    assert found == {(17, "Session.run", 0.9, "ctx is a Context"), (21, "Session.run.inner", 0.9, "ctx is a Context")}
    callees = _callees(graph, "Session.run")
    assert (18, "Base.close", 0.85, "other is a Context, which inherits it from Base") in callees
    assert (19, None, 0.0, "outside the index: options is a dict") in callees
    in_main = _callees(graph, "main")
    assert (26, "Session.invoke", 0.9, "ctx is a Session") in in_main
    assert all("is a" not in e[3] for e in _callees(graph, "Session.plain"))  # `ctx: Runner` in the class body is not plain's
    assert [(e[1], e[3]) for e in in_main if e[0] == 28] == [(None, "outside the index: table is a dict")]


def test_what_python_says_a_name_holds_becomes_a_type_reference() -> None:
    from mindex.languages import language_for
    from mindex.parse.code import definitions, parse_tree
    from mindex.parse.refs import class_of, references

    source = (b"import httpx\n"
              b"client: 'httpx.Client' = make()\n"
              b"def f(a: Optional[Session], b: int | str, *rest: int, **extra: t.Any) -> None:\n"
              b"    s = httpx.Client(timeout=3)\n"
              b"    n = names()\n"
              b"    seen = {x for x in a}\n"
              b"    words: list[str] = []\n"
              b"    unused = Session()\n"
              b"    a.x(); rest.count(); extra.items(); s.get(); n.y(); seen.add(1); words.append(b)\n"
              b"    with httpx.Client() as c, open(n) as handle:\n"
              b"        c.get(); handle.read()\n"
              b"    return client.get()\n")
    tree = parse_tree(source, language_for("f.py"), 10.0)
    refs = references(tree, definitions(tree))
    typed = [(r.qualifier, r.name, r.line, r.scope) for r in refs if r.kind == "type"]
    assert typed == [("client", "Client", 2, ""), ("a", "Session", 3, "f"), ("rest", "tuple", 3, "f"),
                     ("extra", "dict", 3, "f"), ("s", "Client", 4, "f"), ("seen", "set", 6, "f"),
                     ("words", "list", 7, "f"), ("c", "Client", 10, "f")]  # not `unused`: no call is made on it
    assert [(r.kind, r.name, r.qualifier, r.alias, r.line) for r in refs if r.kind in ("result", "returns")] == [
        ("result", "names", "", "n", 5), ("result", "open", "", "handle", 10)]  # not `make()`'s: `client` says
    # what it holds; `-> None` is no class; `open` is asked of the graph (what no file makes)
    assert [class_of(a) for a in ("t.Optional['Context']", "Session | None", "None | Session", "Queue[int]",
                                  "dict[str, Foo | None]", "Foo | Bar", "callable", "", "t.Dict[str, Expr]",
                                  "List[int]", "Dict", "nodes.Dict", "t.Any")] == [
        "Context", "Session", "Session", "Queue", "dict", None, None, None, "dict", "list", "Dict", "Dict", None]


def test_a_name_given_a_call_holds_what_the_function_says_it_returns(index: Index, tmp_path: Path) -> None:
    """`r = self.send()` (awaited or not) where `send` says `-> "Response"`: `r.close()` reaches
    `Response.close`; a function that says nothing gives no class; a name given a call on
    itself (`node = node.next()`) ends, and is as sure as that call is reached; a name given a
    class called holds one of it, whatever its spelling."""
    root = tmp_path / "returns"
    root.mkdir()
    (root / "client.py").write_text(
        "class Response:\n"                                  # 1
        "    def close(self):\n"                             # 2
        "        pass\n"                                     # 3
        "class Other:\n"                                     # 4
        "    def close(self):\n"                             # 5
        "        pass\n"                                     # 6
        "    def next(self) -> 'Other':\n"                   # 7
        "        return self\n"                              # 8
        "class Client:\n"                                    # 9
        "    def send(self) -> Optional['Response']:\n"      # 10
        "        return Response()\n"                        # 11
        "    def plain(self):\n"                             # 12
        "        return Response()\n"                        # 13
        "    async def run(self):\n"                         # 14
        "        r = self.send()\n"                          # 15
        "        r.close()\n"                                # 16
        "        a = await self.send()\n"                    # 17
        "        a.close()\n"                                # 18
        "        p = self.plain()\n"                         # 19
        "        p.close()\n"                                # 20
        "        node = node.next()\n"                       # 21
        "        node.close()\n"                             # 22
        "        b = _Builder()\n"                           # 23
        "        b.close()\n"                                # 24
        "        w = wrapper()\n"                            # 25
        "        w.close()\n"                                # 26
        "class _Builder:\n"                                  # 27
        "    def close(self):\n"                             # 28
        "        pass\n"                                     # 29
        "class wrapper:\n"                                   # 30
        "    def close(self):\n"                             # 31
        "        pass\n"                                     # 32
        "def outside(path):\n"                               # 33
        "    todo = deque()\n"                               # 34
        "    todo.close()\n"                                 # 35
        "    with open(path) as f:\n"                        # 36
        "        f.close()\n"                                # 37
        "    first = todo.popleft()\n"                       # 38
        "    first.close()\n"                                # 39
        "    data = json.loads(path)\n"                      # 40
        "    data.close()\n"                                 # 41
        "from collections import deque\n"                   # 42
        "import json\n"                                     # 43
    )
    edges = _edges_from(index, root, "Client.run")
    assert {(16, "Response.close", 0.9, "r is a Response"), (18, "Response.close", 0.9, "a is a Response")} <= edges
    assert not {e for e in edges if e[0] == 20 and "is a" in e[3]}  # `plain` says nothing
    # `node.next()` inside `node`'s own binding reaches `Other.next` by its name alone (0.6): no surer
    assert (22, "Other.close", 0.6, "node is a Other") in edges
    # a class called makes one of itself: spelled as a class after its underscore, or found
    # a class when the call is resolved (`wrapper`, spelled as a function is)
    assert {(24, "_Builder.close", 0.9, "b is a _Builder"), (26, "wrapper.close", 0.9, "w is a wrapper")} <= edges
    # what a call outside the index returns (an import's, a builtin's) reaches nothing, where by
    # name alone it was one of the four `close`s
    assert _callees(index.graph(), "outside") >= {
        (35, None, 0.0, "outside the index: todo holds what deque() returns"),
        (37, None, 0.0, "outside the index: f holds what open() returns"),
        (41, None, 0.0, "outside the index: data holds what json.loads() returns")}
    # what a deque gives back is what the index put in it: left to the name
    assert {e[3] for e in _callees(index.graph(), "outside") if e[0] == 39} == {"ambiguous: 4 definitions named close"}


def test_a_loops_variable_holds_an_item_of_what_it_iterates(index: Index, tmp_path: Path) -> None:
    """`for t in self._mounts.values(): t.close()` where `self._mounts: dict[str, Transport |
    None]`: `Transport.close`, where by name it was one of two; the same for a parameter
    annotated `Sequence[...]` given to `self.loaders`, `k, v in d.items()`, `enumerate(xs)`,
    a comprehension over `sorted(xs)`, a method that says `-> List["Param"]`; a mapping's
    keys hold its key class; a loop over what says nothing of its items stays a guess."""
    root = tmp_path / "loops"
    root.mkdir()
    (root / "loops.py").write_text(
        "class Loader:\n"                                                            # 1
        "    def load(self): pass\n"                                                 # 2
        "class Transport:\n"                                                         # 3
        "    def close(self): pass\n"                                                # 4
        "class Param:\n"                                                             # 5
        "    def run(self): pass\n"                                                  # 6
        "class Other:\n"                                                             # 7
        "    def load(self): pass\n"                                                 # 8
        "    def close(self): pass\n"                                                # 9
        "    def run(self): pass\n"                                                  # 10
        "class Client:\n"                                                            # 11
        "    def __init__(self, loaders: t.Sequence[Loader], mounts: dict[str, Transport | None], plain):\n"  # 12
        "        self.loaders = loaders\n"                                           # 13
        "        self._mounts: dict[str, Transport | None] = {}\n"                   # 14
        "        xs: list[Param] = []\n"                                             # 15
        "        for loader in self.loaders:\n"                                      # 16
        "            loader.load()\n"                                                # 17
        "        for t in self._mounts.values():\n"                                  # 18
        "            t.close()\n"                                                    # 19
        "        for k, v in mounts.items():\n"                                      # 20
        "            v.close()\n"                                                    # 21
        "        for i, x in enumerate(xs):\n"                                       # 22
        "            x.run()\n"                                                      # 23
        "        for p in self.params():\n"                                          # 24
        "            p.run()\n"                                                      # 25
        "        done = [q.run() for q in sorted(xs)]\n"                             # 26
        "        for key in mounts:\n"                                               # 27
        "            key.close()\n"                                                  # 28
        "        for thing in plain:\n"                                              # 29
        "            thing.close()\n"                                                # 30
        "    def params(self) -> t.List['Param']:\n"                                 # 31
        "        return []\n"                                                        # 32
    )
    edges = _edges_from(index, root, "Client.__init__")
    assert {(17, "Loader.load", 0.9, "loader is a Loader"), (19, "Transport.close", 0.9, "t is a Transport"),
            (21, "Transport.close", 0.9, "v is a Transport"), (23, "Param.run", 0.9, "x is a Param"),
            (25, "Param.run", 0.9, "p is a Param"), (26, "Param.run", 0.9, "q is a Param"),
            (28, None, 0.0, "outside the index: key is a str")} <= edges
    assert {e[3] for e in edges if e[0] == 30} == {"ambiguous: 2 definitions named close"}


def test_a_call_on_a_field_of_a_name_reaches_the_fields_class(index: Index, tmp_path: Path) -> None:
    """`v.store.Get()` where `v` is a `*Viper` whose struct says `store *Store`: `Store.Get`,
    where by name it was one of two; a field of a type no file defines (`*sync.Pool`) reaches
    nothing; in Python, `c.pool.get()` where `c: Client` and `Client.__init__` sets
    `self.pool = pool` from `pool: Conn`, and a property's class from what it returns."""
    root = tmp_path / "fields"
    root.mkdir()
    (root / "viper.go").write_text(
        "package viper\n"                                     # 1
        "type Store struct{}\n"                               # 2
        "func (s *Store) Get() {}\n"                          # 3
        "type Cache struct{}\n"                               # 4
        "func (c *Cache) Get() {}\n"                          # 5
        "type Viper struct {\n"                               # 6
        "\tstore *Store\n"                                    # 7
        "\tpool  *sync.Pool\n"                                # 8
        "}\n"                                                 # 9
        "func (v *Viper) Read() {\n"                          # 10
        "\tv.store.Get()\n"                                   # 11
        "\tv.pool.Get()\n"                                    # 12
        "}\n")
    (root / "client.py").write_text(
        "class Conn:\n"                                       # 1
        "    def get(self): pass\n"                           # 2
        "class Other:\n"                                      # 3
        "    def get(self): pass\n"                           # 4
        "class Client:\n"                                     # 5
        "    def __init__(self, pool: Conn):\n"               # 6
        "        self.pool = pool\n"                          # 7
        "    def close(self):\n"                              # 8
        "        self.pool.get()\n"                           # 9
        "def use(c: Client):\n"                               # 10
        "    c.pool.get()\n")                                 # 11
    edges = _edges_from(index, root, "Viper.Read")
    assert {(11, "Store.Get", 0.9, "v.store is a Store"), (12, None, 0.0, "outside the index: v.pool is a Pool")} <= edges
    assert (11, "Conn.get", 0.9, "c.pool is a Conn") in _callees(index.graph(), "use")
    # a property: a method of the attribute's name that says what it returns
    (root / "text.py").write_text(
        "class Span:\n"                                       # 1
        "    def get(self): pass\n"                           # 2
        "class Text:\n"                                       # 3
        "    @property\n"                                     # 4
        "    def span(self) -> Span:\n"                       # 5
        "        return Span()\n"                             # 6
        "    def first(self):\n"                              # 7
        "        return self.span.get()\n"                    # 8
        "def read(t: Text):\n"                                # 9
        "    t.span.get()\n")                                 # 10
    index.index()
    assert (8, "Span.get", 0.9, "self.span is a Span") in _callees(index.graph(), "Text.first")
    assert (10, "Span.get", 0.9, "t.span is a Span") in _callees(index.graph(), "read")


def test_what_a_container_annotation_holds() -> None:
    from mindex.parse.refs import elements_of

    assert [elements_of(a) for a in ("list[Param]", "t.List['Param']", "Optional[t.Sequence[Loader]]",
                                     "tuple[Param, ...]", "tuple[A, B]", "dict[URLPattern, Transport | None]",
                                     "t.Dict[str, t.Any]", "Iterator[Node]", "List[Text] | None", "int", "list")] == [
        "Param", "Param", "Loader", "Param", "", "URLPattern:Transport", "str:", "Node", "Text", "", ""]


def test_a_relative_import_at_the_top_of_a_package_added_as_the_root_reaches_its_init(
        index: Index, tmp_path: Path) -> None:
    """`mindex add src/rich` (the package itself): `from . import get_console` in `jupyter.py`
    names `__init__.py`'s function (it looked for `.py` and `/__init__.py`, and said the call
    went outside the index)."""
    root = tmp_path / "rich"
    root.mkdir()
    (root / "__init__.py").write_text("def get_console():\n    return None\n")
    (root / "jupyter.py").write_text("from . import get_console\n\ndef show():\n    get_console()\n")
    assert _edges_from(index, root, "show") == {(4, "get_console", 0.95, "imported from .")}


def test_go_receivers_parameters_and_results_say_what_a_name_holds(index: Index, tmp_path: Path) -> None:
    """Go: a method's receiver and parameters, `v := &Thing{}` and `p := c.Parent()` (whose
    method says `*Command`) reach their type's method where the name alone is one of two;
    a parameter of a type no file defines reaches nothing."""
    root = tmp_path / "gocode"
    root.mkdir()
    (root / "cmd.go").write_text(
        "package cmd\n"                                           # 1
        "type Command struct{}\n"                                 # 2
        "type Thing struct{}\n"                                   # 3
        "func (c *Command) Run() {}\n"                            # 4
        "func (t Thing) Run() {}\n"                               # 5
        "func (c *Command) Parent() (*Command, error) { return c, nil }\n"  # 6
        "func (c *Command) Execute(t *Thing, w http.ResponseWriter) {\n"   # 7
        "\tc.Run()\n"                                             # 8
        "\tt.Run()\n"                                             # 9
        "\tv := &Thing{}\n"                                       # 10
        "\tv.Run()\n"                                             # 11
        "\tp, err := c.Parent()\n"                                # 12
        "\tp.Run()\n"                                             # 13
        "\tw.Write(nil)\n"                                        # 14
        "}\n"
    )
    edges = _edges_from(index, root, "Command.Execute")
    assert {(8, "Command.Run", 0.9, "c is a Command"), (9, "Thing.Run", 0.9, "t is a Thing"),
            (11, "Thing.Run", 0.9, "v is a Thing"), (13, "Command.Run", 0.9, "p is a Command"),
            (14, None, 0.0, "outside the index: w is a ResponseWriter")} <= edges
    assert not {e for e in edges if e[0] in (8, 9, 11, 13) and "ambiguous" in e[3]}


def test_a_callbacks_parameters_hold_what_the_function_it_is_given_to_says(index: Index, tmp_path: Path) -> None:
    """rxjs's `operate((source, subscriber) => { subscriber.next(x) })`: `operate`'s signature
    says its argument is `(source: Observable<T>, subscriber: Subscriber<R>) => void`, so
    `subscriber.next` reaches `Subscriber.next`, where by name it was one of two; a type
    parameter (`T`) or a type no file defines says nothing, and an annotated parameter keeps
    its own annotation."""
    root = tmp_path / "rx"
    root.mkdir()
    (root / "lift.ts").write_text(
        "export class Observable<T> { subscribe(): void {} }\n"                        # 1
        "export class Subscriber<T> { next(value: T): void {} }\n"                    # 2
        "export class Subject<T> { next(value: T): void {} subscribe(): void {} }\n"  # 3
        "export function operate<T, R>(init: (source: Observable<T>, subscriber: Subscriber<R>) => void): void {}\n"  # 4
        "export function each<T>(fn: (item: T, log: Console) => void): void {}\n"    # 5
    )
    (root / "map.ts").write_text(
        "import { operate, each, Subject } from './lift';\n"                          # 1
        "export function map() {\n"                                                   # 2
        "  operate((source, subscriber) => {\n"                                       # 3
        "    source.subscribe();\n"                                                   # 4
        "    subscriber.next(1);\n"                                                   # 5
        "  });\n"                                                                     # 6
        "  each((item, log) => { item.next(2); log.next(3); });\n"                    # 7
        "  operate((source, subscriber: Subject<number>) => { subscriber.next(4); });\n"  # 8
        "}\n")
    edges = _edges_from(index, root, "map")
    assert {(4, "Observable.subscribe", 0.9, "source is a Observable"),
            (5, "Subscriber.next", 0.9, "subscriber is a Subscriber"),
            (8, "Subject.next", 0.9, "subscriber is a Subject")} <= edges
    assert {e[3] for e in edges if e[0] == 7 and e[1] != "each"} == {"ambiguous: 2 definitions named next"}


def test_typescript_and_javascript_names_hold_what_annotations_new_and_results_say(index: Index, tmp_path: Path) -> None:
    """TypeScript: an annotated parameter (`Sub | undefined` too), `new Subscriber()` and an
    awaited call whose method says `Promise<Subscriber>` reach `Subscriber.next` where by name
    it is one of two; JavaScript's `new` the same; a type no file defines reaches nothing;
    `this.x` as a field, a constructor's parameter property or the constructor gives it."""
    root = tmp_path / "ts"
    root.mkdir()
    (root / "sub.ts").write_text(
        "export class Subscriber {\n"                               # 1
        "  next(value: number): void {}\n"                          # 2
        "}\n"                                                       # 3
        "export class Subject {\n"                                  # 4
        "  next(value: number): void {}\n"                          # 5
        "  async make(): Promise<Subscriber> { return new Subscriber(); }\n"  # 6
        "  async run(a: Subscriber, b: Subject | undefined, w: Writable) {\n"  # 7
        "    a.next(1);\n"                                          # 8
        "    b.next(2);\n"                                          # 9
        "    const c = new Subscriber();\n"                         # 10
        "    c.next(3);\n"                                          # 11
        "    const d = await this.make();\n"                        # 12
        "    d.next(4);\n"                                          # 13
        "    w.write();\n"                                          # 14
        "  }\n"
        "}\n"
    )
    (root / "plain.js").write_text("function go() {\n  const s = new Subject();\n  s.next(5);\n}\n")
    (root / "service.ts").write_text(
        "import { Subscriber, Subject } from './sub';\n"           # 1
        "export class Service {\n"                                # 2
        "  private cache: Subject;\n"                             # 3
        "  constructor(private feed: Subscriber, other: Subject) {\n"  # 4
        "    this.made = new Subscriber();\n"                     # 5
        "    this.given = other;\n"                               # 6
        "  }\n"                                                   # 7
        "  tick() {\n"                                            # 8
        "    this.cache.next(1); this.feed.next(2); this.made.next(3); this.given.next(4);\n"  # 9
        "  }\n"
        "}\n")
    edges = _edges_from(index, root, "Subject.run")
    assert {(8, "Subscriber.next", 0.9, "a is a Subscriber"), (9, "Subject.next", 0.9, "b is a Subject"),
            (11, "Subscriber.next", 0.9, "c is a Subscriber"), (13, "Subscriber.next", 0.9, "d is a Subscriber"),
            (14, None, 0.0, "outside the index: w is a Writable")} <= edges
    assert (3, "Subject.next", 0.9, "s is a Subject") in _callees(index.graph(), "go")
    assert {(9, "Subject.next", 0.9, "this.cache is a Subject"), (9, "Subscriber.next", 0.9, "this.feed is a Subscriber"),
            (9, "Subscriber.next", 0.9, "this.made is a Subscriber"), (9, "Subject.next", 0.9, "this.given is a Subject")
            } <= _callees(index.graph(), "Service.tick")
    # private fields and methods (`#cache`): a call on one, and a call of one, as on any other
    (root / "store.ts").write_text(
        "import { Subscriber } from './sub';\n"                   # 1
        "export class Store {\n"                                  # 2
        "  #feed: Subscriber;\n"                                  # 3
        "  tick() { this.#feed.next(1); this.#flush(); }\n"       # 4
        "  #flush() {}\n"                                         # 5
        "}\n")
    index.index()
    assert {(4, "Subscriber.next", 0.9, "this.#feed is a Subscriber"),
            (4, "Store.#flush", 1.0, "method of the enclosing class")} <= _callees(index.graph(), "Store.tick")


def test_an_attribute_of_self_holds_what_the_class_gives_it(index: Index, tmp_path: Path) -> None:
    """`self.pool.get()` where `__init__` did `self.pool = pool` (`pool: Pool`), `self.session =
    Session()`, `self.t: Transport = ...` or the class body says `cache: Cache`: each reaches
    its class's method where by name it is one of two; an attribute given two different
    classes, or a name nothing is known of, stays a guess."""
    root = tmp_path / "attrs"
    root.mkdir()
    names = ("Pool", "Session", "Transport", "Cache", "Other")
    (root / "types.py").write_text("".join(f"class {n}:\n    def go(self):\n        pass\n" for n in names))
    (root / "client.py").write_text(
        "from types import Pool, Session, Transport, Cache, Other\n"  # 1
        "class Client:\n"                                            # 2
        "    cache: Cache\n"                                         # 3
        "    def __init__(self, pool: Pool, unknown):\n"             # 4
        "        self.pool = pool\n"                                 # 5
        "        self.session = Session()\n"                         # 6
        "        self.t: Transport = make()\n"                       # 7
        "        self.mixed = Session()\n"                           # 8
        "        self.u = unknown\n"                                 # 9
        "    def reset(self):\n"                                     # 10
        "        self.mixed = Other()\n"                             # 11
        "    def run(self):\n"                                       # 12
        "        self.pool.go()\n"                                   # 13
        "        self.session.go()\n"                                # 14
        "        self.t.go()\n"                                      # 15
        "        self.cache.go()\n"                                  # 16
        "        self.mixed.go()\n"                                  # 17
        "        self.u.go()\n"                                      # 18
    )
    edges = _edges_from(index, root, "Client.run")
    assert {(13, "Pool.go", 0.9, "self.pool is a Pool"), (14, "Session.go", 0.9, "self.session is a Session"),
            (15, "Transport.go", 0.9, "self.t is a Transport"), (16, "Cache.go", 0.9, "self.cache is a Cache")} <= edges
    assert not {e for e in edges if e[0] in (17, 18) and " is a " in e[3]}


def test_a_class_called_by_name_reaches_the_method_it_inherits_through_a_generic_base(index: Index, tmp_path: Path) -> None:
    """`Prompt.ask()` where `ask` is `PromptBase`'s and `class Prompt(PromptBase[str])`: the
    generic base is recorded, and the call reaches `PromptBase.ask` (0.85) where by name it
    is one of two."""
    root = tmp_path / "prompts"
    root.mkdir()
    (root / "prompt.py").write_text(
        "class PromptBase(Generic[T]):\n"          # 1
        "    @classmethod\n"                       # 2
        "    def ask(cls):\n"                      # 3
        "        pass\n"                           # 4
        "class Prompt(PromptBase[str]):\n"         # 5
        "    pass\n"                               # 6
        "class Other:\n"                           # 7
        "    def ask(self):\n"                     # 8
        "        pass\n"                           # 9
        "def main():\n"                            # 10
        "    Prompt.ask()\n"                       # 11
    )
    assert (11, "PromptBase.ask", 0.85, "Prompt inherits it from PromptBase") in _edges_from(index, root, "main")
    subclasses = direct_heirs(index.graph(), next(t for t in index.graph().targets("PromptBase") if t.name == "PromptBase"))
    assert [(kind, edge.scope) for kind, edge in subclasses] == [("extends", "Prompt")]


def test_a_type_nested_past_python_recursion_is_read_without_recursing() -> None:
    """`Promise<Promise<...>>` 3,000 deep (a hostile or generated file): no class, at once; a
    few levels are unwrapped as an `await` would."""
    from mindex.parse.refs import ts_type

    assert ts_type("Promise<" * 3000 + "X" + ">" * 3000) is None
    assert ts_type("Promise<Promise<Subscriber | undefined>>") == "Subscriber"


SRC_LAYOUT = {
    # A library in a src layout whose package offers what its private modules define (attrs'
    # shape): `attrs/__init__.py` imports from `attr`, which imports from `attr._next_gen`.
    "src/attr/__init__.py": "from ._next_gen import define, field as attrib\nfrom ._funcs import *\n",
    "src/attr/_next_gen.py": "def define(cls=None):\n    return cls\n\n\ndef field(default=None):\n    return default\n",
    "src/attr/_funcs.py": "def asdict(inst):\n    return {}\n\n\nclass Factory:\n    def __init__(self, make):\n"
                          "        self.make = make\n",
    "src/attrs/__init__.py": "from attr import define, asdict, attrib\n\n__all__ = ['define']\n",
    "src/attrs/__init__.pyi": "def define(cls: type) -> type: ...\n",
    "other/pkg/__init__.py": "VERSION = 1\n",
    "other/pkg/extras/__init__.py": "X = 1\n",
    "other/pkg/extras/attrs.py": "def define(cls=None):\n    return None\n",
    "tests/test_api.py": (
        "import attrs\n"                                      # 1
        "import attr as a\n"                                  # 2
        "from attrs import asdict\n"                          # 3
        "from attr import attrib\n"                           # 4
        "\n\n"
        "@attrs.define\n"                                     # 7
        "class Plain:\n"
        "    x = attrib(default=1)\n"                         # 9
        "\n\n"
        "@a.define(slots=False)\n"                            # 12
        "class Called:\n"
        "    pass\n"
        "\n\n"
        "def test_dump():\n"                                  # 17
        "    return asdict(Plain()), attrs.define(Called)\n"  # 18
    ),
}


def test_a_name_a_package_offers_is_found_and_called_through_its_imports(index: Index, tmp_path: Path) -> None:
    """A package's `__init__.py` that imports a name from where it is defined offers it:
    `attrs.define` names the function of `attr/_next_gen.py` (two imports away, in a src
    layout), calls through `attrs.` and `a.` and of names imported from the package reach it,
    and a decorator without arguments calls what it names. An `attrs.py` inside another
    package is not the top-level `attrs`."""
    root = tmp_path / "lib"
    _write(root, SRC_LAYOUT)
    index.add_source(root, name="lib", kind="code")
    index.index()
    graph = index.graph()
    (impl,) = graph.targets("attrs.define")
    assert impl.path == "src/attr/_next_gen.py"
    assert [t.path for t in graph.targets("attr._funcs.Factory.__init__")] == ["src/attr/_funcs.py"]
    assert [t.path for t in graph.targets("attr.asdict")] == ["src/attr/_funcs.py"]  # through `import *`
    assert [(t.name, t.path) for t in graph.targets("attrs.attrib")] == [("field", "src/attr/_next_gen.py")]
    with pytest.raises(NotFoundError):
        graph.targets("attrs.nothing_here")
    with pytest.raises(NotFoundError):  # a hostile name: not read as thousands of module paths
        graph.targets(".".join(["attrs"] * 3000))
    assert {(e.line, e.scope, round(e.confidence, 2)) for e in graph.callers(impl)} == {
        (7, "Plain", 0.9),          # @attrs.define
        (12, "Called", 0.9),        # @a.define(slots=False)
        (18, "test_dump", 0.9),     # attrs.define(Called)
    }
    (asdict,) = graph.targets("asdict")
    assert {(e.line, round(e.confidence, 2)) for e in graph.callers(asdict)} == {(18, 0.9)}
    vendored = [t for t in graph.targets("define") if t.path.startswith("other/")]
    assert vendored and not graph.callers(vendored[0])


COMMONJS = {
    # Node's CommonJS, as express writes it: functions assigned to properties, `require`.
    "lib/utils.js": (
        "'use strict';\n"
        "exports.compile = function (val) {\n"               # 2
        "  return helper(val);\n"
        "};\n"
        "function helper(v) { return v; }\n"                 # 5
        "module.exports.flatten = (xs) => xs;\n"             # 6
    ),
    "lib/router.js": (
        "var proto = module.exports = function router(options) {\n"   # 1
        "  return proto;\n"
        "};\n"
        "proto.handle = function handle(req) {\n"                     # 4
        "  return this.next(req);\n"                                  # 5
        "};\n"
        "proto.next = function next(req) { return req; };\n"          # 7
        "function Layer() {}\n"                                       # 8
        "Layer.prototype.match = function match(path) { return path; };\n"  # 9
    ),
    "lib/app.js": (
        "var compile = require('./utils').compile;\n"                 # 1
        "var { flatten, compile: build } = require('./utils');\n"     # 2
        "var app = exports = module.exports = {};\n"                  # 3
        "app.init = function init() {\n"                              # 4
        "  compile(1);\n"                                             # 5
        "  build(2);\n"                                               # 6
        "  flatten([]);\n"                                            # 7
        "  return this.handle();\n"                                   # 8
        "};\n"
        "app.handle = function handle() { return 1; };\n"             # 10
    ),
}


def test_commonjs_functions_assigned_to_properties_are_definitions_and_require_imports(
        index: Index, tmp_path: Path) -> None:
    """express defines its API by assignment (`app.use = function use`, `exports.f =
    function`, `Foo.prototype.m = ...`) and imports with `require(...)`: its files had almost
    no definitions, and `require('./utils').compile` was no import."""
    root = tmp_path / "cjs"
    _write(root, COMMONJS)
    index.add_source(root, name="cjs", kind="code")
    index.index()
    graph = index.graph()
    found = {(s.path, s.name, s.kind, s.start_line) for p in COMMONJS for s in graph.symbols_in(graph.document(p))}
    assert found == {
        ("lib/utils.js", "compile", "function", 2), ("lib/utils.js", "helper", "function", 5),
        ("lib/utils.js", "flatten", "function", 6),
        ("lib/router.js", "proto", "function", 1), ("lib/router.js", "proto.handle", "method", 4),
        ("lib/router.js", "proto.next", "method", 7), ("lib/router.js", "Layer", "function", 8),
        ("lib/router.js", "Layer.match", "method", 9),
        ("lib/app.js", "app.init", "method", 4), ("lib/app.js", "app.handle", "method", 10),
    }
    assert _callees(graph, "app.init") == {
        (5, "compile", 0.95, "imported from ./utils"), (6, "compile", 0.95, "imported from ./utils"),
        (7, "flatten", 0.95, "imported from ./utils"), (8, "app.handle", 1.0, "method of the enclosing class"),
    }
    assert _callees(graph, "proto.handle") == {(5, "proto.next", 1.0, "method of the enclosing class")}
    assert [t.name for t in graph.targets("Layer.match")] == ["Layer.match"]


def test_a_call_on_what_a_call_returns_reaches_the_class_it_says_it_returns(index: Index, tmp_path: Path) -> None:
    """cobra's `c.Root().ExecuteC()`, `self.session().send()`, `make().go()`, `new
    Builder().build()`: a call on a call's result was a guess by name (or, with two methods of
    that name, none); it now reaches the method of the class the inner call says it returns,
    through as many calls as the chain holds. A call on what a call outside the index returns
    reaches nothing (it was one of the index's methods of that name); an inner call whose
    function says nothing still guesses by name."""
    root = tmp_path / "results"
    _write(root, {
        "client.py": (
            "import json\n"                                  # 1
            "class Session:\n"                               # 2
            "    def send(self):\n"                          # 3
            "        pass\n"                                 # 4
            "class Other:\n"                                 # 5
            "    def send(self):\n"                          # 6
            "        pass\n"                                 # 7
            "    def get(self):\n"                           # 8
            "        pass\n"                                 # 9
            "class Client:\n"                                # 10
            "    def session(self) -> Session:\n"            # 11
            "        return Session()\n"                     # 12
            "    def me(self) -> 'Client':\n"                # 13
            "        return self\n"                          # 14
            "    def vague(self):\n"                         # 15
            "        return Session()\n"                     # 16
            "    def run(self, text):\n"                     # 17
            "        self.session().send()\n"                # 18
            "        self.me().me().session().send()\n"      # 19
            "        make(text, (1, ')')).run(text)\n"       # 20
            "        Other().send()\n"                       # 21
            "        json.loads(text).get('a')\n"            # 22
            "        self.vague().send()\n"                  # 23
            "def make(text, pair) -> Client:\n"              # 24
            "    return Client()\n"                          # 25
            "def shown(x):\n"                                # 26
            "    return str(x).send()\n"                     # 27
        ),
        "cmd/root.go": (
            "package cmd\n"                                            # 1
            "type Command struct{ parent *Command }\n"                 # 2
            "func (c *Command) Root() *Command { return c }\n"         # 3
            "func (c *Command) Execute() error {\n"                    # 4
            "\tif c.parent != nil {\n"                                 # 5
            "\t\treturn c.Root().Execute()\n"                          # 6
            "\t}\n"                                                    # 7
            "\treturn nil\n"                                           # 8
            "}\n"                                                      # 9
            "type Job struct{}\n"                                      # 10
            "func (j *Job) Execute() error { return nil }\n"           # 11
        ),
        "src/Main.java": (
            "class Builder {\n"                                        # 1
            "  Builder name(String n) { return this; }\n"              # 2
            "  Product build() { return new Product(); }\n"            # 3
            "}\n"                                                      # 4
            "class Product { void ship() {} }\n"                       # 5
            "class Parcel { void ship() {} Product build() { return null; } String trim() { return null; } }\n"  # 6
            "class Main {\n"                                           # 7
            "  void main() {\n"                                        # 8
            "    new Builder().name(\"x\").build().ship();\n"          # 9
            "    new Builder().toString().trim();\n"                   # 10
            "  }\n"                                                    # 11
            "}\n"                                                      # 12
        ),
    })
    graph = _graph_of(index, root, {})
    edges = _callees(graph, "Client.run")
    assert {(18, "Session.send", 0.9, "self.session() is a Session"),
            (19, "Session.send", 0.9, "self.me().me().session() is a Session"),
            (19, "Client.session", 0.9, "self.me().me() is a Client"),
            (20, "Client.run", 0.9, "make(text, (1, ')')) is a Client"),
            (21, "Other.send", 0.9, "Other() is a Other"),
            (22, None, 0.0, "outside the index: called on what json.loads() returns")} <= edges
    assert {e[3] for e in edges if e[0] == 23 and e[1] != "Client.vague"} == {"ambiguous: 2 definitions named send"}
    assert _callees(graph, "shown") == {(27, None, 0.0, "not defined in the index"),  # `str` itself
                                        (27, None, 0.0, "outside the index: called on what str() returns")}
    assert (6, "Command.Execute", 0.9, "c.Root() is a Command") in _callees(graph, "Command.Execute")
    java = _callees(graph, "Main.main")
    assert {(9, "Builder.name", 0.9, "new Builder() is a Builder"),
            (9, "Builder.build", 0.9, 'new Builder().name("x") is a Builder'),
            (9, "Product.ship", 0.9, 'new Builder().name("x").build() is a Product')} <= java
    # whatever class an object is, Java's `toString()` gives a String (the JDK's `trim`, not Parcel's)
    assert (10, None, 0.0, "outside the index: new Builder().toString() is a String") in java


RETURNED = {  # a builder chain in five more languages, each saying what its methods return in its own way
    "rs/lib.rs": (
        'pub struct Builder { n: u32 }\n'
        'pub struct Product;\n'
        'pub struct Parcel;\n'
        'impl Builder {\n'
        '    pub fn new() -> Self { Builder { n: 0 } }\n'
        '    pub fn name(&mut self, n: u32) -> &mut Builder { self }\n'
        '    pub fn build(&self) -> Product { Product }\n'
        '}\n'
        'impl Product { pub fn ship(&self) {} }\n'
        'impl Parcel { pub fn ship(&self) {} pub fn build(&self) -> Parcel { Parcel } }\n'
        'pub fn main() {\n'
        '    Builder::new().name(1).build().ship();\n'
        '}\n'
    ),
    "cs/Main.cs": (
        'namespace Kit {\n'
        '  class Builder {\n'
        '    public Builder Name(string n) { return this; }\n'
        '    public Product Build() { return new Product(); }\n'
        '  }\n'
        '  class Product { public void Ship() {} }\n'
        '  class Parcel { public void Ship() {} public Parcel Build() { return this; } }\n'
        '  class App {\n'
        '    static Builder Make() { return new Builder(); }\n'
        '    void Main() {\n'
        '      Make().Name("x").Build().Ship();\n'
        '    }\n'
        '  }\n'
        '}\n'
    ),
    "kt/Main.kt": (
        'class Builder {\n'
        '    fun name(n: String): Builder? {\n'
        '        return this\n'
        '    }\n'
        '\n'
        '    fun build(): Product {\n'
        '        return Product()\n'
        '    }\n'
        '}\n'
        '\n'
        'class Product {\n'
        '    fun ship() {\n'
        '    }\n'
        '}\n'
        '\n'
        'class Parcel {\n'
        '    fun ship() {\n'
        '    }\n'
        '\n'
        '    fun build(): Parcel {\n'
        '        return this\n'
        '    }\n'
        '}\n'
        '\n'
        'fun main() {\n'
        '    Builder().name("x")!!.build().ship()\n'
        '    Builder().build().ship()\n'
        '}\n'
    ),
    "sw/Main.swift": (
        'class Builder {\n'
        '    func name(_ n: String) -> Self { return self }\n'
        '    func build() -> Product { return Product() }\n'
        '}\n'
        'class Product { func ship() {} }\n'
        'class Parcel { func ship() {} func build() -> Parcel { return self } }\n'
        'func main() {\n'
        '    Builder().name("x").build().ship()\n'
        '}\n'
    ),
    "php/Main.php": (
        '<?php\n'
        'class Builder {\n'
        '    public function name(string $n): static { return $this; }\n'
        '    public function build(): ?Product { return new Product(); }\n'
        '}\n'
        'class Product { public function ship() {} }\n'
        'class Parcel { public function ship() {} public function build(): Parcel { return $this; } }\n'
        'function main() {\n'
        '    (new Builder())->name("x")->build()->ship();\n'
        '}\n'
    ),
}



@pytest.mark.parametrize(("path", "caller", "chain"), [
    ("rs/lib.rs", "main", ["Builder::new()", "Builder::new().name(1)", "Builder::new().name(1).build()"]),
    ("cs/Main.cs", "Kit.App.Main", ["Make()", 'Make().Name("x")', 'Make().Name("x").Build()']),
    ("kt/Main.kt", "main", ["Builder()", 'Builder().name("x")!!', 'Builder().name("x")!!.build()']),
    ("sw/Main.swift", "main", ["Builder()", 'Builder().name("x")', 'Builder().name("x").build()']),
    ("php/Main.php", "main", ["(new Builder())", '(new Builder()).name("x")', '(new Builder()).name("x").build()']),
])
def test_a_builder_chain_is_followed_by_what_each_method_says_it_returns(
        index: Index, tmp_path: Path, path: str, caller: str, chain: list[str]) -> None:
    """Rust's `-> Self` and `-> &mut Builder`, C#'s return type, Kotlin's `Builder?` (and its
    `!!`), Swift's `-> Self`, PHP's `: static` and `: ?Product`: the chain `name`, `build`,
    `ship` reaches Builder's, Builder's, then Product's method, where Parcel has a `build`
    and a `ship` too (by name alone each was one of two)."""
    graph = _graph_of(index, tmp_path / "chain", {path: RETURNED[path]})
    name, build, ship = ("Name", "Build", "Ship") if path.endswith(".cs") else ("name", "build", "ship")
    space = "Kit." if path.endswith(".cs") else ""
    edges = {(e[1], e[2], e[3]) for e in _callees(graph, caller)}
    assert {(f"{space}Builder.{name}", 0.9, f"{chain[0]} is a Builder"),
            (f"{space}Builder.{build}", 0.9, f"{chain[1]} is a Builder"),
            (f"{space}Product.{ship}", 0.9, f"{chain[2]} is a Product")} <= edges
    assert not any(target and target.startswith(f"{space}Parcel") for target, _, _ in edges)


def test_a_receiver_that_is_a_call_is_taken_apart_as_its_reference_spells_it() -> None:
    """The last call of a receiver, its own receiver and its argument count; nothing for what
    is no call, and nothing for a receiver the parser cut at its 80 characters (its end may be
    a call of the middle of the chain: taken as the receiver, the wrong class would be)."""
    from mindex.graph_holds import call_of
    from mindex.models import RECEIVER_CHARS

    assert call_of("c.Root()") == ("c", "Root", "0")
    assert call_of("a::b::f(x)") == ("a::b", "f", "1")
    assert call_of('self.x.get(")", g(a, b))') == ("self.x", "get", "2")
    assert call_of("c.Root().Parent()") == ("c.Root()", "Parent", "0")
    assert call_of("Foo::new(x).build()") == ("Foo::new(x)", "build", "0")
    assert call_of("new kit.Builder(1, [2, 3])") == ("new", "kit.Builder", "2")
    assert call_of("(new Builder()).name(\"x\")") == ("(new Builder())", "name", "1")
    assert call_of("(new Builder())") == ("new", "Builder", "0")
    assert call_of("obj?.get()") == ("obj", "get", "0")
    assert call_of("a\n    .b()") == ("a", "b", "0")
    for other in ("x", "x[0]()", "f(a)(b)", "List<int>()", "x.y::<T>()", "a.b(", "a)b(", "(a)()", "\"f(\""):
        assert call_of(other) is None, other
    assert call_of("a" * (RECEIVER_CHARS - 4) + ".b()") is None
    assert call_of("a" * (RECEIVER_CHARS - 5) + ".b()") == ("a" * (RECEIVER_CHARS - 5), "b", "0")


def test_a_call_of_a_name_alone_reaches_closures_static_imports_and_never_a_method(index: Index, tmp_path: Path) -> None:
    """`bench_graph.py --bare` found three ways a call of a name alone went wrong: Java's
    `import static org.kit.internal.Normalizer.lowerCase` (and `.*`) was read as a module
    outside the index (jsoup's 95 such calls reached nothing); Python's `visit()` of a function
    nested in the caller was a guess by name; and Python's `next(it)`, `close()` reached a
    class's method of that name, which no call without a receiver can in Python, JavaScript or
    Go (jinja2: 140 builtin calls drawn to its methods). And a Java field's initializer
    (`INSTANCE = create()`) was no call inside its class, so its own `create` was one of two;
    and an import inside a function was seen by the whole file (click's `raw_terminal` called
    the `getchar` another function imports under the same name)."""
    graph = _graph_of(index, tmp_path / "alone", {
        "src/main/java/org/kit/internal/Normalizer.java": (
            "package org.kit.internal;\n"
            "public final class Normalizer {\n"
            "  public static String lowerCase(String s) { return s; }\n"
            "  public static String trimmed(String s) { return s; }\n"
            "}\n"),
        "src/main/java/org/kit/Other.java": (
            "package org.kit;\n"
            "class Other {\n"
            "  String lowerCase(String s) { return s; }\n"
            "  String trimmed(String s) { return s; }\n"
            "}\n"),
        "src/main/java/org/kit/Main.java": (
            "package org.kit;\n"
            "import static org.kit.internal.Normalizer.lowerCase;\n"
            "class Main {\n"
            "  String run(String s) { return lowerCase(s); }\n"
            "}\n"),
        "src/main/java/org/kit/All.java": (
            "package org.kit;\n"
            "import static org.kit.internal.Normalizer.*;\n"
            "class All {\n"
            "  String run(String s) { return trimmed(s); }\n"
            "}\n"),
        "walk.py": (
            "class Cursor:\n"                      # 1
            "    def next(self):\n"                # 2
            "        pass\n"                       # 3
            "    def close(self):\n"               # 4
            "        pass\n"                       # 5
            "def walk(items):\n"                   # 6
            "    def visit(x):\n"                  # 7
            "        return x\n"                   # 8
            "    it = iter(items)\n"               # 9
            "    first = next(it)\n"               # 10
            "    return visit(first)\n"            # 11
            "def other():\n"                       # 12
            "    def visit(x):\n"                  # 13
            "        return x\n"                   # 14
        ),
        "src/main/java/org/kit/Pool.java": (
            "package org.kit;\n"
            "class Pool {\n"
            "  static final Pool INSTANCE = create();\n"
            "  private static Pool create() { return null; }\n"
            "}\n"
            "class Spare {\n"
            "  static Spare create() { return null; }\n"
            "}\n"),
        "web/walk.js": "class Cursor {\n  next() { return 1; }\n}\nfunction step(it) {\n  return next(it);\n}\n",
        "net/conn.go": "package net\n\ntype Conn struct{}\n\nfunc (c *Conn) Close() {}\n\nfunc Shut() {\n\tClose()\n}\n",
        "helpers.py": "def raw():\n    pass\ndef getch():\n    pass\n",
        "term.py": (
            "def read():\n"                              # 1
            "    from helpers import getch as f\n"      # 2
            "    return f()\n"                          # 3
            "def raw_mode():\n"                          # 4
            "    from helpers import raw as f\n"        # 5
            "    return f()\n"                          # 6
        ),
        "shut.py": (
            "class Conn:\n"                        # 1
            "    def close(self):\n"               # 2
            "        pass\n"                       # 3
            "def shut():\n"                        # 4
            "    close()\n"                        # 5
        ),
    })
    assert _callees(graph, "Main.run") == {(4, "Normalizer.lowerCase", 0.95, "imported from org.kit.internal.Normalizer")}
    assert _callees(graph, "All.run") == {(4, "Normalizer.trimmed", 0.95, "imported from org.kit.internal.Normalizer")}
    walked = _callees(graph, "walk")
    assert (11, "walk.visit", 1.0, "defined in this file") in walked
    assert (10, None, 0.0, "not defined in this file or imported") in walked  # the builtin `next`
    assert not any(target and target.startswith("Cursor") for _, target, _, _ in walked)
    assert _callees(graph, "shut") == {(5, None, 0.0, "not defined in this file or imported")}
    # an import inside a function is that function's (click's two `... as f`)
    assert _callees(graph, "raw_mode") == {(6, "raw", 0.95, "imported from helpers")}
    assert _callees(graph, "read") == {(3, "getch", 0.95, "imported from helpers")}
    # a Java field's initializer calls its own class's method (gson's `INSTANCE = create()`)
    assert _callees(graph, "Pool") == {(3, "Pool.create", 1.0, "method of the enclosing class")}
    # JavaScript and Go call no method without a receiver either
    assert _callees(graph, "step") == {(5, None, 0.0, "not defined in the index")}
    assert _callees(graph, "Shut") == {(8, None, 0.0, "not defined in the index")}


def test_a_call_on_self_reaches_a_method_inherited_through_several_classes(index: Index, tmp_path: Path) -> None:
    """jsoup's `TextNode` extends `LeafNode`, which extends `Node`: `outerHtml()` in a
    TextNode is Node's. Only the class's own bases were looked in, so a method two levels up
    was a guess among every method of that name; now three levels up, nearest first. And a
    Java nested class's call of its outer class's method was a guess too."""
    graph = _graph_of(index, tmp_path / "heirs", {
        "nodes.py": (
            "class Node:\n"                           # 1
            "    def outer_html(self):\n"             # 2
            "        pass\n"                          # 3
            "class Leaf(Node):\n"                     # 4
            "    pass\n"                              # 5
            "class Text(Leaf):\n"                     # 6
            "    def show(self):\n"                   # 7
            "        return self.outer_html()\n"      # 8
            "class Other:\n"                          # 9
            "    def outer_html(self):\n"             # 10
            "        pass\n"                          # 11
        ),
        "src/Nodes.java": (
            "class Node { String outerHtml() { return \"\"; } }\n"                     # 1
            "class LeafNode extends Node { }\n"                                      # 2
            "class TextNode extends LeafNode { String show() { return outerHtml(); } }\n"  # 3
            "class Page { String outerHtml() { return \"\"; } }\n"                     # 4
        ),
        "src/Outer.java": (
            "class Outer {\n"                                              # 1
            "  static void load(int x) {}\n"                               # 2
            "  static class Inner { void run() { load(1); } }\n"           # 3
            "}\n"                                                          # 4
            "class Other { static void load(int x) {} }\n"                 # 5
        ),
    })
    assert _callees(graph, "Text.show") == {(8, "Node.outer_html", 0.9, "inherited from Node")}
    assert _callees(graph, "TextNode.show") == {(3, "Node.outerHtml", 0.9, "inherited from Node")}
    # a nested class calls its outer class's methods without `this` (jsoup's `EscapeMode` its
    # `Entities.load`, a StreamParser's iterator its `close()`)
    assert _callees(graph, "Outer.Inner.run") == {(3, "Outer.load", 0.95, "member of the outer class Outer")}

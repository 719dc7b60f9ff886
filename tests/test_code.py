"""Code sources: tree-sitter grammars, cAST chunks with exact spans, definitions, discovery."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sysconfig
from pathlib import Path

import pytest

from mindex import Index, IndexSettings
from mindex.config import EmbedSettings
from mindex.languages import LANGUAGES, grammar, language_for
from mindex.models import Document
from mindex.parse.cast import chunk_code
from mindex.parse.code import ParseTimeout, definitions, parse_tree
from mindex.sources import code as code_source
from mindex.sources.docs import LoadTask
from mindex.sources.walk import FileEntry

SAMPLES = {
    "python": "import os\n\n\nclass Session(Base):\n    def send(self, request):\n        return request\n",
    "javascript": "export function fetchAll(urls) {\n  return urls.map(get);\n}\nclass Pool {\n  acquire() {}\n}\n",
    "typescript": "interface Opts { retries: number }\ntype Id = string;\nexport class Client {\n  send(o: Opts): void {}\n}\n",
    "go": "package main\n\ntype Server struct{}\n\nfunc (s *Server) Serve() error {\n\treturn nil\n}\n\nfunc main() {}\n",
    "rust": "struct Pool;\ntrait Conn { fn open(&self); }\nimpl Pool {\n    fn get(&self) -> u8 { 1 }\n}\nfn main() {}\n",
    "java": "class Client {\n  Client() {}\n  void send(String body) {}\n}\ninterface Transport {}\n",
    "c": "struct point { int x; };\nstatic int add(int a, int b) {\n  return a + b;\n}\n",
    "cpp": "namespace net {\nclass Socket {\n public:\n  void close();\n};\n}\nint Socket::fd() { return 0; }\n",
}
EXPECTED = {
    "python": {("Session", "class"), ("Session.send", "method")},
    "javascript": {("fetchAll", "function"), ("Pool", "class"), ("Pool.acquire", "method")},
    "typescript": {("Opts", "interface"), ("Id", "type"), ("Client", "class"), ("Client.send", "method")},
    "go": {("Server", "type"), ("Server.Serve", "method"), ("main", "function")},
    "rust": {("Pool", "struct"), ("Conn", "interface"), ("Pool", "impl"), ("Pool.get", "method"), ("main", "function")},
    "java": {("Client", "class"), ("Client.Client", "method"), ("Client.send", "method"), ("Transport", "interface")},
    "c": {("point", "struct"), ("add", "function")},
    "cpp": {("net", "module"), ("net.Socket", "class"), ("Socket.fd", "method")},
}


def test_every_language_of_the_table_parses_offline() -> None:
    assert len(LANGUAGES) >= 40 and sum(bool(lang.definitions) for lang in LANGUAGES) >= 30
    for lang in LANGUAGES:
        assert grammar(lang.name) is not None, lang.name
        tree = parse_tree(b"x = 1\n", lang, 5.0)
        # a component's markup parses as blank: only its <script> is code
        assert tree.root.type and tree.src == (b"     \n" if lang.script_only else b"x = 1\n"), lang.name
    assert language_for("src/app.TSX").name == "tsx" and language_for("Makefile").name == "make"  # type: ignore[union-attr]
    assert language_for("notes.unknown") is None


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_definitions_have_names_kinds_and_lines(name: str) -> None:
    lang = next(lang for lang in LANGUAGES if lang.name == name)
    found = definitions(parse_tree(SAMPLES[name].encode(), lang, 5.0))
    assert {(d.qualname, d.kind) for d in found} == EXPECTED[name]
    assert all(1 <= d.start_line <= d.end_line <= SAMPLES[name].count("\n") for d in found)


MODULE = '''"""A module docstring."""

import os

LIMIT = 3


def small_one(a):
    return a


def small_two(b):
    return b


class Big:
    """A class too big for one chunk."""

    def first(self, x):
        total = 0
''' + "".join(f"        total += x * {n}  # line of padding\n" for n in range(40)) + '''        return total

    def second(self):
        return os.getcwd()


# a trailing comment
'''


def test_chunks_follow_syntax_cover_every_line_once_and_say_where_they_are() -> None:
    lang = language_for("m.py")
    assert lang is not None
    chunks = chunk_code(MODULE, parse_tree(MODULE.encode(), lang, 5.0), budget=600)
    lines = MODULE.split("\n")
    covered = [n for c in chunks for n in range(c.start_line, c.end_line + 1)]
    assert covered == sorted(set(covered))  # no line twice, in order
    assert {n + 1 for n, line in enumerate(lines) if line.strip()} <= set(covered)  # no line lost
    for chunk in chunks:
        assert chunk.text == "\n".join(lines[chunk.start_line - 1:chunk.end_line])
    first = next(c for c in chunks if "def first" in c.text)
    assert first.symbol == "Big.first" and first.symbol_kind == "method"
    assert first.context == ("Big", "first(self, x)")
    assert first.start_line == lines.index("    def first(self, x):") + 1
    assert "def second" not in first.text  # a class is cut at its methods
    # Definition-level: each function is a chunk of its own, the module's head another.
    assert [c.symbol for c in chunks if c.symbol_kind == "function"] == ["small_one", "small_two"]
    small = next(c for c in chunks if c.symbol == "small_one")
    assert small.text.startswith("def small_one") and "small_two" not in small.text
    assert chunks[0].start_line == 1 and "import os" in chunks[0].text
    assert chunks[-1].text.endswith("# a trailing comment")


DECORATED = '''from dataclasses import dataclass


@dataclass(frozen=True)
class RetryPolicy:
    """How to retry."""

    attempts: int = 3

    def delay(self, n: int) -> float:
        return 0.5 * 2 ** n
'''

EXPORTED = '''export class Client {
  get(path: string): string {
    return path;
  }
}

@Component({selector: "app"})
export class Widget {
  render(): string {
    return "w";
  }
}
'''


def test_a_decorator_belongs_to_its_definition_and_a_context_names_a_class_once() -> None:
    """Every `@dataclass` class was cut with its decorator as a one-line chunk and a context
    of `RetryPolicy › RetryPolicy` (94 chunks of mindex's own source)."""
    python, typescript = language_for("m.py"), language_for("m.ts")
    assert python is not None and typescript is not None
    chunks = chunk_code(DECORATED, parse_tree(DECORATED.encode(), python, 5.0), budget=600)
    head = next(c for c in chunks if "class RetryPolicy" in c.text)
    assert head.text.startswith("@dataclass(frozen=True)\nclass RetryPolicy:") and head.start_line == 4
    assert head.context == ("RetryPolicy",) and head.symbol == "RetryPolicy"
    delay = next(c for c in chunks if "def delay" in c.text)
    assert delay.context == ("RetryPolicy", "delay(self, n: int)")
    assert not any(c.text.strip().startswith("@") and c.start_line == c.end_line for c in chunks)
    chunks = chunk_code(EXPORTED, parse_tree(EXPORTED.encode(), typescript, 5.0), budget=600)
    assert all(len(c.context) == len(set(c.context)) for c in chunks), [c.context for c in chunks]
    widget = next(c for c in chunks if "@Component" in c.text)
    assert widget.text.startswith("@Component") and "export class Widget" in widget.text
    assert widget.context == ("Widget",) and "}" not in widget.text.split("@Component")[0]  # not Client's brace


CLOSED = {
    "java": "class Parser {\n  int depth;\n\n  void open() {\n    depth++;\n  }\n\n  void close() {\n    depth--;\n  }\n}\n\n"
            "class Lexer {\n  void next() {\n    return;\n  }\n}\n",
    "ruby": "class Parser\n  def open\n    @depth += 1\n  end\n\n  def close\n    @depth -= 1\n  end\nend\n",
    "php": "<?php\nclass Parser {\n    public function open() {\n        return 1;\n    }\n}\n",
}


@pytest.mark.parametrize("name", sorted(CLOSED))
def test_a_class_closing_line_ends_its_last_member_chunk(name: str) -> None:
    """A class's closing `}` (`end`) was a chunk of its own, titled with the class: 2.4% of the
    top ten results on the Java dev set were such a one-line `}`."""
    text = CLOSED[name]
    lang = language_for({"java": "m.java", "ruby": "m.rb", "php": "m.php"}[name])
    assert lang is not None
    chunks = chunk_code(text, parse_tree(text.encode(), lang, 5.0), budget=600)
    assert not [c for c in chunks if c.text.strip() in ("}", "end")], [(c.start_line, c.text) for c in chunks]
    last = next(c for c in chunks if c.text.rstrip().endswith(("}\n}", "end\nend")))  # the class's last line
    assert last.symbol == ("Parser.open" if name == "php" else "Parser.close")
    lines = text.split("\n")
    assert [(c.start_line, c.end_line) for c in chunks][-1][1] == len(lines) - 1  # every line still in a chunk
    if name == "java":  # the next class starts a chunk of its own, and its brace ends its method
        assert next(c for c in chunks if "class Lexer" in c.text).start_line == 13
        assert chunks[-1].symbol == "Lexer.next" and chunks[-1].text.endswith("  }\n}")


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "vendor" / "lib").mkdir(parents=True)
    (root / "src" / "app.py").write_text("def handler(event):\n    return retry_with_backoff(event)\n")
    (root / "src" / "util.go").write_text("package util\n\nfunc Backoff(n int) int {\n\treturn n * 2\n}\n")
    (root / "src" / "notes.txt").write_text("plain text is chunked as text\n")
    (root / "src" / "app.min.js").write_text("var a=1;")
    (root / "src" / "big.js").write_text("var x = [" + ",".join(["1"] * 3000) + "];")
    (root / "src" / "gen.py").write_text("# Code generated by protoc. DO NOT EDIT.\nx = 1\n")
    (root / "src" / "logo.bin").write_bytes(b"\x00\x01\x02")
    (root / "vendor" / "lib" / "dep.py").write_text("def vendored():\n    pass\n")
    (root / "package-lock.json").write_text("{}")
    (root / "ignored.py").write_text("def ignored():\n    pass\n")
    (root / "private.py").write_text("def private():\n    pass\n")
    (root / ".gitignore").write_text("ignored.py\n")
    (root / ".mindexignore").write_text("private.py\n")
    _git(root, "init", "-q")
    _git(root, "add", "src/app.py", ".gitignore")  # the rest stays untracked: still listed unless ignored
    return root


def test_a_repository_is_listed_by_git_and_junk_is_skipped_with_reasons(repo: Path, tmp_path: Path) -> None:
    with Index(tmp_path / "c.db", IndexSettings(workers=1), embed=EmbedSettings(provider="none")) as index:
        index.add_source(repo, name="repo", kind="code")
        report = index.index()["repo"]
        skipped = {s.path: s.reason for s in report.skipped}
        assert skipped["src/app.min.js"] == "minified"
        assert skipped["src/big.js"].startswith("minified or machine-written")
        assert skipped["src/gen.py"] == "generated (its header says so)"
        assert skipped["src/logo.bin"] == "binary file"
        assert skipped["vendor/lib/dep.py"].startswith("vendored")
        assert skipped["package-lock.json"] == "lock file (generated)"
        paths = {hit.path for hit in index.search("def", limit=50, mode="keyword").hits}
        assert "ignored.py" not in paths and "private.py" not in paths
        hit = index.search("Backoff", limit=1, mode="keyword").hits[0]
        assert (hit.path, hit.language, hit.symbol, hit.symbol_kind) == ("src/util.go", "go", "Backoff", "function")
        assert hit.to_dict()["symbol"] == "Backoff"
        text = index.search("plain text chunked", limit=1, mode="keyword").hits[0]
        assert text.path == "src/notes.txt" and text.language == "plaintext" and text.prose  # prose, not code
        assert index.index()["repo"].unchanged == report.added  # nothing changed: nothing parsed


def test_a_submodule_is_listed_by_its_own_git(tmp_path: Path) -> None:
    """git lists a submodule as one entry; its files are code of the repository as ripgrep
    sees it, so they are listed too (an empty, uninitialised one adds nothing)."""
    lib = tmp_path / "lib"
    (lib / "pkg").mkdir(parents=True)
    (lib / "pkg" / "core.py").write_text("def from_the_submodule():\n    return 1\n")
    (lib / "ignored.py").write_text("def ignored_there():\n    pass\n")
    (lib / ".gitignore").write_text("ignored.py\n")
    app = tmp_path / "app"
    app.mkdir()
    (app / "main.py").write_text("from third.lib.pkg.core import from_the_submodule\n\n\n"
                                 "def main():\n    return from_the_submodule()\n")
    for repo in (lib, app):
        _git(repo, "init", "-q")
        _git(repo, "add", "-A")
        _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "init")
    _git(app, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "third/lib")
    (app / "empty").mkdir()
    (app / "empty" / ".git").write_text("gitdir: nowhere\n")  # a broken submodule: git answers nothing
    with Index(tmp_path / "c.db", IndexSettings(workers=1), embed=EmbedSettings(provider="none")) as index:
        index.add_source(app, name="app", kind="code")
        index.index()
        found = {s.path for _, s in index.graph().find("from_the_submodule")}
        assert found == {"third/lib/pkg/core.py"}
        assert not index.graph().find("ignored_there")  # the submodule's own ignore rules hold
        callers = index.graph().calls("from_the_submodule", "callers")
        assert [e.path for calls in callers for e in calls.edges] == ["main.py"]


def test_a_real_tree_the_standard_library_json_package(tmp_path: Path) -> None:
    folder = Path(sysconfig.get_paths()["stdlib"]) / "json"
    with Index(tmp_path / "s.db", IndexSettings(workers=2), embed=EmbedSettings(provider="none")) as index:
        index.add_source(folder, name="json", kind="code")
        report = index.index()["json"]
        assert report.added >= 5 and not report.errors
        hits = index.search("raw_decode", limit=20, mode="keyword").hits
        decode = hits[0]  # small methods share a chunk: raw_decode sits with decode
        source = (folder / "decoder.py").read_text()
        node = next(n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.FunctionDef) and n.name == "raw_decode")
        assert decode.path == "decoder.py" and decode.start_line <= node.lineno and decode.end_line >= node.end_lineno  # type: ignore[operator]
        assert decode.symbol is not None and decode.symbol.startswith("JSONDecoder.")
        assert json.loads(json.dumps(decode.to_dict()))["symbol_kind"] == "method"


SYMBOL_FILES = Path(__file__).parent / "fixtures" / "code" / "symbols"
# Every definition of each fixture file: (qualified name, kind, first line, last line, exported).
EXACT_SYMBOLS = {
    "sample.ml": {
        ("color", "type", 2, 2, True), ("square", "function", 4, 4, True), ("fact", "function", 6, 6, True),
        ("pi", "constant", 8, 8, True), ("Stack", "module", 10, 14, True), ("Stack.t", "type", 11, 11, True),
        ("Stack.empty", "constant", 12, 12, True), ("Stack.push", "function", 13, 13, True),
    },
    "Makefile": {
        ("CC", "variable", 1, 1, True), ("CFLAGS", "variable", 2, 2, True), ("all", "rule", 6, 6, True),
        ("app", "rule", 8, 9, True), ("%.o", "rule", 11, 12, True), ("clean", "rule", 14, 15, True),
        ("greet", "macro", 17, 19, True),
    },
    "sample.jl": {
        ("Geometry", "module", 1, 26, True), ("Geometry.Point", "struct", 5, 8, True),
        ("Geometry.Counter", "struct", 10, 12, True), ("Geometry.distance", "function", 14, 16, True),
        ("Geometry.norm2", "function", 18, 18, True), ("Geometry.Shape", "type", 20, 20, True),
        ("Geometry.@twice", "macro", 22, 24, True),
    },
    "sample.lua": {
        ("M.clamp", "function", 3, 5, True), ("M.reset", "method", 7, 9, True), ("helper", "function", 11, 13, False),
        ("globalfn", "function", 15, 17, True), ("M.lerp", "function", 19, 19, True),
    },
    "sample.hs": {
        ("Shape", "type", 3, 3, True), ("Wrapper", "type", 5, 5, True), ("Name", "type", 7, 7, True),
        ("Describable", "interface", 9, 10, True), ("Describable.describe", "method", 10, 10, True),
        ("area", "function", 12, 14, True), ("perimeter", "function", 16, 18, True),
        ("Describable", "impl", 20, 21, True), ("Describable.describe", "method", 21, 21, True),
    },
    "sample.c": {
        ("BUF_SIZE", "constant", 2, 2, True), ("buffer", "struct", 4, 7, True), ("node_t", "type", 9, 12, True),
        ("node", "struct", 9, 12, True), ("mode", "enum", 14, 14, True),
        ("buffer_grow", "function", 16, 19, False), ("buffer_free", "function", 21, 23, True),
    },
    "sample.cpp": {
        ("net", "module", 3, 25, True), ("net.Socket", "class", 5, 12, True), ("net.Socket.fd", "method", 9, 9, True),
        ("net.Socket.close", "method", 14, 14, True), ("net.connect_to", "function", 16, 18, True),
        ("net.Options", "struct", 20, 20, True), ("net.clamp", "function", 23, 23, True), ("main", "function", 27, 27, True),
    },
    "sample.groovy": {
        ("ReleaseTask", "class", 5, 22, True), ("ReleaseTask.ReleaseTask", "method", 10, 12, True),
        ("ReleaseTask.publish", "method", 14, 17, True), ("ReleaseTask.snapshot", "method", 19, 21, True),
        ("Notifier", "interface", 24, 26, True), ("Notifier.notify", "method", 25, 25, True),
        ("Channel", "enum", 28, 28, True), ("greet", "function", 30, 32, True),
    },
    "sample.m": {("smooth_signal", "function", 1, 5, True), ("find_peaks_above", "function", 7, 9, True)},
    "Filter.m": {("Filter", "class", 1, 13, True), ("Filter.Filter", "method", 6, 8, True),
                 ("Filter.apply", "method", 9, 11, True)},
    "sample.mm": {
        ("Downloading", "interface", 3, 5, True), ("Downloading.downloadURL", "method", 4, 4, True),
        ("Downloader", "class", 7, 11, True), ("Downloader.initWithAgent", "method", 9, 9, True),
        ("Downloader.sharedDownloader", "method", 10, 10, True), ("Downloader", "impl", 13, 28, True),
        ("Downloader.initWithAgent", "method", 14, 18, True), ("Downloader.sharedDownloader", "method", 20, 23, True),
        ("Downloader.downloadURL", "method", 25, 27, True), ("retry_limit", "function", 30, 32, False),
    },
    "sample.ps1": {
        ("Get-DeployTarget", "function", 3, 6, True), ("Invoke-Deploy", "function", 8, 10, True),
        ("Deployment", "class", 12, 16, True), ("Deployment.Deployment", "method", 14, 14, True),
        ("Deployment.Verify", "method", 15, 15, True),
    },
    "sample.pl": {
        ("Inventory::Store", "module", 1, 1, True), ("new", "function", 8, 11, True),
        ("add_item", "function", 13, 17, True), ("_audit", "function", 19, 19, False), ("main", "module", 21, 21, True),
    },
    "sample.sol": {
        ("IERC20", "interface", 4, 6, True), ("IERC20.transfer", "method", 5, 5, True),
        ("SafeMath", "module", 8, 12, True), ("SafeMath.add", "function", 9, 11, True),
        ("Vault", "class", 14, 29, True), ("Vault.Deposit", "struct", 15, 15, True), ("Vault.State", "enum", 16, 16, True),
        ("Vault.Deposited", "type", 17, 17, True), ("Vault.onlyOpen", "method", 21, 23, True),
        ("Vault.deposit", "method", 25, 28, True),
    },
    "sample.metal": {
        ("VertexOut", "struct", 4, 7, True), ("vertex_main", "function", 9, 14, True),
        ("fragment_main", "function", 16, 19, True), ("add_arrays", "function", 21, 23, True),
    },
    "Counter.vue": {
        ("Props", "interface", 10, 13, False), ("props", "constant", 15, 15, False),
        ("count", "constant", 16, 16, False), ("active", "constant", 17, 17, False),
        ("increment", "function", 19, 21, False),
    },
    "Toggle.svelte": {("dispatch", "constant", 5, 5, False), ("toggle", "function", 7, 10, False)},
    "sample.scss": {("card", "macro", 6, 9, True), ("rem", "function", 11, 13, True)},
    "sample.j2": {("field", "macro", 4, 7, True)},
}


def defined(path: Path) -> set[tuple[str, str, int, int, bool]]:
    """Each definition of a file, as `EXACT_SYMBOLS` lists them, with the language its name
    and text give it."""
    text = path.read_text()
    lang = language_for(path.name, text)
    assert lang is not None
    return {(d.qualname, d.kind, d.start_line, d.end_line, d.exported)
            for d in definitions(parse_tree(text.encode(), lang, 5.0))}


@pytest.mark.parametrize("name", sorted(EXACT_SYMBOLS))
def test_each_language_file_yields_exactly_its_definitions(name: str) -> None:
    assert defined(SYMBOL_FILES / name) == EXACT_SYMBOLS[name]


def test_components_parse_their_script_and_keep_their_markup_and_m_files_are_told_apart(tmp_path: Path) -> None:
    """A Vue or Svelte component's `<script>` gives its definitions at the file's own lines;
    its template and styles stay in the chunks, every line once; a `.m` file is Objective-C
    when it reads as that, MATLAB otherwise."""
    root = tmp_path / "app"
    root.mkdir()
    for name in ("Counter.vue", "Toggle.svelte", "sample.m"):
        shutil.copy(SYMBOL_FILES / name, root / name)
    shutil.copy(SYMBOL_FILES / "sample.mm", root / "Downloader.m")  # Objective-C in a .m file
    assert defined(root / "Downloader.m") == EXACT_SYMBOLS["sample.mm"]
    with Index(tmp_path / "c.db", IndexSettings(workers=1), embed=EmbedSettings(provider="none")) as index:
        index.add_source(root, name="app", kind="code")
        index.index()
        rows = dict(index.store.conn.execute("SELECT path, metadata FROM documents"))  # type: ignore[attr-defined]
        assert {path: json.loads(meta)["language"] for path, meta in rows.items()} == {
            "Counter.vue": "vue", "Toggle.svelte": "svelte", "Downloader.m": "objc", "sample.m": "matlab"}
        [(_, increment)] = index.graph().find("increment", limit=1)
        assert (increment.path, increment.kind, increment.start_line) == ("Counter.vue", "function", 19)
        hit = index.search("scoped active font-weight", limit=1, mode="keyword").hits[0]
        assert hit.path == "Counter.vue"  # the style block is searchable too
        for path in ("Counter.vue", "Toggle.svelte"):
            lines = (root / path).read_text().split("\n")
            chunks = sorted(index.store.conn.execute(  # type: ignore[attr-defined]
                "SELECT c.start_line, c.end_line FROM chunks c JOIN documents d ON d.id = c.document_id "
                "WHERE d.path = ?", (path,)))
            covered = [n for start, end in chunks for n in range(start, end + 1)]
            assert covered == sorted(set(covered))
            assert {n + 1 for n, line in enumerate(lines) if line.strip()} <= set(covered), path


def test_a_code_sources_prose_is_chunked_by_heading_as_a_docs_source_would(tmp_path: Path) -> None:
    """`mindex add .` on a repository registers its README and docs/ with its code: their chunks
    are its sections, each chunk's context its headings (markdown went through the code
    chunker, reStructuredText as one plain text, both without a heading), and HTML stays code."""
    root = tmp_path / "repo"
    (root / "docs").mkdir(parents=True)
    (root / "README.md").write_text("# Walrus\n\nA library.\n\n## Install\n\nRun pip.\n\n## Retries\n\n"
                                     "Back off with jitter.\n")
    (root / "docs" / "guide.rst").write_text("Guide\n=====\n\nIntro.\n\nValidators\n----------\n\n"
                                             "Pass a validator to each field.\n")
    (root / "docs" / "page.html").write_text("<div class=\"x\">{{ user.name }}</div>\n")
    (root / "app.py").write_text("def run():\n    return 1\n")
    (root / "tox.ini").write_text("[tox]\nenvlist = validator field\n")  # no known language: text, not prose
    with Index(tmp_path / "p.db", IndexSettings(workers=1), embed=EmbedSettings(provider="none")) as ix:
        ix.add_source(root, name="repo", kind="code")
        ix.index()
        chunks = ix.store.conn.execute(  # type: ignore[attr-defined]
            "SELECT d.path, c.title, c.context, c.start_line, c.id FROM chunks c "
            "JOIN documents d ON d.id = c.document_id ORDER BY d.path, c.ordinal").fetchall()
        by_path: dict[str, list[tuple[str, str, int]]] = {}
        for path, title, context, start, _ in chunks:
            by_path.setdefault(path, []).append((title, context, start))
        assert by_path["README.md"] == [("Walrus", "README.md › Walrus", 1),
                                         ("Install", "README.md › Walrus › Install", 5),
                                         ("Retries", "README.md › Walrus › Retries", 9)]
        assert by_path["docs/guide.rst"] == [("Guide", "docs/guide.rst › Guide", 1),
                                              ("Validators", "docs/guide.rst › Guide › Validators", 6)]
        html = [ix.get(cid).text for path, *_, cid in chunks if path == "docs/page.html"]
        assert html == ["<div class=\"x\">{{ user.name }}</div>"]  # the markup kept, as code
        hit = ix.search("validator field", mode="keyword").hits[0]
        assert (hit.path, hit.context, hit.kind, hit.prose) == ("docs/guide.rst", "docs/guide.rst › Guide › Validators",
                                                                "code", True)
        assert not ix.search("run", mode="keyword").hits[0].prose
        assert {h.path for h in ix.search("validator field", kind="docs", mode="keyword").hits} == {"docs/guide.rst"}
        assert {h.path for h in ix.search("validator field", kind="code", mode="keyword").hits} == {"tox.ini"}
        assert [m.line for m in ix.grep("jitter").matches] == [11]  # grep still reads the file


def test_code_nested_too_deeply_for_the_tree_walks_is_chunked_as_text(tmp_path: Path) -> None:
    """Thousands of nested brackets overflow the recursive walks of the syntax tree: the file
    is still indexed and searchable, as text, and says why (it used to be skipped whole as
    'parser failed; please report it')."""
    root = tmp_path / "deep"
    root.mkdir()
    (root / "data.js").write_text("var x = " + "[\n" * 20_000 + "]\n" * 20_000 + ";\nfunction findMe() { return 1; }\n")
    (root / "expr.py").write_text("x = " + "(\n" * 3_000 + "1" + ")\n" * 3_000 + "\ndef find_me():\n    return 1\n")
    (root / "plain.py").write_text("def shallow():\n    return 2\n")
    with Index(tmp_path / "d.db", IndexSettings(workers=1), embed=EmbedSettings(provider="none")) as ix:
        ix.add_source(root, name="deep", kind="code")
        ix.index()
        assert not ix.status()["skipped"], ix.status()["skipped"]
        rows = dict(ix.store.conn.execute("SELECT path, metadata FROM documents"))  # type: ignore[attr-defined]
        for path in ("data.js", "expr.py"):
            assert json.loads(rows[path])["parse"] == "syntax nested too deeply to follow; chunked as text"
        assert "parse" not in json.loads(rows["plain.py"])
        assert {m.path for m in ix.grep(r"function findMe|def find_me").matches} == {"data.js", "expr.py"}
        assert ix.search("find_me", mode="keyword").hits[0].path == "expr.py"
        assert [s.name for _, s in ix.graph().find("shallow")] == ["shallow"]  # the rest still has its graph


def test_a_parse_past_its_time_limit_stops_and_the_file_is_chunked_as_text(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """tree-sitter honours the time limit only when it reads through a callback (it ignores
    it for bytes): a parse past the limit raises ParseTimeout, and the code source keeps the
    file as text chunks with the reason, its words still searchable."""
    lang = language_for("big.py")
    assert lang is not None
    big = b"".join(b"def f%d(a, b):\n    return helper(a) + b\n\n" % n for n in range(20_000))
    with pytest.raises(ParseTimeout):
        parse_tree(big, lang, 1e-4)
    tree = parse_tree(big, lang, 60.0)
    assert tree.src == big and tree.root.type == "module"
    assert {d.name for d in definitions(tree)} >= {"f0", "f19999"}

    root = tmp_path / "slow"
    root.mkdir()
    (root / "big.py").write_bytes(big)
    task = LoadTask("slow", str(root), FileEntry("big.py", str(root / "big.py"), len(big), 1), None, 1500, 0)
    monkeypatch.setattr(code_source, "PARSE_TIMEOUT", 1e-4)
    doc = code_source.load(task)
    assert isinstance(doc, Document)
    assert doc.metadata["parse"] == "parsing took longer than 0.0001 s; chunked as text"
    assert not doc.symbols and not doc.refs and doc.chunks
    assert any("def f19999(a, b):" in c.text for c in doc.chunks)


ARROWS = '''import React from "react";

export const Button = ({ label }: Props) => {
  const handle = () => console.log(label);
  return <button onClick={handle}>{label}</button>;
};

const helper = function (x: number) {
  return x * 2;
};

export const LIMIT = 5;

export function Card({ title }: { title: string }) {
  return <div>{title}</div>;
}
'''


def test_a_function_bound_to_a_const_is_a_definition_and_a_chunk_of_its_own() -> None:
    """React components and hooks are written `export const Button = (...) => {...}`: they
    were statements of the file's head chunk (context `Button.tsx`, no name); each is now a
    definition with its own chunk, named as the `function` form is."""
    tsx = language_for("Button.tsx")
    assert tsx is not None
    tree = parse_tree(ARROWS.encode(), tsx, 5.0)
    assert {(d.qualname, d.kind, d.start_line, d.end_line, d.exported) for d in definitions(tree)} == {
        ("Button", "function", 3, 6, True), ("Button.handle", "function", 4, 4, False),
        ("helper", "function", 8, 10, False), ("LIMIT", "constant", 12, 12, True), ("Card", "function", 14, 16, True)}
    chunks = chunk_code(ARROWS, parse_tree(ARROWS.encode(), tsx, 5.0), budget=600)
    titled = {c.symbol: (c.start_line, c.end_line, c.context) for c in chunks if c.symbol}
    assert titled["Button"] == (3, 6, ("Button({ label }: Props)",))
    assert titled["helper"] == (8, 10, ("helper(x: number)",))
    assert titled["Card"][:2] == (14, 16)


def test_a_class_field_holding_a_function_is_a_method() -> None:
    """`handle = (e) => ...` in a class (a method that keeps `this`, as React class
    components and Angular services write them) was no definition; a field holding a value
    stays none."""
    source = ("export class Panel {\n  handle = (e: Event) => {\n    return this.run(e);\n  };\n"
              "  private count = 0;\n  private reset = function () { return 0; };\n  run(e: Event) { return e; }\n}\n")
    for name, text in (("p.ts", source), ("p.js", source.replace(": Event", "").replace("private ", ""))):
        lang = language_for(name)
        assert lang is not None
        found = {(d.qualname, d.kind, d.start_line, d.end_line) for d in definitions(parse_tree(text.encode(), lang, 5.0))}
        assert found == {("Panel", "class", 1, 8), ("Panel.handle", "method", 2, 4), ("Panel.reset", "method", 6, 6),
                         ("Panel.run", "method", 7, 7)}, name


def test_a_cpp_name_nested_deep_in_template_arguments_is_named_in_linear_time() -> None:
    """`void A<A<...>>::f()` is `A.f`: the template's arguments were taken out one nesting level
    a pass, quadratic in the name (200,000 levels: minutes); one pass now, the same names."""
    from mindex.parse.code import _cpp_qualified

    assert _cpp_qualified("A<" * 200_000 + "x" + ">" * 200_000 + "::f") == "A.f"
    assert [_cpp_qualified(n) for n in ("ns::Foo<T>::bar", "a::b<c<d>, e<f>>::g", "Foo::operator<<", "A>b<c>::f")] \
        == ["ns.Foo.bar", "a.b.g", "Foo.operator<<", "A>b.f"]

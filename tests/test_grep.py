"""`mindex grep`: the same lines as ripgrep on the same files, narrowed by the trigram index."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from mindex import Index
from mindex.errors import ConfigError
from mindex.grep import compile_pattern, match_lines, required, trigram_query
from mindex.serve.cli import cli

# The test extra's ripgrep wheel puts rg next to this Python; a system rg works too.
RG = shutil.which("rg", path=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
FILES = {
    "src/app/handlers.py": (
        "import os\n\n\ndef login_handler(request):\n    return request.user\n\n\n"
        "def logout_handler(request):\n    # TODO: clear the session\n    return None\n\n\n"
        "class SessionError(Exception):\n    pass\n"
    ),
    "src/app/client.js": (
        "export function retryWithBackoff(fn, tries) {\n  for (let i = 0; i < tries; i++) {\n"
        "    try { return fn(); } catch (e) { sleep(2 ** i); }\n  }\n}\n\n"
        "// todo: jitter\nconst MAX_TRIES = 5;\n"
    ),
    "src/net/conn.go": (
        "package net\n\nimport \"errors\"\n\nvar ErrClosed = errors.New(\"closed\")\n\n"
        "func (c *Conn) Close() error {\n\tif c.closed {\n\t\treturn ErrClosed\n\t}\n\treturn nil\n}\n"
    ),
    "src/net/pool.rs": "pub struct Pool;\n\nimpl Pool {\n    pub fn get(&self) -> u8 { 1 }\n}\n// TODO remove\n",
    "docs/notes.txt": "Ünïcode café naïve\nπ ≈ 3.14159\nlast line without newline",
    "README.md": "# Demo\n\nA retry handler demo.\n\n\n",
}
PATTERNS = [
    r"def \w+_handler\(", r"(?i)todo", r"TODO", r"retry|Backoff", r"^\s*return", r"\bPool\b", r"café",
    r"[0-9]+\.[0-9]+", r"^$", r"errors\.New\(", r"Session(Error)?", r"\w+\d", r"line$", r"c\.closed",
    r"(?:login|logout)_handler", r"[A-Z_]{4,}", r"\t\treturn", r"naïve",
    # a newline is never part of a match, also where `\s` or `[^x]` could take one; Unicode
    # letters are word characters (the RE2 prefilter admits every non-ASCII character)
    r"\s+$", r"\)\s*$", r"\w+é", r"[^\x00-\x7f]+", r"(?i)CAFÉ", r"\bna\w+\b", r"\W\d", r"[^a-z ]{3}",
    # three fixed strings or more: each file is searched for those whose trigrams it holds
    # (`todo` in client.js holds TODO's, case aside); a run of capitals with no literal
    r"TODO|Pool|errors", r"TODO|MAX_TRIES|Conn\)|SessionError", r"[A-Z_]{9,}", r"[A-Z]{3}_[A-Z]+",
]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def grep_index(index: Index, tree: Path) -> Index:
    index.add_source(tree, name="tree", kind="code")
    index.index()
    return index


def _rg(tree: Path, pattern: str, *flags: str) -> list[tuple[str, int, str]]:
    assert RG is not None, "ripgrep is a test dependency: pip install -e '.[test]' (or apt install ripgrep)"
    done = subprocess.run([RG, "--json", "--sort", "path", "--no-config", *flags, "-e", pattern, "."],
                          cwd=tree, capture_output=True, text=True, check=False)
    assert done.returncode in (0, 1), done.stderr
    rows = []
    for line in done.stdout.splitlines():
        event = json.loads(line)
        if event["type"] == "match":
            data = event["data"]
            path = data["path"]["text"].removeprefix("./")
            for k, text in enumerate(data["lines"]["text"].removesuffix("\n").split("\n")):
                rows.append((path, data["line_number"] + k, text))
    return rows


def _ours(index: Index, pattern: str, **options: object) -> list[tuple[str, int, str]]:
    result = index.grep(pattern, limit=10_000, **options)
    return [(m.path, m.line + k, text) for m in result.matches for k, text in enumerate(m.text.split("\n"))]


@pytest.mark.parametrize("pattern", PATTERNS)
def test_grep_reports_the_lines_ripgrep_reports(grep_index: Index, tree: Path, pattern: str) -> None:
    ours = _ours(grep_index, pattern)
    assert ours == _rg(tree, pattern)


def test_each_match_is_a_whole_grep_match(grep_index: Index) -> None:
    """Matches are made without the dataclass's `__init__` (a fast path): each has every
    field, equals and hashes like one made the usual way, and stays frozen."""
    import dataclasses

    from mindex.grep import GrepMatch

    matches = grep_index.grep(r"return", limit=100, before=1).matches
    assert len(matches) >= 4
    names = [f.name for f in dataclasses.fields(GrepMatch)]
    for match in matches:
        assert list(match.__dict__) == names
        usual = GrepMatch(**{name: getattr(match, name) for name in names})
        assert match == usual and hash(match) == hash(usual) and match.to_dict() == usual.to_dict()
        with pytest.raises(dataclasses.FrozenInstanceError):
            match.line = 0  # type: ignore[misc]
    assert {m.symbol for m in matches} >= {"login_handler", "Conn.Close"} and all(m.chunk_id for m in matches)


@pytest.mark.parametrize(("pattern", "options", "flags"), [
    ("todo", {"ignore_case": True}, ("-i",)),
    ("TODO", {"smart_case": True}, ("-S",)),
    ("todo", {"smart_case": True}, ("-S",)),
    ("2 ** i", {"fixed": True}, ("-F",)),
    ("Pool", {"word": True}, ("-w",)),
    (r"try:?\s*\{ return", {"multiline": True}, ("-U",)),
    (r"\{\n\s+for", {"multiline": True}, ("-U",)),
    (r"if c\.closed \{\n\t\treturn ErrClosed\n\t\}", {"multiline": True}, ("-U",)),
])
def test_flags_mean_what_they_mean_in_ripgrep(grep_index: Index, tree: Path, pattern: str,
                                               options: dict[str, bool], flags: tuple[str, ...]) -> None:
    ours = _ours(grep_index, pattern, **options)
    assert ours, "each of these patterns matches the fixture"
    assert ours == _rg(tree, pattern, *flags)


def test_required_literals_narrow_candidates_and_patterns_without_them_scan() -> None:
    assert required(compile_pattern(r"def \w+_handler\(")) == ["def ", "_handler("]
    assert required(compile_pattern(r"\w+\d")) == []
    assert required(compile_pattern(r"foo|barbaz")) == [(["foo"], ["barbaz"])]
    assert required(compile_pattern(r"(ab|x)yz")) == []  # 'x' + 'yz' needs nothing of 3 characters
    assert required(compile_pattern(r"class (Foo|Bar)Thing")) == ["class ", (["Foo"], ["Bar"]), "Thing"]
    assert required(compile_pattern(r"(retry)+ing")) == ["retry", "ing"]
    assert required(compile_pattern(r"(?:abc)?def")) == ["def"]
    assert trigram_query(["abcd"]) == '"abc" AND "bcd"'
    assert trigram_query([(["foo"], ["bar"])]) == '(("foo") OR ("bar"))'
    assert trigram_query([]) is None


def test_the_trigram_index_picks_files_and_a_literal_free_pattern_scans_all(grep_index: Index) -> None:
    narrowed = grep_index.grep(r"errors\.New\(")
    assert narrowed.narrowed and narrowed.files_searched == 1
    assert [(m.path, m.line) for m in narrowed.matches] == [("src/net/conn.go", 5)]
    scan = grep_index.grep(r"\w+\d")
    assert not scan.narrowed and scan.files_searched == len(FILES)


def _trigram_rows(index: Index, literal: str) -> int:
    (found,) = index.store.conn.execute("SELECT count(*) FROM code_trigrams WHERE code_trigrams MATCH ?",
                                        (trigram_query([literal]),)).fetchone()
    return int(found)


def test_the_first_grep_builds_the_trigram_index_and_indexing_keeps_it(grep_index: Index, tree: Path) -> None:
    """Indexing leaves grep's trigram index unbuilt (schema v14); the first grep builds it
    from the stored texts, and from then on writes and deletes keep it exact."""
    meta = grep_index.store.get_meta
    assert meta("trigrams") is None and _trigram_rows(grep_index, "return") == 0
    assert _ours(grep_index, "retry|Backoff") == _rg(tree, "retry|Backoff")
    assert meta("trigrams") == "ready" and _trigram_rows(grep_index, "return") == 3
    (tree / "src/net/conn.go").write_text("package net\n", encoding="utf-8")  # its returns leave
    (tree / "src/app/extra.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    (tree / "src/net/pool.rs").unlink()
    grep_index.index()
    assert _trigram_rows(grep_index, "return") == 3 and _trigram_rows(grep_index, "impl Pool") == 0
    grep_index.store.conn.execute("INSERT INTO code_trigrams (code_trigrams) VALUES ('integrity-check')")
    assert all(_ours(grep_index, p) == _rg(tree, p) for p in PATTERNS)


def test_a_grep_while_a_writer_holds_the_index_reads_every_file_and_waits_for_nothing(grep_index: Index,
                                                                                     tree: Path) -> None:
    from mindex.store.lock import WriteLock

    writer = WriteLock(grep_index.store.path, 1.0)  # as another process's index run would hold it
    writer.acquire()
    try:
        result = grep_index.grep(r"errors\.New\(")
        assert not result.narrowed and result.files_searched == len(FILES)
        assert _ours(grep_index, r"errors\.New\(") == _rg(tree, r"errors\.New\(")
        assert grep_index.store.get_meta("trigrams") is None
    finally:
        writer.release()
    assert grep_index.grep(r"errors\.New\(").narrowed and grep_index.store.get_meta("trigrams") == "ready"


def test_matches_join_their_chunk_and_symbol_and_carry_context(grep_index: Index) -> None:
    result = grep_index.grep(r"# TODO", before=1, after=1)
    (match,) = result.matches
    assert (match.path, match.line, match.column) == ("src/app/handlers.py", 9, 5)
    assert match.before == ((8, "def logout_handler(request):"),)
    assert match.after == ((10, "    return None"),)
    assert match.symbol == "logout_handler"
    (last,) = grep_index.grep(r"^    pass$", after=2).matches  # the file's last line: nothing after it
    assert (last.line, last.after) == (14, ())
    chunk = grep_index.get(match.chunk_id or "")
    assert chunk.start_line is not None and chunk.end_line is not None
    assert chunk.start_line <= 9 <= chunk.end_line and "# TODO" in chunk.text


def _functions(names: list[str], prefix: str = "") -> str:
    return "".join(f"{prefix}def {name}():\n    value = 1  # mark\n    return value\n\n\n" for name in names)


def test_chunks_kept_between_greps_follow_writes_here_and_in_another_process(index: Index, tmp_path: Path) -> None:
    """A file with many matched lines has its chunk spans kept for the next grep while nothing
    is written, and every file its definitions; an edit indexed by this process or by another
    one must not leave a match pointing at a chunk or a definition that is gone."""
    (tmp_path / "repo").mkdir()
    module, few = tmp_path / "repo" / "many.py", tmp_path / "repo" / "few.py"
    module.write_text(_functions([f"f{n}" for n in range(8)]))
    few.write_text(_functions(["a0", "a1"]))
    index.add_source(tmp_path / "repo", name="repo", kind="code")
    index.index()

    def answer(ix: Index) -> list[tuple[int, str | None, str | None]]:
        return [(m.line, m.chunk_id, m.symbol) for m in ix.grep("# mark").matches]

    def fresh() -> list[tuple[int, str | None, str | None]]:
        with Index(index.location, index.settings, embed=index.embed_settings) as other:
            return answer(other)

    first = answer(index)
    assert len(first) == 10 and first == fresh() and all(chunk for _, chunk, _ in first)
    module.write_text(_functions(["g0", "g1"]) + _functions([f"f{n}" for n in range(8)]))  # every line moves
    index.index()
    assert answer(index) == fresh() != first
    module.write_text(_functions([f"h{n}" for n in range(9)]))
    few.write_text(_functions(["b0", "b1"]))
    other = subprocess.run([sys.executable, "-c", "import sys; from mindex import Index, IndexSettings; "
                            "from mindex.config import EmbedSettings; "
                            "Index(sys.argv[1], IndexSettings(workers=1), embed=EmbedSettings(provider='none')).index()",
                            str(index.location)], capture_output=True, text=True, timeout=120)
    assert other.returncode == 0, other.stderr
    assert answer(index) == fresh()
    assert {symbol for _, _, symbol in answer(index)} == {f"h{n}" for n in range(9)} | {"b0", "b1"}


def test_caps_filters_and_edits(grep_index: Index, tree: Path) -> None:
    assert len(grep_index.grep(r"return", limit=2).matches) == 2
    assert grep_index.grep(r"return", limit=2).truncated
    per_file = grep_index.grep(r"return", max_count=1)
    assert [m.path for m in per_file.matches] == ["src/app/client.js", "src/app/handlers.py", "src/net/conn.go"]
    assert {m.path for m in grep_index.grep("return", path="src/net/**").matches} == {"src/net/conn.go"}
    assert {m.path for m in grep_index.grep("TODO", language="rust").matches} == {"src/net/pool.rs"}
    (tree / "src/net/pool.rs").write_text("pub struct Pool;\n", encoding="utf-8")
    (tree / "src/app/new.py").write_text("# TODO: new\n", encoding="utf-8")
    grep_index.index()
    assert {m.path for m in grep_index.grep("TODO").matches} == {"src/app/handlers.py", "src/app/new.py"}
    with pytest.raises(ConfigError, match="bad regex"):
        grep_index.grep("(unclosed")
    with pytest.raises(ConfigError, match="nest deeper"):  # re's parser would recurse past the limit
        grep_index.grep("(" * 2000 + "a" + ")" * 2000)


def test_line_logic_matches_ripgrep_at_the_edges() -> None:
    regex = compile_pattern("^")
    assert match_lines(regex, "a\nb\n", False) == [(1, 1, 1), (2, 2, 1)]
    assert match_lines(regex, "a\nb", False) == [(1, 1, 1), (2, 2, 1)]
    # \s+ may cross a line end in Python; grep must not, and must still find the later match
    assert match_lines(compile_pattern(r"foo\s+bar"), "foo\nbar foo  bar\n", False) == [(2, 2, 5)]
    assert match_lines(compile_pattern(r"foo\s+bar"), "foo\nbar foo  bar\n", True) == [(1, 2, 1)]
    assert match_lines(compile_pattern(r"(?<=x)y"), "x\ny\nxy\n", False) == [(3, 3, 2)]


def test_line_ends_are_read_as_editors_read_them(index: Index, tmp_path: Path) -> None:
    """Where ripgrep differs, as the README says: CRLF lines end before the CR (rg --crlf), and
    a lone CR ends a line."""
    root = tmp_path / "ends"
    root.mkdir()
    (root / "win.py").write_bytes(b"def a():\r\n    pass\r\n")
    (root / "mac.py").write_bytes(b"x = 1\ry = 2\rdef b():\r    pass\r")
    index.add_source(root, name="ends", kind="code")
    index.index()
    assert _ours(index, r"pass$") == [("mac.py", 4, "    pass"), ("win.py", 2, "    pass")]
    assert [(s.name, s.start_line) for _, s in index.graph().find("b")] == [("b", 3)]


def test_cli_prints_ripgrep_layout_and_exit_codes(grep_index: Index, tree: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tree)
    runner = CliRunner()
    db = ["--db", str(grep_index.db_path)]
    done = runner.invoke(cli, [*db, "grep", "def \\w+_handler\\(", "--path", "src/**"])
    assert done.exit_code == 0, done.output
    assert done.output.splitlines() == ["src/app/handlers.py:4:def login_handler(request):",
                                        "src/app/handlers.py:8:def logout_handler(request):"]
    done = runner.invoke(cli, [*db, "grep", "-C", "1", "ErrClosed"])
    assert done.output.splitlines() == [
        "src/net/conn.go-4-", "src/net/conn.go:5:var ErrClosed = errors.New(\"closed\")", "src/net/conn.go-6-",
        "--", "src/net/conn.go-8-\tif c.closed {", "src/net/conn.go:9:\t\treturn ErrClosed", "src/net/conn.go-10-\t}"]
    done = runner.invoke(cli, [*db, "grep", "-U", "logout_handler\\(request\\):\\n    #"])  # a match of two lines
    assert done.output.splitlines() == ["src/app/handlers.py:8:def logout_handler(request):",
                                        "src/app/handlers.py:9:    # TODO: clear the session"]
    done = runner.invoke(cli, [*db, "grep", "TODO", "-l"])
    assert done.output.splitlines() == ["src/app/handlers.py", "src/net/pool.rs"]
    done = runner.invoke(cli, [*db, "grep", "TODO", "--json"])
    data = json.loads(done.output)
    assert [(m["path"], m["line"], m["symbol"]) for m in data["matches"]] == [
        ("src/app/handlers.py", 9, "logout_handler"), ("src/net/pool.rs", 6, None)]
    assert runner.invoke(cli, [*db, "grep", "nothing-like-this"]).exit_code == 3
    bad = runner.invoke(cli, [*db, "grep", "(oops"])
    assert bad.exit_code == 1 and "bad regex" in bad.output


def test_grep_on_the_standard_library_matches_ripgrep(tmp_path: Path) -> None:
    """A real tree: the json package of this Python, against rg on the same files."""
    import sysconfig

    from mindex import IndexSettings
    from mindex.config import EmbedSettings

    root = tmp_path / "json"
    shutil.copytree(Path(sysconfig.get_paths()["stdlib"]) / "json", root,
                    ignore=shutil.ignore_patterns("__pycache__"))
    with Index(tmp_path / "std.db", IndexSettings(workers=1), embed=EmbedSettings(provider="none")) as ix:
        ix.add_source(root, name="json", kind="code")
        ix.index()
        for pattern in (r"def \w+\(self", r"raise \w+Error", r"^import ", r"(?i)json", r"[A-Z_]{6,}",
                        r"ValueError|TypeError|KeyError|JSONDecodeError", r"\d{3,}"):
            assert _ours(ix, pattern) == _rg(root, pattern, "-g", "*.py"), pattern
            assert re.compile(pattern)  # the patterns are valid Python too


# -- patterns that backtrack: a time limit, and a child process where no signal can reach ----

@pytest.mark.parametrize("pattern, expected", [
    (r"(a+)+$", True), (r"(a|aa)+$", True), (r"(.*a){25}", True), (r".*.*.*x", True), (r"(?:\w+\.)+py", True),
    (r"def \w+_handler\(", False), (r"class \w+Error\(ValueError\)", False), (r"[A-Z_]{12,}", False),
    (r'f"[^"]*\{', False), (r"retry|Backoff", False), (r"\bPool\b", False), (r".*foo.*bar", False),
    (r"(?i)todo", False), (r"(ab){2}", False),
])
def test_patterns_that_may_backtrack_are_told_apart(pattern: str, expected: bool) -> None:
    from mindex.grep import risky

    assert risky(compile_pattern(pattern)) is expected


EVIL = 'x = "' + "a" * 60 + '!"\n'
# Python's `re` tries each of the 10^12 splits of sixty a's before it gives up: years. (RE2's
# looser form, `(a|aa)+` with the lookahead dropped, finds the line, so `re` must run on it.)
EVIL_PATTERN = "(a|aa)+(?!)"


def test_cli_grep_stops_a_backtracking_pattern_at_its_time_limit(tmp_path: Path) -> None:
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "evil.py").write_text(EVIL)
    env = {**os.environ, "MINDEX_DB": str(tmp_path / "g.db"), "MINDEX_EMBED__PROVIDER": "none"}

    def mindex(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "mindex", *args], env=env, capture_output=True, text=True,
                              timeout=60)  # without the limit this would never end

    assert mindex("add", str(tmp_path / "repo"), "--kind", "code").returncode == 0
    assert mindex("index", "-q").returncode == 0
    done = mindex("grep", EVIL_PATTERN, "--timeout", "1", "--json")
    assert done.returncode == 1, done.stderr
    error = json.loads(done.stdout)["error"]
    assert error["code"] == "GREP_TIMEOUT" and "ran past 1 s" in error["message"] and "-F" in error["hint"]
    assert "evil.py:1:" in mindex("grep", "a+!", "--timeout", "1").stdout  # fine patterns still run
    # `(a|aa)+$` backtracks as long in `re`, but RE2 sees in linear time that no line can
    # match it (each ends in `!"`), so `re` never runs: no match, well inside the limit.
    ruled_out = mindex("grep", "(a|aa)+$", "--timeout", "1", "--json")
    assert ruled_out.returncode == 3, ruled_out.stderr
    answer = json.loads(ruled_out.stdout)
    assert answer["matches"] == [] and answer["files_searched"] == 1 and answer["took_ms"] < 1000


# Run in a child of the test: if the guard failed, the match would hold the GIL for good and
# only a process-level timeout could end the test.
THREADED = """
import json, sys, threading
import mindex.grep
from mindex import Index, IndexSettings
from mindex.config import EmbedSettings, Settings
from mindex.serve.mcp_server import build_server
mindex.grep.TIMEOUT = 1.0
ix = Index(sys.argv[1], IndexSettings(workers=1), embed=EmbedSettings(provider="none"))
ix.add_source(sys.argv[2], name="repo", kind="code")
ix.index()
out = {"main": ix.grep("(a+)+!").to_dict()}
def worker():
    try:
        ix.grep("(a|aa)+(?!)")
        out["evil"] = "finished"
    except Exception as exc:
        out["evil"] = type(exc).__name__
    out["thread"] = ix.grep("(a+)+!").to_dict()  # may backtrack, does not: the child's answer
    out["safe"] = ix.grep("x = ").to_dict()
thread = threading.Thread(target=worker)
thread.start()
thread.join()
ix.close()
import anyio
from mcp import Client
async def main():
    async with Client(build_server(sys.argv[1], Settings())) as client:
        bad = await client.call_tool("grep", {"pattern": "(a|aa)+(?!)"})
        good = await client.call_tool("grep", {"pattern": "x = "})
        return bad.is_error, " ".join(b.text for b in bad.content), good.is_error
out["mcp"] = anyio.run(main)
print(json.dumps(out))
"""


def test_a_backtracking_pattern_in_a_server_thread_runs_in_a_child_that_is_stopped(tmp_path: Path) -> None:
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "evil.py").write_text(EVIL)
    # The child starts in the server's working folder, a user's project: a `json.py` there
    # must not stand in for the standard library's in the child (`-P` here too, as the
    # console script that starts a server does not put its folder on the path either).
    (tmp_path / "json.py").write_text("raise SystemExit('the project stood in for the json module')\n")
    done = subprocess.run([sys.executable, "-P", "-c", THREADED, str(tmp_path / "t.db"), str(tmp_path / "repo")],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["evil"] == "GrepTimeoutError"
    for key in ("main", "thread"):
        out[key].pop("took_ms")
    assert out["thread"] == out["main"] and out["main"]["matches"][0]["line"] == 1
    assert out["safe"]["matches"][0]["path"] == "evil.py"
    bad_is_error, bad_text, good_is_error = out["mcp"]
    assert bad_is_error and "ran past 1 s" in bad_text and not good_is_error  # and the server answers on


def test_definitions_flattened_into_runs_name_each_line_as_painting_them_in_order_does() -> None:
    """`painted` gives each line the name that painting every definition over its lines, in
    order of first line (longer first), leaves there: the innermost of nested definitions,
    the later of two that overlap, the last of two alike, none between or after them."""
    import bisect
    import random

    from mindex.store.base import painted

    rng = random.Random(1127)
    for _ in range(2000):
        spans = []
        for n in range(rng.randint(0, 12)):
            start = rng.randint(1, 40)
            spans.append((start, start + rng.choice([0, 1, 3, 8, 20, 40]), f"d{n}"))
        if spans and rng.random() < 0.2:
            spans.append(spans[0][:2] + ("twin",))
        if rng.random() < 0.1:
            spans.append((30, 20, "backwards"))  # holds no line
        truth: dict[int, str] = {}
        for start, stop, name in sorted(spans, key=lambda s: (s[0], -s[1])):
            truth.update((line, name) for line in range(start, stop + 1))
        starts, names = painted(spans)
        assert starts[0] == 0 and starts == sorted(set(starts))
        for line in range(1, 100):
            assert names[bisect.bisect_right(starts, line) - 1] == truth.get(line), (spans, line)


def test_a_result_makes_its_matches_when_read_and_outlives_its_index(grep_index: Index) -> None:
    """The text layout reads `lines()` and `count`, which make no match; `matches` makes them
    (chunk and definition included) from what the grep read, so a result read after its
    index closed has them all, and the same as one read at once."""
    from mindex.grep import GrepResult

    at_once = grep_index.grep(r"return|def ", limit=1000, before=1)
    at_once_matches = list(at_once.matches)
    later = grep_index.grep(r"return|def ", limit=1000, before=1)
    shown = list(later.lines())
    assert later.count == len(shown) == len(at_once_matches) >= 6
    grep_index.close()
    assert later.matches == at_once_matches
    assert shown == [(m.source, m.path, m.line, m.text) for m in later.matches] == list(later.lines())
    assert all(m.chunk_id for m in later.matches) and {m.symbol for m in later.matches} >= {"login_handler"}
    assert later.count == len(later.matches)
    copied = GrepResult.from_dict(later.to_dict())
    assert copied.matches == later.matches and copied.to_dict() == later.to_dict() and "login_handler" in repr(copied)
    assert GrepResult(later.pattern, later.matches, later.files_searched, later.narrowed, later.truncated,
                      later.took_ms, later.note) == later


def test_a_long_lived_process_sees_files_written_since_its_last_grep(grep_index: Index, tree: Path) -> None:
    """The list of code files is kept between greps while nothing is written: a file indexed
    since, by this process or another, is searched by the next grep, and a removed one is not."""
    before = len(grep_index.grep("zebra_marker").matches)
    assert before == 0
    (tree / "zoo.py").write_text("def zebra_marker():\n    return 1\n", encoding="utf-8")
    grep_index.index()  # this process writes
    assert [m.path for m in grep_index.grep("zebra_marker").matches] == ["zoo.py"]
    (tree / "zoo2.py").write_text("zebra_marker = 2\n", encoding="utf-8")
    env = {**os.environ, "MINDEX_DB": str(grep_index.store.path), "MINDEX_EMBED__PROVIDER": "none",
           "MINDEX_BACKGROUND": "0"}
    subprocess.run([sys.executable, "-m", "mindex", "index", "-q"], env=env, check=True, capture_output=True)
    assert sorted(m.path for m in grep_index.grep("zebra_marker").matches) == ["zoo.py", "zoo2.py"]  # another did
    (tree / "zoo.py").unlink()
    subprocess.run([sys.executable, "-m", "mindex", "index", "-q"], env=env, check=True, capture_output=True)
    assert [m.path for m in grep_index.grep("zebra_marker").matches] == ["zoo2.py"]

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from mindex.serve.cli import cli
from mindex.store import SCHEMA_VERSION


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest) -> str:
    """The end-to-end CLI tests run on both backends: on postgres, MINDEX_DB names a fresh
    database (a test's own --db still wins)."""
    return str(request.param)


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, backend: str, db_target: Path | str):  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    if backend == "postgres":
        monkeypatch.setenv("MINDEX_DB", str(db_target))
    runner = CliRunner()

    def invoke(*args: str, code: int = 0) -> str:
        result = runner.invoke(cli, list(args), catch_exceptions=False)
        assert result.exit_code == code, result.output + result.stderr
        return result.stdout + (result.stderr if code else "")

    return invoke


def test_add_index_search_get_sources_status_remove(run, docs_dir: Path, tmp_path: Path, backend: str) -> None:  # type: ignore[no-untyped-def]
    assert "Added source docs" in run("add", str(docs_dir))
    # the default store is a file in the project root; with a server, no file is made
    assert (tmp_path / ".mindex" / "index.db").exists() == (backend == "sqlite")
    summary = json.loads(run("index", "--json", "-q"))
    assert summary["docs"]["added"] == 7 and summary["docs"]["skipped"] == []
    text = run("search", "connection pool", "--limit", "3")
    assert "guide/pooling.md:1-" in text and "keyword" in text
    data = json.loads(run("search", "connection pool", "--json"))
    assert data["mode"] == "keyword" and data["results"][0]["path"] == "guide/pooling.md"
    chunk = json.loads(run("get", data["results"][0]["id"], "--json"))
    assert chunk["text"] == data["results"][0]["text"] and "score" not in chunk
    assert "idle connections" in run("get", data["results"][0]["id"])
    listed = json.loads(run("sources", "--json"))["sources"]
    assert listed[0]["name"] == "docs" and listed[0]["documents"] == 7
    status = json.loads(run("status", "--json"))
    assert status["documents"] == 7 and status["schema_version"] == SCHEMA_VERSION
    compacted = json.loads(run("compact", "--json"))  # SQLite: merged and rewritten; PostgreSQL: VACUUM (ANALYZE)
    assert set(compacted) == {"db", "before_bytes", "after_bytes", "seconds"} and compacted["after_bytes"] > 0
    assert "given back" in run("compact")
    assert json.loads(run("search", "connection pool", "--json"))["results"][0]["path"] == "guide/pooling.md"
    assert "Removed source docs" in run("remove", "docs")
    assert json.loads(run("search", "pool", "--json"))["results"] == []


def test_project_root_is_found_from_a_subfolder(run, docs_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    run("add", str(docs_dir))
    run("index", "-q")
    monkeypatch.chdir(docs_dir / "guide")
    assert json.loads(run("search", "retries", "--json"))["results"]


def test_db_flag_and_environment_choose_the_store(run, docs_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    run("--db", str(tmp_path / "custom.db"), "add", str(docs_dir))
    assert (tmp_path / "custom.db").exists()
    monkeypatch.setenv("MINDEX_DB", str(tmp_path / "custom.db"))
    assert json.loads(run("sources", "--json"))["sources"][0]["name"] == "docs"
    monkeypatch.setenv("MINDEX_DB", str(docs_dir))  # a folder, given by mistake
    assert f"{docs_dir} is a folder, not an index file" in run("status", code=1)
    assert not (docs_dir / "index.db").exists()


def test_exit_codes_mean_something(run, docs_dir: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    assert "mindex add" in run("search", "x", code=1)  # no index yet: says how to make one
    run("add", str(docs_dir))
    assert "matches no chunk" in run("get", "ffffffffffffffff", code=3)
    assert "no source named" in run("remove", "nope", code=3)
    assert "semantic search is unavailable" in run("search", "x", "--mode", "semantic", code=1)
    run("search", "x", "--limit", "0", code=2)
    docs_dir.rename(tmp_path / "elsewhere")
    assert "missing or not a folder" in run("index", "-q", code=1)


def test_index_summary_lists_skipped_files_with_reasons(run, docs_dir: Path) -> None:  # type: ignore[no-untyped-def]
    (docs_dir / "blob.md").write_bytes(b"\x00\x01binary")
    run("add", str(docs_dir))
    quiet = run("index", "-q")
    assert quiet.count("\n") == 1 and "7 added" in quiet and "1 skipped" in quiet
    (docs_dir / "blob2.md").write_bytes(b"\x00\x02binary")
    text = run("index")
    assert "skipped docs: 2 binary content in a .md file" in text and "blob.md" not in text
    assert "2 files skipped: 2 binary content in a .md file" in run("status")
    listed = run("status", "--skipped")
    assert "docs/blob.md: binary content in a .md file" in listed and "docs/blob2.md" in listed
    data = json.loads(run("index", "--json", "-q"))
    assert data["docs"]["skipped"] == [{"path": f"blob{n}.md", "reason": "binary content in a .md file"} for n in ("", "2")]


def test_the_index_summary_fits_80_columns_with_every_heading_and_name_whole(  # type: ignore[no-untyped-def]
        run, docs_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run("add", str(docs_dir), "--name", "knowledge")  # as long as the memory folders' source names
    lines = run("index").splitlines()  # without a terminal, rich writes 80 columns
    header = next(line for line in lines if "source" in line)
    assert header.split() == ["source", "added", "updated", "unchanged", "removed", "chunks", "embedded", "skipped", "time"]
    row = next(line for line in lines if line.split()[:1] == ["knowledge"])
    assert row.split()[1:4] == ["7", "0", "0"] and max(map(len, lines)) <= 80
    monkeypatch.setenv("COLUMNS", str(len(str(docs_dir)) + 40))  # room for the path beside the counts
    listed = run("sources").splitlines()  # the folder's path whole on its line, for copying
    assert any(line.split()[:1] == ["knowledge"] and line.rstrip().endswith(str(docs_dir)) for line in listed), listed


def test_a_long_query_is_echoed_by_its_start(run, docs_dir: Path) -> None:  # type: ignore[no-untyped-def]
    run("add", str(docs_dir))
    run("index", "-q")
    pasted = "zebrafish " * 500  # an issue's whole text, pasted
    said = run("search", pasted)
    assert said.startswith("No results for zebrafish zebrafish") and "…" in said and len(said) < 400
    import os

    from mindex import Index
    from mindex.serve.render import search_markdown

    with Index(os.environ.get("MINDEX_DB") or Path(".mindex/index.db"), create=False) as ix:
        text = search_markdown(ix.search("connection pool " + pasted, limit=3), 2000)
    assert text.splitlines()[0].count("zebrafish") < 20


def test_numbers_that_are_not_finite_are_usage_errors(run, docs_dir: Path) -> None:  # type: ignore[no-untyped-def]
    """click's ranges let nan through (every comparison with it is false): grep's time limit
    and memory's day count then crashed with a traceback, a nan weight ranked at random."""
    run("add", str(docs_dir))
    run("index", "-q")
    for args in (("grep", "pool", "--timeout", "nan"), ("grep", "pool", "--timeout", "1e308"),
                 ("memory", "search", "x", "--days", "nan"), ("memory", "search", "x", "--days", "1e999"),
                 ("search", "pool", "--weights", "keyword=nan"), ("search", "pool", "--weights", "keyword=inf"),
                 ("graph", "impact", "x", "--min-confidence", "nan")):
        said = run(*args, code=2)
        assert "Invalid value for" in said and "Traceback" not in said, args


def test_invalid_config_is_reported_with_the_key(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / ".mindex").mkdir()
    (tmp_path / ".mindex" / "config.toml").write_text("[index]\nchunk_size = 10\n")
    assert "index.chunk_size" in run("sources", code=1)


def test_every_command_has_help_with_a_description() -> None:
    runner = CliRunner()
    assert isinstance(cli, click.Group)
    with click.Context(cli) as ctx:
        commands = {name: cli.get_command(ctx, name) for name in cli.list_commands(ctx)}
    assert {"search", "grep", "graph", "memory", "changelog", "eval"} <= set(commands)
    for name, command in commands.items():
        assert command is not None and command.name == name, name
        result = runner.invoke(cli, [name, "--help"])
        assert result.exit_code == 0 and (command.help or "").strip(), name
        for sub, subcommand in getattr(command, "commands", {}).items():
            result = runner.invoke(cli, [name, sub, "--help"])
            assert result.exit_code == 0 and (subcommand.help or "").strip(), f"{name} {sub}"
    readme = (Path(__file__).parents[1] / "README.md").read_text()
    for name in commands:
        assert f"mindex {name}" in readme, f"README does not document `mindex {name}`"


def _leaves(group: click.Group, ctx: click.Context, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], click.Command]]:
    found = []
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, name
        if isinstance(command, click.Group):
            found += _leaves(command, ctx, (*path, name))
        elif not command.hidden:
            found.append(((*path, name), command))
    return found


def test_every_command_shows_examples_that_its_parser_accepts() -> None:
    """34 of 73 commands had no examples though the README said all did. Each example line
    must run this very command, and its arguments must parse (an option renamed since would
    fail here)."""
    import shlex

    with click.Context(cli) as ctx:
        leaves = _leaves(cli, ctx)
    assert len(leaves) > 70
    for path, command in leaves:
        help_text = command.help or ""
        assert "Examples:" in help_text, " ".join(path)
        examples = [line.strip() for line in help_text.split("Examples:", 1)[1].splitlines() if line.strip()]
        assert examples, " ".join(path)
        for example in examples:
            tokens: list[str] = []
            for token in shlex.split(example.replace("$(", "").replace(")\"", "\""), comments=True):
                tokens += shlex.split(token) if token.startswith("mindex ") else [token]  # "$(mindex ...)"
            segments: list[list[str]] = [[]]
            for token in tokens:
                if token in ("|", ";", "&&", "||", ">", ">>", "<"):
                    segments.append([])
                else:
                    segments[-1].append(token)
            runs = [seg[seg.index("mindex") + 1:] for seg in segments if "mindex" in seg]
            if not runs:
                continue  # a line that continues the one above
            ours = []
            for words in runs:
                while words and words[0] in ("--db", "-v", "-vv"):  # global options come first
                    words = words[2:] if words[0] == "--db" else words[1:]
                if tuple(words[: len(path)]) == path:
                    ours.append(words[len(path):])
            assert ours, (path, example)
            for args in ours:
                try:
                    command.make_context(" ".join(path), list(args), parent=ctx)
                except click.ClickException as exc:
                    if "does not exist" not in exc.format_message():  # an example's file is not here: fine
                        raise AssertionError(f"`{example}` does not parse: {exc.format_message()}") from None


def test_completion_scripts_complete_commands_subcommands_and_options(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    for shell in ("bash", "zsh", "fish"):
        script = CliRunner().invoke(cli, ["completion", shell])
        assert script.exit_code == 0 and "_MINDEX_COMPLETE" in script.output, shell
    assert CliRunner().invoke(cli, ["completion", "tcsh"]).exit_code == 2

    def complete(*words: str) -> list[str]:
        env = {**os.environ, "COMP_WORDS": " ".join(("mindex", *words)), "COMP_CWORD": str(len(words)),
               "_MINDEX_COMPLETE": "bash_complete"}
        done = subprocess.run([sys.executable, "-m", "mindex"], env=env, capture_output=True, text=True, cwd=tmp_path)
        return [line.split(",", 1)[1] for line in done.stdout.splitlines()]

    assert complete("gra") == ["graph"]
    assert complete("graph", "cal") == ["callees", "callers"]
    assert "--min-confidence" in complete("graph", "callers", "x", "--min")
    assert complete("completion", "") == ["bash", "zsh", "fish"]


def test_recorded_help_of_lazy_commands_reads_as_their_own() -> None:
    """`mindex --help` lists the commands of other modules from recorded sentences; each must
    shorten to what the command's own help gives, at every width, and name the command."""
    from mindex.serve.cli import LAZY_COMMANDS

    with click.Context(cli) as ctx:
        for name, (_, recorded) in LAZY_COMMANDS.items():
            command = cli.get_command(ctx, name)
            assert command is not None and not command.hidden, name
            stand_in = click.Command(name, help=recorded)
            for width in range(10, 200):
                assert stand_in.get_short_help_str(width) == command.get_short_help_str(width), (name, width)


def test_query_commands_offer_json() -> None:
    for name in ("search", "get", "sources", "status", "index", "add", "remove", "serve"):
        command = cli.get_command(click.Context(cli), name)
        assert command is not None and any(p.name == "as_json" for p in command.params), name


def test_serve_says_why_it_cannot_start_in_json(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = run("serve", "--http", "--tokens", str(tmp_path / "missing.toml"), "--json", code=1)
    error = json.JSONDecoder().raw_decode(out)[0]["error"]
    assert error["code"] == "CONFIG_ERROR" and "missing.toml" in error["message"] and "--tokens" in error["hint"]
    import socket

    with socket.socket() as taken:  # a port another program listens on
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        out = run("serve", "--http", "--port", str(port), "--json", code=1)
    error = json.JSONDecoder().raw_decode(out)[0]["error"]
    assert error["message"] == f"cannot listen on 127.0.0.1:{port}: Address already in use"
    assert error["hint"] == "pick another --port, or stop what holds that one"


def test_explain_shows_recency_merges_and_hops_without_failing(  # type: ignore[no-untyped-def]
    run, docs_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MINDEX_SEARCH__HALF_LIFE_DAYS", '{"docs": 10}')
    run("add", str(docs_dir))
    run("index", "-q")
    text = run("search", "connection pool retries", "--explain", "--merge", "--hops", "1")
    assert "recency ×" in text and "age" in text
    data = json.loads(run("search", "connection pool retries", "--json", "--merge"))
    assert all("recency" in hit["explain"] for hit in data["results"])


def test_indexed_text_and_paths_print_literally(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Rich markup and emoji codes in a file or a path are text, not styling."""
    folder = tmp_path / "[bold]docs"
    folder.mkdir()
    (folder / "marks.md").write_text("# Marks :x:\n\nThe zebra says [bold]hi[/bold] :thumbs_up: [red] end.\n")
    code = tmp_path / "code"
    code.mkdir()
    (code / "m.py").write_text("def zebra_fn():\n    return '[bold]x[/bold] :x:'\n")
    assert "[bold]docs" in run("add", str(folder))
    run("add", str(code), "--kind", "code")
    run("index", "-q")
    for text in (run("search", "zebra"), run("search", "zebra", "--explain")):
        assert ":x:" in text and "[bold]hi[/bold]" in text and "❌" not in text and "👍" not in text
    hit = json.loads(run("search", "zebra says", "--json", "--kind", "docs"))["results"][0]
    shown = run("get", hit["id"])
    assert "[bold]hi[/bold] :thumbs_up: [red] end." in shown and "Marks :x:" in shown
    assert "'[bold]x[/bold] :x:'" in run("grep", "zebra|bold")


def test_control_characters_in_indexed_text_cannot_drive_the_terminal(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A file's ESC sequences (window title, clear screen, colours) and BEL print as visible
    escapes in every terminal output; JSON keeps the text as it is."""
    folder = tmp_path / "docs"
    folder.mkdir()
    hostile = "walrus \x1b]0;pwned\x07 title \x1b[2J cleared \x1b[31mred\x1b[0m end"
    (folder / "e.md").write_text(f"# Title\n\n{hostile}\n")
    (folder / "e.py").write_text(f"def walrus_fn():\n    return '{hostile}'\n")
    run("add", str(folder))
    run("add", str(folder), "--kind", "code", "--name", "code")
    run("index", "-q")
    hit = json.loads(run("search", "walrus title", "--json", "--kind", "docs"))["results"][0]
    assert hostile in hit["text"]
    for shown in (run("search", "walrus title"), run("get", hit["id"]), run("grep", "walrus"), run("grep", "-l", "pwned")):
        assert "\x1b" not in shown and "\x07" not in shown, shown
    assert "walrus \\x1b]0;pwned\\x07 title \\x1b[2J" in run("get", hit["id"])
    assert "\\x1b[31mred" in run("grep", "walrus")


def test_short_ids_and_single_counts_read_right(run, docs_dir: Path) -> None:  # type: ignore[no-untyped-def]
    run("add", str(docs_dir))
    run("index", "-q")
    assert "prefix needs 6 or more characters" in run("get", "63", code=3)
    assert "1 result ·" in run("search", "HTTPS_PROXY corporate proxy", "--limit", "1")
    assert "1 source · 7 documents" in run("status")


CORE_ONLY = r"""
import sys
sys.modules["onnxruntime"] = None  # as in a core install: `pip install mindex` without the models extra
sys.modules["tokenizers"] = None
from mindex.serve.cli import main
sys.argv = ["mindex", *sys.argv[1:]]
main()
"""


def test_a_core_install_without_onnxruntime_indexes_and_searches_by_keyword(docs_dir: Path, tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    env = {key: value for key, value in os.environ.items() if not key.startswith("MINDEX_")}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", CORE_ONLY, "--db", str(tmp_path / "core.db"), *args],
                              capture_output=True, text=True, env=env)

    assert run("add", str(docs_dir)).returncode == 0
    indexed = run("index")
    assert indexed.returncode == 0, indexed.stderr
    found = run("search", "configure retries", "--json")
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)["mode"] == "keyword"
    assert "pip install '.[models]'" in found.stderr  # the note says how to search by meaning
    semantic = run("search", "configure retries", "--mode", "semantic", "--json")
    assert semantic.returncode != 0 and "'.[models]'" in semantic.stdout


def test_a_server_url_as_db_is_a_server_and_creates_no_file(run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    for args in (["--db", "postgresql://user:secret@127.0.0.1:9/mindex", "status", "--json"],
                 ["--db", "postgresql://user:secret@127.0.0.1:9/mindex", "add", str(tmp_path), "--json"],
                 ["--db", "postgresql://user@127.0.0.1:9/mindex?sslmode=disable&password=secret", "status", "--json"]):
        error = json.JSONDecoder().raw_decode(run(*args, code=1))[0]["error"]  # nothing listens on port 9
        assert error["code"] == "STORE_ERROR" and "cannot connect to postgresql://user" in error["message"]
        assert "***" in error["message"] and "secret" not in json.dumps(error)  # the password never shown
    error = json.JSONDecoder().raw_decode(run("--db", "mysql://user@localhost/mindex", "status", "--json", code=1))[0]
    assert error["error"]["code"] == "CONFIG_ERROR" and "names a mysql server" in error["error"]["message"]
    assert list(tmp_path.iterdir()) == []  # no `postgresql:` folder, no index file


def test_an_empty_query_is_a_usage_error_not_an_empty_answer(tmp_path: Path) -> None:
    """`mindex search "$UNSET"` says the query is empty (exit 2, a JSON error with --json),
    as the MCP tools do, instead of quietly finding nothing."""
    import subprocess
    import sys

    def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "mindex", "--db", str(tmp_path / "e.db"), *args],
                              input=stdin, capture_output=True, text=True)

    for args in (["search", ""], ["search", "  \n"], ["locate", ""], ["memory", "search", " "],
                 ["changelog", "search", ""], ["symbols", "find", ""]):
        done = run(*args, "--json")
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        error = json.loads(done.stdout)["error"]
        assert error["code"] == "USAGE" and "empty" in error["message"], args
        plain = run(*args)
        assert plain.returncode == 2 and "give the words, question or identifier" in plain.stderr
    piped = run("locate", "-", "--json", stdin="   \n")
    assert piped.returncode == 2 and "standard input was empty" in json.loads(piped.stdout)["error"]["message"]
    # left out altogether: click's own message, which names the argument (click 8.3 and later
    # skipped it for an argument declared with `default=None`: "query must be text")
    for args, name in ((["search"], "QUERY"), (["locate"], "QUESTION"), (["symbols", "find"], "NAME"),
                       (["graph", "callers"], "SYMBOL"), (["grep"], "PATTERN"), (["get"], "CHUNK_ID"),
                       (["changelog", "search"], "QUERY")):
        done = run(*args, "--json")
        assert done.returncode == 2 and json.loads(done.stdout)["error"]["message"] == f"Missing argument '{name}'.", args
        assert f"Missing argument '{name}'" in run(*args).stderr
    assert not (tmp_path / "e.db").exists()  # refused before any index was opened


def test_the_index_folder_keeps_itself_out_of_git_from_the_first_add(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`mindex add . && mindex index` in a repository, then `git add -A`: the index and its
    locks stay out of the commit (the .gitignore is written when .mindex/ is made, not at
    the first memory save)."""
    import subprocess

    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "app.py").write_text("def main():\n    return 1\n")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    runner = CliRunner()
    monkeypatch.chdir(repo)
    for args in (["add", ".", "--kind", "code"], ["index", "-q"]):
        done = runner.invoke(cli, args, catch_exceptions=False)
        assert done.exit_code == 0, done.output
    assert (repo / ".mindex" / "index.db").is_file()
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    staged = subprocess.run(["git", "diff", "--cached", "--name-only"], cwd=repo, capture_output=True, text=True,
                            check=True).stdout.split()
    assert staged == [".mindex/.gitignore", "src/app.py"]


def _sqlite_cli() -> Any:
    """`run(*args)`: the CLI in process on the working folder's index (no backend fixture),
    asserting success and giving its stdout."""
    runner = CliRunner()

    def run(*args: str) -> str:
        done = runner.invoke(cli, list(args), catch_exceptions=False)
        assert done.exit_code == 0, done.output
        return done.stdout

    return run


def test_every_command_shows_files_as_you_open_them_and_names_the_source_when_there_are_several(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With two sources holding `api.rst`, search printed `api.rst:9-13` for both and grep
    `docs/api.rst`: now every command prints the path from the working folder (absolute
    outside it), with the source beside it."""
    for name in ("docs", "api"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "api.rst").write_text("Command line\n============\n\nThe walrus option.\n")
        (tmp_path / name / "tool.py").write_text("def walrus_option():\n    return 1\n")
    monkeypatch.chdir(tmp_path)
    run = _sqlite_cli()

    run("add", "docs")
    run("add", "api", "--kind", "code")
    run("index", "-q")
    text = run("search", "walrus option", "--kind", "docs")
    assert "docs/api.rst:1-4  docs · " in text
    code = run("search", "walrus option", "--kind", "code")
    assert "api/tool.py:1-2  api · " in code
    hit = json.loads(run("search", "walrus option", "--json"))["results"][0]
    assert hit["path"] in ("api.rst", "tool.py") and hit["source"] in ("docs", "api")  # JSON: as stored
    assert f"{hit['source']}/{hit['path']}:" in run("get", hit["id"])
    assert "api/tool.py:1:def walrus_option():" in run("grep", "walrus_option")
    assert "api/tool.py (api):1-2" in run("symbols", "find", "walrus_option")
    # `symbols NAME` is `symbols find NAME`, options first or last
    assert run("symbols", "walrus_option") == run("symbols", "find", "walrus_option")
    assert json.loads(run("symbols", "--json", "walrus_option"))["symbols"][0]["name"] == "walrus_option"
    assert "1. api/tool.py  api · score" in run("locate", "where is the walrus option defined", "--kind", "code")
    monkeypatch.chdir(tmp_path / "docs")
    inside = run("search", "walrus option", "--kind", "docs")
    assert "1. api.rst:1-4  docs · " in inside  # from inside the source's folder
    assert f"{tmp_path / 'api' / 'tool.py'}:1-2  api · " in run("search", "walrus option", "--kind", "code")


def test_every_command_takes_any_bytes_the_shell_passes(tmp_path: Path) -> None:
    """`mindex symbols find $'ab\\xb2cd'` (bytes that are not UTF-8, which Python holds as lone
    surrogates) crashed with UnicodeEncodeError in symbols, graph, get, changelog entity,
    memory show, workflow show and the memory and changelog filters. A lookup now finds what
    was indexed under such a name (stored as its visible escape) or nothing."""
    import os
    import subprocess
    import sys

    repo = tmp_path / "repo"
    repo.mkdir()
    odd = os.fsencode(repo) + b"/caf\xe9.py"  # a latin-1 file name
    with open(odd, "wb") as handle:
        handle.write(b"def brewed():\n    return 1\n")
    env = {**os.environ, "MINDEX_DB": str(tmp_path / "b.db")}

    def run(*args: bytes | str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "mindex", *args], env=env, capture_output=True, text=True,
                              errors="backslashreplace", cwd=tmp_path)

    assert run("add", str(repo), "--kind", "code").returncode == 0
    assert run("index", "-q").returncode == 0
    bad = b"ab\xb2cd"
    for args in (("symbols", "find", bad), ("graph", "callers", bad), ("graph", "callees", bad), ("graph", "impact", bad),
                 ("get", bad), ("changelog", "entity", bad), ("memory", "show", bad), ("workflow", "show", bad),
                 ("memory", "search", "x", "--tag", bad), ("memory", "list", "--file", bad), ("context", "--files", bad),
                 ("changelog", "search", "x", "--product", bad), ("search", bad), ("grep", bad), ("locate", bad)):
        done = run(*args)
        assert "Traceback" not in done.stderr and done.returncode in (0, 3), (args, done.stderr)
    outline = run("graph", "outline", b"caf\xe9.py")  # the name as the shell gives it
    assert outline.returncode == 0 and "brewed" in outline.stdout, outline.stderr
    saved = run("memory", "save", b"the caf\xe9 entry", "--tag", bad, "--json")
    assert saved.returncode == 0 and json.loads(saved.stdout)["tags"] == ["ab\\xb2cd"]


def test_a_file_name_with_a_newline_or_control_characters_prints_on_one_line_as_escapes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A name holding a newline started a line of its own in `search` (one that reads like
    another result); ESC in a name was escaped already, a newline or tab was not."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "evil\nname.md").write_text("# Walrus\n\nwalrus text\n")
    (docs / "tab\there.md").write_text("# Walrus two\n\nwalrus again\n")
    monkeypatch.chdir(tmp_path)
    run = _sqlite_cli()

    run("add", "docs")
    run("index", "-q")
    for output in (run("search", "walrus"), run("locate", "walrus")):
        assert "docs/evil\\x0aname.md" in output and "docs/tab\\x09here.md" in output
        assert not any(line.startswith("name.md") for line in output.splitlines())
    hit = json.loads(run("search", "walrus", "--json"))["results"]
    assert {h["path"] for h in hit} == {"evil\nname.md", "tab\there.md"}  # JSON keeps the name exact
    shown = run("get", hit[0]["id"]).splitlines()
    assert shown[0].startswith("docs/") and "\\x0" in shown[0] and "\\x0" in shown[1]


def test_a_lookup_that_finds_nothing_exits_3_with_json_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`symbols find` without a match exited 0 with --json while grep and graph exit 3."""
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "a.py").write_text("def present():\n    return 1\n")
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    assert runner.invoke(cli, ["add", "repo", "--kind", "code"]).exit_code == 0
    assert runner.invoke(cli, ["index", "-q"]).exit_code == 0
    for args in (["symbols", "find", "zzqqxx"], ["grep", "zzqqxx"], ["graph", "callers", "zzqqxx"], ["get", "ffffffffff"]):
        for extra in ([], ["--json"]):
            done = runner.invoke(cli, [*args, *extra])
            assert done.exit_code == 3, (args, extra, done.output)
    found = runner.invoke(cli, ["symbols", "find", "present", "--json"])
    assert found.exit_code == 0 and json.loads(found.stdout)["symbols"][0]["name"] == "present"
    assert runner.invoke(cli, ["search", "zzqqxx", "--json"]).exit_code == 0  # a ranked search: an empty answer


def test_index_without_embedding_leaves_the_vectors_to_mindex_embed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, docs_dir: Path, added_minilm: Path) -> None:
    """A user with a large tree wants keyword search and the graph now and the vectors later:
    `index --no-embed` indexes every chunk and embeds none, `embed` then embeds them all, and
    search goes from keyword to hybrid."""
    monkeypatch.setenv("MINDEX_EMBED__PROVIDER", "onnx")
    monkeypatch.setenv("MINDEX_EMBED__MODELS_DIR", str(added_minilm))
    runner = CliRunner()

    def run(*args: str) -> Any:
        result = runner.invoke(cli, [*args, "--json"], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    run("add", str(docs_dir))
    report = run("index", "-q", "--no-embed")["docs"]
    assert report["added"] == 7 and report["chunks"] > 0 and report["embedded"] == 0
    assert run("search", "connection pool")["mode"] == "keyword"
    assert run("embed", "-q")["embedded"] == report["chunks"]
    assert run("search", "connection pool")["mode"] == "hybrid"

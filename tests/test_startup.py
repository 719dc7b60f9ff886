"""Commands load only what they use: `--help` reads no config and no rich, a keyword search,
grep and the graph never import numpy, the embedders, the parsers or pydantic. Behaviour,
not timing: the timings live in benchmarks/bench_startup.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mindex import Index
from mindex.config import EmbedSettings, IndexSettings

# Run a command in a fresh interpreter, then list which of the heavy packages it imported.
PROBE = """
import json, sys
from mindex.serve.cli import main
sys.argv = ["mindex", *json.loads(sys.argv[1])]
code = 0
try:
    main()
except SystemExit as done:
    code = done.code or 0
heavy = {"numpy", "pydantic", "pydantic_settings", "httpx", "onnxruntime", "tokenizers", "tree_sitter",
         "rich", "yaml", "html_to_markdown", "mcp", "watchfiles", "pathspec"}
commands = {"agentcmd", "changelogcmd", "codecmd", "evalcmd", "memorycmd", "setup", "render", "workflowcmd", "opscli"}
serve = {m.rpartition(".")[2] for m in sys.modules if m.startswith("mindex.serve.")} & commands
sys.stderr.write("\\nLOADED " + json.dumps([code, sorted({m.split(".")[0] for m in sys.modules} & heavy), sorted(serve)]) + "\\n")
"""


def loaded(args: list[str], cwd: Path, expect: str = "retry") -> set[str]:
    """The heavy packages `mindex ARGS` imported (the command must succeed), its output a pipe."""
    return probe(args, cwd, expect)[0]


def probe(args: list[str], cwd: Path, expect: str = "retry", **settings: str) -> tuple[set[str], set[str]]:
    """The heavy packages and the command modules of `mindex.serve` that `mindex ARGS` imported
    (embed.provider none, unless `settings` give MINDEX_* variables)."""
    env = {**os.environ, "MINDEX_EMBED__PROVIDER": "none", **settings}
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=60)
    line = [row for row in done.stderr.splitlines() if row.startswith("LOADED ")]
    assert line, done.stderr
    code, modules, serve = json.loads(line[-1][len("LOADED "):])
    assert code == 0, done.stdout + done.stderr
    assert args[-1] == "--help" or expect in done.stdout, done.stdout
    return set(modules), set(serve)


@pytest.fixture
def small_project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "src" / "retry.py").write_text("def retry_with_backoff(call):\n    return call()\n")
    (project / "README.md").write_text("# Retries\n\nCalls are retried with backoff.\n")
    with Index(project / ".mindex" / "index.db", IndexSettings(workers=1), embed=EmbedSettings(provider="none")) as ix:
        ix.add_source(project, name="project", kind="code")
        ix.index()
    return project


def test_help_imports_neither_rich_nor_any_heavy_package(tmp_path: Path) -> None:
    assert loaded(["--help"], tmp_path) == set()
    assert loaded(["search", "--help"], tmp_path) == set()


def test_keyword_search_grep_and_graph_into_a_pipe_load_no_heavy_package(small_project: Path) -> None:
    """Without a terminal, lines print without rich; a command imports its own module only."""
    for args, own in ((["search", "retry backoff", "--mode", "keyword"], {"render", "opscli"}),
                      (["grep", "backoff"], {"opscli"}), (["graph", "callers", "retry_with_backoff"], {"codecmd", "opscli"}),
                      (["search", "retry", "--json"], {"opscli"}),
                      # a kind filter checks the name, not the kind's reader (pathspec, parsers)
                      (["search", "retry", "--kind", "code", "--json"], {"opscli"})):
        heavy, modules = probe(args, small_project)
        assert heavy == set() and modules == own, (args, heavy, modules)


def test_help_lists_every_command_without_importing_their_modules(tmp_path: Path) -> None:
    heavy, modules = probe(["--help"], tmp_path, expect="")
    assert heavy == set() and modules == set()


def test_an_index_run_with_nothing_changed_loads_no_parser_and_no_model(small_project: Path) -> None:
    assert loaded(["index", "-q"], small_project, expect="2 unchanged") <= {"rich", "pathspec"}


def test_a_search_embedding_its_query_locally_loads_no_http_client(small_project: Path, added_minilm: Path) -> None:
    """The remote embedders (and httpx with them) load only when configured."""
    local = {"MINDEX_EMBED__PROVIDER": "onnx", "MINDEX_EMBED__MODELS_DIR": str(added_minilm)}
    heavy, _ = probe(["embed"], small_project, expect="", **local)
    assert "onnxruntime" in heavy and "httpx" not in heavy
    heavy, _ = probe(["search", "retry", "--mode", "semantic", "--json"], small_project, **local)
    assert {"numpy", "onnxruntime", "tokenizers"} <= heavy and "httpx" not in heavy


def test_a_keyword_search_that_logs_nothing_never_imports_logging(small_project: Path) -> None:
    """Importing and configuring `logging` cost every command about 4 ms; it is set up when
    something first logs (mindex.logs)."""
    script = ("import sys; from mindex.serve.cli import main; sys.argv = ['mindex', 'search', 'retry', '--mode', "
              "'keyword']\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
              "sys.stderr.write('LOGGING ' + str('logging' in sys.modules))")
    done = subprocess.run([sys.executable, "-c", script], cwd=small_project, capture_output=True, text=True,
                          env={**os.environ, "MINDEX_EMBED__PROVIDER": "none"}, timeout=60)
    assert "retry" in done.stdout and done.stderr.endswith("LOGGING False"), done.stderr


@pytest.mark.parametrize("given", [None, "30"])
def test_the_mindex_command_stops_openblas_threads_spinning_unless_the_user_set_it(given: str | None) -> None:
    """numpy's OpenBLAS threads spin on the other core after they start (0.1 s of CPU at
    import): the command sets the shortest wait for itself and every process it starts."""
    script = (
        "import os, sys\nsys.argv = ['mindex', '--version']\nfrom mindex.serve import front\n"
        "try:\n    front.main()\nexcept SystemExit:\n    pass\n"
        "import subprocess\n"
        "print(subprocess.run([sys.executable, '-c', 'import os; print(os.environ[\"OPENBLAS_THREAD_TIMEOUT\"])'],"
        " capture_output=True, text=True).stdout.strip())\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_THREAD_TIMEOUT"}
    if given is not None:
        env["OPENBLAS_THREAD_TIMEOUT"] = given
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    assert done.stdout.strip().splitlines()[-1] == (given or "4")
